/*
 * The heavyweight locks of a simhash_mih index's flushes and merges (their tags:
 * mih_lock_tags.h; who holds which, and their order: "Locks" at the top of mih_am_merge.c).
 */
#include "lsm/mih_lock_tags.h"
#include "lsm/mih_lsm.h"

#include "storage/lmgr.h"

void
mih_lock_pending(Relation index)
{
	LockPage(index, LOCK_PENDING, ExclusiveLock);
}

void
mih_unlock_pending(Relation index)
{
	UnlockPage(index, LOCK_PENDING, ExclusiveLock);
}

/* Both merge locks: no merge of any run can start or is under way. */
void
mih_lock_runs(Relation index)
{
	LockPage(index, LOCK_BIG, ExclusiveLock);
	LockPage(index, LOCK_RUNS, ExclusiveLock);
}

void
mih_unlock_runs(Relation index)
{
	UnlockPage(index, LOCK_RUNS, ExclusiveLock);
	UnlockPage(index, LOCK_BIG, ExclusiveLock);
}
