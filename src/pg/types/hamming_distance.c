/*
 * hamming() and the comparison operators of its result domain, hamming_distance; the input of
 * simhash_distance (the result type of <-> in 1.0).
 *
 * hamming returns a domain over integer so that comparisons of a distance with a number use
 * operators of ours, whose planner support (src/pg/planner/hamming_rewrite.c) rewrites
 * "hamming(x, q) <= k" into an indexable form. The comparisons themselves are plain int4 ones.
 */
#include "simhash_type.h"

#include "libpq/pqformat.h"
#include "utils/builtins.h"

#include "hamming.h"

PG_FUNCTION_INFO_V1(simhash_hamming);
PG_FUNCTION_INFO_V1(bigint_hamming);
PG_FUNCTION_INFO_V1(hamming_distance_eq);
PG_FUNCTION_INFO_V1(hamming_distance_ne);
PG_FUNCTION_INFO_V1(hamming_distance_lt);
PG_FUNCTION_INFO_V1(hamming_distance_le);
PG_FUNCTION_INFO_V1(hamming_distance_gt);
PG_FUNCTION_INFO_V1(hamming_distance_ge);
PG_FUNCTION_INFO_V1(simhash_distance_in);
PG_FUNCTION_INFO_V1(simhash_distance_recv);

/* A distance is 0..64: anything else is refused, as the type's documentation says. */
static int32
checked_distance(int32 d)
{
	if (d < 0 || d > 64)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("a simhash distance is between 0 and 64, got %d", d)));
	return d;
}

Datum
simhash_distance_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(checked_distance(pg_strtoint32(PG_GETARG_CSTRING(0))));
}

Datum
simhash_distance_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);

	PG_RETURN_INT32(checked_distance((int32) pq_getmsgint(buf, 4)));
}

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
