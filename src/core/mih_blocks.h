/*
 * Multi-index hashing blocks: the 64 bits are split into m contiguous blocks of 64/m bits (the
 * first 64 % m blocks one bit longer). Two hashes within distance k differ in at most t_j bits on
 * at least one block j whenever sum_j (t_j + 1) > k (pigeonhole; t_j = floor(k/m) is the classic
 * choice), so a radius query needs only the block values within t_j bits of the query's block j:
 * sh_mih_radius_levels picks the cheapest such levels. Plain C, shared by the simhash_mih access
 * method (2..6 sorted tables), the GIN operator class simhash_mih_ops (3..8 blocks,
 * SH_MIH_*_BLOCKS), the all-pairs job (any count from 1 to 64) and the core tests.
 *
 * A GIN key packs (block number, block value) into a non-negative int32: number << 24 | value
 * (a block of the GIN class has at most 22 bits).
 */
#ifndef SIMHASH_MIH_BLOCKS_H
#define SIMHASH_MIH_BLOCKS_H

#include <math.h>
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

/* The hash a rotated value came from (sh_mih_rotate_block_to_top undone). */
static inline uint64_t
sh_mih_rotate_block_back(uint64_t r, int m, int block)
{
	int			shift = 64 - sh_mih_block_start(m, block) - sh_mih_block_len(m, block);

	return shift == 0 ? r : (r >> shift) | (r << (64 - shift));
}

/*
 * The modelled cost of probing a table of n rows by its len-bit block through the given level
 * (-1: not at all): each block value within level bits is a probe costing probe_cost, plus a
 * comparison for each of the n / 2^len rows that share it.
 */
static inline double
sh_mih_level_cost(int len, int level, double probe_cost, double n)
{
	if (level < 0)
		return 0;
	return sh_mih_neighbourhood_size(len, level) * (probe_cost + n / (double) (UINT64_C(1) << len));
}

/*
 * The cheapest levels (sh_mih_level_cost) for a radius query over m blocks: levels[j] for each
 * block, with sum_j (levels[j] + 1) > radius so that every hash within radius is found on some
 * block; -1 leaves a block out. Radius 3 on three blocks needs levels 1, 0, 0 (24 or 25 values),
 * not the classic 1, 1, 1 (67). Dynamic programming over the blocks; radius 0..63, m up to
 * SH_MIH_MAX_BLOCKS. Returns the cost.
 */
static inline double
sh_mih_radius_levels(int m, int radius, double probe_cost, double n, int *levels)
{
	const int	need = radius + 1;
	/* best[j][s]: the cheapest way for blocks j.. to add s to the sum; choice[j][s]: its level */
	double		best[SH_MIH_MAX_BLOCKS + 1][65];
	int			choice[SH_MIH_MAX_BLOCKS][65];

	for (int s = 0; s <= need; s++)
		best[m][s] = s == 0 ? 0 : HUGE_VAL;
	for (int j = m - 1; j >= 0; j--)
	{
		int			len = sh_mih_block_len(m, j);

		for (int s = 0; s <= need; s++)
		{
			best[j][s] = HUGE_VAL;
			choice[j][s] = -1;
			for (int t = -1; t < s && t <= len; t++)
			{
				double		c = sh_mih_level_cost(len, t, probe_cost, n) + best[j + 1][s - (t + 1)];

				if (c < best[j][s])
				{
					best[j][s] = c;
					choice[j][s] = t;
				}
			}
		}
	}
	for (int j = 0, s = need; j < m; j++)
	{
		levels[j] = choice[j][s];
		s -= levels[j] + 1;
	}
	return best[0][need];
}

/*
 * The table count with the lowest modelled probe cost for n rows, between min_m and max_m.
 * Each probe of a block value costs a page visit (~200 entry comparisons); it then compares the
 * n / 2^len entries sharing that block value. Summed over the radii 3, 5 and 8, each probed at
 * its cheapest levels.
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
		int			levels[SH_MIH_MAX_BLOCKS];

		for (unsigned i = 0; i < sizeof(radii) / sizeof(radii[0]); i++)
			cost += sh_mih_radius_levels(m, radii[i], probe_cost, n, levels);
		if (m == min_m || cost < best_cost)
		{
			best_m = m;
			best_cost = cost;
		}
	}
	return best_m;
}

#endif
