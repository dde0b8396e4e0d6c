/*
 * Writing the sorted tables of a simhash_mih index (at build and at a merge): table 0 holds
 * (hash, tid) sorted by block 0, tables 1..m-1 hold the distinct hashes sorted by their block, or
 * in a compact index their keys (format/mih_keys.h), and each table gets a chain of fence pages
 * listing its pages with their first block value.
 */
#include "store/mih_store.h"
#include "format/mih_keys.h"

#include "miscadmin.h"
#include "utils/backend_progress.h"
#include "utils/memutils.h"

#include "mih_blocks.h"

#define ST_SORT mih_sort_refs
#define ST_ELEMENT_TYPE MihRef
#define ST_COMPARE(a, b) ((a)->key < (b)->key ? -1 : (a)->key > (b)->key ? 1 : 0)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

#define ST_SORT mih_sort_items
#define ST_ELEMENT_TYPE uint64
#define ST_COMPARE(a, b) (*(a) < *(b) ? -1 : *(a) > *(b) ? 1 : 0)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/* Sifts heap[i] down: the heap of segments is ordered by the key each is at. */
static void
sift_down(int *heap, int nheap, int i, const MihRef *in, const Size *pos)
{
	for (;;)
	{
		int			least = i;
		int			child = 2 * i + 1;
		int			swapped;

		if (child < nheap && in[pos[heap[child]]].key < in[pos[heap[least]]].key)
			least = child;
		if (child + 1 < nheap && in[pos[heap[child + 1]]].key < in[pos[heap[least]]].key)
			least = child + 1;
		if (least == i)
			return;
		swapped = heap[i];
		heap[i] = heap[least];
		heap[least] = swapped;
		i = least;
	}
}

/*
 * Merges k segments of refs each sorted by key (in[start[s]] to in[start[s + 1] - 1], at most
 * MIH_MAX_RUNS) into out, sorted by key: what a merge of runs costs instead of a sort.
 */
void
mih_merge_refs(const MihRef *in, const Size *start, int k, MihRef *out)
{
	Size		pos[MIH_MAX_RUNS];
	int			heap[MIH_MAX_RUNS];
	int			nheap = 0;
	Size		n = 0;

	Assert(k <= MIH_MAX_RUNS);
	for (int s = 0; s < k; s++)
	{
		pos[s] = start[s];
		if (start[s] < start[s + 1])
			heap[nheap++] = s;
	}
	for (int i = nheap / 2 - 1; i >= 0; i--)
		sift_down(heap, nheap, i, in, pos);
	while (nheap > 0)
	{
		int			s = heap[0];

		if ((n & 0xFFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		out[n++] = in[pos[s]++];
		if (pos[s] == start[s + 1])
			heap[0] = heap[--nheap];
		sift_down(heap, nheap, 0, in, pos);
	}
}

/* Writes a new page from its image, noting its block in *blkno and its buffer in *hint. */
static void
write_page(Relation index, Page image, BlockNumber *blkno, Buffer *hint)
{
	Buffer		buffer = mih_new_buffer(index);

	*hint = buffer;
	*blkno = mih_write_image(index, buffer, image);
}

/*
 * How many of the n tids, from tids[0], one page of table 0 holds with their hashes, packed as
 * narrow as their blocks' spread and largest offset allow (the width only grows as rows are added,
 * so the first that does not fit ends the page); sets *th. Dead rows (offset 0, block invalid) are
 * packed as 0 and widen nothing.
 */
static Size
rows_for_page(const ItemPointerData *tids, Size n, MihTidsHeader *th)
{
	BlockNumber lo = InvalidBlockNumber,
				hi = 0;
	OffsetNumber most = 1;
	Size		count = 0;

	th->first_block = 0;
	th->offset_bits = th->width = 1;
	for (; count < n; count++)
	{
		BlockNumber nlo = lo,
					nhi = hi;
		OffsetNumber nmost = most;
		int			offset_bits,
					width;

		if (ItemPointerIsValid(&tids[count]))
		{
			BlockNumber b = ItemPointerGetBlockNumberNoCheck(&tids[count]);

			nlo = lo == InvalidBlockNumber ? b : Min(lo, b);
			nhi = Max(hi, b);
			nmost = Max(most, ItemPointerGetOffsetNumberNoCheck(&tids[count]));
		}
		offset_bits = sh_packed_width(nmost);
		width = offset_bits + (nlo == InvalidBlockNumber ? 0 : sh_packed_width(nhi - nlo));
		if (!sh_packed_fits(count + 1, width, MIH_TIDS_BYTES(count + 1)))
			break;
		lo = nlo;
		hi = nhi;
		most = nmost;
		th->first_block = lo == InvalidBlockNumber ? 0 : lo;
		th->offset_bits = (uint8) offset_bits;
		th->width = (uint8) width;
	}
	return count;
}

/* Writes the count tids of a table 0 page whose hashes are on it, as rows_for_page packed them. */
static void
write_tids(Page page, const ItemPointerData *tids, Size count, const MihTidsHeader *th)
{
	MihTidsHeader *to = MihTidsHeaderOf(page);
	uint8	   *data = MihTidsData(page);

	*to = *th;
	memset(data, 0, MIH_TIDS_BYTES(count));
	for (Size i = 0; i < count; i++)
		if (ItemPointerIsValid(&tids[i]))
			sh_packed_set(data, th->width, (uint32) i,
						  ((uint64) (ItemPointerGetBlockNumberNoCheck(&tids[i]) - th->first_block) << th->offset_bits) |
						  ItemPointerGetOffsetNumberNoCheck(&tids[i]));
}

/*
 * Writes table 0 (j == 0: the n rows, hashes and tids, in their sorted order) or table j (the n
 * distinct hashes rotated by block j, sorted: its keys), packed as many to a page as fit, noting
 * each page's fence in dir and its buffer in hints (room for n / MIH_ROWS_MIN_PER_PAGE + 1 pages
 * of table 0, n / MIH_HASHES_MIN_PER_PAGE + 1 of table j).
 * Returns the pages written.
 */
uint32
mih_write_table(Relation index, int m, int j, uint64 build_id, const uint64 *entries,
				const ItemPointerData *tids, Size n, MihFence *dir, Buffer *hints)
{
	PGAlignedBlock image;
	uint32		pages = 0;

	for (Size first = 0; first < n; pages++)
	{
		Page		page = image.data;
		Size		count;

		CHECK_FOR_INTERRUPTS();
		mih_leave_if_wanted();
		mih_init_page(page, j == 0 ? MIH_PAGE_ROWS : MIH_PAGE_HASHES);
		if (j == 0)
		{
			MihTidsHeader th;

			count = rows_for_page(&tids[first], n - first, &th);
			MihPageGetOpaque(page)->nitems = (uint16) count;
			memcpy(MihPageHashes(page), &entries[first], count * sizeof(uint64));
			write_tids(page, &tids[first], count, &th);
			dir[pages].first_value = sh_mih_block_value(entries[first], m, 0);
		}
		else
		{
			MihPackedPage *pk = MihPackedHeader(page);
			int			width;

			count = sh_packed_count(&entries[first], n - first, MIH_PACKED_BYTES, &width);
			pk->first = entries[first];
			pk->width = (uint16) width;
			sh_packed_write(MihPackedData(page), MIH_PACKED_BYTES, &entries[first], count, width);
			dir[pages].first_value = sh_mih_block_value(sh_mih_rotate_block_back(entries[first], m, j), m, j);
		}
		MihPageGetOpaque(page)->nitems = (uint16) count;
		MihPageGetOpaque(page)->next = MihBuildTag(build_id);
		write_page(index, page, &dir[pages].blkno, &hints[pages]);
		first += count;
	}
	return pages;
}

/*
 * Sorts n 64-bit keys: by radix, 16 bits a pass, lowest first (four passes over the keys instead
 * of a comparison sort's 23 at 10M rows: a table is sorted at every merge), a pass skipped where
 * every key has the same digit; small arrays by comparison.
 */
static void
sort_keys(uint64 *keys, Size n)
{
	Size	   *count;
	uint64	   *other;
	uint64	   *from = keys;

	if (n < 4096)
	{
		mih_sort_items(keys, n);
		return;
	}
	count = palloc0(4 * 65536 * sizeof(Size));
	other = palloc_extended(n * sizeof(uint64), MCXT_ALLOC_HUGE);
	for (Size i = 0; i < n; i++)
		for (int d = 0; d < 4; d++)
			count[d * 65536 + ((keys[i] >> (16 * d)) & 0xFFFF)]++;
	for (int d = 0; d < 4; d++)
	{
		Size	   *c = &count[d * 65536];
		uint64	   *to = from == keys ? other : keys;
		Size		sum = 0;

		CHECK_FOR_INTERRUPTS();
		if (c[(from[0] >> (16 * d)) & 0xFFFF] == n)
			continue;
		for (int v = 0; v < 65536; v++)
		{
			Size		k = c[v];

			c[v] = sum;
			sum += k;
		}
		for (Size i = 0; i < n; i++)
			to[c[(from[i] >> (16 * d)) & 0xFFFF]++] = from[i];
		from = to;
	}
	if (from != keys)
		memcpy(keys, from, n * sizeof(uint64));
	pfree(other);
	pfree(count);
}

/*
 * The entries of table j (j >= 1) for the n rows sorted as table 0 (so equal hashes are
 * neighbours): each distinct hash rotated by block j, sorted. Shared with simhash_mih_check.
 */
uint64 *
mih_table_keys(const uint64 *hashes, Size n, int m, int j, Size *nkeys)
{
	uint64	   *keys = palloc_extended(Max(n, 1) * sizeof(uint64), MCXT_ALLOC_HUGE);
	Size		k = 0;

	for (Size i = 0; i < n; i++)
		if (i == 0 || hashes[i] != hashes[i - 1])
			keys[k++] = sh_mih_rotate_block_to_top(hashes[i], m, j);
	sort_keys(keys, k);
	*nkeys = k;
	return keys;
}

/*
 * The entries of key table j for the n rows: (block j value << 32 | key), sorted and distinct.
 * Shared with simhash_mih_check, which compares a table with them.
 */
uint64 *
mih_key_items(const uint64 *hashes, Size n, int m, int j, Size *nitems)
{
	uint64	   *items = palloc_extended(Max(n, 1) * sizeof(uint64), MCXT_ALLOC_HUGE);
	Size		k = 0;

	for (Size i = 0; i < n; i++)
		items[i] = ((uint64) sh_mih_block_value(hashes[i], m, j) << 32) | mih_compact_key(hashes[i], m, j);
	mih_sort_items(items, n);
	for (Size i = 0; i < n; i++)
		if (k == 0 || items[i] != items[k - 1])
			items[k++] = items[i];
	*nitems = k;
	return items;
}

/*
 * Writes key table j, noting each page's fence in dir and its buffer in hints (room for dir_cap
 * pages). Pages are dense (a start for every block value they span) when the table has at least as
 * many rows as block values, sparse (the values present, then their starts) otherwise.
 */
static uint32
write_key_table(Relation index, int m, int j, uint64 build_id, const uint64 *hashes, Size n,
				MihFence *dir, Buffer *hints, Size dir_cap)
{
	bool		sparse = (double) n < (double) (UINT64_C(1) << sh_mih_block_len(m, j));
	Size		nitems;
	uint64	   *items = mih_key_items(hashes, n, m, j, &nitems);
	uint32		values[MIH_DATA_BYTES / sizeof(uint32)];
	uint16		starts[MIH_DATA_BYTES / sizeof(uint16) + 1];
	uint32		keys[MIH_KEYS_PER_PAGE];
	uint32		pages = 0;
	PGAlignedBlock image;

	for (Size i = 0; i < nitems;)
	{
		Page		page = image.data;
		uint32		first = (uint32) (items[i] >> 32);
		int			nvalues = 0,
					nkeys = 0;
		MihKeyPage *kp;

		CHECK_FOR_INTERRUPTS();
		for (; i < nitems; i++)
		{
			uint32		v = (uint32) (items[i] >> 32);
			int			nv;

			if (sparse)
				nv = nvalues > 0 && values[nvalues - 1] == v ? nvalues : nvalues + 1;
			else if ((uint64) v - first + 1 > MIH_DATA_BYTES / sizeof(uint16))
				break;
			else
				nv = (int) (v - first + 1);
			if (!mih_key_page_fits(nv, sparse, nkeys + 1))
				break;
			if (sparse && nv > nvalues)
				values[nvalues] = v;
			for (int x = nvalues; x < nv; x++)
				starts[x] = (uint16) nkeys;
			nvalues = nv;
			keys[nkeys++] = (uint32) items[i];
		}
		starts[nvalues] = (uint16) nkeys;

		mih_init_page(page, MIH_PAGE_KEYS);
		MihPageGetOpaque(page)->nitems = (uint16) nkeys;
		MihPageGetOpaque(page)->next = MihBuildTag(build_id);
		kp = MihKeyPageHeader(page);
		kp->first = first;
		kp->nvalues = (uint16) nvalues;
		kp->flags = sparse ? MIH_KEYS_SPARSE : 0;
		if (sparse)
			memcpy(mih_key_page_values(page), values, nvalues * sizeof(uint32));
		memcpy(mih_key_page_starts(page), starts, (nvalues + 1) * sizeof(uint16));
		memcpy(mih_key_page_keys(page), keys, nkeys * sizeof(uint32));
		if (pages >= dir_cap)
			elog(ERROR, "simhash_mih: key table %d needs more than %zu pages", j, dir_cap);
		dir[pages].first_value = first;
		write_page(index, page, &dir[pages].blkno, &hints[pages]);
		pages++;
	}
	pfree(items);
	return pages;
}

/* The refs of table 0 for the n rows, in the rows' order. */
static void
fill_refs(MihRef *refs, const uint64 *hashes, Size n, int m)
{
	for (Size i = 0; i < n; i++)
	{
		refs[i].key = sh_mih_rotate_block_to_top(hashes[i], m, 0);
		refs[i].ord = (uint32) i;
	}
}

/*
 * Writes a run: m tables (key tables if compact) of the n rows (hashes[i], tids[i]). Reorders the
 * rows by block 0 in place. A merge's rows come presorted (see MihPresorted; NULL: sort them).
 * With progress, the rows times tables to write and those written so far, table by table, go to
 * its pair of params (pg_stat_progress_create_index's tuples for CREATE INDEX, a merge's for
 * simhash_mih_merge_progress). Its pages carry the tag of build_id, given by mih_new_build_id.
 */
void
mih_write_tables(Relation index, uint64 *hashes, ItemPointerData *tids, Size n, int m, bool compact,
				 const MihPresorted *presorted, const MihProgress *progress, uint64 build_id, MihRun *run)
{
	MihRef	   *refs = palloc_extended(Max(n, 1) * sizeof(MihRef), MCXT_ALLOC_HUGE);
	/*
	 * Room for the pages of any table: a table 0 page holds at least 581 rows, a key page at least
	 * 800 keys but, dense, may span as few as 4,080 block values, of which a dense table has fewer
	 * than rows.
	 */
	Size		dir_cap = n / 512 + 2;
	MihFence   *dir = palloc_extended(dir_cap * sizeof(MihFence), MCXT_ALLOC_HUGE);
	Buffer	   *hints = palloc_extended(dir_cap * sizeof(Buffer), MCXT_ALLOC_HUGE);
	uint64	   *sorted_hashes;
	ItemPointerData *sorted_tids;

	if (presorted)
	{
		MihRef	   *segments = palloc_extended(Max(n, 1) * sizeof(MihRef), MCXT_ALLOC_HUGE);

		fill_refs(segments, hashes, n, m);
		mih_merge_refs(segments, presorted->start, presorted->nsegments, refs);
		pfree(segments);
	}
	else
	{
		fill_refs(refs, hashes, n, m);
		mih_sort_refs(refs, n);
	}
	sorted_hashes = palloc_extended(Max(n, 1) * sizeof(uint64), MCXT_ALLOC_HUGE);
	sorted_tids = palloc_extended(Max(n, 1) * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);
	for (Size i = 0; i < n; i++)
	{
		sorted_hashes[i] = hashes[refs[i].ord];
		sorted_tids[i] = tids[refs[i].ord];
	}
	memcpy(hashes, sorted_hashes, n * sizeof(uint64));
	memcpy(tids, sorted_tids, n * sizeof(ItemPointerData));
	pfree(sorted_hashes);
	pfree(sorted_tids);
	pfree(refs);

	if (progress)
		pgstat_progress_update_param(progress->total, (int64) n * m);
	memset(run, 0, sizeof(MihRun));
	run->nrows = n;
	run->flags = MIH_RUN_PACKED_ROWS | (compact ? 0 : MIH_RUN_HASHES);
	run->build_id = build_id;
	for (int j = 0; j < m; j++)
	{
		uint32		pages;

		if (j > 0 && compact)
			pages = write_key_table(index, m, j, run->build_id, hashes, n, dir, hints, dir_cap);
		else if (j > 0)
		{
			Size		nkeys;
			uint64	   *keys = mih_table_keys(hashes, n, m, j, &nkeys);

			pages = mih_write_table(index, m, j, run->build_id, keys, NULL, nkeys, dir, hints);
			pfree(keys);
		}
		else
			pages = mih_write_table(index, m, j, run->build_id, hashes, tids, n, dir, hints);
		run->table_pages[j] = pages;
		run->fence_head[j] = mih_write_item_chain(index, MIH_PAGE_FENCE, dir, sizeof(MihFence), pages);
		run->hint_head[j] = mih_write_item_chain(index, MIH_PAGE_HINTS, hints, sizeof(Buffer), pages);
		if (progress)
			pgstat_progress_update_param(progress->done, (int64) n * (j + 1));
	}
	for (int j = m; j < MIH_MAX_TABLES; j++)
		run->fence_head[j] = run->hint_head[j] = InvalidBlockNumber;
	mih_write_filters(index, hashes, n, m, run);
	pfree(dir);
	pfree(hints);
}

/* The number of tables: the "blocks" option, else the cheapest for the row count. */
int
mih_tables_for(Relation index, Size nrows)
{
	MihOptions *opts = (MihOptions *) index->rd_options;

	if (opts && opts->blocks != 0)
		return opts->blocks;
	/* Four tables would cost 38 bytes a row; the size budget is three's 30 (8 + 6, then 8 a table). */
	return sh_mih_tables_for_rows((double) nrows, MIH_MIN_TABLES, 3);
}

/* The "compact" option: key tables for tables 1..m-1 (format/mih_keys.h). */
bool
mih_compact_for(Relation index)
{
	MihOptions *opts = (MihOptions *) index->rd_options;

	return opts && opts->compact;
}
