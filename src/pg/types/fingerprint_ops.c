/*
 * What is computed from fingerprints: the difference of two pages (positions that differ), their
 * simhash, band keys for finding every pair within a difference, and conversion to and from the
 * 128 entries as bigint[].
 */
#include "fingerprints_type.h"
#include "simhash_type.h"

#include "catalog/pg_type.h"
#include "utils/array.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "charikar.h"

PG_FUNCTION_INFO_V1(fingerprint_diff);
PG_FUNCTION_INFO_V1(simhash_of_fingerprints);
PG_FUNCTION_INFO_V1(fingerprint_band_keys);
PG_FUNCTION_INFO_V1(fingerprints_from_bigint_array);
PG_FUNCTION_INFO_V1(fingerprint_entries);

Datum
fingerprint_diff(PG_FUNCTION_ARGS)
{
	const Fingerprints *a = PG_GETARG_FINGERPRINTS(0);
	const Fingerprints *b = PG_GETARG_FINGERPRINTS(1);
	int			differ = 0;

	for (int i = 0; i < FINGERPRINT_ENTRIES; i++)
		differ += a->entries[i] != b->entries[i];
	PG_RETURN_INT32(differ);
}

/* Charikar over the 128 entries as feature hashes of weight 1: equal to simhash(entries::bigint[]). */
Datum
simhash_of_fingerprints(PG_FUNCTION_ARGS)
{
	const Fingerprints *fp = PG_GETARG_FINGERPRINTS(0);
	sh_charikar acc;

	sh_charikar_init(&acc);
	for (int i = 0; i < FINGERPRINT_ENTRIES; i++)
		sh_charikar_add(&acc, fp->entries[i], 1.0);
	PG_RETURN_SIMHASH(sh_charikar_result(&acc));
}

/*
 * Pigeonhole: two fingerprints that differ in at most d positions agree on every entry of at least
 * one of d + 1 disjoint bands. Band b (0..d) holds positions floor(b*128/(d+1)) up to, not
 * including, floor((b+1)*128/(d+1)); its key is XXH3-64 of those entries written as little-endian
 * 8-byte integers, with seed d*128 + b, so keys of different bands or radii do not meet by design.
 */
Datum
fingerprint_band_keys(PG_FUNCTION_ARGS)
{
	const Fingerprints *fp = PG_GETARG_FINGERPRINTS(0);
	int32		d = PG_GETARG_INT32(1);
	unsigned char bytes[FINGERPRINT_ENTRIES * 8];
	Datum	   *keys;

	if (d < 0 || d >= FINGERPRINT_ENTRIES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fingerprint difference must be between 0 and 127, got %d", d)));
	for (int i = 0; i < FINGERPRINT_ENTRIES; i++)
		for (int j = 0; j < 8; j++)
			bytes[i * 8 + j] = (unsigned char) (fp->entries[i] >> (8 * j));
	keys = palloc(sizeof(Datum) * (d + 1));
	for (int b = 0; b <= d; b++)
	{
		int			from = b * FINGERPRINT_ENTRIES / (d + 1);
		int			to = (b + 1) * FINGERPRINT_ENTRIES / (d + 1);
		uint64		seed = (uint64) d * FINGERPRINT_ENTRIES + b;

		keys[b] = Int64GetDatum((int64) XXH3_64bits_withSeed(bytes + from * 8, (to - from) * 8, seed));
	}
	PG_RETURN_ARRAYTYPE_P(construct_array(keys, d + 1, INT8OID, sizeof(int64), true, TYPALIGN_DOUBLE));
}

Datum
fingerprints_from_bigint_array(PG_FUNCTION_ARGS)
{
	ArrayType  *a = PG_GETARG_ARRAYTYPE_P(0);
	Fingerprints *result = palloc(sizeof(Fingerprints));
	Datum	   *values;
	bool	   *nulls;
	int			n;

	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("fingerprint entries must be a one-dimensional array")));
	deconstruct_array(a, INT8OID, sizeof(int64), true, TYPALIGN_DOUBLE, &values, &nulls, &n);
	if (n != FINGERPRINT_ENTRIES)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("fingerprints have exactly 128 entries, got %d", n)));
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("fingerprint entries must not be NULL (element %d is NULL)", i + 1)));
		result->entries[i] = (uint64) DatumGetInt64(values[i]);
	}
	PG_RETURN_POINTER(result);
}

Datum
fingerprint_entries(PG_FUNCTION_ARGS)
{
	const Fingerprints *fp = PG_GETARG_FINGERPRINTS(0);
	Datum		values[FINGERPRINT_ENTRIES];

	for (int i = 0; i < FINGERPRINT_ENTRIES; i++)
		values[i] = Int64GetDatum((int64) fp->entries[i]);
	PG_RETURN_ARRAYTYPE_P(construct_array(values, FINGERPRINT_ENTRIES, INT8OID, sizeof(int64), true,
										  TYPALIGN_DOUBLE));
}
