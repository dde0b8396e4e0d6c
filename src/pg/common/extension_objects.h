/*
 * OIDs of this extension's own objects, found by name in the schema the extension lives in (never
 * through search_path). Planner hooks know one of our functions (the one they are attached to),
 * and from it the schema; the catalog caches make the lookups cheap and always current, so a
 * DROP/CREATE EXTENSION in the same session is seen.
 */
#ifndef SIMHASH_EXTENSION_OBJECTS_H
#define SIMHASH_EXTENSION_OBJECTS_H

#include "postgres.h"

typedef struct SimhashObjects
{
	Oid			namespace_oid;
	Oid			simhash_type;
	Oid			ball_type;
	Oid			hamming_func;		/* hamming(simhash, simhash) */
	Oid			distance_func;		/* simhash_distance(simhash, simhash), the function of <-> */
	Oid			within_func;		/* hamming_within(simhash, simhash, integer) */
	Oid			ball_func;			/* hamming_ball(simhash, integer) */
	Oid			in_ball_op;			/* <@ (simhash, hamming_ball) */
	Oid			resemblance_type;	/* resemblance_sketch, or InvalidOid before version 1.2 */
} SimhashObjects;

/* Fills objs for the extension that owns function "known_func"; false if any object is missing. */
extern bool simhash_objects_for(Oid known_func, SimhashObjects *objs);

#endif
