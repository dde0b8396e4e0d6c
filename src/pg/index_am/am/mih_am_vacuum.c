/*
 * VACUUM of a simhash_mih index. Dead rows lose their tid in table 0 of their run (tables 1..m-1
 * reach rows only through table 0, so they need no change) and leave the pending, sealed and NULL
 * pages, which are compacted. Then the pending rows become a run and due merges are done.
 */
#include "am/mih_am.h"

#include "commands/vacuum.h"
#include "miscadmin.h"

/* Row i of a page of (hash, tid) rows is dead: its tid becomes invalid (a packed one's offset 0). */
static void
mark_dead(Page page, int i)
{
	if (MihPageGetOpaque(page)->kind == MIH_PAGE_ROWS)
	{
		const MihTidsHeader *th = MihTidsHeaderOf(page);
		uint8	   *data = MihTidsData(page);
		uint64		offset_mask = (UINT64_C(1) << th->offset_bits) - 1;

		sh_packed_set(data, th->width, (uint32) i, sh_packed_get(data, th->width, (uint32) i) & ~offset_mask);
	}
	else
		ItemPointerSetInvalid(&MihPageTids(page)[i]);
}

/* Removes dead entries from one page; returns how many live ones remain. */
static int
vacuum_page(MihWalk *walk, BlockNumber blkno, uint16 kind, IndexBulkDeleteCallback callback,
			void *callback_state, IndexBulkDeleteResult *stats, BlockNumber *next)
{
	Relation	index = walk->index;
	/* Chains drop their dead rows; table 0 keeps its order and marks them (offset 0). */
	bool		compact = kind == MIH_PAGE_PENDING || kind == MIH_PAGE_NULLS;
	Buffer		buffer;
	GenericXLogState *state;
	Page		page;
	MihPageOpaque *opaque;
	uint64	   *hashes;
	ItemPointerData *tids;
	int			live = 0,
				removed = 0;

	/* Flushes and merges wait for VACUUM's locks: a page of another kind is damage. */
	buffer = mih_read_kind(walk, blkno, kind, compact, BUFFER_LOCK_EXCLUSIVE);
	state = GenericXLogStart(index);
	page = GenericXLogRegisterBuffer(state, buffer, 0);
	opaque = MihPageGetOpaque(page);
	hashes = MihPageHashes(page);
	tids = MihPageTids(page);
	for (int i = 0; i < opaque->nitems; i++)
	{
		ItemPointerData tid = mih_row_tid(page, i);

		if (!ItemPointerIsValid(&tid))
			continue;
		if (callback(&tid, callback_state))
		{
			removed++;
			mark_dead(page, i);
			continue;
		}
		if (compact)
		{
			hashes[live] = hashes[i];
			tids[live] = tids[i];
		}
		live++;
	}
	if (compact)
	{
		memset(&hashes[live], 0, (opaque->nitems - live) * sizeof(uint64));
		memset(&tids[live], 0, (opaque->nitems - live) * sizeof(ItemPointerData));
		opaque->nitems = (uint16) live;
	}
	*next = opaque->next;
	if (removed > 0)
		GenericXLogFinish(state);
	else
		GenericXLogAbort(state);
	UnlockReleaseBuffer(buffer);
	stats->tuples_removed += removed;
	return live;
}

/* Cleans a chain of (hash, tid) pages of the given kind. */
static void
vacuum_chain(Relation index, BlockNumber head, uint16 kind, IndexBulkDeleteCallback callback,
			 void *callback_state, IndexBulkDeleteResult *stats)
{
	MihWalk		walk;
	BlockNumber next;

	mih_walk_start(&walk, index);
	for (BlockNumber blkno = head; blkno != InvalidBlockNumber; blkno = next)
	{
		sh_vacuum_delay_point();
		stats->num_index_tuples += vacuum_page(&walk, blkno, kind, callback, callback_state, stats, &next);
	}
}

/*
 * Cleans the pending and sealed rows under LOCK_PENDING, then the runs under LOCK_RUNS (see
 * mih_am_merge.c): no flush or merge copies a row while it is being removed, and every row is
 * cleaned once, before it can move into a run or after.
 */
static void
vacuum_all(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
		   IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	MihMeta		meta;
	MihWalk		walk;
	BlockNumber next;

	stats->num_index_tuples = 0;
	mih_lock_pending(index);
	mih_read_meta(index, &meta);
	vacuum_chain(index, meta.sealed_head, MIH_PAGE_PENDING, callback, callback_state, stats);
	vacuum_chain(index, meta.pending_head, MIH_PAGE_PENDING, callback, callback_state, stats);
	mih_unlock_pending(index);

	mih_lock_runs(index);
	mih_read_meta(index, &meta);
	for (uint32 r = 0; r < meta.nruns; r++)
	{
		const MihDirectory *dir = mih_directory(index, &meta, &meta.runs[r], NULL);

		mih_walk_start(&walk, index);
		for (uint32 p = 0; p < dir->pages[0]; p++)
		{
			sh_vacuum_delay_point();
			stats->num_index_tuples += vacuum_page(&walk, dir->blocks[0][p], mih_table0_kind(&meta.runs[r]),
												   callback, callback_state, stats, &next);
		}
	}
	mih_unlock_runs(index);

	/* Inserts append to the NULL chain under the meta page's lock; nothing else moves it. */
	vacuum_chain(index, meta.nulls_head, MIH_PAGE_NULLS, callback, callback_state, stats);
	stats->num_pages = RelationGetNumberOfBlocks(index);
}

IndexBulkDeleteResult *
mih_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			   IndexBulkDeleteCallback callback, void *callback_state)
{
	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));
	vacuum_all(info, stats, callback, callback_state);
	return stats;
}

/*
 * After VACUUM's cleaning (or in its place, when nothing was dead): the pending rows are written
 * as a run and the merges the size tiers call for are done, whatever the writers do meanwhile.
 */
IndexBulkDeleteResult *
mih_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	MihMeta		meta;

	if (info->analyze_only)
		return stats;
	mih_flush(info->index, true, 1);
	mih_merge(info->index, MIH_MERGE_DUE);
	if (stats == NULL)
	{
		/* Nothing was cleaned: the planner gets the counts of the meta page (dead rows too). */
		stats = palloc0(sizeof(IndexBulkDeleteResult));
		mih_read_meta(info->index, &meta);
		stats->num_index_tuples = (double) (mih_sorted_rows(&meta) + meta.npending + meta.nsealed);
		stats->estimated_count = true;
		stats->num_pages = RelationGetNumberOfBlocks(info->index);
	}
	return stats;
}
