/*
 * Hamming distance between two 64-bit simhashes.
 *
 * Plain C so the PostgreSQL glue (C) and the C++ core share one definition. With -mpopcnt (set by
 * the Makefile on x86-64) the builtin compiles to a single POPCNT instruction.
 */
#ifndef SIMHASH_HAMMING_H
#define SIMHASH_HAMMING_H

#include <stdint.h>

static inline int
sh_popcount64(uint64_t x)
{
	return __builtin_popcountll(x);
}

static inline int
sh_hamming(uint64_t a, uint64_t b)
{
	return __builtin_popcountll(a ^ b);
}

#endif
