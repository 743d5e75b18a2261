/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_POLLEND_H
#define HS_POLLEND_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Polling CPU as KVM counts it (halt_poll_success_ns + halt_poll_fail_ns).
 * A poll hit polled its whole halt. A wait polled min(window, end), where
 * end is the latest its poll can have ended: its own length, the moment the
 * sched events show another task runnable on its CPU, the moment its thread
 * went to sleep there. Without sched events end is the halt's length, an
 * upper bound ("bounded"): a poll cut by a task nobody recorded is charged
 * more than it polled.
 */
static inline uint64_t hs_poll_charge(int64_t window, uint64_t end)
{
	if (window <= 0)
		return 0;
	return (uint64_t)window < end ? (uint64_t)window : end;
}

/* A wait's poll ended before its window ran out: it was cut. */
static inline bool hs_poll_was_cut(int64_t window, uint64_t end)
{
	return window > 0 && end < (uint64_t)window;
}

/*
 * The waits of a window segment (winstate.h) are charged under a
 * provisional window and charged again when the window they ran under is
 * told: their ends in log-spaced buckets (4 an octave) give the charge
 * under any window, within a quarter octave of one bucket's halts.
 */
#define HS_POLL_ENDS_SUB 4
#define HS_POLL_ENDS_BUCKETS (48 * HS_POLL_ENDS_SUB)

struct hs_poll_ends {
	uint64_t count[2][HS_POLL_ENDS_BUCKETS];	/* [bounded] */
	uint64_t sum[2][HS_POLL_ENDS_BUCKETS];
	unsigned int lo, hi;		/* buckets in use: [lo, hi) */
};

/* What a set of waits costs under one window. */
struct hs_poll_cost {
	uint64_t poll_ns;		/* charged */
	uint64_t bounded_ns;		/* of it, by an upper bound */
	uint64_t cut;			/* waits whose poll ended before the window */
};

void hs_poll_ends_reset(struct hs_poll_ends *e);
void hs_poll_ends_add(struct hs_poll_ends *e, uint64_t end, bool bounded);
void hs_poll_ends_cost(const struct hs_poll_ends *e, int64_t window, struct hs_poll_cost *out);

#endif
