/*
 * The resemblance_sketch type as the glue sees it: 512 one-bit min-hashes of a page
 * (src/core/resemblance_sketch.hpp), a fixed-length 64-byte value passed by reference.
 */
#ifndef SIMHASH_RESEMBLANCE_SKETCH_TYPE_H
#define SIMHASH_RESEMBLANCE_SKETCH_TYPE_H

#include "postgres.h"
#include "fmgr.h"

#include "page_bridge.h"

typedef struct ResemblanceSketch
{
	uint8		bytes[SH_RESEMBLANCE_BYTES];
} ResemblanceSketch;

#define PG_GETARG_RESEMBLANCE_SKETCH(n)	((const ResemblanceSketch *) PG_GETARG_POINTER(n))

#endif
