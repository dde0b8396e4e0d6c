/*
 * The directory of a run's tables, read from its fence, hint and filter pages once per run and
 * backend and kept in rd_amcache (MihDirCache).
 */
#include "store/mih_store.h"

#include "utils/memutils.h"

static void
free_directory(MihDirectory *dir)
{
	for (int j = 0; j < dir->ntables; j++)
	{
		if (dir->first_values[j])
			pfree(dir->first_values[j]);
		if (dir->blocks[j])
			pfree(dir->blocks[j]);
		if (dir->recent[j])
			pfree(dir->recent[j]);
		if (dir->filter[j])
			pfree(dir->filter[j]);
	}
	pfree(dir);
}

/* Reads the directory of one run from its fence pages (recycled: see mih_read_item_chain). */
static MihDirectory *
read_directory(Relation index, const MihMeta *meta, const MihRun *run, bool *recycled)
{
	MihDirectory *dir;
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);

	for (int j = 0; j < meta->ntables; j++)
		if (run->table_pages[j] >= nblocks)
			mih_corrupt(index, MIH_META_BLKNO, "table %d has %u pages, more than the index", j,
						run->table_pages[j]);
	dir = MemoryContextAllocZero(index->rd_indexcxt, sizeof(MihDirectory));
	dir->build_id = run->build_id;
	dir->epoch = run->epoch;
	dir->ntables = meta->ntables;
	for (int j = 0; j < meta->ntables; j++)
	{
		uint32		pages = run->table_pages[j];
		MihFence   *fences = palloc_extended(Max(pages, 1) * sizeof(MihFence), MCXT_ALLOC_HUGE);
		Size		n;

		dir->pages[j] = pages;
		dir->first_values[j] = MemoryContextAllocExtended(index->rd_indexcxt,
														  Max(pages, 1) * sizeof(uint32), MCXT_ALLOC_HUGE);
		dir->blocks[j] = MemoryContextAllocExtended(index->rd_indexcxt,
													Max(pages, 1) * sizeof(BlockNumber), MCXT_ALLOC_HUGE);
		dir->recent[j] = MemoryContextAllocExtended(index->rd_indexcxt, Max(pages, 1) * sizeof(Buffer),
													MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		n = mih_read_item_chain(index, run->fence_head[j], MIH_PAGE_FENCE, fences, sizeof(MihFence), pages,
								recycled);
		if (recycled == NULL && n != pages)
			mih_corrupt(index, run->fence_head[j], "the directory lists %zu of the %u pages of table %d",
						n, pages, j);
		for (uint32 p = 0; p < pages; p++)
		{
			dir->first_values[j][p] = fences[p].first_value;
			dir->blocks[j][p] = fences[p].blkno;
		}
		pfree(fences);
		if (run->hint_head[j] != InvalidBlockNumber)
		{
			n = mih_read_item_chain(index, run->hint_head[j], MIH_PAGE_HINTS, dir->recent[j], sizeof(Buffer),
									pages, recycled);
			if (recycled == NULL && n != pages)
				mih_corrupt(index, run->hint_head[j], "the hints list %zu of the %u pages of table %d",
							n, pages, j);
		}
	}
	mih_read_filters(index, meta, run, dir, recycled);
	return dir;
}

/*
 * The directory of a run of meta, read once per run and backend. Directories of runs meta no
 * longer has are dropped; those of its runs stay valid while the caller uses meta.
 *
 * A caller that holds the index still (a merge, VACUUM, the check) passes no stale: anything wrong
 * in the directory's pages is damage. A scan passes its stale flag. On a primary its meta pin
 * keeps the run's pages, but a hot standby replays a merge without waiting for scans, so the
 * pages the meta copy names may have been recycled, even reused by a newer run, before the
 * directory is read. A replayed merge removes the run from the meta page before it frees a page,
 * so if the meta page still has the run after the read, what was read was the run's; if not, the
 * directory read is dropped and stale set: the scan starts over from the meta page as it is now.
 */
const MihDirectory *
mih_directory(Relation index, const MihMeta *meta, const MihRun *run, bool *stale)
{
	MihDirCache *cache = mih_dir_cache(index);
	MihDirectory *dir;
	int			kept = 0;

	for (int i = 0; i < cache->n; i++)
		if (cache->dirs[i]->build_id == run->build_id && cache->dirs[i]->epoch == run->epoch &&
			cache->dirs[i]->ntables == meta->ntables)
			return cache->dirs[i];
	for (int i = 0; i < cache->n; i++)
	{
		if (mih_has_run(meta, cache->dirs[i]->build_id, cache->dirs[i]->epoch))
			cache->dirs[kept++] = cache->dirs[i];
		else
			free_directory(cache->dirs[i]);
	}
	cache->n = kept;
	/* Every directory kept is of another run of meta: there is room. */
	if (stale == NULL)
		dir = read_directory(index, meta, run, NULL);
	else
	{
		bool		recycled = false;
		MihMeta		now;

		dir = read_directory(index, meta, run, &recycled);
		mih_read_meta(index, &now);
		if (!mih_has_run(&now, run->build_id, run->epoch))
		{
			free_directory(dir);
			*stale = true;
			return NULL;
		}
		if (recycled)
		{
			/* The run is still there: its pages are damaged. Read again to raise the error. */
			free_directory(dir);
			dir = read_directory(index, meta, run, NULL);
		}
	}
	cache->dirs[cache->n++] = dir;
	return dir;
}
