/*
 * simhash_sample_pairs(source, pairs, seed, within_group): uniformly random pairs of distinct
 * pages, reproducible with a seed, for the threshold analysis.
 *
 * Random numbers: SplitMix64 started from the seed (src/core/splitmix64.h, the core's own); a number
 * below n is the high 64 bits of next() * n (the bias, below n / 2^64, is far under anything a sample can show). A pair draws a
 * first row i uniformly, then a second row uniformly among the others, so every unordered pair is
 * equally likely; pairs are drawn independently (with replacement). Within groups, a group is first
 * drawn with probability proportional to its number of pairs, which keeps the pairs uniform over all
 * same-group pairs.
 *
 * The rows are put in a canonical order (by id; within groups, by group then id) before drawing, so
 * the same seed over the same rows gives the same pairs whatever order the source query returns them
 * in (a table rewritten by VACUUM FULL or reloaded in another order samples the same).
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "int_source.h"
#include "source_query.h"
#include "splitmix64.h"

PG_FUNCTION_INFO_V1(simhash_sample_pairs);

static inline uint64
below(uint64_t *rng, uint64 n)
{
	return (uint64) (((unsigned __int128) sh_splitmix64_next(rng) * n) >> 64);
}

/* Emits a uniformly random pair of distinct rows among ids[from .. from + size). */
static void
emit_pair(ReturnSetInfo *rsinfo, uint64_t *rng, const int64 *ids, size_t from, uint64 size)
{
	uint64		i = below(rng, size);
	uint64		j = below(rng, size - 1);
	int64		a,
				b;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	if (j >= i)
		j++;
	a = ids[from + i];
	b = ids[from + j];
	values[0] = Int64GetDatum(Min(a, b));
	values[1] = Int64GetDatum(Max(a, b));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

Datum
simhash_sample_pairs(PG_FUNCTION_ARGS)
{
	char	   *source = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int64		pairs = PG_GETARG_INT64(1);
	uint64_t	rng = (uint64) PG_GETARG_INT64(2);
	bool		within_group = PG_GETARG_BOOL(3);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	IntColumns	rows;

	if (pairs < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the number of pairs to sample must be at least 1, got %lld", (long long) pairs)));
	InitMaterializedSRF(fcinfo, 0);

	if (!within_group)
	{
		rows = read_int_source(source, 1, NULL);
		if (rows.n < 2)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sampling pairs needs at least 2 rows with an id, the source has %zu", rows.n)));
		sort_unique_ids(rows.values[0], rows.n);
		for (int64 p = 0; p < pairs; p++)
		{
			if ((p & 0xffff) == 0)
				CHECK_FOR_INTERRUPTS();
			emit_pair(rsinfo, &rng, rows.values[0], 0, rows.n);
		}
		return (Datum) 0;
	}

	{
		/*
		 * Rows ordered by group, then id (the canonical order); groups numbered 1, 2, ... whatever
		 * the group column's type. The source runs under the caller's search_path; the SQL around
		 * it names its one function with its schema, so nothing planted in that path can stand in.
		 */
		char	   *ranked = psprintf("SELECT g.c1, pg_catalog.dense_rank() OVER (ORDER BY g.c2) FROM (%s) g(c1, c2) "
									  "WHERE g.c2 IS NOT NULL", source);
		size_t		ngroups = 0;
		size_t	   *starts;
		uint64	   *cumulative;
		uint64		total = 0;
		int64	   *ids;

		rows = read_int_source(ranked, 2, "2, 1");
		ids = palloc_extended(rows.n * sizeof(int64), MCXT_ALLOC_HUGE);
		memcpy(ids, rows.values[0], rows.n * sizeof(int64));
		sort_unique_ids(ids, rows.n);
		pfree(ids);
		starts = palloc_extended((rows.n + 1) * sizeof(size_t), MCXT_ALLOC_HUGE);
		cumulative = palloc_extended((rows.n + 1) * sizeof(uint64), MCXT_ALLOC_HUGE);
		for (size_t i = 0; i < rows.n; i++)
			if (i == 0 || rows.values[1][i] != rows.values[1][i - 1])
				starts[ngroups++] = i;
		starts[ngroups] = rows.n;
		for (size_t g = 0; g < ngroups; g++)
		{
			uint64		size = starts[g + 1] - starts[g];

			total += size * (size - 1) / 2;
			cumulative[g] = total;
		}
		if (total == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sampling pairs within groups needs a group with at least 2 rows"),
					 errdetail("The source has %zu rows with an id and a group, in %zu groups.", rows.n, ngroups)));
		for (int64 p = 0; p < pairs; p++)
		{
			uint64		r = below(&rng, total);
			size_t		lo = 0,
						hi = ngroups - 1;

			if ((p & 0xffff) == 0)
				CHECK_FOR_INTERRUPTS();
			while (lo < hi)		/* the first group whose cumulative count exceeds r */
			{
				size_t		mid = lo + (hi - lo) / 2;

				if (cumulative[mid] > r)
					hi = mid;
				else
					lo = mid + 1;
			}
			emit_pair(rsinfo, &rng, rows.values[0], starts[lo], starts[lo + 1] - starts[lo]);
		}
	}
	return (Datum) 0;
}
