/*
 * Permuted tables in SQL: the all-pairs job spread over the nodes of a cluster.
 *
 * simhash_table_keys gives a row its key in each table, so a cluster can shard the rows by key
 * (a plain column, or an unnested array); simhash_group_pairs runs the in-memory job over the rows
 * of one key and emits the pairs that key's table owns; simhash_pair_table is the ownership rule
 * itself, for plain equi-joins. The core (src/core/permuted_tables.hpp) explains why each pair
 * comes out exactly once.
 */
#include "simhash_type.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "array_args.h"
#include "bridge_error.h"
#include "core_owner.h"
#include "crawl_source.h"
#include "pairs_bridge.h"

PG_FUNCTION_INFO_V1(simhash_table_keys);
PG_FUNCTION_INFO_V1(simhash_pair_table);
PG_FUNCTION_INFO_V1(simhash_key_table);
PG_FUNCTION_INFO_V1(simhash_group_pairs);
PG_FUNCTION_INFO_V1(simhash_group_pairs_packed);

Datum
simhash_table_keys(PG_FUNCTION_ARGS)
{
	uint64		hash = PG_GETARG_SIMHASH(0);
	int64_t	   *keys = palloc(sizeof(int64_t) * SH_MAX_PERMUTED_TABLES);
	Datum	   *datums;
	size_t		n;
	sh_error	err;
	sh_status	status;

	status = sh_table_keys(hash, PG_GETARG_INT32(1), PG_GETARG_INT32(2), keys, &n, &err);
	sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	datums = palloc(sizeof(Datum) * n);
	for (size_t i = 0; i < n; i++)
		datums[i] = Int64GetDatum(keys[i]);
	PG_RETURN_ARRAYTYPE_P(construct_array(datums, (int) n, INT8OID, sizeof(int64), true, TYPALIGN_DOUBLE));
}

Datum
simhash_pair_table(PG_FUNCTION_ARGS)
{
	int			table;
	sh_error	err;
	sh_status	status;

	status = sh_pair_table(PG_GETARG_SIMHASH(0), PG_GETARG_SIMHASH(1), PG_GETARG_INT32(2),
						   PG_GETARG_INT32(3), &table, &err);
	sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	if (table < 0)
		PG_RETURN_NULL();
	PG_RETURN_INT32(table);
}

Datum
simhash_key_table(PG_FUNCTION_ARGS)
{
	int64		key = PG_GETARG_INT64(0);

	if (key < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%lld is not a key of simhash_table_keys", (long long) key)));
	PG_RETURN_INT32((int32) ((uint64) key >> 48));
}

static void
free_group(void *job)
{
	sh_group_job_free((sh_group_job *) job);
}

/* A group's job holds its rows (id and hash) and the in-memory job's own arrays. */
static size_t
group_memory(size_t rows)
{
	return rows * 2 * sizeof(int64) + sh_pairs_memory(rows, 1);
}

/* Emits the pairs of a started group job, then releases it. */
static void
emit_group_pairs(ReturnSetInfo *rsinfo, CoreOwner *owner, sh_group_job *job)
{
	sh_error	err;
	sh_status	status;

	for (int more = 1; more;)
	{
		const sh_pair *pairs;
		size_t		npairs;

		CHECK_FOR_INTERRUPTS();
		status = sh_group_job_step(job, &pairs, &npairs, &more, &err);
		sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
		for (size_t i = 0; i < npairs; i++)
		{
			Datum		values[3] = {Int64GetDatum(pairs[i].id_a), Int64GetDatum(pairs[i].id_b),
			Int32GetDatum(pairs[i].distance)};
			bool		nulls[3] = {false, false, false};

			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	core_owner_release(owner);
}

Datum
simhash_group_pairs(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int64		key = PG_GETARG_INT64(0);
	int			nids;
	int64	   *ids;
	uint64	   *hashes;
	CoreOwner  *owner;
	sh_group_job *job;
	sh_error	err;
	sh_status	status;

	InitMaterializedSRF(fcinfo, 0);
	nids = array_args_rows(PG_GETARG_ARRAYTYPE_P(1), PG_GETARG_ARRAYTYPE_P(2), &ids, &hashes);
	check_pairs_memory("the group", (size_t) nids, group_memory((size_t) nids));
	CHECK_FOR_INTERRUPTS();

	owner = core_owner_new(free_group);
	status = sh_group_job_new(key, ids, hashes, (size_t) nids, PG_GETARG_INT32(3), PG_GETARG_INT32(4),
							  &job, &err);
	core_owner_adopt(owner, job);
	sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	pfree(ids);
	pfree(hashes);
	emit_group_pairs(rsinfo, owner, job);
	return (Datum) 0;
}

/* The same over the packed rows of simhash_key_groups (joined over nodes with string_agg). */
Datum
simhash_group_pairs_packed(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bytea	   *rows = PG_GETARG_BYTEA_PP(1);
	CoreOwner  *owner;
	sh_group_job *job;
	sh_error	err;
	sh_status	status;

	InitMaterializedSRF(fcinfo, 0);
	check_pairs_memory("the group", VARSIZE_ANY_EXHDR(rows) / SH_PACKED_ROW_BYTES,
					   group_memory(VARSIZE_ANY_EXHDR(rows) / SH_PACKED_ROW_BYTES));
	owner = core_owner_new(free_group);
	status = sh_group_job_new_packed(PG_GETARG_INT64(0), (const unsigned char *) VARDATA_ANY(rows),
									 VARSIZE_ANY_EXHDR(rows), PG_GETARG_INT32(2), PG_GETARG_INT32(3), &job, &err);
	core_owner_adopt(owner, job);
	sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	emit_group_pairs(rsinfo, owner, job);
	return (Datum) 0;
}
