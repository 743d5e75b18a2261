// SPDX-License-Identifier: GPL-2.0-only
/* lib/hist.c against exact answers computed from sorted arrays. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/hist.h"
#include "check.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t exact_quantile(const uint64_t *sorted, size_t n, double q)
{
	size_t rank = (size_t)ceil(q * (double)n);

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

/* Random values spread over many decades, like halt durations. */
static uint64_t random_value(void)
{
	unsigned int bits = (unsigned int)(check_rng() % 40);

	return check_rng() >> (64 - bits - 1) >> 1;
}

static int quantiles_within(const struct hs_hist *h, const uint64_t *sorted, size_t n,
			    double tol)
{
	static const double qs[] = { 0, 0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1 };
	unsigned int i;

	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		double want = (double)exact_quantile(sorted, n, qs[i]);
		double got = (double)hs_hist_quantile(h, qs[i]);

		if (fabs(got - want) > tol * want && fabs(got - want) > 0.5) {
			printf("# q=%g want %.0f got %.0f\n", qs[i], want, got);
			return 0;
		}
	}
	return 1;
}

static void test_random(void)
{
	enum { N = 200000 };
	uint64_t *vals = malloc(N * sizeof(*vals));
	struct hs_hist *h = malloc(sizeof(*h));
	uint64_t sum = 0, lo = 1000, hi = 65536, in_range = 0;
	size_t i;

	if (!vals || !h) {
		CHECK(0, "hist_random_alloc");
		return;
	}
	hs_hist_init(h);
	for (i = 0; i < N; i++) {
		vals[i] = random_value();
		hs_hist_add(h, vals[i]);
		sum += vals[i];
		in_range += vals[i] >= lo && vals[i] < hi;
	}
	qsort(vals, N, sizeof(*vals), cmp_u64);
	CHECK_EQ_U64(h->count, N, "hist_random_count");
	CHECK_EQ_U64(h->sum, sum, "hist_random_sum");
	CHECK_EQ_U64(h->min, vals[0], "hist_random_min");
	CHECK_EQ_U64(h->max, vals[N - 1], "hist_random_max");
	CHECK(quantiles_within(h, vals, N, 0.01), "hist_random_quantiles_1pct");
	CHECK(quantiles_within(h, vals, N, 1.0 / 256), "hist_random_quantiles_bucket_precision");
	/* 1000 = 250 << 2 is a bucket boundary (width 4 in [512, 1024)) */
	CHECK_EQ_U64(hs_hist_count_range(h, lo, hi), in_range, "hist_random_count_range");
	free(vals);
	free(h);
}

static void test_count_range(void)
{
	struct hs_hist *h = malloc(sizeof(*h));
	uint64_t want_pow = 0, want_small = 0;
	unsigned int i;

	if (!h) {
		CHECK(0, "hist_count_range_alloc");
		return;
	}
	hs_hist_init(h);
	for (i = 0; i < 50000; i++) {
		uint64_t v = random_value();

		hs_hist_add(h, v);
		want_pow += v >= 4096 && v < 1048576;
		want_small += v >= 3 && v < 100;
	}
	CHECK_EQ_U64(hs_hist_count_range(h, 4096, 1048576), want_pow, "hist_count_range_pow2");
	CHECK_EQ_U64(hs_hist_count_range(h, 3, 100), want_small, "hist_count_range_small");
	CHECK_EQ_U64(hs_hist_count_range(h, 0, UINT64_MAX), 50000, "hist_count_range_all");
	CHECK_EQ_U64(hs_hist_count_range(h, 100, 100), 0, "hist_count_range_empty");
	CHECK_EQ_U64(hs_hist_count_range(h, 200, 100), 0, "hist_count_range_reversed");
	free(h);
}

static void test_merge(void)
{
	struct hs_hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct hs_hist *all = malloc(sizeof(*all)), *empty = malloc(sizeof(*empty));
	unsigned int i;

	if (!a || !b || !all || !empty) {
		CHECK(0, "hist_merge_alloc");
		return;
	}
	hs_hist_init(a);
	hs_hist_init(b);
	hs_hist_init(all);
	hs_hist_init(empty);
	for (i = 0; i < 10000; i++) {
		uint64_t v = random_value() + 5;

		hs_hist_add(i % 3 ? a : b, v);
		hs_hist_add(all, v);
	}
	hs_hist_merge(a, b);
	CHECK(memcmp(a, all, sizeof(*a)) == 0, "hist_merge_equals_single");
	hs_hist_merge(empty, a);
	CHECK(memcmp(empty, all, sizeof(*a)) == 0, "hist_merge_into_empty");
	hs_hist_init(b);
	hs_hist_merge(a, b);
	CHECK(memcmp(a, all, sizeof(*a)) == 0, "hist_merge_from_empty");
	free(a);
	free(b);
	free(all);
	free(empty);
}

static void test_extremes(void)
{
	struct hs_hist *h = malloc(sizeof(*h));

	if (!h) {
		CHECK(0, "hist_extremes_alloc");
		return;
	}
	hs_hist_init(h);
	CHECK_EQ_U64(hs_hist_quantile(h, 0.5), 0, "hist_empty_quantile");
	CHECK_EQ_U64(h->count, 0, "hist_empty_count");
	hs_hist_add(h, 0);
	hs_hist_add(h, UINT64_MAX);
	hs_hist_add(h, UINT64_MAX);
	CHECK_EQ_U64(h->min, 0, "hist_extreme_min");
	CHECK_EQ_U64(h->max, UINT64_MAX, "hist_extreme_max");
	CHECK_EQ_U64(h->sum, UINT64_MAX, "hist_sum_saturates");
	CHECK_EQ_U64(hs_hist_quantile(h, 0), 0, "hist_extreme_q0");
	CHECK_EQ_U64(hs_hist_quantile(h, 1), UINT64_MAX, "hist_extreme_q1");
	/* the top bucket's midpoint, within bucket precision of the true value */
	CHECK((double)(UINT64_MAX - hs_hist_quantile(h, 0.5)) <= (double)UINT64_MAX / 256,
	      "hist_extreme_q50");
	CHECK_EQ_U64(hs_hist_count_range(h, (uint64_t)1 << 63, UINT64_MAX), 2,
		     "hist_extreme_count_top");
	CHECK_EQ_U64(hs_hist_count_range(h, 0, 1), 1, "hist_extreme_count_zero");
	/* a value in a small exact bucket comes back exactly */
	hs_hist_init(h);
	hs_hist_add(h, 10);
	hs_hist_add(h, 77);
	hs_hist_add(h, 200);
	CHECK_EQ_U64(hs_hist_quantile(h, 0.5), 77, "hist_exact_small");
	/* midpoint clamped to [min,max]: one value in a wide bucket */
	hs_hist_init(h);
	hs_hist_add(h, 1000001);
	hs_hist_add(h, 1000001);
	hs_hist_add(h, 1000001);
	CHECK_EQ_U64(hs_hist_quantile(h, 0.5), 1000001, "hist_clamped_midpoint");
	free(h);
}

static void test_log2(void)
{
	unsigned int i, bad = 0;

	CHECK_EQ_U64(hs_log2_index(0), 0, "log2_index_0");
	CHECK_EQ_U64(hs_log2_index(1), 1, "log2_index_1");
	CHECK_EQ_U64(hs_log2_index(1023), 10, "log2_index_1023");
	CHECK_EQ_U64(hs_log2_index(1024), 11, "log2_index_1024");
	CHECK_EQ_U64(hs_log2_index(UINT64_MAX), 64, "log2_index_max");
	CHECK_EQ_U64(hs_log2_hi(64), UINT64_MAX, "log2_hi_last");
	CHECK_EQ_U64(hs_log2_lo(0), 0, "log2_lo_0");
	CHECK_EQ_U64(hs_log2_hi(0), 1, "log2_hi_0");
	for (i = 1; i < HS_LOG2_BUCKETS; i++) {
		uint64_t lo = hs_log2_lo(i), hi = hs_log2_hi(i);

		if (hs_log2_index(lo) != i || hs_log2_index(hi - 1) != i)
			bad++;
		if (i < HS_LOG2_BUCKETS - 1 && hs_log2_index(hi) != i + 1)
			bad++;
	}
	CHECK_EQ_U64(bad, 0, "log2_bounds_consistent");
}

int main(void)
{
	test_random();
	test_count_range();
	test_merge();
	test_extremes();
	test_log2();
	return CHECK_DONE();
}
