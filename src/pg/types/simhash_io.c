/*
 * Text and binary forms of simhash.
 */
#include "simhash_type.h"

#include "libpq/pqformat.h"

#include "hex_bridge.h"

PG_FUNCTION_INFO_V1(simhash_in);
PG_FUNCTION_INFO_V1(simhash_out);
PG_FUNCTION_INFO_V1(simhash_recv);
PG_FUNCTION_INFO_V1(simhash_send);

/* Parses text input; raises 22P02 quoting the input and saying what was wrong. */
static uint64
parse_or_raise(const char *str)
{
	uint64		value;
	size_t		detail;
	sh_hex_status status = sh_parse_hex(str, strlen(str), &value, &detail);
	const char *hint = "A simhash is 1 to 16 hexadecimal digits, optionally prefixed by 0x.";

	switch (status)
	{
		case SH_HEX_OK:
			return value;
		case SH_HEX_EMPTY:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type simhash: \"%s\"", str),
					 errdetail("The input is empty."), errhint("%s", hint)));
			break;
		case SH_HEX_NO_DIGITS_AFTER_PREFIX:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type simhash: \"%s\"", str),
					 errdetail("No hexadecimal digits follow the 0x prefix."), errhint("%s", hint)));
			break;
		case SH_HEX_TOO_MANY_DIGITS:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type simhash: \"%s\"", str),
					 errdetail("The value has %zu significant hexadecimal digits; at most 16 fit in 64 bits.",
							   detail),
					 errhint("%s", hint)));
			break;
		case SH_HEX_BAD_CHARACTER:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type simhash: \"%s\"", str),
					 errdetail("Unexpected character at position %zu.", detail + 1),
					 errhint("%s", hint)));
			break;
	}
	pg_unreachable();
}

Datum
simhash_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_SIMHASH(parse_or_raise(PG_GETARG_CSTRING(0)));
}

Datum
simhash_out(PG_FUNCTION_ARGS)
{
	char	   *out = palloc(17);

	sh_format_hex(PG_GETARG_SIMHASH(0), out);
	PG_RETURN_CSTRING(out);
}

/* Binary form: the 8 bytes in network byte order, like int8. */
Datum
simhash_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);

	PG_RETURN_SIMHASH((uint64) pq_getmsgint64(buf));
}

Datum
simhash_send(PG_FUNCTION_ARGS)
{
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendint64(&buf, (int64) PG_GETARG_SIMHASH(0));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
