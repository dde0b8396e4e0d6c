/*
 * Building a simhash_mih index: collect (hash, tid) of every non-null row and the tid of every
 * NULL one, write the meta page, the sorted tables and the NULL chain.
 */
#include "simhash_type.h"
#include "am/mih_am.h"

#include "access/tableam.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "commands/progress.h"
#include "utils/backend_progress.h"
#include "storage/smgr.h"
#include "utils/memutils.h"

#include "mih_blocks.h"

typedef struct MihBuildState
{
	uint64	   *hashes;
	ItemPointerData *tids;
	Size		n;
	Size		cap;
	ItemPointerData *null_tids;	/* rows whose hash is NULL */
	Size		nnulls;
	Size		nulls_cap;
} MihBuildState;

static void
collect_row(Relation index, ItemPointer tid, Datum *values, bool *isnull, bool alive, void *arg)
{
	MihBuildState *st = (MihBuildState *) arg;

	if (isnull[0])
	{
		/* Never within any radius; only a scan ordered by distance returns them, last. */
		if (st->nnulls == st->nulls_cap)
		{
			st->nulls_cap *= 2;
			st->null_tids = repalloc_huge(st->null_tids, st->nulls_cap * sizeof(ItemPointerData));
		}
		st->null_tids[st->nnulls++] = *tid;
		return;
	}
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

/*
 * Writes the NULL chain of a new index: full pages written last to first, so each page knows the
 * next one; the tail (the first written, the only one with room) is where inserts go.
 */
static void
write_null_chain(Relation index, const ItemPointerData *tids, Size n, MihMeta *meta)
{
	PGAlignedBlock image;
	Size		pages = (n + MIH_ROWS_PER_PAGE - 1) / MIH_ROWS_PER_PAGE;
	BlockNumber next = InvalidBlockNumber;

	meta->nulls_head = meta->nulls_tail = InvalidBlockNumber;
	for (Size p = pages; p-- > 0;)
	{
		Page		page = image.data;
		Size		first = p * MIH_ROWS_PER_PAGE;
		Size		count = Min(MIH_ROWS_PER_PAGE, n - first);

		mih_init_page(page, MIH_PAGE_NULLS);
		MihPageGetOpaque(page)->nitems = (uint16) count;
		MihPageGetOpaque(page)->next = next;
		memcpy(MihPageTids(page), &tids[first], count * sizeof(ItemPointerData));
		next = mih_write_image(index, mih_new_buffer(index), page);
		if (p == pages - 1)
			meta->nulls_tail = next;
	}
	meta->nulls_head = next;
}

static void
init_meta(MihMeta *meta)
{
	memset(meta, 0, sizeof(MihMeta));
	meta->magic = MIH_MAGIC;
	meta->version = MIH_VERSION;
	meta->ntables = 3;
	meta->pending_head = InvalidBlockNumber;
	meta->pending_tail = InvalidBlockNumber;
	meta->sealed_head = InvalidBlockNumber;
	meta->nulls_head = InvalidBlockNumber;
	meta->nulls_tail = InvalidBlockNumber;
}

static void
write_meta(Relation index, Buffer buffer, const MihMeta *meta)
{
	GenericXLogState *state = GenericXLogStart(index);
	Page		page = GenericXLogRegisterBuffer(state, buffer, GENERIC_XLOG_FULL_IMAGE);

	mih_init_page(page, MIH_PAGE_META);
	memcpy(MihPageGetMeta(page), meta, sizeof(MihMeta));
	GenericXLogFinish(state);
}

IndexBuildResult *
mih_build(Relation heap, Relation index, IndexInfo *info)
{
	IndexBuildResult *result;
	MihBuildState st;
	MihMeta		meta;
	Buffer		meta_buf;
	double		reltuples;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data", RelationGetRelationName(index));

	st.cap = 1024;
	st.n = 0;
	st.hashes = palloc_extended(st.cap * sizeof(uint64), MCXT_ALLOC_HUGE);
	st.tids = palloc_extended(st.cap * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);
	st.nulls_cap = 64;
	st.nnulls = 0;
	st.null_tids = palloc_extended(st.nulls_cap * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, MIH_PHASE_SCAN);
	reltuples = table_index_build_scan(heap, index, info, true, true, collect_row, &st, NULL);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, MIH_PHASE_WRITE);

	init_meta(&meta);
	meta_buf = mih_new_buffer(index);
	Assert(BufferGetBlockNumber(meta_buf) == MIH_META_BLKNO);
	write_meta(index, meta_buf, &meta);
	LockBuffer(meta_buf, BUFFER_LOCK_UNLOCK);

	/* Every run of the index has the tables and the layout chosen here (until a full merge). */
	meta.ntables = mih_tables_for(index, st.n);
	meta.flags = mih_compact_for(index) ? MIH_FLAG_COMPACT : 0;
	if (st.n > 0)
	{
		static const MihProgress progress = {PROGRESS_CREATEIDX_TUPLES_TOTAL, PROGRESS_CREATEIDX_TUPLES_DONE};

		mih_write_tables(index, st.hashes, st.tids, st.n, meta.ntables, mih_compact_for(index), NULL,
						 &progress, mih_new_build_id(&meta), &meta.runs[0]);
		meta.nruns = 1;
	}
	write_null_chain(index, st.null_tids, st.nnulls, &meta);

	LockBuffer(meta_buf, BUFFER_LOCK_EXCLUSIVE);
	write_meta(index, meta_buf, &meta);
	UnlockReleaseBuffer(meta_buf);

	result = palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = (double) (st.n + st.nnulls);
	return result;
}

char *
mih_buildphasename(int64 phase)
{
	switch (phase)
	{
		case PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE:
			return "initializing";
		case MIH_PHASE_SCAN:
			return "reading the table";
		case MIH_PHASE_WRITE:
			return "sorting and writing the tables";
		default:
			return NULL;
	}
}

/* The init fork of an unlogged index: an empty meta page. */
void
mih_buildempty(Relation index)
{
	PGAlignedBlock image;
	MihMeta		meta;

	init_meta(&meta);
	mih_init_page(image.data, MIH_PAGE_META);
	memcpy(MihPageGetMeta(image.data), &meta, sizeof(MihMeta));
	sh_page_set_checksum(image.data, MIH_META_BLKNO);
	smgrwrite(RelationGetSmgr(index), INIT_FORKNUM, MIH_META_BLKNO, image.data, true);
	log_newpage(sh_smgr_locator(RelationGetSmgr(index)), INIT_FORKNUM, MIH_META_BLKNO,
				image.data, true);
	smgrimmedsync(RelationGetSmgr(index), INIT_FORKNUM);
}
