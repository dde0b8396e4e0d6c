/*
 * Flushes and merges of a simhash_mih index: how rows get from the pending chain into sorted runs,
 * and how runs merge, while inserters, scans and VACUUM go on.
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
 * level over the base, as an LSM tree's leveled compaction; SETTLE_SHARE more when the worker has
 * time to spare, below). Such a merge rewrites the base in
 * place, a range of pages at a time (mih_am_slices.c), so the file needs no room for a second
 * copy of it. Beside a
 * base, the tiers would still leave several runs, and each costs a scan its filter tests; so there
 * the other runs merge into one as soon as those but the biggest hold a LEVEL_RATIO-th of its rows
 * (leveled again: a merge every flush or two while that run is small). The inserter that flushes
 * merges the smallest tier (INSERTER_TIERS: tens of milliseconds); the other small merges, big
 * ones and those beside and into the base go to a background worker (mih_am_worker.c) it starts,
 * which runs them while flushes, scans, inserts and small merges go on (its merges take small runs
 * too: the worker waits out an inserter's small merge and marks the runs it takes in the meta page;
 * inserters' small merges leave marked runs and merge the ones flushed meanwhile).
 * VACUUM does every merge due, and simhash_mih_merge merges every run into one. Once the writers
 * pause, the worker settles the index (SETTLE_FILL): a crawl database rests between crawls, and
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
#include "mih_am.h"

#include "commands/progress.h"
#include "miscadmin.h"
#include "storage/freespace.h"
#include "storage/lmgr.h"
#include "utils/backend_progress.h"
#include "utils/backend_status.h"
#include "utils/memutils.h"

#include "mih_blocks.h"

#define LOCK_PENDING	0		/* tags of LockPage, not pages */
#define LOCK_RUNS		1
#define LOCK_RECYCLE	2
#define LOCK_BIG		3

/*
 * The small tiers an inserter merges: tier 0 only, four flushed runs into one of about 37k rows by
 * default (tens of milliseconds). Merging tier 1 (150k rows) or tier 2 (600k rows, about half a
 * second under load) would stall that one writer, and a crawler that writes at
 * a steady rate queues everything behind it: the worker merges those tiers. Unless runs pile up
 * (half the run slots taken: no worker slot free, or the worker busy with a long merge into the
 * base), then an inserter merges any small tier.
 */
#define INSERTER_TIERS	1

/*
 * The runs beside the base merge into one as soon as those but the biggest hold this share of its
 * rows: each merge grows the biggest by an eighth or more, so a row is rewritten about LEVEL_RATIO
 * times while it waits beside the base, and a scan finds that run and at most three flushes' runs
 * there, not the five to seven that size tiers leave (each costs a radius-3 scan about 5 us: its
 * filter tests miss the cache).
 */
#define LEVEL_RATIO		8

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
#define SETTLE_FILL		8
#define SETTLE_SHARE	64

void
mih_lock_pending(Relation index)
{
	LockPage(index, LOCK_PENDING, ExclusiveLock);
}

void
mih_unlock_pending(Relation index)
{
	UnlockPage(index, LOCK_PENDING, ExclusiveLock);
}

/* Both merge locks: no merge of any run can start or is under way. */
void
mih_lock_runs(Relation index)
{
	LockPage(index, LOCK_BIG, ExclusiveLock);
	LockPage(index, LOCK_RUNS, ExclusiveLock);
}

void
mih_unlock_runs(Relation index)
{
	UnlockPage(index, LOCK_RUNS, ExclusiveLock);
	UnlockPage(index, LOCK_BIG, ExclusiveLock);
}

/* The pending_limit option in rows. */
uint64
mih_pending_limit_rows(Relation index)
{
	MihOptions *opts = (MihOptions *) index->rd_options;
	int			kb = opts && opts->pending_limit > 0 ? opts->pending_limit : MIH_PENDING_LIMIT_DEFAULT;

	return (uint64) kb * 1024 / BLCKSZ * MIH_ROWS_PER_PAGE;
}

typedef struct MihRows
{
	uint64	   *hashes;
	ItemPointerData *tids;
	Size		n;
	Size		cap;
	MihBlockList old;			/* the pages read, to recycle */
} MihRows;

static void
rows_init(MihRows *rows, uint64 expected)
{
	rows->cap = Max(expected, 1024);
	rows->n = 0;
	rows->hashes = palloc_extended(rows->cap * sizeof(uint64), MCXT_ALLOC_HUGE);
	rows->tids = palloc_extended(rows->cap * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);
	mih_blocks_init(&rows->old);
}

static void
rows_free(MihRows *rows)
{
	pfree(rows->hashes);
	pfree(rows->tids);
	pfree(rows->old.blocks);
}

void
mih_blocks_init(MihBlockList *list)
{
	list->cap = 64;
	list->n = 0;
	list->blocks = palloc(list->cap * sizeof(BlockNumber));
}

void
mih_blocks_add(MihBlockList *list, BlockNumber blkno)
{
	if (list->n == list->cap)
	{
		list->cap *= 2;
		list->blocks = repalloc_huge(list->blocks, list->cap * sizeof(BlockNumber));
	}
	list->blocks[list->n++] = blkno;
}

static void
collect_live(MihRows *rows, Page page)
{
	int			n = MihPageGetOpaque(page)->nitems;

	for (int i = 0; i < n; i++)
	{
		ItemPointerData tid = mih_row_tid(page, i);

		if (!ItemPointerIsValid(&tid))
			continue;
		if (rows->n == rows->cap)
		{
			rows->cap *= 2;
			rows->hashes = repalloc_huge(rows->hashes, rows->cap * sizeof(uint64));
			rows->tids = repalloc_huge(rows->tids, rows->cap * sizeof(ItemPointerData));
		}
		rows->hashes[rows->n] = MihPageHashes(page)[i];
		rows->tids[rows->n] = tid;
		rows->n++;
	}
}

/* Reads one page, listed in old; its live rows go to rows if given. Returns the page's next link. */
static BlockNumber
read_page(MihWalk *walk, BlockNumber blkno, uint16 kind, bool chain, MihBlockList *old, MihRows *rows)
{
	Buffer		buffer = mih_read_kind(walk, blkno, kind, chain, BUFFER_LOCK_SHARE);
	Page		page = BufferGetPage(buffer);
	BlockNumber next = MihPageGetOpaque(page)->next;

	mih_blocks_add(old, blkno);
	if (rows)
		collect_live(rows, page);
	UnlockReleaseBuffer(buffer);
	return next;
}

/* Lists every page of a chain of the given kind (none if head is InvalidBlockNumber). */
void
mih_blocks_add_chain(Relation index, BlockNumber head, uint16 kind, MihBlockList *list)
{
	MihWalk		walk;

	mih_walk_start(&walk, index);
	for (BlockNumber blkno = head; blkno != InvalidBlockNumber;)
		blkno = read_page(&walk, blkno, kind, true, list, NULL);
}

/* Lists every page of each table's fence, filter and hint chains of a run. */
void
mih_blocks_add_run_chains(Relation index, const MihRun *run, int ntables, MihBlockList *list)
{
	for (int j = 0; j < ntables; j++)
	{
		mih_blocks_add_chain(index, run->fence_head[j], MIH_PAGE_FENCE, list);
		if (run->filter_bits > 0)
			mih_blocks_add_chain(index, run->filter_head[j], MIH_PAGE_FILTER, list);
		mih_blocks_add_chain(index, run->hint_head[j], MIH_PAGE_HINTS, list);
	}
}

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
		read_page(&walk, dir->blocks[0][p], mih_table0_kind(run), false, &rows->old, rows);
		pgstat_progress_update_param(MIH_PROGRESS_ROWS_DONE, (int64) rows->n);
	}
	for (int j = 1; j < meta->ntables; j++)
		for (uint32 p = 0; p < dir->pages[j]; p++)
			mih_blocks_add(&rows->old, dir->blocks[j][p]);
	mih_blocks_add_run_chains(index, run, meta->ntables, &rows->old);
}

/* Waits until no scan can still read the pages the list holds, then frees them. */
void
mih_recycle(Relation index, const MihBlockList *list)
{
	Buffer		meta_buf;
	BlockNumber lo = InvalidBlockNumber,
				hi = 0;

	/*
	 * Only one backend may wait for the meta page's pins: flushes and merges take turns here. The
	 * pin comes after the lock: a backend that waits for a lock holding a pin would be waited for.
	 */
	LockPage(index, LOCK_RECYCLE, ExclusiveLock);
	meta_buf = ReadBuffer(index, MIH_META_BLKNO);
	LockBufferForCleanup(meta_buf);
	UnlockReleaseBuffer(meta_buf);
	for (Size i = 0; i < list->n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		mih_free_page(index, list->blocks[i]);
		lo = Min(lo, list->blocks[i]);
		hi = Max(hi, list->blocks[i]);
	}
	UnlockPage(index, LOCK_RECYCLE, ExclusiveLock);
	if (list->n > 0)
		FreeSpaceMapVacuumRange(index, lo, hi + 1);
}

/*
 * Writes the sealed pending rows as a run. The caller holds LOCK_PENDING. Seals the pending chain
 * first (if it has min_rows rows: another flush may have taken them while this one waited) unless
 * a sealed chain is there already (a crash interrupted a flush). Returns false if there was
 * nothing to flush; else rows holds the rows written and the pages to recycle.
 */
static bool
flush_locked(Relation index, uint64 min_rows, MihRows *out)
{
	Buffer		meta_buf = ReadBuffer(index, MIH_META_BLKNO);
	GenericXLogState *state;
	MihMeta    *page_meta;
	MihMeta		meta;
	MihRows		rows;
	MihRun		run;
	MihWalk		walk;
	uint64		build_id;

	state = GenericXLogStart(index);
	page_meta = mih_begin_meta_change(index, meta_buf, state);
	if (page_meta->sealed_head == InvalidBlockNumber)
	{
		/* The tail's rows count now: inserts that found it are done with it (mih_am_insert.c). */
		uint64		tail_rows = mih_tail_rows(index, page_meta->pending_tail, NULL);

		if (page_meta->pending_head == InvalidBlockNumber ||
			page_meta->npending + tail_rows < min_rows || page_meta->nruns == MIH_MAX_RUNS)
		{
			GenericXLogAbort(state);
			UnlockReleaseBuffer(meta_buf);
			return false;
		}
		page_meta->sealed_head = page_meta->pending_head;
		page_meta->nsealed = page_meta->npending + tail_rows;
		page_meta->inserted += tail_rows;
		page_meta->pending_head = page_meta->pending_tail = InvalidBlockNumber;
		page_meta->npending = 0;
	}
	build_id = mih_new_build_id(page_meta);
	memcpy(&meta, page_meta, sizeof(MihMeta));
	GenericXLogFinish(state);
	LockBuffer(meta_buf, BUFFER_LOCK_UNLOCK);

	rows_init(&rows, meta.nsealed);
	mih_walk_start(&walk, index);
	for (BlockNumber blkno = meta.sealed_head; blkno != InvalidBlockNumber;)
		blkno = read_page(&walk, blkno, MIH_PAGE_PENDING, true, &rows.old, &rows);
	if (rows.n > 0)
		mih_write_tables(index, rows.hashes, rows.tids, rows.n, meta.ntables,
						 (meta.flags & MIH_FLAG_COMPACT) != 0, NULL, NULL, build_id, &run);

	state = GenericXLogStart(index);
	page_meta = mih_begin_meta_change(index, meta_buf, state);
	if (rows.n > 0)
	{
		page_meta->runs[page_meta->nruns++] = run;
		page_meta->written += rows.n;
	}
	/* The sealed pages are recycled next, even with no live row: a standby's scans tell by this. */
	page_meta->generation++;
	page_meta->sealed_head = InvalidBlockNumber;
	page_meta->nsealed = 0;
	GenericXLogFinish(state);
	UnlockReleaseBuffer(meta_buf);
	*out = rows;
	return true;
}

/*
 * Flushes the pending rows into a run if there are min_rows of them; without wait, only if no
 * other flush is under way. Returns the rows written.
 */
uint64
mih_flush(Relation index, bool wait, uint64 min_rows)
{
	MihRows		rows;
	bool		flushed;

	if (wait)
		mih_lock_pending(index);
	else if (!ConditionalLockPage(index, LOCK_PENDING, ExclusiveLock))
		return 0;
	flushed = flush_locked(index, Max(min_rows, 1), &rows);
	mih_unlock_pending(index);
	if (!flushed)
		return 0;
	mih_recycle(index, &rows.old);
	rows_free(&rows);
	return rows.n;
}

/* The size tier of a run of n rows: limit * FANIN^tier <= n. */
static int
tier_of(uint64 n, uint64 limit)
{
	int			t = 0;

	while (n >= limit * MIH_MERGE_FANIN && t < 30)
	{
		n /= MIH_MERGE_FANIN;
		t++;
	}
	return t;
}

/* Big runs cost a scan nearly what the whole index does (see the top of the file). */
static bool
is_big(uint64 nrows, uint64 limit)
{
	return tier_of(nrows, limit) >= MIH_BIG_TIER;
}

/* The fewest rows of a big run: tier MIH_BIG_TIER. */
static uint64
big_rows(uint64 limit)
{
	uint64		n = limit;

	for (int t = 0; t < MIH_BIG_TIER; t++)
		n *= MIH_MERGE_FANIN;
	return n;
}

/* The smallest run not chosen yet of a tier from lo to hi; -1 if there is none. */
static int
smallest_run(const MihMeta *meta, const bool *chosen, uint64 limit, int lo, int hi)
{
	int			smallest = -1;

	for (uint32 r = 0; r < meta->nruns; r++)
	{
		int			t = tier_of(meta->runs[r].nrows, limit);

		if (!chosen[r] && !meta->runs[r].merging && t >= lo && t <= hi &&
			(smallest < 0 || meta->runs[r].nrows < meta->runs[smallest].nrows))
			smallest = (int) r;
	}
	return smallest;
}

/* Chooses the n smallest runs of tiers lo to hi (there are that many); returns their rows. */
static uint64
choose_smallest(const MihMeta *meta, bool *chosen, uint64 limit, int lo, int hi, int n)
{
	uint64		rows = 0;

	for (int k = 0; k < n; k++)
	{
		int			r = smallest_run(meta, chosen, limit, lo, hi);

		chosen[r] = true;
		rows += meta->runs[r].nrows;
	}
	return rows;
}

/*
 * The lowest small tier from lo to below hi that has FANIN runs, leaving those the worker is
 * merging into the base run; -1 if none has.
 */
static int
full_tier(const MihMeta *meta, uint64 limit, int lo, int hi)
{
	int			count[MIH_BIG_TIER] = {0};

	for (uint32 r = 0; r < meta->nruns; r++)
	{
		int			t = tier_of(meta->runs[r].nrows, limit);

		if (t < MIH_BIG_TIER && !meta->runs[r].merging)
			count[t]++;
	}
	for (int t = lo; t < hi; t++)
		if (count[t] >= MIH_MERGE_FANIN)
			return t;
	return -1;
}

/* Small runs: the FANIN smallest of the lowest small tier below tiers that has FANIN runs. */
static uint64
choose_small(const MihMeta *meta, bool *chosen, uint64 limit, int tiers)
{
	int			t = full_tier(meta, limit, 0, tiers);

	return t < 0 ? 0 : choose_smallest(meta, chosen, limit, t, t, MIH_MERGE_FANIN);
}

/*
 * The small tiers an inserter's merge may take: INSERTER_TIERS, or every one once runs pile up;
 * VACUUM's and a merge of every run every one (the worker's: choose_worker).
 */
static int
small_tiers(MihMergeMode mode, const MihMeta *meta)
{
	if (mode == MIH_MERGE_INSERTER)
		return meta->nruns < MIH_MAX_RUNS / 2 ? INSERTER_TIERS : MIH_BIG_TIER;
	return MIH_BIG_TIER;
}

static int
count_big(const MihMeta *meta, uint64 limit)
{
	int			n = 0;

	for (uint32 r = 0; r < meta->nruns; r++)
		n += is_big(meta->runs[r].nrows, limit);
	return n;
}

/* The base_share option: 0 if the other runs never merge into the base run. */
static uint64
base_share(Relation index)
{
	MihOptions *opts = (MihOptions *) index->rd_options;

	return opts ? opts->base_share : MIH_BASE_SHARE_DEFAULT;
}

/*
 * The index's base run: the biggest, if it is big enough to be one (FANIN big runs or more) and
 * the other runs merge into it (base_share); -1 otherwise.
 */
static int
base_run(Relation index, const MihMeta *meta, uint64 limit)
{
	int			base = -1;

	for (uint32 r = 0; r < meta->nruns; r++)
		if (base < 0 || meta->runs[r].nrows > meta->runs[base].nrows)
			base = (int) r;
	if (base < 0 || base_share(index) == 0 ||
		meta->runs[base].nrows < MIH_MERGE_FANIN * big_rows(limit))
		return -1;
	return base;
}

/*
 * A merge of every run into the base run: due when the index has one and the others hold a
 * base_share-th of its rows. See the top of the file.
 */
static bool
base_merge_due(Relation index, const MihMeta *meta, uint64 limit)
{
	int			base = base_run(index, meta, limit);
	uint64		others;

	if (base < 0)
		return false;
	others = mih_sorted_rows(meta) - meta->runs[base].nrows;
	return others > 0 && others * base_share(index) >= meta->runs[base].nrows;
}

/*
 * A merge of the runs beside the base run into one (see the top of the file): due when there are
 * two or more, not marked, and those but the biggest hold a LEVEL_RATIO-th of its rows. Marks them
 * in chosen[] if given; returns their rows, 0 if it is not due.
 */
static uint64
choose_level(Relation index, const MihMeta *meta, bool *chosen, uint64 limit)
{
	int			base = base_run(index, meta, limit);
	uint64		rows = 0;
	uint64		biggest = 0;
	int			n = 0;

	if (base < 0)
		return 0;
	for (uint32 r = 0; r < meta->nruns; r++)
		if ((int) r != base && !meta->runs[r].merging)
		{
			n++;
			rows += meta->runs[r].nrows;
			biggest = Max(biggest, meta->runs[r].nrows);
		}
	if (n < 2 || (rows - biggest) * LEVEL_RATIO < biggest)
		return 0;
	for (uint32 r = 0; chosen && r < meta->nruns; r++)
		chosen[r] = (int) r != base && !meta->runs[r].merging;
	return rows;
}

/*
 * Whether a merge of small runs is due for the worker: of the tiers from lowest on (those above
 * INSERTER_TIERS are left to it), or of the runs beside the base.
 */
static bool
worker_small_due(Relation index, const MihMeta *meta, uint64 limit, int lowest)
{
	return full_tier(meta, limit, lowest, MIH_BIG_TIER) >= 0 ||
		choose_level(index, meta, NULL, limit) > 0;
}

/* Big runs: the two smallest, if there are more than MIH_BIG_RUNS. */
static uint64
choose_big(const MihMeta *meta, bool *chosen, uint64 limit)
{
	if (count_big(meta, limit) <= MIH_BIG_RUNS)
		return 0;
	return choose_smallest(meta, chosen, limit, MIH_BIG_TIER, INT_MAX, 2);
}

/*
 * Chooses the runs to merge: every run (MIH_MERGE_ALL, if there are two or more; or, in
 * MIH_MERGE_DUE, if the table count or layout the options ask for changed or a merge into the base
 * run is due), else the small runs due in the lowest tiers it may take (tiers, from small_tiers),
 * else the big ones (not in MIH_MERGE_INSERTER). Marks them in chosen[]; returns their rows, 0 if
 * nothing is due. The worker's merges are chosen by choose_worker.
 */
static uint64
choose_runs(Relation index, const MihMeta *meta, MihMergeMode mode, int tiers, uint64 limit,
			bool *chosen, bool *reshape)
{
	uint64		total = mih_sorted_rows(meta);
	uint64		rows = 0;

	memset(chosen, 0, MIH_MAX_RUNS * sizeof(bool));
	*reshape = (mode == MIH_MERGE_DUE || mode == MIH_MERGE_ALL) && meta->nruns > 0 &&
		(mih_tables_for(index, total) != meta->ntables ||
		 mih_compact_for(index) != ((meta->flags & MIH_FLAG_COMPACT) != 0));
	if (mode == MIH_MERGE_ALL || *reshape ||
		(mode == MIH_MERGE_DUE && base_merge_due(index, meta, limit)))
	{
		if (meta->nruns < 2 && !*reshape)
			return 0;
		for (uint32 r = 0; r < meta->nruns; r++)
			chosen[r] = true;
		return Max(total, 1);
	}
	/* A merge that may take every small run (not an inserter's) may take the runs beside the base. */
	if (mode != MIH_MERGE_INSERTER && tiers == MIH_BIG_TIER)
		rows = choose_level(index, meta, chosen, limit);
	if (rows == 0)
		rows = choose_small(meta, chosen, limit, tiers);
	if (rows == 0 && mode != MIH_MERGE_INSERTER)
		rows = choose_big(meta, chosen, limit);
	return rows;
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
 * are the worker's alone. Marks them in chosen[]; returns their rows, 0 if nothing is due.
 */
static uint64
choose_worker(Relation index, MihMeta *meta, bool *chosen, uint64 limit)
{
	uint64		rows = 0;

	memset(chosen, 0, MIH_MAX_RUNS * sizeof(bool));
	if (base_merge_due(index, meta, limit) || worker_small_due(index, meta, limit, 0))
	{
		LockPage(index, LOCK_RUNS, ExclusiveLock);
		mih_read_meta(index, meta);
		if (base_merge_due(index, meta, limit))
		{
			for (uint32 r = 0; r < meta->nruns; r++)
				chosen[r] = true;
			rows = mih_sorted_rows(meta);
		}
		else if ((rows = choose_level(index, meta, chosen, limit)) == 0)
			rows = choose_small(meta, chosen, limit, MIH_BIG_TIER);
		if (rows > 0)
			set_merging(index, true, meta, chosen);
		UnlockPage(index, LOCK_RUNS, ExclusiveLock);
	}
	if (rows == 0)
		rows = choose_big(meta, chosen, limit);
	return rows;
}

/*
 * The runs the worker's settle merges (see SETTLE_FILL): every run into the biggest (the base run,
 * once there is one), or the runs beside it into one if there are two or more, so that a few rows
 * inserted into an index of a million rows do not rewrite it; none with base_share = 0, which
 * keeps the runs from merging towards a base. Marks them in chosen[]; returns their rows, 0 if the
 * index is settled.
 */
static uint64
settle_runs(Relation index, const MihMeta *meta, bool *chosen)
{
	int			base = -1;
	int			len = sh_mih_block_len(meta->ntables, meta->ntables - 1);
	uint64		others = 0;
	int			n = 0;

	memset(chosen, 0, MIH_MAX_RUNS * sizeof(bool));
	if (base_share(index) == 0)
		return 0;
	for (uint32 r = 0; r < meta->nruns; r++)
		if (base < 0 || meta->runs[r].nrows > meta->runs[base].nrows)
			base = (int) r;
	for (uint32 r = 0; r < meta->nruns; r++)
		if ((int) r != base && !meta->runs[r].merging)
		{
			chosen[r] = true;
			others += meta->runs[r].nrows;
			n++;
		}
	if (base >= 0 && !meta->runs[base].merging && others * SETTLE_FILL >= ((uint64) 1 << len) &&
		others * SETTLE_SHARE >= meta->runs[base].nrows)
	{
		chosen[base] = true;
		return others + meta->runs[base].nrows;
	}
	if (n >= 2)
		return others;
	memset(chosen, 0, MIH_MAX_RUNS * sizeof(bool));
	return 0;
}

/* The settle's runs, chosen and marked under LOCK_RUNS as the worker's other merges are. */
static uint64
choose_settle(Relation index, MihMeta *meta, bool *chosen)
{
	uint64		rows;

	LockPage(index, LOCK_RUNS, ExclusiveLock);
	mih_read_meta(index, meta);
	rows = settle_runs(index, meta, chosen);
	if (rows > 0)
		set_merging(index, true, meta, chosen);
	UnlockPage(index, LOCK_RUNS, ExclusiveLock);
	return rows;
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
	uint64		limit = mih_pending_limit_rows(index);

	mih_read_meta(index, &meta);
	if (count_big(&meta, limit) <= MIH_BIG_RUNS && !base_merge_due(index, &meta, limit) &&
		!worker_small_due(index, &meta, limit, worker ? 0 : INSERTER_TIERS))
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
	rows_init(&rows, expected);
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
	rows_free(&rows);
	return rows.n;
}

/* True if a run's pages are of the kinds a merge in slices writes (every run of 1.3 on). */
static bool
sliceable(const MihRun *run)
{
	return (run->flags & (MIH_RUN_HASHES | MIH_RUN_PACKED_ROWS)) == (MIH_RUN_HASHES | MIH_RUN_PACKED_ROWS);
}

/*
 * The base run of a merge of every run that can go in slices (mih_am_slices.c), -1 if it cannot:
 * the merge keeps the index's shape, and the base and the run it is to take in hold distinct
 * hashes in tables 1..m-1 and packed tids in table 0 (a merge of the other runs makes one that
 * does).
 */
static int
slices_base(Relation index, const MihMeta *meta, const bool *chosen, uint64 limit)
{
	int			base = base_run(index, meta, limit);

	if (base < 0 || meta->nruns < 2 || (meta->flags & MIH_FLAG_COMPACT) || !sliceable(&meta->runs[base]))
		return -1;
	for (uint32 r = 0; r < meta->nruns; r++)
		if (!chosen[r] || (meta->nruns == 2 && !sliceable(&meta->runs[r])))
			return -1;
	return base;
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
	uint64		limit = mih_pending_limit_rows(index);

	if (!lock_for_mode(index, mode))
		return 0;
	for (;;)
	{
		MihMeta		meta;
		bool		chosen[MIH_MAX_RUNS];
		bool		reshape = false;
		uint64		rows;

		CHECK_FOR_INTERRUPTS();
		mih_leave_if_wanted();
		mih_read_meta(index, &meta);
		if (mode == MIH_MERGE_BIG)
			rows = choose_worker(index, &meta, chosen, limit);
		else if (mode == MIH_MERGE_SETTLE)
			rows = choose_settle(index, &meta, chosen);
		else
			rows = choose_runs(index, &meta, mode, small_tiers(mode, &meta), limit, chosen, &reshape);
		if (rows > 0)
		{
			int			base = reshape ? -1 : slices_base(index, &meta, chosen, limit);

			pgstat_progress_update_multi_param(4, params, values);
			reported = true;
			written += base >= 0 ? merge_into_base(index, &meta, base, mode) :
				merge_chosen(index, &meta, chosen, reshape, rows, false, NULL);
		}
		if (rows == 0 || mode == MIH_MERGE_ALL || mode == MIH_MERGE_SETTLE || reshape)
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

/* Whether the index is ever settled: not with base_share = 0 (see settle_runs). */
bool
mih_settles(Relation index)
{
	return base_share(index) > 0;
}

/*
 * Whether an index at rest has anything to settle: pending rows to write as a run, or runs
 * settle_runs would merge.
 */
bool
mih_settle_due(Relation index)
{
	MihMeta		meta;
	bool		chosen[MIH_MAX_RUNS];
	/* The pin keeps the tail page from being recycled while it is counted. */
	Buffer		meta_buf = mih_pin_meta(index, &meta);
	uint64		pending = meta.npending + meta.nsealed + mih_tail_rows(index, meta.pending_tail, NULL);

	ReleaseBuffer(meta_buf);
	return mih_settles(index) &&
		(pending > 0 || settle_runs(index, &meta, chosen) > 0);
}

/*
 * Whether the index has a base run and the settle would merge the runs beside it into it (not
 * only into one): the worker also does that merge while the writers write, when it has time to
 * spare (mih_am_worker.c). Not before there is a base: that merge is written in slices, in place,
 * and the runs of an index still growing towards one merge as big runs do.
 */
bool
mih_settle_into_base_due(Relation index)
{
	MihMeta		meta;
	bool		chosen[MIH_MAX_RUNS];
	int			base;

	if (!mih_settles(index))
		return false;
	ReleaseBuffer(mih_pin_meta(index, &meta));
	base = base_run(index, &meta, mih_pending_limit_rows(index));
	return base >= 0 && settle_runs(index, &meta, chosen) > 0 && chosen[base];
}

/*
 * The worker's settle of an index whose writers paused (mih_am_worker.c): the pending rows become
 * a run, then the runs settle_runs chooses merge. Returns the rows written.
 */
uint64
mih_settle(Relation index)
{
	uint64		written = mih_flush(index, true, 1);

	return written + mih_merge_reported(index, MIH_MERGE_SETTLE);
}

/* The rows ever appended to the pending chain: every insert of a row changes it (not of a NULL). */
uint64
mih_rows_appended(Relation index)
{
	MihMeta		meta;
	Buffer		meta_buf = mih_pin_meta(index, &meta);
	uint64		n = meta.inserted + mih_tail_rows(index, meta.pending_tail, NULL);

	ReleaseBuffer(meta_buf);
	return n;
}
