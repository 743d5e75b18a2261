// SPDX-License-Identifier: GPL-2.0-only
/* The sampling error of a replay (spread.h). */
#include <math.h>

#include "spread.h"

/* The least multiplier of a standard error: about 95% for many blocks. */
#define HS_SPREAD_Z 2.0

void hs_spread_add(struct hs_spread *s, uint64_t n, uint64_t hits, uint64_t poll_ns)
{
	for (unsigned int k = 0; k < HS_SPREAD_SIZES; k++) {
		uint64_t len = (uint64_t)HS_SPREAD_BLOCK_MIN << k;
		double r, c;

		if (n % len)
			break;
		r = (double)(hits - s->mark_hits[k]) / len;
		c = (double)(poll_ns - s->mark_poll[k]) / len;
		s->sum_rate[k] += r;
		s->sq_rate[k] += r * r;
		s->sum_poll[k] += c;
		s->sq_poll[k] += c * c;
		s->mark_hits[k] = hits;
		s->mark_poll[k] = poll_ns;
	}
}

/* Standard error of the mean of n block values. */
static double spread_se(double sum, double sq, uint64_t n)
{
	double var;

	if (n < 2)
		return 0;
	var = (sq - sum * sum / n) / (n - 1);
	return var > 0 ? sqrt(var / n) : 0;
}

/* Student's t, 97.5% quantile, for df degrees of freedom, at least HS_SPREAD_Z. */
static double spread_t975(uint64_t df)
{
	static const double t[] = { 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
				    2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074,
				    2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };
	double q;

	/* HS_SPREAD_MIN_BLOCKS blocks at least: df 7 is the table's first */
	if (df < 7)
		df = 7;
	q = df - 7 < sizeof(t) / sizeof(*t) ? t[df - 7] : 1.96 + 2.4 / (double)df;
	return q > HS_SPREAD_Z ? q : HS_SPREAD_Z;
}

double hs_spread_margin(const struct hs_spread *s, uint64_t n, enum hs_spread_of of, double range)
{
	double widest = -1;

	for (unsigned int k = 0; k < HS_SPREAD_SIZES; k++) {
		uint64_t blocks = n / ((uint64_t)HS_SPREAD_BLOCK_MIN << k);
		double se;

		if (blocks < HS_SPREAD_MIN_BLOCKS)
			break;
		se = of == HS_SPREAD_POLL_NS ? spread_se(s->sum_poll[k], s->sq_poll[k], blocks) :
					       spread_se(s->sum_rate[k], s->sq_rate[k], blocks);
		se *= spread_t975(blocks - 1);
		widest = se > widest ? se : widest;
	}
	if (widest >= 0)
		return widest;
	return n ? HS_SPREAD_Z * range / (2 * sqrt((double)n)) : 0;
}
