/*
 * The merge policy of simhash_mih: every knob, and the choosers that decide which runs merge,
 * into what, and whether the pending rows flush. Plain C (no PostgreSQL header): the choosers read
 * a view of the meta page (MihPolicyView, filled by mih_am_merge.c) and return a plan
 * (MihMergePlan); the mechanism (mih_am_merge.c, mih_am_slices.c, the worker) takes the locks,
 * marks the runs and writes. The rules themselves are told at the top of mih_am_merge.c; the
 * choosers' unit tests are test/core/merge_policy_test.cpp.
 *
 * One knob lives elsewhere: simhash.settle_delay (src/pg/common/settings.c, 30 s by default), how
 * long the writers pause before the worker settles the index, a setting of the server's that the
 * common wing defines with the others.
 */
#ifndef SIMHASH_MIH_MERGE_POLICY_H
#define SIMHASH_MIH_MERGE_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* The runs a meta page holds (MIH_MAX_RUNS of format/mih_format.h, which checks they agree). */
#define MIH_POLICY_MAX_RUNS	32

/* The pending_limit option's default, in kB: 16 pages, 9,312 rows. */
#define MIH_PENDING_LIMIT_DEFAULT	128
/* The base_share option's default: the other runs merge into the base at 1/16 of its rows. */
#define MIH_BASE_SHARE_DEFAULT		16

/* A size tier's runs are merged when it has this many: tier t holds runs of limit * 4^t rows. */
#define MIH_MERGE_FANIN		4
/* Runs of this tier and above are big (no filter helps much); at most MIH_BIG_RUNS are kept. */
#define MIH_BIG_TIER		3
#define MIH_BIG_RUNS		3

/*
 * The small tiers an inserter merges: tier 0 only, four flushed runs into one of about 37k rows by
 * default (tens of milliseconds). Merging tier 1 (150k rows) or tier 2 (600k rows, about half a
 * second under load) would stall that one writer, and a crawler that writes at
 * a steady rate queues everything behind it: the worker merges those tiers. Unless runs pile up
 * (half the run slots taken: no worker slot free, or the worker busy with a long merge into the
 * base), then an inserter merges any small tier.
 */
#define MIH_INSERTER_TIERS	1

/*
 * The runs beside the base merge into one as soon as those but the biggest hold this share of its
 * rows: each merge grows the biggest by an eighth or more, so a row is rewritten about LEVEL_RATIO
 * times while it waits beside the base, and a scan finds that run and at most three flushes' runs
 * there, not the five to seven that size tiers leave (each costs a radius-3 scan about 5 us: its
 * filter tests miss the cache).
 */
#define MIH_LEVEL_RATIO		8

/*
 * Once the writers paused, the worker settles the index (mih_settle): it merges the runs beside the
 * biggest (the base, once there is one) into it when their filters let through a SETTLE_FILL-th of
 * a scan's probes or more (about 1 - exp(-rows / values of a block): a run of an eighth of the
 * shortest block's values lets through 12% of them, a run of half of them 39%, and one of more
 * has no filter) and they hold a SETTLE_SHARE-th of its rows, so that a crawler's short pauses do
 * not rewrite a big base for a few flushes' rows; else the runs beside it into one. The worker
 * also merges them into the base that way while the writers write, when it has the time
 * (mih_settle_into_base_due): a crawler's steady rate leaves it idle most of the time.
 */
#define MIH_SETTLE_FILL		8
#define MIH_SETTLE_SHARE	64

/*
 * While the writers write, the worker merges the runs beside the base into it as a settle would
 * (mih_settle_into_base_due), but only after resting SPARE_RATIO times as long as its last merges
 * took: at a crawler's rate it has the time, and the rows beside the base cost every query a share
 * of their filters' probes; at full speed the due merges keep it busy and this waits.
 */
#define MIH_SPARE_RATIO		4

/* Who merges, and so what a merge may take. */
typedef enum MihMergeMode
{
	MIH_MERGE_INSERTER,			/* small merges only: an inserter must not stall */
	MIH_MERGE_BIG,				/* merges of big runs only (the background worker) */
	MIH_MERGE_DUE,				/* every merge due, small and big (VACUUM) */
	MIH_MERGE_ALL,				/* every run into one (simhash_mih_merge) */
	MIH_MERGE_SETTLE			/* the worker's once the writers paused (mih_settle), or
								 * into the base with time to spare */
} MihMergeMode;

/* What the policy sees of a run of the meta page. */
typedef struct MihPolicyRun
{
	uint64_t	nrows;			/* entries in each of its tables, dead ones included */
	bool		merging;		/* marked as the worker's: no other merge takes it */
	bool		sliceable;		/* its pages are of the kinds a merge in slices writes */
} MihPolicyRun;

/* What the policy sees of the meta page and the index's options. */
typedef struct MihPolicyView
{
	uint32_t	nruns;
	MihPolicyRun runs[MIH_POLICY_MAX_RUNS];
	int			ntables;		/* m */
	bool		compact;		/* key tables (no merge in slices) */
	uint64_t	limit;			/* the pending_limit option, in rows */
	uint64_t	base_share;		/* the base_share option; 0: nothing merges into the base */
	bool		shape_changed;	/* the options ask for another table count or layout */
} MihPolicyView;

/* A merge the policy chose: rows 0 means none is due. */
typedef struct MihMergePlan
{
	uint64_t	rows;			/* the rows of the runs chosen (at least 1 if any is) */
	bool		chosen[MIH_POLICY_MAX_RUNS];
	bool		reshape;		/* every run, into the shape the options ask for */
	int			base;			/* >= 0: every run into this one, in slices; -1: into a new run */
} MihMergePlan;

/* The size tier of a run of n rows: tier t holds runs of limit * FANIN^t rows or more. */
extern int	mih_tier_of(uint64_t n, uint64_t limit);

/* The merge of an inserter, VACUUM or simhash_mih_merge (not the worker's modes). */
extern void mih_plan_merge(const MihPolicyView *v, MihMergeMode mode, MihMergePlan *plan);

/*
 * The worker's merges (MIH_MERGE_BIG) in two steps: those of runs an inserter might take, which
 * the worker chooses and marks under the inserters' merge lock (whether one is due, then which),
 * else those of big runs, which are the worker's alone.
 */
extern bool mih_worker_marked_due(const MihPolicyView *v);
extern void mih_plan_worker_marked(const MihPolicyView *v, MihMergePlan *plan);
extern void mih_plan_big(const MihPolicyView *v, MihMergePlan *plan);

/* Whether the worker has a merge to do (worker: for the worker itself, which takes tier 0 too). */
extern bool mih_worker_due(const MihPolicyView *v, bool worker);

/* The settle's merge (MIH_MERGE_SETTLE), and whether it would merge into the base run. */
extern void mih_plan_settle(const MihPolicyView *v, MihMergePlan *plan);
extern bool mih_settle_into_base(const MihPolicyView *v);

/* Whether the pending rows (npending, including the new tail page's) are flushed, and waited for. */
extern bool mih_flush_due(uint64_t npending, uint64_t limit, bool *wait);

#ifdef __cplusplus
}
#endif

#endif
