/*
 * Selectivity of "column within radius k of center" from the column's statistics.
 */
#ifndef SIMHASH_RADIUS_SELECTIVITY_H
#define SIMHASH_RADIUS_SELECTIVITY_H

#include "postgres.h"

#include "utils/selfuncs.h"

/* Used when the center or radius is unknown at plan time (parameters, joins). */
#define RADIUS_DEFAULT_SELECTIVITY 0.0001

extern double radius_selectivity(VariableStatData *vardata, uint64 center, int radius);

#endif
