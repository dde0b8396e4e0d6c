/*
 * The heavyweight locks of a simhash_mih index's flushes and merges: tags of LockPage on the
 * index, not pages (see "Locks" in mih_am_merge.c for who holds which, and their order).
 */
#ifndef SIMHASH_MIH_LOCK_TAGS_H
#define SIMHASH_MIH_LOCK_TAGS_H

#define LOCK_PENDING	0		/* tags of LockPage, not pages */
#define LOCK_RUNS		1
#define LOCK_RECYCLE	2
#define LOCK_BIG		3

#endif
