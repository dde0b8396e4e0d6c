/*
 * The choosers of simhash_mih's merge policy (mih_merge_policy.h), over a view of the meta page:
 * pure functions, no PostgreSQL header, so that the core's unit tests link this file too
 * (test/core/merge_policy_test.cpp). The rules are told at the top of mih_am_merge.c.
 */
#include "mih_merge_policy.h"

#include <limits.h>
#include <string.h>

#include "mih_blocks.h"

int
mih_tier_of(uint64_t n, uint64_t limit)
{
	int			t = 0;

	while (n >= limit * MIH_MERGE_FANIN && t < 30)
	{
		n /= MIH_MERGE_FANIN;
		t++;
	}
	return t;
}

/* Big runs cost a scan nearly what the whole index does (see the top of mih_am_merge.c). */
static bool
is_big(uint64_t nrows, uint64_t limit)
{
	return mih_tier_of(nrows, limit) >= MIH_BIG_TIER;
}

/* The fewest rows of a big run: tier MIH_BIG_TIER. */
static uint64_t
big_rows(uint64_t limit)
{
	uint64_t	n = limit;

	for (int t = 0; t < MIH_BIG_TIER; t++)
		n *= MIH_MERGE_FANIN;
	return n;
}

static void
plan_none(MihMergePlan *plan)
{
	memset(plan, 0, sizeof(*plan));
	plan->base = -1;
}

/* The rows of every run, dead ones included. */
static uint64_t
sorted_rows(const MihPolicyView *v)
{
	uint64_t	n = 0;

	for (uint32_t r = 0; r < v->nruns; r++)
		n += v->runs[r].nrows;
	return n;
}

/* Chooses every run. */
static void
choose_all(const MihPolicyView *v, MihMergePlan *plan)
{
	for (uint32_t r = 0; r < v->nruns; r++)
		plan->chosen[r] = true;
}

/* The smallest run not chosen yet of a tier from lo to hi; -1 if there is none. */
static int
smallest_run(const MihPolicyView *v, const bool *chosen, int lo, int hi)
{
	int			smallest = -1;

	for (uint32_t r = 0; r < v->nruns; r++)
	{
		int			t = mih_tier_of(v->runs[r].nrows, v->limit);

		if (!chosen[r] && !v->runs[r].merging && t >= lo && t <= hi &&
			(smallest < 0 || v->runs[r].nrows < v->runs[smallest].nrows))
			smallest = (int) r;
	}
	return smallest;
}

/* Chooses the n smallest runs of tiers lo to hi (there are that many); returns their rows. */
static uint64_t
choose_smallest(const MihPolicyView *v, bool *chosen, int lo, int hi, int n)
{
	uint64_t	rows = 0;

	for (int k = 0; k < n; k++)
	{
		int			r = smallest_run(v, chosen, lo, hi);

		chosen[r] = true;
		rows += v->runs[r].nrows;
	}
	return rows;
}

/*
 * The lowest small tier from lo to below hi that has FANIN runs, leaving those the worker is
 * merging into the base run; -1 if none has.
 */
static int
full_tier(const MihPolicyView *v, int lo, int hi)
{
	int			count[MIH_BIG_TIER] = {0};

	for (uint32_t r = 0; r < v->nruns; r++)
	{
		int			t = mih_tier_of(v->runs[r].nrows, v->limit);

		if (t < MIH_BIG_TIER && !v->runs[r].merging)
			count[t]++;
	}
	for (int t = lo; t < hi; t++)
		if (count[t] >= MIH_MERGE_FANIN)
			return t;
	return -1;
}

/* Small runs: the FANIN smallest of the lowest small tier below tiers that has FANIN runs. */
static uint64_t
choose_small(const MihPolicyView *v, bool *chosen, int tiers)
{
	int			t = full_tier(v, 0, tiers);

	return t < 0 ? 0 : choose_smallest(v, chosen, t, t, MIH_MERGE_FANIN);
}

/*
 * The small tiers an inserter's merge may take: INSERTER_TIERS, or every one once runs pile up;
 * VACUUM's and a merge of every run every one (the worker's: mih_plan_worker_marked).
 */
static int
small_tiers(const MihPolicyView *v, MihMergeMode mode)
{
	if (mode == MIH_MERGE_INSERTER)
		return v->nruns < MIH_POLICY_MAX_RUNS / 2 ? MIH_INSERTER_TIERS : MIH_BIG_TIER;
	return MIH_BIG_TIER;
}

static int
count_big(const MihPolicyView *v)
{
	int			n = 0;

	for (uint32_t r = 0; r < v->nruns; r++)
		n += is_big(v->runs[r].nrows, v->limit);
	return n;
}

/*
 * The index's base run: the biggest, if it is big enough to be one (FANIN big runs or more) and
 * the other runs merge into it (base_share); -1 otherwise.
 */
static int
base_run(const MihPolicyView *v)
{
	int			base = -1;

	for (uint32_t r = 0; r < v->nruns; r++)
		if (base < 0 || v->runs[r].nrows > v->runs[base].nrows)
			base = (int) r;
	if (base < 0 || v->base_share == 0 || v->runs[base].nrows < MIH_MERGE_FANIN * big_rows(v->limit))
		return -1;
	return base;
}

/*
 * A merge of every run into the base run: due when the index has one and the others hold a
 * base_share-th of its rows. See the top of mih_am_merge.c.
 */
static bool
base_merge_due(const MihPolicyView *v)
{
	int			base = base_run(v);
	uint64_t	others;

	if (base < 0)
		return false;
	others = sorted_rows(v) - v->runs[base].nrows;
	return others > 0 && others * v->base_share >= v->runs[base].nrows;
}

/*
 * A merge of the runs beside the base run into one (see the top of mih_am_merge.c): due when there
 * are two or more, not marked, and those but the biggest hold a LEVEL_RATIO-th of its rows. Marks
 * them in chosen[] if given; returns their rows, 0 if it is not due.
 */
static uint64_t
choose_level(const MihPolicyView *v, bool *chosen)
{
	int			base = base_run(v);
	uint64_t	rows = 0;
	uint64_t	biggest = 0;
	int			n = 0;

	if (base < 0)
		return 0;
	for (uint32_t r = 0; r < v->nruns; r++)
		if ((int) r != base && !v->runs[r].merging)
		{
			n++;
			rows += v->runs[r].nrows;
			if (v->runs[r].nrows > biggest)
				biggest = v->runs[r].nrows;
		}
	if (n < 2 || (rows - biggest) * MIH_LEVEL_RATIO < biggest)
		return 0;
	for (uint32_t r = 0; chosen && r < v->nruns; r++)
		chosen[r] = (int) r != base && !v->runs[r].merging;
	return rows;
}

/*
 * Whether a merge of small runs is due for the worker: of the tiers from lowest on (those below
 * INSERTER_TIERS are the inserters'), or of the runs beside the base.
 */
static bool
worker_small_due(const MihPolicyView *v, int lowest)
{
	return full_tier(v, lowest, MIH_BIG_TIER) >= 0 || choose_level(v, NULL) > 0;
}

/*
 * The base run of a merge of every run that can go in slices (mih_am_slices.c), -1 if it cannot:
 * the merge keeps the index's shape, and the base and the run it is to take in hold distinct
 * hashes in tables 1..m-1 and packed tids in table 0 (a merge of the other runs makes one that
 * does).
 */
static int
slices_base(const MihPolicyView *v, const bool *chosen)
{
	int			base = base_run(v);

	if (base < 0 || v->nruns < 2 || v->compact || !v->runs[base].sliceable)
		return -1;
	for (uint32_t r = 0; r < v->nruns; r++)
		if (!chosen[r] || (v->nruns == 2 && !v->runs[r].sliceable))
			return -1;
	return base;
}

/* Ends a plan: a merge that keeps the index's shape goes in slices if it can. */
static void
plan_done(const MihPolicyView *v, MihMergePlan *plan)
{
	plan->base = plan->rows > 0 && !plan->reshape ? slices_base(v, plan->chosen) : -1;
}

/*
 * Every run (MIH_MERGE_ALL, if there are two or more; or, in MIH_MERGE_DUE, if the table count or
 * layout the options ask for changed or a merge into the base run is due), else the small runs due
 * in the lowest tiers the mode may take (small_tiers), else the big ones (not in
 * MIH_MERGE_INSERTER).
 */
void
mih_plan_merge(const MihPolicyView *v, MihMergeMode mode, MihMergePlan *plan)
{
	int			tiers = small_tiers(v, mode);

	plan_none(plan);
	plan->reshape = (mode == MIH_MERGE_DUE || mode == MIH_MERGE_ALL) && v->nruns > 0 && v->shape_changed;
	if (mode == MIH_MERGE_ALL || plan->reshape || (mode == MIH_MERGE_DUE && base_merge_due(v)))
	{
		uint64_t	total = sorted_rows(v);

		if (v->nruns < 2 && !plan->reshape)
			return;
		choose_all(v, plan);
		plan->rows = total > 1 ? total : 1;
		plan_done(v, plan);
		return;
	}
	/* A merge that may take every small run (not an inserter's) may take the runs beside the base. */
	if (mode != MIH_MERGE_INSERTER && tiers == MIH_BIG_TIER)
		plan->rows = choose_level(v, plan->chosen);
	if (plan->rows == 0)
		plan->rows = choose_small(v, plan->chosen, tiers);
	if (plan->rows == 0 && mode != MIH_MERGE_INSERTER && count_big(v) > MIH_BIG_RUNS)
		plan->rows = choose_smallest(v, plan->chosen, MIH_BIG_TIER, INT_MAX, 2);
	plan_done(v, plan);
}

bool
mih_worker_marked_due(const MihPolicyView *v)
{
	return base_merge_due(v) || worker_small_due(v, 0);
}

/*
 * Every run into the base run if that is due, else the small runs of any tier (the smallest's too,
 * should an inserter have found its merge lock taken: the worker leaves no full tier behind) or the
 * runs beside the base.
 */
void
mih_plan_worker_marked(const MihPolicyView *v, MihMergePlan *plan)
{
	plan_none(plan);
	if (base_merge_due(v))
	{
		choose_all(v, plan);
		plan->rows = sorted_rows(v);
	}
	else if ((plan->rows = choose_level(v, plan->chosen)) == 0)
		plan->rows = choose_small(v, plan->chosen, MIH_BIG_TIER);
	plan_done(v, plan);
}

/* Big runs: the two smallest, if there are more than MIH_BIG_RUNS. */
void
mih_plan_big(const MihPolicyView *v, MihMergePlan *plan)
{
	plan_none(plan);
	if (count_big(v) > MIH_BIG_RUNS)
		plan->rows = choose_smallest(v, plan->chosen, MIH_BIG_TIER, INT_MAX, 2);
	plan_done(v, plan);
}

/*
 * A merge of big runs or into the base run is due (or, for the worker itself, of small runs of any
 * tier: an inserter whose flush filled the smallest while the worker chose left it).
 */
bool
mih_worker_due(const MihPolicyView *v, bool worker)
{
	return count_big(v) > MIH_BIG_RUNS || base_merge_due(v) ||
		worker_small_due(v, worker ? 0 : MIH_INSERTER_TIERS);
}

/*
 * The runs the worker's settle merges (see MIH_SETTLE_FILL): every run into the biggest (the base
 * run, once there is one), or the runs beside it into one if there are two or more, so that a few
 * rows inserted into an index of a million rows do not rewrite it; none with base_share = 0, which
 * keeps the runs from merging towards a base.
 */
void
mih_plan_settle(const MihPolicyView *v, MihMergePlan *plan)
{
	int			base = -1;
	int			len = sh_mih_block_len(v->ntables, v->ntables - 1);
	uint64_t	others = 0;
	int			n = 0;

	plan_none(plan);
	if (v->base_share == 0)
		return;
	for (uint32_t r = 0; r < v->nruns; r++)
		if (base < 0 || v->runs[r].nrows > v->runs[base].nrows)
			base = (int) r;
	for (uint32_t r = 0; r < v->nruns; r++)
		if ((int) r != base && !v->runs[r].merging)
		{
			plan->chosen[r] = true;
			others += v->runs[r].nrows;
			n++;
		}
	if (base >= 0 && !v->runs[base].merging && others * MIH_SETTLE_FILL >= ((uint64_t) 1 << len) &&
		others * MIH_SETTLE_SHARE >= v->runs[base].nrows)
	{
		plan->chosen[base] = true;
		plan->rows = others + v->runs[base].nrows;
	}
	else if (n >= 2)
		plan->rows = others;
	else
		memset(plan->chosen, 0, sizeof(plan->chosen));
	plan_done(v, plan);
}

/*
 * The index has a base run and the settle would merge the runs beside it into it (not only into
 * one). Not before there is a base: that merge is written in slices, in place, and the runs of an
 * index still growing towards one merge as big runs do.
 */
bool
mih_settle_into_base(const MihPolicyView *v)
{
	MihMergePlan plan;
	int			base = base_run(v);

	if (v->base_share == 0)
		return false;
	mih_plan_settle(v, &plan);
	return base >= 0 && plan.rows > 0 && plan.chosen[base];
}

/*
 * Past the limit, an insert flushes, unless another backend is flushing: then the chain may grow
 * on while that flush writes, up to twice the limit, where inserts wait for it.
 */
bool
mih_flush_due(uint64_t npending, uint64_t limit, bool *wait)
{
	*wait = npending >= 2 * limit;
	return npending >= limit;
}
