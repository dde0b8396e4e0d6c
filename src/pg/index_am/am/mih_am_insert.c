/*
 * Inserting into a simhash_mih index: the row goes to the tail of the pending chain, which every
 * scan reads linearly. The insert that takes the chain to the pending_limit option writes it as a
 * new sorted run and does the small merges then due (mih_am_merge.c); a merge of big runs it hands
 * to a background worker (mih_am_worker.c). A row whose hash is NULL goes
 * to the NULL chain, which only scans ordered by distance read (it is last).
 *
 * Most inserts change only the tail page: they find it under a share lock of the meta page, which
 * they hold until they hold the tail page's exclusive lock, so that a flush, which seals the chain
 * under the meta page's exclusive lock and then reads its pages, reads their row too. Only the
 * insert that finds the tail page full changes the meta page (a new tail page, and the rows of the
 * full one counted as pending). Every scan copies the meta page under a share lock: with an
 * exclusive lock taken by every insert, a scan beside busy writers waited for it (and, on a busy
 * machine, for the writer's next time slice) often enough to double its time.
 */
#include "simhash_type.h"
#include "am/mih_am.h"

/* Stores the row as the page's last; the caller has checked that it has room. */
static void
put_row(Page page, uint64 hash, ItemPointer tid)
{
	MihPageOpaque *opaque = MihPageGetOpaque(page);

	MihPageHashes(page)[opaque->nitems] = hash;
	MihPageTids(page)[opaque->nitems] = *tid;
	opaque->nitems++;
}

/*
 * Appends the row to the tail page if it has room: one change of that page alone. The meta page's
 * share lock is held until the tail page is locked (see the top of the file).
 */
static bool
append_to_tail(Relation index, uint16 kind, uint64 hash, ItemPointer tid)
{
	Buffer		meta_buf = ReadBuffer(index, MIH_META_BLKNO);
	MihMeta		meta;
	BlockNumber tail;
	Buffer		tail_buf;
	MihWalk		walk;
	GenericXLogState *state;

	LockBuffer(meta_buf, BUFFER_LOCK_SHARE);
	mih_copy_meta(index, BufferGetPage(meta_buf), &meta);
	tail = kind == MIH_PAGE_NULLS ? meta.nulls_tail : meta.pending_tail;
	if (tail == InvalidBlockNumber)
	{
		UnlockReleaseBuffer(meta_buf);
		return false;
	}
	mih_walk_start(&walk, index);
	tail_buf = mih_read_kind(&walk, tail, kind, false, BUFFER_LOCK_EXCLUSIVE);
	LockBuffer(meta_buf, BUFFER_LOCK_UNLOCK);
	if (MihPageGetOpaque(BufferGetPage(tail_buf))->nitems >= MIH_ROWS_PER_PAGE)
	{
		UnlockReleaseBuffer(tail_buf);
		ReleaseBuffer(meta_buf);
		return false;
	}
	state = GenericXLogStart(index);
	put_row(GenericXLogRegisterBuffer(state, tail_buf, 0), hash, tid);
	GenericXLogFinish(state);
	UnlockReleaseBuffer(tail_buf);
	ReleaseBuffer(meta_buf);
	return true;
}

/*
 * Appends the row under the meta page's exclusive lock, to a new tail page if the tail is full
 * (the full page's rows then count as pending and inserted). Returns the pending rows counted.
 */
static uint64
append_to_new_tail(Relation index, uint16 kind, uint64 hash, ItemPointer tid)
{
	Buffer		meta_buf = ReadBuffer(index, MIH_META_BLKNO);
	Buffer		tail_buf = InvalidBuffer;
	Buffer		new_buf = InvalidBuffer;
	GenericXLogState *state = GenericXLogStart(index);
	MihMeta    *meta = mih_begin_meta_change(index, meta_buf, state);
	BlockNumber *head = kind == MIH_PAGE_NULLS ? &meta->nulls_head : &meta->pending_head;
	BlockNumber *tail = kind == MIH_PAGE_NULLS ? &meta->nulls_tail : &meta->pending_tail;
	Page		target = NULL;
	uint64		npending;

	if (*tail != InvalidBlockNumber)
	{
		MihWalk		walk;

		mih_walk_start(&walk, index);
		tail_buf = mih_read_kind(&walk, *tail, kind, false, BUFFER_LOCK_EXCLUSIVE);
		target = GenericXLogRegisterBuffer(state, tail_buf, 0);
	}
	/* Another insert may have added a tail page since append_to_tail looked. */
	if (tail_buf == InvalidBuffer || MihPageGetOpaque(target)->nitems >= MIH_ROWS_PER_PAGE)
	{
		Page		old_tail = target;

		new_buf = mih_new_buffer(index);
		target = GenericXLogRegisterBuffer(state, new_buf, GENERIC_XLOG_FULL_IMAGE);
		mih_init_page(target, kind);
		if (tail_buf != InvalidBuffer)
		{
			MihPageGetOpaque(old_tail)->next = BufferGetBlockNumber(new_buf);
			if (kind == MIH_PAGE_PENDING)
			{
				meta->npending += MihPageGetOpaque(old_tail)->nitems;
				meta->inserted += MihPageGetOpaque(old_tail)->nitems;
			}
		}
		else
			*head = BufferGetBlockNumber(new_buf);
		*tail = BufferGetBlockNumber(new_buf);
	}

	put_row(target, hash, tid);
	npending = meta->npending;
	GenericXLogFinish(state);

	if (new_buf != InvalidBuffer)
		UnlockReleaseBuffer(new_buf);
	if (tail_buf != InvalidBuffer)
		UnlockReleaseBuffer(tail_buf);
	UnlockReleaseBuffer(meta_buf);
	return npending;
}

bool
mih_insert(Relation index, Datum *values, bool *isnull, ItemPointer tid, Relation heap,
		   IndexUniqueCheck check, bool indexUnchanged, IndexInfo *info)
{
	uint16		kind = isnull[0] ? MIH_PAGE_NULLS : MIH_PAGE_PENDING;
	uint64		hash = isnull[0] ? 0 : DatumGetSimhash(values[0]);
	uint64		npending;
	uint64		limit;
	bool		wait;

	if (append_to_tail(index, kind, hash, tid))
		return false;
	npending = append_to_new_tail(index, kind, hash, tid);

	limit = mih_pending_limit_rows(index);
	if (kind == MIH_PAGE_PENDING && mih_flush_due(npending, limit, &wait))
	{
		/* Merging also when the flush wrote nothing: it may have found every run slot taken. */
		mih_flush(index, wait, limit);
		mih_merge(index, MIH_MERGE_INSERTER);
		mih_merge_in_background(index);
	}
	return false;
}
