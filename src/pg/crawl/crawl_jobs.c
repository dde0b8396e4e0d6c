/*
 * simhash_pairs, simhash_clusters and simhash_band_keys: crawl-scale duplicate detection; and
 * their confirmed forms, whose pairs must also pass the resemblance sketches' estimate.
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
#include "page_bridge.h"
#include "pairs_bridge.h"
#include "settings.h"

PG_FUNCTION_INFO_V1(simhash_pairs);
PG_FUNCTION_INFO_V1(simhash_clusters);
PG_FUNCTION_INFO_V1(simhash_pairs_confirmed);
PG_FUNCTION_INFO_V1(simhash_clusters_confirmed);
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

static void
check_min_resemblance(double min_resemblance)
{
	if (!(min_resemblance >= 0.0 && min_resemblance <= 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("min_resemblance must be between 0 and 1, got %g", min_resemblance)));
}

/*
 * Reads the source and runs the whole job; with out != NULL its pairs go to the tuplestore. With
 * confirmed, the source has a third column (resemblance_sketch) and each pair must reach
 * min_resemblance; the pairs then carry their estimate as a fourth column.
 */
static sh_pairs_job *
run_job(FunctionCallInfo fcinfo, int k, bool confirmed, double min_resemblance, bool keep, ReturnSetInfo *out,
		CoreOwner **owner)
{
	SimhashObjects objs;
	CrawlRows	rows;
	sh_pairs_job *job;
	sh_error	err;
	sh_status	status;
	int			more = 1;

	check_radius(k);
	if (confirmed)
		check_min_resemblance(min_resemblance);
	if (!simhash_objects_for(fcinfo->flinfo->fn_oid, &objs) || (confirmed && !OidIsValid(objs.resemblance_type)))
		elog(ERROR, "simhash extension objects not found");
	/* A confirmed job keeps its own copy of the sketches. */
	rows = read_crawl_source(text_to_cstring(PG_GETARG_TEXT_PP(0)), objs.simhash_type,
							 confirmed ? objs.resemblance_type : InvalidOid,
							 sh_pairs_memory(1, sh_job_threads) - sh_pairs_memory(0, sh_job_threads) +
							 (confirmed ? SH_RESEMBLANCE_BYTES : 0));
	*owner = core_owner_new(free_job);
	status = sh_pairs_new(rows.ids, rows.hashes, confirmed ? rows.sketches : NULL, rows.n, k, min_resemblance,
						  sh_job_threads, &job, &err);
	core_owner_adopt(*owner, job);
	sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	pfree(rows.ids);
	pfree(rows.hashes);
	if (rows.sketches)
		pfree(rows.sketches);

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
			/* The fourth value is read only by the confirmed form, whose result has that column. */
			Datum		values[4] = {Int64GetDatum(pairs[i].id_a), Int64GetDatum(pairs[i].id_b),
				Int32GetDatum(pairs[i].distance), Float8GetDatum(pairs[i].resemblance)};
			bool		nulls[4] = {false, false, false, false};

			tuplestore_putvalues(out->setResult, out->setDesc, values, nulls);
		}
	}
	return job;
}

/* simhash_pairs(source, k) and simhash_pairs_confirmed(source, k, min_resemblance). */
static Datum
pairs_srf(FunctionCallInfo fcinfo, bool confirmed)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	CoreOwner  *owner;

	InitMaterializedSRF(fcinfo, 0);
	run_job(fcinfo, PG_GETARG_INT32(1), confirmed, confirmed ? PG_GETARG_FLOAT8(2) : 0, false, rsinfo, &owner);
	core_owner_release(owner);
	return (Datum) 0;
}

/* simhash_clusters(source, k, singletons), simhash_clusters_confirmed(source, k, min_resemblance, singletons). */
static Datum
clusters_srf(FunctionCallInfo fcinfo, bool confirmed)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool		singletons = PG_GETARG_BOOL(confirmed ? 3 : 2);
	CoreOwner  *owner;
	sh_pairs_job *job;
	const sh_cluster_member *members;
	size_t		nmembers;
	sh_error	err;
	sh_status	status;

	InitMaterializedSRF(fcinfo, 0);
	job = run_job(fcinfo, PG_GETARG_INT32(1), confirmed, confirmed ? PG_GETARG_FLOAT8(2) : 0, true, NULL, &owner);
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
simhash_pairs(PG_FUNCTION_ARGS)
{
	return pairs_srf(fcinfo, false);
}

Datum
simhash_pairs_confirmed(PG_FUNCTION_ARGS)
{
	return pairs_srf(fcinfo, true);
}

Datum
simhash_clusters(PG_FUNCTION_ARGS)
{
	return clusters_srf(fcinfo, false);
}

Datum
simhash_clusters_confirmed(PG_FUNCTION_ARGS)
{
	return clusters_srf(fcinfo, true);
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
