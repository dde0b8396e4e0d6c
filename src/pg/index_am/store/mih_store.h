/*
 * The store layer of simhash_mih: reading and writing the index's pages (bounded walks, the meta
 * page, chains, free pages), a run's tables, filters and directory (cached per backend), and the
 * probes of a run (mih_probe.h). It includes only format/ headers of the access method.
 */
#ifndef SIMHASH_MIH_STORE_H
#define SIMHASH_MIH_STORE_H

#include "format/mih_format.h"

#include "access/generic_xlog.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

/* The directory of every table of one run, read from its fence pages and kept in rd_amcache. */
typedef struct MihDirectory
{
	uint64		build_id;
	uint64		epoch;
	int			ntables;
	uint32		pages[MIH_MAX_TABLES];
	uint32	   *first_values[MIH_MAX_TABLES];
	BlockNumber *blocks[MIH_MAX_TABLES];
	/* the shared buffer each page was last found in: ReadRecentBuffer skips the mapping lookup */
	Buffer	   *recent[MIH_MAX_TABLES];
	uint64	   *filter[MIH_MAX_TABLES];	/* NULL: the run has no filters */
	int			filter_shift[MIH_MAX_TABLES];	/* block value >> shift: its bit in the filter */
} MihDirectory;

/*
 * A damaged index fails fast and clearly: every block number read from a page is checked before it
 * is followed (inside the index, not the meta page), every chain walk counts its steps (a chain
 * never has more pages than the index: more is a cycle), every page's item count is checked against
 * its kind's capacity, and each such walk checks for interrupts. A violation is index_corrupted
 * (XX002) naming the index, with a REINDEX hint.
 */
#define mih_corrupt(index, blkno, ...) \
	ereport(ERROR, \
			(errcode(ERRCODE_INDEX_CORRUPTED), \
			 errmsg("index \"%s\" is corrupted", RelationGetRelationName(index)), \
			 errdetail("Block %u: %s.", (blkno), psprintf(__VA_ARGS__)), \
			 errhint("REINDEX the index.")))

typedef struct MihWalk
{
	Relation	index;
	BlockNumber nblocks;		/* the index's size when last looked up */
	BlockNumber steps;			/* pages visited by this walk */
} MihWalk;

/*
 * What a backend keeps of an index in rd_amcache, dropped with it (a relcache invalidation: a
 * REINDEX or TRUNCATE gives the index a new file): the directories of the runs it has read, and the
 * index's size when last looked up.
 */
typedef struct MihDirCache
{
	int			n;
	MihDirectory *dirs[MIH_MAX_RUNS];
	BlockNumber nblocks;
} MihDirCache;

/* mih_am_leave.c: the merge worker leaves a database that a command needs alone (the merges'
 * loops down to the writing of a table's pages test it) */
extern void mih_leave_when_wanted(void);
extern bool mih_database_wanted(void);
extern void mih_leave_if_wanted(void);

/* mih_am_pages.c */
extern MihDirCache *mih_dir_cache(Relation index);
extern void mih_walk_start(MihWalk *walk, Relation index);
extern void mih_walk_step(MihWalk *walk, BlockNumber blkno);
extern void mih_check_link(MihWalk *walk, BlockNumber blkno);
extern void mih_check_items(Relation index, BlockNumber blkno, Page page);
extern void mih_check_retry(Relation index, const MihMeta *seen);
extern Buffer mih_read_kind(MihWalk *walk, BlockNumber blkno, uint16 kind, bool chain, int lockmode);
extern Buffer mih_read_recent(Relation index, BlockNumber blkno, Buffer *hint);
extern Buffer mih_read_chain_page(MihWalk *walk, BlockNumber blkno, uint16 kind);
extern Size mih_read_item_chain(Relation index, BlockNumber head, uint16 kind, void *items,
								Size item_size, Size capacity, bool *recycled);
extern void mih_init_page(Page page, uint16 kind);
extern Buffer mih_new_buffer(Relation index);
extern BlockNumber mih_write_image(Relation index, Buffer buffer, Page image);
extern BlockNumber mih_write_item_chain(Relation index, uint16 kind, const void *items, Size item_size,
									   Size nitems);
extern void mih_validate_meta(Relation index, const MihMeta *meta);
extern void mih_copy_meta(Relation index, Page page, MihMeta *meta);
extern MihMeta *mih_begin_meta_change(Relation index, Buffer buffer, GenericXLogState *state);
extern Buffer mih_pin_meta(Relation index, MihMeta *meta);
extern void mih_read_meta(Relation index, MihMeta *meta);
extern bool mih_has_run(const MihMeta *meta, uint64 build_id, uint64 epoch);
extern uint64 mih_new_build_id(MihMeta *meta);
extern uint64 mih_reserve_build_id(Relation index);
extern bool mih_runs_unchanged(Relation index, const MihMeta *seen, bool on_standby);
extern bool mih_generation_unchanged(Relation index, const MihMeta *seen, bool on_standby);
extern void mih_free_page(Relation index, BlockNumber blkno);
extern uint64 mih_tail_rows(Relation index, BlockNumber tail, bool *recycled);

/* mih_am_directory.c */
extern const MihDirectory *mih_directory(Relation index, const MihMeta *meta, const MihRun *run,
										 bool *stale);

/* mih_am_tables.c: progress names the pair of progress params for rows to write and written */
typedef struct MihProgress
{
	int			total;
	int			done;
} MihProgress;
/* A row of table 0 being written: its hash rotated so block 0 is on top, its place in the input. */
typedef struct MihRef
{
	uint64		key;
	uint32		ord;
} MihRef;
/*
 * What a merge tells mih_write_tables of its rows' order, so that it merges what is sorted instead
 * of sorting it again: the rows come as nsegments runs each sorted by table 0's key (rows start[s]
 * to start[s + 1] - 1).
 */
typedef struct MihPresorted
{
	int			nsegments;
	const Size *start;
} MihPresorted;
extern void mih_write_tables(Relation index, uint64 *hashes, ItemPointerData *tids, Size n, int m,
							 bool compact, const MihPresorted *presorted, const MihProgress *progress,
							 uint64 build_id, MihRun *run);
extern uint32 mih_write_table(Relation index, int m, int j, uint64 build_id, const uint64 *entries,
							  const ItemPointerData *tids, Size n, MihFence *dir, Buffer *hints);
extern void mih_merge_refs(const MihRef *in, const Size *start, int k, MihRef *out);
extern uint64 *mih_key_items(const uint64 *hashes, Size n, int m, int j, Size *nitems);
extern uint64 *mih_table_keys(const uint64 *hashes, Size n, int m, int j, Size *nkeys);
extern int mih_tables_for(Relation index, Size nrows);
extern bool mih_compact_for(Relation index);

/* mih_am_filter.c */
extern uint32 mih_filter_bits(int m, uint64 nrows);
extern double mih_filter_fill(const MihRun *run);
extern void mih_write_filters(Relation index, const uint64 *hashes, Size n, int m, MihRun *run);
extern void mih_read_filters(Relation index, const MihMeta *meta, const MihRun *run, MihDirectory *dir,
							 bool *recycled);

/* False if no row of the run has block value v in table j (filters have no false negatives). */
static inline bool
mih_filter_may_hold(const MihDirectory *dir, int j, uint32 v)
{
	uint32		bit;

	if (dir->filter[j] == NULL)
		return true;
	bit = v >> dir->filter_shift[j];
	return (dir->filter[j][bit / 64] >> (bit % 64)) & 1;
}

#endif
