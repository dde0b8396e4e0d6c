/*
 * GiST operator class for simhash: exact radius search (<@ hamming_ball) and exact nearest
 * neighbours (ORDER BY sh <-> q).
 *
 * A key summarises a subtree by the AND and the OR of its hashes. Bits where they agree are the
 * same in every hash below, so the number of those bits that differ from the query is a true lower
 * bound of the Hamming distance to anything in the subtree. At a leaf AND = OR = the hash, the
 * bound is the exact distance, and no recheck is needed. Splits and the sorted build group hashes
 * that share bits, so subtrees fix many bits and the bound prunes.
 */
#include "simhash_type.h"

#include "access/gist.h"
#include "access/stratnum.h"
#include "utils/sortsupport.h"

#include "hamming.h"
#include "hamming_ball.h"

#define STRATEGY_IN_BALL	1	/* sh <@ hamming_ball */
#define STRATEGY_DISTANCE	15	/* sh <-> simhash */

typedef struct SimhashGistKey
{
	uint64		and_bits;
	uint64		or_bits;
} SimhashGistKey;

#define DatumGetGistKey(d)	((SimhashGistKey *) DatumGetPointer(d))

PG_FUNCTION_INFO_V1(simhash_gist_key_in);
PG_FUNCTION_INFO_V1(simhash_gist_key_out);
PG_FUNCTION_INFO_V1(simhash_gist_consistent);
PG_FUNCTION_INFO_V1(simhash_gist_distance);
PG_FUNCTION_INFO_V1(simhash_gist_union);
PG_FUNCTION_INFO_V1(simhash_gist_compress);
PG_FUNCTION_INFO_V1(simhash_gist_fetch);
PG_FUNCTION_INFO_V1(simhash_gist_penalty);
PG_FUNCTION_INFO_V1(simhash_gist_picksplit);
PG_FUNCTION_INFO_V1(simhash_gist_same);
PG_FUNCTION_INFO_V1(simhash_gist_sortsupport);

static inline uint64
varying_bits(const SimhashGistKey *key)
{
	return key->and_bits ^ key->or_bits;
}

/* Lower bound of the distance from q to every hash summarised by key (exact at a leaf). */
static inline int
distance_lower_bound(const SimhashGistKey *key, uint64 q)
{
	return sh_popcount64((q ^ key->and_bits) & ~varying_bits(key));
}

static SimhashGistKey *
new_key(uint64 and_bits, uint64 or_bits)
{
	SimhashGistKey *key = palloc(sizeof(SimhashGistKey));

	key->and_bits = and_bits;
	key->or_bits = or_bits;
	return key;
}

/* The key type is internal to the index; it has no text form. */
Datum
simhash_gist_key_in(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot accept a value of type simhash_gist_key")));
	PG_RETURN_VOID();
}

Datum
simhash_gist_key_out(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot display a value of type simhash_gist_key")));
	PG_RETURN_VOID();
}

Datum
simhash_gist_consistent(PG_FUNCTION_ARGS)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	StrategyNumber strategy = (StrategyNumber) PG_GETARG_UINT16(2);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(4);
	SimhashGistKey *key = DatumGetGistKey(entry->key);
	HammingBall *ball;

	if (strategy != STRATEGY_IN_BALL)
		elog(ERROR, "simhash_gist_consistent: unrecognized strategy number %d", strategy);
	ball = DatumGetHammingBall(PG_GETARG_DATUM(1));
	*recheck = false;
	PG_RETURN_BOOL(distance_lower_bound(key, ball->center) <= ball->radius);
}

Datum
simhash_gist_distance(PG_FUNCTION_ARGS)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	StrategyNumber strategy = (StrategyNumber) PG_GETARG_UINT16(2);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(4);

	if (strategy != STRATEGY_DISTANCE)
		elog(ERROR, "simhash_gist_distance: unrecognized strategy number %d", strategy);
	*recheck = false;
	PG_RETURN_FLOAT8((float8) distance_lower_bound(DatumGetGistKey(entry->key),
												   PG_GETARG_SIMHASH(1)));
}

Datum
simhash_gist_union(PG_FUNCTION_ARGS)
{
	GistEntryVector *entries = (GistEntryVector *) PG_GETARG_POINTER(0);
	int		   *size = (int *) PG_GETARG_POINTER(1);
	uint64		and_bits = ~UINT64CONST(0);
	uint64		or_bits = 0;

	for (int i = 0; i < entries->n; i++)
	{
		SimhashGistKey *key = DatumGetGistKey(entries->vector[i].key);

		and_bits &= key->and_bits;
		or_bits |= key->or_bits;
	}
	*size = sizeof(SimhashGistKey);
	PG_RETURN_POINTER(new_key(and_bits, or_bits));
}

Datum
simhash_gist_compress(PG_FUNCTION_ARGS)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	GISTENTRY  *result;
	uint64		h;

	if (!entry->leafkey)
		PG_RETURN_POINTER(entry);
	h = DatumGetSimhash(entry->key);
	result = palloc(sizeof(GISTENTRY));
	gistentryinit(*result, PointerGetDatum(new_key(h, h)), entry->rel, entry->page, entry->offset,
				  false);
	PG_RETURN_POINTER(result);
}

/* Index-only scans: a leaf key holds the hash itself. */
Datum
simhash_gist_fetch(PG_FUNCTION_ARGS)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	GISTENTRY  *result = palloc(sizeof(GISTENTRY));

	gistentryinit(*result, SimhashGetDatum(DatumGetGistKey(entry->key)->and_bits), entry->rel,
				  entry->page, entry->offset, false);
	PG_RETURN_POINTER(result);
}

/*
 * Bits that would start varying in the subtree if the new entry joined it; ties prefer the
 * subtree with fewer varying bits already (the tighter one).
 */
Datum
simhash_gist_penalty(PG_FUNCTION_ARGS)
{
	GISTENTRY  *orig = (GISTENTRY *) PG_GETARG_POINTER(0);
	GISTENTRY  *add = (GISTENTRY *) PG_GETARG_POINTER(1);
	float	   *penalty = (float *) PG_GETARG_POINTER(2);
	SimhashGistKey *o = DatumGetGistKey(orig->key);
	SimhashGistKey *a = DatumGetGistKey(add->key);
	uint64		before = varying_bits(o);
	uint64		after = (o->and_bits & a->and_bits) ^ (o->or_bits | a->or_bits);

	*penalty = (float) sh_popcount64(after & ~before) + sh_popcount64(before) / 128.0f;
	PG_RETURN_POINTER(penalty);
}

/*
 * Split on the bit that divides the entries most evenly among those that fix it (a trie step),
 * so each half fixes one more bit; entries where that bit varies go to the smaller side.
 */
Datum
simhash_gist_picksplit(PG_FUNCTION_ARGS)
{
	GistEntryVector *entries = (GistEntryVector *) PG_GETARG_POINTER(0);
	GIST_SPLITVEC *v = (GIST_SPLITVEC *) PG_GETARG_POINTER(1);
	OffsetNumber maxoff = entries->n - 1;
	int			ones[64] = {0};
	int			zeros[64] = {0};
	int			best_bit = -1;
	int			best_score = -1;
	uint64		left_and = ~UINT64CONST(0),
				left_or = 0,
				right_and = ~UINT64CONST(0),
				right_or = 0;

	for (OffsetNumber i = FirstOffsetNumber; i <= maxoff; i = OffsetNumberNext(i))
	{
		SimhashGistKey *key = DatumGetGistKey(entries->vector[i].key);
		uint64		fixed = ~varying_bits(key);

		for (int b = 0; b < 64; b++)
		{
			if (!((fixed >> b) & 1))
				continue;
			if ((key->and_bits >> b) & 1)
				ones[b]++;
			else
				zeros[b]++;
		}
	}
	for (int b = 0; b < 64; b++)
	{
		int			score = Min(ones[b], zeros[b]);

		if (score > best_score)
		{
			best_score = score;
			best_bit = b;
		}
	}

	v->spl_left = palloc(entries->n * sizeof(OffsetNumber));
	v->spl_right = palloc(entries->n * sizeof(OffsetNumber));
	v->spl_nleft = v->spl_nright = 0;
	for (OffsetNumber i = FirstOffsetNumber; i <= maxoff; i = OffsetNumberNext(i))
	{
		SimhashGistKey *key = DatumGetGistKey(entries->vector[i].key);
		bool		go_right;

		if (best_score == 0)	/* no bit separates anything: halve by position */
			go_right = i > maxoff / 2;
		else if ((varying_bits(key) >> best_bit) & 1)
			go_right = v->spl_nright < v->spl_nleft;
		else
			go_right = (key->and_bits >> best_bit) & 1;

		if (go_right)
		{
			v->spl_right[v->spl_nright++] = i;
			right_and &= key->and_bits;
			right_or |= key->or_bits;
		}
		else
		{
			v->spl_left[v->spl_nleft++] = i;
			left_and &= key->and_bits;
			left_or |= key->or_bits;
		}
	}
	v->spl_ldatum = PointerGetDatum(new_key(left_and, left_or));
	v->spl_rdatum = PointerGetDatum(new_key(right_and, right_or));
	PG_RETURN_POINTER(v);
}

Datum
simhash_gist_same(PG_FUNCTION_ARGS)
{
	SimhashGistKey *a = DatumGetGistKey(PG_GETARG_DATUM(0));
	SimhashGistKey *b = DatumGetGistKey(PG_GETARG_DATUM(1));
	bool	   *result = (bool *) PG_GETARG_POINTER(2);

	*result = a->and_bits == b->and_bits && a->or_bits == b->or_bits;
	PG_RETURN_POINTER(result);
}

/*
 * Sorted build: leaf keys in unsigned order of their hash, so each leaf page gets a run of hashes
 * sharing their high bits. The abbreviated key is the hash itself, so the sort never dereferences.
 */
static int
gist_key_cmp(Datum a, Datum b, SortSupport ssup)
{
	uint64		x = DatumGetGistKey(a)->and_bits;
	uint64		y = DatumGetGistKey(b)->and_bits;

	return x < y ? -1 : (x > y ? 1 : 0);
}

static Datum
gist_key_abbrev_convert(Datum original, SortSupport ssup)
{
	return (Datum) DatumGetGistKey(original)->and_bits;
}

static bool
gist_key_abbrev_abort(int memtupcount, SortSupport ssup)
{
	return false;
}

Datum
simhash_gist_sortsupport(PG_FUNCTION_ARGS)
{
	SortSupport ssup = (SortSupport) PG_GETARG_POINTER(0);

	ssup->comparator = gist_key_cmp;
	if (ssup->abbreviate)
	{
		ssup->abbrev_converter = gist_key_abbrev_convert;
		ssup->abbrev_abort = gist_key_abbrev_abort;
		ssup->abbrev_full_comparator = gist_key_cmp;
		ssup->comparator = ssup_datum_unsigned_cmp;
	}
	PG_RETURN_VOID();
}
