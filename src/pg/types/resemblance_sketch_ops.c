/*
 * resemblance(a, b), the confirming stage's estimate of two pages' shingle resemblance, and
 * equality of resemblance sketches.
 */
#include "resemblance_sketch_type.h"

PG_FUNCTION_INFO_V1(resemblance_sketch_eq);
PG_FUNCTION_INFO_V1(resemblance_sketch_ne);
PG_FUNCTION_INFO_V1(resemblance_sketch_resemblance);

Datum
resemblance_sketch_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(memcmp(PG_GETARG_RESEMBLANCE_SKETCH(0), PG_GETARG_RESEMBLANCE_SKETCH(1),
						  SH_RESEMBLANCE_BYTES) == 0);
}

Datum
resemblance_sketch_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(memcmp(PG_GETARG_RESEMBLANCE_SKETCH(0), PG_GETARG_RESEMBLANCE_SKETCH(1),
						  SH_RESEMBLANCE_BYTES) != 0);
}

Datum
resemblance_sketch_resemblance(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(sh_resemblance(PG_GETARG_RESEMBLANCE_SKETCH(0)->bytes,
									PG_GETARG_RESEMBLANCE_SKETCH(1)->bytes));
}
