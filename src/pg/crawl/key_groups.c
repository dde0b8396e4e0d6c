/*
 * The all-pairs job's shuffle, done in bulk: simhash_key_groups groups a node's own rows by their
 * permuted-table keys, one row a key holding that key's rows packed in a bytea. A cluster then
 * moves one row a key and node instead of one a key and page; the key's node joins the parts
 * (string_agg) and runs simhash_group_pairs on them.
 */
#include "simhash_type.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "array_args.h"
#include "bridge_error.h"
#include "core_owner.h"
#include "crawl_source.h"
#include "pairs_bridge.h"

PG_FUNCTION_INFO_V1(simhash_key_groups);

static void
free_key_groups(void *groups)
{
	sh_key_groups_free((sh_key_groups *) groups);
}

Datum
simhash_key_groups(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			nids;
	size_t		ntables;
	int64	   *ids;
	uint64	   *hashes;
	CoreOwner  *owner;
	sh_key_groups *groups;
	sh_error	err;
	sh_status	status;

	InitMaterializedSRF(fcinfo, 0);
	nids = array_args_rows(PG_GETARG_ARRAYTYPE_P(0), PG_GETARG_ARRAYTYPE_P(1), &ids, &hashes);
	/* the rows, and each of them packed once a table */
	status = sh_table_count(PG_GETARG_INT32(2), PG_GETARG_INT32(3), &ntables, &err);
	sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	check_pairs_memory("the part", (size_t) nids, (size_t) nids * SH_PACKED_ROW_BYTES * (1 + ntables));
	CHECK_FOR_INTERRUPTS();

	owner = core_owner_new(free_key_groups);
	status = sh_key_groups_new(ids, hashes, (size_t) nids, PG_GETARG_INT32(2), PG_GETARG_INT32(3), &groups, &err);
	core_owner_adopt(owner, groups);
	sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	for (int more = 1; more;)
	{
		CHECK_FOR_INTERRUPTS();
		status = sh_key_groups_step(groups, &more, &err);
		sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	}
	pfree(ids);
	pfree(hashes);
	for (size_t g = 0; g < sh_key_groups_count(groups); g++)
	{
		int64_t		key;
		const unsigned char *bytes;
		size_t		len;
		bytea	   *rows;
		Datum		values[2];
		bool		nulls[2] = {false, false};

		CHECK_FOR_INTERRUPTS();
		sh_key_groups_get(groups, g, &key, &bytes, &len);
		/* a bytea holds at most 1 GB: about 67 million rows of one key in one part */
		if (len > MaxAllocSize - VARHDRSZ)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("key %lld has %zu rows, more than one bytea holds (%zu)", (long long) key,
							len / SH_PACKED_ROW_BYTES, (size_t) ((MaxAllocSize - VARHDRSZ) / SH_PACKED_ROW_BYTES))));
		rows = palloc(VARHDRSZ + len);
		SET_VARSIZE(rows, VARHDRSZ + len);
		memcpy(VARDATA(rows), bytes, len);
		values[0] = Int64GetDatum(key);
		values[1] = PointerGetDatum(rows);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		pfree(rows);
	}
	core_owner_release(owner);
	return (Datum) 0;
}
