/*
 * Building a simhash_mih index: collect (hash, tid) of every non-null row, sort one copy per
 * table by that table's block, and write the tables, their fences and the meta page.
 */
#include "simhash_type.h"
#include "mih_am.h"

#include "access/tableam.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "miscadmin.h"
#include "storage/smgr.h"
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

typedef struct MihBuildState
{
	uint64	   *hashes;
	ItemPointerData *tids;
	Size		n;
	Size		cap;
} MihBuildState;

static void
collect_row(Relation index, ItemPointer tid, Datum *values, bool *isnull, bool alive, void *arg)
{
	MihBuildState *st = (MihBuildState *) arg;

	if (isnull[0])
		return;					/* NULLs are never within any radius */
	if (st->n == st->cap)
	{
		if (st->cap >= PG_UINT32_MAX / 2)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("a simhash_mih index holds at most %u rows", PG_UINT32_MAX / 2)));
		st->cap *= 2;
		st->hashes = repalloc_huge(st->hashes, st->cap * sizeof(uint64));
		st->tids = repalloc_huge(st->tids, st->cap * sizeof(ItemPointerData));
	}
	st->hashes[st->n] = DatumGetSimhash(values[0]);
	st->tids[st->n] = *tid;
	st->n++;
}

static int
tables_for(Relation index, Size nrows)
{
	MihOptions *opts = (MihOptions *) index->rd_options;

	if (opts && opts->blocks != 0)
		return opts->blocks;
	/* Four tables would cost 50 bytes a row; the size budget is 3 x (8 + 6). */
	return sh_mih_tables_for_rows((double) nrows, MIH_MIN_TABLES, 3);
}

static void
write_meta(Relation index, const MihMeta *meta, bool new_page)
{
	Buffer		buffer = new_page ? mih_new_buffer(index) : ReadBuffer(index, MIH_META_BLKNO);
	GenericXLogState *state;
	Page		page;

	if (!new_page)
		LockBuffer(buffer, BUFFER_LOCK_EXCLUSIVE);
	Assert(BufferGetBlockNumber(buffer) == MIH_META_BLKNO);
	state = GenericXLogStart(index);
	page = GenericXLogRegisterBuffer(state, buffer, GENERIC_XLOG_FULL_IMAGE);
	mih_init_page(page, MIH_PAGE_META);
	memcpy(MihPageGetMeta(page), meta, sizeof(MihMeta));
	GenericXLogFinish(state);
	UnlockReleaseBuffer(buffer);
}

/* Writes table j from refs (sorted) and returns the first block value of each page in fences. */
static void
write_table(Relation index, MihMeta *meta, int j, const MihBuildState *st, const MihRef *refs,
			uint32 *fences, PGAlignedBlock *image)
{
	Size		per_page = j == 0 ? MIH_ROWS_PER_PAGE : MIH_REFS_PER_PAGE;
	Size		pages = (st->n + per_page - 1) / per_page;

	meta->table_pages[j] = (uint32) pages;
	for (Size p = 0; p < pages; p++)
	{
		Page		page = image->data;
		Size		first = p * per_page;
		Size		count = Min(per_page, st->n - first);
		uint64	   *hashes = MihPageHashes(page);

		CHECK_FOR_INTERRUPTS();
		mih_init_page(page, j == 0 ? MIH_PAGE_TABLE0 : MIH_PAGE_TABLEJ);
		MihPageGetOpaque(page)->nitems = (uint16) count;
		for (Size i = 0; i < count; i++)
		{
			uint32		ord = refs[first + i].ord;

			hashes[i] = st->hashes[ord];
			if (j == 0)
				MihPageTids(page)[i] = st->tids[ord];
			else
				MihPageOrdinals(page)[i] = ord;
		}
		fences[p] = sh_mih_block_value(hashes[0], meta->ntables, j);
		if (p == 0)
			meta->table_start[j] = mih_append_image(index, page);
		else
			mih_append_image(index, page);
	}
}

static void
write_fences(Relation index, MihMeta *meta, int j, const uint32 *fences, PGAlignedBlock *image)
{
	uint32		pages = meta->table_pages[j];

	meta->fence_start[j] = InvalidBlockNumber;
	for (uint32 first = 0; first < pages; first += MIH_FENCES_PER_PAGE)
	{
		Page		page = image->data;
		uint32		count = Min(MIH_FENCES_PER_PAGE, pages - first);
		BlockNumber blkno;

		mih_init_page(page, MIH_PAGE_FENCE);
		MihPageGetOpaque(page)->nitems = (uint16) count;
		memcpy(MihPageFences(page), fences + first, count * sizeof(uint32));
		blkno = mih_append_image(index, page);
		if (first == 0)
			meta->fence_start[j] = blkno;
	}
}

/* Sorts the rows by block 0 in place, so a row's position is its ordinal in table 0. */
static void
sort_rows_by_first_block(MihBuildState *st, int m, MihRef *refs)
{
	uint64	   *hashes = palloc_extended(Max(st->n, 1) * sizeof(uint64), MCXT_ALLOC_HUGE);
	ItemPointerData *tids = palloc_extended(Max(st->n, 1) * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);

	for (Size i = 0; i < st->n; i++)
	{
		refs[i].key = sh_mih_rotate_block_to_top(st->hashes[i], m, 0);
		refs[i].ord = (uint32) i;
	}
	mih_sort_refs(refs, st->n);
	for (Size i = 0; i < st->n; i++)
	{
		hashes[i] = st->hashes[refs[i].ord];
		tids[i] = st->tids[refs[i].ord];
		refs[i].ord = (uint32) i;
	}
	pfree(st->hashes);
	pfree(st->tids);
	st->hashes = hashes;
	st->tids = tids;
}

IndexBuildResult *
mih_build(Relation heap, Relation index, IndexInfo *info)
{
	IndexBuildResult *result;
	MihBuildState st;
	MihMeta		meta;
	MihRef	   *refs;
	uint32	   *fences[MIH_MAX_TABLES];
	PGAlignedBlock image;
	double		reltuples;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data", RelationGetRelationName(index));

	st.cap = 1024;
	st.n = 0;
	st.hashes = palloc_extended(st.cap * sizeof(uint64), MCXT_ALLOC_HUGE);
	st.tids = palloc_extended(st.cap * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);
	reltuples = table_index_build_scan(heap, index, info, true, true, collect_row, &st, NULL);

	memset(&meta, 0, sizeof(meta));
	meta.magic = MIH_MAGIC;
	meta.version = MIH_VERSION;
	meta.build_id = (uint64) GetCurrentTimestamp() ^ ((uint64) MyProcPid << 44);
	meta.ntables = tables_for(index, st.n);
	meta.nrows = st.n;
	meta.pending_head = InvalidBlockNumber;
	meta.pending_tail = InvalidBlockNumber;
	write_meta(index, &meta, true);

	refs = palloc_extended(Max(st.n, 1) * sizeof(MihRef), MCXT_ALLOC_HUGE);
	sort_rows_by_first_block(&st, meta.ntables, refs);
	for (int j = 0; j < meta.ntables; j++)
	{
		if (j > 0)
		{
			for (Size i = 0; i < st.n; i++)
			{
				refs[i].key = sh_mih_rotate_block_to_top(st.hashes[i], meta.ntables, j);
				refs[i].ord = (uint32) i;
			}
			mih_sort_refs(refs, st.n);
		}
		fences[j] = palloc_extended(Max(st.n / MIH_ROWS_PER_PAGE + 1, 1) * sizeof(uint32),
									MCXT_ALLOC_HUGE);
		write_table(index, &meta, j, &st, refs, fences[j], &image);
	}
	for (int j = 0; j < meta.ntables; j++)
		write_fences(index, &meta, j, fences[j], &image);
	write_meta(index, &meta, false);

	result = palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = (double) st.n;
	return result;
}

/* The init fork of an unlogged index: an empty meta page. */
void
mih_buildempty(Relation index)
{
	PGAlignedBlock image;
	MihMeta		meta;

	memset(&meta, 0, sizeof(meta));
	meta.magic = MIH_MAGIC;
	meta.version = MIH_VERSION;
	meta.ntables = 3;
	meta.pending_head = InvalidBlockNumber;
	meta.pending_tail = InvalidBlockNumber;
	mih_init_page(image.data, MIH_PAGE_META);
	memcpy(MihPageGetMeta(image.data), &meta, sizeof(MihMeta));
	PageSetChecksumInplace(image.data, MIH_META_BLKNO);
	smgrwrite(RelationGetSmgr(index), INIT_FORKNUM, MIH_META_BLKNO, image.data, true);
	log_newpage(&(RelationGetSmgr(index))->smgr_rnode.node, INIT_FORKNUM, MIH_META_BLKNO,
				image.data, true);
	smgrimmedsync(RelationGetSmgr(index), INIT_FORKNUM);
}
