/*
 * The estimator behind <@ and hamming_within.
 *
 * Crawls are duplicate-heavy: far more rows sit within a few bits of a stored page than random
 * hashes would put there. ANALYZE's statistics of a simhash column (its btree opclass gives it
 * MCVs and a histogram) are used as a sample of the column:
 *   selectivity = (frequency of the MCVs within the radius)
 *               + (share of the other non-null rows) * max(fraction of histogram bounds within
 *                 the radius, probability for uniformly random hashes)
 * The random-hash probability is the floor; a query whose neighbours show up among the sampled
 * values gets a correspondingly larger estimate.
 */
#include "radius_selectivity.h"

#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "fmgr.h"
#include "utils/lsyscache.h"

#include "hamming.h"
#include "hamming_ball.h"
#include "radius_prior.h"

PG_FUNCTION_INFO_V1(hamming_ball_restrict);

double
radius_selectivity(VariableStatData *vardata, uint64 center, int radius)
{
	double		prior = sh_random_within_probability(radius);
	double		nullfrac = 0.0;
	double		mcv_total = 0.0;
	double		mcv_within = 0.0;
	double		other_within = prior;
	double		sel;
	AttStatsSlot sslot;

	if (!HeapTupleIsValid(vardata->statsTuple))
	{
		sel = Max(prior, RADIUS_DEFAULT_SELECTIVITY);
		CLAMP_PROBABILITY(sel);
		return sel;
	}

	nullfrac = ((Form_pg_statistic) GETSTRUCT(vardata->statsTuple))->stanullfrac;
	if (get_attstatsslot(&sslot, vardata->statsTuple, STATISTIC_KIND_MCV, InvalidOid,
						 ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS))
	{
		for (int i = 0; i < sslot.nvalues; i++)
		{
			mcv_total += sslot.numbers[i];
			if (sh_hamming((uint64) sslot.values[i], center) <= radius)
				mcv_within += sslot.numbers[i];
		}
		free_attstatsslot(&sslot);
	}
	if (get_attstatsslot(&sslot, vardata->statsTuple, STATISTIC_KIND_HISTOGRAM, InvalidOid,
						 ATTSTATSSLOT_VALUES))
	{
		int			hits = 0;

		for (int i = 0; i < sslot.nvalues; i++)
			hits += sh_hamming((uint64) sslot.values[i], center) <= radius;
		if (sslot.nvalues > 0)
			other_within = Max(prior, (double) hits / sslot.nvalues);
		free_attstatsslot(&sslot);
	}
	sel = mcv_within + Max(0.0, 1.0 - nullfrac - mcv_total) * other_within;
	CLAMP_PROBABILITY(sel);
	return sel;
}

/* RESTRICT estimator of <@ (simhash, hamming_ball) and @> (hamming_ball, simhash). */
Datum
hamming_ball_restrict(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);
	VariableStatData vardata;
	Node	   *other;
	bool		varonleft;
	double		sel = RADIUS_DEFAULT_SELECTIVITY;

	if (!get_restriction_variable(root, args, varRelid, &vardata, &other, &varonleft))
		PG_RETURN_FLOAT8(sel);
	if (IsA(other, Const))
	{
		Const	   *c = (Const *) other;

		if (c->constisnull)
			sel = 0.0;
		else
		{
			HammingBall *ball = DatumGetHammingBall(c->constvalue);

			sel = radius_selectivity(&vardata, ball->center, ball->radius);
		}
	}
	ReleaseVariableStats(vardata);
	PG_RETURN_FLOAT8(sel);
}
