/*
 * SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit state advanced by a fixed odd increment, each
 * state mixed into an output. The min-hash families take their seeds from it, the all-pairs key
 * tables and the repeated features their mixing, and simhash_sample_pairs its random numbers.
 *
 * Plain C so the PostgreSQL glue (C) and the C++ core share one definition; in C++ the functions
 * are constexpr, so the core's seed tables are computed at compile time.
 */
#ifndef SIMHASH_SPLITMIX64_H
#define SIMHASH_SPLITMIX64_H

#include <stdint.h>

#ifdef __cplusplus
#define SH_SPLITMIX64_CONSTEXPR constexpr
#else
#define SH_SPLITMIX64_CONSTEXPR
#endif

/* The increment of the state: 2^64 divided by the golden ratio, made odd. */
#define SH_SPLITMIX64_GAMMA UINT64_C(0x9e3779b97f4a7c15)

/* The output of the state `state`. */
static SH_SPLITMIX64_CONSTEXPR inline uint64_t
sh_splitmix64_output(uint64_t state)
{
	uint64_t	z = state;

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* The (i+1)-th output of the generator started from `state`. */
static SH_SPLITMIX64_CONSTEXPR inline uint64_t
sh_splitmix64_nth(uint64_t state, uint64_t i)
{
	return sh_splitmix64_output(state + (i + 1) * SH_SPLITMIX64_GAMMA);
}

/* The next output of the generator whose state is *state, which it advances. */
static inline uint64_t
sh_splitmix64_next(uint64_t *state)
{
	*state += SH_SPLITMIX64_GAMMA;
	return sh_splitmix64_output(*state);
}

#endif
