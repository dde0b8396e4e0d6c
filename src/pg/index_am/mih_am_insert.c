/*
 * Inserting into a simhash_mih index: the row goes to the tail of the pending chain, which every
 * scan reads linearly. The insert that takes the chain to the pending_limit option writes it as a
 * new sorted run and does the small merges then due (mih_am_merge.c); a merge of big runs it hands
 * to a background worker (mih_am_worker.c). A row whose hash is NULL goes
 * to the NULL chain, which only scans ordered by distance read (it is last).
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
	BlockNumber *head,
			   *tail;
	Page		target = NULL;
	MihPageOpaque *opaque;
	uint16		kind = isnull[0] ? MIH_PAGE_NULLS : MIH_PAGE_PENDING;
	uint64		npending;
	uint64		limit;

	/* The meta page's lock serializes inserts; scans only copy the meta page under a share lock. */
	meta_buf = ReadBuffer(index, MIH_META_BLKNO);
	state = GenericXLogStart(index);
	meta = mih_begin_meta_change(index, meta_buf, state);
	head = isnull[0] ? &meta->nulls_head : &meta->pending_head;
	tail = isnull[0] ? &meta->nulls_tail : &meta->pending_tail;

	if (*tail != InvalidBlockNumber)
	{
		MihWalk		walk;

		/* The meta page's exclusive lock holds every other writer: another kind is damage. */
		mih_walk_start(&walk, index);
		tail_buf = mih_read_kind(&walk, *tail, kind, false, BUFFER_LOCK_EXCLUSIVE);
		target = GenericXLogRegisterBuffer(state, tail_buf, 0);
	}
	if (tail_buf == InvalidBuffer || MihPageGetOpaque(target)->nitems >= MIH_ROWS_PER_PAGE)
	{
		Page		old_tail = target;

		new_buf = mih_new_buffer(index);
		target = GenericXLogRegisterBuffer(state, new_buf, GENERIC_XLOG_FULL_IMAGE);
		mih_init_page(target, kind);
		if (tail_buf != InvalidBuffer)
			MihPageGetOpaque(old_tail)->next = BufferGetBlockNumber(new_buf);
		else
			*head = BufferGetBlockNumber(new_buf);
		*tail = BufferGetBlockNumber(new_buf);
	}

	opaque = MihPageGetOpaque(target);
	MihPageHashes(target)[opaque->nitems] = isnull[0] ? 0 : DatumGetSimhash(values[0]);
	MihPageTids(target)[opaque->nitems] = *tid;
	opaque->nitems++;
	if (!isnull[0])
	{
		meta->npending++;
		meta->inserted++;
	}
	npending = meta->npending;
	GenericXLogFinish(state);

	if (new_buf != InvalidBuffer)
		UnlockReleaseBuffer(new_buf);
	if (tail_buf != InvalidBuffer)
		UnlockReleaseBuffer(tail_buf);
	UnlockReleaseBuffer(meta_buf);

	/*
	 * Past the limit, this insert flushes, unless another backend is flushing: then the chain may
	 * grow on while that flush writes, up to twice the limit, where inserts wait for it.
	 */
	limit = mih_pending_limit_rows(index);
	if (npending >= limit)
	{
		/* Merging also when the flush wrote nothing: it may have found every run slot taken. */
		mih_flush(index, npending >= 2 * limit, limit);
		mih_merge(index, MIH_MERGE_INSERTER);
		mih_merge_in_background(index);
	}
	return false;
}
