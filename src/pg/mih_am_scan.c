/*
 * Scanning a simhash_mih index: sh <@ hamming_ball(q, k). The first call computes every answer
 * (probing the sorted tables, then reading the pending pages) and compares full hashes inside the
 * index, so the tids returned are exactly the rows within k (no recheck); later calls hand them
 * out. Dead rows that VACUUM has not yet removed are filtered by the heap's visibility check.
 */
#include "simhash_type.h"
#include "mih_am.h"

#include "access/relscan.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "utils/memutils.h"

#include "hamming_ball.h"
#include "mih_blocks.h"

/* Probing costs about four table-0 pages' worth of comparisons; beyond that, read table 0 whole. */
#define PROBES_PER_PAGE_READ	4

typedef struct MihScanState
{
	bool		computed;
	ItemPointerData *tids;
	int			ntids;
	int			cap;
	int			next;
	/* the query: every key must hold */
	int			nballs;
	uint64		centers[INDEX_MAX_KEYS];
	int			radii[INDEX_MAX_KEYS];
	int			probe;			/* the key whose ball is searched (the smallest) */
} MihScanState;

/* One table's probing context. */
typedef struct MihProbe
{
	Relation	index;
	const MihMeta *meta;
	const MihDirectory *dir;
	int			table;
	int			shift;
	uint32		mask;
	uint64		center;
	int			radius;
	int			r;				/* bits per block */
	Buffer		buffer;			/* the last page visited stays pinned */
	bool		stale;			/* a page was not of the build the meta copy describes */
	uint32	   *ords;			/* matches found through tables 1..m-1 */
	int			nords;
	int			ords_cap;
} MihProbe;

static bool
all_keys_hold(const MihScanState *so, uint64 h)
{
	for (int i = 0; i < so->nballs; i++)
		if (__builtin_popcountll(h ^ so->centers[i]) > so->radii[i])
			return false;
	return true;
}

static void
add_tid(MihScanState *so, const ItemPointerData *tid)
{
	if (so->ntids == so->cap)
	{
		so->cap *= 2;
		so->tids = repalloc_huge(so->tids, so->cap * sizeof(ItemPointerData));
	}
	so->tids[so->ntids++] = *tid;
}

/* Rows of a (hash, tid) page: table 0 or pending. */
static void
scan_rows_page(MihScanState *so, Page page, int from, int to)
{
	const uint64 *hashes = MihPageHashes(page);
	const ItemPointerData *tids = MihPageTids(page);

	for (int i = from; i < to; i++)
		if (all_keys_hold(so, hashes[i]) && ItemPointerIsValid(&tids[i]))
			add_tid(so, &tids[i]);
}

/*
 * Share-locks a page of the given table kind, or returns NULL (and marks the probe stale) if the
 * page is not of the build the meta copy describes. On a primary that cannot happen (a merge waits
 * for the meta pin this scan holds); a hot standby replays a merge without waiting for scans.
 */
static Page
visit(MihProbe *pr, BlockNumber blkno, uint16 kind)
{
	Page		page;

	if (BufferIsValid(pr->buffer) && BufferGetBlockNumber(pr->buffer) != blkno)
	{
		ReleaseBuffer(pr->buffer);
		pr->buffer = InvalidBuffer;
	}
	if (!BufferIsValid(pr->buffer))
		pr->buffer = ReadBuffer(pr->index, blkno);
	LockBuffer(pr->buffer, BUFFER_LOCK_SHARE);
	page = BufferGetPage(pr->buffer);
	if (PageIsNew(page) || MihPageGetOpaque(page)->kind != kind ||
		MihPageGetOpaque(page)->next != MihBuildTag(pr->meta->build_id))
	{
		LockBuffer(pr->buffer, BUFFER_LOCK_UNLOCK);
		pr->stale = true;
		return NULL;
	}
	return page;
}

/* True if an earlier table also finds h, which then reports it. */
static bool
found_by_earlier_table(const MihProbe *pr, uint64 h)
{
	int			m = pr->meta->ntables;

	for (int t = 0; t < pr->table; t++)
		if (__builtin_popcount(sh_mih_block_value(h, m, t) ^ sh_mih_block_value(pr->center, m, t)) <= pr->r)
			return true;
	return false;
}

static void
note_match(MihScanState *so, MihProbe *pr, Page page, int i, uint64 h)
{
	if (pr->table == 0)
	{
		const ItemPointerData *tid = &MihPageTids(page)[i];

		if (ItemPointerIsValid(tid))
			add_tid(so, tid);
		return;
	}
	if (found_by_earlier_table(pr, h))
		return;
	if (pr->nords == pr->ords_cap)
	{
		pr->ords_cap *= 2;
		pr->ords = repalloc_huge(pr->ords, pr->ords_cap * sizeof(uint32));
	}
	pr->ords[pr->nords++] = MihPageOrdinals(page)[i];
}

/* Every entry of table pr->table whose block equals v. */
static void
probe_value(MihScanState *so, MihProbe *pr, uint32 v)
{
	const uint32 *fences = pr->dir->first_values[pr->table];
	uint32		npages = pr->dir->pages[pr->table];
	uint32		lo = 0,
				hi = npages;

	/* lo = the first page whose first block value is >= v; v may also end the page before. */
	while (lo < hi)
	{
		uint32		mid = lo + (hi - lo) / 2;

		if (fences[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32 p = lo > 0 ? lo - 1 : 0; p < npages; p++)
	{
		Page		page;
		const uint64 *hashes;
		int			n,
					i,
					a,
					b;
		bool		past = false;

		if (p >= lo && fences[p] > v)
			break;
		page = visit(pr, pr->dir->blocks[pr->table][p], pr->table == 0 ? MIH_PAGE_TABLE0 : MIH_PAGE_TABLEJ);
		if (page == NULL)
			return;
		hashes = MihPageHashes(page);
		n = MihPageGetOpaque(page)->nitems;
		a = 0;
		b = n;
		while (a < b)
		{
			int			mid = a + (b - a) / 2;

			if ((uint32) ((hashes[mid] >> pr->shift) & pr->mask) < v)
				a = mid + 1;
			else
				b = mid;
		}
		for (i = a; i < n; i++)
		{
			uint64		h = hashes[i];

			if ((uint32) ((h >> pr->shift) & pr->mask) != v)
			{
				past = true;
				break;
			}
			if (all_keys_hold(so, h))
				note_match(so, pr, page, i, h);
		}
		LockBuffer(pr->buffer, BUFFER_LOCK_UNLOCK);
		if (past)
			break;
	}
}

static int
cmp_uint32(const void *a, const void *b)
{
	uint32		x = *(const uint32 *) a,
				y = *(const uint32 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/*
 * Writes every value within r bits of value (a len-bit block) into out[n..]; returns the new
 * count. Flips are chosen at increasing bit positions, so each value appears once.
 */
static int
block_neighbours(uint32 value, int len, int r, int first_bit, uint32 *out, int n)
{
	out[n++] = value;
	if (r == 0)
		return n;
	for (int bit = first_bit; bit < len; bit++)
		n = block_neighbours(value ^ ((uint32) 1 << bit), len, r - 1, bit + 1, out, n);
	return n;
}

/* Rows found through tables 1..m-1 are reported with their tids from table 0, in page order. */
static void
resolve_ordinals(MihScanState *so, MihProbe *pr)
{
	qsort(pr->ords, pr->nords, sizeof(uint32), cmp_uint32);
	for (int i = 0; i < pr->nords; i++)
	{
		uint32		ord = pr->ords[i];
		Page		page = visit(pr, pr->dir->blocks[0][ord / MIH_ROWS_PER_PAGE], MIH_PAGE_TABLE0);
		const ItemPointerData *tid;

		if (page == NULL)
			return;
		tid = &MihPageTids(page)[ord % MIH_ROWS_PER_PAGE];
		if (ItemPointerIsValid(tid))
			add_tid(so, tid);
		LockBuffer(pr->buffer, BUFFER_LOCK_UNLOCK);
	}
}

/* Returns false if the tables changed under the scan (see visit). */
static bool
probe_tables(MihScanState *so, Relation index, const MihMeta *meta)
{
	int			m = meta->ntables;
	uint64		center = so->centers[so->probe];
	int			radius = so->radii[so->probe];
	MihProbe	pr;
	double		probes = 0;

	pr.index = index;
	pr.meta = meta;
	pr.center = center;
	pr.radius = radius;
	pr.r = radius / m;
	pr.buffer = InvalidBuffer;
	pr.stale = false;
	pr.dir = mih_directory(index, meta);
	for (int j = 0; j < m; j++)
		probes += sh_mih_neighbourhood_size(sh_mih_block_len(m, j), pr.r);

	if (radius >= 64 || probes > (double) meta->table_pages[0] * PROBES_PER_PAGE_READ)
	{
		for (uint32 p = 0; p < meta->table_pages[0] && !pr.stale; p++)
		{
			Page		page;

			CHECK_FOR_INTERRUPTS();
			page = visit(&pr, pr.dir->blocks[0][p], MIH_PAGE_TABLE0);
			if (page == NULL)
				break;
			scan_rows_page(so, page, 0, MihPageGetOpaque(page)->nitems);
			LockBuffer(pr.buffer, BUFFER_LOCK_UNLOCK);
		}
	}
	else
	{
		uint32	   *values = palloc(sizeof(uint32) * (size_t) probes);

		pr.ords_cap = 64;
		pr.nords = 0;
		pr.ords = palloc(pr.ords_cap * sizeof(uint32));
		for (int j = 0; j < m; j++)
		{
			int			len = sh_mih_block_len(m, j);
			int			nvalues;

			pr.table = j;
			pr.shift = sh_mih_block_start(m, j);
			pr.mask = (uint32) ((UINT64_C(1) << len) - 1);
			nvalues = block_neighbours(sh_mih_block_value(center, m, j), len, pr.r, 0, values, 0);
			/* In value order, neighbouring values share pages. */
			qsort(values, nvalues, sizeof(uint32), cmp_uint32);
			for (int i = 0; i < nvalues && !pr.stale; i++)
				probe_value(so, &pr, values[i]);
		}
		if (!pr.stale)
			resolve_ordinals(so, &pr);
		pfree(values);
		pfree(pr.ords);
	}
	if (BufferIsValid(pr.buffer))
		ReleaseBuffer(pr.buffer);
	return !pr.stale;
}

/* Returns false if a page of the chain was recycled under the scan (see visit). */
static bool
scan_pending(MihScanState *so, Relation index, const MihMeta *meta)
{
	BlockNumber blkno = meta->pending_head;

	while (blkno != InvalidBlockNumber)
	{
		Buffer		buffer = ReadBuffer(index, blkno);
		Page		page;

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buffer, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buffer);
		if (PageIsNew(page) || MihPageGetOpaque(page)->kind != MIH_PAGE_PENDING)
		{
			UnlockReleaseBuffer(buffer);
			return false;
		}
		scan_rows_page(so, page, 0, MihPageGetOpaque(page)->nitems);
		blkno = MihPageGetOpaque(page)->next;
		UnlockReleaseBuffer(buffer);
	}
	return true;
}

static void
compute(IndexScanDesc scan)
{
	MihScanState *so = (MihScanState *) scan->opaque;
	MihMeta		meta;
	Buffer		meta_buf;

	bool		complete;

	so->computed = true;
	so->next = 0;
	so->ntids = 0;
	if (so->nballs == 0 || so->radii[so->probe] < 0)
		return;
	do
	{
		so->ntids = 0;
		/* The pin on the meta page keeps a merge from recycling the pages this copy describes. */
		meta_buf = mih_pin_meta(scan->indexRelation, &meta);
		complete = (meta.nrows == 0 || probe_tables(so, scan->indexRelation, &meta)) &&
			scan_pending(so, scan->indexRelation, &meta);
		ReleaseBuffer(meta_buf);
	} while (!complete);
}

IndexScanDesc
mih_beginscan(Relation index, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(index, nkeys, norderbys);
	MihScanState *so = palloc0(sizeof(MihScanState));

	so->cap = 64;
	so->tids = palloc(so->cap * sizeof(ItemPointerData));
	scan->opaque = so;
	return scan;
}

void
mih_rescan(IndexScanDesc scan, ScanKey keys, int nkeys, ScanKey orderbys, int norderbys)
{
	MihScanState *so = (MihScanState *) scan->opaque;

	if (keys && scan->numberOfKeys > 0)
		memmove(scan->keyData, keys, scan->numberOfKeys * sizeof(ScanKeyData));
	so->computed = false;
	so->nballs = 0;
	so->probe = 0;
	for (int i = 0; i < scan->numberOfKeys; i++)
	{
		ScanKey		key = &scan->keyData[i];
		HammingBall *ball;

		if (key->sk_flags & SK_ISNULL)
		{
			/* <@ is strict: a NULL ball matches nothing. */
			so->nballs = 1;
			so->probe = 0;
			so->radii[0] = -1;
			return;
		}
		ball = DatumGetHammingBall(key->sk_argument);
		so->centers[so->nballs] = ball->center;
		so->radii[so->nballs] = ball->radius;
		if (so->nballs == 0 || ball->radius < so->radii[so->probe])
			so->probe = so->nballs;
		so->nballs++;
	}
}

bool
mih_gettuple(IndexScanDesc scan, ScanDirection dir)
{
	MihScanState *so = (MihScanState *) scan->opaque;

	if (!so->computed)
		compute(scan);
	if (so->next >= so->ntids)
		return false;
	scan->xs_heaptid = so->tids[so->next++];
	scan->xs_recheck = false;
	return true;
}

int64
mih_getbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	MihScanState *so = (MihScanState *) scan->opaque;

	compute(scan);
	tbm_add_tuples(tbm, so->tids, so->ntids, false);
	return so->ntids;
}

void
mih_endscan(IndexScanDesc scan)
{
	MihScanState *so = (MihScanState *) scan->opaque;

	pfree(so->tids);
	pfree(so);
}
