/*
 * hamming_ball: a query value "every simhash within radius r of center", the right-hand side of
 * the index-searchable operator  sh <@ hamming_ball(center, r)  and of hamming_within().
 *
 * The radius is stored clamped to -1..64: a negative radius contains nothing and a radius of 64 or
 * more contains everything, exactly what "hamming(sh, center) <= r" means for such r.
 */
#include "simhash_type.h"

#include <limits.h>

#include "hamming.h"
#include "hamming_ball.h"
#include "hex_bridge.h"
#include "libpq/pqformat.h"

PG_FUNCTION_INFO_V1(hamming_ball_in);
PG_FUNCTION_INFO_V1(hamming_ball_out);
PG_FUNCTION_INFO_V1(hamming_ball_recv);
PG_FUNCTION_INFO_V1(hamming_ball_send);
PG_FUNCTION_INFO_V1(hamming_ball_make);
PG_FUNCTION_INFO_V1(hamming_ball_center);
PG_FUNCTION_INFO_V1(hamming_ball_radius);
PG_FUNCTION_INFO_V1(simhash_in_ball);
PG_FUNCTION_INFO_V1(hamming_balls_near);
PG_FUNCTION_INFO_V1(ball_contains_simhash);
PG_FUNCTION_INFO_V1(hamming_within);

int32
hamming_ball_clamp_radius(int64 radius)
{
	if (radius < 0)
		return -1;
	if (radius > 64)
		return 64;
	return (int32) radius;
}

HammingBall *
hamming_ball_new(uint64 center, int64 radius)
{
	HammingBall *ball = palloc0(sizeof(HammingBall));

	ball->center = center;
	ball->radius = hamming_ball_clamp_radius(radius);
	return ball;
}

static void
raise_bad_ball(const char *input, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type hamming_ball: \"%s\"", input),
			 errdetail("%s", detail),
			 errhint("Write a hamming_ball as (center, radius), for example (00000000deadbeef, 5).")));
}

/* Text form: "(center, radius)" with center in simhash's text form. */
Datum
hamming_ball_in(PG_FUNCTION_ARGS)
{
	char	   *input = PG_GETARG_CSTRING(0);
	const char *p = input;
	const char *comma;
	const char *close;
	char	   *end;
	uint64		center;
	size_t		detail;
	long long	radius;

	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p != '(')
		raise_bad_ball(input, "It must start with \"(\".");
	p++;
	comma = strchr(p, ',');
	close = comma ? strchr(comma, ')') : NULL;
	if (comma == NULL || close == NULL)
		raise_bad_ball(input, "It must be \"(center, radius)\".");
	for (const char *rest = close + 1; *rest; rest++)
		if (!(*rest == ' ' || *rest == '\t' || *rest == '\n' || *rest == '\r'))
			raise_bad_ball(input, "Unexpected text after \")\".");
	if (sh_parse_hex(p, comma - p, &center, &detail) != SH_HEX_OK)
		raise_bad_ball(input, "The center is not a simhash (1 to 16 hex digits).");
	errno = 0;
	radius = strtoll(comma + 1, &end, 10);
	while (end < close && (*end == ' ' || *end == '\t'))
		end++;
	if (errno != 0 || end != close || end == comma + 1)
		raise_bad_ball(input, "The radius is not an integer.");
	PG_RETURN_POINTER(hamming_ball_new(center, radius < INT_MIN ? INT_MIN : radius));
}

Datum
hamming_ball_out(PG_FUNCTION_ARGS)
{
	HammingBall *ball = PG_GETARG_HAMMING_BALL(0);
	char		hex[17];

	sh_format_hex(ball->center, hex);
	PG_RETURN_CSTRING(psprintf("(%s,%d)", hex, ball->radius));
}

Datum
hamming_ball_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	uint64		center = (uint64) pq_getmsgint64(buf);
	int32		radius = pq_getmsgint(buf, 4);

	PG_RETURN_POINTER(hamming_ball_new(center, radius));
}

Datum
hamming_ball_send(PG_FUNCTION_ARGS)
{
	HammingBall *ball = PG_GETARG_HAMMING_BALL(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendint64(&buf, (int64) ball->center);
	pq_sendint32(&buf, ball->radius);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
hamming_ball_make(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(hamming_ball_new(PG_GETARG_SIMHASH(0), PG_GETARG_INT32(1)));
}

Datum
hamming_ball_center(PG_FUNCTION_ARGS)
{
	PG_RETURN_SIMHASH(PG_GETARG_HAMMING_BALL(0)->center);
}

Datum
hamming_ball_radius(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(PG_GETARG_HAMMING_BALL(0)->radius);
}

Datum
simhash_in_ball(PG_FUNCTION_ARGS)
{
	uint64		sh = PG_GETARG_SIMHASH(0);
	HammingBall *ball = PG_GETARG_HAMMING_BALL(1);

	PG_RETURN_BOOL(sh_hamming(sh, ball->center) <= ball->radius);
}

Datum
ball_contains_simhash(PG_FUNCTION_ARGS)
{
	HammingBall *ball = PG_GETARG_HAMMING_BALL(0);
	uint64		sh = PG_GETARG_SIMHASH(1);

	PG_RETURN_BOOL(sh_hamming(sh, ball->center) <= ball->radius);
}

/* hamming_within(a, b, k) = hamming(a, b) <= k, for any integer k. */
Datum
hamming_within(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(sh_hamming(PG_GETARG_SIMHASH(0), PG_GETARG_SIMHASH(1)) <= PG_GETARG_INT32(2));
}

/*
 * a && b: each center lies in the other ball, i.e. the centers are within the smaller radius.
 * Commutative, so it can declare "no two rows within k bits" as an exclusion constraint over
 * hamming_ball(sh, k).
 */
Datum
hamming_balls_near(PG_FUNCTION_ARGS)
{
	HammingBall *a = PG_GETARG_HAMMING_BALL(0);
	HammingBall *b = PG_GETARG_HAMMING_BALL(1);

	PG_RETURN_BOOL(sh_hamming(a->center, b->center) <= Min(a->radius, b->radius));
}
