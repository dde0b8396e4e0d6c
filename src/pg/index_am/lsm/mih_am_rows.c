/*
 * The rows a flush or a merge reads (MihRows): the live rows of the pages it replaces, with the
 * list of those pages to recycle.
 */
#include "lsm/mih_lsm.h"
#include "lsm/mih_lsm_internal.h"

#include "utils/memutils.h"

void
mih_rows_init(MihRows *rows, uint64 expected)
{
	rows->cap = Max(expected, 1024);
	rows->n = 0;
	rows->hashes = palloc_extended(rows->cap * sizeof(uint64), MCXT_ALLOC_HUGE);
	rows->tids = palloc_extended(rows->cap * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);
	mih_blocks_init(&rows->old);
}

void
mih_rows_free(MihRows *rows)
{
	pfree(rows->hashes);
	pfree(rows->tids);
	pfree(rows->old.blocks);
}

/* A MihPageFn: the live rows of the page go to rows (a MihRows). */
void
mih_rows_collect(void *arg, Page page)
{
	MihRows    *rows = (MihRows *) arg;
	int			n = MihPageGetOpaque(page)->nitems;

	for (int i = 0; i < n; i++)
	{
		ItemPointerData tid = mih_row_tid(page, i);

		if (!ItemPointerIsValid(&tid))
			continue;
		if (rows->n == rows->cap)
		{
			rows->cap *= 2;
			rows->hashes = repalloc_huge(rows->hashes, rows->cap * sizeof(uint64));
			rows->tids = repalloc_huge(rows->tids, rows->cap * sizeof(ItemPointerData));
		}
		rows->hashes[rows->n] = MihPageHashes(page)[i];
		rows->tids[rows->n] = tid;
		rows->n++;
	}
}
