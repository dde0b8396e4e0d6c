/*
 * GIN operator class simhash_mih_ops: exact radius search by multi-index hashing.
 *
 * Each hash is indexed under one key per block (see src/core/mih_blocks.h). A query
 * sh <@ hamming_ball(q, k) looks up, on each block j, the keys of all block values within t_j bits
 * of q's block, with the fewest keys such that sum_j (t_j + 1) > k; by the pigeonhole principle
 * every hash within k is under one of them. GIN returns candidates, and the executor's recheck of
 * <@ keeps exactly the answers.
 * When the enumeration would be too large (large k), the scan reads the whole index instead:
 * slower, never wrong.
 */
#include "simhash_type.h"

#include "access/gin.h"
#include "access/reloptions.h"

#include "hamming_ball.h"
#include "mih_blocks.h"

#define STRATEGY_IN_BALL		1
#define DEFAULT_BLOCKS			3
#define MAX_QUERY_KEYS			65536

typedef struct GinMihOptions
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	int			blocks;
} GinMihOptions;

PG_FUNCTION_INFO_V1(simhash_mih_extract_value);
PG_FUNCTION_INFO_V1(simhash_mih_extract_query);
PG_FUNCTION_INFO_V1(simhash_mih_consistent);
PG_FUNCTION_INFO_V1(simhash_mih_triconsistent);
PG_FUNCTION_INFO_V1(simhash_mih_options);

static int
blocks_of(FunctionCallInfo fcinfo)
{
	return PG_HAS_OPCLASS_OPTIONS() ? ((GinMihOptions *) PG_GET_OPCLASS_OPTIONS())->blocks : DEFAULT_BLOCKS;
}

Datum
simhash_mih_options(PG_FUNCTION_ARGS)
{
	local_relopts *relopts = (local_relopts *) PG_GETARG_POINTER(0);

	init_local_reloptions(relopts, sizeof(GinMihOptions));
	add_local_int_reloption(relopts, "blocks",
							"number of blocks the 64 bits are split into (3..8)",
							DEFAULT_BLOCKS, SH_MIH_MIN_BLOCKS, SH_MIH_MAX_BLOCKS,
							offsetof(GinMihOptions, blocks));
	PG_RETURN_VOID();
}

Datum
simhash_mih_extract_value(PG_FUNCTION_ARGS)
{
	uint64		h = PG_GETARG_SIMHASH(0);
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	int			m = blocks_of(fcinfo);
	Datum	   *keys = palloc(sizeof(Datum) * m);

	for (int b = 0; b < m; b++)
		keys[b] = Int32GetDatum(sh_mih_key(b, sh_mih_block_value(h, m, b)));
	*nkeys = m;
	PG_RETURN_POINTER(keys);
}

Datum
simhash_mih_extract_query(PG_FUNCTION_ARGS)
{
	HammingBall *ball = DatumGetHammingBall(PG_GETARG_DATUM(0));
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	StrategyNumber strategy = PG_GETARG_UINT16(2);
	int32	   *search_mode = (int32 *) PG_GETARG_POINTER(6);
	int			m = blocks_of(fcinfo);
	int			levels[SH_MIH_MAX_BLOCKS];
	double		total;
	int32	   *keys;
	int			n = 0;
	Datum	   *datums;

	if (strategy != STRATEGY_IN_BALL)
		elog(ERROR, "simhash_mih_extract_query: unrecognized strategy number %d", strategy);
	*nkeys = 0;
	if (ball->radius < 0)
		PG_RETURN_POINTER(NULL);	/* no keys in default mode: nothing matches */
	if (ball->radius >= 64)
	{
		*search_mode = GIN_SEARCH_MODE_ALL;
		PG_RETURN_POINTER(NULL);
	}

	/* Each key is one posting list to read: count keys, not rows. */
	total = sh_mih_radius_levels(m, ball->radius, 1.0, 0.0, levels);
	if (total > MAX_QUERY_KEYS)
	{
		*search_mode = GIN_SEARCH_MODE_ALL;
		PG_RETURN_POINTER(NULL);
	}

	keys = palloc(sizeof(int32) * (size_t) total);
	for (int b = 0; b < m; b++)
		if (levels[b] >= 0)
			n = sh_mih_neighbour_keys(b, sh_mih_block_len(m, b), sh_mih_block_value(ball->center, m, b),
									  levels[b], 0, keys, n);
	datums = palloc(sizeof(Datum) * n);
	for (int i = 0; i < n; i++)
		datums[i] = Int32GetDatum(keys[i]);
	*nkeys = n;
	PG_RETURN_POINTER(datums);
}

/* Any key found makes a candidate; the distance itself is checked on the heap tuple. */
Datum
simhash_mih_consistent(PG_FUNCTION_ARGS)
{
	bool	   *check = (bool *) PG_GETARG_POINTER(0);
	int32		nkeys = PG_GETARG_INT32(3);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(5);

	*recheck = true;
	if (nkeys == 0)
		PG_RETURN_BOOL(true);	/* full-index scan */
	for (int i = 0; i < nkeys; i++)
		if (check[i])
			PG_RETURN_BOOL(true);
	PG_RETURN_BOOL(false);
}

Datum
simhash_mih_triconsistent(PG_FUNCTION_ARGS)
{
	GinTernaryValue *check = (GinTernaryValue *) PG_GETARG_POINTER(0);
	int32		nkeys = PG_GETARG_INT32(3);

	if (nkeys == 0)
		PG_RETURN_GIN_TERNARY_VALUE(GIN_MAYBE);
	for (int i = 0; i < nkeys; i++)
		if (check[i] != GIN_FALSE)
			PG_RETURN_GIN_TERNARY_VALUE(GIN_MAYBE);
	PG_RETURN_GIN_TERNARY_VALUE(GIN_FALSE);
}
