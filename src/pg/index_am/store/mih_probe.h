/*
 * Probing the sorted tables of a run of a simhash_mih index: visiting every entry of table j whose
 * block j has a given value. Shared by the radius scan (mih_am_scan.c) and the nearest-neighbour scan
 * (mih_am_knn.c), which differ only in what they do with an entry (the match callback).
 */
#ifndef SIMHASH_MIH_AM_PROBE_H
#define SIMHASH_MIH_AM_PROBE_H

#include "store/mih_store.h"

typedef struct MihProbe MihProbe;

/* Called with the page share-locked for entry i (hash h) of table pr->table. */
typedef void (*MihMatchFn) (MihProbe *pr, Page page, int i, uint64 h);

/* Called for each key of block value `value` in key table pr->table (format/mih_keys.h). */
typedef void (*MihKeyFn) (MihProbe *pr, uint32 value, uint32 key);

struct MihProbe
{
	Relation	index;
	const MihMeta *meta;
	const MihRun *run;			/* the run probed, one of meta's */
	const MihDirectory *dir;
	int			table;			/* the table probed (mih_probe_table) */
	int			shift;			/* a hash's block of the table: (h >> shift) & mask */
	uint32		mask;
	bool		packed;			/* the table's pages hold packed keys (MIH_PAGE_HASHES) */
	int			top;			/* a key's block: key >> top */
	int			rotation;		/* a key is its hash rotated left by this many bits */
	Buffer		buffer;			/* the last page visited stays pinned */
	MihWalk		walk;			/* checks the blocks the directory names */
	bool		stale;			/* a page was not of the run the meta copy describes */
	MihMatchFn	match;
	MihKeyFn	key_match;		/* for key tables; NULL: the caller never probes them */
	void	   *arg;			/* the caller's state */
	uint64		query;			/* match sees only entries within `within` bits of query */
	int			within;			/* 64 (the default): every entry */
};

/* Called with each page of a chain (pending or NULL rows), share-locked. */
typedef void (*MihRowsFn) (void *arg, Page page, uint16 kind);

/* Called with a live row of table 0 and its hash (mih_probe_rows_of). */
typedef void (*MihTidFn) (void *arg, uint64 h, const ItemPointerData *tid);

extern void mih_probe_begin(MihProbe *pr, Relation index, const MihMeta *meta, const MihRun *run,
							MihMatchFn match, void *arg);
extern bool mih_is_key_table(const MihMeta *meta, int j);
extern void mih_probe_table(MihProbe *pr, int j);
extern void mih_probe_value(MihProbe *pr, uint32 v);
extern void mih_probe_values(MihProbe *pr, const uint32 *values, int n);
extern Page mih_probe_visit(MihProbe *pr, int table, uint32 p);
extern void mih_probe_end(MihProbe *pr);
extern int	mih_block_values(uint32 value, int len, int r, bool exactly, uint32 *out);
extern double mih_level_cost(const MihMeta *meta, const MihRun *run, int j, int level);
extern double mih_pass_cost(const MihRun *run);
extern double mih_radius_levels(const MihMeta *meta, const MihRun *run, int radius, int *levels);
extern bool mih_probe_read_table0(MihProbe *pr, MihRowsFn fn, void *arg);
extern bool mih_probe_ordinal_tid(MihProbe *pr, uint32 ord, ItemPointerData *tid);
extern bool mih_probe_rows_of(MihProbe *pr, const uint64 *keys, Size n, MihTidFn fn, void *arg);
extern bool mih_read_chains(Relation index, const MihMeta *meta, bool nulls, bool on_standby, MihRowsFn fn,
							void *arg);

#endif
