/*
 * A merge into the base run in slices: how the rows beside a big simhash_mih index's base run
 * (the level run, see mih_am_merge.c) join it without a second copy of the base in the file.
 *
 * A merge of runs writes the merged run whole before the old runs' pages are free, so for a merge
 * into the base the index's file must hold the base twice: under continuous ingestion an index
 * took about twice a fresh one's room. Here the base run B is rewritten in place a slice at a time,
 * each slice installed by one change of the meta page and its old pages freed (mih_recycle) before
 * the next is written: the room taken beyond B and the level run L is one slice.
 *
 * 1. Tables 1..m-1, one at a time, each a range of its pages at a time: B's table j becomes the
 *    distinct hashes of B's and L's live rows. Tables 1..m-1 reach rows by value through table 0
 *    (mih_probe_rows_of), so until step 2 moves a row of L into B's table 0, its hash found in B's
 *    table j reaches no row of B, and the row is found through L as before. B is marked
 *    MIH_RUN_EXTRA.
 * 2. Table 0, a range of its pages at a time, in order: the range's live rows and L's rows up to
 *    the range's last key are written as new pages of B's table 0, and in the same change of the
 *    meta page L's table 0 loses those rows (its pages below that key are dropped, the page across
 *    it rewritten with the rest). So every row is in exactly one table 0, and a scan finds it once.
 *    L's tables 1..m-1 keep the hashes of the rows it lost: L is marked MIH_RUN_EXTRA too.
 * 3. The last range takes L's remaining rows: L goes, and B's tables are exact again.
 *
 * Every change of the meta page changes the changed runs' epochs (their directories are cached by
 * it; a hot standby's scans check it, see mih_probe_visit): the new pages carry B's (or L's) tag,
 * as those they replace. A crash between two changes leaves two consistent runs, which the next
 * merge reads as any others. Only runs of MIH_RUN_HASHES and MIH_RUN_PACKED_ROWS are merged so
 * (new pages are of their kinds): tables of row numbers (layout 2) would have to be renumbered
 * with table 0, key tables (compact) hold no hashes.
 */
#include "lsm/mih_lsm.h"

#include "miscadmin.h"
#include "utils/backend_progress.h"
#include "utils/memutils.h"

#include "mih_blocks.h"

/* Each table is rewritten in this many ranges of pages: one is the room the merge takes. */
#define RANGES	16

/* A table of a run as the merge read it: its pages (and for table 0 every entry, dead ones too). */
typedef struct MihOldTable
{
	uint32		pages;
	MihFence   *fences;
	Buffer	   *hints;
	Size	   *start;			/* the entries before page p; start[pages]: all of them */
	uint64	   *hashes;
	ItemPointerData *tids;
} MihOldTable;

/* What the merge knows of the base run B and the level run L. */
typedef struct MihSlices
{
	Relation	index;
	int			m;
	MihRun		base;			/* B and L as the meta page is to have them next */
	MihRun		level;
	MihOldTable	b0;				/* B's table 0 as it was: read in full, replaced range by range */
	MihOldTable	l0;				/* L's table 0: its pages from l_first on are still L's */
	uint32		l_first;
	bool		level_gone;		/* every row of L is in B's table 0: L is to go */
	bool		level_dropped;	/* and the meta page no longer lists it */
	MihOldTable	lj[MIH_MAX_TABLES];	/* L's tables 1..m-1: their pages, freed with L */
	MihOldTable	bj[MIH_MAX_TABLES];	/* B's tables 1..m-1 before step 1: their pages */
	Size	   *b_live;			/* B's live entries before page p */
	uint64	   *b_last_key;		/* the key of B's last live entry before page p */
	Size	   *l_live;			/* L's live entries before entry i */
	uint64	   *hashes;			/* B's and L's live rows in table 0's order: the new base */
	ItemPointerData *tids;
	Size		n;
} MihSlices;

static inline uint64
key0(const MihSlices *sl, uint64 h)
{
	return sh_mih_rotate_block_to_top(h, sl->m, 0);
}

static int
find_run(const MihMeta *meta, uint64 build_id)
{
	for (uint32 r = 0; r < meta->nruns; r++)
		if (meta->runs[r].build_id == build_id)
			return (int) r;
	elog(ERROR, "simhash_mih: run %lx is gone from the meta page", (unsigned long) build_id);
	return -1;
}

/* Copies table j's pages from a run's directory. */
static void
copy_pages(const MihDirectory *dir, int j, MihOldTable *t)
{
	t->pages = dir->pages[j];
	t->fences = palloc_extended(Max(t->pages, 1) * sizeof(MihFence), MCXT_ALLOC_HUGE);
	t->hints = palloc_extended(Max(t->pages, 1) * sizeof(Buffer), MCXT_ALLOC_HUGE);
	for (uint32 p = 0; p < t->pages; p++)
	{
		t->fences[p].first_value = dir->first_values[j][p];
		t->fences[p].blkno = dir->blocks[j][p];
		t->hints[p] = dir->recent[j][p];
	}
}

/* Reads table 0 of a run, its pages and every entry of them, and the pages of its other tables. */
static void
read_old_run(Relation index, const MihMeta *meta, const MihRun *run, MihOldTable *t, MihOldTable *tables)
{
	const MihDirectory *dir = mih_directory(index, meta, run, NULL);
	Size		n = 0;
	MihWalk		walk;

	for (int j = 1; j < meta->ntables; j++)
		copy_pages(dir, j, &tables[j]);
	copy_pages(dir, 0, t);
	t->start = palloc_extended((t->pages + 1) * sizeof(Size), MCXT_ALLOC_HUGE);
	t->hashes = palloc_extended(Max(run->nrows, 1) * sizeof(uint64), MCXT_ALLOC_HUGE);
	t->tids = palloc_extended(Max(run->nrows, 1) * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);
	mih_walk_start(&walk, index);
	for (uint32 p = 0; p < t->pages; p++)
	{
		Buffer		buffer = mih_read_kind(&walk, t->fences[p].blkno, mih_table0_kind(run), false, BUFFER_LOCK_SHARE);
		Page		page = BufferGetPage(buffer);
		int			items = MihPageGetOpaque(page)->nitems;

		CHECK_FOR_INTERRUPTS();
		if (n + items > run->nrows)
			mih_corrupt(index, t->fences[p].blkno, "table 0 holds more than the %lu rows the meta page says",
						(unsigned long) run->nrows);
		t->start[p] = n;
		memcpy(&t->hashes[n], MihPageHashes(page), items * sizeof(uint64));
		for (int i = 0; i < items; i++)
			t->tids[n + i] = mih_row_tid(page, i);
		n += items;
		UnlockReleaseBuffer(buffer);
	}
	t->start[t->pages] = n;
}

/*
 * The new base's rows: B's and L's live rows merged in table 0's order, L's first where keys are
 * equal, so that B's rows up to a page boundary and L's up to that page's last live key are a
 * prefix (a range's rows, step 2). Notes the counts and keys step 2 cuts ranges by.
 */
static void
merge_rows(MihSlices *sl)
{
	const MihOldTable *b = &sl->b0;
	const MihOldTable *l = &sl->l0;
	Size		nb = b->start[b->pages],
				nl = l->start[l->pages];
	Size		i = 0,
				k = 0,
				n = 0;
	uint64		last = 0;

	sl->hashes = palloc_extended(Max(nb + nl, 1) * sizeof(uint64), MCXT_ALLOC_HUGE);
	sl->tids = palloc_extended(Max(nb + nl, 1) * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);
	sl->b_live = palloc_extended((b->pages + 1) * sizeof(Size), MCXT_ALLOC_HUGE);
	sl->b_last_key = palloc_extended((b->pages + 1) * sizeof(uint64), MCXT_ALLOC_HUGE);
	sl->l_live = palloc_extended((nl + 1) * sizeof(Size), MCXT_ALLOC_HUGE);
	sl->l_live[0] = 0;
	for (Size x = 0; x < nl; x++)
		sl->l_live[x + 1] = sl->l_live[x] + (ItemPointerIsValid(&l->tids[x]) ? 1 : 0);
	for (uint32 p = 0; p <= b->pages; p++)
	{
		Size		end = p < b->pages ? b->start[p + 1] : nb;

		sl->b_live[p] = n - sl->l_live[k];
		sl->b_last_key[p] = last;
		for (; i < end; i++)
		{
			uint64		key;

			if ((i & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
			if (!ItemPointerIsValid(&b->tids[i]))
				continue;
			key = key0(sl, b->hashes[i]);
			for (; k < nl && key0(sl, l->hashes[k]) <= key; k++)
				if (ItemPointerIsValid(&l->tids[k]))
				{
					sl->hashes[n] = l->hashes[k];
					sl->tids[n++] = l->tids[k];
				}
			sl->hashes[n] = b->hashes[i];
			sl->tids[n++] = b->tids[i];
			last = key;
		}
	}
	for (; k < nl; k++)
		if (ItemPointerIsValid(&l->tids[k]))
		{
			sl->hashes[n] = l->hashes[k];
			sl->tids[n++] = l->tids[k];
		}
	sl->n = n;
}

/*
 * Puts B and L in the meta page as the merge has them now, each keeping its mark of the worker
 * (B's goes with the merge's last change, last), L removed once it is gone, and counts the rows
 * written.
 */
static void
install(MihSlices *sl, bool level_changed, bool last, uint64 written)
{
	Buffer		meta_buf = ReadBuffer(sl->index, MIH_META_BLKNO);
	GenericXLogState *state = GenericXLogStart(sl->index);
	MihMeta    *meta = mih_begin_meta_change(sl->index, meta_buf, state);
	int			b = find_run(meta, sl->base.build_id);
	uint16		merging;

	merging = meta->runs[b].merging;
	meta->runs[b] = sl->base;
	meta->runs[b].merging = last ? 0 : merging;
	if (!sl->level_dropped && (sl->level_gone || level_changed))
	{
		int			l = find_run(meta, sl->level.build_id);

		if (sl->level_gone)
		{
			memmove(&meta->runs[l], &meta->runs[l + 1], (meta->nruns - l - 1) * sizeof(MihRun));
			meta->nruns--;
			sl->level_dropped = true;
		}
		else
		{
			merging = meta->runs[l].merging;
			meta->runs[l] = sl->level;
			meta->runs[l].merging = merging;
		}
	}
	meta->written += written;
	meta->slices++;
	meta->generation++;
	GenericXLogFinish(state);
	UnlockReleaseBuffer(meta_buf);
}

/* Replaces table j's directory (fence and hint chains) of a run, listing the old chains in old. */
static void
replace_directory(Relation index, MihRun *run, int j, const MihFence *fences, const Buffer *hints,
				  uint32 pages, MihBlockList *old)
{
	mih_blocks_add_chain(index, run->fence_head[j], MIH_PAGE_FENCE, old);
	mih_blocks_add_chain(index, run->hint_head[j], MIH_PAGE_HINTS, old);
	run->table_pages[j] = pages;
	run->fence_head[j] = mih_write_item_chain(index, MIH_PAGE_FENCE, fences, sizeof(MihFence), pages);
	run->hint_head[j] = mih_write_item_chain(index, MIH_PAGE_HINTS, hints, sizeof(Buffer), pages);
}

/*
 * L's table 0 loses its entries before entry cut (they are in B's now): its pages wholly before it
 * go to old, the page across it is rewritten with its entries from cut on. All of L goes to old if
 * cut is its end.
 */
static void
cut_level(MihSlices *sl, Size cut, MihBlockList *old)
{
	MihOldTable *l = &sl->l0;
	uint32		q = sl->l_first;

	while (q < l->pages && l->start[q + 1] <= cut)
		mih_blocks_add(old, l->fences[q++].blkno);
	if (q == l->pages)
	{
		/* Every row is B's now: L goes with its other tables and its filters. */
		for (int j = 1; j < sl->m; j++)
			for (uint32 p = 0; p < sl->lj[j].pages; p++)
				mih_blocks_add(old, sl->lj[j].fences[p].blkno);
		mih_blocks_add_run_chains(sl->index, &sl->level, sl->m, old);
		sl->l_first = q;
		sl->level_gone = true;
		return;
	}
	if (cut > l->start[q])
	{
		mih_blocks_add(old, l->fences[q].blkno);
		mih_write_table(sl->index, sl->m, 0, sl->level.build_id, &l->hashes[cut], &l->tids[cut],
						l->start[q + 1] - cut, &l->fences[q], &l->hints[q]);
		l->start[q] = cut;
	}
	sl->l_first = q;
	sl->level.nrows = l->start[l->pages] - cut;
	sl->level.flags |= MIH_RUN_EXTRA;
	sl->level.epoch++;
	replace_directory(sl->index, &sl->level, 0, &l->fences[q], &l->hints[q], l->pages - q, old);
}

/* The new base's filters hold B's values and L's: none is missed while rows move. */
static void
replace_filters(MihSlices *sl, MihBlockList *old)
{
	MihRun		filters;

	for (int j = 0; j < sl->m; j++)
		mih_blocks_add_chain(sl->index, sl->base.filter_head[j], MIH_PAGE_FILTER, old);
	mih_write_filters(sl->index, sl->hashes, sl->n, sl->m, &filters);
	sl->base.filter_bits = filters.filter_bits;
	memcpy(sl->base.filter_head, filters.filter_head, sizeof(filters.filter_head));
}

/* The key (hash rotated by block j) of the last entry of page p of B's table j, j >= 1. */
static uint64
last_key(MihSlices *sl, int j, uint32 p)
{
	MihWalk		walk;
	Buffer		buffer;
	Page		page;
	int			items;
	uint64		key;

	mih_walk_start(&walk, sl->index);
	buffer = mih_read_kind(&walk, sl->bj[j].fences[p].blkno, MIH_PAGE_HASHES, false, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buffer);
	items = MihPageGetOpaque(page)->nitems;
	if (items == 0)
		mih_corrupt(sl->index, sl->bj[j].fences[p].blkno, "table %d page %u holds no hash", j, p);
	key = mih_packed_key(page, items - 1);
	UnlockReleaseBuffer(buffer);
	return key;
}

/* The first of the sorted keys from to n - 1 above key (n if none is). */
static Size
first_above(const uint64 *keys, Size from, Size n, uint64 key)
{
	while (from < n)
	{
		Size		mid = from + (n - from) / 2;

		if (keys[mid] <= key)
			from = mid + 1;
		else
			n = mid;
	}
	return from;
}

/*
 * Where the new table j's entries of the range of B's old pages ending before page hi end: for
 * table 0, after B's live rows before page hi and L's rows up to their last key (L's entries taken
 * so far go to *cut); for tables 1..m-1, after the keys up to the last of page hi - 1. At the last
 * range, every entry.
 */
static Size
range_end(MihSlices *sl, int j, uint32 hi, const uint64 *keys, Size done, Size n, Size *cut)
{
	Size		nl = sl->l0.start[sl->l0.pages];

	if (hi == (j == 0 ? sl->b0.pages : sl->bj[j].pages))
	{
		*cut = nl;
		return n;
	}
	if (j > 0)
		return first_above(keys, done, n, last_key(sl, j, hi - 1));
	if (sl->b_live[hi] > 0)
		while (*cut < nl && key0(sl, sl->l0.hashes[*cut]) <= sl->b_last_key[hi])
			(*cut)++;
	return sl->b_live[hi] + sl->l_live[*cut];
}

/*
 * Replaces B's table j, a range of its old pages at a time, by the new base's n entries (table 0:
 * its rows, hashes and tids; tables 1..m-1: its distinct hashes rotated by block j). Each range's
 * entries are written, then the table's directory (the new pages, then the old ones after the
 * range), installed by one change of the meta page, and the range's old pages freed. With table
 * 0, L loses the rows each range took, and the last range ends the merge (steps 2 and 3).
 */
static void
replace_table(MihSlices *sl, int j, const uint64 *entries, const ItemPointerData *tids, Size n)
{
	const MihOldTable *old = j == 0 ? &sl->b0 : &sl->bj[j];
	uint32		per_range = Max((old->pages + RANGES - 1) / RANGES, 1);
	Size		per_page = j == 0 ? MIH_ROWS_MIN_PER_PAGE : MIH_HASHES_MIN_PER_PAGE;
	/* The new pages so far, then the old ones after them; each range may leave a page part full. */
	Size		cap = n / per_page + old->pages + RANGES + 2;
	MihFence   *fences = palloc_extended(cap * sizeof(MihFence), MCXT_ALLOC_HUGE);
	Buffer	   *hints = palloc_extended(cap * sizeof(Buffer), MCXT_ALLOC_HUGE);
	/* Progress: tables 1..m-1 first, then table 0, each as the new base's rows. */
	int64		before = (int64) sl->n * (j == 0 ? sl->m - 1 : j - 1);
	uint32		written = 0;
	Size		done = 0;
	Size		cut = 0;

	for (uint32 lo = 0;; lo += per_range)
	{
		uint32		hi = Min(lo + per_range, old->pages);
		bool		last = hi == old->pages;
		Size		cut_was = cut;
		Size		end = range_end(sl, j, hi, entries, done, n, &cut);
		MihBlockList list;

		CHECK_FOR_INTERRUPTS();
		mih_leave_if_wanted();
		written += mih_write_table(sl->index, sl->m, j, sl->base.build_id, &entries[done],
								   tids ? &tids[done] : NULL, end - done, &fences[written], &hints[written]);
		mih_blocks_init(&list);
		for (uint32 p = lo; p < hi; p++)
			mih_blocks_add(&list, old->fences[p].blkno);
		memcpy(&fences[written], &old->fences[hi], (old->pages - hi) * sizeof(MihFence));
		memcpy(&hints[written], &old->hints[hi], (old->pages - hi) * sizeof(Buffer));
		replace_directory(sl->index, &sl->base, j, fences, hints, written + (old->pages - hi), &list);
		if (j == 1 && lo == 0 && sl->base.filter_bits > 0)
			replace_filters(sl, &list);
		sl->base.flags |= MIH_RUN_EXTRA;
		sl->base.epoch++;
		if (j == 0)
		{
			sl->base.nrows = end + (old->start[old->pages] - old->start[hi]);
			if (last)
				sl->base.flags &= ~MIH_RUN_EXTRA;
			if (!sl->level_gone && (cut > cut_was || last))
				cut_level(sl, cut, &list);
		}
		install(sl, j == 0 && cut > cut_was, j == 0 && last, j == 0 ? end - done : 0);
		mih_recycle(sl->index, &list);
		pfree(list.blocks);
		done = end;
		pgstat_progress_update_param(MIH_PROGRESS_ROWS_DONE, before + (int64) ((double) sl->n * done / Max(n, 1)));
		if (last)
			break;
	}
	pfree(fences);
	pfree(hints);
}

/*
 * Merges the level run into the base run in slices (see the top of the file); both are runs of
 * MIH_RUN_HASHES and MIH_RUN_PACKED_ROWS that the caller keeps other merges off. Returns the rows
 * of the new base.
 */
uint64
mih_merge_in_slices(Relation index, uint64 base_id, uint64 level_id)
{
	MihMeta		meta;
	MihSlices	sl;

	memset(&sl, 0, sizeof(sl));
	mih_read_meta(index, &meta);
	sl.index = index;
	sl.m = meta.ntables;
	sl.base = meta.runs[find_run(&meta, base_id)];
	sl.level = meta.runs[find_run(&meta, level_id)];
	Assert((sl.base.flags & MIH_RUN_HASHES) && (sl.level.flags & MIH_RUN_HASHES));
	Assert((sl.base.flags & MIH_RUN_PACKED_ROWS) && (sl.level.flags & MIH_RUN_PACKED_ROWS));
	pgstat_progress_update_param(MIH_PROGRESS_PHASE, MIH_MERGE_PHASE_READ);
	pgstat_progress_update_param(MIH_PROGRESS_ROWS_TOTAL, (int64) (sl.base.nrows + sl.level.nrows));
	read_old_run(index, &meta, &sl.base, &sl.b0, sl.bj);
	read_old_run(index, &meta, &sl.level, &sl.l0, sl.lj);
	merge_rows(&sl);
	pgstat_progress_update_param(MIH_PROGRESS_PHASE, MIH_MERGE_PHASE_WRITE);
	pgstat_progress_update_param(MIH_PROGRESS_ROWS_TOTAL, (int64) sl.n * sl.m);
	pgstat_progress_update_param(MIH_PROGRESS_ROWS_DONE, 0);
	for (int j = 1; j < sl.m; j++)
	{
		Size		nkeys;
		uint64	   *keys = mih_table_keys(sl.hashes, sl.n, sl.m, j, &nkeys);

		replace_table(&sl, j, keys, NULL, nkeys);
		pfree(keys);
	}
	replace_table(&sl, 0, sl.hashes, sl.tids, sl.n);
	return sl.n;
}
