/*
 * Inserting into a simhash_mih index: the row goes to the tail of the pending chain, which every
 * scan reads linearly until REINDEX (or a VACUUM that merges) sorts it into the tables.
 */
#include "simhash_type.h"
#include "mih_am.h"

bool
mih_insert(Relation index, Datum *values, bool *isnull, ItemPointer tid, Relation heap,
		   IndexUniqueCheck check, bool indexUnchanged, IndexInfo *info)
{
	Buffer		meta_buf;
	Buffer		tail_buf = InvalidBuffer;
	Buffer		new_buf = InvalidBuffer;
	GenericXLogState *state;
	MihMeta    *meta;
	Page		target = NULL;
	MihPageOpaque *opaque;

	if (isnull[0])
		return false;

	/* The meta page's lock serializes inserts; scans only copy the meta page under a share lock. */
	meta_buf = ReadBuffer(index, MIH_META_BLKNO);
	LockBuffer(meta_buf, BUFFER_LOCK_EXCLUSIVE);
	state = GenericXLogStart(index);
	meta = MihPageGetMeta(GenericXLogRegisterBuffer(state, meta_buf, 0));

	if (meta->pending_tail != InvalidBlockNumber)
	{
		tail_buf = ReadBuffer(index, meta->pending_tail);
		LockBuffer(tail_buf, BUFFER_LOCK_EXCLUSIVE);
		target = GenericXLogRegisterBuffer(state, tail_buf, 0);
	}
	if (tail_buf == InvalidBuffer || MihPageGetOpaque(target)->nitems >= MIH_ROWS_PER_PAGE)
	{
		Page		tail = target;

		new_buf = mih_new_buffer(index);
		target = GenericXLogRegisterBuffer(state, new_buf, GENERIC_XLOG_FULL_IMAGE);
		mih_init_page(target, MIH_PAGE_PENDING);
		if (tail_buf != InvalidBuffer)
			MihPageGetOpaque(tail)->next = BufferGetBlockNumber(new_buf);
		else
			meta->pending_head = BufferGetBlockNumber(new_buf);
		meta->pending_tail = BufferGetBlockNumber(new_buf);
	}

	opaque = MihPageGetOpaque(target);
	MihPageHashes(target)[opaque->nitems] = DatumGetSimhash(values[0]);
	MihPageTids(target)[opaque->nitems] = *tid;
	opaque->nitems++;
	meta->npending++;
	GenericXLogFinish(state);

	if (new_buf != InvalidBuffer)
		UnlockReleaseBuffer(new_buf);
	if (tail_buf != InvalidBuffer)
		UnlockReleaseBuffer(tail_buf);
	UnlockReleaseBuffer(meta_buf);
	return false;
}
