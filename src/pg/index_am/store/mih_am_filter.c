/*
 * Block filters of a simhash_mih run: for each table j, a bitmap with a bit for each range of
 * block-j values, set when some row of the run has a value in it (a presence filter, as a Bloom
 * filter with one hash: no false negatives).
 *
 * Why: a radius or nearest-neighbour scan probes every run of the index with the same block values
 * (hundreds at radius 8), and a probe costs a page pin, lock and search whether or not the run has
 * that value. A run written by a flush or a small merge holds few rows, so most of its probes find
 * nothing: with a filter of 4 bits a row they end in memory instead (a bit test), which keeps the
 * cost of the small runs continuous ingestion creates far below that of the index's big run.
 *
 * A run gets filters when they stay small and selective: at most 2^MAX_BITS bits a table (256 kB),
 * and at most MAX_FILL of the bits set. The base run of a big index has none (nearly every value is
 * present). Filters are written with the run and read into the run's directory (rd_amcache).
 */
#include "store/mih_store.h"

#include <math.h>

#include "utils/memutils.h"

#include "mih_blocks.h"

#define MIN_BITS	6			/* one word */
#define MAX_BITS	21
#define BITS_A_ROW	2			/* log2: 4 bits a row, a quarter of them set at most */
#define MAX_FILL	0.5

static Size
filter_words(uint32 bits)
{
	return ((Size) 1 << bits) / 64;
}

/* The expected share of bits set by nrows random values in a filter of 2^bits bits. */
static double
fill_of(uint32 bits, uint64 nrows)
{
	return 1.0 - exp(-(double) nrows / (double) ((uint64) 1 << bits));
}

/* log2 of the bits of each filter of a run of nrows rows in m tables; 0: no filters. */
uint32
mih_filter_bits(int m, uint64 nrows)
{
	uint32		bits = MIN_BITS;
	int			len = sh_mih_block_len(m, m - 1);	/* the shortest block */

	if (nrows == 0)
		return 0;
	while (bits < MAX_BITS && bits < (uint32) len && ((uint64) 1 << bits) < (nrows << BITS_A_ROW))
		bits++;
	return fill_of(bits, nrows) > MAX_FILL ? 0 : bits;
}

/* The expected share of a run's probes that pass its filters (1 without filters). */
double
mih_filter_fill(const MihRun *run)
{
	return run->filter_bits == 0 ? 1.0 : fill_of(run->filter_bits, run->nrows);
}

/*
 * Writes the filters of a run of the n rows (hashes) in m tables, if it gets any: sets
 * run->filter_bits and run->filter_head.
 */
void
mih_write_filters(Relation index, const uint64 *hashes, Size n, int m, MihRun *run)
{
	uint32		bits = mih_filter_bits(m, n);
	Size		nwords = filter_words(bits);
	uint64	   *words;

	run->filter_bits = bits;
	for (int j = 0; j < MIH_MAX_TABLES; j++)
		run->filter_head[j] = InvalidBlockNumber;
	if (bits == 0)
		return;
	words = palloc(nwords * sizeof(uint64));
	for (int j = 0; j < m; j++)
	{
		int			shift = sh_mih_block_len(m, j) - (int) bits;

		memset(words, 0, nwords * sizeof(uint64));
		for (Size i = 0; i < n; i++)
		{
			uint32		bit = sh_mih_block_value(hashes[i], m, j) >> shift;

			words[bit / 64] |= UINT64_C(1) << (bit % 64);
		}
		run->filter_head[j] = mih_write_item_chain(index, MIH_PAGE_FILTER, words, sizeof(uint64), nwords);
	}
	pfree(words);
}

/* Reads the filters of a run into its directory (none if it has none; recycled: see mih_read_item_chain). */
void
mih_read_filters(Relation index, const MihMeta *meta, const MihRun *run, MihDirectory *dir,
				 bool *recycled)
{
	uint32		bits = run->filter_bits;
	Size		nwords = filter_words(bits);

	if (bits == 0)
		return;
	if (bits < MIN_BITS || bits > MAX_BITS || bits > (uint32) sh_mih_block_len(meta->ntables, meta->ntables - 1))
		mih_corrupt(index, MIH_META_BLKNO, "a run's filters have 2^%u bits", bits);
	for (int j = 0; j < meta->ntables; j++)
	{
		uint64	   *words = MemoryContextAlloc(index->rd_indexcxt, nwords * sizeof(uint64));
		Size		n = mih_read_item_chain(index, run->filter_head[j], MIH_PAGE_FILTER, words,
											sizeof(uint64), nwords, recycled);

		if (recycled == NULL && n != nwords)
			mih_corrupt(index, run->filter_head[j], "the filter of table %d holds %zu of its %zu words",
						j, n, nwords);
		dir->filter[j] = words;
		dir->filter_shift[j] = sh_mih_block_len(meta->ntables, j) - (int) bits;
	}
}
