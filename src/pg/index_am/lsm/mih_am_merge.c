/*
 * Flushes and merges of a simhash_mih index: how rows get from the pending chain into sorted runs,
 * and how runs merge, while inserters, scans and VACUUM go on. This file is the mechanism: which
 * runs merge, into what, is chosen by the merge policy (mih_merge_policy.c, every knob of it in
 * mih_merge_policy.h) over a view of the meta page (mih_am_view.c). The flush is mih_am_flush.c,
 * the locks mih_am_locks.c, the recycling mih_am_recycle.c, the settle mih_am_settle.c.
 *
 * Flush. The inserter that takes the pending chain past the limit (the pending_limit option)
 * seals it: one change of the meta page moves it to sealed_head, and later inserts start a new
 * chain. It then writes the sealed rows as a new run (a sort of at most about the limit) and
 * installs it by one more change of the meta page, which also forgets the sealed chain. Scans read
 * the sealed chain until then, so the rows they read linearly stay below about twice the limit.
 *
 * Merge. Runs are grouped in size tiers: tier t holds runs of limit * FANIN^t rows or more. Small
 * runs (tiers below MIH_BIG_TIER, fewer than 64 limits of rows) merge as Lucene's tiered policy
 * and an LSM tree's size tiers do: when a tier has FANIN runs, its FANIN smallest become one of the
 * next tier, so each row is rewritten about log_FANIN of its run's size / limit times, and a scan
 * probes at most (FANIN - 1) small runs a tier. The smallest, so that the index's first run, which
 * may share the tier of the runs the inserts made, is not rewritten with them. Small runs carry
 * block filters, so they cost a scan little. Big runs do not: a run of 64 limits (600k rows by
 * default) already holds a large share of a table's block values, so each costs a scan nearly as
 * many probes as the whole index. So there are at most MIH_BIG_RUNS of them: one more makes the
 * two smallest merge (a binary counter over the big runs: each row is rewritten once more every
 * time its run doubles), whatever their tiers. And once the biggest run is the index's base (FANIN
 * big runs' rows or more), every run merges into it as soon as the others hold a base_share-th (the
 * option, 16 by default) of its rows: the tiers keep the other runs few, but a scan still pays for
 * each of their rows about what it pays for the base's share of the block values; this keeps them a
 * small share, for at most about base_share more rewrites of each row over the index's life (one
 * level over the base, as an LSM tree's leveled compaction; MIH_SETTLE_SHARE more when the worker
 * has time to spare, below). Such a merge rewrites the base in place, a range of pages at a time
 * (mih_am_slices.c), so the file needs no room for a second copy of it. Beside a base, the tiers
 * would still leave several runs, and each costs a scan its filter tests; so there the other runs
 * merge into one as soon as those but the biggest hold a MIH_LEVEL_RATIO-th of its rows (leveled
 * again: a merge every flush or two while that run is small). The inserter that flushes
 * merges the smallest tier (MIH_INSERTER_TIERS: tens of milliseconds); the other small merges, big
 * ones and those beside and into the base go to a background worker (mih_am_worker.c) it starts,
 * which runs them while flushes, scans, inserts and small merges go on (its merges take small runs
 * too: the worker waits out an inserter's small merge and marks the runs it takes in the meta page;
 * inserters' small merges leave marked runs and merge the ones flushed meanwhile).
 * VACUUM does every merge due, and simhash_mih_merge merges every run into one. Once the writers
 * pause, the worker settles the index (MIH_SETTLE_FILL): a crawl database rests between crawls, and
 * its queries then find the biggest run and at most one beside it, no pending rows. The rows written
 * by flushes and merges over the rows inserted are the write amplification (simhash_mih_state).
 *
 * Locks. Heavyweight locks on tags of the index (page locks, as ginInsertCleanup's on GIN's meta
 * page; they name no real page): LOCK_PENDING is held by a flush and by VACUUM while it cleans the
 * pending and sealed chains; LOCK_RUNS by an inserter's merge of small runs and by the worker while
 * it chooses and marks the runs of its next merge; LOCK_BIG by the worker throughout; both by
 * VACUUM while it cleans the runs and by a merge of every run. The worker's merge and an inserter's
 * choose disjoint runs (marked and not), so they may run at once: each installs its run by removing
 * just the runs it chose. No flush or merge can copy a row VACUUM is removing (a heap tid it
 * removed may be reused at once), and VACUUM cleans every row once: the pending rows before they
 * can become a run, the runs after. A merge of every run that changes the tables' shape (another
 * table count, or the compact option changed) also holds LOCK_PENDING throughout, so that no flush
 * adds a run of the old shape meanwhile: inserters wait for it once the pending rows reach twice
 * the limit. A fourth lock, LOCK_RECYCLE, is held while old pages are recycled (below): only one
 * backend may wait for the meta page's pins at a time. The order is LOCK_BIG, LOCK_RUNS,
 * LOCK_PENDING, LOCK_RECYCLE; a flush releases LOCK_PENDING before it recycles, so a long scan that
 * delays the recycling delays that one inserter, not the others' flushes.
 *
 * Recycling. Pages of a run or chain that was replaced are freed only once no scan can still read
 * them: every scan pins the meta page while it reads what its copy describes, so the flush or
 * merge waits for a moment without other pins (LockBufferForCleanup) first. A crash before a new
 * run is installed leaves its pages unreferenced, after it the old pages (REINDEX reclaims them);
 * the index answers correctly either way, and a sealed chain left by a crash is written as a run
 * by the next flush.
 */
#include "lsm/mih_lock_tags.h"
#include "lsm/mih_lsm.h"
#include "lsm/mih_lsm_internal.h"

#include "commands/progress.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/backend_progress.h"
#include "utils/backend_status.h"

/*
 * The live rows of a run (from table 0) and every page of it to recycle. The tables 1..m-1 are not
 * read: the merged run's are made from its rows. The caller keeps other merges off the run.
 */
static void
read_run(Relation index, const MihMeta *meta, const MihRun *run, MihRows *rows)
{
	const MihDirectory *dir = mih_directory(index, meta, run, NULL);
	MihWalk		walk;

	mih_walk_start(&walk, index);
	for (uint32 p = 0; p < dir->pages[0]; p++)
	{
		mih_leave_if_wanted();
		mih_blocks_add_page(&walk, dir->blocks[0][p], mih_table0_kind(run), false, &rows->old,
							mih_rows_collect, rows);
		pgstat_progress_update_param(MIH_PROGRESS_ROWS_DONE, (int64) rows->n);
	}
	for (int j = 1; j < meta->ntables; j++)
		for (uint32 p = 0; p < dir->pages[j]; p++)
			mih_blocks_add(&rows->old, dir->blocks[j][p]);
	mih_blocks_add_run_chains(index, run, meta->ntables, &rows->old);
}

/* Whether a merge of the worker marked any run of this meta page. */
static bool
any_run_merging(const MihMeta *meta)
{
	for (uint32 r = 0; r < meta->nruns; r++)
		if (meta->runs[r].merging)
			return true;
	return false;
}

/*
 * Marks the chosen runs of meta (a copy read under LOCK_RUNS, so that no other merge removes any
 * of them) as the worker's (mark), or unmarks every run (!mark), in one change of the meta page.
 * Runs flushed since the copy was read are not chosen and stay unmarked.
 */
static void
set_merging(Relation index, bool mark, const MihMeta *meta, const bool *chosen)
{
	Buffer		meta_buf = ReadBuffer(index, MIH_META_BLKNO);
	GenericXLogState *state = GenericXLogStart(index);
	MihMeta    *page_meta = mih_begin_meta_change(index, meta_buf, state);

	for (uint32 r = 0; r < page_meta->nruns; r++)
	{
		bool		take = false;

		for (uint32 s = 0; mark && s < meta->nruns; s++)
			if (chosen[s] && meta->runs[s].build_id == page_meta->runs[r].build_id)
				take = true;
		page_meta->runs[r].merging = take ? 1 : 0;
	}
	GenericXLogFinish(state);
	UnlockReleaseBuffer(meta_buf);
}

/*
 * The worker's next merge: every run into the base run if that is due, else of the small runs of
 * any tier (the smallest's too, should an inserter have found LOCK_RUNS taken: the worker leaves
 * no full tier behind) or of the runs beside the base, else of big runs. Runs an inserter might
 * take are chosen under LOCK_RUNS (the worker waits out an inserter's small merge) and marked as
 * merging in the meta page, and the lock is released before the merge: so inserters leave them
 * and go on merging the runs their flushes add meanwhile (a merge into a base of 20M rows takes
 * seconds, one of tier 2 into a big run about one, in which flushes add a dozen runs). Big runs
 * are the worker's alone (mih_plan_worker_marked, mih_plan_big).
 */
static void
choose_worker(Relation index, MihMeta *meta, MihMergePlan *plan)
{
	MihPolicyView v;

	mih_policy_view(index, meta, &v);
	plan->rows = 0;
	if (mih_worker_marked_due(&v))
	{
		LockPage(index, LOCK_RUNS, ExclusiveLock);
		mih_read_meta(index, meta);
		mih_policy_view(index, meta, &v);
		mih_plan_worker_marked(&v, plan);
		if (plan->rows > 0)
			set_merging(index, true, meta, plan->chosen);
		UnlockPage(index, LOCK_RUNS, ExclusiveLock);
	}
	if (plan->rows == 0)
		mih_plan_big(&v, plan);
}

/* The settle's runs (mih_plan_settle), chosen and marked under LOCK_RUNS as the worker's others. */
static void
choose_settle(Relation index, MihMeta *meta, MihMergePlan *plan)
{
	MihPolicyView v;

	LockPage(index, LOCK_RUNS, ExclusiveLock);
	mih_read_meta(index, meta);
	mih_policy_view(index, meta, &v);
	mih_plan_settle(&v, plan);
	if (plan->rows > 0)
		set_merging(index, true, meta, plan->chosen);
	UnlockPage(index, LOCK_RUNS, ExclusiveLock);
}

/*
 * Unmarks the runs a merge of the worker marked and never replaced (it failed: an error, a crash).
 * Called with LOCK_BIG, which the worker holds throughout, just taken: so no run is marked but by
 * a failed merge, and a copy of the meta page says whether one is, without the exclusive lock
 * that every VACUUM and worker merge would otherwise take here.
 */
static void
clear_merging(Relation index)
{
	MihMeta		meta;

	mih_read_meta(index, &meta);
	if (any_run_merging(&meta))
		set_merging(index, false, &meta, NULL);
}

/*
 * Whether a merge of big runs or into the base run is due and none is under way: the worker's work
 * (mih_am_worker.c). For the worker looking again (worker), also a full smallest tier: an inserter
 * whose flush filled it while the worker held LOCK_RUNS to choose left it, and if that choice was
 * the worker's last, no merge of either takes it until the next flush.
 */
bool
mih_big_merge_due(Relation index, bool worker)
{
	MihMeta		meta;
	MihPolicyView v;

	mih_read_meta(index, &meta);
	mih_policy_view(index, &meta, &v);
	if (!mih_worker_due(&v, worker))
		return false;
	if (!ConditionalLockPage(index, LOCK_BIG, ExclusiveLock))
		return false;
	UnlockPage(index, LOCK_BIG, ExclusiveLock);
	return true;
}

static const MihProgress merge_progress = {MIH_PROGRESS_ROWS_TOTAL, MIH_PROGRESS_ROWS_DONE};

/* A merge's next phase, with its rows to do and done (simhash_mih_merge_progress). */
static void
progress_phase(int64 phase, uint64 rows_total, uint64 rows_done)
{
	const int	params[] = {MIH_PROGRESS_PHASE, MIH_PROGRESS_ROWS_TOTAL, MIH_PROGRESS_ROWS_DONE};
	const int64 values[] = {phase, (int64) rows_total, (int64) rows_done};

	pgstat_progress_update_multi_param(3, params, values);
}

/*
 * Merges the chosen runs into one; the caller keeps other merges off them (its merge lock, or the
 * marks of choose_worker), and off the new run if mark (marked as the worker's). Returns the rows
 * written; the new run's build id goes to *made if given.
 */
static uint64
merge_chosen(Relation index, const MihMeta *meta, const bool *chosen, bool reshape,
			 uint64 expected, bool mark, uint64 *made)
{
	MihRows		rows;
	MihRun		run;
	Buffer		meta_buf;
	GenericXLogState *state;
	MihMeta    *page_meta;
	/* A merge of every run takes the shape the options ask for; others keep the index's. */
	int			m = reshape ? mih_tables_for(index, expected) : meta->ntables;
	bool		compact = reshape ? mih_compact_for(index) : (meta->flags & MIH_FLAG_COMPACT) != 0;
	uint32		kept = 0;
	MihMeta		locked;
	bool		every[MIH_MAX_RUNS];
	Size		start[MIH_MAX_RUNS + 1];
	MihPresorted presorted = {0, start};

	if (reshape)
	{
		/* No flush may add a run of the old shape: held until the new run is installed. */
		mih_lock_pending(index);
		mih_read_meta(index, &locked);
		meta = &locked;
		chosen = every;
		for (uint32 r = 0; r < MIH_MAX_RUNS; r++)
			every[r] = r < meta->nruns;
	}
	progress_phase(MIH_MERGE_PHASE_READ, expected, 0);
	mih_rows_init(&rows, expected);
	/* Each run's rows are sorted as the new run's table 0, unless the merge changes the shape. */
	for (uint32 r = 0; r < meta->nruns; r++)
		if (chosen[r])
		{
			start[presorted.nsegments++] = rows.n;
			read_run(index, meta, &meta->runs[r], &rows);
		}
	start[presorted.nsegments] = rows.n;
	progress_phase(MIH_MERGE_PHASE_WRITE, (uint64) rows.n * m, 0);
	if (rows.n > 0)
		mih_write_tables(index, rows.hashes, rows.tids, rows.n, m, compact, reshape ? NULL : &presorted,
						 &merge_progress, mih_reserve_build_id(index), &run);

	meta_buf = ReadBuffer(index, MIH_META_BLKNO);
	state = GenericXLogStart(index);
	page_meta = mih_begin_meta_change(index, meta_buf, state);
	/* Flushes may have added runs meanwhile: keep them (only merges remove runs). */
	for (uint32 r = 0; r < page_meta->nruns; r++)
	{
		bool		merged = false;

		for (uint32 s = 0; s < meta->nruns; s++)
			if (chosen[s] && meta->runs[s].build_id == page_meta->runs[r].build_id)
				merged = true;
		if (!merged)
			page_meta->runs[kept++] = page_meta->runs[r];
	}
	page_meta->nruns = kept;
	if (reshape)
	{
		Assert(kept == 0);
		page_meta->ntables = m;
		page_meta->flags = compact ? MIH_FLAG_COMPACT : 0;
	}
	if (rows.n > 0)
	{
		run.merging = mark ? 1 : 0;
		page_meta->runs[page_meta->nruns++] = run;
		page_meta->written += rows.n;
		if (made)
			*made = run.build_id;
	}
	page_meta->generation++;
	GenericXLogFinish(state);
	UnlockReleaseBuffer(meta_buf);

	if (reshape)
		mih_unlock_pending(index);
	progress_phase(MIH_MERGE_PHASE_RECYCLE, (uint64) rows.n * m, (uint64) rows.n * m);
	mih_recycle(index, &rows.old);
	mih_rows_free(&rows);
	return rows.n;
}

/* The worker's merges: they take LOCK_BIG only, and mark the runs they take. */
static bool
worker_mode(MihMergeMode mode)
{
	return mode == MIH_MERGE_BIG || mode == MIH_MERGE_SETTLE;
}

/*
 * A merge of every run into the base run, in slices: the other runs are merged into one first
 * (unless there is one), which then joins the base (mih_merge_in_slices); the worker marks it as
 * it marked the runs it came from, so that no inserter's merge takes it meanwhile. Returns the
 * rows written.
 */
static uint64
merge_into_base(Relation index, const MihMeta *meta, int base, MihMergeMode mode)
{
	bool		others[MIH_MAX_RUNS] = {0};
	uint64		rows = 0;
	uint64		written = 0;
	uint64		level_id = 0;
	int			nothers = 0;

	for (uint32 r = 0; r < meta->nruns; r++)
		if ((int) r != base)
		{
			others[r] = true;
			rows += meta->runs[r].nrows;
			level_id = meta->runs[r].build_id;
			nothers++;
		}
	if (nothers > 1)
	{
		written = merge_chosen(index, meta, others, false, rows, worker_mode(mode), &level_id);
		if (written == 0)
		{
			/* No live row beside the base: the worker's mark on it goes, as with a merge. */
			if (worker_mode(mode))
				set_merging(index, false, meta, NULL);
			return 0;
		}
	}
	return written + mih_merge_in_slices(index, meta->runs[base].build_id, level_id);
}

/*
 * The merge locks a mode takes: an inserter's only LOCK_RUNS and the worker's only LOCK_BIG, if
 * no other backend holds it (false then); VACUUM's and a merge of every run both, waiting. Whoever
 * takes LOCK_BIG clears the marks of a failed merge of the worker.
 */
static bool
lock_for_mode(Relation index, MihMergeMode mode)
{
	if (mode == MIH_MERGE_INSERTER)
		return ConditionalLockPage(index, LOCK_RUNS, ExclusiveLock);
	if (worker_mode(mode) && !ConditionalLockPage(index, LOCK_BIG, ExclusiveLock))
		return false;
	if (!worker_mode(mode))
		mih_lock_runs(index);
	clear_merging(index);
	return true;
}

static void
unlock_for_mode(Relation index, MihMergeMode mode)
{
	if (mode == MIH_MERGE_INSERTER)
		UnlockPage(index, LOCK_RUNS, ExclusiveLock);
	else if (worker_mode(mode))
		UnlockPage(index, LOCK_BIG, ExclusiveLock);
	else
		mih_unlock_runs(index);
}

/*
 * Does the merges the mode allows, one after the other, while some are due; returns the rows
 * written. An inserter does none if another backend is merging small runs, the worker none if
 * another is merging big ones. Each merge reports its progress (MIH_PROGRESS_INDEX and on) in
 * whatever progress command the backend runs: VACUUM's, or the one the worker or simhash_mih_merge
 * starts; an inserter's is invisible (only VACUUM's command shows in the view) and costs nothing.
 */
uint64
mih_merge(Relation index, MihMergeMode mode)
{
	uint64		written = 0;
	const int	params[] = {MIH_PROGRESS_INDEX, MIH_PROGRESS_PHASE, MIH_PROGRESS_ROWS_TOTAL, MIH_PROGRESS_ROWS_DONE};
	int64		values[] = {RelationGetRelid(index), 0, 0, 0};
	bool		reported = false;

	if (!lock_for_mode(index, mode))
		return 0;
	for (;;)
	{
		MihMeta		meta;
		MihMergePlan plan;

		CHECK_FOR_INTERRUPTS();
		mih_leave_if_wanted();
		mih_read_meta(index, &meta);
		if (mode == MIH_MERGE_BIG)
			choose_worker(index, &meta, &plan);
		else if (mode == MIH_MERGE_SETTLE)
			choose_settle(index, &meta, &plan);
		else
		{
			MihPolicyView v;

			mih_policy_view(index, &meta, &v);
			mih_plan_merge(&v, mode, &plan);
		}
		if (plan.rows > 0)
		{
			pgstat_progress_update_multi_param(4, params, values);
			reported = true;
			written += plan.base >= 0 ? merge_into_base(index, &meta, plan.base, mode) :
				merge_chosen(index, &meta, plan.chosen, plan.reshape, plan.rows, false, NULL);
		}
		if (plan.rows == 0 || mode == MIH_MERGE_ALL || mode == MIH_MERGE_SETTLE || plan.reshape)
			break;
	}
	unlock_for_mode(index, mode);
	if (reported)
	{
		values[0] = 0;
		pgstat_progress_update_multi_param(4, params, values);
	}
	return written;
}

/*
 * mih_merge in a progress command of its own, for a backend that runs none (the worker,
 * simhash_mih_merge): pg_stat_progress_vacuum shows it as the cleanup of the table's indexes,
 * simhash_mih_merge_progress its phases and rows. Inside another command, only mih_merge.
 */
uint64
mih_merge_reported(Relation index, MihMergeMode mode)
{
	uint64		written;

	if (MyBEEntry == NULL || MyBEEntry->st_progress_command != PROGRESS_COMMAND_INVALID)
		return mih_merge(index, mode);
	pgstat_progress_start_command(PROGRESS_COMMAND_VACUUM, index->rd_index->indrelid);
	pgstat_progress_update_param(PROGRESS_VACUUM_PHASE, PROGRESS_VACUUM_PHASE_INDEX_CLEANUP);
	written = mih_merge(index, mode);
	pgstat_progress_end_command();
	return written;
}
