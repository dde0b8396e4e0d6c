/*
 * Merging the pending pages of a simhash_mih index into new sorted tables, during VACUUM.
 *
 * The merge runs only when no other transaction has the index open for writing (a conditional
 * ShareLock on the index: inserters hold RowExclusiveLock until they end, and new ones wait for
 * the merge), so the live rows it reads are all there are. It writes the new tables to free or
 * new pages, switches the meta page to them, waits until no scan still holds a pin on the meta
 * page (a scan pins it while it reads the tables it saw there), and then recycles the old pages.
 * A crash before the switch leaves the new pages unreferenced (REINDEX reclaims them); after it,
 * the old pages are merely not reused.
 */
#include "mih_am.h"

#include "miscadmin.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"

/* Merge once the pending rows reach this fraction of the sorted ones (and fill a page). */
#define MERGE_FRACTION	32

typedef struct MihRows
{
	uint64	   *hashes;
	ItemPointerData *tids;
	Size		n;
	Size		cap;
} MihRows;

static void
collect_live(MihRows *rows, Page page)
{
	int			n = MihPageGetOpaque(page)->nitems;

	for (int i = 0; i < n; i++)
	{
		if (!ItemPointerIsValid(&MihPageTids(page)[i]))
			continue;
		if (rows->n == rows->cap)
		{
			rows->cap *= 2;
			rows->hashes = repalloc_huge(rows->hashes, rows->cap * sizeof(uint64));
			rows->tids = repalloc_huge(rows->tids, rows->cap * sizeof(ItemPointerData));
		}
		rows->hashes[rows->n] = MihPageHashes(page)[i];
		rows->tids[rows->n] = MihPageTids(page)[i];
		rows->n++;
	}
}

/* Appends the blocks of the pages read (for recycling) to *old. */
static void
note_block(BlockNumber **old, Size *nold, Size *capold, BlockNumber blkno)
{
	if (*nold == *capold)
	{
		*capold *= 2;
		*old = repalloc_huge(*old, *capold * sizeof(BlockNumber));
	}
	(*old)[(*nold)++] = blkno;
}

/* Reads one page of the old layout; a chain page counts as a step of walk (cycles end there). */
static void
read_page(MihWalk *walk, BlockNumber blkno, uint16 kind, bool chain, MihRows *rows, BlockNumber *next)
{
	Buffer		buffer = mih_read_kind(walk, blkno, kind, chain, BUFFER_LOCK_SHARE);
	Page		page = BufferGetPage(buffer);

	if (rows)
		collect_live(rows, page);
	*next = MihPageGetOpaque(page)->next;
	UnlockReleaseBuffer(buffer);
}

bool
mih_merge_pending(Relation index)
{
	MihMeta		meta,
				fresh;
	const MihDirectory *dir;
	MihRows		rows;
	BlockNumber *old;
	Size		nold = 0,
				capold = 64;
	BlockNumber blkno,
				next;
	MihWalk		walk;
	Buffer		meta_buf;
	GenericXLogState *state;
	MihMeta    *page_meta;

	mih_read_meta(index, &meta);
	if (meta.npending < MIH_ROWS_PER_PAGE || meta.npending * MERGE_FRACTION < meta.nrows)
		return false;
	if (!ConditionalLockRelation(index, ShareLock))
		return false;			/* a writer is active; a later VACUUM merges */
	mih_read_meta(index, &meta);

	rows.cap = Max(meta.nrows + meta.npending, 1024);
	rows.n = 0;
	rows.hashes = palloc_extended(rows.cap * sizeof(uint64), MCXT_ALLOC_HUGE);
	rows.tids = palloc_extended(rows.cap * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);
	old = palloc(capold * sizeof(BlockNumber));

	dir = mih_directory(index, &meta);
	for (int j = 0; j < meta.ntables; j++)
	{
		mih_walk_start(&walk, index);
		for (uint32 p = 0; p < dir->pages[j]; p++)
		{
			note_block(&old, &nold, &capold, dir->blocks[j][p]);
			if (j == 0)
				read_page(&walk, dir->blocks[j][p], MIH_PAGE_TABLE0, false, &rows, &next);
			else
				mih_check_link(&walk, dir->blocks[j][p]);
		}
		for (blkno = mih_fence_head(&meta, j); blkno != InvalidBlockNumber; blkno = next)
		{
			note_block(&old, &nold, &capold, blkno);
			read_page(&walk, blkno, MIH_PAGE_FENCE, true, NULL, &next);
		}
	}
	mih_walk_start(&walk, index);
	for (blkno = meta.pending_head; blkno != InvalidBlockNumber; blkno = next)
	{
		note_block(&old, &nold, &capold, blkno);
		read_page(&walk, blkno, MIH_PAGE_PENDING, true, &rows, &next);
	}

	fresh = meta;
	mih_write_tables(index, rows.hashes, rows.tids, rows.n, mih_tables_for(index, rows.n),
					 mih_compact_for(index), &fresh);
	fresh.pending_head = InvalidBlockNumber;
	fresh.pending_tail = InvalidBlockNumber;
	fresh.npending = 0;

	meta_buf = ReadBuffer(index, MIH_META_BLKNO);
	LockBuffer(meta_buf, BUFFER_LOCK_EXCLUSIVE);
	state = GenericXLogStart(index);
	page_meta = MihPageGetMeta(GenericXLogRegisterBuffer(state, meta_buf, 0));
	memcpy(page_meta, &fresh, sizeof(MihMeta));
	GenericXLogFinish(state);
	LockBuffer(meta_buf, BUFFER_LOCK_UNLOCK);
	/* Every scan that saw the old tables still pins the meta page; wait for them to finish. */
	LockBufferForCleanup(meta_buf);
	UnlockReleaseBuffer(meta_buf);

	for (Size i = 0; i < nold; i++)
		mih_free_page(index, old[i]);
	IndexFreeSpaceMapVacuum(index);
	UnlockRelation(index, ShareLock);

	pfree(rows.hashes);
	pfree(rows.tids);
	pfree(old);
	return true;
}
