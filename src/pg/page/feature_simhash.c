/*
 * simhash from features the caller already has: text[] (each element hashed with XXH3-64),
 * text[] with real[] weights, bigint[] (the 64-bit feature hashes themselves), and the aggregate
 * simhash_agg(feature text [, weight real]) for features stored one per row. Every form combines
 * with Charikar's rule (src/core/charikar.h).
 */
#include "simhash_type.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "charikar.h"

#include "utf8_text.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

PG_FUNCTION_INFO_V1(simhash_text_array);
PG_FUNCTION_INFO_V1(simhash_text_array_weighted);
PG_FUNCTION_INFO_V1(simhash_bigint_array);
PG_FUNCTION_INFO_V1(simhash_agg_transfn);
PG_FUNCTION_INFO_V1(simhash_agg_weighted_transfn);
PG_FUNCTION_INFO_V1(simhash_agg_combinefn);
PG_FUNCTION_INFO_V1(simhash_agg_serialfn);
PG_FUNCTION_INFO_V1(simhash_agg_deserialfn);
PG_FUNCTION_INFO_V1(simhash_agg_finalfn);

/* A text feature is hashed as UTF-8, so it hashes alike in databases of every encoding. */
static uint64
text_feature(text *t)
{
	size_t		len;
	const char *utf8 = text_utf8(t, &len);

	return XXH3_64bits(utf8, len);
}

static void
check_weight(double w)
{
	if (isnan(w) || isinf(w) || w < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("feature weights must be finite and not negative, got %g", w)));
}

static void
deconstruct(ArrayType *a, Oid elemtype, int elemlen, bool byval, char align,
			Datum **values, int *n, const char *what)
{
	bool	   *nulls;

	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be a one-dimensional array", what)));
	deconstruct_array(a, elemtype, elemlen, byval, align, values, &nulls, n);
	for (int i = 0; i < *n; i++)
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s must not contain NULL (element %d is NULL)", what, i + 1)));
}

Datum
simhash_text_array(PG_FUNCTION_ARGS)
{
	Datum	   *features;
	int			n;
	sh_charikar acc;

	deconstruct(PG_GETARG_ARRAYTYPE_P(0), TEXTOID, -1, false, TYPALIGN_INT, &features, &n, "features");
	sh_charikar_init(&acc);
	for (int i = 0; i < n; i++)
		sh_charikar_add(&acc, text_feature(DatumGetTextPP(features[i])), 1.0);
	PG_RETURN_SIMHASH(sh_charikar_result(&acc));
}

Datum
simhash_text_array_weighted(PG_FUNCTION_ARGS)
{
	Datum	   *features;
	Datum	   *weights;
	int			n,
				nw;
	sh_charikar acc;

	deconstruct(PG_GETARG_ARRAYTYPE_P(0), TEXTOID, -1, false, TYPALIGN_INT, &features, &n, "features");
	deconstruct(PG_GETARG_ARRAYTYPE_P(1), FLOAT4OID, sizeof(float4), true, TYPALIGN_INT, &weights, &nw, "weights");
	if (n != nw)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("features and weights must have the same length, got %d features and %d weights", n, nw)));
	sh_charikar_init(&acc);
	for (int i = 0; i < n; i++)
	{
		double		w = DatumGetFloat4(weights[i]);

		check_weight(w);
		sh_charikar_add(&acc, text_feature(DatumGetTextPP(features[i])), w);
	}
	PG_RETURN_SIMHASH(sh_charikar_result(&acc));
}

Datum
simhash_bigint_array(PG_FUNCTION_ARGS)
{
	Datum	   *features;
	int			n;
	sh_charikar acc;

	deconstruct(PG_GETARG_ARRAYTYPE_P(0), INT8OID, sizeof(int64), true, TYPALIGN_DOUBLE, &features, &n, "features");
	sh_charikar_init(&acc);
	for (int i = 0; i < n; i++)
		sh_charikar_add(&acc, (uint64) DatumGetInt64(features[i]), 1.0);
	PG_RETURN_SIMHASH(sh_charikar_result(&acc));
}

/* ---- simhash_agg: the state is the 64 Charikar sums, in the aggregate's memory context ---- */

static sh_charikar *
agg_state(FunctionCallInfo fcinfo)
{
	MemoryContext aggcontext;
	sh_charikar *acc;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		elog(ERROR, "simhash_agg called in a non-aggregate context");
	if (!PG_ARGISNULL(0))
		return (sh_charikar *) PG_GETARG_POINTER(0);
	acc = MemoryContextAlloc(aggcontext, sizeof(sh_charikar));
	sh_charikar_init(acc);
	return acc;
}

/* Rows whose feature (or weight) is NULL are skipped, as aggregates skip NULLs. */
Datum
simhash_agg_transfn(PG_FUNCTION_ARGS)
{
	sh_charikar *acc = agg_state(fcinfo);

	if (!PG_ARGISNULL(1))
		sh_charikar_add(acc, text_feature(PG_GETARG_TEXT_PP(1)), 1.0);
	PG_RETURN_POINTER(acc);
}

Datum
simhash_agg_weighted_transfn(PG_FUNCTION_ARGS)
{
	sh_charikar *acc = agg_state(fcinfo);

	if (!PG_ARGISNULL(1) && !PG_ARGISNULL(2))
	{
		double		w = PG_GETARG_FLOAT4(2);

		check_weight(w);
		sh_charikar_add(acc, text_feature(PG_GETARG_TEXT_PP(1)), w);
	}
	PG_RETURN_POINTER(acc);
}

Datum
simhash_agg_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	sh_charikar *acc;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		elog(ERROR, "simhash_agg_combinefn called in a non-aggregate context");
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	if (PG_ARGISNULL(0))
	{
		acc = MemoryContextAlloc(aggcontext, sizeof(sh_charikar));
		memcpy(acc, PG_GETARG_POINTER(1), sizeof(sh_charikar));
		PG_RETURN_POINTER(acc);
	}
	acc = (sh_charikar *) PG_GETARG_POINTER(0);
	sh_charikar_merge(acc, (sh_charikar *) PG_GETARG_POINTER(1));
	PG_RETURN_POINTER(acc);
}

Datum
simhash_agg_serialfn(PG_FUNCTION_ARGS)
{
	bytea	   *out = palloc(VARHDRSZ + sizeof(sh_charikar));

	SET_VARSIZE(out, VARHDRSZ + sizeof(sh_charikar));
	memcpy(VARDATA(out), PG_GETARG_POINTER(0), sizeof(sh_charikar));
	PG_RETURN_BYTEA_P(out);
}

Datum
simhash_agg_deserialfn(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	sh_charikar *acc = palloc(sizeof(sh_charikar));

	if (VARSIZE_ANY_EXHDR(in) != sizeof(sh_charikar))
		elog(ERROR, "corrupt simhash_agg state");
	memcpy(acc, VARDATA_ANY(in), sizeof(sh_charikar));
	PG_RETURN_POINTER(acc);
}

/* No rows (or only NULL features): no features, so 0. */
Datum
simhash_agg_finalfn(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_SIMHASH(0);
	PG_RETURN_SIMHASH(sh_charikar_result((sh_charikar *) PG_GETARG_POINTER(0)));
}
