/*
 * VACUUM of a simhash_mih index. Dead rows lose their tid in table 0 (tables 1..m-1 reach rows
 * only through table 0, so they need no change) and leave the pending and NULL pages, which are
 * compacted.
 * Then, if the pending pages have grown large, they are merged into new sorted tables.
 */
#include "mih_am.h"

#include "commands/vacuum.h"
#include "miscadmin.h"

/* Removes dead entries from one page; returns how many live ones remain. */
static int
vacuum_page(MihWalk *walk, BlockNumber blkno, uint16 kind, IndexBulkDeleteCallback callback,
			void *callback_state, IndexBulkDeleteResult *stats, BlockNumber *next)
{
	Relation	index = walk->index;
	bool		compact = kind != MIH_PAGE_TABLE0;
	Buffer		buffer;
	GenericXLogState *state;
	Page		page;
	MihPageOpaque *opaque;
	uint64	   *hashes;
	ItemPointerData *tids;
	int			live = 0,
				removed = 0;

	/* One VACUUM at a time, and only it merges: a page of another kind is damage. */
	buffer = mih_read_kind(walk, blkno, kind, compact, BUFFER_LOCK_EXCLUSIVE);
	state = GenericXLogStart(index);
	page = GenericXLogRegisterBuffer(state, buffer, 0);
	opaque = MihPageGetOpaque(page);
	hashes = MihPageHashes(page);
	tids = MihPageTids(page);
	for (int i = 0; i < opaque->nitems; i++)
	{
		if (!ItemPointerIsValid(&tids[i]))
			continue;
		if (callback(&tids[i], callback_state))
		{
			removed++;
			ItemPointerSetInvalid(&tids[i]);
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

static void
vacuum_all(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
		   IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	MihMeta		meta;
	const MihDirectory *dir;
	BlockNumber blkno,
				next;
	MihWalk		walk;

	/* Only VACUUM merges, and one VACUUM at a time: the tables stay as the meta copy says. */
	mih_read_meta(index, &meta);
	dir = mih_directory(index, &meta);
	stats->num_index_tuples = 0;
	mih_walk_start(&walk, index);
	for (uint32 p = 0; p < dir->pages[0]; p++)
	{
		sh_vacuum_delay_point();
		stats->num_index_tuples += vacuum_page(&walk, dir->blocks[0][p], MIH_PAGE_TABLE0,
											   callback, callback_state, stats, &next);
	}
	for (blkno = meta.pending_head; blkno != InvalidBlockNumber; blkno = next)
	{
		sh_vacuum_delay_point();
		stats->num_index_tuples += vacuum_page(&walk, blkno, MIH_PAGE_PENDING, callback, callback_state, stats, &next);
	}
	mih_walk_start(&walk, index);
	for (blkno = meta.nulls_head; blkno != InvalidBlockNumber; blkno = next)
	{
		sh_vacuum_delay_point();
		stats->num_index_tuples += vacuum_page(&walk, blkno, MIH_PAGE_NULLS, callback, callback_state, stats, &next);
	}
	stats->num_pages = RelationGetNumberOfBlocks(index);
}

static bool
nothing_dead(ItemPointer tid, void *state)
{
	return false;
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

IndexBulkDeleteResult *
mih_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	if (info->analyze_only)
		return stats;
	if (mih_merge_pending(info->index) || stats == NULL)
	{
		/* Count the live entries for the planner (also after a merge changed the layout). */
		if (stats == NULL)
			stats = palloc0(sizeof(IndexBulkDeleteResult));
		vacuum_all(info, stats, nothing_dead, NULL);
	}
	return stats;
}
