/*
 * The simhash_mih index access method: exact radius search by multi-index hashing over
 * block-permuted sorted tables (Manku et al.), stored in the index's own pages.
 *
 * Layout 3 (every page is a standard page whose used bytes lie below pd_lower, so generic WAL
 * logs exactly them):
 *   block 0                 meta page: the runs, the pending, sealed and NULL chains
 *   runs                    each a set of m sorted tables written at once (by the build, a flush
 *                           of the pending rows or a merge of runs), all runs with the same m:
 *     table 0 pages         (hash, tid) of every row of the run, sorted by block 0 of the hash,
 *                           the tids packed (MihTidsHeader; a run of 1.2 has them whole)
 *     table 1 .. m-1 pages  the distinct hashes of table 0, sorted by block j, packed as their
 *                           differences from each page's first (MihPackedPage): a row found
 *                           there is reached through table 0 by value (block 0, then the hash);
 *                           a run of layout 2 (simhash 1.2) holds (hash, ordinal in table 0)
 *                           instead (MIH_PAGE_TABLEJ); a compact index (WITH (compact = on))
 *                           the distinct 4-byte keys of the rows grouped by block j
 *                           (mih_am_keys.h)
 *     fence pages           per table, a chain of (block value of the page's first entry, page)
 *                           for each of its pages in order: the table's directory
 *     filter pages          per table of a run small enough, a chain holding a bitmap of the
 *                           block values present (mih_am_filter.c): most probes of such a run
 *                           end in memory
 *   pending pages           (hash, tid) inserted since the last flush, unsorted, a chain; the
 *                           sealed chain is the same while a flush writes it as a run
 *   NULL pages              (unused, tid) of the rows whose hash is NULL, a chain: only a scan
 *                           ordered by distance returns them (last)
 *   free pages              recycled by a flush or merge, listed in the free space map
 * A radius-k query probes, in each run and on each table j, every value within t_j bits of the
 * query's block j, with sum_j (t_j + 1) > k (pigeonhole: an answer agrees that closely on at least
 * one block; the cheapest such levels, mih_radius_levels), and compares full hashes in the index,
 * then reads the sealed and pending pages linearly. Only true answers are returned.
 * A scan ordered by sh <-> q probes the tables of every run level by level (mih_am_knn.c).
 * Inserts flush the pending rows into a run at the pending_limit, and runs merge by size tiers
 * (mih_am_merge.c); VACUUM invalidates the tids of dead rows in table 0 of each run (the other
 * tables reach rows through it) and compacts pending pages (mih_am_vacuum.c).
 *
 * Why tables 1..m-1 hold hashes, not where a row sits in table 0: 8 bytes an entry instead of 12
 * (about 6.5 packed: sorted neighbours share their top bits), each distinct hash once (a crawl
 * stores the same page many times), and a table 0 that can be rewritten in parts without
 * renumbering what the other tables refer to.
 */
#ifndef SIMHASH_MIH_AM_H
#define SIMHASH_MIH_AM_H

#include "postgres.h"

#include "access/amapi.h"
#include "access/generic_xlog.h"
#include "nodes/execnodes.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/itemptr.h"
#include "utils/rel.h"

#include "module_init.h"			/* mih_init_reloptions, which mih_am_handler.c defines */
#include "packed_keys.h"
#include "pg_compat.h"

#define MIH_MAGIC			0x4D494841	/* "MIHA" */
#define MIH_VERSION			3
#define MIH_VERSION_ONE_RUN	2	/* simhash 1.2: read as one run */
#define MIH_META_BLKNO		0
#define MIH_MIN_TABLES		2
#define MIH_MAX_TABLES		6

/* Page kinds, kept in the special space. */
#define MIH_PAGE_META		1
#define MIH_PAGE_TABLE0		2
#define MIH_PAGE_TABLEJ		3	/* tables 1..m-1 of a run of layout 2: (hash, ordinal) */
#define MIH_PAGE_FENCE		4
#define MIH_PAGE_PENDING	5
#define MIH_PAGE_FREE		6
#define MIH_PAGE_NULLS		7
#define MIH_PAGE_KEYS		8	/* tables 1..m-1 of a compact index */
#define MIH_PAGE_FILTER		9	/* a run's block filter (mih_am_filter.c) */
#define MIH_PAGE_HINTS		10	/* the buffers a run's table pages were written through */
#define MIH_PAGE_HASHES		11	/* tables 1..m-1: distinct hashes (MIH_RUN_HASHES) */
#define MIH_PAGE_ROWS		12	/* table 0 with packed tids (MIH_RUN_PACKED_ROWS) */

typedef struct MihPageOpaque
{
	uint16		kind;
	uint16		nitems;
	BlockNumber next;			/* pending and fence chains; on table pages, the build's tag */
} MihPageOpaque;

/* Table pages carry the low bits of their build's id, so a scan can tell a recycled page. */
#define MihBuildTag(build_id)	((uint32) (build_id))

#define MIH_DATA_BYTES \
	(BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - MAXALIGN(sizeof(MihPageOpaque)))
/*
 * pending and NULL pages, and table 0 of a run of layout 2: uint64 hash[MIH_ROWS_PER_PAGE], then
 * ItemPointerData tid[...]
 */
#define MIH_ROWS_PER_PAGE	(MIH_DATA_BYTES / (sizeof(uint64) + sizeof(ItemPointerData)))
/*
 * table 0 (MIH_PAGE_ROWS): uint64 hash[nitems], then MihTidsHeader, then each row's heap tid
 * packed in the header's width (packed_keys.h): its block above the page's least, then its offset
 * (0: VACUUM found the row dead, or it was dead when written).
 */
typedef struct MihTidsHeader
{
	BlockNumber first_block;	/* the least block of the page's live rows */
	uint8		offset_bits;	/* 1..16 */
	uint8		width;			/* offset_bits, and the bits of the blocks above first_block */
	uint16		unused;
} MihTidsHeader;

/* The room for the packed tids of a page of n rows. */
#define MIH_TIDS_BYTES(n) \
	(MIH_DATA_BYTES - (n) * sizeof(uint64) - sizeof(MihTidsHeader))
/* The fewest rows a full page of table 0 holds (tids of 48 bits: blocks 2^32 apart, offsets of 16) ... */
#define MIH_ROWS_MIN_PER_PAGE	((MIH_DATA_BYTES - sizeof(MihTidsHeader) - 8) * 8 / (64 + 48))
/* ... and the most (tids of 1 bit). */
#define MIH_ROWS_MAX_PER_PAGE	((MIH_DATA_BYTES - sizeof(MihTidsHeader) - 8) * 8 / (64 + 1))
/* tables 1..m-1 of layout 2: uint64 hash[MIH_REFS_PER_PAGE], then uint32 ordinal[...] */
#define MIH_REFS_PER_PAGE	(MIH_DATA_BYTES / (sizeof(uint64) + sizeof(uint32)))
/*
 * tables 1..m-1 (MIH_PAGE_HASHES): MihPackedPage, then the page's keys (hashes rotated by block
 * j, sorted) as their differences from its first, bit-packed at its width (packed_keys.h)
 */
typedef struct MihPackedPage
{
	uint64		first;			/* the key of the page's first entry */
	uint16		width;			/* bits of each entry's difference from it: 0..57, or 64 */
	uint16		unused[3];
} MihPackedPage;

#define MIH_PACKED_BYTES	(MIH_DATA_BYTES - sizeof(MihPackedPage))
/* The fewest entries a full page of tables 1..m-1 holds (every difference 64 bits wide). */
#define MIH_HASHES_MIN_PER_PAGE	sh_packed_min_entries(MIH_PACKED_BYTES)
typedef struct MihFence
{
	uint32		first_value;	/* the table's block of the page's first hash */
	BlockNumber blkno;
} MihFence;

#define MIH_FENCES_PER_PAGE	(MIH_DATA_BYTES / sizeof(MihFence))
/* filter pages: uint64 words of the bitmap */
#define MIH_FILTER_WORDS_PER_PAGE	(MIH_DATA_BYTES / sizeof(uint64))
/* hint pages: Buffer per table page, in the directory's order */
#define MIH_HINTS_PER_PAGE	(MIH_DATA_BYTES / sizeof(Buffer))

#define MihPageGetOpaque(page)	((MihPageOpaque *) PageGetSpecialPointer(page))
#define MihPageHashes(page)		((uint64 *) PageGetContents(page))
#define MihPageTids(page)		((ItemPointerData *) (PageGetContents(page) + MIH_ROWS_PER_PAGE * sizeof(uint64)))
#define MihPageOrdinals(page)	((uint32 *) (PageGetContents(page) + MIH_REFS_PER_PAGE * sizeof(uint64)))
#define MihPageFences(page)		((MihFence *) PageGetContents(page))
#define MihPackedHeader(page)	((MihPackedPage *) PageGetContents(page))
#define MihPackedData(page)		((uint8 *) PageGetContents(page) + sizeof(MihPackedPage))

#define MihTidsHeaderOf(page) \
	((MihTidsHeader *) (PageGetContents(page) + MihPageGetOpaque(page)->nitems * sizeof(uint64)))
#define MihTidsData(page)		((uint8 *) (MihTidsHeaderOf(page) + 1))

/* The heap tid of row i of a page of (hash, tid) rows: table 0, pending or NULL. */
static inline ItemPointerData
mih_row_tid(Page page, int i)
{
	const MihTidsHeader *th;
	uint64		v;
	ItemPointerData tid;

	if (MihPageGetOpaque(page)->kind != MIH_PAGE_ROWS)
		return MihPageTids(page)[i];
	th = MihTidsHeaderOf(page);
	v = sh_packed_get((const uint8 *) (th + 1), th->width, (uint32) i);
	ItemPointerSet(&tid, th->first_block + (BlockNumber) (v >> th->offset_bits),
				   (OffsetNumber) (v & ((UINT64_C(1) << th->offset_bits) - 1)));
	return tid;
}

/* The key (hash rotated by its table's block) of entry i of a page of tables 1..m-1. */
static inline uint64
mih_packed_key(Page page, uint32 i)
{
	const MihPackedPage *pk = MihPackedHeader(page);

	return pk->first + sh_packed_get(MihPackedData(page), pk->width, i);
}

/*
 * A run: m sorted tables written at once (by the build, by a flush of the pending rows, or by a
 * merge of runs). Its table pages carry MihBuildTag(build_id).
 */
typedef struct MihRun
{
	uint64		build_id;		/* greater than every id given out before it (mih_new_build_id) */
	uint64		nrows;			/* entries in each of its tables, dead ones included */
	uint32		table_pages[MIH_MAX_TABLES];
	BlockNumber fence_head[MIH_MAX_TABLES];	/* the first page of each table's directory */
	BlockNumber filter_head[MIH_MAX_TABLES];	/* the first page of each table's filter */
	uint32		filter_bits;	/* log2 of the bits of each filter; 0: the run has none */
	uint16		merging;		/* 1 while the background worker merges it: no inserter's
								 * merge takes it */
	uint16		flags;			/* MIH_RUN_* */
	/*
	 * The first page of each table's hints: the buffer each of its pages was written through, so
	 * that every backend's first visit of a new run's page skips the buffer mapping's lookup
	 * (mih_read_recent checks each). InvalidBlockNumber: none (a run of layout 2).
	 */
	BlockNumber hint_head[MIH_MAX_TABLES];
	/*
	 * Changes whenever a merge in slices (mih_am_slices.c) replaces one of the run's tables in
	 * place: a run is its build_id and epoch (directories are cached by both). Its new pages carry
	 * the run's tag, so a hot standby's scan tells them from the pages they replaced by the epoch
	 * (mih_runs_unchanged).
	 */
	uint64		epoch;
} MihRun;

StaticAssertDecl(sizeof(MihRun) == 128, "a run's fields in the meta page: layout 3");

/* Tables 1..m-1 hold distinct hashes (MIH_PAGE_HASHES); a run of layout 2 has ordinals. */
#define MIH_RUN_HASHES		1
/*
 * Tables 1..m-1 may hold hashes table 0 does not (a merge in slices, mih_am_slices.c, moves rows
 * between the base run and the level run table by table): a hash found there reaches no row of
 * this run (its rows are found through the other run), and pages of table 0 may be partly full.
 */
#define MIH_RUN_EXTRA		2
/* Table 0's pages pack their tids (MIH_PAGE_ROWS): every run from simhash 1.3 on. */
#define MIH_RUN_PACKED_ROWS	4

/* The page kind of table 0 of a run ... */
#define mih_table0_kind(run) \
	(((run)->flags & MIH_RUN_PACKED_ROWS) ? MIH_PAGE_ROWS : MIH_PAGE_TABLE0)
/* ... and of its tables 1..m-1. */
#define mih_tablej_kind(meta, run) \
	(((meta)->flags & MIH_FLAG_COMPACT) ? MIH_PAGE_KEYS : \
	 ((run)->flags & MIH_RUN_HASHES) ? MIH_PAGE_HASHES : MIH_PAGE_TABLEJ)

/* Size tiers (mih_am_merge.c) keep far fewer runs; the meta page has room for this many. */
#define MIH_MAX_RUNS		32
/* A size tier's runs are merged when it has this many: tier t holds runs of limit * 4^t rows. */
#define MIH_MERGE_FANIN		4
/* Runs of this tier and above are big (no filter helps much); at most MIH_BIG_RUNS are kept. */
#define MIH_BIG_TIER		3
#define MIH_BIG_RUNS		3

/*
 * Layout 3. Layout 2 (simhash 1.2) had one run's fields in the meta page: mih_pin_meta reads such
 * a page as an index of one run, and the first change to the meta page writes it as layout 3.
 */
typedef struct MihMeta
{
	uint32		magic;
	uint32		version;
	int32		ntables;		/* m, the same in every run */
	uint32		flags;			/* MIH_FLAG_*, the same in every run */
	uint64		generation;		/* changes whenever runs or the sealed chain change (before any page
								 * is recycled) */
	BlockNumber pending_head;
	BlockNumber pending_tail;
	uint64		npending;		/* entries in pending pages but the tail page (upper bound: VACUUM
								 * removes some) */
	BlockNumber sealed_head;	/* pending rows a flush is writing as a run: scans read them too */
	uint32		nruns;
	uint64		nsealed;
	BlockNumber nulls_head;
	BlockNumber nulls_tail;
	uint64		inserted;		/* rows appended to the pending chain since the build, counted
								 * when their page stops being the tail */
	uint64		written;		/* rows written into runs by flushes and merges since the build */
	uint64		slices;			/* changes of merges in slices (mih_am_slices.c): mih_runs_unchanged */
	MihRun		runs[MIH_MAX_RUNS];
	uint64		last_build;		/* the build id given last (mih_new_build_id) */
} MihMeta;

StaticAssertDecl(sizeof(MihMeta) <= MIH_DATA_BYTES, "the meta page holds MihMeta");

#define MIH_FLAG_COMPACT	1	/* tables 1..m-1 are key tables */

#define MihPageGetMeta(page)	((MihMeta *) PageGetContents(page))

/* The rows of every run, dead ones included. */
static inline uint64
mih_sorted_rows(const MihMeta *meta)
{
	uint64		n = 0;

	for (uint32 r = 0; r < meta->nruns; r++)
		n += meta->runs[r].nrows;
	return n;
}

typedef struct MihOptions
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	int			blocks;			/* 0: chosen from the row count at build */
	bool		compact;		/* key tables (MIH_FLAG_COMPACT) at the next build or full merge */
	int			pending_limit;	/* kB of pending rows that make the inserter flush them */
	int			base_share;		/* the other runs merge into the base at 1/base_share of its rows; 0: never */
} MihOptions;

#define MIH_PENDING_LIMIT_DEFAULT	128	/* kB: 16 pages, 9,312 rows */
#define MIH_BASE_SHARE_DEFAULT		16

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

/* mih_am_pages.c */
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
extern const MihDirectory *mih_directory(Relation index, const MihMeta *meta, const MihRun *run,
										 bool *stale);
extern void mih_free_page(Relation index, BlockNumber blkno);

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

/* mih_am_merge.c */
typedef enum MihMergeMode
{
	MIH_MERGE_INSERTER,			/* small merges only: an inserter must not stall */
	MIH_MERGE_BIG,				/* merges of big runs only (the background worker) */
	MIH_MERGE_DUE,				/* every merge due, small and big (VACUUM) */
	MIH_MERGE_ALL,				/* every run into one (simhash_mih_merge) */
	MIH_MERGE_SETTLE			/* the worker's once the writers paused (mih_settle), or
								 * into the base with time to spare */
} MihMergeMode;

/*
 * A merge's progress goes to params of the backend's progress command that pg_stat_progress_vacuum
 * leaves unused (it reads the first 13 of 20 up to PostgreSQL 19); simhash_mih_merge_progress (see
 * src/install/36_mih_am.sql) shows them. MIH_PROGRESS_INDEX is 0 when no merge is under way.
 */
#define MIH_PROGRESS_INDEX			15
#define MIH_PROGRESS_PHASE			16
#define MIH_PROGRESS_ROWS_TOTAL		17
#define MIH_PROGRESS_ROWS_DONE		18
#define MIH_MERGE_PHASE_READ		1	/* reading the runs (rows_done of the runs' rows_total) */
#define MIH_MERGE_PHASE_WRITE		2	/* sorting and writing the tables (rows times tables) */
#define MIH_MERGE_PHASE_RECYCLE		3	/* waiting for scans before freeing the old pages */

/* Pages to free once no scan can read them any more (mih_recycle). */
typedef struct MihBlockList
{
	BlockNumber *blocks;
	Size		n;
	Size		cap;
} MihBlockList;

extern void mih_blocks_init(MihBlockList *list);
extern void mih_blocks_add(MihBlockList *list, BlockNumber blkno);
extern void mih_blocks_add_chain(Relation index, BlockNumber head, uint16 kind, MihBlockList *list);
extern void mih_blocks_add_run_chains(Relation index, const MihRun *run, int ntables, MihBlockList *list);
extern void mih_recycle(Relation index, const MihBlockList *list);
extern uint64 mih_pending_limit_rows(Relation index);
extern uint64 mih_flush(Relation index, bool wait, uint64 min_rows);
extern uint64 mih_merge(Relation index, MihMergeMode mode);
extern uint64 mih_merge_reported(Relation index, MihMergeMode mode);
extern bool mih_big_merge_due(Relation index, bool worker);
extern bool mih_settles(Relation index);
extern bool mih_settle_due(Relation index);
extern bool mih_settle_into_base_due(Relation index);
extern uint64 mih_settle(Relation index);
extern uint64 mih_rows_appended(Relation index);
extern void mih_lock_runs(Relation index);
extern void mih_unlock_runs(Relation index);
extern void mih_lock_pending(Relation index);
extern void mih_unlock_pending(Relation index);

/* mih_am_slices.c */
extern uint64 mih_merge_in_slices(Relation index, uint64 base_id, uint64 level_id);

/* mih_am_build.c: the phases CREATE INDEX reports in pg_stat_progress_create_index */
#define MIH_PHASE_SCAN		2		/* reading the table (blocks_done / blocks_total) */
#define MIH_PHASE_WRITE		3		/* sorting and writing the tables (tuples_done / tuples_total) */
extern char *mih_buildphasename(int64 phase);
extern int mih_tables_for(Relation index, Size nrows);
extern bool mih_compact_for(Relation index);
extern IndexBuildResult *mih_build(Relation heap, Relation index, IndexInfo *info);
extern void mih_buildempty(Relation index);

/* mih_am_cost.c: the shape the planner's cost estimate sees */
typedef struct MihShape
{
	int			ntables;
	uint32		nruns;
	double		rows;			/* in runs and pending */
	double		table_pages[MIH_MAX_TABLES];	/* of every run; table 0's with the pending pages */
} MihShape;

extern void mih_shape_for_planner(Relation index, double tuples, MihShape *shape);

/* mih_am_worker.c */
extern void mih_merge_in_background(Relation index);

/* mih_am_leave.c: the merge worker leaves a database that a command needs alone */
extern void mih_leave_when_wanted(void);
extern bool mih_database_wanted(void);
extern void mih_leave_if_wanted(void);

/* mih_am_insert.c */
extern uint64 mih_tail_rows(Relation index, BlockNumber tail, bool *recycled);
extern bool mih_insert(Relation index, Datum *values, bool *isnull, ItemPointer tid, Relation heap,
					   IndexUniqueCheck check, bool indexUnchanged, IndexInfo *info);

/* mih_am_scan.c */
extern IndexScanDesc mih_beginscan(Relation index, int nkeys, int norderbys);
extern void mih_rescan(IndexScanDesc scan, ScanKey keys, int nkeys, ScanKey orderbys, int norderbys);
extern bool mih_gettuple(IndexScanDesc scan, ScanDirection dir);
extern int64 mih_getbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern void mih_endscan(IndexScanDesc scan);

/* mih_am_vacuum.c */
extern IndexBulkDeleteResult *mih_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
											 IndexBulkDeleteCallback callback, void *callback_state);
extern IndexBulkDeleteResult *mih_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats);

/* mih_am_check.c */
extern Relation mih_open_checked(Oid indexoid, LOCKMODE lockmode, Relation *heap);

#endif
