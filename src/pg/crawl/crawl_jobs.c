/*
 * simhash_pairs, simhash_clusters and simhash_band_keys: crawl-scale duplicate detection.
 *
 * The rows come from a source query (SQL text returning id and simhash, as pgRouting's functions
 * take their edges). The core's worker threads run the job while this backend's own thread
 * collects their pairs into the result tuplestore, checking for interrupts at least every 100 ms.
 */
#include "simhash_type.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "bridge_error.h"
#include "core_owner.h"
#include "crawl_source.h"
#include "extension_objects.h"
#include "pairs_bridge.h"

PG_FUNCTION_INFO_V1(simhash_pairs);
PG_FUNCTION_INFO_V1(simhash_clusters);
PG_FUNCTION_INFO_V1(simhash_band_keys);

static void
check_radius(int k)
{
	if (k < 0 || k > 64)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("radius must be between 0 and 64, got %d", k)));
}

static void
free_job(void *job)
{
	sh_pairs_free((sh_pairs_job *) job);
}

/* Reads the source and runs the whole job; with out != NULL its pairs go to the tuplestore. */
static sh_pairs_job *
run_job(FunctionCallInfo fcinfo, int k, bool keep, ReturnSetInfo *out, CoreOwner **owner)
{
	SimhashObjects objs;
	CrawlRows	rows;
	sh_pairs_job *job;
	sh_error	err;
	sh_status	status;
	int			more = 1;

	check_radius(k);
	if (!simhash_objects_for(fcinfo->flinfo->fn_oid, &objs))
		elog(ERROR, "simhash extension objects not found");
	rows = read_crawl_source(text_to_cstring(PG_GETARG_TEXT_PP(0)), objs.simhash_type,
							 sh_pairs_memory(1, sh_job_threads) - sh_pairs_memory(0, sh_job_threads));
	*owner = core_owner_new(free_job);
	status = sh_pairs_new(rows.ids, rows.hashes, rows.n, k, sh_job_threads, &job, &err);
	core_owner_adopt(*owner, job);
	sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	pfree(rows.ids);
	pfree(rows.hashes);

	while (more)
	{
		const sh_pair *pairs;
		size_t		npairs;
		size_t		kept_bytes;

		CHECK_FOR_INTERRUPTS();
		status = sh_pairs_step(job, keep, &pairs, &npairs, &kept_bytes, &more, &err);
		sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
		if (kept_bytes > (size_t) sh_pairs_memory_limit_kb * 1024)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("the pairs for clustering need more than simhash.pairs_memory_limit (%d kB)",
							sh_pairs_memory_limit_kb),
					 errhint("Raise simhash.pairs_memory_limit, lower the radius, or process the crawl in parts.")));
		for (size_t i = 0; out && i < npairs; i++)
		{
			Datum		values[3] = {Int64GetDatum(pairs[i].id_a), Int64GetDatum(pairs[i].id_b),
			Int32GetDatum(pairs[i].distance)};
			bool		nulls[3] = {false, false, false};

			tuplestore_putvalues(out->setResult, out->setDesc, values, nulls);
		}
	}
	return job;
}

Datum
simhash_pairs(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	CoreOwner  *owner;

	InitMaterializedSRF(fcinfo, 0);
	run_job(fcinfo, PG_GETARG_INT32(1), false, rsinfo, &owner);
	core_owner_release(owner);
	return (Datum) 0;
}

Datum
simhash_clusters(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool		singletons = PG_GETARG_BOOL(2);
	CoreOwner  *owner;
	sh_pairs_job *job;
	const sh_cluster_member *members;
	size_t		nmembers;
	sh_error	err;
	sh_status	status;

	InitMaterializedSRF(fcinfo, 0);
	job = run_job(fcinfo, PG_GETARG_INT32(1), true, NULL, &owner);
	CHECK_FOR_INTERRUPTS();
	status = sh_pairs_clusters(job, singletons, &members, &nmembers, &err);
	sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	for (size_t i = 0; i < nmembers; i++)
	{
		Datum		values[2] = {Int64GetDatum(members[i].id), Int64GetDatum(members[i].cluster_id)};
		bool		nulls[2] = {false, false};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	core_owner_release(owner);
	return (Datum) 0;
}

Datum
simhash_band_keys(PG_FUNCTION_ARGS)
{
	uint64		hash = PG_GETARG_SIMHASH(0);
	int			k = PG_GETARG_INT32(1);
	int64_t		keys[65];
	Datum		datums[65];
	size_t		n;
	sh_error	err;
	sh_status	status;

	check_radius(k);
	status = sh_band_keys(hash, k, keys, &n, &err);
	sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	for (size_t i = 0; i < n; i++)
		datums[i] = Int64GetDatum(keys[i]);
	PG_RETURN_ARRAYTYPE_P(construct_array(datums, (int) n, INT8OID, sizeof(int64), true, TYPALIGN_DOUBLE));
}
