/*
 * Probability that two independent uniformly random 64-bit hashes are within Hamming distance k:
 * P(Binomial(64, 1/2) <= k). The floor of the radius-query estimator (random hashes are the
 * least clustered a column can be). Plain C, shared by the glue and the core tests.
 */
#ifndef SIMHASH_RADIUS_PRIOR_H
#define SIMHASH_RADIUS_PRIOR_H

static inline double
sh_random_within_probability(int k)
{
	double		term = 1.0;		/* C(64, i) */
	double		sum = 0.0;

	if (k < 0)
		return 0.0;
	if (k >= 64)
		return 1.0;
	for (int i = 0; i <= k; i++)
	{
		sum += term;
		term = term * (64 - i) / (i + 1);
	}
	/* The sum of 62 or more terms rounds to a hair above 2^64: a probability never exceeds 1. */
	return sum >= 18446744073709551616.0 ? 1.0 : sum / 18446744073709551616.0;	/* 2^64 */
}

#endif
