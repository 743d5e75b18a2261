/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_HIST_H
#define HS_HIST_H

#include <stdint.h>

/*
 * A bounded log-linear histogram of nanosecond values: exact below 2^SUB_BITS,
 * then 2^SUB_BITS sub-buckets per power of two, so any value read back is
 * within 1/2^(SUB_BITS+1) (< 0.4%) of a recorded one. Memory is fixed no matter
 * how many values are added.
 */
#define HS_HIST_SUB_BITS 7
#define HS_HIST_SUB (1u << HS_HIST_SUB_BITS)
#define HS_HIST_BUCKETS ((64 - HS_HIST_SUB_BITS + 1) * HS_HIST_SUB)

struct hs_hist {
	uint64_t count;
	uint64_t sum;		/* saturates at UINT64_MAX instead of wrapping */
	uint64_t min;
	uint64_t max;
	uint64_t buckets[HS_HIST_BUCKETS];
};

void hs_hist_init(struct hs_hist *h);
void hs_hist_add(struct hs_hist *h, uint64_t value);
void hs_hist_merge(struct hs_hist *into, const struct hs_hist *from);
/* q in [0,1]; 0 when empty. Nearest-rank, reported at the bucket midpoint. */
uint64_t hs_hist_quantile(const struct hs_hist *h, double q);
/* Number of values v with lo <= v < hi, from bucket boundaries (exact when
 * lo and hi are powers of two or below 2^SUB_BITS). */
uint64_t hs_hist_count_range(const struct hs_hist *h, uint64_t lo, uint64_t hi);

/* The report's log2 buckets: index 0 is [0,1), index k+1 is [2^k, 2^(k+1)). */
#define HS_LOG2_BUCKETS 65
unsigned int hs_log2_index(uint64_t value);
uint64_t hs_log2_lo(unsigned int index);
/* Exclusive upper bound; UINT64_MAX for the last bucket. */
uint64_t hs_log2_hi(unsigned int index);

#endif
