/*
 * Multi-index hashing blocks: the 64 bits are split into m contiguous blocks of 64/m bits (the
 * first 64 % m blocks one bit longer). Two hashes within distance k differ in at most floor(k/m)
 * bits on at least one block (pigeonhole), so a radius query needs only the block values within
 * floor(k/m) bits of the query's blocks. Plain C, shared by the simhash_mih access method (2..4
 * sorted tables), the GIN operator class simhash_mih_ops (3..8 blocks, SH_MIH_*_BLOCKS), the
 * all-pairs job (any count from 1 to 64) and the core tests.
 *
 * A GIN key packs (block number, block value) into a non-negative int32: number << 24 | value
 * (a block of the GIN class has at most 22 bits).
 */
#ifndef SIMHASH_MIH_BLOCKS_H
#define SIMHASH_MIH_BLOCKS_H

#include <stdint.h>

/* The block counts of the GIN operator class. */
#define SH_MIH_MIN_BLOCKS 3
#define SH_MIH_MAX_BLOCKS 8

static inline int
sh_mih_block_len(int m, int block)
{
	return 64 / m + (block < 64 % m ? 1 : 0);
}

static inline int
sh_mih_block_start(int m, int block)
{
	int			start = 0;

	for (int b = 0; b < block; b++)
		start += sh_mih_block_len(m, b);
	return start;
}

static inline uint32_t
sh_mih_block_value(uint64_t h, int m, int block)
{
	int			len = sh_mih_block_len(m, block);

	return (uint32_t) ((h >> sh_mih_block_start(m, block)) & ((UINT64_C(1) << len) - 1));
}

static inline int32_t
sh_mih_key(int block, uint32_t value)
{
	return (int32_t) (((uint32_t) block << 24) | value);
}

/* Number of values within r bits of a len-bit value: sum of C(len, j) for j <= r. */
static inline double
sh_mih_neighbourhood_size(int len, int r)
{
	double		term = 1.0,
				sum = 0.0;

	for (int j = 0; j <= r && j <= len; j++)
	{
		sum += term;
		term = term * (len - j) / (j + 1);
	}
	return sum;
}

/*
 * Writes into keys[] the keys of every value within r bits of value on the given block, starting
 * at keys[n]; returns the new count. The caller sized keys[] with sh_mih_neighbourhood_size.
 * Flips are enumerated as increasing bit positions, so each neighbour appears once.
 */
static inline int
sh_mih_neighbour_keys(int block, int len, uint32_t value, int r, int first_bit, int32_t *keys, int n)
{
	keys[n++] = sh_mih_key(block, value);
	if (r == 0)
		return n;
	for (int bit = first_bit; bit < len; bit++)
		n = sh_mih_neighbour_keys(block, len, value ^ (UINT32_C(1) << bit), r - 1, bit + 1, keys, n);
	return n;
}

/*
 * Sorted-table variant (the simhash_mih access method): table j is sorted by block j first. The
 * rotation moves block j to the top bits, so sorting rotated values sorts by that block.
 */
static inline uint64_t
sh_mih_rotate_block_to_top(uint64_t h, int m, int block)
{
	int			shift = 64 - sh_mih_block_start(m, block) - sh_mih_block_len(m, block);

	return shift == 0 ? h : (h << shift) | (h >> (64 - shift));
}

/*
 * The table count with the lowest modelled probe cost for n rows, between min_m and max_m.
 * Each probe of a block value costs a page visit (~200 entry comparisons); it then compares the
 * n / 2^len entries sharing that block value. Averaged over the radii 3, 5 and 8.
 */
static inline int
sh_mih_tables_for_rows(double n, int min_m, int max_m)
{
	static const int radii[] = {3, 5, 8};
	const double probe_cost = 200.0;
	int			best_m = min_m;
	double		best_cost = 0;

	for (int m = min_m; m <= max_m; m++)
	{
		double		cost = 0;

		for (unsigned i = 0; i < sizeof(radii) / sizeof(radii[0]); i++)
			for (int b = 0; b < m; b++)
			{
				int			len = sh_mih_block_len(m, b);

				cost += sh_mih_neighbourhood_size(len, radii[i] / m) *
					(probe_cost + n / (double) (UINT64_C(1) << len));
			}
		if (m == min_m || cost < best_cost)
		{
			best_m = m;
			best_cost = cost;
		}
	}
	return best_m;
}

#endif
