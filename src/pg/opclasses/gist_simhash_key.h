/*
 * Keys of the GiST operator class simhash_gist_ops, one 64-bit value each (the simhash type itself,
 * passed by value, so a leaf tuple is 16 bytes and a leaf page holds 407 of them).
 *
 * On a leaf page a key is the row's hash. On an inner page it is a prefix code: the L leading bits
 * that every hash in the subtree shares, then a 1 bit, then zeros (L = 0..63). The number of those
 * L bits that differ from the query is a true lower bound of the distance to anything below.
 *
 * Union, penalty and "same" are not told whether a key comes from a leaf page, so they read every
 * key as a prefix code. A leaf hash read that way is its own leading bits up to its lowest 1 bit: a
 * prefix of the hash itself, so the union they compute still covers every hash below it (at worst
 * a few trailing bits looser). Consistent, distance and picksplit know the page and read leaf keys
 * as full hashes.
 */
#ifndef SIMHASH_GIST_KEY_H
#define SIMHASH_GIST_KEY_H

#include "simhash_type.h"

#include "access/gist.h"
#include "hamming.h"

/* The longest prefix a code can carry: its marker bit needs one position. */
#define GIST_PREFIX_MAX 63

/* Leading bits a prefix code fixes (the zero value, which no code takes, fixes none). */
static inline int
gist_code_length(uint64 code)
{
	return code == 0 ? 0 : GIST_PREFIX_MAX - __builtin_ctzll(code);
}

/* Mask of the first len bits (len = 0..64). */
static inline uint64
gist_prefix_mask(int len)
{
	return len == 0 ? 0 : ~UINT64CONST(0) << (64 - len);
}

/* The code of the first len bits of bits; longer prefixes are cut to the longest a code holds. */
static inline uint64
gist_make_code(uint64 bits, int len)
{
	if (len > GIST_PREFIX_MAX)
		len = GIST_PREFIX_MAX;
	return (bits & gist_prefix_mask(len)) | (UINT64CONST(1) << (GIST_PREFIX_MAX - len));
}

/* Number of leading bits on which a and b agree (64 when equal). */
static inline int
gist_common_length(uint64 a, uint64 b)
{
	return a == b ? 64 : __builtin_clzll(a ^ b);
}

/* Lower bound of the distance from q to every hash under an inner key. */
static inline int
gist_code_bound(uint64 code, uint64 q)
{
	return sh_popcount64((q ^ code) & gist_prefix_mask(gist_code_length(code)));
}

/* Exact distance to q at a leaf (the key is the hash), the prefix bound on an inner page. */
static inline int
gist_entry_bound(GISTENTRY *entry, uint64 q)
{
	uint64		key = DatumGetSimhash(entry->key);

	return GIST_LEAF(entry) ? sh_popcount64(key ^ q) : gist_code_bound(key, q);
}

#endif
