/*
 * The key tables of a compact simhash_mih index (WITH (compact = on)). Tables 1..m-1 hold, instead
 * of the rows' distinct hashes, the distinct 4-byte keys of their rows grouped by the table's
 * block value. A key is block 0's bits and as many bits of the other blocks as fit
 * (mih_compact_key): with block j, known from where the key sits, it bounds the distance from
 * below, which rejects almost every far row; a key that passes is confirmed, and its rows' tids
 * found, by probing table 0 at its block 0 value. About 4.4 bytes a row a table at 10M rows,
 * against 8.
 *
 * A key page: MihKeyPage; then, sparse (for tables with fewer rows than block values), uint32
 * value[nvalues], the block values present; then uint16 start[nvalues + 1]: the keys of the i-th
 * value (dense: of value first + i) are key[start[i]] .. key[start[i + 1] - 1]; then, 4-aligned,
 * uint32 key[nitems], sorted within each value.
 */
#ifndef SIMHASH_MIH_AM_KEYS_H
#define SIMHASH_MIH_AM_KEYS_H

#include "format/mih_format.h"

#include "mih_blocks.h"

typedef struct MihKeyPage
{
	uint32		first;			/* the block value of the page's first key */
	uint16		nvalues;		/* dense: values first .. first + nvalues - 1; sparse: values present */
	uint16		flags;			/* MIH_KEYS_SPARSE */
} MihKeyPage;

#define MIH_KEYS_SPARSE		1
/* The most keys a page can hold: one value, two starts. */
#define MIH_KEYS_PER_PAGE \
	((MIH_DATA_BYTES - sizeof(MihKeyPage) - 2 * sizeof(uint16)) / sizeof(uint32))

#define MihKeyPageHeader(page)	((MihKeyPage *) PageGetContents(page))

static inline Size
mih_key_page_keys_offset(int nvalues, bool sparse)
{
	return TYPEALIGN(sizeof(uint32), sizeof(MihKeyPage) + (sparse ? nvalues * sizeof(uint32) : 0) +
					 (nvalues + 1) * sizeof(uint16));
}

/* True if a page with these counts fits in a page's data area. */
static inline bool
mih_key_page_fits(int nvalues, bool sparse, int nkeys)
{
	return mih_key_page_keys_offset(nvalues, sparse) + (Size) nkeys * sizeof(uint32) <= MIH_DATA_BYTES;
}

static inline uint32 *
mih_key_page_values(Page page)
{
	return (uint32 *) (PageGetContents(page) + sizeof(MihKeyPage));
}

static inline uint16 *
mih_key_page_starts(Page page)
{
	const MihKeyPage *kp = MihKeyPageHeader(page);

	return (uint16 *) (PageGetContents(page) + sizeof(MihKeyPage) +
					   ((kp->flags & MIH_KEYS_SPARSE) ? kp->nvalues * sizeof(uint32) : 0));
}

static inline uint32 *
mih_key_page_keys(Page page)
{
	const MihKeyPage *kp = MihKeyPageHeader(page);

	return (uint32 *) (PageGetContents(page) +
					   mih_key_page_keys_offset(kp->nvalues, (kp->flags & MIH_KEYS_SPARSE) != 0));
}

/*
 * The key of hash h in table j (j >= 1): block 0's bits, then the low bits of blocks 1..m-1 but j,
 * in order, as many as fit in 32 (10 bits of the third block with three tables; none with two).
 */
static inline uint32
mih_compact_key(uint64 h, int m, int j)
{
	int			bits = sh_mih_block_len(m, 0);
	uint64		key = sh_mih_block_value(h, m, 0);

	for (int b = 1; b < m && bits < 32; b++)
	{
		int			take;

		if (b == j)
			continue;
		take = Min(sh_mih_block_len(m, b), 32 - bits);
		key |= (uint64) (sh_mih_block_value(h, m, b) & ((UINT32_C(1) << take) - 1)) << bits;
		bits += take;
	}
	return (uint32) key;
}

/* Block 0's value in a key. */
static inline uint32
mih_key_block0(uint32 key, int m)
{
	int			len = sh_mih_block_len(m, 0);

	return len >= 32 ? key : key & ((UINT32_C(1) << len) - 1);
}

#endif
