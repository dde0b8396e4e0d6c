/*
 * Charikar's combination step, the convention every simhash of this extension follows:
 * bit i of the result (bit 0 = least significant) is 1 exactly when the weighted sum of +w (feature
 * hash has bit i set) and -w (bit i clear) over all features is > 0. A tie gives 0, and no features
 * give 0. Sums are IEEE doubles added in the caller's feature order, so results are the same on
 * every machine. Plain C, shared by the C++ pipeline and the C aggregate.
 */
#ifndef SIMHASH_CHARIKAR_H
#define SIMHASH_CHARIKAR_H

#include <stdint.h>

typedef struct sh_charikar
{
	double		sum[64];
} sh_charikar;

static inline void
sh_charikar_init(sh_charikar *acc)
{
	for (int i = 0; i < 64; i++)
		acc->sum[i] = 0.0;
}

static inline void
sh_charikar_add(sh_charikar *acc, uint64_t feature, double weight)
{
	for (int i = 0; i < 64; i++)
		acc->sum[i] += ((feature >> i) & 1) ? weight : -weight;
}

static inline void
sh_charikar_merge(sh_charikar *acc, const sh_charikar *other)
{
	for (int i = 0; i < 64; i++)
		acc->sum[i] += other->sum[i];
}

static inline uint64_t
sh_charikar_result(const sh_charikar *acc)
{
	uint64_t	h = 0;

	for (int i = 0; i < 64; i++)
		if (acc->sum[i] > 0.0)
			h |= UINT64_C(1) << i;
	return h;
}

#endif
