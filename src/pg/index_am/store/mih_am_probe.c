/*
 * Probing the sorted tables of a simhash_mih index (see mih_probe.h), the costs that decide
 * how far to probe each table and when to read table 0 whole instead, and reading the pending and
 * NULL chains.
 */
#include "store/mih_probe.h"
#include "format/mih_keys.h"

#include "miscadmin.h"

#include "hamming.h"

#include "mih_blocks.h"

/*
 * Costs in entry comparisons (about a nanosecond each on the development machine): a probe
 * searches the directory and a page it pins and locks at random; a pass visits table 0's pages in
 * order. Measured at 1M and 10M rows: a probe costs about as much as 400 comparisons, a page read
 * in order about 200.
 */
#define COST_PROBE		400.0
#define COST_PAGE		200.0
/* A probe that a run's filter turns away: a bit test in memory. */
#define COST_FILTERED	10.0

void
mih_probe_begin(MihProbe *pr, Relation index, const MihMeta *meta, const MihRun *run,
				MihMatchFn match, void *arg)
{
	pr->index = index;
	pr->meta = meta;
	pr->run = run;
	pr->stale = false;
	pr->dir = mih_directory(index, meta, run, &pr->stale);
	pr->table = 0;
	pr->buffer = InvalidBuffer;
	mih_walk_start(&pr->walk, index);
	pr->match = match;
	pr->key_match = NULL;
	pr->arg = arg;
	pr->query = 0;
	pr->within = 64;
	mih_probe_table(pr, 0);
}

/* True if table j of the index is a key table (a compact index's tables 1..m-1). */
bool
mih_is_key_table(const MihMeta *meta, int j)
{
	return j > 0 && (meta->flags & MIH_FLAG_COMPACT) != 0;
}

void
mih_probe_table(MihProbe *pr, int j)
{
	int			len = sh_mih_block_len(pr->meta->ntables, j);

	pr->table = j;
	pr->shift = sh_mih_block_start(pr->meta->ntables, j);
	pr->mask = (uint32) ((UINT64_C(1) << len) - 1);
	pr->packed = j > 0 && (pr->run->flags & MIH_RUN_HASHES) != 0;
	pr->top = 64 - len;
	pr->rotation = 64 - pr->shift - len;
}

void
mih_probe_end(MihProbe *pr)
{
	if (BufferIsValid(pr->buffer))
		ReleaseBuffer(pr->buffer);
	pr->buffer = InvalidBuffer;
}

/*
 * Share-locks page p of a table, or returns NULL (and marks the probe stale) if the page is not of
 * the run the meta copy describes. On a primary that cannot happen (a merge waits for the meta
 * pin the scan holds); a hot standby replays a merge without waiting for scans. There a page of
 * another run has another tag; a page a merge in slices gave back to the same run has the same,
 * which the scan's end tells by the run's epoch (mih_runs_unchanged).
 */
Page
mih_probe_visit(MihProbe *pr, int table, uint32 p)
{
	BlockNumber blkno = pr->dir->blocks[table][p];
	Buffer	   *recent = &pr->dir->recent[table][p];
	uint16		kind = table == 0 ? mih_table0_kind(pr->run) : mih_tablej_kind(pr->meta, pr->run);
	Page		page;

	if (BufferIsValid(pr->buffer) && BufferGetBlockNumber(pr->buffer) != blkno)
	{
		ReleaseBuffer(pr->buffer);
		pr->buffer = InvalidBuffer;
	}
	if (!BufferIsValid(pr->buffer))
	{
		mih_check_link(&pr->walk, blkno);
		/* Probes visit pages at random: most are where this backend last found them. */
		pr->buffer = mih_read_recent(pr->index, blkno, recent);
	}
	LockBuffer(pr->buffer, BUFFER_LOCK_SHARE);
	page = BufferGetPage(pr->buffer);
	if (PageIsNew(page) || MihPageGetOpaque(page)->kind != kind ||
		MihPageGetOpaque(page)->next != MihBuildTag(pr->run->build_id))
	{
		LockBuffer(pr->buffer, BUFFER_LOCK_UNLOCK);
		pr->stale = true;
		return NULL;
	}
	mih_check_items(pr->index, blkno, page);
	return page;
}

static inline uint32
entry_value(const MihProbe *pr, uint64 h)
{
	return (uint32) ((h >> pr->shift) & pr->mask);
}

/*
 * The first of the n sorted entries of a page whose block is at least v, given that the page's
 * blocks lie between first and last (from the directory, so the search need not read the page's
 * ends). Block values are spread evenly (they are bits of hashes), so the search starts where v
 * would fall and widens by doubling: a few neighbouring cache lines instead of a binary search's
 * jumps across the page. Entry -1 counts as below v and entry n as reaching it.
 */
static int
first_at_least(const MihProbe *pr, const uint64 *hashes, int n, uint32 v, uint32 first, uint32 last)
{
	int			guess,
				lo,
				hi;

	if (n == 0)
		return 0;
	guess = v <= first ? 0 :
		v > last ? n - 1 :
		(int) Min((uint64) (v - first) * (uint64) n / ((uint64) (last - first) + 1), (uint64) (n - 1));
	if (entry_value(pr, hashes[guess]) < v)
	{
		lo = guess;
		for (int step = 1;; step *= 2)
		{
			hi = guess + step;
			if (hi >= n)
			{
				hi = n;
				break;
			}
			if (entry_value(pr, hashes[hi]) >= v)
				break;
			lo = hi;
		}
	}
	else
	{
		hi = guess;
		for (int step = 1;; step *= 2)
		{
			lo = guess - step;
			if (lo < 0)
			{
				lo = -1;
				break;
			}
			if (entry_value(pr, hashes[lo]) < v)
				break;
			hi = lo;
		}
	}
	/* entry lo is below v, entry hi reaches it */
	while (hi - lo > 1)
	{
		int			mid = lo + (hi - lo) / 2;

		if (entry_value(pr, hashes[mid]) < v)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/* The first of the n sorted values that is >= v (n if none). */
static uint32
lower_bound(const uint32 *values, uint32 n, uint32 v)
{
	uint32		lo = 0,
				hi = n;

	while (lo < hi)
	{
		uint32		mid = lo + (hi - lo) / 2;

		if (values[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first page of table pr->table whose first block value is >= v (v may also end the one before). */
static uint32
first_page_from(const MihProbe *pr, uint32 v)
{
	return lower_bound(pr->dir->first_values[pr->table], pr->dir->pages[pr->table], v);
}

/*
 * The keys of block value v on key page p of table pr->table: key[*a] .. key[*b - 1]. Returns the
 * page's last block value.
 */
static uint32
key_run(const MihProbe *pr, uint32 p, Page page, uint32 v, int *a, int *b)
{
	const MihKeyPage *kp = MihKeyPageHeader(page);
	const uint16 *starts = mih_key_page_starts(page);
	int			nkeys = MihPageGetOpaque(page)->nitems;
	int			i;
	uint32		last;

	*a = *b = 0;
	if (kp->nvalues == 0)
		return kp->first;
	if (kp->flags & MIH_KEYS_SPARSE)
	{
		const uint32 *values = mih_key_page_values(page);

		last = values[kp->nvalues - 1];
		i = (int) lower_bound(values, kp->nvalues, v);
		if (i == kp->nvalues || values[i] != v)
			return last;
	}
	else
	{
		last = kp->first + kp->nvalues - 1;
		if (v < kp->first || v > last)
			return last;
		i = (int) (v - kp->first);
	}
	if (starts[i] > starts[i + 1] || starts[i + 1] > nkeys)
		mih_corrupt(pr->index, pr->dir->blocks[pr->table][p], "the key offsets of block value %u are out of order", v);
	*a = starts[i];
	*b = starts[i + 1];
	return last;
}

/* Calls pr->key_match for every key of key table pr->table whose block equals v. */
static void
probe_keys(MihProbe *pr, uint32 v)
{
	const uint32 *fences = pr->dir->first_values[pr->table];
	uint32		npages = pr->dir->pages[pr->table];
	uint32		lo = first_page_from(pr, v);

	Assert(pr->key_match != NULL);
	if (!mih_filter_may_hold(pr->dir, pr->table, v))
		return;
	for (uint32 p = lo > 0 ? lo - 1 : 0; p < npages; p++)
	{
		Page		page;
		const uint32 *keys;
		int			a,
					b;
		uint32		last;

		if (p >= lo && fences[p] > v)
			break;
		page = mih_probe_visit(pr, pr->table, p);
		if (page == NULL)
			return;
		keys = mih_key_page_keys(page);
		last = key_run(pr, p, page, v, &a, &b);
		for (int i = a; i < b; i++)
			pr->key_match(pr, v, keys[i]);
		LockBuffer(pr->buffer, BUFFER_LOCK_UNLOCK);
		if (last > v)
			break;
	}
}

/* The hash of a key of the table probed (sh_mih_rotate_block_back, its rotation known). */
static inline uint64
key_hash(const MihProbe *pr, uint64 key)
{
	return (key >> pr->rotation) | (key << ((64 - pr->rotation) & 63));
}

/*
 * match_value_on_page for a page of packed keys (MIH_PAGE_HASHES): the search is on the keys'
 * differences from the page's first, from where v would fall between the page's ends.
 */
static pg_attribute_always_inline bool
match_value_on_packed(MihProbe *pr, Page page, uint32 p, uint32 v)
{
	const uint32 *fences = pr->dir->first_values[pr->table];
	uint32		npages = pr->dir->pages[pr->table];
	const MihPackedPage *pk = MihPackedHeader(page);
	const uint8 *data = MihPackedData(page);
	int			width = pk->width;
	uint32		n = MihPageGetOpaque(page)->nitems;
	uint64		lowest = (uint64) v << pr->top;	/* the least key of block value v */
	uint32		first = fences[p],
				last = p + 1 < npages ? fences[p + 1] : pr->mask;
	uint32		i;

	if (n == 0)
		return false;
	if (lowest <= pk->first)
		i = 0;
	else
	{
		uint32		guess = v <= first ? 0 : v > last ? n - 1 :
			(uint32) Min((uint64) (v - first) * n / ((uint64) (last - first) + 1), (uint64) (n - 1));

		i = sh_packed_lower_bound(data, width, n, lowest - pk->first, guess);
	}
	for (; i < n; i++)
	{
		uint64		key = pk->first + sh_packed_get(data, width, i);
		uint64		h;

		if ((uint32) (key >> pr->top) != v)
			return true;
		h = key_hash(pr, key);
		if (sh_hamming(h, pr->query) <= pr->within)
			pr->match(pr, page, (int) i, h);
	}
	return false;
}

/*
 * The entries of block value v on page p of table pr->table (share-locked): calls pr->match for
 * those within pr->within bits of pr->query. Returns true if the page holds an entry past v, so no
 * later page holds v. The hot loop of mih_probe_value and mih_probe_values: always inlined, as
 * GCC would otherwise call it for every page and value.
 */
static pg_attribute_always_inline bool
match_value_on_page(MihProbe *pr, Page page, uint32 p, uint32 v)
{
	const uint32 *fences = pr->dir->first_values[pr->table];
	uint32		npages = pr->dir->pages[pr->table];
	const uint64 *hashes = MihPageHashes(page);
	int			n = MihPageGetOpaque(page)->nitems;

	if (pr->packed)
		return match_value_on_packed(pr, page, p, v);
	for (int i = first_at_least(pr, hashes, n, v, fences[p], p + 1 < npages ? fences[p + 1] : pr->mask);
		 i < n; i++)
	{
		uint64		h = hashes[i];

		if (entry_value(pr, h) != v)
			return true;
		/* Most entries of a deep probe are far: skip them before the callback. */
		if (sh_hamming(h, pr->query) <= pr->within)
			pr->match(pr, page, i, h);
	}
	return false;
}

/*
 * Calls pr->match for every entry of table pr->table whose block equals v (or pr->key_match for
 * every key, on a key table).
 */
void
mih_probe_value(MihProbe *pr, uint32 v)
{
	const uint32 *fences = pr->dir->first_values[pr->table];
	uint32		npages = pr->dir->pages[pr->table];
	uint32		lo;

	if (mih_is_key_table(pr->meta, pr->table))
	{
		probe_keys(pr, v);
		return;
	}
	if (!mih_filter_may_hold(pr->dir, pr->table, v))
		return;
	lo = first_page_from(pr, v);
	for (uint32 p = lo > 0 ? lo - 1 : 0; p < npages; p++)
	{
		Page		page;
		bool		past;

		if (p >= lo && fences[p] > v)
			break;
		page = mih_probe_visit(pr, pr->table, p);
		if (page == NULL)
			return;
		past = match_value_on_page(pr, page, p, v);
		LockBuffer(pr->buffer, BUFFER_LOCK_UNLOCK);
		if (past)
			break;
	}
}

/* How many values ahead mih_probe_values prefetches the entries of (a power of 2). */
#define PREFETCH_AHEAD	8
/* ... and the bytes this far either side of where their entries likely are (two cache lines). */
#define PREFETCH_SPREAD	128

/*
 * first_page_from for a value no smaller than the one whose answer was from: values probed in
 * increasing order fall on the same or the next few pages, so the search gallops forward from
 * there instead of halving the whole directory.
 */
static uint32
first_page_after(const MihProbe *pr, uint32 v, uint32 from)
{
	const uint32 *fences = pr->dir->first_values[pr->table];
	uint32		npages = pr->dir->pages[pr->table];
	uint32		lo = from,
				step = 1;

	/* fences[lo - 1] < v; find hi with fences[hi] >= v (or the end) */
	while (lo < npages && fences[lo] < v)
	{
		uint32		hi = Min(lo + step, npages);

		if (hi == npages || fences[hi] >= v)
			return lo + 1 + lower_bound(fences + lo + 1, hi - lo - 1, v);
		lo = hi;
		step *= 2;
	}
	return lo;
}

/*
 * Asks the CPU for the cache lines where value v's entries likely are (around the guess
 * first_at_least starts from) and for the header and special space of the page, lo being
 * first_page_from(v), if the page is where this backend last found it. Only a hint: the buffer
 * may hold another page by now, and nothing is read from it here. Always inlined: as a function of
 * its own it has no effect a compiler can see, so GCC found it pure and dropped every call to it
 * (GCC 12 at -O2: not one prefetch in the library, and nearest neighbours took 1.5x-2x the time).
 */
static pg_attribute_always_inline void
prefetch_value(const MihProbe *pr, uint32 v, uint32 lo)
{
	uint32		npages = pr->dir->pages[pr->table];
	const uint32 *fences = pr->dir->first_values[pr->table];
	uint32		p = lo;
	Buffer		buffer;
	uint32		first,
				last;
	uint64		bytes,
				guess;
	char	   *block;
	const char *data;

	if (p > 0 && (p == npages || fences[p] > v))
		p--;
	if (p >= npages)
		return;
	buffer = pr->dir->recent[pr->table][p];
	if (buffer <= 0 || buffer > NBuffers)
		return;					/* none yet, a local buffer, or a hint from a server with more */
	block = (char *) BufferGetBlock(buffer);
	first = fences[p];
	last = p + 1 < npages ? fences[p + 1] : pr->mask;
	/*
	 * Where the entries lie: packed keys filling the page after their header, or 8-byte hashes, as
	 * many as a page of table 0 holds on average (its tids are packed too, so pages vary).
	 */
	data = PageGetContents(block) + (pr->packed ? sizeof(MihPackedPage) : 0);
	bytes = pr->packed ? MIH_PACKED_BYTES - 8 :
		pr->table > 0 ? sizeof(uint64) * MIH_REFS_PER_PAGE :
		sizeof(uint64) * Max(pr->run->nrows / Max(pr->run->table_pages[0], 1), 1);
	guess = v <= first ? 0 : Min((uint64) (v - first) * bytes / ((uint64) (last - first) + 1), bytes - 1);
	/* The guess is off by a dozen entries or so: the lines around it too. */
	for (int64 i = Max((int64) guess - PREFETCH_SPREAD, 0); i <= (int64) Min(guess + PREFETCH_SPREAD, bytes - 1); i += 64)
		__builtin_prefetch(data + i);
	/* a packed page's first key and width */
	if (pr->packed)
		__builtin_prefetch(PageGetContents(block));
	/* the header and special space that mih_probe_visit checks */
	__builtin_prefetch(block);
	__builtin_prefetch(block + BLCKSZ - sizeof(MihPageOpaque));
}

/*
 * Calls pr->match for every entry of table pr->table whose block is one of the n values, sorted
 * increasing (or pr->key_match for every key, on a key table, probed value by value): the same as
 * mih_probe_value for each, but a page that holds several of the values is pinned, locked and
 * checked once for all of them, the directory is searched forward from the last value's page, and
 * the entries of values a few ahead are prefetched, so that their cache misses overlap. A deep
 * nearest-neighbour level probes thousands of values, several to a page; a radius, hundreds.
 */
void
mih_probe_values(MihProbe *pr, const uint32 *values, int n)
{
	const uint32 *fences = pr->dir->first_values[pr->table];
	uint32		npages = pr->dir->pages[pr->table];
	uint32		locked = npages;	/* the page share-locked, npages if none */
	Page		page = NULL;
	uint32		los[PREFETCH_AHEAD];	/* first_page_from(values[k]) for the next few k */
	uint32		ahead = 0;		/* los[] holds values[k .. ahead - 1] */

	if (mih_is_key_table(pr->meta, pr->table))
	{
		for (int k = 0; k < n && !pr->stale; k++)
			mih_probe_value(pr, values[k]);
		return;
	}
	for (int k = 0; k < n && !pr->stale; k++)
	{
		uint32		v = values[k];
		uint32		lo;

		/* filtered values end in memory, with no page visit to check at */
		if ((k & 255) == 0)
			CHECK_FOR_INTERRUPTS();
		for (; ahead < (uint32) n && ahead <= (uint32) k + PREFETCH_AHEAD - 1; ahead++)
		{
			uint32		from = ahead == 0 ? 0 : los[(ahead - 1) % PREFETCH_AHEAD];

			los[ahead % PREFETCH_AHEAD] = first_page_after(pr, values[ahead], from);
			prefetch_value(pr, values[ahead], los[ahead % PREFETCH_AHEAD]);
		}
		lo = los[k % PREFETCH_AHEAD];
		if (!mih_filter_may_hold(pr->dir, pr->table, v))
			continue;
		for (uint32 p = lo > 0 ? lo - 1 : 0; p < npages; p++)
		{
			if (p >= lo && fences[p] > v)
				break;
			if (p != locked)
			{
				if (locked < npages)
					LockBuffer(pr->buffer, BUFFER_LOCK_UNLOCK);
				locked = npages;
				CHECK_FOR_INTERRUPTS();
				page = mih_probe_visit(pr, pr->table, p);
				if (page == NULL)
					return;
				locked = p;
			}
			if (match_value_on_page(pr, page, p, v))
				break;
		}
	}
	if (locked < npages)
		LockBuffer(pr->buffer, BUFFER_LOCK_UNLOCK);
}

/*
 * Appends to out[] the values that agree with cur above bit `bit` and are within r more flipped bits
 * (exactly r if exactly) at bits bit..0, in increasing order: at each bit, the branch that puts a 0
 * there comes first. Once no flips are left, the rest of cur is the only value.
 */
static int
neighbours(uint32 cur, int bit, int r, bool exactly, uint32 *out, int n)
{
	uint32		flipped;

	if (r == 0 || bit < 0)
	{
		if (r == 0 || !exactly)
			out[n++] = cur;
		return n;
	}
	if (exactly && r > bit + 1)
		return n;				/* too few bits left for the flips */
	flipped = cur ^ ((uint32) 1 << bit);
	if (cur & ((uint32) 1 << bit))
	{
		n = neighbours(flipped, bit - 1, r - 1, exactly, out, n);
		return neighbours(cur, bit - 1, r, exactly, out, n);
	}
	n = neighbours(cur, bit - 1, r, exactly, out, n);
	return neighbours(flipped, bit - 1, r - 1, exactly, out, n);
}

/*
 * Writes every value within r bits (exactly r bits if exactly) of value, a len-bit block, into
 * out[], sorted (neighbouring values share pages); returns the count. The values are generated in
 * order, from the top bit down, so no sort is needed (a sort was a fifth of a deep probe's time).
 * The caller sizes out[] with sh_mih_neighbourhood_size(len, r).
 */
int
mih_block_values(uint32 value, int len, int r, bool exactly, uint32 *out)
{
	return neighbours(value, len - 1, r, exactly, out, 0);
}

/* The cost of one probe of a run: its filters turn most probes of a small run away. */
static double
probe_cost(const MihRun *run)
{
	return run->filter_bits == 0 ? COST_PROBE : COST_FILTERED + mih_filter_fill(run) * COST_PROBE;
}

/*
 * The cost of probing table j of a run through the given level (-1: not at all), in entry
 * comparisons.
 */
double
mih_level_cost(const MihMeta *meta, const MihRun *run, int j, int level)
{
	return sh_mih_level_cost(sh_mih_block_len(meta->ntables, j), level, probe_cost(run), (double) run->nrows);
}

/* The cost of a pass over a run: every row of table 0, its pages in order. */
double
mih_pass_cost(const MihRun *run)
{
	return (double) run->nrows + COST_PAGE * run->table_pages[0];
}

/*
 * The cheapest levels that find every row of a run within radius bits (sh_mih_radius_levels);
 * their cost.
 */
double
mih_radius_levels(const MihMeta *meta, const MihRun *run, int radius, int *levels)
{
	Assert(radius >= 0 && radius < 64);
	return sh_mih_radius_levels(meta->ntables, radius, probe_cost(run), (double) run->nrows, levels);
}

/*
 * Calls fn for every page of table 0, share-locked. Returns false if the tables changed under the
 * scan (see mih_probe_visit).
 */
bool
mih_probe_read_table0(MihProbe *pr, MihRowsFn fn, void *arg)
{
	for (uint32 p = 0; pr->run->nrows > 0 && p < pr->run->table_pages[0]; p++)
	{
		Page		page;

		CHECK_FOR_INTERRUPTS();
		page = mih_probe_visit(pr, 0, p);
		if (page == NULL)
			return false;
		fn(arg, page, MihPageGetOpaque(page)->kind);
		LockBuffer(pr->buffer, BUFFER_LOCK_UNLOCK);
	}
	return true;
}

/*
 * The heap tid of row ord of table 0 (invalid if VACUUM cleared it), for rows found through the
 * other tables of a run of layout 2. Returns false if the tables changed under the scan.
 */
bool
mih_probe_ordinal_tid(MihProbe *pr, uint32 ord, ItemPointerData *tid)
{
	Page		page;

	if (ord >= pr->run->nrows)
		mih_corrupt(pr->index, MIH_META_BLKNO, "a table refers to row %u of table 0, which has %lu rows",
					ord, (unsigned long) pr->run->nrows);
	/* (mih_validate_meta: a run of row numbers has at least nrows / 582 pages of whole tids) */
	Assert(!(pr->run->flags & MIH_RUN_PACKED_ROWS) && ord / MIH_ROWS_PER_PAGE < pr->dir->pages[0]);
	page = mih_probe_visit(pr, 0, ord / MIH_ROWS_PER_PAGE);
	if (page == NULL)
		return false;
	if (ord % MIH_ROWS_PER_PAGE >= MihPageGetOpaque(page)->nitems)
		mih_corrupt(pr->index, BufferGetBlockNumber(pr->buffer), "row %u of table 0 is not on its page", ord);
	*tid = MihPageTids(page)[ord % MIH_ROWS_PER_PAGE];
	LockBuffer(pr->buffer, BUFFER_LOCK_UNLOCK);
	return true;
}

typedef struct MihRowsOf
{
	const uint64 *keys;			/* the hashes wanted, rotated as table 0 sorts them */
	Size		n;
	Size		next;			/* keys[next] is the first not below the entries visited */
	MihTidFn	fn;
	void	   *arg;
} MihRowsOf;

/* An entry of table 0 whose block 0 is a wanted hash's: its row, if it has that hash. */
static void
row_of(MihProbe *pr, Page page, int i, uint64 h)
{
	MihRowsOf  *ro = (MihRowsOf *) pr->arg;
	uint64		key = sh_mih_rotate_block_to_top(h, pr->meta->ntables, 0);

	/* Entries come in table 0's order, which is the keys' order: a merge of the two. */
	while (ro->next < ro->n && ro->keys[ro->next] < key)
		ro->next++;
	if (ro->next < ro->n && ro->keys[ro->next] == key)
	{
		ItemPointerData tid = mih_row_tid(page, i);

		if (ItemPointerIsValid(&tid))
			ro->fn(ro->arg, h, &tid);
	}
}

/*
 * Calls fn with each live row of table 0 whose hash is one of the n wanted, given as keys (the
 * hash rotated by sh_mih_rotate_block_to_top of block 0, table 0's order), sorted and distinct:
 * how a hash found in tables 1..m-1 of a run of MIH_RUN_HASHES is turned into rows. Table 0 is
 * probed at the keys' block 0 values in one batch (mih_probe_values: a page holding several is
 * visited once, the next ones prefetched), and its entries are merged with the keys. The probe is
 * left as it was. Returns false if the tables changed under the scan.
 */
bool
mih_probe_rows_of(MihProbe *pr, const uint64 *keys, Size n, MihTidFn fn, void *arg)
{
	MihMatchFn	match = pr->match;
	void	   *match_arg = pr->arg;
	uint64		query = pr->query;
	int			within = pr->within;
	int			table = pr->table;
	int			len = sh_mih_block_len(pr->meta->ntables, 0);
	MihRowsOf	ro = {keys, n, 0, fn, arg};
	uint32	   *values;
	int			nvalues = 0;

	/* Most runs of most queries find nothing through tables 1..m-1: no probe then. */
	if (n == 0)
		return !pr->stale;
	values = palloc(n * sizeof(uint32));
	for (Size i = 0; i < n; i++)
	{
		uint32		v = (uint32) (keys[i] >> (64 - len));

		if (nvalues == 0 || values[nvalues - 1] != v)
			values[nvalues++] = v;
	}
	mih_probe_table(pr, 0);
	pr->match = row_of;
	pr->arg = &ro;
	pr->within = 64;
	mih_probe_values(pr, values, nvalues);
	pr->match = match;
	pr->arg = match_arg;
	pr->query = query;
	pr->within = within;
	mih_probe_table(pr, table);
	pfree(values);
	return !pr->stale;
}

/*
 * Calls fn for every page of a chain of (hash, tid) pages of the given kind. Returns false if a
 * page of the chain was recycled under the scan (see mih_probe_visit): the caller starts over.
 */
static bool
read_chain(Relation index, BlockNumber head, uint16 kind, MihRowsFn fn, void *arg)
{
	BlockNumber blkno = head;
	MihWalk		walk;

	mih_walk_start(&walk, index);
	while (blkno != InvalidBlockNumber)
	{
		Buffer		buffer = mih_read_chain_page(&walk, blkno, kind);
		Page		page;

		if (!BufferIsValid(buffer))
			return false;
		page = BufferGetPage(buffer);
		fn(arg, page, kind);
		blkno = MihPageGetOpaque(page)->next;
		UnlockReleaseBuffer(buffer);
	}
	return true;
}

/*
 * Calls fn for every page of the sealed and pending chains of meta, and of its NULL chain if
 * nulls. Returns false if the scan must start over: a page was recycled under it, or, if meta was
 * copied on a hot standby (on_standby), a flush or merge was replayed since (its generation
 * changed), which may have freed the chains' pages and given them to a new chain of the same
 * kind, unseen. (On a primary, the scan's meta pin rules that out.) Scans read the chains right
 * after copying meta, so that this seldom happens.
 */
bool
mih_read_chains(Relation index, const MihMeta *meta, bool nulls, bool on_standby, MihRowsFn fn, void *arg)
{
	return read_chain(index, meta->sealed_head, MIH_PAGE_PENDING, fn, arg) &&
		read_chain(index, meta->pending_head, MIH_PAGE_PENDING, fn, arg) &&
		(!nulls || read_chain(index, meta->nulls_head, MIH_PAGE_NULLS, fn, arg)) &&
		mih_generation_unchanged(index, meta, on_standby);
}
