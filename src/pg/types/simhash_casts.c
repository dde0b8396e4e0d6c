/*
 * Conversions between simhash and bigint, bit(64) and bytea. All keep the same 64 bits;
 * bit(64) and bytea list them most significant first, as int8::bit(64) and int8send do.
 */
#include "simhash_type.h"

#include "pg_compat.h"

#include "utils/varbit.h"

PG_FUNCTION_INFO_V1(simhash_from_bigint);
PG_FUNCTION_INFO_V1(simhash_to_bigint);
PG_FUNCTION_INFO_V1(simhash_from_bit);
PG_FUNCTION_INFO_V1(simhash_to_bit);
PG_FUNCTION_INFO_V1(simhash_from_bytea);
PG_FUNCTION_INFO_V1(simhash_to_bytea);

Datum
simhash_from_bigint(PG_FUNCTION_ARGS)
{
	PG_RETURN_SIMHASH((uint64) PG_GETARG_INT64(0));
}

Datum
simhash_to_bigint(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) PG_GETARG_SIMHASH(0));
}

Datum
simhash_from_bit(PG_FUNCTION_ARGS)
{
	VarBit	   *bits = PG_GETARG_VARBIT_P(0);
	const uint8 *p = VARBITS(bits);
	uint64		value = 0;

	if (VARBITLEN(bits) != 64)
		ereport(ERROR,
				(errcode(ERRCODE_STRING_DATA_LENGTH_MISMATCH),
				 errmsg("cannot convert a bit string of length %d to simhash", VARBITLEN(bits)),
				 errdetail("A simhash is exactly 64 bits.")));
	for (int i = 0; i < 8; i++)
		value = (value << 8) | p[i];
	PG_RETURN_SIMHASH(value);
}

Datum
simhash_to_bit(PG_FUNCTION_ARGS)
{
	uint64		value = PG_GETARG_SIMHASH(0);
	VarBit	   *bits = (VarBit *) palloc0(VARBITTOTALLEN(64));
	uint8	   *p = VARBITS(bits);

	SET_VARSIZE(bits, VARBITTOTALLEN(64));
	VARBITLEN(bits) = 64;
	for (int i = 7; i >= 0; i--)
	{
		p[i] = (uint8) (value & 0xFF);
		value >>= 8;
	}
	PG_RETURN_VARBIT_P(bits);
}

Datum
simhash_from_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *bytes = PG_GETARG_BYTEA_PP(0);
	const unsigned char *p = (const unsigned char *) VARDATA_ANY(bytes);
	uint64		value = 0;

	if (VARSIZE_ANY_EXHDR(bytes) != 8)
		ereport(ERROR,
				(errcode(ERRCODE_STRING_DATA_LENGTH_MISMATCH),
				 errmsg("cannot convert a bytea of %zu bytes to simhash",
						(size_t) VARSIZE_ANY_EXHDR(bytes)),
				 errdetail("A simhash is exactly 8 bytes, most significant first.")));
	for (int i = 0; i < 8; i++)
		value = (value << 8) | p[i];
	PG_RETURN_SIMHASH(value);
}

Datum
simhash_to_bytea(PG_FUNCTION_ARGS)
{
	uint64		value = PG_GETARG_SIMHASH(0);
	bytea	   *bytes = (bytea *) palloc(VARHDRSZ + 8);
	unsigned char *p = (unsigned char *) VARDATA(bytes);

	SET_VARSIZE(bytes, VARHDRSZ + 8);
	for (int i = 7; i >= 0; i--)
	{
		p[i] = (unsigned char) (value & 0xFF);
		value >>= 8;
	}
	PG_RETURN_BYTEA_P(bytes);
}
