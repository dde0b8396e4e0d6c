/*
 * simhash_mih_check(index): verifies the invariants a simhash_mih index relies on and reports its
 * shape. In every run, each table is sorted by its block, its directory matches its pages, every
 * row of table 0 appears exactly once in every other table with the same hash (a key table holds
 * exactly the distinct keys of table 0's rows); the sealed, pending and NULL chains are sound.
 * With heapallindexed, also the heap side (as amcheck's option of that name): every row of the
 * table that the check's snapshot sees, with a non-NULL hash, is in the index with that hash.
 * A violation is an index_corrupted error naming the page, or the heap row the index lacks. On a
 * hot standby, a pass that a replayed flush or merge moved the index under starts again instead.
 */
#include "am/mih_am.h"
#include "format/mih_keys.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"

#include "mih_blocks.h"
#include "simhash_type.h"

PG_FUNCTION_INFO_V1(simhash_mih_check);

/*
 * A copy of block blkno, which must be a page of the given kind. The walk checks the block number
 * first; a page of a chain also counts as one of its steps.
 */
static Page
copy_page(MihWalk *walk, BlockNumber blkno, bool chain, uint16 kind, PGAlignedBlock *copy)
{
	Buffer		buffer = mih_read_kind(walk, blkno, kind, chain, BUFFER_LOCK_SHARE);

	memcpy(copy->data, BufferGetPage(buffer), BLCKSZ);
	UnlockReleaseBuffer(buffer);
	return copy->data;
}

/* A copy of page p of table j of a run, which must be of the given kind and of the run's build. */
static Page
copy_table_page(MihWalk *walk, const MihRun *run, const MihDirectory *dir, int j, uint32 p,
				uint16 kind, PGAlignedBlock *copy)
{
	Page		page = copy_page(walk, dir->blocks[j][p], false, kind, copy);

	CHECK_FOR_INTERRUPTS();
	if (MihPageGetOpaque(page)->next != MihBuildTag(run->build_id))
		mih_corrupt(walk->index, dir->blocks[j][p], "table %d page %u is of another build", j, p);
	return page;
}

/* The live (tid, hash) entries of the index, for the heap side of the check. */
typedef struct MihEntry
{
	ItemPointerData tid;
	uint64		hash;
} MihEntry;

typedef struct MihEntries
{
	MihEntry   *items;
	Size		n;
	Size		cap;
	Relation	index;
	Relation	heap;
} MihEntries;

static void
add_entry(MihEntries *entries, const ItemPointerData *tid, uint64 hash)
{
	if (entries == NULL || !ItemPointerIsValid(tid))
		return;
	if (entries->n == entries->cap)
	{
		entries->cap = Max(entries->cap * 2, 1024);
		entries->items = entries->items
			? repalloc_huge(entries->items, entries->cap * sizeof(MihEntry))
			: MemoryContextAllocHuge(CurrentMemoryContext, entries->cap * sizeof(MihEntry));
	}
	entries->items[entries->n].tid = *tid;
	entries->items[entries->n].hash = hash;
	entries->n++;
}

static int
entry_cmp(const void *a, const void *b)
{
	const MihEntry *x = a;
	const MihEntry *y = b;
	int			c = ItemPointerCompare((ItemPointer) &x->tid, (ItemPointer) &y->tid);

	if (c != 0)
		return c;
	return x->hash < y->hash ? -1 : x->hash > y->hash ? 1 : 0;
}

/* Each heap row the snapshot sees must be an entry of the index, with its hash. */
static void
heap_row_present(Relation index, ItemPointer tid, Datum *values, bool *isnull, bool alive, void *state)
{
	MihEntries *entries = state;
	MihEntry	key;

	if (isnull[0])
		return;
	key.tid = *tid;
	key.hash = DatumGetSimhash(values[0]);
	if (bsearch(&key, entries->items, entries->n, sizeof(MihEntry), entry_cmp) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is corrupted", RelationGetRelationName(index)),
				 errdetail("It lacks the row (%u,%u) of table \"%s\", with hash %016llx.",
						   ItemPointerGetBlockNumber(tid), ItemPointerGetOffsetNumber(tid),
						   RelationGetRelationName(entries->heap), (unsigned long long) key.hash),
				 errhint("REINDEX the index.")));
}

/*
 * The heap side: every row of the heap that snapshot sees is among entries (which were read after
 * the snapshot was taken, so every row it sees had been inserted into the index by then). The
 * scan computes each row's index value as a build would and reports a HOT chain by its root tid,
 * which is what the index stores.
 */
static void
check_heap(Relation heap, Relation index, Snapshot snapshot, MihEntries *entries)
{
	IndexInfo  *info = BuildIndexInfo(index);
	TableScanDesc scan;

	qsort(entries->items, entries->n, sizeof(MihEntry), entry_cmp);
	/* ii_Concurrent: the scan sees the rows of this snapshot, not every row not yet dead. */
	info->ii_Concurrent = true;
	scan = table_beginscan_strat(heap, snapshot, 0, NULL, true, true);
	table_index_build_scan(heap, index, info, true, false, heap_row_present, entries, scan);
}

/*
 * Table 0: sorted by block 0, full pages but the last (any page of a run a merge in slices changed:
 * it rewrites table 0 a range of pages at a time); counts live rows. Returns the hashes the other
 * tables and the filters are made of, *nhashes of them: every row's, or in a run with extra
 * hashes the live rows' (a merge in slices makes them of the live rows, and B's old pages keep
 * rows VACUUM cleared until their range is rewritten).
 */
static uint64 *
check_table0(Relation index, const MihMeta *meta, const MihRun *run, const MihDirectory *dir, int64 *live,
			 MihEntries *entries, Size *nhashes)
{
	bool		live_only = (run->flags & MIH_RUN_EXTRA) != 0;
	Size		kept = 0;
	uint64	   *hashes = palloc_extended(Max(run->nrows, 1) * sizeof(uint64), MCXT_ALLOC_HUGE);
	uint64		n = 0;
	uint32		prev = 0;
	PGAlignedBlock copy;
	MihWalk		walk;

	mih_walk_start(&walk, index);
	for (uint32 p = 0; p < dir->pages[0]; p++)
	{
		Page		page = copy_table_page(&walk, run, dir, 0, p, mih_table0_kind(run), &copy);
		int			items = MihPageGetOpaque(page)->nitems;
		/* full pages but the last: exactly so many whole tids, at least so many packed ones */
		bool		packed = (run->flags & MIH_RUN_PACKED_ROWS) != 0;

		if (items == 0 || (p + 1 < dir->pages[0] && run->epoch == 0 &&
						   (packed ? items < (int) MIH_ROWS_MIN_PER_PAGE : items != (int) MIH_ROWS_PER_PAGE)))
			mih_corrupt(index, dir->blocks[0][p], "table 0 page %u holds %d rows", p, items);
		for (int i = 0; i < items; i++)
		{
			uint32		v = sh_mih_block_value(MihPageHashes(page)[i], meta->ntables, 0);
			ItemPointerData tid = mih_row_tid(page, i);

			if ((n > 0 && v < prev) || (i == 0 && v != dir->first_values[0][p]))
				mih_corrupt(index, dir->blocks[0][p], "table 0 is out of order at row %d", i);
			prev = v;
			if (ItemPointerIsValid(&tid))
				(*live)++;
			add_entry(entries, &tid, MihPageHashes(page)[i]);
			if (n++ >= run->nrows)
				mih_corrupt(index, dir->blocks[0][p], "table 0 holds more than %lu rows", (unsigned long) run->nrows);
			if (!live_only || ItemPointerIsValid(&tid))
				hashes[kept++] = MihPageHashes(page)[i];
		}
	}
	if (n != run->nrows)
		mih_corrupt(index, MIH_META_BLKNO, "table 0 holds %lu rows, the meta page says %lu",
				(unsigned long) n, (unsigned long) run->nrows);
	*nhashes = kept;
	return hashes;
}

/* Table j of layout 2: sorted by block j, each ordinal of table 0 once, with the same hash. */
static void
check_tablej(Relation index, const MihMeta *meta, const MihRun *run, const MihDirectory *dir, int j,
			 const uint64 *hashes)
{
	uint8	   *seen = palloc_extended(Max(run->nrows, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	uint64		n = 0;
	uint32		prev = 0;
	PGAlignedBlock copy;
	MihWalk		walk;

	mih_walk_start(&walk, index);
	for (uint32 p = 0; p < dir->pages[j]; p++)
	{
		Page		page = copy_table_page(&walk, run, dir, j, p, MIH_PAGE_TABLEJ, &copy);
		int			items = MihPageGetOpaque(page)->nitems;

		for (int i = 0; i < items; i++, n++)
		{
			uint64		h = MihPageHashes(page)[i];
			uint32		ord = MihPageOrdinals(page)[i];
			uint32		v = sh_mih_block_value(h, meta->ntables, j);

			if ((n > 0 && v < prev) || (i == 0 && v != dir->first_values[j][p]))
				mih_corrupt(index, dir->blocks[j][p], "table %d is out of order at row %d", j, i);
			prev = v;
			if (ord >= run->nrows || seen[ord] || hashes[ord] != h)
				mih_corrupt(index, dir->blocks[j][p], "table %d row %d does not match table 0 row %u", j, i, ord);
			seen[ord] = 1;
		}
	}
	if (n != run->nrows)
		mih_corrupt(index, MIH_META_BLKNO, "table %d holds %lu rows, table 0 %lu", j,
				(unsigned long) n, (unsigned long) run->nrows);
	pfree(seen);
}

/*
 * Table j: exactly the distinct hashes of table 0, sorted by block j (MIH_RUN_HASHES); with
 * MIH_RUN_EXTRA, distinct and sorted, and every hash of table 0 among them. Each page packed at
 * the width its keys need, and full but the last (unless a merge in slices rewrote some: each
 * range may end in a page part full): the next page's first key would not fit.
 */
static void
check_hashes(Relation index, const MihMeta *meta, const MihRun *run, const MihDirectory *dir, int j,
			 const uint64 *hashes, Size nhashes)
{
	Size		nexpected;
	uint64	   *expected = mih_table_keys(hashes, nhashes, meta->ntables, j, &nexpected);
	bool		extra = (run->flags & MIH_RUN_EXTRA) != 0;
	Size		n = 0;
	Size		found = 0;
	uint64		prev = 0;
	uint64		prev_first = 0;
	int			prev_items = 0;
	PGAlignedBlock copy;
	MihWalk		walk;

	mih_walk_start(&walk, index);
	for (uint32 p = 0; p < dir->pages[j]; p++)
	{
		Page		page = copy_table_page(&walk, run, dir, j, p, MIH_PAGE_HASHES, &copy);
		const MihPackedPage *pk = MihPackedHeader(page);
		int			items = MihPageGetOpaque(page)->nitems;

		if (items == 0)
			mih_corrupt(index, dir->blocks[j][p], "table %d page %u holds no hash", j, p);
		if (pk->width != (items == 1 ? 0 : sh_packed_width(mih_packed_key(page, items - 1) - pk->first)))
			mih_corrupt(index, dir->blocks[j][p], "table %d page %u is packed %u bits wide, not as its keys need",
						j, p, pk->width);
		if (p > 0 && run->epoch == 0 &&
			sh_packed_fits(prev_items + 1, sh_packed_width(pk->first - prev_first), MIH_PACKED_BYTES))
			mih_corrupt(index, dir->blocks[j][p], "table %d page %u is not full", j, p - 1);
		prev_first = pk->first;
		prev_items = items;
		for (int i = 0; i < items; i++, n++)
		{
			uint64		key = mih_packed_key(page, i);
			uint64		h = sh_mih_rotate_block_back(key, meta->ntables, j);

			if (i == 0 && sh_mih_block_value(h, meta->ntables, j) != dir->first_values[j][p])
				mih_corrupt(index, dir->blocks[j][p], "table %d page %u does not begin where its directory says", j, p);
			if (n > 0 && key <= prev)
				mih_corrupt(index, dir->blocks[j][p], "table %d is out of order at entry %d", j, i);
			prev = key;
			/* Sorted both: each expected key is the next entry, or with extra hashes a later one. */
			if (found < nexpected && expected[found] == key)
				found++;
			else if (!extra)
				mih_corrupt(index, dir->blocks[j][p], "table %d differs from table 0's hashes at entry %d", j, i);
		}
	}
	if (found != nexpected)
		mih_corrupt(index, MIH_META_BLKNO, "table %d holds %lu of the %lu distinct hashes of table 0", j,
					(unsigned long) found, (unsigned long) nexpected);
	pfree(expected);
}

/*
 * Key table j (a compact index): its pages' offsets in order, each page starting where the
 * directory says, and its keys, in order, exactly the distinct keys of table 0's rows.
 */
static void
check_keys(Relation index, const MihMeta *meta, const MihRun *run, const MihDirectory *dir, int j,
		   const uint64 *hashes)
{
	Size		nexpected;
	uint64	   *expected = mih_key_items(hashes, run->nrows, meta->ntables, j, &nexpected);
	Size		n = 0;
	PGAlignedBlock copy;
	MihWalk		walk;

	mih_walk_start(&walk, index);
	for (uint32 p = 0; p < dir->pages[j]; p++)
	{
		BlockNumber blkno = dir->blocks[j][p];
		Page		page = copy_table_page(&walk, run, dir, j, p, MIH_PAGE_KEYS, &copy);
		const MihKeyPage *kp = MihKeyPageHeader(page);
		bool		sparse = (kp->flags & MIH_KEYS_SPARSE) != 0;
		const uint32 *values = mih_key_page_values(page);
		const uint16 *starts = mih_key_page_starts(page);
		const uint32 *keys = mih_key_page_keys(page);
		int			nkeys = MihPageGetOpaque(page)->nitems;

		if (nkeys == 0 || kp->first != dir->first_values[j][p] || starts[0] != 0 ||
			starts[kp->nvalues] != nkeys || (sparse && values[0] != kp->first))
			mih_corrupt(index, blkno, "key page %u of table %d does not begin or end as its header says", p, j);
		for (int v = 0; v < kp->nvalues; v++)
		{
			uint32		value = sparse ? values[v] : kp->first + (uint32) v;

			if (starts[v] > starts[v + 1] || (sparse && (starts[v] == starts[v + 1] ||
														 (v > 0 && values[v - 1] >= value))))
				mih_corrupt(index, blkno, "key page %u of table %d is out of order at value %d", p, j, v);
			for (int i = starts[v]; i < starts[v + 1]; i++, n++)
				if (n >= nexpected || expected[n] != (((uint64) value << 32) | keys[i]))
					mih_corrupt(index, blkno, "key table %d differs from table 0's rows at key %d of page %u",
								j, i, p);
		}
		if (!sparse && starts[0] == starts[1])
			mih_corrupt(index, blkno, "key page %u of table %d has no key of its first value", p, j);
	}
	if (n != nexpected)
		mih_corrupt(index, MIH_META_BLKNO, "key table %d holds %lu keys, table 0's rows have %lu", j,
				(unsigned long) n, (unsigned long) nexpected);
	pfree(expected);
}

/*
 * The filters of a run (read and checked for shape with its directory): none (a run of layout 2)
 * or the size the run's row count calls for, and every row's block value present, or probes would
 * miss rows.
 */
static void
check_filters(Relation index, const MihMeta *meta, const MihRun *run, const MihDirectory *dir,
			  const uint64 *hashes, Size nhashes)
{
	/* A run with extra hashes keeps the filters of the rows it held or will hold (mih_am_slices.c). */
	if (run->filter_bits != 0 && run->filter_bits != mih_filter_bits(meta->ntables, run->nrows) &&
		!(run->flags & MIH_RUN_EXTRA))
		mih_corrupt(index, MIH_META_BLKNO, "a run of %lu rows has filters of 2^%u bits",
					(unsigned long) run->nrows, run->filter_bits);
	for (int j = 0; run->filter_bits > 0 && j < meta->ntables; j++)
		for (uint64 i = 0; i < nhashes; i++)
		{
			if ((i & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
			if (!mih_filter_may_hold(dir, j, sh_mih_block_value(hashes[i], meta->ntables, j)))
				mih_corrupt(index, run->filter_head[j], "the filter of table %d lacks the block value of row %lu",
							j, (unsigned long) i);
		}
}

/* The live rows of a chain of pending pages (added to entries, when given). */
static int64
count_chain(Relation index, BlockNumber head, MihEntries *entries)
{
	int64		live = 0;
	PGAlignedBlock copy;
	MihWalk		walk;

	mih_walk_start(&walk, index);
	for (BlockNumber blkno = head; blkno != InvalidBlockNumber;)
	{
		Page		page = copy_page(&walk, blkno, true, MIH_PAGE_PENDING, &copy);

		for (int i = 0; i < MihPageGetOpaque(page)->nitems; i++)
		{
			if (ItemPointerIsValid(&MihPageTids(page)[i]))
				live++;
			add_entry(entries, &MihPageTids(page)[i], MihPageHashes(page)[i]);
		}
		blkno = MihPageGetOpaque(page)->next;
	}
	return live;
}

/*
 * Finds the table of the index to check and makes sure the caller may read it, before any lock is
 * taken (as amcheck does): a role without rights on a table learns nothing of it, and cannot make
 * anyone wait. Returns the table's OID.
 */
static Oid
checked_table(Oid indexoid)
{
	char		relkind = get_rel_relkind(indexoid);
	Oid			heapoid;

	if (relkind == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", indexoid)));
	if (relkind == RELKIND_PARTITIONED_INDEX)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is a partitioned index, which has no pages of its own", get_rel_name(indexoid)),
				 errhint("Check the index of each partition, e.g. SELECT c.relname, s.* FROM "
						 "pg_partition_tree('%s') t JOIN pg_class c ON c.oid = t.relid, "
						 "simhash_mih_check(t.relid) s WHERE t.isleaf;", get_rel_name(indexoid))));
	if (relkind != RELKIND_INDEX)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a simhash_mih index", get_rel_name(indexoid))));
	heapoid = IndexGetRelation(indexoid, true);
	if (!OidIsValid(heapoid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", indexoid)));
	if (pg_class_aclcheck(heapoid, GetUserId(), ACL_SELECT) != ACLCHECK_OK &&
		!sh_class_ownercheck(heapoid, GetUserId()))
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, get_rel_name(heapoid));
	return heapoid;
}

/*
 * Opens a simhash_mih index that the caller may read (checked_table), and its table: with
 * AccessShareLock both, or with lockmode on the index and RowExclusiveLock on the table.
 */
Relation
mih_open_checked(Oid indexoid, LOCKMODE lockmode, Relation *heap)
{
	Oid			heapoid = checked_table(indexoid);
	Relation	index;

	*heap = table_open(heapoid, lockmode == AccessShareLock ? AccessShareLock : RowExclusiveLock);
	index = index_open(indexoid, lockmode);
	if (IndexGetRelation(indexoid, false) != heapoid)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("index \"%s\" changed while it was being opened", RelationGetRelationName(index))));
	if (!mih_is_ours(index))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a simhash_mih index", RelationGetRelationName(index))));
	return index;
}

/* What a check reports of the index's shape. */
typedef struct MihCheckShape
{
	int			ntables;
	int64		sorted_rows;
	int64		live;
	int64		pending;
	BlockNumber nblocks;
	int64		free_pages;
} MihCheckShape;

/*
 * Every run's build id was given out (mih_new_build_id) and its tag is its own: a run whose tag
 * another has could take that run's recycled pages for its own on a hot standby.
 */
static void
check_build_ids(Relation index, const MihMeta *meta)
{
	for (uint32 r = 0; r < meta->nruns; r++)
	{
		if (meta->runs[r].build_id > meta->last_build)
			mih_corrupt(index, MIH_META_BLKNO, "run %u has build id %lu, after the last given out (%lu)", r,
						(unsigned long) meta->runs[r].build_id, (unsigned long) meta->last_build);
		for (uint32 s = 0; s < r; s++)
			if (MihBuildTag(meta->runs[s].build_id) == MihBuildTag(meta->runs[r].build_id))
				mih_corrupt(index, MIH_META_BLKNO, "runs %u and %u have one tag", s, r);
	}
}

/*
 * One pass of the check over every run and chain of the meta page, copied into *seen first; the
 * heap side too with heapallindexed. A violation is an index_corrupted error.
 */
static void
check_index(Relation index, Relation heap, bool heapallindexed, MihMeta *seen, MihCheckShape *shape)
{
	Buffer		meta_buf;
	PGAlignedBlock copy;
	MihWalk		walk;
	MihEntries	entries = {NULL, 0, 0, index, heap};
	MihEntries *collect = heapallindexed ? &entries : NULL;
	Snapshot	snapshot = NULL;

	memset(shape, 0, sizeof(MihCheckShape));
	/* Taken before the index is read: every row it sees is in the index by then. */
	if (heapallindexed)
		snapshot = RegisterSnapshot(GetTransactionSnapshot());
	/* Pinned meta page: a concurrent flush or merge cannot recycle the pages checked. */
	meta_buf = mih_pin_meta(index, seen);
	check_build_ids(index, seen);
	for (uint32 r = 0; r < seen->nruns; r++)
	{
		const MihRun *run = &seen->runs[r];
		const MihDirectory *dir = mih_directory(index, seen, run, NULL);
		Size		nhashes;
		uint64	   *hashes = check_table0(index, seen, run, dir, &shape->live, collect, &nhashes);

		for (int j = 1; j < seen->ntables; j++)
			if (seen->flags & MIH_FLAG_COMPACT)
				check_keys(index, seen, run, dir, j, hashes);
			else if (run->flags & MIH_RUN_HASHES)
				check_hashes(index, seen, run, dir, j, hashes, nhashes);
			else
				check_tablej(index, seen, run, dir, j, hashes);
		check_filters(index, seen, run, dir, hashes, nhashes);
		pfree(hashes);
	}
	shape->pending = count_chain(index, seen->sealed_head, collect) + count_chain(index, seen->pending_head, collect);
	mih_walk_start(&walk, index);
	for (BlockNumber blkno = seen->nulls_head; blkno != InvalidBlockNumber;)
	{
		Page		page = copy_page(&walk, blkno, true, MIH_PAGE_NULLS, &copy);

		if (MihPageGetOpaque(page)->next == InvalidBlockNumber && blkno != seen->nulls_tail)
			mih_corrupt(index, blkno, "the NULL chain ends before its tail %u", seen->nulls_tail);
		blkno = MihPageGetOpaque(page)->next;
	}
	shape->nblocks = RelationGetNumberOfBlocks(index);
	for (BlockNumber blkno = 1; blkno < shape->nblocks; blkno++)
	{
		Buffer		buffer;
		Page		page;

		CHECK_FOR_INTERRUPTS();
		buffer = ReadBuffer(index, blkno);
		LockBuffer(buffer, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buffer);
		if (!PageIsNew(page) && MihPageGetOpaque(page)->kind == MIH_PAGE_FREE)
			shape->free_pages++;
		UnlockReleaseBuffer(buffer);
	}
	ReleaseBuffer(meta_buf);
	if (heapallindexed)
	{
		check_heap(heap, index, snapshot, &entries);
		UnregisterSnapshot(snapshot);
	}
	shape->ntables = seen->ntables;
	shape->sorted_rows = (int64) mih_sorted_rows(seen);
}

/*
 * True if a page the check read may have been freed since it copied the meta page: a run it read
 * is gone (a merge), a chain it walked moved, or a flush freed a sealed chain (the generation
 * counts those: a new pending chain may start at the block the old one did). Nothing else frees
 * a page.
 */
static bool
pages_recycled_since(Relation index, const MihMeta *seen)
{
	MihMeta		now;

	mih_read_meta(index, &now);
	if (now.generation != seen->generation || now.pending_head != seen->pending_head ||
		now.sealed_head != seen->sealed_head || now.nulls_head != seen->nulls_head)
		return true;
	for (uint32 r = 0; r < seen->nruns; r++)
		if (!mih_has_run(&now, seen->runs[r].build_id, seen->runs[r].epoch))
			return true;
	return false;
}

/*
 * A hot standby replays a merge or a flush without waiting for the meta page's pin, so the pages
 * a pass is reading may be freed, even reused, under it, and look damaged. There each pass runs in
 * a subtransaction: a violation found while the index moved (pages_recycled_since) ends the pass,
 * which the caller starts again; any other error, or a violation in an index that did not move,
 * is raised as it is. Returns true once a pass completed. As a scan does (mih_check_retry), the
 * check starts again for as long as the index keeps moving under it: each pass checks for
 * interrupts, so a cancel or statement_timeout ends it.
 */
static bool
check_pass_on_standby(Relation index, Relation heap, bool heapallindexed, MihCheckShape *shape)
{
	MemoryContext cxt = CurrentMemoryContext;
	/* what a pass allocates (a copy of every row, with heapallindexed) goes with it */
	MemoryContext pass_cxt = AllocSetContextCreate(cxt, "simhash_mih_check pass", ALLOCSET_DEFAULT_SIZES);
	ResourceOwner owner = CurrentResourceOwner;
	MihMeta		seen;
	volatile bool completed = false;

	/*
	 * A pass that fails before it copies the meta page failed on the meta page itself, which
	 * pages_recycled_since reads again, raising the same error.
	 */
	memset(&seen, 0, sizeof(seen));
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(pass_cxt);
	PG_TRY();
	{
		check_index(index, heap, heapallindexed, &seen, shape);
		ReleaseCurrentSubTransaction();
		completed = true;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (edata->sqlerrcode != ERRCODE_INDEX_CORRUPTED || !pages_recycled_since(index, &seen))
			ReThrowError(edata);
		FreeErrorData(edata);
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	CurrentResourceOwner = owner;
	MemoryContextDelete(pass_cxt);
	/* A page a merge in slices gave back to its run passes for the run's: the pass's end tells. */
	return completed && mih_runs_unchanged(index, &seen, true);
}

Datum
simhash_mih_check(PG_FUNCTION_ARGS)
{
	Relation	heap;
	Relation	index = mih_open_checked(PG_GETARG_OID(0), AccessShareLock, &heap);
	TupleDesc	tupdesc;
	MihMeta		seen;
	MihCheckShape shape;
	Datum		values[6];
	bool		nulls[6] = {false};
	/* The function of 1.2 and before takes the index only. */
	bool		heapallindexed = PG_NARGS() > 1 && PG_GETARG_BOOL(1);

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "simhash_mih_check must return a record");
	if (!RecoveryInProgress())
		check_index(index, heap, heapallindexed, &seen, &shape);
	else
		while (!check_pass_on_standby(index, heap, heapallindexed, &shape))
			CHECK_FOR_INTERRUPTS();
	index_close(index, AccessShareLock);
	table_close(heap, AccessShareLock);

	values[0] = Int32GetDatum(shape.ntables);
	values[1] = Int64GetDatum(shape.sorted_rows);
	values[2] = Int64GetDatum(shape.live);
	values[3] = Int64GetDatum(shape.pending);
	values[4] = Int64GetDatum((int64) shape.nblocks);
	values[5] = Int64GetDatum(shape.free_pages);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
