/*
 * Ordering of simhash: unsigned 64-bit order, so it agrees with the fixed-width hex text form.
 * Supports the btree and hash operator classes.
 */
#include "simhash_type.h"

#include "utils/sortsupport.h"

PG_FUNCTION_INFO_V1(simhash_eq);
PG_FUNCTION_INFO_V1(simhash_ne);
PG_FUNCTION_INFO_V1(simhash_lt);
PG_FUNCTION_INFO_V1(simhash_le);
PG_FUNCTION_INFO_V1(simhash_gt);
PG_FUNCTION_INFO_V1(simhash_ge);
PG_FUNCTION_INFO_V1(simhash_cmp);
PG_FUNCTION_INFO_V1(simhash_sortsupport);

#define SIMHASH_COMPARISON(name, op) \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_BOOL(PG_GETARG_SIMHASH(0) op PG_GETARG_SIMHASH(1)); \
}

SIMHASH_COMPARISON(simhash_eq, ==)
SIMHASH_COMPARISON(simhash_ne, !=)
SIMHASH_COMPARISON(simhash_lt, <)
SIMHASH_COMPARISON(simhash_le, <=)
SIMHASH_COMPARISON(simhash_gt, >)
SIMHASH_COMPARISON(simhash_ge, >=)

Datum
simhash_cmp(PG_FUNCTION_ARGS)
{
	uint64		a = PG_GETARG_SIMHASH(0);
	uint64		b = PG_GETARG_SIMHASH(1);

	PG_RETURN_INT32(a < b ? -1 : (a > b ? 1 : 0));
}

/* The Datum is the value itself, so the sort can compare Datums as unsigned integers directly. */
Datum
simhash_sortsupport(PG_FUNCTION_ARGS)
{
	SortSupport ssup = (SortSupport) PG_GETARG_POINTER(0);

	ssup->comparator = ssup_datum_unsigned_cmp;
	PG_RETURN_VOID();
}
