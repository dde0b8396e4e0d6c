/*
 * resemblance(a, b), the confirming stage's estimate of two pages' shingle resemblance, and what
 * the btree and hash operator classes of resemblance sketches need: equality, the order of the 64
 * bytes as unsigned bytes (memcmp; the same as the order of the hexadecimal text form, byte 0
 * first), and a hash of the 64 bytes. The order means nothing about resemblance; it makes DISTINCT,
 * GROUP BY, UNION, ORDER BY, merge and hash joins and unique indexes work on sketches.
 */
#include "resemblance_sketch_type.h"

#include "common/hashfn.h"

PG_FUNCTION_INFO_V1(resemblance_sketch_eq);
PG_FUNCTION_INFO_V1(resemblance_sketch_ne);
PG_FUNCTION_INFO_V1(resemblance_sketch_lt);
PG_FUNCTION_INFO_V1(resemblance_sketch_le);
PG_FUNCTION_INFO_V1(resemblance_sketch_gt);
PG_FUNCTION_INFO_V1(resemblance_sketch_ge);
PG_FUNCTION_INFO_V1(resemblance_sketch_cmp);
PG_FUNCTION_INFO_V1(resemblance_sketch_hash);
PG_FUNCTION_INFO_V1(resemblance_sketch_hash_extended);
PG_FUNCTION_INFO_V1(resemblance_sketch_resemblance);

static int
compare_args(FunctionCallInfo fcinfo)
{
	return memcmp(PG_GETARG_RESEMBLANCE_SKETCH(0)->bytes, PG_GETARG_RESEMBLANCE_SKETCH(1)->bytes,
				  SH_RESEMBLANCE_BYTES);
}

Datum
resemblance_sketch_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_args(fcinfo) == 0);
}

Datum
resemblance_sketch_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_args(fcinfo) != 0);
}

Datum
resemblance_sketch_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_args(fcinfo) < 0);
}

Datum
resemblance_sketch_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_args(fcinfo) <= 0);
}

Datum
resemblance_sketch_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_args(fcinfo) > 0);
}

Datum
resemblance_sketch_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_args(fcinfo) >= 0);
}

/* btree support: -1, 0 or 1. */
Datum
resemblance_sketch_cmp(PG_FUNCTION_ARGS)
{
	int			c = compare_args(fcinfo);

	PG_RETURN_INT32((c > 0) - (c < 0));
}

Datum
resemblance_sketch_hash(PG_FUNCTION_ARGS)
{
	return hash_any(PG_GETARG_RESEMBLANCE_SKETCH(0)->bytes, SH_RESEMBLANCE_BYTES);
}

Datum
resemblance_sketch_hash_extended(PG_FUNCTION_ARGS)
{
	return hash_any_extended(PG_GETARG_RESEMBLANCE_SKETCH(0)->bytes, SH_RESEMBLANCE_BYTES,
							 PG_GETARG_INT64(1));
}

Datum
resemblance_sketch_resemblance(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(sh_resemblance(PG_GETARG_RESEMBLANCE_SKETCH(0)->bytes,
									PG_GETARG_RESEMBLANCE_SKETCH(1)->bytes));
}
