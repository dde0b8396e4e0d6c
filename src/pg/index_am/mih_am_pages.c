/*
 * Page helpers of the simhash_mih access method: page initialization, allocation (recycled
 * pages first), the meta page, and the tables' directory. Every change goes through generic WAL.
 */
#include "mih_am.h"

#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"

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
	if (meta->magic != MIH_MAGIC || meta->version != MIH_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is not a simhash_mih index of version %d",
						RelationGetRelationName(index), MIH_VERSION),
				 errhint("REINDEX it.")));
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
	dir = MemoryContextAllocZero(index->rd_indexcxt, sizeof(MihDirectory));
	dir->build_id = meta->build_id;
	dir->ntables = meta->ntables;
	for (int j = 0; j < meta->ntables; j++)
	{
		uint32		pages = meta->table_pages[j];
		uint32		n = 0;
		BlockNumber blkno = meta->fence_head[j];

		dir->pages[j] = pages;
		dir->first_values[j] = MemoryContextAllocExtended(index->rd_indexcxt,
														  Max(pages, 1) * sizeof(uint32), MCXT_ALLOC_HUGE);
		dir->blocks[j] = MemoryContextAllocExtended(index->rd_indexcxt,
													Max(pages, 1) * sizeof(BlockNumber), MCXT_ALLOC_HUGE);
		while (blkno != InvalidBlockNumber)
		{
			Buffer		buffer = ReadBuffer(index, blkno);
			Page		page;
			MihPageOpaque *opaque;

			LockBuffer(buffer, BUFFER_LOCK_SHARE);
			page = BufferGetPage(buffer);
			opaque = MihPageGetOpaque(page);
			if (opaque->kind != MIH_PAGE_FENCE || n + opaque->nitems > pages)
				ereport(ERROR,
						(errcode(ERRCODE_INDEX_CORRUPTED),
						 errmsg("index \"%s\" has a broken directory at block %u",
								RelationGetRelationName(index), blkno)));
			for (int i = 0; i < opaque->nitems; i++, n++)
			{
				dir->first_values[j][n] = MihPageFences(page)[i].first_value;
				dir->blocks[j][n] = MihPageFences(page)[i].blkno;
			}
			blkno = opaque->next;
			UnlockReleaseBuffer(buffer);
		}
		if (n != pages)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" lists %u of the %u pages of table %d",
							RelationGetRelationName(index), n, pages, j)));
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
