/*
 * hamming_ball: center + radius, the query side of the radius operator <@ (16 bytes, by reference).
 */
#ifndef SIMHASH_HAMMING_BALL_H
#define SIMHASH_HAMMING_BALL_H

#include "postgres.h"
#include "fmgr.h"

typedef struct HammingBall
{
	uint64		center;
	int32		radius;			/* -1 (contains nothing) .. 64 (contains everything) */
	int32		unused;			/* zero; keeps the size a multiple of the alignment */
} HammingBall;

#define DatumGetHammingBall(d)		((HammingBall *) DatumGetPointer(d))
#define PG_GETARG_HAMMING_BALL(n)	DatumGetHammingBall(PG_GETARG_DATUM(n))

extern int32 hamming_ball_clamp_radius(int64 radius);
extern HammingBall *hamming_ball_new(uint64 center, int64 radius);

#endif
