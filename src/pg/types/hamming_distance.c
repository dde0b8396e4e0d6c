/*
 * hamming() and the comparison operators of its result domain, hamming_distance.
 *
 * hamming returns a domain over integer so that comparisons of a distance with a number use
 * operators of ours; the index issue attaches a planner support function to them that rewrites
 * "hamming(x, q) <= k" into an indexable form. The comparisons themselves are plain int4 ones.
 */
#include "simhash_type.h"

#include "hamming.h"

PG_FUNCTION_INFO_V1(simhash_hamming);
PG_FUNCTION_INFO_V1(bigint_hamming);
PG_FUNCTION_INFO_V1(hamming_distance_eq);
PG_FUNCTION_INFO_V1(hamming_distance_ne);
PG_FUNCTION_INFO_V1(hamming_distance_lt);
PG_FUNCTION_INFO_V1(hamming_distance_le);
PG_FUNCTION_INFO_V1(hamming_distance_gt);
PG_FUNCTION_INFO_V1(hamming_distance_ge);

Datum
simhash_hamming(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(sh_hamming(PG_GETARG_SIMHASH(0), PG_GETARG_SIMHASH(1)));
}

Datum
bigint_hamming(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(sh_hamming((uint64) PG_GETARG_INT64(0), (uint64) PG_GETARG_INT64(1)));
}

/* One C function per comparison serves all three (distance|integer) x (distance|integer) forms. */
#define DISTANCE_COMPARISON(name, op) \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_BOOL(PG_GETARG_INT32(0) op PG_GETARG_INT32(1)); \
}

DISTANCE_COMPARISON(hamming_distance_eq, ==)
DISTANCE_COMPARISON(hamming_distance_ne, !=)
DISTANCE_COMPARISON(hamming_distance_lt, <)
DISTANCE_COMPARISON(hamming_distance_le, <=)
DISTANCE_COMPARISON(hamming_distance_gt, >)
DISTANCE_COMPARISON(hamming_distance_ge, >=)
