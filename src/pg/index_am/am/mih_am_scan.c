/*
 * Scanning a simhash_mih index: sh <@ hamming_ball(q, k). The first call computes every answer
 * (probing the sorted tables of each run, then reading the sealed and pending pages) and compares
 * full hashes inside the index, so the tids returned are exactly the rows within k (no recheck);
 * later calls hand them out. Dead rows that VACUUM has not yet removed are filtered by the heap's
 * visibility check. A scan with no key (the planner builds one for count(*) over wide rows) returns
 * every row, NULL hashes included, as btree and GiST do. A scan that orders by distance (sh <-> q)
 * is mih_am_knn.c's.
 */
#include "simhash_type.h"
#include "store/mih_probe.h"
#include "format/mih_keys.h"
#include "am/mih_knn.h"
#include "am/mih_scan.h"

#include "access/itup.h"
#include "access/relscan.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "utils/memutils.h"

#include "hamming.h"
#include "hamming_ball.h"
#include "mih_blocks.h"
#include "scan_bridge.h"

/* A key found through key table `table`, to be confirmed in table 0. */
typedef struct MihKeyRef
{
	uint32		block0;
	uint32		value;			/* block `table` */
	uint32		key;
	int			table;
} MihKeyRef;

/* The radius search's state while probing. */
typedef struct MihRadiusProbe
{
	MihScanState *so;
	uint64		center;
	int			radius;
	int			levels[MIH_MAX_TABLES];	/* table j finds rows within levels[j] bits on block j */
	/*
	 * Rows found through tables 1..m-1: their hashes rotated as table 0 sorts them
	 * (MIH_RUN_HASHES), or their ordinals in table 0 (a run of layout 2)
	 */
	uint64	   *found;
	int			nfound;
	int			found_cap;
	/* compact index: keys found through the key tables, and the one being confirmed */
	uint32		center_keys[MIH_MAX_TABLES];
	MihKeyRef  *keys;
	int			nkeys;
	int			keys_cap;
	const MihKeyRef *confirming;
} MihRadiusProbe;

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

/*
 * Rows of a (hash, tid) page: table 0 or pending. Every scan reads the pending rows this way, so
 * the ball of the smallest radius is tested first, eight rows at a time where the CPU can
 * (sh_next_within): nearly every row fails it.
 */
static void
scan_rows_page(void *arg, Page page, uint16 kind)
{
	MihScanState *so = (MihScanState *) arg;
	const uint64 *hashes = MihPageHashes(page);
	int			n = MihPageGetOpaque(page)->nitems;
	uint64		center = so->nballs > 0 ? so->centers[so->probe] : 0;
	int			radius = so->nballs > 0 ? so->radii[so->probe] : 64;

	for (int i = sh_next_within(hashes, 0, n, center, 0, radius); i < n;
		 i = sh_next_within(hashes, i + 1, n, center, 0, radius))
	{
		ItemPointerData tid = mih_row_tid(page, i);

		if (mih_all_keys_hold(so, hashes[i]) && ItemPointerIsValid(&tid))
			add_tid(so, &tid);
	}
}

/* True if a table before the given one also finds h, which then reports it. */
static bool
found_before(const MihProbe *pr, const MihRadiusProbe *rp, int table, uint64 h)
{
	int			m = pr->meta->ntables;

	for (int t = 0; t < table; t++)
		if (sh_popcount64(sh_mih_block_value(h, m, t) ^ sh_mih_block_value(rp->center, m, t)) <=
			rp->levels[t])
			return true;
	return false;
}

static void
note_match(MihProbe *pr, Page page, int i, uint64 h)
{
	MihRadiusProbe *rp = (MihRadiusProbe *) pr->arg;

	if (!mih_all_keys_hold(rp->so, h))
		return;
	if (pr->table == 0)
	{
		ItemPointerData tid = mih_row_tid(page, i);

		if (ItemPointerIsValid(&tid))
			add_tid(rp->so, &tid);
		return;
	}
	if (found_before(pr, rp, pr->table, h))
		return;
	if (rp->nfound == rp->found_cap)
	{
		rp->found_cap *= 2;
		rp->found = repalloc_huge(rp->found, rp->found_cap * sizeof(uint64));
	}
	rp->found[rp->nfound++] = (pr->run->flags & MIH_RUN_HASHES) ?
		sh_mih_rotate_block_to_top(h, pr->meta->ntables, 0) : MihPageOrdinals(page)[i];
}

/*
 * A key of a key table: kept if the bits it and its block value know are within the radius (a
 * lower bound on the distance) and table 0 would not find the row itself.
 */
static void
note_key(MihProbe *pr, uint32 value, uint32 key)
{
	MihRadiusProbe *rp = (MihRadiusProbe *) pr->arg;
	int			m = pr->meta->ntables;
	int			j = pr->table;
	uint32		block0 = mih_key_block0(key, m);

	if (sh_popcount64(value ^ sh_mih_block_value(rp->center, m, j)) +
		sh_popcount64(key ^ rp->center_keys[j]) > rp->radius)
		return;
	if (sh_popcount64(block0 ^ sh_mih_block_value(rp->center, m, 0)) <= rp->levels[0])
		return;
	if (rp->nkeys == rp->keys_cap)
	{
		rp->keys_cap *= 2;
		rp->keys = repalloc_huge(rp->keys, rp->keys_cap * sizeof(MihKeyRef));
	}
	rp->keys[rp->nkeys].block0 = block0;
	rp->keys[rp->nkeys].value = value;
	rp->keys[rp->nkeys].key = key;
	rp->keys[rp->nkeys].table = j;
	rp->nkeys++;
}

/* A row of table 0 sharing the confirmed key's block 0: reported if it is the key's row. */
static void
confirm_key(MihProbe *pr, Page page, int i, uint64 h)
{
	MihRadiusProbe *rp = (MihRadiusProbe *) pr->arg;
	const MihKeyRef *k = rp->confirming;
	int			m = pr->meta->ntables;
	ItemPointerData tid;

	if (sh_mih_block_value(h, m, k->table) != k->value || mih_compact_key(h, m, k->table) != k->key)
		return;
	if (!mih_all_keys_hold(rp->so, h) || found_before(pr, rp, k->table, h))
		return;
	tid = mih_row_tid(page, i);
	if (ItemPointerIsValid(&tid))
		add_tid(rp->so, &tid);
}

static int
cmp_key_ref(const void *a, const void *b)
{
	const MihKeyRef *x = a,
			   *y = b;

	if (x->block0 != y->block0)
		return x->block0 < y->block0 ? -1 : 1;
	return x->table != y->table ? x->table - y->table : (x->value < y->value ? -1 : x->value > y->value);
}

/* Keys found through the key tables are confirmed in table 0, in its page order. */
static void
confirm_keys(MihProbe *pr, MihRadiusProbe *rp)
{
	qsort(rp->keys, rp->nkeys, sizeof(MihKeyRef), cmp_key_ref);
	mih_probe_table(pr, 0);
	pr->match = confirm_key;
	for (int i = 0; i < rp->nkeys && !pr->stale; i++)
	{
		if ((i & 255) == 0)
			CHECK_FOR_INTERRUPTS();
		rp->confirming = &rp->keys[i];
		mih_probe_value(pr, rp->keys[i].block0);
	}
}

static int
cmp_uint64(const void *a, const void *b)
{
	uint64		x = *(const uint64 *) a,
				y = *(const uint64 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

static void
add_row(void *arg, uint64 h, const ItemPointerData *tid)
{
	add_tid((MihScanState *) arg, tid);
}

/* Rows found through tables 1..m-1 are reported with their tids from table 0, in page order. */
static void
resolve_found(MihProbe *pr, MihRadiusProbe *rp)
{
	qsort(rp->found, rp->nfound, sizeof(uint64), cmp_uint64);
	if (pr->run->flags & MIH_RUN_HASHES)
	{
		mih_probe_rows_of(pr, rp->found, rp->nfound, add_row, rp->so);
		return;
	}
	for (int i = 0; i < rp->nfound; i++)
	{
		ItemPointerData tid;

		if (!mih_probe_ordinal_tid(pr, (uint32) rp->found[i], &tid))
			return;
		if (ItemPointerIsValid(&tid))
			add_tid(rp->so, &tid);
	}
}

/*
 * The block values a table's probes visit, computed once a query for every run: they depend only on
 * the query's block and the level, and runs of similar size take the same levels, so most runs
 * reuse the values of an earlier one instead of generating them again (mih_block_values, which
 * writes them in increasing order: nothing sorts them).
 */
typedef struct MihValueCache
{
	int			m;				/* the table count they were computed for (a merge may change it) */
	int			level[MIH_MAX_TABLES];	/* -1: not computed */
	int			n[MIH_MAX_TABLES];
	uint32	   *values[MIH_MAX_TABLES];
} MihValueCache;

static void
value_cache_init(MihValueCache *cache)
{
	cache->m = 0;
	for (int j = 0; j < MIH_MAX_TABLES; j++)
	{
		cache->level[j] = -1;
		cache->values[j] = NULL;
	}
}

static void
value_cache_free(MihValueCache *cache)
{
	for (int j = 0; j < MIH_MAX_TABLES; j++)
		if (cache->values[j])
			pfree(cache->values[j]);
}

/* The values within level bits of the center's block j, in increasing order. */
static const uint32 *
block_values(MihValueCache *cache, int m, int j, uint64 center, int level, int *n)
{
	if (cache->m != m)
	{
		for (int t = 0; t < MIH_MAX_TABLES; t++)
			cache->level[t] = -1;
		cache->m = m;
	}
	if (cache->level[j] != level)
	{
		int			len = sh_mih_block_len(m, j);

		if (cache->values[j])
			pfree(cache->values[j]);
		cache->values[j] = palloc(sizeof(uint32) * (size_t) sh_mih_neighbourhood_size(len, level));
		cache->n[j] = mih_block_values(sh_mih_block_value(center, m, j), len, level, false, cache->values[j]);
		cache->level[j] = level;
	}
	*n = cache->n[j];
	return cache->values[j];
}

/* Probes the tables of one run. Returns false if they changed under the scan (mih_probe_visit). */
static bool
probe_tables(MihScanState *so, Relation index, const MihMeta *meta, const MihRun *run,
			 MihValueCache *cache)
{
	int			m = meta->ntables;
	/* Without a key every row is an answer: table 0 is read whole. */
	int			radius = so->nballs > 0 ? so->radii[so->probe] : 64;
	MihProbe	pr;
	MihRadiusProbe rp;

	rp.so = so;
	rp.center = so->nballs > 0 ? so->centers[so->probe] : 0;
	rp.radius = radius;
	mih_probe_begin(&pr, index, meta, run, note_match, &rp);
	if (pr.stale)
		return false;
	pr.key_match = note_key;

	/* A small run (or a wide radius) is cheaper to read whole. */
	if (radius >= 64 || mih_radius_levels(meta, run, radius, rp.levels) > mih_pass_cost(run))
		mih_probe_read_table0(&pr, scan_rows_page, so);
	else
	{
		rp.found_cap = 64;
		rp.nfound = 0;
		rp.found = palloc(rp.found_cap * sizeof(uint64));
		rp.keys_cap = 64;
		rp.nkeys = 0;
		rp.keys = palloc(rp.keys_cap * sizeof(MihKeyRef));
		for (int j = 1; j < m; j++)
			rp.center_keys[j] = mih_compact_key(rp.center, m, j);
		for (int j = 0; j < m; j++)
		{
			int			nvalues;
			const uint32 *values;

			if (rp.levels[j] < 0)
				continue;
			mih_probe_table(&pr, j);
			values = block_values(cache, m, j, rp.center, rp.levels[j], &nvalues);
			mih_probe_values(&pr, values, nvalues);
		}
		if (!pr.stale)
			resolve_found(&pr, &rp);
		if (!pr.stale)
			confirm_keys(&pr, &rp);
		pfree(rp.found);
		pfree(rp.keys);
	}
	mih_probe_end(&pr);
	return !pr.stale;
}

static void
compute(IndexScanDesc scan)
{
	MihScanState *so = (MihScanState *) scan->opaque;
	MihMeta		meta;
	Buffer		meta_buf;
	bool		complete;
	MihValueCache cache;

	so->computed = true;
	so->next = 0;
	so->ntids = 0;
	if (so->nballs > 0 && so->radii[so->probe] < 0)
		return;
	value_cache_init(&cache);
	do
	{
		so->ntids = 0;
		/* Asked before the copy: a standby promoted after it still needs the end checks. */
		so->on_standby = RecoveryInProgress();
		/* The pin on the meta page keeps a merge from recycling the pages this copy describes. */
		meta_buf = mih_pin_meta(scan->indexRelation, &meta);
		complete = mih_read_chains(scan->indexRelation, &meta, so->nballs == 0, so->on_standby, scan_rows_page, so);
		for (uint32 r = 0; r < meta.nruns && complete; r++)
			complete = probe_tables(so, scan->indexRelation, &meta, &meta.runs[r], &cache);
		complete = complete && mih_runs_unchanged(scan->indexRelation, &meta, so->on_standby);
		ReleaseBuffer(meta_buf);
		if (!complete)
			mih_check_retry(scan->indexRelation, &meta);
	} while (!complete);
	value_cache_free(&cache);
}

IndexScanDesc
mih_beginscan(Relation index, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(index, nkeys, norderbys);
	MihScanState *so = palloc0(sizeof(MihScanState));

	so->cap = 64;
	so->tids = palloc(so->cap * sizeof(ItemPointerData));
	so->centers = palloc(Max(nkeys, 1) * sizeof(uint64));
	so->radii = palloc(Max(nkeys, 1) * sizeof(int));
	if (norderbys > 0)
	{
		so->knn = mih_knn_begin();
		scan->xs_orderbyvals = palloc0(norderbys * sizeof(Datum));
		scan->xs_orderbynulls = palloc(norderbys * sizeof(bool));
	}
	scan->opaque = so;
	return scan;
}

void
mih_rescan(IndexScanDesc scan, ScanKey keys, int nkeys, ScanKey orderbys, int norderbys)
{
	MihScanState *so = (MihScanState *) scan->opaque;

	if (keys && scan->numberOfKeys > 0)
		memmove(scan->keyData, keys, scan->numberOfKeys * sizeof(ScanKeyData));
	if (orderbys && scan->numberOfOrderBys > 0)
		memmove(scan->orderByData, orderbys, scan->numberOfOrderBys * sizeof(ScanKeyData));
	so->computed = false;
	so->counted = false;
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
			break;
		}
		ball = DatumGetHammingBall(key->sk_argument);
		so->centers[so->nballs] = ball->center;
		so->radii[so->nballs] = ball->radius;
		if (so->nballs == 0 || ball->radius < so->radii[so->probe])
			so->probe = so->nballs;
		so->nballs++;
	}
	if (scan->numberOfOrderBys > 0)
		mih_knn_rescan(scan);
}

bool
mih_gettuple(IndexScanDesc scan, ScanDirection dir)
{
	MihScanState *so = (MihScanState *) scan->opaque;
	bool		found;

	if (!so->counted)
	{
		pgstat_count_index_scan(scan->indexRelation);
		so->counted = true;
	}
	if (scan->numberOfOrderBys > 0)
		found = mih_knn_gettuple(scan);
	else
	{
		if (!so->computed)
			compute(scan);
		found = so->next < so->ntids;
		if (found)
		{
			scan->xs_heaptid = so->tids[so->next++];
			scan->xs_recheck = false;
		}
	}
	if (found && scan->xs_want_itup)
	{
		/*
		 * The index returns no column (amcanreturn is NULL), so the planner builds an index-only
		 * scan only when the query needs no column of the table, e.g. count(*) over wide rows.
		 * The executor still wants a tuple for each row: one with a NULL column, never read.
		 */
		if (so->empty_itup == NULL)
		{
			Datum		value = (Datum) 0;
			bool		isnull = true;

			so->empty_itup = index_form_tuple(RelationGetDescr(scan->indexRelation), &value, &isnull);
		}
		scan->xs_itup = so->empty_itup;
		scan->xs_itupdesc = RelationGetDescr(scan->indexRelation);
	}
	return found;
}

int64
mih_getbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	MihScanState *so = (MihScanState *) scan->opaque;

	pgstat_count_index_scan(scan->indexRelation);
	compute(scan);
	tbm_add_tuples(tbm, so->tids, so->ntids, false);
	return so->ntids;
}

void
mih_endscan(IndexScanDesc scan)
{
	MihScanState *so = (MihScanState *) scan->opaque;

	if (so->knn)
		mih_knn_end(scan);
	pfree(so->tids);
	pfree(so->centers);
	pfree(so->radii);
	if (so->empty_itup)
		pfree(so->empty_itup);
	pfree(so);
}
