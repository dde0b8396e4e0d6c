/*
 * Bit operators on simhash values: xor (#), and (&), or (|), not (~), popcount.
 */
#include "simhash_type.h"

#include "hamming.h"

PG_FUNCTION_INFO_V1(simhash_xor);
PG_FUNCTION_INFO_V1(simhash_and);
PG_FUNCTION_INFO_V1(simhash_or);
PG_FUNCTION_INFO_V1(simhash_not);
PG_FUNCTION_INFO_V1(simhash_popcount);

Datum
simhash_xor(PG_FUNCTION_ARGS)
{
	PG_RETURN_SIMHASH(PG_GETARG_SIMHASH(0) ^ PG_GETARG_SIMHASH(1));
}

Datum
simhash_and(PG_FUNCTION_ARGS)
{
	PG_RETURN_SIMHASH(PG_GETARG_SIMHASH(0) & PG_GETARG_SIMHASH(1));
}

Datum
simhash_or(PG_FUNCTION_ARGS)
{
	PG_RETURN_SIMHASH(PG_GETARG_SIMHASH(0) | PG_GETARG_SIMHASH(1));
}

Datum
simhash_not(PG_FUNCTION_ARGS)
{
	PG_RETURN_SIMHASH(~PG_GETARG_SIMHASH(0));
}

Datum
simhash_popcount(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(sh_popcount64(PG_GETARG_SIMHASH(0)));
}
