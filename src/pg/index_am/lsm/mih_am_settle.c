/*
 * The settle of a simhash_mih index whose writers paused (see MIH_SETTLE_FILL in
 * mih_merge_policy.h): whether it has anything to settle, and the settle itself, which the
 * background worker runs (mih_am_worker.c).
 */
#include "lsm/mih_lsm.h"
#include "lsm/mih_lsm_internal.h"

/* Whether the index is ever settled: not with base_share = 0 (see mih_plan_settle). */
bool
mih_settles(Relation index)
{
	return mih_base_share(index) > 0;
}

/*
 * Whether an index at rest has anything to settle: pending rows to write as a run, or runs
 * mih_plan_settle would merge.
 */
bool
mih_settle_due(Relation index)
{
	MihMeta		meta;
	MihPolicyView v;
	MihMergePlan plan;
	/* The pin keeps the tail page from being recycled while it is counted. */
	Buffer		meta_buf = mih_pin_meta(index, &meta);
	uint64		pending = meta.npending + meta.nsealed + mih_tail_rows(index, meta.pending_tail, NULL);

	ReleaseBuffer(meta_buf);
	if (!mih_settles(index))
		return false;
	if (pending > 0)
		return true;
	mih_policy_view(index, &meta, &v);
	mih_plan_settle(&v, &plan);
	return plan.rows > 0;
}

/*
 * Whether the index has a base run and the settle would merge the runs beside it into it (not
 * only into one): the worker also does that merge while the writers write, when it has time to
 * spare (mih_am_worker.c). Not before there is a base: that merge is written in slices, in place,
 * and the runs of an index still growing towards one merge as big runs do.
 */
bool
mih_settle_into_base_due(Relation index)
{
	MihMeta		meta;
	MihPolicyView v;

	if (!mih_settles(index))
		return false;
	ReleaseBuffer(mih_pin_meta(index, &meta));
	mih_policy_view(index, &meta, &v);
	return mih_settle_into_base(&v);
}

/*
 * The worker's settle of an index whose writers paused (mih_am_worker.c): the pending rows become
 * a run, then the runs mih_plan_settle chooses merge. Returns the rows written.
 */
uint64
mih_settle(Relation index)
{
	uint64		written = mih_flush(index, true, 1);

	return written + mih_merge_reported(index, MIH_MERGE_SETTLE);
}

/* The rows ever appended to the pending chain: every insert of a row changes it (not of a NULL). */
uint64
mih_rows_appended(Relation index)
{
	MihMeta		meta;
	Buffer		meta_buf = mih_pin_meta(index, &meta);
	uint64		n = meta.inserted + mih_tail_rows(index, meta.pending_tail, NULL);

	ReleaseBuffer(meta_buf);
	return n;
}
