/*
 * What the merge policy (mih_merge_policy.c) reads of a simhash_mih index: its options, and a view
 * of a copy of its meta page.
 */
#include "lsm/mih_lsm.h"
#include "lsm/mih_lsm_internal.h"

/* The pending_limit option in rows. */
uint64
mih_pending_limit_rows(Relation index)
{
	MihOptions *opts = (MihOptions *) index->rd_options;
	int			kb = opts && opts->pending_limit > 0 ? opts->pending_limit : MIH_PENDING_LIMIT_DEFAULT;

	return (uint64) kb * 1024 / BLCKSZ * MIH_ROWS_PER_PAGE;
}

/* The base_share option: 0 if the other runs never merge into the base run. */
uint64
mih_base_share(Relation index)
{
	MihOptions *opts = (MihOptions *) index->rd_options;

	return opts ? opts->base_share : MIH_BASE_SHARE_DEFAULT;
}

/* True if a run's pages are of the kinds a merge in slices writes (every run of 1.3 on). */
static bool
sliceable(const MihRun *run)
{
	return (run->flags & (MIH_RUN_HASHES | MIH_RUN_PACKED_ROWS)) == (MIH_RUN_HASHES | MIH_RUN_PACKED_ROWS);
}

/* What the merge policy sees of a copy of the meta page and the index's options. */
void
mih_policy_view(Relation index, const MihMeta *meta, MihPolicyView *v)
{
	uint64		total = mih_sorted_rows(meta);

	memset(v, 0, sizeof(*v));
	v->nruns = meta->nruns;
	for (uint32 r = 0; r < meta->nruns; r++)
	{
		v->runs[r].nrows = meta->runs[r].nrows;
		v->runs[r].merging = meta->runs[r].merging != 0;
		v->runs[r].sliceable = sliceable(&meta->runs[r]);
	}
	v->ntables = meta->ntables;
	v->compact = (meta->flags & MIH_FLAG_COMPACT) != 0;
	v->limit = mih_pending_limit_rows(index);
	v->base_share = mih_base_share(index);
	v->shape_changed = mih_tables_for(index, total) != meta->ntables ||
		mih_compact_for(index) != v->compact;
}
