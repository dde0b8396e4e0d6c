/*
 * The simhash_mih index access method: exact radius search by multi-index hashing over
 * block-permuted sorted tables (Manku et al.), stored in the index's own pages.
 *
 * Layout 3 (every page is a standard page whose used bytes lie below pd_lower, so generic WAL
 * logs exactly them):
 *   block 0                 meta page: the runs, the pending, sealed and NULL chains
 *   runs                    each a set of m sorted tables written at once (by the build, a flush
 *                           of the pending rows or a merge of runs), all runs with the same m:
 *     table 0 pages         (hash, tid) of every row of the run, sorted by block 0 of the hash,
 *                           the tids packed (MihTidsHeader; a run of 1.2 has them whole)
 *     table 1 .. m-1 pages  the distinct hashes of table 0, sorted by block j, packed as their
 *                           differences from each page's first (MihPackedPage): a row found
 *                           there is reached through table 0 by value (block 0, then the hash);
 *                           a run of layout 2 (simhash 1.2) holds (hash, ordinal in table 0)
 *                           instead (MIH_PAGE_TABLEJ); a compact index (WITH (compact = on))
 *                           the distinct 4-byte keys of the rows grouped by block j
 *                           (format/mih_keys.h)
 *     fence pages           per table, a chain of (block value of the page's first entry, page)
 *                           for each of its pages in order: the table's directory
 *     filter pages          per table of a run small enough, a chain holding a bitmap of the
 *                           block values present (mih_am_filter.c): most probes of such a run
 *                           end in memory
 *   pending pages           (hash, tid) inserted since the last flush, unsorted, a chain; the
 *                           sealed chain is the same while a flush writes it as a run
 *   NULL pages              (unused, tid) of the rows whose hash is NULL, a chain: only a scan
 *                           ordered by distance returns them (last)
 *   free pages              recycled by a flush or merge, listed in the free space map
 * A radius-k query probes, in each run and on each table j, every value within t_j bits of the
 * query's block j, with sum_j (t_j + 1) > k (pigeonhole: an answer agrees that closely on at least
 * one block; the cheapest such levels, mih_radius_levels), and compares full hashes in the index,
 * then reads the sealed and pending pages linearly. Only true answers are returned.
 * A scan ordered by sh <-> q probes the tables of every run level by level (mih_am_knn.c).
 * Inserts flush the pending rows into a run at the pending_limit, and runs merge by size tiers
 * (mih_am_merge.c); VACUUM invalidates the tids of dead rows in table 0 of each run (the other
 * tables reach rows through it) and compacts pending pages (mih_am_vacuum.c).
 *
 * Why tables 1..m-1 hold hashes, not where a row sits in table 0: 8 bytes an entry instead of 12
 * (about 6.5 packed: sorted neighbours share their top bits), each distinct hash once (a crawl
 * stores the same page many times), and a table 0 that can be rewritten in parts without
 * renumbering what the other tables refer to.
 */
#ifndef SIMHASH_MIH_FORMAT_H
#define SIMHASH_MIH_FORMAT_H

#include "postgres.h"

#include "storage/buf.h"
#include "storage/bufpage.h"
#include "storage/itemptr.h"

#include "packed_keys.h"
#include "pg_compat.h"

#define MIH_MAGIC			0x4D494841	/* "MIHA" */
#define MIH_VERSION			3
#define MIH_VERSION_ONE_RUN	2	/* simhash 1.2: read as one run */
#define MIH_META_BLKNO		0
#define MIH_MIN_TABLES		2
#define MIH_MAX_TABLES		6

/* Page kinds, kept in the special space. */
#define MIH_PAGE_META		1
#define MIH_PAGE_TABLE0		2
#define MIH_PAGE_TABLEJ		3	/* tables 1..m-1 of a run of layout 2: (hash, ordinal) */
#define MIH_PAGE_FENCE		4
#define MIH_PAGE_PENDING	5
#define MIH_PAGE_FREE		6
#define MIH_PAGE_NULLS		7
#define MIH_PAGE_KEYS		8	/* tables 1..m-1 of a compact index */
#define MIH_PAGE_FILTER		9	/* a run's block filter (mih_am_filter.c) */
#define MIH_PAGE_HINTS		10	/* the buffers a run's table pages were written through */
#define MIH_PAGE_HASHES		11	/* tables 1..m-1: distinct hashes (MIH_RUN_HASHES) */
#define MIH_PAGE_ROWS		12	/* table 0 with packed tids (MIH_RUN_PACKED_ROWS) */

typedef struct MihPageOpaque
{
	uint16		kind;
	uint16		nitems;
	BlockNumber next;			/* pending and fence chains; on table pages, the build's tag */
} MihPageOpaque;

/* Table pages carry the low bits of their build's id, so a scan can tell a recycled page. */
#define MihBuildTag(build_id)	((uint32) (build_id))

#define MIH_DATA_BYTES \
	(BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - MAXALIGN(sizeof(MihPageOpaque)))
/*
 * pending and NULL pages, and table 0 of a run of layout 2: uint64 hash[MIH_ROWS_PER_PAGE], then
 * ItemPointerData tid[...]
 */
#define MIH_ROWS_PER_PAGE	(MIH_DATA_BYTES / (sizeof(uint64) + sizeof(ItemPointerData)))
/*
 * table 0 (MIH_PAGE_ROWS): uint64 hash[nitems], then MihTidsHeader, then each row's heap tid
 * packed in the header's width (packed_keys.h): its block above the page's least, then its offset
 * (0: VACUUM found the row dead, or it was dead when written).
 */
typedef struct MihTidsHeader
{
	BlockNumber first_block;	/* the least block of the page's live rows */
	uint8		offset_bits;	/* 1..16 */
	uint8		width;			/* offset_bits, and the bits of the blocks above first_block */
	uint16		unused;
} MihTidsHeader;

/* The room for the packed tids of a page of n rows. */
#define MIH_TIDS_BYTES(n) \
	(MIH_DATA_BYTES - (n) * sizeof(uint64) - sizeof(MihTidsHeader))
/* The fewest rows a full page of table 0 holds (tids of 48 bits: blocks 2^32 apart, offsets of 16) ... */
#define MIH_ROWS_MIN_PER_PAGE	((MIH_DATA_BYTES - sizeof(MihTidsHeader) - 8) * 8 / (64 + 48))
/* ... and the most (tids of 1 bit). */
#define MIH_ROWS_MAX_PER_PAGE	((MIH_DATA_BYTES - sizeof(MihTidsHeader) - 8) * 8 / (64 + 1))
/* tables 1..m-1 of layout 2: uint64 hash[MIH_REFS_PER_PAGE], then uint32 ordinal[...] */
#define MIH_REFS_PER_PAGE	(MIH_DATA_BYTES / (sizeof(uint64) + sizeof(uint32)))
/*
 * tables 1..m-1 (MIH_PAGE_HASHES): MihPackedPage, then the page's keys (hashes rotated by block
 * j, sorted) as their differences from its first, bit-packed at its width (packed_keys.h)
 */
typedef struct MihPackedPage
{
	uint64		first;			/* the key of the page's first entry */
	uint16		width;			/* bits of each entry's difference from it: 0..57, or 64 */
	uint16		unused[3];
} MihPackedPage;

#define MIH_PACKED_BYTES	(MIH_DATA_BYTES - sizeof(MihPackedPage))
/* The fewest entries a full page of tables 1..m-1 holds (every difference 64 bits wide). */
#define MIH_HASHES_MIN_PER_PAGE	sh_packed_min_entries(MIH_PACKED_BYTES)
typedef struct MihFence
{
	uint32		first_value;	/* the table's block of the page's first hash */
	BlockNumber blkno;
} MihFence;

#define MIH_FENCES_PER_PAGE	(MIH_DATA_BYTES / sizeof(MihFence))
/* filter pages: uint64 words of the bitmap */
#define MIH_FILTER_WORDS_PER_PAGE	(MIH_DATA_BYTES / sizeof(uint64))
/* hint pages: Buffer per table page, in the directory's order */
#define MIH_HINTS_PER_PAGE	(MIH_DATA_BYTES / sizeof(Buffer))

#define MihPageGetOpaque(page)	((MihPageOpaque *) PageGetSpecialPointer(page))
#define MihPageHashes(page)		((uint64 *) PageGetContents(page))
#define MihPageTids(page)		((ItemPointerData *) (PageGetContents(page) + MIH_ROWS_PER_PAGE * sizeof(uint64)))
#define MihPageOrdinals(page)	((uint32 *) (PageGetContents(page) + MIH_REFS_PER_PAGE * sizeof(uint64)))
#define MihPageFences(page)		((MihFence *) PageGetContents(page))
#define MihPackedHeader(page)	((MihPackedPage *) PageGetContents(page))
#define MihPackedData(page)		((uint8 *) PageGetContents(page) + sizeof(MihPackedPage))

#define MihTidsHeaderOf(page) \
	((MihTidsHeader *) (PageGetContents(page) + MihPageGetOpaque(page)->nitems * sizeof(uint64)))
#define MihTidsData(page)		((uint8 *) (MihTidsHeaderOf(page) + 1))

/* The heap tid of row i of a page of (hash, tid) rows: table 0, pending or NULL. */
static inline ItemPointerData
mih_row_tid(Page page, int i)
{
	const MihTidsHeader *th;
	uint64		v;
	ItemPointerData tid;

	if (MihPageGetOpaque(page)->kind != MIH_PAGE_ROWS)
		return MihPageTids(page)[i];
	th = MihTidsHeaderOf(page);
	v = sh_packed_get((const uint8 *) (th + 1), th->width, (uint32) i);
	ItemPointerSet(&tid, th->first_block + (BlockNumber) (v >> th->offset_bits),
				   (OffsetNumber) (v & ((UINT64_C(1) << th->offset_bits) - 1)));
	return tid;
}

/* The key (hash rotated by its table's block) of entry i of a page of tables 1..m-1. */
static inline uint64
mih_packed_key(Page page, uint32 i)
{
	const MihPackedPage *pk = MihPackedHeader(page);

	return pk->first + sh_packed_get(MihPackedData(page), pk->width, i);
}

/*
 * A run: m sorted tables written at once (by the build, by a flush of the pending rows, or by a
 * merge of runs). Its table pages carry MihBuildTag(build_id).
 */
typedef struct MihRun
{
	uint64		build_id;		/* greater than every id given out before it (mih_new_build_id) */
	uint64		nrows;			/* entries in each of its tables, dead ones included */
	uint32		table_pages[MIH_MAX_TABLES];
	BlockNumber fence_head[MIH_MAX_TABLES];	/* the first page of each table's directory */
	BlockNumber filter_head[MIH_MAX_TABLES];	/* the first page of each table's filter */
	uint32		filter_bits;	/* log2 of the bits of each filter; 0: the run has none */
	uint16		merging;		/* 1 while the background worker merges it: no inserter's
								 * merge takes it */
	uint16		flags;			/* MIH_RUN_* */
	/*
	 * The first page of each table's hints: the buffer each of its pages was written through, so
	 * that every backend's first visit of a new run's page skips the buffer mapping's lookup
	 * (mih_read_recent checks each). InvalidBlockNumber: none (a run of layout 2).
	 */
	BlockNumber hint_head[MIH_MAX_TABLES];
	/*
	 * Changes whenever a merge in slices (mih_am_slices.c) replaces one of the run's tables in
	 * place: a run is its build_id and epoch (directories are cached by both). Its new pages carry
	 * the run's tag, so a hot standby's scan tells them from the pages they replaced by the epoch
	 * (mih_runs_unchanged).
	 */
	uint64		epoch;
} MihRun;

StaticAssertDecl(sizeof(MihRun) == 128, "a run's fields in the meta page: layout 3");

/* Tables 1..m-1 hold distinct hashes (MIH_PAGE_HASHES); a run of layout 2 has ordinals. */
#define MIH_RUN_HASHES		1
/*
 * Tables 1..m-1 may hold hashes table 0 does not (a merge in slices, mih_am_slices.c, moves rows
 * between the base run and the level run table by table): a hash found there reaches no row of
 * this run (its rows are found through the other run), and pages of table 0 may be partly full.
 */
#define MIH_RUN_EXTRA		2
/* Table 0's pages pack their tids (MIH_PAGE_ROWS): every run from simhash 1.3 on. */
#define MIH_RUN_PACKED_ROWS	4

/* The page kind of table 0 of a run ... */
#define mih_table0_kind(run) \
	(((run)->flags & MIH_RUN_PACKED_ROWS) ? MIH_PAGE_ROWS : MIH_PAGE_TABLE0)
/* ... and of its tables 1..m-1. */
#define mih_tablej_kind(meta, run) \
	(((meta)->flags & MIH_FLAG_COMPACT) ? MIH_PAGE_KEYS : \
	 ((run)->flags & MIH_RUN_HASHES) ? MIH_PAGE_HASHES : MIH_PAGE_TABLEJ)

/* Size tiers (lsm/mih_merge_policy.h) keep far fewer runs; the meta page has room for this many. */
#define MIH_MAX_RUNS		32

/*
 * Layout 3. Layout 2 (simhash 1.2) had one run's fields in the meta page: mih_pin_meta reads such
 * a page as an index of one run, and the first change to the meta page writes it as layout 3.
 */
typedef struct MihMeta
{
	uint32		magic;
	uint32		version;
	int32		ntables;		/* m, the same in every run */
	uint32		flags;			/* MIH_FLAG_*, the same in every run */
	uint64		generation;		/* changes whenever runs or the sealed chain change (before any page
								 * is recycled) */
	BlockNumber pending_head;
	BlockNumber pending_tail;
	uint64		npending;		/* entries in pending pages but the tail page (upper bound: VACUUM
								 * removes some) */
	BlockNumber sealed_head;	/* pending rows a flush is writing as a run: scans read them too */
	uint32		nruns;
	uint64		nsealed;
	BlockNumber nulls_head;
	BlockNumber nulls_tail;
	uint64		inserted;		/* rows appended to the pending chain since the build, counted
								 * when their page stops being the tail */
	uint64		written;		/* rows written into runs by flushes and merges since the build */
	uint64		slices;			/* changes of merges in slices (mih_am_slices.c): mih_runs_unchanged */
	MihRun		runs[MIH_MAX_RUNS];
	uint64		last_build;		/* the build id given last (mih_new_build_id) */
} MihMeta;

StaticAssertDecl(sizeof(MihMeta) <= MIH_DATA_BYTES, "the meta page holds MihMeta");

#define MIH_FLAG_COMPACT	1	/* tables 1..m-1 are key tables */

#define MihPageGetMeta(page)	((MihMeta *) PageGetContents(page))

/* The rows of every run, dead ones included. */
static inline uint64
mih_sorted_rows(const MihMeta *meta)
{
	uint64		n = 0;

	for (uint32 r = 0; r < meta->nruns; r++)
		n += meta->runs[r].nrows;
	return n;
}

typedef struct MihOptions
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	int			blocks;			/* 0: chosen from the row count at build */
	bool		compact;		/* key tables (MIH_FLAG_COMPACT) at the next build or full merge */
	int			pending_limit;	/* kB of pending rows that make the inserter flush them */
	int			base_share;		/* the other runs merge into the base at 1/base_share of its rows; 0: never */
} MihOptions;

/* (The options' defaults are knobs of the merge policy: lsm/mih_merge_policy.h.) */

#endif
