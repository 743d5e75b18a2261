// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <string.h>

#include "hist.h"

/*
 * Bucket layout: values below 2 * HS_HIST_SUB map to themselves; above,
 * group g >= 1 covers [2^(g+SUB_BITS-1), 2^(g+SUB_BITS)) in HS_HIST_SUB
 * buckets of width 2^(g-1). Group 0 and group 1 are both exact.
 */
static unsigned int hist_index(uint64_t v)
{
	unsigned int e, shift;

	if (v < 2 * HS_HIST_SUB)
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);
	shift = e - HS_HIST_SUB_BITS;
	return (shift + 1) * HS_HIST_SUB + (unsigned int)((v >> shift) - HS_HIST_SUB);
}

static uint64_t hist_bucket_lo(unsigned int i)
{
	unsigned int g = i / HS_HIST_SUB, sub = i % HS_HIST_SUB;

	if (g == 0)
		return i;
	return (uint64_t)(HS_HIST_SUB + sub) << (g - 1);
}

static uint64_t hist_bucket_width(unsigned int i)
{
	unsigned int g = i / HS_HIST_SUB;

	return g == 0 ? 1 : (uint64_t)1 << (g - 1);
}

void hs_hist_init(struct hs_hist *h)
{
	memset(h, 0, sizeof(*h));
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void hs_hist_add(struct hs_hist *h, uint64_t value)
{
	if (h->count == 0 || value < h->min)
		h->min = value;
	if (h->count == 0 || value > h->max)
		h->max = value;
	h->count++;
	h->sum = add_sat(h->sum, value);
	h->buckets[hist_index(value)]++;
}

void hs_hist_merge(struct hs_hist *into, const struct hs_hist *from)
{
	unsigned int i;

	if (from->count == 0)
		return;
	if (into->count == 0 || from->min < into->min)
		into->min = from->min;
	if (into->count == 0 || from->max > into->max)
		into->max = from->max;
	into->count += from->count;
	into->sum = add_sat(into->sum, from->sum);
	for (i = 0; i < HS_HIST_BUCKETS; i++)
		into->buckets[i] += from->buckets[i];
}

/* Nearest rank: the smallest rank r with r >= q * count, at least 1. */
static uint64_t hist_rank(const struct hs_hist *h, double q)
{
	double r;

	if (!(q > 0))
		return 1;
	if (q >= 1)
		return h->count;
	r = ceil(q * (double)h->count);
	if (r < 1)
		return 1;
	if (r >= (double)h->count)
		return h->count;
	return (uint64_t)r;
}

static uint64_t hist_clamp(const struct hs_hist *h, uint64_t v)
{
	if (v < h->min)
		return h->min;
	if (v > h->max)
		return h->max;
	return v;
}

uint64_t hs_hist_quantile(const struct hs_hist *h, double q)
{
	uint64_t rank, seen = 0;
	unsigned int i;

	if (h->count == 0)
		return 0;
	rank = hist_rank(h, q);
	/* The extremes are known exactly: no need to approximate them. */
	if (rank == 1)
		return h->min;
	if (rank == h->count)
		return h->max;
	for (i = 0; i < HS_HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	if (i == HS_HIST_BUCKETS)
		return h->max;
	return hist_clamp(h, hist_bucket_lo(i) + hist_bucket_width(i) / 2);
}

/* hi == UINT64_MAX means "no upper bound", matching hs_log2_hi(). */
uint64_t hs_hist_count_range(const struct hs_hist *h, uint64_t lo, uint64_t hi)
{
	unsigned int i, first, end;
	uint64_t n = 0;

	if (lo >= hi)
		return 0;
	first = hist_index(lo);
	end = hi == UINT64_MAX ? HS_HIST_BUCKETS : hist_index(hi);
	for (i = first; i < end; i++)
		n += h->buckets[i];
	return n;
}

unsigned int hs_log2_index(uint64_t value)
{
	if (value == 0)
		return 0;
	return 64 - (unsigned int)__builtin_clzll(value);
}

uint64_t hs_log2_lo(unsigned int index)
{
	if (index == 0)
		return 0;
	if (index >= HS_LOG2_BUCKETS)
		index = HS_LOG2_BUCKETS - 1;
	return (uint64_t)1 << (index - 1);
}

uint64_t hs_log2_hi(unsigned int index)
{
	if (index >= HS_LOG2_BUCKETS - 1)
		return UINT64_MAX;
	return (uint64_t)1 << index;
}
