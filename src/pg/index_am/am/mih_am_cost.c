/*
 * What the planner's cost estimate (mih_costestimate) knows of an index's shape: its number of
 * tables and the pages of each, with the rows a page of table 0 really holds (packed tids hold
 * 581 to 1,001 rows a page, 582 before; tables 1..m-1 pack their keys too). Read from the meta
 * page, as gincostestimate reads GIN's, without a check that could fail: planning a query that
 * will not use the index must not fail on a damaged index, which its scans and simhash_mih_check
 * report (XX002). A meta page this cannot read as layout 3 (a build not done yet, a layout 2 index
 * before its first change) gives way to the "blocks" option, else the table count a build would
 * choose for the rows, and the pages those rows would fill.
 */
#include "am/mih_am.h"

#include <math.h>

#include "storage/bufmgr.h"
#include "utils/rel.h"

#include "mih_blocks.h"

/* Reads the shape from the meta page; false if it is not a sound layout 3 page. */
static bool
shape_from_meta(Relation index, MihShape *shape)
{
	Buffer		buffer;
	const MihMeta *meta;
	bool		sound;

	if (RelationGetNumberOfBlocks(index) == 0)
		return false;
	buffer = ReadBuffer(index, MIH_META_BLKNO);
	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	meta = MihPageGetMeta(BufferGetPage(buffer));
	sound = !PageIsNew(BufferGetPage(buffer)) && meta->magic == MIH_MAGIC && meta->version == MIH_VERSION &&
		meta->ntables >= MIH_MIN_TABLES && meta->ntables <= MIH_MAX_TABLES && meta->nruns <= MIH_MAX_RUNS;
	if (sound)
	{
		shape->ntables = meta->ntables;
		shape->rows = (double) (meta->npending + meta->nsealed);
		/* The pending rows, unsorted, fill pages of MIH_ROWS_PER_PAGE and are all read. */
		shape->table_pages[0] = ceil(shape->rows / MIH_ROWS_PER_PAGE);
		for (int j = 1; j < meta->ntables; j++)
			shape->table_pages[j] = 0;
		for (uint32 r = 0; r < meta->nruns; r++)
		{
			shape->rows += (double) meta->runs[r].nrows;
			for (int j = 0; j < meta->ntables; j++)
				shape->table_pages[j] += meta->runs[r].table_pages[j];
		}
		shape->nruns = meta->nruns;
	}
	UnlockReleaseBuffer(buffer);
	return sound;
}

void
mih_shape_for_planner(Relation index, double tuples, MihShape *shape)
{
	MihOptions *opts = (MihOptions *) index->rd_options;
	bool		sound = shape_from_meta(index, shape);

	if (sound && shape->rows > 0)
		return;
	/* An empty index: the rows the statistics count (it is planned for them), at its table count. */
	if (!sound)
		shape->ntables = opts && opts->blocks != 0 ? opts->blocks :
			sh_mih_tables_for_rows(Max(tuples, 1.0), MIH_MIN_TABLES, 3);
	shape->rows = Max(tuples, 1.0);
	/* The rows fill table 0's pages at the fewest a page holds, the other tables' likewise. */
	for (int j = 0; j < shape->ntables; j++)
		shape->table_pages[j] = ceil(shape->rows / (j == 0 ? MIH_ROWS_MIN_PER_PAGE : MIH_HASHES_MIN_PER_PAGE));
	shape->nruns = 1;
}
