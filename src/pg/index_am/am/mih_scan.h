/*
 * The state of a simhash_mih index scan, shared by the radius scan (mih_am_scan.c) and the
 * nearest-neighbour scan (mih_am_knn.c).
 */
#ifndef SIMHASH_MIH_AM_SCAN_H
#define SIMHASH_MIH_AM_SCAN_H

#include "am/mih_am.h"

#include "access/relscan.h"

#include "hamming.h"

typedef struct MihKnnState MihKnnState;

typedef struct MihScanState
{
	/* the radius scan's answers */
	bool		computed;
	ItemPointerData *tids;
	int			ntids;
	int			cap;
	int			next;
	/*
	 * The query: every key must hold. One ball per scan key, sized from the scan's key count
	 * (the planner makes one key per index condition, without limit). No key at all is a scan of
	 * the whole index: every row, NULL hashes included, as btree and GiST answer it.
	 */
	int			nballs;
	uint64	   *centers;
	int		   *radii;			/* -1: a NULL ball, nothing matches */
	int			probe;			/* the key whose ball is searched (the smallest) */
	bool		counted;		/* this scan (since the last rescan) is in the statistics */
	IndexTuple	empty_itup;		/* what an index-only scan gets (see mih_gettuple) */
	/* a scan ordered by sh <-> q, else NULL */
	MihKnnState *knn;
	/*
	 * Whether the scan's copy of the meta page was made on a hot standby, whose replay does not
	 * wait for the scan's pin: its pages may have been recycled under it, even if the standby is
	 * promoted before the scan ends (mih_read_chains, mih_runs_unchanged).
	 */
	bool		on_standby;
} MihScanState;

/* True if hash h is within every ball of the scan's keys (always, for a scan without keys). */
static inline bool
mih_all_keys_hold(const MihScanState *so, uint64 h)
{
	for (int i = 0; i < so->nballs; i++)
		if (sh_hamming(h, so->centers[i]) > so->radii[i])
			return false;
	return true;
}

#endif
