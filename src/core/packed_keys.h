/*
 * Values packed on a page each in the same number of bits (the page's width). Sorted 64-bit keys
 * are packed as their differences from the page's first: the pages of tables 1..m-1 of a
 * simhash_mih index, where distinct hashes sorted by a 21-bit block differ in about
 * 64 - log2(pages) bits from a page's first, so at 10M rows an entry takes 52 bits instead of 64.
 * Table 0's heap tids are packed too (block above its page's least, then offset: 24 bits or so).
 *
 * Entry i's value lies at bits i * width .. i * width + width - 1 of the data, and is read by
 * one unaligned 8-byte load and a shift, so a width is at most 57 bits; wider values are
 * stored whole (width 64, 8 bytes each). Every read stays within the data's first bytes - 8 + 8:
 * the last 8 bytes of the data are room for the last entry's load, never counted in what fits.
 * Plain C, shared by the simhash_mih access method and the core tests.
 */
#ifndef SIMHASH_PACKED_KEYS_H
#define SIMHASH_PACKED_KEYS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The widest value read by one load and a shift; wider ones take 64 bits. */
#define SH_PACKED_MAX_WIDTH 57
#define SH_PACKED_WHOLE 64

/* The width of a page whose last key is span above its first: 0..57, or 64. */
static inline int
sh_packed_width(uint64_t span)
{
	int			bits = span == 0 ? 0 : 64 - __builtin_clzll(span);

	return bits <= SH_PACKED_MAX_WIDTH ? bits : SH_PACKED_WHOLE;
}

/* True if n entries of the given width fit in a data area of the given bytes. */
static inline int
sh_packed_fits(uint64_t n, int width, size_t bytes)
{
	return bytes >= 8 && n * (uint64_t) width <= (uint64_t) (bytes - 8) * 8;
}

/* The fewest entries a data area of the given bytes holds (all 64 bits wide). */
static inline size_t
sh_packed_min_entries(size_t bytes)
{
	return (bytes - 8) / 8;
}

/* Entry i's value (of sorted keys: its difference from the page's first). */
static inline uint64_t
sh_packed_get(const uint8_t *data, int width, uint32_t i)
{
	uint64_t	word;
	uint64_t	bit;

	if (width == SH_PACKED_WHOLE)
	{
		memcpy(&word, data + (size_t) i * 8, 8);
		return word;
	}
	bit = (uint64_t) i * (uint64_t) width;
	memcpy(&word, data + (bit >> 3), 8);
	return (word >> (bit & 7)) & ((UINT64_C(1) << width) - 1);
}

/* Sets entry i to value (below 2^width), in place: the others keep theirs. */
static inline void
sh_packed_set(uint8_t *data, int width, uint32_t i, uint64_t value)
{
	uint64_t	word;
	uint64_t	bit;
	uint64_t	mask;

	if (width == SH_PACKED_WHOLE)
	{
		memcpy(data + (size_t) i * 8, &value, 8);
		return;
	}
	bit = (uint64_t) i * (uint64_t) width;
	mask = ((UINT64_C(1) << width) - 1) << (bit & 7);
	memcpy(&word, data + (bit >> 3), 8);
	word = (word & ~mask) | (value << (bit & 7));
	memcpy(data + (bit >> 3), &word, 8);
}

/*
 * How many of the n sorted keys, from keys[0], one page of a data area of the given bytes holds:
 * as many as fit at the width their span needs (the width grows with the span, so the first that
 * does not fit ends the page). At least one if n > 0. Sets *width to the page's width.
 */
static inline size_t
sh_packed_count(const uint64_t *keys, size_t n, size_t bytes, int *width)
{
	size_t		count = n > 0 ? 1 : 0;

	*width = 0;
	while (count < n)
	{
		int			w = sh_packed_width(keys[count] - keys[0]);

		if (!sh_packed_fits(count + 1, w, bytes))
			break;
		*width = w;
		count++;
	}
	return count;
}

/*
 * Writes the n sorted keys into a data area of the given bytes at the given width (from
 * sh_packed_count: they fit), their differences from keys[0]; zeroes the rest of the area.
 */
static inline void
sh_packed_write(uint8_t *data, size_t bytes, const uint64_t *keys, size_t n, int width)
{
	memset(data, 0, bytes);
	for (size_t i = 0; i < n; i++)
		sh_packed_set(data, width, (uint32_t) i, keys[i] - keys[0]);
}

/*
 * The first of the n entries whose difference is at least target (n if none), searched from
 * entry guess outwards by doubling steps, then halving: keys spread evenly (they are bits of
 * hashes), so a guess from where target falls between the page's ends is a few entries off.
 */
static inline uint32_t
sh_packed_lower_bound(const uint8_t *data, int width, uint32_t n, uint64_t target, uint32_t guess)
{
	int64_t		lo,
				hi;

	if (n == 0)
		return 0;
	if (guess >= n)
		guess = n - 1;
	if (sh_packed_get(data, width, guess) < target)
	{
		lo = guess;
		for (int64_t step = 1;; step *= 2)
		{
			hi = (int64_t) guess + step;
			if (hi >= (int64_t) n)
			{
				hi = n;
				break;
			}
			if (sh_packed_get(data, width, (uint32_t) hi) >= target)
				break;
			lo = hi;
		}
	}
	else
	{
		hi = guess;
		for (int64_t step = 1;; step *= 2)
		{
			lo = (int64_t) guess - step;
			if (lo < 0)
			{
				lo = -1;
				break;
			}
			if (sh_packed_get(data, width, (uint32_t) lo) < target)
				break;
			hi = lo;
		}
	}
	/* entry lo is below target, entry hi reaches it */
	while (hi - lo > 1)
	{
		int64_t		mid = lo + (hi - lo) / 2;

		if (sh_packed_get(data, width, (uint32_t) mid) < target)
			lo = mid;
		else
			hi = mid;
	}
	return (uint32_t) hi;
}

#endif
