/*
 * The lists of pages a flush or merge replaced, and their recycling once no scan can read them
 * (see "Recycling" in mih_am_merge.c).
 */
#include "lsm/mih_lock_tags.h"
#include "lsm/mih_lsm.h"

#include "miscadmin.h"
#include "storage/freespace.h"
#include "storage/lmgr.h"

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

/*
 * Reads one page, listed in old; fn (if given) sees it share-locked (a merge takes its live rows).
 * Returns the page's next link.
 */
BlockNumber
mih_blocks_add_page(MihWalk *walk, BlockNumber blkno, uint16 kind, bool chain, MihBlockList *old,
					MihPageFn fn, void *arg)
{
	Buffer		buffer = mih_read_kind(walk, blkno, kind, chain, BUFFER_LOCK_SHARE);
	Page		page = BufferGetPage(buffer);
	BlockNumber next = MihPageGetOpaque(page)->next;

	mih_blocks_add(old, blkno);
	if (fn)
		fn(arg, page);
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
		blkno = mih_blocks_add_page(&walk, blkno, kind, true, list, NULL, NULL);
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
