/*
 * The runs of a simhash_mih index from SQL: simhash_mih_merge(index) merges the pending rows and
 * every run into one (as gin_clean_pending_list empties GIN's pending list), simhash_mih_runs(index)
 * lists the runs and simhash_mih_state(index) sums them up, with the write amplification of the
 * flushes and merges so far.
 */
#include "am/mih_am.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/xlog.h"
#include "catalog/index.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

PG_FUNCTION_INFO_V1(simhash_mih_merge);
PG_FUNCTION_INFO_V1(simhash_mih_runs);
PG_FUNCTION_INFO_V1(simhash_mih_state);

static void
close_mih(Relation index, Relation heap, LOCKMODE lockmode)
{
	index_close(index, lockmode);
	table_close(heap, lockmode == AccessShareLock ? AccessShareLock : RowExclusiveLock);
}

/*
 * Writes the pending rows as a run and merges every run into one; returns the rows written. Only
 * the index's owner may (as for gin_clean_pending_list: it is VACUUM's work).
 */
Datum
simhash_mih_merge(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	Relation	heap;
	Relation	index;
	uint64		written;

	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("recovery is in progress"),
				 errhint("simhash_mih_merge() cannot be run during recovery.")));
	if (get_rel_relkind(indexoid) == RELKIND_INDEX && !sh_class_ownercheck(indexoid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_INDEX, get_rel_name(indexoid));
	index = mih_open_checked(indexoid, RowExclusiveLock, &heap);
	written = mih_flush(index, true, 1);
	written += mih_merge_reported(index, MIH_MERGE_ALL);
	close_mih(index, heap, RowExclusiveLock);
	PG_RETURN_INT64((int64) written);
}

/*
 * One row a run: its place, size tier, rows (dead ones included), pages of table 0 and whether the
 * background worker is merging it.
 */
Datum
simhash_mih_runs(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	heap;
	Relation	index = mih_open_checked(PG_GETARG_OID(0), AccessShareLock, &heap);
	MihMeta		meta;
	uint64		limit = mih_pending_limit_rows(index);

	InitMaterializedSRF(fcinfo, 0);
	mih_read_meta(index, &meta);
	for (uint32 r = 0; r < meta.nruns; r++)
	{
		Datum		values[5];
		bool		nulls[5] = {false};
		uint64		n = meta.runs[r].nrows;

		values[0] = Int32GetDatum((int32) r + 1);
		values[1] = Int32GetDatum(mih_tier_of(n, limit));
		values[2] = Int64GetDatum((int64) n);
		values[3] = Int64GetDatum((int64) meta.runs[r].table_pages[0]);
		values[4] = BoolGetDatum(meta.runs[r].merging != 0);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	close_mih(index, heap, AccessShareLock);
	return (Datum) 0;
}

/*
 * The pending rows of *meta, which *meta_buf pins: the meta page's count and the rows on the
 * pending chain's tail page. On a primary the pin keeps the tail page from being recycled while
 * it is counted; a hot standby (on_standby: the copy was made on one) replays a flush without
 * waiting for it, so there a recycled tail page, or a flush replayed meanwhile (the tail page, or
 * npending of a copy without one, may be out of date), sends the count back to the meta page as it
 * is now (the copy and its pin with it).
 */
static uint64
pending_rows(Relation index, bool on_standby, MihMeta *meta, Buffer *meta_buf)
{
	for (;;)
	{
		bool		recycled = false;
		uint64		tail_rows = mih_tail_rows(index, meta->pending_tail, &recycled);

		if (!recycled && mih_generation_unchanged(index, meta, on_standby))
			return meta->npending + tail_rows;
		if (recycled)
			mih_check_retry(index, meta);
		ReleaseBuffer(*meta_buf);
		*meta_buf = mih_pin_meta(index, meta);
	}
}

/* The index's runs and unsorted rows in one row, and rows written by flushes and merges. */
Datum
simhash_mih_state(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index = mih_open_checked(PG_GETARG_OID(0), AccessShareLock, &heap);
	TupleDesc	tupdesc;
	MihMeta		meta;
	Buffer		meta_buf;
	uint64		pending;
	bool		on_standby;
	Datum		values[8];
	bool		nulls[8] = {false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "simhash_mih_state must return a record");
	/* Asked before the copy: a promotion after it does not make the copy a primary's. */
	on_standby = RecoveryInProgress();
	meta_buf = mih_pin_meta(index, &meta);
	pending = pending_rows(index, on_standby, &meta, &meta_buf);
	values[0] = Int32GetDatum(meta.ntables);
	values[1] = Int32GetDatum((int32) meta.nruns);
	values[2] = Int64GetDatum((int64) mih_sorted_rows(&meta));
	values[3] = Int64GetDatum((int64) pending);
	values[4] = Int64GetDatum((int64) meta.nsealed);
	values[5] = Int64GetDatum((int64) mih_pending_limit_rows(index));
	values[6] = Int64GetDatum((int64) meta.inserted);
	values[7] = Int64GetDatum((int64) meta.written);
	ReleaseBuffer(meta_buf);
	close_mih(index, heap, AccessShareLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
