/*
 * Page helpers of the simhash_mih access method: page initialization, allocation (recycled
 * pages first), the meta page, and the tables' directory. Every change goes through generic WAL.
 */
#include "mih_am.h"
#include "mih_am_keys.h"

#include "miscadmin.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"

void
mih_walk_start(MihWalk *walk, Relation index)
{
	walk->index = index;
	walk->nblocks = 0;
	walk->steps = 0;
}

/* Checks that blkno can be a data page of the index, before anything reads it. */
void
mih_check_link(MihWalk *walk, BlockNumber blkno)
{
	CHECK_FOR_INTERRUPTS();
	if (blkno == MIH_META_BLKNO)
		mih_corrupt(walk->index, blkno, "a link points to the meta page");
	if (blkno >= walk->nblocks)
	{
		/* The index may have grown since the size was looked up. */
		walk->nblocks = RelationGetNumberOfBlocks(walk->index);
		if (blkno >= walk->nblocks)
			mih_corrupt(walk->index, blkno, "a link points past the end of the index (%u blocks)",
						walk->nblocks);
	}
}

/* As mih_check_link, for the next page of a chain: a chain longer than the index is a cycle. */
void
mih_walk_step(MihWalk *walk, BlockNumber blkno)
{
	mih_check_link(walk, blkno);
	if (++walk->steps > walk->nblocks)
	{
		walk->nblocks = RelationGetNumberOfBlocks(walk->index);
		if (walk->steps > walk->nblocks)
			mih_corrupt(walk->index, blkno, "a chain of pages visits more pages than the index has (a cycle)");
	}
}

/* Checks that a page's kind is known and its item count fits the kind's arrays. */
void
mih_check_items(Relation index, BlockNumber blkno, Page page)
{
	MihPageOpaque *opaque = MihPageGetOpaque(page);
	int			capacity;

	if (PageIsNew(page))
		mih_corrupt(index, blkno, "the page is empty (never written)");
	if (PageGetSpecialSize(page) != MAXALIGN(sizeof(MihPageOpaque)))
		mih_corrupt(index, blkno, "the page is not a page of this access method");
	switch (opaque->kind)
	{
		case MIH_PAGE_TABLE0:
		case MIH_PAGE_PENDING:
		case MIH_PAGE_NULLS:
			capacity = MIH_ROWS_PER_PAGE;
			break;
		case MIH_PAGE_TABLEJ:
			capacity = MIH_REFS_PER_PAGE;
			break;
		case MIH_PAGE_FENCE:
			capacity = MIH_FENCES_PER_PAGE;
			break;
		case MIH_PAGE_KEYS:
			{
				const MihKeyPage *kp = MihKeyPageHeader(page);

				if ((opaque->nitems > 0 && kp->nvalues == 0) ||
					!mih_key_page_fits(kp->nvalues, (kp->flags & MIH_KEYS_SPARSE) != 0, opaque->nitems))
					mih_corrupt(index, blkno, "a key page's %u values and %u keys do not fit it",
								kp->nvalues, opaque->nitems);
				capacity = MIH_KEYS_PER_PAGE;
			}
			break;
		case MIH_PAGE_META:
		case MIH_PAGE_FREE:
			capacity = 0;
			break;
		default:
			mih_corrupt(index, blkno, "unknown page kind %u", opaque->kind);
	}
	if (opaque->nitems > capacity)
		mih_corrupt(index, blkno, "a page of kind %u holds %u items, more than its %d places",
					opaque->kind, opaque->nitems, capacity);
}

/*
 * Block blkno, locked in lockmode, which must be a page of the given kind: for readers that hold
 * the index still (VACUUM, a merge, the check), any other page is damage. A page of a chain counts
 * as a step of the walk.
 */
Buffer
mih_read_kind(MihWalk *walk, BlockNumber blkno, uint16 kind, bool chain, int lockmode)
{
	Buffer		buffer;
	uint16		found;

	if (chain)
		mih_walk_step(walk, blkno);
	else
		mih_check_link(walk, blkno);
	buffer = ReadBuffer(walk->index, blkno);
	LockBuffer(buffer, lockmode);
	mih_check_items(walk->index, blkno, BufferGetPage(buffer));
	found = MihPageGetOpaque(BufferGetPage(buffer))->kind;
	if (found != kind)
		mih_corrupt(walk->index, blkno, "a page of kind %u where a page of kind %u belongs", found, kind);
	return buffer;
}

/*
 * A scan found a page that does not belong to the tables or chains of the meta copy it started
 * from. That is legitimate only if the index changed meanwhile (a merge, or a standby replaying
 * one, rewrites the meta page): the scan starts over. If the meta page is as it was, the page is
 * damaged, and starting over would find it again forever.
 */
void
mih_check_retry(Relation index, const MihMeta *seen)
{
	MihMeta		now;

	mih_read_meta(index, &now);
	if (memcmp(&now, seen, sizeof(MihMeta)) == 0)
		mih_corrupt(index, MIH_META_BLKNO,
					"a page the meta page leads to is of another kind or build, and the index has not changed");
}

void
mih_init_page(Page page, uint16 kind)
{
	MihPageOpaque *opaque;

	PageInit(page, BLCKSZ, sizeof(MihPageOpaque));
	opaque = MihPageGetOpaque(page);
	opaque->kind = kind;
	opaque->nitems = 0;
	opaque->next = InvalidBlockNumber;
	/* The data arrays have fixed places; all of them lie below pd_lower so WAL carries them. */
	((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) + MIH_DATA_BYTES;
}

/*
 * An exclusively locked buffer for a new page: a page a merge recycled, else a new one at the end
 * of the index. The free space map is not WAL-logged, so a page it offers is used only if it
 * really is free.
 */
Buffer
mih_new_buffer(Relation index)
{
	Buffer		buffer;

	for (;;)
	{
		BlockNumber blkno = GetFreeIndexPage(index);
		Page		page;

		if (blkno == InvalidBlockNumber)
			break;
		buffer = ReadBuffer(index, blkno);
		if (ConditionalLockBuffer(buffer))
		{
			page = BufferGetPage(buffer);
			if (PageIsNew(page) ||
				(PageGetSpecialSize(page) == MAXALIGN(sizeof(MihPageOpaque)) &&
				 MihPageGetOpaque(page)->kind == MIH_PAGE_FREE))
				return buffer;
			LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
		}
		ReleaseBuffer(buffer);
	}

	LockRelationForExtension(index, ExclusiveLock);
	buffer = ReadBuffer(index, P_NEW);
	LockBuffer(buffer, BUFFER_LOCK_EXCLUSIVE);
	UnlockRelationForExtension(index, ExclusiveLock);
	return buffer;
}

/* Writes a page prepared in local memory into a locked new buffer, then releases it. */
BlockNumber
mih_write_image(Relation index, Buffer buffer, Page image)
{
	BlockNumber blkno = BufferGetBlockNumber(buffer);
	GenericXLogState *state = GenericXLogStart(index);
	Page		page = GenericXLogRegisterBuffer(state, buffer, GENERIC_XLOG_FULL_IMAGE);

	memcpy(page, image, BLCKSZ);
	GenericXLogFinish(state);
	UnlockReleaseBuffer(buffer);
	return blkno;
}

/* Refuses a meta page of another layout, or one whose counts cannot be right. */
void
mih_validate_meta(Relation index, const MihMeta *meta)
{
	if (meta->magic != MIH_MAGIC || meta->version != MIH_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is not a simhash_mih index of layout %d",
						RelationGetRelationName(index), MIH_VERSION),
				 errdetail("Its meta page has magic %08x and layout %u.", meta->magic, meta->version),
				 errhint("REINDEX the index: an index of an older layout, or a damaged one, is rebuilt by it.")));
	if (meta->ntables < MIH_MIN_TABLES || meta->ntables > MIH_MAX_TABLES)
		mih_corrupt(index, MIH_META_BLKNO, "the meta page names %d tables", meta->ntables);
	if (meta->flags & ~MIH_FLAG_COMPACT)
		mih_corrupt(index, MIH_META_BLKNO, "the meta page has unknown flags %x", meta->flags);
	if (meta->nrows > (uint64) meta->table_pages[0] * MIH_ROWS_PER_PAGE)
		mih_corrupt(index, MIH_META_BLKNO, "the meta page counts %lu rows in %u pages of table 0",
					(unsigned long) meta->nrows, meta->table_pages[0]);
}

/*
 * Copies the meta page and returns its buffer, still pinned: a scan keeps the pin while it reads
 * the tables the copy describes, and a merge waits for such pins before recycling those tables.
 */
Buffer
mih_pin_meta(Relation index, MihMeta *meta)
{
	Buffer		buffer = ReadBuffer(index, MIH_META_BLKNO);

	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	memcpy(meta, MihPageGetMeta(BufferGetPage(buffer)), sizeof(MihMeta));
	LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
	mih_validate_meta(index, meta);
	return buffer;
}

void
mih_read_meta(Relation index, MihMeta *meta)
{
	ReleaseBuffer(mih_pin_meta(index, meta));
}

static void
free_directory(MihDirectory *dir)
{
	for (int j = 0; j < dir->ntables; j++)
	{
		if (dir->first_values[j])
			pfree(dir->first_values[j]);
		if (dir->blocks[j])
			pfree(dir->blocks[j]);
		if (dir->recent[j])
			pfree(dir->recent[j]);
	}
	pfree(dir);
}

/* The directory of the tables meta describes, read once per build and backend. */
const MihDirectory *
mih_directory(Relation index, const MihMeta *meta)
{
	MihDirectory *dir = (MihDirectory *) index->rd_amcache;

	if (dir && dir->build_id == meta->build_id && dir->ntables == meta->ntables)
		return dir;
	if (dir)
	{
		index->rd_amcache = NULL;
		free_directory(dir);
	}
	for (int j = 0; j < meta->ntables; j++)
		if (mih_table_pages(meta, j) >= RelationGetNumberOfBlocks(index))
			mih_corrupt(index, MIH_META_BLKNO, "table %d has %u pages, more than the index", j,
						mih_table_pages(meta, j));
	dir = MemoryContextAllocZero(index->rd_indexcxt, sizeof(MihDirectory));
	dir->build_id = meta->build_id;
	dir->ntables = meta->ntables;
	for (int j = 0; j < meta->ntables; j++)
	{
		uint32		pages = mih_table_pages(meta, j);
		uint32		n = 0;
		BlockNumber blkno = mih_fence_head(meta, j);
		MihWalk		walk;

		dir->pages[j] = pages;
		dir->first_values[j] = MemoryContextAllocExtended(index->rd_indexcxt,
														  Max(pages, 1) * sizeof(uint32), MCXT_ALLOC_HUGE);
		dir->blocks[j] = MemoryContextAllocExtended(index->rd_indexcxt,
													Max(pages, 1) * sizeof(BlockNumber), MCXT_ALLOC_HUGE);
		dir->recent[j] = MemoryContextAllocExtended(index->rd_indexcxt, Max(pages, 1) * sizeof(Buffer),
													MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		mih_walk_start(&walk, index);
		while (blkno != InvalidBlockNumber)
		{
			Buffer		buffer;
			Page		page;
			MihPageOpaque *opaque;

			mih_walk_step(&walk, blkno);
			buffer = ReadBuffer(index, blkno);
			LockBuffer(buffer, BUFFER_LOCK_SHARE);
			page = BufferGetPage(buffer);
			mih_check_items(index, blkno, page);
			opaque = MihPageGetOpaque(page);
			if (opaque->kind != MIH_PAGE_FENCE || n + opaque->nitems > pages)
				mih_corrupt(index, blkno, "the directory of table %d is broken", j);
			for (int i = 0; i < opaque->nitems; i++, n++)
			{
				dir->first_values[j][n] = MihPageFences(page)[i].first_value;
				dir->blocks[j][n] = MihPageFences(page)[i].blkno;
			}
			blkno = opaque->next;
			UnlockReleaseBuffer(buffer);
		}
		if (n != pages)
			mih_corrupt(index, mih_fence_head(meta, j), "the directory lists %u of the %u pages of table %d",
						n, pages, j);
	}
	index->rd_amcache = dir;
	return dir;
}

/* Marks a page free (in WAL, so a stale free space map cannot hand out a live page) and lists it. */
void
mih_free_page(Relation index, BlockNumber blkno)
{
	Buffer		buffer = ReadBuffer(index, blkno);
	GenericXLogState *state;
	Page		page;

	LockBuffer(buffer, BUFFER_LOCK_EXCLUSIVE);
	state = GenericXLogStart(index);
	page = GenericXLogRegisterBuffer(state, buffer, 0);
	MihPageGetOpaque(page)->kind = MIH_PAGE_FREE;
	MihPageGetOpaque(page)->nitems = 0;
	MihPageGetOpaque(page)->next = InvalidBlockNumber;
	GenericXLogFinish(state);
	UnlockReleaseBuffer(buffer);
	RecordFreeIndexPage(index, blkno);
}
