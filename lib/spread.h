/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_SPREAD_H
#define HS_SPREAD_H

#include <stdint.h>

/*
 * The sampling error of a replay's outcome: how far its hit rate and its
 * polling per halt (or per wake) move from one stretch of the recording to
 * the next. The replay is cut in blocks of every size from HS_SPREAD_BLOCK_MIN
 * events up to HS_SPREAD_BLOCK_MAX, doubling, and the error is the largest
 * standard error of the blocks' mean among the sizes that have
 * HS_SPREAD_MIN_BLOCKS blocks. Short blocks miss the adaptive window's
 * memory of earlier halts (their blocks look more independent than they
 * are), long ones are few; without the short ones a vCPU with fewer halts
 * than a few long blocks (a short recording, a quiet vCPU, a VM that came
 * late) would get no sampling error at all.
 */
#define HS_SPREAD_BLOCK_MIN 16
#define HS_SPREAD_SIZES 6
#define HS_SPREAD_BLOCK_MAX (HS_SPREAD_BLOCK_MIN << (HS_SPREAD_SIZES - 1))
#define HS_SPREAD_MIN_BLOCKS 8

/* One replay's block sums, zeroed before its first event. */
struct hs_spread {
	uint64_t mark_hits[HS_SPREAD_SIZES], mark_poll[HS_SPREAD_SIZES];
	double sum_rate[HS_SPREAD_SIZES], sq_rate[HS_SPREAD_SIZES];
	double sum_poll[HS_SPREAD_SIZES], sq_poll[HS_SPREAD_SIZES];
};

/*
 * After event n, a multiple of HS_SPREAD_BLOCK_MIN: the replay's hits and
 * polling ns so far. Closes every block that ends there.
 */
void hs_spread_add(struct hs_spread *s, uint64_t n, uint64_t hits, uint64_t poll_ns);

enum hs_spread_of { HS_SPREAD_HIT_RATE, HS_SPREAD_POLL_NS };

/*
 * The half-width of a 95% interval of the mean over the first n events (as
 * many as were added): the standard error times Student's t for the number
 * of blocks, at least 2. Fewer events than HS_SPREAD_MIN_BLOCKS of the
 * smallest size cannot tell their own spread: then twice the largest
 * standard error a mean of n values within [0, range] can have,
 * range / (2 sqrt(n)). range: 1 for the hit rate, the window for polling.
 */
double hs_spread_margin(const struct hs_spread *s, uint64_t n, enum hs_spread_of of, double range);

#endif
