/*
 * Writing the sorted tables of a simhash_mih index (at build and at a merge): table 0 holds
 * (hash, tid) sorted by block 0, tables 1..m-1 hold (hash, ordinal in table 0) sorted by their
 * block, and each table gets a chain of fence pages listing its pages with their first block value.
 */
#include "mih_am.h"

#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "mih_blocks.h"

typedef struct MihRef
{
	uint64		key;			/* the hash rotated so the table's block is on top */
	uint32		ord;			/* where the row is in the input (table 0) or in table 0 (others) */
} MihRef;

#define ST_SORT mih_sort_refs
#define ST_ELEMENT_TYPE MihRef
#define ST_COMPARE(a, b) ((a)->key < (b)->key ? -1 : (a)->key > (b)->key ? 1 : 0)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/* Writes table j in the order of refs, noting each page in dir_values/dir_blocks. */
static uint32
write_table(Relation index, int m, int j, uint64 build_id, const uint64 *hashes,
			const ItemPointerData *tids, Size n, const MihRef *refs, uint32 *dir_values,
			BlockNumber *dir_blocks)
{
	Size		per_page = j == 0 ? MIH_ROWS_PER_PAGE : MIH_REFS_PER_PAGE;
	Size		pages = (n + per_page - 1) / per_page;
	PGAlignedBlock image;

	for (Size p = 0; p < pages; p++)
	{
		Page		page = image.data;
		Size		first = p * per_page;
		Size		count = Min(per_page, n - first);
		uint64	   *page_hashes = MihPageHashes(page);

		CHECK_FOR_INTERRUPTS();
		mih_init_page(page, j == 0 ? MIH_PAGE_TABLE0 : MIH_PAGE_TABLEJ);
		MihPageGetOpaque(page)->nitems = (uint16) count;
		MihPageGetOpaque(page)->next = MihBuildTag(build_id);
		for (Size i = 0; i < count; i++)
		{
			uint32		ord = refs[first + i].ord;

			page_hashes[i] = hashes[ord];
			if (j == 0)
				MihPageTids(page)[i] = tids[ord];
			else
				MihPageOrdinals(page)[i] = ord;
		}
		dir_values[p] = sh_mih_block_value(page_hashes[0], m, j);
		dir_blocks[p] = mih_write_image(index, mih_new_buffer(index), page);
	}
	return (uint32) pages;
}

/* Writes the fence chain of one table; returns its first page. */
static BlockNumber
write_fences(Relation index, uint32 pages, const uint32 *dir_values, const BlockNumber *dir_blocks)
{
	uint32		nfence = (pages + MIH_FENCES_PER_PAGE - 1) / MIH_FENCES_PER_PAGE;
	Buffer	   *buffers;
	BlockNumber head;
	PGAlignedBlock image;

	if (nfence == 0)
		return InvalidBlockNumber;
	/* Each fence page points to the next, so all of them are allocated first. */
	buffers = palloc(nfence * sizeof(Buffer));
	for (uint32 f = 0; f < nfence; f++)
		buffers[f] = mih_new_buffer(index);
	head = BufferGetBlockNumber(buffers[0]);
	for (uint32 f = 0; f < nfence; f++)
	{
		Page		page = image.data;
		uint32		first = f * MIH_FENCES_PER_PAGE;
		uint32		count = Min(MIH_FENCES_PER_PAGE, pages - first);

		mih_init_page(page, MIH_PAGE_FENCE);
		MihPageGetOpaque(page)->nitems = (uint16) count;
		if (f + 1 < nfence)
			MihPageGetOpaque(page)->next = BufferGetBlockNumber(buffers[f + 1]);
		for (uint32 i = 0; i < count; i++)
		{
			MihPageFences(page)[i].first_value = dir_values[first + i];
			MihPageFences(page)[i].blkno = dir_blocks[first + i];
		}
		mih_write_image(index, buffers[f], page);
	}
	pfree(buffers);
	return head;
}

/*
 * Writes m tables of the n rows (hashes[i], tids[i]) and fills in meta's table fields. Reorders
 * the rows by block 0 in place: a row's position is then its ordinal in table 0.
 */
void
mih_write_tables(Relation index, uint64 *hashes, ItemPointerData *tids, Size n, int m, MihMeta *meta)
{
	MihRef	   *refs = palloc_extended(Max(n, 1) * sizeof(MihRef), MCXT_ALLOC_HUGE);
	uint32	   *dir_values = palloc_extended((n / MIH_ROWS_PER_PAGE + 1) * sizeof(uint32), MCXT_ALLOC_HUGE);
	BlockNumber *dir_blocks = palloc_extended((n / MIH_ROWS_PER_PAGE + 1) * sizeof(BlockNumber), MCXT_ALLOC_HUGE);
	uint64	   *sorted_hashes = palloc_extended(Max(n, 1) * sizeof(uint64), MCXT_ALLOC_HUGE);
	ItemPointerData *sorted_tids = palloc_extended(Max(n, 1) * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);

	for (Size i = 0; i < n; i++)
	{
		refs[i].key = sh_mih_rotate_block_to_top(hashes[i], m, 0);
		refs[i].ord = (uint32) i;
	}
	mih_sort_refs(refs, n);
	for (Size i = 0; i < n; i++)
	{
		sorted_hashes[i] = hashes[refs[i].ord];
		sorted_tids[i] = tids[refs[i].ord];
		refs[i].ord = (uint32) i;
	}
	memcpy(hashes, sorted_hashes, n * sizeof(uint64));
	memcpy(tids, sorted_tids, n * sizeof(ItemPointerData));
	pfree(sorted_hashes);
	pfree(sorted_tids);

	meta->ntables = m;
	meta->nrows = n;
	meta->build_id = (uint64) GetCurrentTimestamp() ^ ((uint64) MyProcPid << 44);
	for (int j = 0; j < m; j++)
	{
		uint32		pages;

		if (j > 0)
		{
			for (Size i = 0; i < n; i++)
			{
				refs[i].key = sh_mih_rotate_block_to_top(hashes[i], m, j);
				refs[i].ord = (uint32) i;
			}
			mih_sort_refs(refs, n);
		}
		pages = write_table(index, m, j, meta->build_id, hashes, tids, n, refs, dir_values, dir_blocks);
		mih_set_table(meta, j, pages, write_fences(index, pages, dir_values, dir_blocks));
	}
	for (int j = m; j < MIH_MAX_TABLES; j++)
		mih_set_table(meta, j, 0, InvalidBlockNumber);
	pfree(refs);
	pfree(dir_values);
	pfree(dir_blocks);
}
