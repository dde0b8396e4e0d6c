/*
 * simhash_check_source(source): the C functions' read-only check of a source query, callable from
 * the PL/pgSQL analysis functions so that every function refuses the same sources the same way.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "source_query.h"

PG_FUNCTION_INFO_V1(simhash_check_source);

Datum
simhash_check_source(PG_FUNCTION_ARGS)
{
	source_query_check(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	PG_RETURN_VOID();
}
