/*
 * Nearest neighbours in a simhash_mih index: ORDER BY sh <-> q, exact distances, no re-sort.
 *
 * Rows are returned in increasing (distance, tid) order; a row's place in that order is its key,
 * distance << 48 | tid, and a NULL hash (or a NULL query) has distance 65, after every other.
 * The last key returned is all the scan needs to go on after a restart, so each call works under
 * its own pin of the meta page and starts over (past that key) if a flush or merge changed the runs.
 *
 * Levels: probing table j at level t visits the block values exactly t bits from the query's block
 * j, and finds the rows whose block j is that far. Tables go up one level at a time, the cheapest
 * next step first. When table j has been probed through level t_j, every row within
 * sum_j (t_j + 1) - 1 bits has been found (a row missed by every table is more than t_j bits away
 * on every block j), so the distances up to that bound are final and are returned; farther rows
 * wait in their distance's bucket. Each step raises the bound by one bit. Every run of the index
 * has the same m tables, so a step probes table j at its next level in every run, and the bound
 * holds for all of them. Sealed, pending and NULL rows are read into the buckets at the start.
 * Steps are costed in entry comparisons (mih_level_cost): a probe is a random page visit plus the
 * rows sharing a block value; they go on while cheap, or while a waiting row becomes final within
 * the cost of one pass (worth_probing).
 *
 * Passes: when probing further would cost more than a pass, each further call reads table 0 of
 * every run, the sealed, pending and NULL rows once and keeps the smallest `cap` keys past the last
 * one returned (a bounded buffer, cut in half by a selection whenever it fills); cap doubles with
 * each pass, up to work_mem. A pass that kept everything it saw ends the scan.
 */
#include "simhash_type.h"
#include "store/mih_probe.h"
#include "am/mih_knn.h"
#include "am/mih_scan.h"

#include "access/xlog.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "hamming.h"
#include "mih_blocks.h"
#include "scan_bridge.h"

#define DIST_NULL		65		/* a NULL hash or query: after every distance */
#define NDIST			(DIST_NULL + 1)
#define KEY(d, blk, off) (((uint64) (d) << 48) | ((uint64) (blk) << 16) | (uint64) (off))
#define KEY_DIST(key)	((int) ((key) >> 48))
#define FIRST_CAP		256
#define SPECULATIVE_SHARE	0.125	/* of a pass, for levels no row found asks for */

/*
 * A level bucket entry: a tid packed as in a key, or (with ORD_FLAG) an ordinal in table 0 of a
 * run of layout 2 (the run's place in the meta page above bit 32). A row found through tables
 * 1..m-1 of a run of MIH_RUN_HASHES waits as its hash instead (MihHashRef).
 */
#define ORD_FLAG		(UINT64_C(1) << 63)
#define ORD_REF(run, ord)	(ORD_FLAG | ((uint64) (run) << 32) | (uint64) (ord))
#define ORD_RUN(ref)	((int) (((ref) >> 32) & 0xFF))

typedef enum
{
	KNN_LEVELS,
	KNN_PASSES,
	KNN_DONE
} MihKnnPhase;

typedef struct MihRefs
{
	uint64	   *items;
	int			n;
	int			cap;
} MihRefs;

/* A hash found through tables 1..m-1 of run `run`, rotated as its table 0 sorts it. */
typedef struct MihHashRef
{
	uint64		key;
	uint32		run;
} MihHashRef;

typedef struct MihHashRefs
{
	MihHashRef *items;
	int			n;
	int			cap;
} MihHashRefs;

struct MihKnnState
{
	MemoryContext cxt;			/* holds everything below; reset when the scan starts over */
	uint64		query;
	bool		null_query;
	bool		returned;		/* a row was returned: after is its key */
	uint64		after;
	bool		started;		/* the state below describes the runs of generation */
	uint64		generation;
	MihKnnPhase phase;
	/* levels */
	int			levels[MIH_MAX_TABLES];	/* the last level probed on each table, -1 before any */
	double		spent;			/* cost of the levels probed (mih_level_cost) */
	int			bound;			/* every row within bound bits is in found[] */
	int			horizon;		/* the farthest distance levels can make final; beyond, passes */
	uint64		block_masks[MIH_MAX_TABLES];
	int			emit;			/* the next distance to return */
	MihRefs		found[NDIST];
	MihHashRefs found_hashes[NDIST];
	int			nfound;			/* entries in found[] and found_hashes[] ... */
	int			max_found;		/* ... at most this many (work_mem), else passes */
	bool		overflow;		/* found[] lacks rows it had no room for */
	/* passes */
	int			cap;
	/* the keys to return, sorted */
	uint64	   *ready;
	int			nready;
	int			next_ready;
	int			ready_cap;
};

#define ST_SORT sort_keys
#define ST_ELEMENT_TYPE uint64
#define ST_COMPARE(a, b) (*(a) < *(b) ? -1 : *(a) > *(b) ? 1 : 0)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

static uint64
tid_key(int d, const ItemPointerData *tid)
{
	return KEY(d, ItemPointerGetBlockNumberNoCheck(tid), ItemPointerGetOffsetNumberNoCheck(tid));
}

/* The most keys a scan keeps at once: half of work_mem, at least FIRST_CAP. */
static int
max_keys(void)
{
	Size		keys = (Size) work_mem * 1024 / (2 * sizeof(uint64));

	return (int) Max(FIRST_CAP, Min(keys, INT_MAX / 2));
}

/* Counts one more entry of found[] or found_hashes[]; false (an overflow) if there is no room. */
static bool
count_found(MihKnnState *st)
{
	if (st->nfound >= st->max_found)
	{
		st->overflow = true;
		return false;
	}
	st->nfound++;
	return true;
}

/* items, with room for one more of n items of the given size (*cap grows by doubling). */
static void *
room_for_one(void *items, int n, int *cap, Size size)
{
	if (n < *cap)
		return items;
	*cap = Max(*cap * 2, 16);
	return items ? repalloc_huge(items, *cap * size) : palloc(*cap * size);
}

static void
add_found(MihKnnState *st, int d, uint64 ref)
{
	MihRefs    *refs = &st->found[d];

	if (!count_found(st))
		return;
	refs->items = room_for_one(refs->items, refs->n, &refs->cap, sizeof(uint64));
	refs->items[refs->n++] = ref;
}

static void
add_found_hash(MihKnnState *st, int d, uint32 run, uint64 key)
{
	MihHashRefs *refs = &st->found_hashes[d];

	if (!count_found(st))
		return;
	refs->items = room_for_one(refs->items, refs->n, &refs->cap, sizeof(MihHashRef));
	refs->items[refs->n].key = key;
	refs->items[refs->n].run = run;
	refs->n++;
}

static bool
bucket_empty(const MihKnnState *st, int d)
{
	return st->found[d].n == 0 && st->found_hashes[d].n == 0;
}

/* True if a row at distance d may still be returned (its key may be past the last one). */
static bool
not_passed(const MihKnnState *st, int d)
{
	return !st->returned || d >= KEY_DIST(st->after);
}

static int
distance(const MihKnnState *st, uint64 h)
{
	return st->null_query ? DIST_NULL : sh_hamming(h, st->query);
}

/* Forgets every bucket and ready key. */
static void
reset_memory(MihKnnState *st)
{
	MemoryContextReset(st->cxt);
	memset(st->found, 0, sizeof(st->found));
	memset(st->found_hashes, 0, sizeof(st->found_hashes));
	st->nfound = 0;
	st->overflow = false;
	st->ready = NULL;
	st->nready = st->next_ready = st->ready_cap = 0;
}

MihKnnState *
mih_knn_begin(void)
{
	MihKnnState *st = palloc0(sizeof(MihKnnState));

	st->cxt = AllocSetContextCreate(CurrentMemoryContext, "simhash_mih nearest neighbours",
									ALLOCSET_DEFAULT_SIZES);
	return st;
}

void
mih_knn_rescan(IndexScanDesc scan)
{
	MihKnnState *st = ((MihScanState *) scan->opaque)->knn;
	ScanKey		key = &scan->orderByData[0];

	reset_memory(st);
	st->null_query = (key->sk_flags & SK_ISNULL) != 0;
	st->query = st->null_query ? 0 : DatumGetSimhash(key->sk_argument);
	st->returned = false;
	st->started = false;
}

void
mih_knn_end(IndexScanDesc scan)
{
	MemoryContextDelete(((MihScanState *) scan->opaque)->knn->cxt);
}

/* ---- levels -------------------------------------------------------------------------------- */

typedef struct MihLevelProbe
{
	MihScanState *so;
	MihKnnState *st;
	int			level;
} MihLevelProbe;

/* An entry of table pr->table whose block is exactly lp->level bits from the query's. */
static void
level_match(MihProbe *pr, Page page, int i, uint64 h)
{
	MihLevelProbe *lp = (MihLevelProbe *) pr->arg;
	MihKnnState *st = lp->st;
	uint64		x = h ^ st->query;
	int			d = sh_popcount64(x);

	/* Most rows a probe meets are too far for the levels to return: the passes will. */
	if (d > st->horizon || !not_passed(st, d))
		return;
	/* A row is reported once: by the first step that reaches it (no other table has yet). */
	for (int t = 0; t < pr->meta->ntables; t++)
		if (t != pr->table && sh_popcount64(x & st->block_masks[t]) <= st->levels[t])
			return;
	if (!mih_all_keys_hold(lp->so, h))
		return;
	if (pr->table == 0)
	{
		ItemPointerData tid = mih_row_tid(page, i);

		if (ItemPointerIsValid(&tid))
			add_found(st, d, tid_key(0, &tid));
	}
	else if (pr->run->flags & MIH_RUN_HASHES)
		add_found_hash(st, d, (uint32) (pr->run - pr->meta->runs),
					   sh_mih_rotate_block_to_top(h, pr->meta->ntables, 0));
	else
		add_found(st, d, ORD_REF(pr->run - pr->meta->runs, MihPageOrdinals(page)[i]));
}

/* Pending rows go to their distance's bucket, NULL rows to the last one. */
static void
chain_rows(void *arg, Page page, uint16 kind)
{
	MihLevelProbe *lp = (MihLevelProbe *) arg;
	const uint64 *hashes = MihPageHashes(page);
	const ItemPointerData *tids = MihPageTids(page);
	int			n = MihPageGetOpaque(page)->nitems;

	for (int i = 0; i < n; i++)
	{
		int			d;

		if (!ItemPointerIsValid(&tids[i]))
			continue;
		if (kind == MIH_PAGE_NULLS)
			d = DIST_NULL;
		else if (!mih_all_keys_hold(lp->so, hashes[i]))
			continue;
		else
			d = distance(lp->st, hashes[i]);
		if (d <= lp->st->horizon && not_passed(lp->st, d))
			add_found(lp->st, d, tid_key(0, &tids[i]));
	}
}

/* The cost of probing table j through the given level in every run. */
static double
level_cost(const MihMeta *meta, int j, int level)
{
	double		cost = 0;

	for (uint32 r = 0; r < meta->nruns; r++)
		cost += mih_level_cost(meta, &meta->runs[r], j, level);
	return cost;
}

/*
 * The cost of a pass: table 0 of every run, the sealed and the pending rows, weighed against the
 * levels' probes. Once its hashes no longer fit in a processor's cache (beyond PASS_CACHED_ROWS,
 * 32 MB of them), a pass costs about twice per row what the costs say. Measured: at 14M rows in
 * 7 runs (10M, 2.4M, 1.2M and small ones) a pass was chosen and took 7x the time of probing the
 * same rows indexed afresh, where probing all runs takes 1.8x; the same rows in one run answer as
 * fast with either weight; at 1M rows the double weight made nearest neighbours 10% slower.
 */
#define PASS_CACHED_ROWS	(4 * 1024 * 1024)
#define PASS_UNCACHED_WEIGHT	2.0

static double
pass_cost(const MihMeta *meta)
{
	uint64		rows = meta->npending + meta->nsealed;
	double		cost = (double) rows;

	for (uint32 r = 0; r < meta->nruns; r++)
	{
		rows += meta->runs[r].nrows;
		cost += mih_pass_cost(&meta->runs[r]);
	}
	return rows > PASS_CACHED_ROWS ? PASS_UNCACHED_WEIGHT * cost : cost;
}

/*
 * The table whose next level is cheapest to probe, or -1 if every table is probed through. Key
 * tables (a compact index) give no distances, so only table 0 has levels there; passes do the rest.
 */
static int
knn_next_table(const MihMeta *meta, const int *levels, double *cost)
{
	int			best = -1;

	for (int j = 0; j < meta->ntables; j++)
	{
		double		c;

		if (levels[j] >= sh_mih_block_len(meta->ntables, j) || mih_is_key_table(meta, j))
			continue;
		c = level_cost(meta, j, levels[j] + 1) - level_cost(meta, j, levels[j]);
		if (best < 0 || c < *cost)
		{
			best = j;
			*cost = c;
		}
	}
	return best;
}

/* The bound that the given levels make final: DIST_NULL once a table is probed through. */
static int
knn_bound(const MihMeta *meta, const int *levels)
{
	int			sum = 0;

	for (int j = 0; j < meta->ntables; j++)
	{
		if (levels[j] >= sh_mih_block_len(meta->ntables, j))
			return DIST_NULL;
		sum += levels[j] + 1;
	}
	return sum - 1 >= 64 ? DIST_NULL : sum - 1;
}

/*
 * The cost, from the current levels, of the steps that make distance d final (they are taken
 * cheapest first); *spent + that is compared with a pass. Returns a cost above any budget when d
 * is past what limit allows.
 */
static double
knn_cost_to_reach(const MihKnnState *st, const MihMeta *meta, int d, double limit)
{
	int			levels[MIH_MAX_TABLES];
	double		total = st->spent;

	memcpy(levels, st->levels, sizeof(levels));
	while (knn_bound(meta, levels) < d)
	{
		double		c = 0;
		int			j = knn_next_table(meta, levels, &c);

		if (j < 0 || total + c > limit)
			return limit + 1;
		total += c;
		levels[j]++;
	}
	return total;
}

/* Starts the levels: every sealed, pending and NULL row into its bucket. False if the chains changed. */
static bool
start_levels(MihScanState *so, MihKnnState *st, Relation index, const MihMeta *meta)
{
	MihLevelProbe lp = {so, st, 0};
	int			m = meta->ntables;

	st->phase = KNN_LEVELS;
	st->emit = 0;
	st->spent = 0;
	st->max_found = max_keys();
	for (int t = 0; t < MIH_MAX_TABLES; t++)
		st->levels[t] = -1;
	for (int t = 0; t < m; t++)
		st->block_masks[t] = ((UINT64_C(1) << sh_mih_block_len(m, t)) - 1) << sh_mih_block_start(m, t);
	if (meta->nruns == 0)
	{
		/* Without sorted rows every row is in the chains: all distances are final at once. */
		st->bound = st->horizon = DIST_NULL;
	}
	else
	{
		/* Levels go no further than the steps that cost, in all, one pass (worth_probing). */
		double		budget = pass_cost(meta);
		int			d = 0;

		while (d < DIST_NULL && knn_cost_to_reach(st, meta, d, budget) <= budget)
			d++;
		st->horizon = d == DIST_NULL ? DIST_NULL : d - 1;
		st->bound = -1;
	}
	/* NULL hashes are within no ball. */
	return mih_read_chains(index, meta, so->nballs == 0, so->on_standby, chain_rows, &lp);
}

static void
add_ready(MihKnnState *st, uint64 key)
{
	if (st->returned && key <= st->after)
		return;
	st->ready = room_for_one(st->ready, st->nready, &st->ready_cap, sizeof(uint64));
	st->ready[st->nready++] = key;
}

typedef struct MihReadyRows
{
	MihKnnState *st;
	int			d;
} MihReadyRows;

static void
ready_row(void *arg, uint64 h, const ItemPointerData *tid)
{
	MihReadyRows *rr = (MihReadyRows *) arg;

	add_ready(rr->st, tid_key(rr->d, tid));
}

static int
cmp_hash_ref(const void *a, const void *b)
{
	const MihHashRef *x = a,
			   *y = b;

	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key ? 1 : 0;
}

/*
 * The rows of bucket d's hashes, through table 0 of their runs, in each run's table 0 order
 * (probes[r] probes run r).
 */
static bool
ready_hashes(MihKnnState *st, MihProbe *probes, int d)
{
	MihHashRefs *refs = &st->found_hashes[d];
	uint64	   *keys = palloc(Max(refs->n, 1) * sizeof(uint64));
	MihReadyRows rr = {st, d};

	qsort(refs->items, refs->n, sizeof(MihHashRef), cmp_hash_ref);
	for (int i = 0; i < refs->n;)
	{
		uint32		run = refs->items[i].run;
		int			n = 0;

		for (; i < refs->n && refs->items[i].run == run; i++)
			keys[n++] = refs->items[i].key;
		if (!mih_probe_rows_of(&probes[run], keys, n, ready_row, &rr))
		{
			pfree(keys);
			return false;
		}
	}
	pfree(keys);
	st->nfound -= refs->n;
	pfree(refs->items);
	memset(refs, 0, sizeof(MihHashRefs));
	return true;
}

/*
 * Moves bucket d into the ready keys, its ordinals and hashes turned into tids through table 0 of
 * their run (probes[r] probes run r).
 */
static bool
emit_bucket(MihKnnState *st, MihProbe *probes, int d)
{
	MihRefs    *refs = &st->found[d];

	if (bucket_empty(st, d))
		return true;
	/* Ordinals sort after tids, in table 0's page order. */
	sort_keys(refs->items, refs->n);
	if (st->ready)
		pfree(st->ready);
	st->ready_cap = Max(refs->n + st->found_hashes[d].n, 16);
	st->ready = palloc(st->ready_cap * sizeof(uint64));
	st->nready = st->next_ready = 0;
	for (int i = 0; i < refs->n; i++)
	{
		if (refs->items[i] & ORD_FLAG)
		{
			ItemPointerData tid;

			if (!mih_probe_ordinal_tid(&probes[ORD_RUN(refs->items[i])], (uint32) refs->items[i], &tid))
				return false;
			if (ItemPointerIsValid(&tid))
				add_ready(st, tid_key(d, &tid));
		}
		else
			add_ready(st, refs->items[i] | KEY(d, 0, 0));
	}
	if (st->found_hashes[d].n > 0 && !ready_hashes(st, probes, d))
		return false;
	sort_keys(st->ready, st->nready);
	st->nfound -= refs->n;
	if (refs->items)
		pfree(refs->items);
	memset(refs, 0, sizeof(MihRefs));
	return true;
}

/* Probes the cheapest next step: one table at its next level, in every run. */
static bool
probe_step(MihScanState *so, MihKnnState *st, const MihMeta *meta, MihProbe *probes)
{
	int			m = meta->ntables;
	double		cost = 0;
	int			j = knn_next_table(meta, st->levels, &cost);
	int			len = sh_mih_block_len(m, j);
	MihLevelProbe lp = {so, st, st->levels[j] + 1};
	uint32	   *values;
	int			n;
	bool		stale = false;

	values = palloc(sizeof(uint32) * (size_t) sh_mih_neighbourhood_size(len, lp.level));
	n = mih_block_values(sh_mih_block_value(st->query, m, j), len, lp.level, true, values);
	for (uint32 r = 0; r < meta->nruns && !stale; r++)
	{
		MihProbe   *pr = &probes[r];

		pr->arg = &lp;
		pr->query = st->query;
		pr->within = st->horizon;
		mih_probe_table(pr, j);
		mih_probe_values(pr, values, n);
		stale = pr->stale;
	}
	pfree(values);
	st->levels[j]++;
	st->spent += cost;
	st->bound = Min(knn_bound(meta, st->levels), st->horizon);
	return !stale;
}

/*
 * True if the next step is worth probing: while the levels so far and it cost less than an eighth
 * of a pass (a near neighbour may turn up); beyond that, only while the nearest row found but not
 * yet final becomes final by steps that cost, with all before them, no more than a pass.
 * Otherwise a pass is the cheaper way on.
 */
static bool
worth_probing(const MihKnnState *st, const MihMeta *meta)
{
	double		pass = pass_cost(meta);
	double		cost = 0;
	int			d = st->bound + 1;

	if (st->bound >= st->horizon || knn_next_table(meta, st->levels, &cost) < 0)
		return false;
	if (st->spent + cost <= SPECULATIVE_SHARE * pass)
		return true;
	while (d <= st->horizon && bucket_empty(st, d))
		d++;
	return d <= st->horizon && knn_cost_to_reach(st, meta, d, pass) <= pass;
}

/* Returns the next final bucket, or probes the next level, or hands over to the passes. */
static bool
step_levels(MihScanState *so, MihKnnState *st, Relation index, const MihMeta *meta)
{
	MihProbe	probes[MIH_MAX_RUNS];
	bool		ok = true;
	uint32		begun;

	for (begun = 0; begun < meta->nruns && ok; begun++)
	{
		mih_probe_begin(&probes[begun], index, meta, &meta->runs[begun], level_match, NULL);
		ok = !probes[begun].stale;
	}
	while (ok && st->nready == 0)
	{
		if (st->overflow)
		{
			/* Too many rows to keep: passes go on from the last row returned, in bounded memory. */
			reset_memory(st);
			st->phase = KNN_PASSES;
			st->cap = FIRST_CAP;
			break;
		}
		if (st->emit <= st->bound)
			ok = emit_bucket(st, probes, st->emit++);
		else if (st->bound == DIST_NULL)
		{
			st->phase = KNN_DONE;
			break;
		}
		else if (worth_probing(st, meta))
			ok = probe_step(so, st, meta, probes);
		else
		{
			/* Every row within bound has been returned; a pass finds the rest. */
			reset_memory(st);
			st->phase = KNN_PASSES;
			st->cap = FIRST_CAP;
			break;
		}
	}
	for (uint32 r = 0; r < begun; r++)
		mih_probe_end(&probes[r]);
	return ok;
}

/* ---- passes -------------------------------------------------------------------------------- */

typedef struct MihPass
{
	MihScanState *so;
	MihKnnState *st;
	uint64	   *keys;
	int			n;
	int			cap;			/* keep the cap smallest keys; keys has room for 2 * cap */
	uint64		limit;			/* only keys below it can be kept */
	bool		dropped;		/* a key past the last one returned was not kept */
} MihPass;

/*
 * Rearranges the n distinct keys so that the k smallest come first, the largest of them at
 * keys[k - 1] (Hoare's selection): a pass cuts its buffer this way many times, in linear time,
 * and sorts only what it keeps in the end (sorting at every cut was a sixth of a pass).
 */
static void
select_smallest(uint64 *keys, int n, int k)
{
	int			lo = 0,
				hi = n - 1;

	while (lo < hi)
	{
		int			i = lo,
					j = hi;
		uint64		a = keys[lo],
					b = keys[lo + (hi - lo) / 2],
					c = keys[hi];
		/* the median of three: sorted or reversed runs do not degrade the selection */
		uint64		pivot = Max(Min(a, b), Min(Max(a, b), c));

		while (i <= j)
		{
			while (keys[i] < pivot)
				i++;
			while (keys[j] > pivot)
				j--;
			if (i <= j)
			{
				uint64		t = keys[i];

				keys[i++] = keys[j];
				keys[j--] = t;
			}
		}
		/* keys[lo..j] <= pivot <= keys[i..hi], and any key between j and i is the pivot */
		if (k - 1 <= j)
			hi = j;
		else if (k - 1 >= i)
			lo = i;
		else
			break;
	}
}

static void
pass_add(MihPass *ps, int d, const ItemPointerData *tid)
{
	uint64		key = tid_key(d, tid);

	if (ps->st->returned && key <= ps->st->after)
		return;
	if (key >= ps->limit)
	{
		ps->dropped = true;
		return;
	}
	ps->keys[ps->n++] = key;
	if (ps->n == 2 * ps->cap)
	{
		select_smallest(ps->keys, ps->n, ps->cap);
		ps->n = ps->cap;
		ps->limit = ps->keys[ps->cap - 1];
		ps->dropped = true;
	}
}

/*
 * The first of hashes[i .. n - 1] at a distance from the query between least and most, or n.
 * The hot loop of a pass (nearly every row is too far): sh_next_within, eight rows at a time
 * where the CPU can.
 */
static inline int
next_within(const uint64 *hashes, int i, int n, uint64 query, bool null_query, int least, int most)
{
	if (null_query)
		return least <= DIST_NULL && DIST_NULL <= most ? i : n;
	return sh_next_within(hashes, i, n, query, least, most);
}

static void
pass_rows(void *arg, Page page, uint16 kind)
{
	MihPass    *ps = (MihPass *) arg;
	const uint64 *hashes = MihPageHashes(page);
	const ItemPointerData *tids = MihPageTids(page);
	int			n = MihPageGetOpaque(page)->nitems;
	/* distances at or past the limit's cannot be kept: skip them before building a key */
	int			most = KEY_DIST(ps->limit);
	/* ... and distances below the last one returned were all returned. */
	int			least = ps->st->returned ? KEY_DIST(ps->st->after) : 0;
	uint64		query = ps->st->query;
	bool		null_query = ps->st->null_query;

	if (kind == MIH_PAGE_NULLS)
	{
		for (int i = 0; i < n; i++)
			if (ItemPointerIsValid(&tids[i]))
				pass_add(ps, DIST_NULL, &tids[i]);
		return;
	}

	for (int i = next_within(hashes, 0, n, query, null_query, least, most); i < n;
		 i = next_within(hashes, i + 1, n, query, null_query, least, most))
	{
		ItemPointerData tid = mih_row_tid(page, i);

		if (!ItemPointerIsValid(&tid) || !mih_all_keys_hold(ps->so, hashes[i]))
			continue;
		pass_add(ps, null_query ? DIST_NULL : sh_hamming(hashes[i], query), &tid);
		most = KEY_DIST(ps->limit);
	}
}

/* Reads every row once, keeping the smallest cap keys past the last one returned. */
static bool
pass(MihScanState *so, MihKnnState *st, Relation index, const MihMeta *meta)
{
	MihPass		ps = {so, st, NULL, 0, st->cap, PG_UINT64_MAX, false};
	bool		stale = false;

	reset_memory(st);
	ps.keys = MemoryContextAllocHuge(st->cxt, 2 * (Size) ps.cap * sizeof(uint64));
	stale = !mih_read_chains(index, meta, so->nballs == 0, so->on_standby, pass_rows, &ps);
	for (uint32 r = 0; r < meta->nruns && !stale; r++)
	{
		MihProbe	pr;

		mih_probe_begin(&pr, index, meta, &meta->runs[r], NULL, NULL);
		if (!pr.stale)
			mih_probe_read_table0(&pr, pass_rows, &ps);
		mih_probe_end(&pr);
		stale = pr.stale;
	}
	if (stale)
		return false;
	sort_keys(ps.keys, ps.n);
	if (ps.n > ps.cap)
	{
		ps.n = ps.cap;
		ps.dropped = true;
	}
	st->ready = ps.keys;
	st->nready = ps.n;
	if (!ps.dropped)
		st->phase = KNN_DONE;
	st->cap = Min(st->cap * 2, max_keys());
	return true;
}

/* ---- the scan ------------------------------------------------------------------------------ */

/* Fills st->ready with the next keys, or ends the scan. */
static void
refill(IndexScanDesc scan, MihScanState *so, MihKnnState *st)
{
	Relation	index = scan->indexRelation;
	MihMeta		meta;
	Buffer		meta_buf;
	MemoryContext old;
	bool		ok;

	/* Asked before the copy: a standby promoted after it still needs the end checks. */
	so->on_standby = RecoveryInProgress();
	/* The pin keeps a merge from recycling the pages of the tables the copy describes. */
	meta_buf = mih_pin_meta(index, &meta);
	old = MemoryContextSwitchTo(st->cxt);

	/* The ready keys have all been returned. */
	st->nready = st->next_ready = 0;
	if (st->started && meta.generation != st->generation)
		st->started = false;
	if (!st->started)
	{
		reset_memory(st);
		st->generation = meta.generation;
		st->started = true;
		if (st->null_query)
		{
			/* Every distance is NULL: all rows tie, in tid order. */
			st->phase = KNN_PASSES;
			st->cap = FIRST_CAP;
			ok = true;
		}
		else
			ok = start_levels(so, st, index, &meta);
	}
	else if (st->phase == KNN_LEVELS)
		ok = step_levels(so, st, index, &meta);
	else
		ok = pass(so, st, index, &meta);
	ok = ok && mih_runs_unchanged(index, &meta, so->on_standby);
	MemoryContextSwitchTo(old);
	ReleaseBuffer(meta_buf);
	if (!ok)
	{
		/* The tables changed under the scan (a hot standby replayed a merge): start over. */
		mih_check_retry(index, &meta);
		st->started = false;
		st->nready = st->next_ready = 0;
	}
}

bool
mih_knn_gettuple(IndexScanDesc scan)
{
	MihScanState *so = (MihScanState *) scan->opaque;
	MihKnnState *st = so->knn;
	uint64		key;
	int			d;

	if (so->nballs > 0 && so->radii[so->probe] < 0)
		return false;			/* a NULL ball: nothing matches */
	while (st->next_ready >= st->nready)
	{
		if (st->started && st->phase == KNN_DONE)
			return false;
		CHECK_FOR_INTERRUPTS();
		refill(scan, so, st);
	}
	key = st->ready[st->next_ready++];
	st->after = key;
	st->returned = true;
	d = KEY_DIST(key);
	ItemPointerSet(&scan->xs_heaptid, (BlockNumber) ((key >> 16) & PG_UINT32_MAX),
				   (OffsetNumber) (key & 0xFFFF));
	scan->xs_recheck = false;
	scan->xs_orderbyvals[0] = Int32GetDatum(d == DIST_NULL ? 0 : d);
	scan->xs_orderbynulls[0] = d == DIST_NULL;
	scan->xs_recheckorderby = false;
	/* Further ORDER BY distances are not ordered here: 0 is their lower bound, the executor sorts. */
	for (int i = 1; i < scan->numberOfOrderBys; i++)
	{
		scan->xs_orderbyvals[i] = Int32GetDatum(0);
		scan->xs_orderbynulls[i] = false;
		scan->xs_recheckorderby = true;
	}
	return true;
}
