/*
 * Text and binary forms of resemblance_sketch.
 *
 * Text: the 64 bytes as 128 hexadecimal digits, byte 0 first (lowercase out; either case and
 * surrounding white space in). Binary: the 64 bytes as they are.
 */
#include "resemblance_sketch_type.h"

#include "lib/stringinfo.h"
#include "libpq/pqformat.h"

PG_FUNCTION_INFO_V1(resemblance_sketch_in);
PG_FUNCTION_INFO_V1(resemblance_sketch_out);
PG_FUNCTION_INFO_V1(resemblance_sketch_recv);
PG_FUNCTION_INFO_V1(resemblance_sketch_send);

static int
hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

Datum
resemblance_sketch_in(PG_FUNCTION_ARGS)
{
	const char *input = PG_GETARG_CSTRING(0);
	ResemblanceSketch *result = palloc(sizeof(ResemblanceSketch));
	const char *p = input;
	const char *end;
	size_t		digits;

	while (is_space(*p))
		p++;
	end = p;
	while (*end && !is_space(*end))
		end++;
	digits = end - p;
	for (const char *q = end; *q; q++)
		if (!is_space(*q))
			digits = 0;			/* something after white space: refused below */
	for (size_t i = 0; digits == 2 * SH_RESEMBLANCE_BYTES && i < SH_RESEMBLANCE_BYTES; i++)
	{
		int			hi = hex_value(p[2 * i]);
		int			lo = hex_value(p[2 * i + 1]);

		if (hi < 0 || lo < 0)
		{
			digits = 0;
			break;
		}
		result->bytes[i] = (uint8) (hi << 4 | lo);
	}
	if (digits != 2 * SH_RESEMBLANCE_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type resemblance_sketch: \"%.40s%s\"", input,
						strlen(input) > 40 ? "..." : ""),
				 errhint("A resemblance sketch is written as 128 hexadecimal digits (64 bytes).")));
	PG_RETURN_POINTER(result);
}

Datum
resemblance_sketch_out(PG_FUNCTION_ARGS)
{
	const ResemblanceSketch *sketch = PG_GETARG_RESEMBLANCE_SKETCH(0);
	static const char digits[] = "0123456789abcdef";
	char	   *out = palloc(2 * SH_RESEMBLANCE_BYTES + 1);

	for (int i = 0; i < SH_RESEMBLANCE_BYTES; i++)
	{
		out[2 * i] = digits[sketch->bytes[i] >> 4];
		out[2 * i + 1] = digits[sketch->bytes[i] & 0xF];
	}
	out[2 * SH_RESEMBLANCE_BYTES] = '\0';
	PG_RETURN_CSTRING(out);
}

Datum
resemblance_sketch_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	ResemblanceSketch *result = palloc(sizeof(ResemblanceSketch));

	if (buf->len - buf->cursor != SH_RESEMBLANCE_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("a binary resemblance_sketch is %d bytes, got %d", SH_RESEMBLANCE_BYTES,
						buf->len - buf->cursor)));
	pq_copymsgbytes(buf, (char *) result->bytes, SH_RESEMBLANCE_BYTES);
	PG_RETURN_POINTER(result);
}

Datum
resemblance_sketch_send(PG_FUNCTION_ARGS)
{
	const ResemblanceSketch *sketch = PG_GETARG_RESEMBLANCE_SKETCH(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) sketch->bytes, SH_RESEMBLANCE_BYTES);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
