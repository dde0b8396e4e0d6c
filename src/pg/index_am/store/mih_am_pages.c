/*
 * Page helpers of the simhash_mih access method: page initialization, allocation (recycled
 * pages first), chains of pages that hold an array (fences, filters) and the meta page (the
 * tables' directory: mih_am_directory.c). Every change goes through generic WAL.
 */
#include "store/mih_store.h"
#include "format/mih_keys.h"

#include "miscadmin.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

/* The backend's MihDirCache of the index (made on first use). */
MihDirCache *
mih_dir_cache(Relation index)
{
	if (index->rd_amcache == NULL)
		index->rd_amcache = MemoryContextAllocZero(index->rd_indexcxt, sizeof(MihDirCache));
	return (MihDirCache *) index->rd_amcache;
}

/*
 * A walk starts from the size this backend last saw: the index never shrinks (no page of it is
 * ever truncated), so a block below that size is inside it, and only a block beyond it costs a
 * look-up (a system call). A scan starts a walk for every run and chain it reads.
 */
void
mih_walk_start(MihWalk *walk, Relation index)
{
	walk->index = index;
	walk->nblocks = mih_dir_cache(index)->nblocks;
	walk->steps = 0;
}

/* The index's size now, remembered for the walks that start later. */
static BlockNumber
walk_size(MihWalk *walk)
{
	MihDirCache *cache = mih_dir_cache(walk->index);

	walk->nblocks = RelationGetNumberOfBlocks(walk->index);
	cache->nblocks = Max(cache->nblocks, walk->nblocks);
	return walk->nblocks;
}

/* Whether blkno can be a data page of the index: not the meta page, not past the end. */
static bool
link_fits(MihWalk *walk, BlockNumber blkno)
{
	CHECK_FOR_INTERRUPTS();
	/* The index may have grown since the size was looked up. */
	return blkno != MIH_META_BLKNO && (blkno < walk->nblocks || blkno < walk_size(walk));
}

/* Counts a step of a chain's walk: false once it visited more pages than the index has (a cycle). */
static bool
step_fits(MihWalk *walk)
{
	return ++walk->steps <= walk->nblocks || walk->steps <= walk_size(walk);
}

/* Checks that blkno can be a data page of the index, before anything reads it. */
void
mih_check_link(MihWalk *walk, BlockNumber blkno)
{
	if (link_fits(walk, blkno))
		return;
	if (blkno == MIH_META_BLKNO)
		mih_corrupt(walk->index, blkno, "a link points to the meta page");
	mih_corrupt(walk->index, blkno, "a link points past the end of the index (%u blocks)", walk->nblocks);
}

/* As mih_check_link, for the next page of a chain: a chain longer than the index is a cycle. */
void
mih_walk_step(MihWalk *walk, BlockNumber blkno)
{
	mih_check_link(walk, blkno);
	if (!step_fits(walk))
		mih_corrupt(walk->index, blkno, "a chain of pages visits more pages than the index has (a cycle)");
}

/* Checks that a page's kind is known and its item count fits the kind's arrays. */
void
mih_check_items(Relation index, BlockNumber blkno, Page page)
{
	MihPageOpaque *opaque = MihPageGetOpaque(page);
	int			capacity;

	if (PageIsNew(page))
		mih_corrupt(index, blkno, "the page is empty (never written)");
	if (PageGetSpecialSize(page) != MAXALIGN(sizeof(MihPageOpaque)))
		mih_corrupt(index, blkno, "the page is not a page of this access method");
	switch (opaque->kind)
	{
		case MIH_PAGE_ROWS:
			{
				const MihTidsHeader *th;

				/* what every read of a row trusts: its hash and tid stay within the page */
				if (opaque->nitems > MIH_ROWS_MAX_PER_PAGE)
					mih_corrupt(index, blkno, "a page of table 0 holds %u rows, more than fit", opaque->nitems);
				th = MihTidsHeaderOf(page);
				if (th->offset_bits < 1 || th->offset_bits > 16 || th->width < th->offset_bits ||
					th->width - th->offset_bits > 32 ||
					!sh_packed_fits(opaque->nitems, th->width, MIH_TIDS_BYTES(opaque->nitems)))
					mih_corrupt(index, blkno, "%u tids of %u bits (%u of offset) do not fit a page of table 0",
								opaque->nitems, th->width, th->offset_bits);
				capacity = MIH_ROWS_MAX_PER_PAGE;
			}
			break;
		case MIH_PAGE_TABLE0:
		case MIH_PAGE_PENDING:
		case MIH_PAGE_NULLS:
			capacity = MIH_ROWS_PER_PAGE;
			break;
		case MIH_PAGE_TABLEJ:
			capacity = MIH_REFS_PER_PAGE;
			break;
		case MIH_PAGE_HASHES:
			{
				const MihPackedPage *pk = MihPackedHeader(page);

				/* what every read of an entry trusts: it stays within the page */
				if ((pk->width > SH_PACKED_MAX_WIDTH && pk->width != SH_PACKED_WHOLE) ||
					(pk->width == 0 && opaque->nitems > 1) ||	/* distinct keys */
					!sh_packed_fits(opaque->nitems, pk->width, MIH_PACKED_BYTES))
					mih_corrupt(index, blkno, "%u keys of %u bits do not fit a page", opaque->nitems, pk->width);
				capacity = PG_UINT16_MAX;	/* bounded by the fit */
			}
			break;
		case MIH_PAGE_FENCE:
			capacity = MIH_FENCES_PER_PAGE;
			break;
		case MIH_PAGE_FILTER:
			capacity = MIH_FILTER_WORDS_PER_PAGE;
			break;
		case MIH_PAGE_HINTS:
			capacity = MIH_HINTS_PER_PAGE;
			break;
		case MIH_PAGE_KEYS:
			{
				const MihKeyPage *kp = MihKeyPageHeader(page);

				if ((opaque->nitems > 0 && kp->nvalues == 0) ||
					!mih_key_page_fits(kp->nvalues, (kp->flags & MIH_KEYS_SPARSE) != 0, opaque->nitems))
					mih_corrupt(index, blkno, "a key page's %u values and %u keys do not fit it",
								kp->nvalues, opaque->nitems);
				capacity = MIH_KEYS_PER_PAGE;
			}
			break;
		case MIH_PAGE_META:
		case MIH_PAGE_FREE:
			capacity = 0;
			break;
		default:
			mih_corrupt(index, blkno, "unknown page kind %u", opaque->kind);
	}
	if (opaque->nitems > capacity)
		mih_corrupt(index, blkno, "a page of kind %u holds %u items, more than its %d places",
					opaque->kind, opaque->nitems, capacity);
}

/*
 * Block blkno, locked in lockmode, which must be a page of the given kind: for readers that hold
 * the index still (VACUUM, a merge, the check, a run's directory read under the meta pin), any
 * other page is damage. A page of a chain counts as a step of the walk.
 */
Buffer
mih_read_kind(MihWalk *walk, BlockNumber blkno, uint16 kind, bool chain, int lockmode)
{
	Buffer		buffer;
	uint16		found;

	if (chain)
		mih_walk_step(walk, blkno);
	else
		mih_check_link(walk, blkno);
	buffer = ReadBuffer(walk->index, blkno);
	LockBuffer(buffer, lockmode);
	mih_check_items(walk->index, blkno, BufferGetPage(buffer));
	found = MihPageGetOpaque(BufferGetPage(buffer))->kind;
	if (found != kind)
		mih_corrupt(walk->index, blkno, "a page of kind %u where a page of kind %u belongs", found, kind);
	return buffer;
}

/*
 * Block blkno, pinned, through *hint: the buffer it was last found in. ReadRecentBuffer pins that
 * buffer if it still holds the block, skipping the buffer mapping's lookup; otherwise (a stale hint:
 * the buffer was given to another page, the index was dropped or truncated) ReadBuffer finds it, and
 * *hint becomes the buffer found. A hint outside this backend's buffers of the index's kind (a
 * temporary index's local buffers, a shared index's shared ones) is never tried.
 */
Buffer
mih_read_recent(Relation index, BlockNumber blkno, Buffer *hint)
{
	Buffer		b = *hint;
	bool		fits = RelationUsesLocalBuffers(index) ? (b < 0 && -b <= NLocBuffer) : (b > 0 && b <= NBuffers);

	if (fits && ReadRecentBuffer(sh_rel_locator(index), MAIN_FORKNUM, blkno, b))
		return b;
	*hint = ReadBuffer(index, blkno);
	return *hint;
}

/*
 * Where this backend last found the chains' pages, by block number modulo CHAIN_HINTS. Every scan
 * reads the whole pending chain, the same pages until the next flush: the hints skip the buffer
 * mapping's lookup, which cost a scan of 18,000 pending rows about as much as comparing them.
 */
#define CHAIN_HINTS		64
typedef struct MihChainHint
{
	Oid			relid;
	BlockNumber blkno;
	Buffer		buffer;
} MihChainHint;
static MihChainHint chain_hints[CHAIN_HINTS];

static Buffer
read_hinted(Relation index, BlockNumber blkno)
{
	MihChainHint *hint = &chain_hints[blkno % CHAIN_HINTS];

	if (hint->relid != RelationGetRelid(index) || hint->blkno != blkno)
	{
		hint->relid = RelationGetRelid(index);
		hint->blkno = blkno;
		hint->buffer = InvalidBuffer;
	}
	return mih_read_recent(index, blkno, &hint->buffer);
}

/*
 * The next page of a chain of the given kind, share-locked, for a scan that may read pages a hot
 * standby recycled under it: InvalidBuffer if the link leads nowhere or the page is new or of
 * another kind, and the caller finds out whether that was recycling or damage. A recycled page may
 * have become a page of a newer chain whose next page the standby has not replayed yet (past the
 * end of its file), or lead round into pages it read before.
 */
Buffer
mih_read_chain_page(MihWalk *walk, BlockNumber blkno, uint16 kind)
{
	Buffer		buffer;
	Page		page;

	if (!link_fits(walk, blkno) || !step_fits(walk))
		return InvalidBuffer;
	buffer = read_hinted(walk->index, blkno);
	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buffer);
	if (PageIsNew(page) || MihPageGetOpaque(page)->kind != kind)
	{
		UnlockReleaseBuffer(buffer);
		return InvalidBuffer;
	}
	mih_check_items(walk->index, blkno, page);
	return buffer;
}

/*
 * Reads a chain of pages of the given kind that holds an array (a table's fences, a filter's
 * words): copies their items, item_size bytes each from the start of each page's contents, into
 * items in chain order, and returns how many there were. A chain holding more than capacity items
 * is damage; without recycled, the caller checks that it held as many as it should. With recycled
 * (a scan that may read pages a hot standby recycled under it), a page of another kind or a chain
 * of more or fewer than capacity items is not damage yet: it sets *recycled (ending the read), and
 * the caller finds out which it was. (A recycled page may have become a page of the same kind in
 * a new chain, even the same run's after a merge in slices, so the chain can also end early.)
 */
Size
mih_read_item_chain(Relation index, BlockNumber head, uint16 kind, void *items, Size item_size,
					Size capacity, bool *recycled)
{
	Size		n = 0;
	MihWalk		walk;

	mih_walk_start(&walk, index);
	for (BlockNumber blkno = head; blkno != InvalidBlockNumber;)
	{
		Buffer		buffer;
		Page		page;
		MihPageOpaque *opaque;

		if (recycled == NULL)
			buffer = mih_read_kind(&walk, blkno, kind, true, BUFFER_LOCK_SHARE);
		else if (!BufferIsValid(buffer = mih_read_chain_page(&walk, blkno, kind)))
		{
			*recycled = true;
			return n;
		}
		page = BufferGetPage(buffer);
		opaque = MihPageGetOpaque(page);
		if (n + opaque->nitems > capacity)
		{
			if (recycled != NULL)
			{
				UnlockReleaseBuffer(buffer);
				*recycled = true;
				return n;
			}
			mih_corrupt(index, blkno, "a chain of pages of kind %u holds more than its %zu items",
						kind, capacity);
		}
		memcpy((char *) items + n * item_size, PageGetContents(page), opaque->nitems * item_size);
		n += opaque->nitems;
		blkno = opaque->next;
		UnlockReleaseBuffer(buffer);
	}
	if (recycled != NULL && n != capacity)
		*recycled = true;
	return n;
}

/*
 * A scan found a page that does not belong to the tables or chains of the meta copy it started
 * from, or a chain that leads nowhere (see mih_read_chain_page). That is legitimate only if the
 * index changed meanwhile (a merge, or a standby replaying one, rewrites the meta page): the scan
 * starts over. If the meta page is as it was, the pages are damaged, and starting over would find
 * them again forever.
 */
void
mih_check_retry(Relation index, const MihMeta *seen)
{
	MihMeta		now;

	mih_read_meta(index, &now);
	if (memcmp(&now, seen, sizeof(MihMeta)) == 0)
		mih_corrupt(index, MIH_META_BLKNO,
					"a page the meta page leads to is of another kind or build, or a chain leads "
					"past the end, to the meta page or round, and the index has not changed");
}

void
mih_init_page(Page page, uint16 kind)
{
	MihPageOpaque *opaque;

	PageInit(page, BLCKSZ, sizeof(MihPageOpaque));
	opaque = MihPageGetOpaque(page);
	opaque->kind = kind;
	opaque->nitems = 0;
	opaque->next = InvalidBlockNumber;
	/* The data arrays have fixed places; all of them lie below pd_lower so WAL carries them. */
	((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) + MIH_DATA_BYTES;
}

/*
 * An exclusively locked buffer for a new page: a page a merge recycled, else a new one at the end
 * of the index. The free space map is not WAL-logged, so a page it offers is used only if it
 * really is free.
 */
Buffer
mih_new_buffer(Relation index)
{
	Buffer		buffer;

	for (;;)
	{
		BlockNumber blkno = GetFreeIndexPage(index);
		Page		page;

		if (blkno == InvalidBlockNumber)
			break;
		buffer = ReadBuffer(index, blkno);
		if (ConditionalLockBuffer(buffer))
		{
			page = BufferGetPage(buffer);
			if (PageIsNew(page) ||
				(PageGetSpecialSize(page) == MAXALIGN(sizeof(MihPageOpaque)) &&
				 MihPageGetOpaque(page)->kind == MIH_PAGE_FREE))
				return buffer;
			LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
		}
		ReleaseBuffer(buffer);
	}

	LockRelationForExtension(index, ExclusiveLock);
	buffer = ReadBuffer(index, P_NEW);
	LockBuffer(buffer, BUFFER_LOCK_EXCLUSIVE);
	UnlockRelationForExtension(index, ExclusiveLock);
	return buffer;
}

/* Writes a page prepared in local memory into a locked new buffer, then releases it. */
BlockNumber
mih_write_image(Relation index, Buffer buffer, Page image)
{
	BlockNumber blkno = BufferGetBlockNumber(buffer);
	GenericXLogState *state = GenericXLogStart(index);
	Page		page = GenericXLogRegisterBuffer(state, buffer, GENERIC_XLOG_FULL_IMAGE);

	memcpy(page, image, BLCKSZ);
	GenericXLogFinish(state);
	UnlockReleaseBuffer(buffer);
	return blkno;
}

/*
 * Writes an array of nitems items, item_size bytes each, as a chain of new pages of the given kind
 * (a table's fences, a filter's words), as many items to a page as its contents hold; returns the
 * chain's first page, none for no items. mih_read_item_chain reads it back.
 */
BlockNumber
mih_write_item_chain(Relation index, uint16 kind, const void *items, Size item_size, Size nitems)
{
	Size		per_page = MIH_DATA_BYTES / item_size;
	Size		npages = (nitems + per_page - 1) / per_page;
	Buffer	   *buffers;
	BlockNumber head;
	PGAlignedBlock image;

	if (npages == 0)
		return InvalidBlockNumber;
	/* Each page points to the next, so all of them are allocated first. */
	buffers = palloc(npages * sizeof(Buffer));
	for (Size p = 0; p < npages; p++)
		buffers[p] = mih_new_buffer(index);
	head = BufferGetBlockNumber(buffers[0]);
	for (Size p = 0; p < npages; p++)
	{
		Page		page = image.data;
		Size		first = p * per_page;
		Size		count = Min(per_page, nitems - first);

		CHECK_FOR_INTERRUPTS();
		mih_init_page(page, kind);
		MihPageGetOpaque(page)->nitems = (uint16) count;
		if (p + 1 < npages)
			MihPageGetOpaque(page)->next = BufferGetBlockNumber(buffers[p + 1]);
		memcpy(PageGetContents(page), (const char *) items + first * item_size, count * item_size);
		mih_write_image(index, buffers[p], page);
	}
	pfree(buffers);
	return head;
}

/* The meta page of layout 2 (simhash 1.2): one run, its fields inline. */
typedef struct MihMetaV2
{
	uint32		magic;
	uint32		version;
	uint64		build_id;
	int32		ntables;
	uint32		flags;
	uint64		nrows;
	uint32		table_pages[4];
	BlockNumber fence_head[4];
	BlockNumber pending_head;
	BlockNumber pending_tail;
	uint64		npending;
	BlockNumber nulls_head;
	BlockNumber nulls_tail;
	uint32		more_table_pages[2];	/* tables 4 and 5 */
	BlockNumber more_fence_head[2];
} MihMetaV2;

/*
 * Reads a layout 2 meta page as layout 3: its tables are one run (an index of 1.2 has no other),
 * its pending and NULL chains stay where they are. Writers store the result, so the page becomes
 * layout 3 at its first change.
 */
static void
convert_layout2(const MihMetaV2 *old, MihMeta *meta)
{
	memset(meta, 0, sizeof(MihMeta));
	meta->magic = MIH_MAGIC;
	meta->version = MIH_VERSION;
	meta->ntables = old->ntables;
	meta->flags = old->flags;
	meta->generation = old->build_id;
	meta->pending_head = old->pending_head;
	meta->pending_tail = old->pending_tail;
	meta->npending = old->npending;
	meta->sealed_head = InvalidBlockNumber;
	meta->nulls_head = old->nulls_head;
	meta->nulls_tail = old->nulls_tail;
	meta->nruns = old->nrows > 0 ? 1 : 0;
	meta->runs[0].build_id = old->build_id;
	meta->runs[0].nrows = old->nrows;
	meta->last_build = old->build_id;
	for (int j = 0; j < MIH_MAX_TABLES; j++)
	{
		bool		used = old->nrows > 0 && j < old->ntables;

		meta->runs[0].table_pages[j] = !used ? 0 : j < 4 ? old->table_pages[j] : old->more_table_pages[j - 4];
		meta->runs[0].fence_head[j] = !used ? InvalidBlockNumber :
			j < 4 ? old->fence_head[j] : old->more_fence_head[j - 4];
		meta->runs[0].filter_head[j] = InvalidBlockNumber;	/* layout 2 had no filters, */
		meta->runs[0].hint_head[j] = InvalidBlockNumber;	/* nor hints */
	}
}

/* Refuses a meta page of another layout, or one whose counts cannot be right. */
void
mih_validate_meta(Relation index, const MihMeta *meta)
{
	if (meta->magic != MIH_MAGIC || meta->version != MIH_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is not a simhash_mih index of layout %d",
						RelationGetRelationName(index), MIH_VERSION),
				 errdetail("Its meta page has magic %08x and layout %u.", meta->magic, meta->version),
				 errhint("REINDEX the index: an index of an older layout, or a damaged one, is rebuilt by it.")));
	if (meta->ntables < MIH_MIN_TABLES || meta->ntables > MIH_MAX_TABLES)
		mih_corrupt(index, MIH_META_BLKNO, "the meta page names %d tables", meta->ntables);
	if (meta->flags & ~MIH_FLAG_COMPACT)
		mih_corrupt(index, MIH_META_BLKNO, "the meta page has unknown flags %x", meta->flags);
	if (meta->nruns > MIH_MAX_RUNS)
		mih_corrupt(index, MIH_META_BLKNO, "the meta page names %u runs", meta->nruns);
	for (uint32 r = 0; r < meta->nruns; r++)
	{
		uint64		per_page = (meta->runs[r].flags & MIH_RUN_PACKED_ROWS) ? MIH_ROWS_MAX_PER_PAGE : MIH_ROWS_PER_PAGE;

		if (meta->runs[r].nrows > (uint64) meta->runs[r].table_pages[0] * per_page)
			mih_corrupt(index, MIH_META_BLKNO, "the meta page counts %lu rows in %u pages of table 0 of run %u",
						(unsigned long) meta->runs[r].nrows, meta->runs[r].table_pages[0], r);
		/* a compact index's key tables reach rows by value already */
		if ((meta->runs[r].flags & ~(MIH_RUN_HASHES | MIH_RUN_EXTRA | MIH_RUN_PACKED_ROWS)) ||
			/*
			 * runs of 1.2 have neither; every run since has packed rows, and, unless compact,
			 * tables of distinct hashes (tables of row numbers count 582 rows a page of table 0)
			 */
			((meta->runs[r].flags & MIH_RUN_HASHES) && !(meta->runs[r].flags & MIH_RUN_PACKED_ROWS)) ||
			((meta->runs[r].flags & MIH_RUN_PACKED_ROWS) && !(meta->runs[r].flags & MIH_RUN_HASHES) &&
			 !(meta->flags & MIH_FLAG_COMPACT)) ||
			((meta->runs[r].flags & MIH_RUN_EXTRA) && !(meta->runs[r].flags & MIH_RUN_HASHES)) ||
			/* only a merge in slices changes a run, and only one of distinct hashes (full pages) */
			(meta->runs[r].epoch > 0 && !(meta->runs[r].flags & MIH_RUN_HASHES)) ||
			((meta->runs[r].flags & MIH_RUN_HASHES) && (meta->flags & MIH_FLAG_COMPACT)))
			mih_corrupt(index, MIH_META_BLKNO, "run %u has flags %x", r, meta->runs[r].flags);
	}
}

/* Copies the meta page of a locked buffer (layout 2 read as layout 3) and validates it. */
void
mih_copy_meta(Relation index, Page page, MihMeta *meta)
{
	const MihMeta *stored = MihPageGetMeta(page);

	if (stored->magic == MIH_MAGIC && stored->version == MIH_VERSION_ONE_RUN)
		convert_layout2((const MihMetaV2 *) stored, meta);
	else
		memcpy(meta, stored, sizeof(MihMeta));
	mih_validate_meta(index, meta);
}

/*
 * Copies the meta page and returns its buffer, still pinned: a scan keeps the pin while it reads
 * the runs the copy describes, and a flush or merge waits for such pins before recycling pages.
 */
Buffer
mih_pin_meta(Relation index, MihMeta *meta)
{
	Buffer		buffer = ReadBuffer(index, MIH_META_BLKNO);

	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	PG_TRY();
	{
		mih_copy_meta(index, BufferGetPage(buffer), meta);
	}
	PG_CATCH();
	{
		LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
		ReleaseBuffer(buffer);
		PG_RE_THROW();
	}
	PG_END_TRY();
	LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
	return buffer;
}

void
mih_read_meta(Relation index, MihMeta *meta)
{
	ReleaseBuffer(mih_pin_meta(index, meta));
}

/*
 * Starts a change of the meta page: locks it exclusively, registers it with state and returns the
 * page's MihMeta, a layout 2 page already rewritten as layout 3 (*copy gets the same).
 */
MihMeta *
mih_begin_meta_change(Relation index, Buffer buffer, GenericXLogState *state)
{
	Page		page;
	MihMeta		copy;

	LockBuffer(buffer, BUFFER_LOCK_EXCLUSIVE);
	page = GenericXLogRegisterBuffer(state, buffer, 0);
	mih_copy_meta(index, page, &copy);
	memcpy(MihPageGetMeta(page), &copy, sizeof(MihMeta));
	return MihPageGetMeta(page);
}

/*
 * Gives the build id of a run about to be written, in a change of the meta page (meta is the
 * page's, exclusively locked) made before the run's pages are written with its tag: the time in
 * microseconds, or the id given last plus one if that is not later, skipping the tags of the runs
 * listed. Two runs written at once (a flush beside a merge, in one microsecond) cannot get one id,
 * and a run's id is greater than every earlier run's, so it matches no directory a backend cached
 * of a run that is gone, and its tag matches the tag of no run whose pages it may take until the
 * low 32 bits of the clock come round (71 minutes).
 */
uint64
mih_new_build_id(MihMeta *meta)
{
	uint64		id = Max((uint64) GetCurrentTimestamp(), meta->last_build + 1);

	for (uint32 r = 0; r < meta->nruns; r++)
		if (MihBuildTag(meta->runs[r].build_id) == MihBuildTag(id))
		{
			id++;
			r = (uint32) -1;	/* check every run again */
		}
	meta->last_build = id;
	return id;
}

/* mih_new_build_id in a change of its own, for a writer that makes no other change first. */
uint64
mih_reserve_build_id(Relation index)
{
	Buffer		meta_buf = ReadBuffer(index, MIH_META_BLKNO);
	GenericXLogState *state = GenericXLogStart(index);
	uint64		id = mih_new_build_id(mih_begin_meta_change(index, meta_buf, state));

	GenericXLogFinish(state);
	UnlockReleaseBuffer(meta_buf);
	return id;
}

/*
 * True if the meta page still lists the run of this build and epoch: a merge removes the runs it
 * read, a merge in slices changes the epoch of a run whose table it replaced.
 */
bool
mih_has_run(const MihMeta *meta, uint64 build_id, uint64 epoch)
{
	for (uint32 r = 0; r < meta->nruns; r++)
		if (meta->runs[r].build_id == build_id)
			return meta->runs[r].epoch == epoch;
	return false;
}

/*
 * If seen was copied on a hot standby (on_standby, even if it was promoted since), true if no
 * merge in slices (mih_am_slices.c) changed the meta page since: a scan that read pages of runs
 * asks this at its end. Such a merge frees pages of a run and writes new ones of the same run,
 * with the same tag, that a page's tag cannot tell apart; but each of its changes of the meta
 * page counts in meta->slices before it frees a page, and a replay keeps that order, so a page
 * read before the count moved was the run's. (A page another run took has another tag:
 * mih_probe_visit.) On a primary the scan's meta pin keeps every page it reads.
 */
bool
mih_runs_unchanged(Relation index, const MihMeta *seen, bool on_standby)
{
	MihMeta		now;

	if (!on_standby)
		return true;
	mih_read_meta(index, &now);
	return now.slices == seen->slices;
}

/*
 * If seen was copied on a hot standby (on_standby, even if it was promoted since), true if no
 * flush or merge was replayed since (the generation did not move): a reader of the sealed, pending
 * and NULL chains (or of the pending chain's tail page) asks this at its end, as such a change may
 * have freed the chains' pages and given them to a new chain of the same kind, unseen. On a
 * primary the reader's meta pin keeps them.
 */
bool
mih_generation_unchanged(Relation index, const MihMeta *seen, bool on_standby)
{
	MihMeta		now;

	if (!on_standby)
		return true;
	mih_read_meta(index, &now);
	return now.generation == seen->generation;
}

/*
 * Marks a page free (in WAL, so a stale free space map cannot hand out a live page) and lists it.
 * The free page is an empty one, logged whole: with nothing below pd_lower its image is its header
 * and special space, where a change of the old page's kind would log all 8 kB of it as the first
 * change after a checkpoint (full_page_writes), as much WAL as the merge that freed it wrote.
 * mih_init_page is not used: it puts pd_lower past the data arrays, so its image would be 8 kB.
 */
void
mih_free_page(Relation index, BlockNumber blkno)
{
	Buffer		buffer = ReadBuffer(index, blkno);
	GenericXLogState *state;
	Page		page;

	LockBuffer(buffer, BUFFER_LOCK_EXCLUSIVE);
	state = GenericXLogStart(index);
	page = GenericXLogRegisterBuffer(state, buffer, GENERIC_XLOG_FULL_IMAGE);
	PageInit(page, BLCKSZ, sizeof(MihPageOpaque));
	/* PageInit zeroed nitems. */
	MihPageGetOpaque(page)->kind = MIH_PAGE_FREE;
	MihPageGetOpaque(page)->next = InvalidBlockNumber;
	GenericXLogFinish(state);
	UnlockReleaseBuffer(buffer);
	RecordFreeIndexPage(index, blkno);
}

/*
 * The rows of the pending chain's tail page, which the meta page's npending does not count yet.
 * The caller holds the meta page locked, or pinned (the count may then be late, the page is not
 * recycled). With recycled (a reader whose copy of the meta page may come from a hot standby,
 * which replays a flush without waiting for pins), a tail page that is no longer a pending page
 * is not damage yet: it sets *recycled and counts 0, and the caller finds out which it was
 * (mih_check_retry).
 */
uint64
mih_tail_rows(Relation index, BlockNumber tail, bool *recycled)
{
	MihWalk		walk;
	Buffer		buffer;
	uint64		n;

	if (tail == InvalidBlockNumber)
		return 0;
	mih_walk_start(&walk, index);
	if (recycled == NULL)
		buffer = mih_read_kind(&walk, tail, MIH_PAGE_PENDING, false, BUFFER_LOCK_SHARE);
	else if (!BufferIsValid(buffer = mih_read_chain_page(&walk, tail, MIH_PAGE_PENDING)))
	{
		*recycled = true;
		return 0;
	}
	n = MihPageGetOpaque(BufferGetPage(buffer))->nitems;
	UnlockReleaseBuffer(buffer);
	return n;
}
