/*
 * The LSM layer of simhash_mih: flushes of the pending rows into runs, merges of runs (in slices
 * into the base), their locks, page recycling and progress. It includes only store/ and format/
 * headers of the access method.
 */
#ifndef SIMHASH_MIH_LSM_H
#define SIMHASH_MIH_LSM_H

#include "store/mih_store.h"

#include "lsm/mih_merge_policy.h"

StaticAssertDecl(MIH_POLICY_MAX_RUNS == MIH_MAX_RUNS, "the merge policy sees every run of a meta page");

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

/* mih_am_recycle.c; a MihPageFn sees a page of the list as it is read */
typedef void (*MihPageFn) (void *arg, Page page);
extern void mih_blocks_init(MihBlockList *list);
extern void mih_blocks_add(MihBlockList *list, BlockNumber blkno);
extern BlockNumber mih_blocks_add_page(MihWalk *walk, BlockNumber blkno, uint16 kind, bool chain,
									   MihBlockList *old, MihPageFn fn, void *arg);
extern void mih_blocks_add_chain(Relation index, BlockNumber head, uint16 kind, MihBlockList *list);
extern void mih_blocks_add_run_chains(Relation index, const MihRun *run, int ntables, MihBlockList *list);
extern void mih_recycle(Relation index, const MihBlockList *list);

/* mih_am_view.c */
extern uint64 mih_pending_limit_rows(Relation index);

/* mih_am_flush.c */
extern uint64 mih_flush(Relation index, bool wait, uint64 min_rows);

/* mih_am_merge.c */
extern uint64 mih_merge(Relation index, MihMergeMode mode);
extern uint64 mih_merge_reported(Relation index, MihMergeMode mode);
extern bool mih_big_merge_due(Relation index, bool worker);

/* mih_am_settle.c */
extern bool mih_settles(Relation index);
extern bool mih_settle_due(Relation index);
extern bool mih_settle_into_base_due(Relation index);
extern uint64 mih_settle(Relation index);
extern uint64 mih_rows_appended(Relation index);

/* mih_am_locks.c */
extern void mih_lock_runs(Relation index);
extern void mih_unlock_runs(Relation index);
extern void mih_lock_pending(Relation index);
extern void mih_unlock_pending(Relation index);

/* mih_am_slices.c */
extern uint64 mih_merge_in_slices(Relation index, uint64 base_id, uint64 level_id);

#endif
