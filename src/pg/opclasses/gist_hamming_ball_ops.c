/*
 * GiST operator class for hamming_ball (simhash_ball_ops): the index behind an exclusion
 * constraint "no two rows within k bits", EXCLUDE USING gist (hamming_ball(sh, k) WITH &&).
 *
 * A ball is stored as its center, in the keys of simhash_gist_ops (gist_simhash_key.h), whose
 * union, penalty, picksplit and same this class shares. A row matches q && row only if its center
 * is within q's radius, which the prefix bound decides as for <@; the row's own radius is not in
 * the index, so the executor rechecks the operator.
 */
#include "simhash_type.h"

#include "access/stratnum.h"

#include "hamming_ball.h"
#include "gist_simhash_key.h"

#define STRATEGY_NEAR	3		/* hamming_ball && hamming_ball */

PG_FUNCTION_INFO_V1(hamming_ball_gist_compress);
PG_FUNCTION_INFO_V1(hamming_ball_gist_consistent);

Datum
hamming_ball_gist_compress(PG_FUNCTION_ARGS)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	GISTENTRY  *stored;

	if (!entry->leafkey)
		PG_RETURN_POINTER(entry);	/* an inner key is already a simhash prefix */
	stored = palloc(sizeof(GISTENTRY));
	gistentryinit(*stored, SimhashGetDatum(DatumGetHammingBall(entry->key)->center),
				  entry->rel, entry->page, entry->offset, false);
	PG_RETURN_POINTER(stored);
}

Datum
hamming_ball_gist_consistent(PG_FUNCTION_ARGS)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	HammingBall *query = DatumGetHammingBall(PG_GETARG_DATUM(1));
	StrategyNumber strategy = (StrategyNumber) PG_GETARG_UINT16(2);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(4);

	if (strategy != STRATEGY_NEAR)
		elog(ERROR, "hamming_ball_gist_consistent: unrecognized strategy number %d", strategy);
	*recheck = true;
	PG_RETURN_BOOL(gist_entry_bound(entry, query->center) <= query->radius);
}
