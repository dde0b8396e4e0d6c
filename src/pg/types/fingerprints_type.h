/*
 * The fingerprints type as the glue sees it: the 128 min-hashes of a page (the legacy duplicate
 * heuristic), a fixed-length 1,024-byte value passed by reference.
 */
#ifndef SIMHASH_FINGERPRINTS_TYPE_H
#define SIMHASH_FINGERPRINTS_TYPE_H

#include "postgres.h"
#include "fmgr.h"

#define FINGERPRINT_ENTRIES 128

typedef struct Fingerprints
{
	uint64		entries[FINGERPRINT_ENTRIES];
} Fingerprints;

#define PG_GETARG_FINGERPRINTS(n)	((const Fingerprints *) PG_GETARG_POINTER(n))

#endif
