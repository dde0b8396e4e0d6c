/*
 * GiST operator class for simhash: exact radius search (<@ hamming_ball) and exact nearest
 * neighbours (ORDER BY sh <-> q).
 *
 * Keys are one 64-bit value (gist_simhash_key.h): the hash itself on a leaf page, the prefix that
 * the whole subtree shares on an inner page. The number of prefix bits that differ from the query
 * is a true lower bound of the distance to anything in the subtree; at a leaf the key is the hash,
 * the distance is exact, no recheck is needed, and index-only scans return the stored value (no
 * compress function). Picksplit (gist_simhash_split.c) cuts along the prefix tree, so every page
 * is a run of hashes that share as many leading bits as its size allows.
 */
#include "simhash_type.h"

#include "access/gist.h"
#include "access/stratnum.h"
#include "utils/sortsupport.h"

#include "hamming_ball.h"
#include "gist_simhash_key.h"

#define STRATEGY_IN_BALL	1	/* sh <@ hamming_ball */
#define STRATEGY_DISTANCE	15	/* sh <-> simhash */

PG_FUNCTION_INFO_V1(simhash_gist_consistent);
PG_FUNCTION_INFO_V1(simhash_gist_distance);
PG_FUNCTION_INFO_V1(simhash_gist_union);
PG_FUNCTION_INFO_V1(simhash_gist_penalty);
PG_FUNCTION_INFO_V1(simhash_gist_same);
PG_FUNCTION_INFO_V1(simhash_gist_sortsupport);

Datum
simhash_gist_consistent(PG_FUNCTION_ARGS)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	HammingBall *ball = DatumGetHammingBall(PG_GETARG_DATUM(1));
	StrategyNumber strategy = (StrategyNumber) PG_GETARG_UINT16(2);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(4);

	if (strategy != STRATEGY_IN_BALL)
		elog(ERROR, "simhash_gist_consistent: unrecognized strategy number %d", strategy);
	*recheck = false;
	PG_RETURN_BOOL(gist_entry_bound(entry, ball->center) <= ball->radius);
}

Datum
simhash_gist_distance(PG_FUNCTION_ARGS)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	StrategyNumber strategy = (StrategyNumber) PG_GETARG_UINT16(2);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(4);

	if (strategy != STRATEGY_DISTANCE)
		elog(ERROR, "simhash_gist_distance: unrecognized strategy number %d", strategy);
	*recheck = false;
	PG_RETURN_FLOAT8((float8) gist_entry_bound(entry, PG_GETARG_SIMHASH(1)));
}

/* The longest prefix shared by all the keys, each read as a prefix code (see the header). */
Datum
simhash_gist_union(PG_FUNCTION_ARGS)
{
	GistEntryVector *entries = (GistEntryVector *) PG_GETARG_POINTER(0);
	uint64		bits = DatumGetSimhash(entries->vector[0].key);
	int			len = gist_code_length(bits);

	for (int i = 1; i < entries->n; i++)
	{
		uint64		key = DatumGetSimhash(entries->vector[i].key);

		len = Min(len, Min(gist_code_length(key), gist_common_length(bits, key)));
	}
	PG_RETURN_SIMHASH(gist_make_code(bits, len));
}

/*
 * Leading bits the subtree would stop sharing if the new key joined it; ties go to the subtree
 * with the longer prefix (the tighter one).
 */
Datum
simhash_gist_penalty(PG_FUNCTION_ARGS)
{
	GISTENTRY  *orig = (GISTENTRY *) PG_GETARG_POINTER(0);
	GISTENTRY  *add = (GISTENTRY *) PG_GETARG_POINTER(1);
	float	   *penalty = (float *) PG_GETARG_POINTER(2);
	uint64		o = DatumGetSimhash(orig->key);
	uint64		a = DatumGetSimhash(add->key);
	int			before = gist_code_length(o);
	int			after = Min(before, Min(gist_code_length(a), gist_common_length(o, a)));

	*penalty = (float) (before - after) + (64 - before) / 128.0f;
	PG_RETURN_POINTER(penalty);
}

Datum
simhash_gist_same(PG_FUNCTION_ARGS)
{
	bool	   *result = (bool *) PG_GETARG_POINTER(2);

	*result = PG_GETARG_SIMHASH(0) == PG_GETARG_SIMHASH(1);
	PG_RETURN_POINTER(result);
}

/*
 * Sorted build: leaf keys in unsigned order of the hash, so runs of consecutive keys share their
 * leading bits and picksplit can cut each run along the prefix tree.
 */
Datum
simhash_gist_sortsupport(PG_FUNCTION_ARGS)
{
	SortSupport ssup = (SortSupport) PG_GETARG_POINTER(0);

	ssup->comparator = ssup_datum_unsigned_cmp;
	PG_RETURN_VOID();
}
