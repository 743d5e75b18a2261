/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_WHATIF_WAKE_H
#define HS_WHATIF_WAKE_H

#include <stdint.h>

#include "whatif_types.h"

/*
 * What the buffered halts of one vCPU tell before any is replayed: the
 * wake-up overhead Δ a replay takes off each wait that sched_waking did not
 * time, and whether its wakes come closed or open loop (whatif_wake.c says
 * how). Functions of the halts alone: the what-if owns what it builds on them.
 */
#define HS_WHATIF_DEFAULT_DELTA 20000

struct hs_whatif_halts {
	const struct hs_whatif_rec *rec;
	unsigned int n;
	struct hs_whatif_winctx win;	/* the window each polled with */
};

struct hs_whatif_delta {
	uint64_t delta;
	uint64_t lo, hi;		/* the range the interval replays */
	struct hs_wake_overhead_measured measured;	/* waits 0: Δ was estimated */
};

void hs_whatif_delta_estimate(const struct hs_whatif_halts *h, struct hs_whatif_delta *d);
void hs_whatif_wake_choose(const struct hs_whatif_halts *h, const struct hs_whatif_delta *d,
			   struct hs_wake_choice *out);

#endif
