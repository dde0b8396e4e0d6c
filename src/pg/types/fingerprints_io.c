/*
 * Text and binary forms of fingerprints, equality, ordering and hashing.
 *
 * Text: '{' then 128 entries separated by ',' then '}', each entry written as a simhash is
 * (16 lowercase hex digits out; 1 to 16 hex digits, optional 0x, surrounding white space in).
 * Binary: the 128 entries as 8-byte integers in network byte order.
 */
#include "fingerprints_type.h"

#include "common/hashfn.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"

#include "hex_bridge.h"

PG_FUNCTION_INFO_V1(fingerprints_in);
PG_FUNCTION_INFO_V1(fingerprints_out);
PG_FUNCTION_INFO_V1(fingerprints_recv);
PG_FUNCTION_INFO_V1(fingerprints_send);
PG_FUNCTION_INFO_V1(fingerprints_cmp);
PG_FUNCTION_INFO_V1(fingerprints_eq);
PG_FUNCTION_INFO_V1(fingerprints_ne);
PG_FUNCTION_INFO_V1(fingerprints_lt);
PG_FUNCTION_INFO_V1(fingerprints_le);
PG_FUNCTION_INFO_V1(fingerprints_gt);
PG_FUNCTION_INFO_V1(fingerprints_ge);
PG_FUNCTION_INFO_V1(fingerprints_hash);
PG_FUNCTION_INFO_V1(fingerprints_hash_extended);

#define FORMAT_HINT "Fingerprints are written {e1,e2,...,e128}: 128 entries of 1 to 16 hexadecimal digits."

static void
syntax_error(const char *input, const char *detail_fmt, int arg)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type fingerprints: \"%.40s%s\"", input,
					strlen(input) > 40 ? "..." : ""),
			 errdetail_internal(detail_fmt, arg),
			 errhint(FORMAT_HINT)));
}

static const char *
skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v')
		p++;
	return p;
}

Datum
fingerprints_in(PG_FUNCTION_ARGS)
{
	const char *input = PG_GETARG_CSTRING(0);
	Fingerprints *result = palloc(sizeof(Fingerprints));
	const char *p = skip_space(input);
	int			n = 0;

	if (*p != '{')
		syntax_error(input, "The value must start with \"{\".", 0);
	p++;
	for (;;)
	{
		const char *end = p + strcspn(p, ",}");
		uint64		value;
		size_t		detail;

		if (*end == '\0')
			syntax_error(input, "The closing \"}\" is missing.", 0);
		if (n == FINGERPRINT_ENTRIES)
			syntax_error(input, "There are more than %d entries.", FINGERPRINT_ENTRIES);
		if (sh_parse_hex(p, end - p, &value, &detail) != SH_HEX_OK)
			syntax_error(input, "Entry %d is not 1 to 16 hexadecimal digits.", n + 1);
		result->entries[n++] = value;
		p = end + 1;
		if (*end == '}')
			break;
	}
	if (n != FINGERPRINT_ENTRIES)
		syntax_error(input, "There are %d entries; fingerprints have exactly 128.", n);
	if (*skip_space(p) != '\0')
		syntax_error(input, "Unexpected characters after the closing \"}\".", 0);
	PG_RETURN_POINTER(result);
}

Datum
fingerprints_out(PG_FUNCTION_ARGS)
{
	const Fingerprints *fp = PG_GETARG_FINGERPRINTS(0);
	char	   *out = palloc(FINGERPRINT_ENTRIES * 17 + 2);
	char	   *p = out;

	*p++ = '{';
	for (int i = 0; i < FINGERPRINT_ENTRIES; i++)
	{
		sh_format_hex(fp->entries[i], p);
		p += 16;
		*p++ = i + 1 < FINGERPRINT_ENTRIES ? ',' : '}';
	}
	*p = '\0';
	PG_RETURN_CSTRING(out);
}

Datum
fingerprints_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	Fingerprints *result = palloc(sizeof(Fingerprints));

	for (int i = 0; i < FINGERPRINT_ENTRIES; i++)
		result->entries[i] = (uint64) pq_getmsgint64(buf);
	PG_RETURN_POINTER(result);
}

Datum
fingerprints_send(PG_FUNCTION_ARGS)
{
	const Fingerprints *fp = PG_GETARG_FINGERPRINTS(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	for (int i = 0; i < FINGERPRINT_ENTRIES; i++)
		pq_sendint64(&buf, (int64) fp->entries[i]);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* Entry by entry, each as an unsigned number: an arbitrary but total order, for btree. */
static int
compare(const Fingerprints *a, const Fingerprints *b)
{
	for (int i = 0; i < FINGERPRINT_ENTRIES; i++)
		if (a->entries[i] != b->entries[i])
			return a->entries[i] < b->entries[i] ? -1 : 1;
	return 0;
}

#define COMPARE_ARGS compare(PG_GETARG_FINGERPRINTS(0), PG_GETARG_FINGERPRINTS(1))

Datum
fingerprints_cmp(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(COMPARE_ARGS);
}

Datum
fingerprints_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(COMPARE_ARGS == 0);
}

Datum
fingerprints_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(COMPARE_ARGS != 0);
}

Datum
fingerprints_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(COMPARE_ARGS < 0);
}

Datum
fingerprints_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(COMPARE_ARGS <= 0);
}

Datum
fingerprints_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(COMPARE_ARGS > 0);
}

Datum
fingerprints_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(COMPARE_ARGS >= 0);
}

Datum
fingerprints_hash(PG_FUNCTION_ARGS)
{
	return hash_any((const unsigned char *) PG_GETARG_FINGERPRINTS(0), sizeof(Fingerprints));
}

Datum
fingerprints_hash_extended(PG_FUNCTION_ARGS)
{
	return hash_any_extended((const unsigned char *) PG_GETARG_FINGERPRINTS(0), sizeof(Fingerprints),
							 PG_GETARG_INT64(1));
}
