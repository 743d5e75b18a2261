/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_CLIFF_H
#define HS_CLIFF_H

#include <stdbool.h>

#include "whatif.h"

/*
 * Cliffs in a what-if table: where the hit rate turns on a few
 * microseconds. Between two neighbouring candidates (the larger at most
 * HS_CLIFF_SPAN times the smaller) the hit rate moves by HS_CLIFF_JUMP or
 * more, or the replays of one candidate's interval (without its sampling
 * spread) are that far apart: a setting there can land anywhere in between
 * on the real host.
 */
#define HS_CLIFF_JUMP 0.10	/* of the halts */
#define HS_CLIFF_SPAN 1.5

struct hs_cliff {
	unsigned int lo, hi;	/* row indices, lo < hi; lo == hi: one row's interval */
	double from, to;	/* hit rates at lo and hi (or the interval's ends) */
};

/* Up to max cliffs of rows (ascending halt_poll_ns), in order. */
unsigned int hs_cliffs_find(const struct hs_whatif_row *rows, unsigned int n,
			    struct hs_cliff *out, unsigned int max);
/* Row i is an end of a cliff, or its interval is one. */
bool hs_cliff_at(const struct hs_whatif_row *rows, unsigned int n, unsigned int i);

#endif
