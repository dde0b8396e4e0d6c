/*
 * The simhash type as the glue sees it: a uint64 carried in a pass-by-value Datum.
 */
#ifndef SIMHASH_TYPE_H
#define SIMHASH_TYPE_H

#include "postgres.h"
#include "fmgr.h"

#if SIZEOF_DATUM < 8
#error "simhash is passed by value and needs 64-bit Datums"
#endif

#define DatumGetSimhash(d)		((uint64) (d))
#define SimhashGetDatum(v)		((Datum) (v))
#define PG_GETARG_SIMHASH(n)	DatumGetSimhash(PG_GETARG_DATUM(n))
#define PG_RETURN_SIMHASH(v)	return SimhashGetDatum(v)

#endif
