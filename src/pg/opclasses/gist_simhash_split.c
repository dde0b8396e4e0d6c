/*
 * Page split of simhash_gist_ops: a step down the prefix tree.
 *
 * The entries share their first C bits; the split goes on bit C, so each half shares at least
 * C + 1 bits and its key (the shared prefix) prunes for at least one more bit. Entries that do not
 * fix bit C (inner keys whose prefix ends there) go to the smaller half. CREATE INDEX hands GiST's
 * sorted build runs of four pages of consecutive hashes, and GiST repeats the split until every
 * part fits a page, so each leaf is one node of the prefix tree cut to a page (or the piece of one
 * that the run holds): as many shared bits as its size allows, and no page straddles a boundary
 * high in the tree, as pages filled in plain sorted order do.
 *
 * Equal hashes cannot be told apart by any bit: they are halved by position, and both halves keep
 * the prefix of the hash.
 */
#include "simhash_type.h"

#include "access/gist.h"

#include "gist_simhash_key.h"

PG_FUNCTION_INFO_V1(simhash_gist_picksplit);

typedef struct Prefix
{
	uint64		bits;			/* the prefix, zero after len bits */
	int			len;			/* 0..64; 64 is a full leaf hash */
} Prefix;

static Prefix
entry_prefix(GISTENTRY *entry, bool leaf)
{
	uint64		key = DatumGetSimhash(entry->key);
	Prefix		p;

	p.len = leaf ? 64 : gist_code_length(key);
	p.bits = key & gist_prefix_mask(p.len);
	return p;
}

static Prefix
prefix_union(Prefix a, Prefix b)
{
	Prefix		u;

	u.len = Min(Min(a.len, b.len), gist_common_length(a.bits, b.bits));
	u.bits = a.bits & gist_prefix_mask(u.len);
	return u;
}

static void
add_to_side(OffsetNumber *side, int *n, Prefix *side_union, OffsetNumber i, Prefix p)
{
	*side_union = (*n == 0) ? p : prefix_union(*side_union, p);
	side[(*n)++] = i;
}

Datum
simhash_gist_picksplit(PG_FUNCTION_ARGS)
{
	GistEntryVector *entries = (GistEntryVector *) PG_GETARG_POINTER(0);
	GIST_SPLITVEC *v = (GIST_SPLITVEC *) PG_GETARG_POINTER(1);
	OffsetNumber maxoff = entries->n - 1;
	bool		leaf = GIST_LEAF(&entries->vector[FirstOffsetNumber]);
	Prefix	   *prefixes = palloc((maxoff + 1) * sizeof(Prefix));
	Prefix		all;
	Prefix		left = {0, 0},
				right = {0, 0};
	int			bit;
	bool		any_fixed = false;

	for (OffsetNumber i = FirstOffsetNumber; i <= maxoff; i = OffsetNumberNext(i))
		prefixes[i] = entry_prefix(&entries->vector[i], leaf);
	all = prefixes[FirstOffsetNumber];
	for (OffsetNumber i = FirstOffsetNumber; i <= maxoff; i = OffsetNumberNext(i))
		all = prefix_union(all, prefixes[i]);
	bit = 63 - all.len;			/* the first bit not shared by all; -1 if all are equal */

	v->spl_left = palloc(entries->n * sizeof(OffsetNumber));
	v->spl_right = palloc(entries->n * sizeof(OffsetNumber));
	v->spl_nleft = v->spl_nright = 0;

	/* First the entries that fix the split bit, then the others to whichever side is smaller. */
	for (OffsetNumber i = FirstOffsetNumber; i <= maxoff; i = OffsetNumberNext(i))
	{
		if (bit < 0 || prefixes[i].len <= all.len)
			continue;
		any_fixed = true;
		if ((prefixes[i].bits >> bit) & 1)
			add_to_side(v->spl_right, &v->spl_nright, &right, i, prefixes[i]);
		else
			add_to_side(v->spl_left, &v->spl_nleft, &left, i, prefixes[i]);
	}
	for (OffsetNumber i = FirstOffsetNumber; i <= maxoff; i = OffsetNumberNext(i))
	{
		bool		go_right;

		if (bit >= 0 && prefixes[i].len > all.len)
			continue;
		if (any_fixed)
			go_right = v->spl_nright < v->spl_nleft;
		else					/* nothing tells them apart: halve by position */
			go_right = i > maxoff / 2;
		if (go_right)
			add_to_side(v->spl_right, &v->spl_nright, &right, i, prefixes[i]);
		else
			add_to_side(v->spl_left, &v->spl_nleft, &left, i, prefixes[i]);
	}

	v->spl_ldatum = SimhashGetDatum(gist_make_code(left.bits, left.len));
	v->spl_rdatum = SimhashGetDatum(gist_make_code(right.bits, right.len));
	pfree(prefixes);
	PG_RETURN_POINTER(v);
}
