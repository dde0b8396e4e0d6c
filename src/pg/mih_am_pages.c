/*
 * Page helpers of the simhash_mih access method: page initialization, appending pages, and
 * reading the meta page. Every change goes through generic WAL.
 */
#include "mih_am.h"

#include "storage/lmgr.h"

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

/* A new, exclusively locked buffer at the end of the index. */
Buffer
mih_new_buffer(Relation index)
{
	Buffer		buffer;

	LockRelationForExtension(index, ExclusiveLock);
	buffer = ReadBuffer(index, P_NEW);
	LockBuffer(buffer, BUFFER_LOCK_EXCLUSIVE);
	UnlockRelationForExtension(index, ExclusiveLock);
	return buffer;
}

/* Appends a page whose contents were prepared in local memory; returns its block number. */
BlockNumber
mih_append_image(Relation index, Page image)
{
	Buffer		buffer = mih_new_buffer(index);
	BlockNumber blkno = BufferGetBlockNumber(buffer);
	GenericXLogState *state = GenericXLogStart(index);
	Page		page = GenericXLogRegisterBuffer(state, buffer, GENERIC_XLOG_FULL_IMAGE);

	memcpy(page, image, BLCKSZ);
	GenericXLogFinish(state);
	UnlockReleaseBuffer(buffer);
	return blkno;
}

void
mih_read_meta(Relation index, MihMeta *meta)
{
	Buffer		buffer = ReadBuffer(index, MIH_META_BLKNO);
	Page		page;

	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buffer);
	memcpy(meta, MihPageGetMeta(page), sizeof(MihMeta));
	UnlockReleaseBuffer(buffer);
	if (meta->magic != MIH_MAGIC || meta->version != MIH_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is not a simhash_mih index of version %d",
						RelationGetRelationName(index), MIH_VERSION),
				 errhint("REINDEX it.")));
}
