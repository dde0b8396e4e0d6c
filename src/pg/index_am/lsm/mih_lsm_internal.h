/*
 * What the files of the LSM layer share and no other layer uses: the rows a flush or merge reads,
 * and the merge policy's view of an index.
 */
#ifndef SIMHASH_MIH_LSM_INTERNAL_H
#define SIMHASH_MIH_LSM_INTERNAL_H

#include "lsm/mih_lsm.h"

typedef struct MihRows
{
	uint64	   *hashes;
	ItemPointerData *tids;
	Size		n;
	Size		cap;
	MihBlockList old;			/* the pages read, to recycle */
} MihRows;

/* mih_am_rows.c */
extern void mih_rows_init(MihRows *rows, uint64 expected);
extern void mih_rows_free(MihRows *rows);
extern void mih_rows_collect(void *arg, Page page);

/* mih_am_view.c */
extern uint64 mih_base_share(Relation index);
extern void mih_policy_view(Relation index, const MihMeta *meta, MihPolicyView *v);

#endif
