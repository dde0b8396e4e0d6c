/*
 * The flush of a simhash_mih index's pending rows into a run (see "Flush" at the top of
 * mih_am_merge.c).
 */
#include "lsm/mih_lock_tags.h"
#include "lsm/mih_lsm.h"
#include "lsm/mih_lsm_internal.h"

#include "miscadmin.h"
#include "storage/lmgr.h"

/*
 * Writes the sealed pending rows as a run. The caller holds LOCK_PENDING. Seals the pending chain
 * first (if it has min_rows rows: another flush may have taken them while this one waited) unless
 * a sealed chain is there already (a crash interrupted a flush). Returns false if there was
 * nothing to flush; else rows holds the rows written and the pages to recycle.
 */
static bool
flush_locked(Relation index, uint64 min_rows, MihRows *out)
{
	Buffer		meta_buf = ReadBuffer(index, MIH_META_BLKNO);
	GenericXLogState *state;
	MihMeta    *page_meta;
	MihMeta		meta;
	MihRows		rows;
	MihRun		run;
	MihWalk		walk;
	uint64		build_id;

	state = GenericXLogStart(index);
	page_meta = mih_begin_meta_change(index, meta_buf, state);
	if (page_meta->sealed_head == InvalidBlockNumber)
	{
		/* The tail's rows count now: inserts that found it are done with it (mih_am_insert.c). */
		uint64		tail_rows = mih_tail_rows(index, page_meta->pending_tail, NULL);

		if (page_meta->pending_head == InvalidBlockNumber ||
			page_meta->npending + tail_rows < min_rows || page_meta->nruns == MIH_MAX_RUNS)
		{
			GenericXLogAbort(state);
			UnlockReleaseBuffer(meta_buf);
			return false;
		}
		page_meta->sealed_head = page_meta->pending_head;
		page_meta->nsealed = page_meta->npending + tail_rows;
		page_meta->inserted += tail_rows;
		page_meta->pending_head = page_meta->pending_tail = InvalidBlockNumber;
		page_meta->npending = 0;
	}
	build_id = mih_new_build_id(page_meta);
	memcpy(&meta, page_meta, sizeof(MihMeta));
	GenericXLogFinish(state);
	LockBuffer(meta_buf, BUFFER_LOCK_UNLOCK);

	mih_rows_init(&rows, meta.nsealed);
	mih_walk_start(&walk, index);
	for (BlockNumber blkno = meta.sealed_head; blkno != InvalidBlockNumber;)
		blkno = mih_blocks_add_page(&walk, blkno, MIH_PAGE_PENDING, true, &rows.old, mih_rows_collect,
									&rows);
	if (rows.n > 0)
		mih_write_tables(index, rows.hashes, rows.tids, rows.n, meta.ntables,
						 (meta.flags & MIH_FLAG_COMPACT) != 0, NULL, NULL, build_id, &run);

	state = GenericXLogStart(index);
	page_meta = mih_begin_meta_change(index, meta_buf, state);
	if (rows.n > 0)
	{
		page_meta->runs[page_meta->nruns++] = run;
		page_meta->written += rows.n;
	}
	/* The sealed pages are recycled next, even with no live row: a standby's scans tell by this. */
	page_meta->generation++;
	page_meta->sealed_head = InvalidBlockNumber;
	page_meta->nsealed = 0;
	GenericXLogFinish(state);
	UnlockReleaseBuffer(meta_buf);
	*out = rows;
	return true;
}

/*
 * Flushes the pending rows into a run if there are min_rows of them; without wait, only if no
 * other flush is under way. Returns the rows written.
 */
uint64
mih_flush(Relation index, bool wait, uint64 min_rows)
{
	MihRows		rows;
	bool		flushed;

	if (wait)
		mih_lock_pending(index);
	else if (!ConditionalLockPage(index, LOCK_PENDING, ExclusiveLock))
		return 0;
	flushed = flush_locked(index, Max(min_rows, 1), &rows);
	mih_unlock_pending(index);
	if (!flushed)
		return 0;
	mih_recycle(index, &rows.old);
	mih_rows_free(&rows);
	return rows.n;
}
