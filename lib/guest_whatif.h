/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_GUEST_WHATIF_H
#define HS_GUEST_WHATIF_H

#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "haltpoll.h"
#include "meta.h"
#include "whatif.h"

/*
 * The guest side of the what-if: for one CPU of a machine that runs the
 * cpuidle-haltpoll driver (its own idle toward its hypervisor, from
 * power:cpu_idle and power:guest_halt_poll_ns), the haltpoll governor
 * replayed at each candidate guest_halt_poll_ns over the recorded wakes,
 * plus a replay of the recorded setting checked against the recorded
 * limit changes. Constant memory per CPU.
 */
#define HS_GUEST_WHATIF_MAX_CANDIDATES 16

extern const uint32_t hs_guest_whatif_default_candidates[];
extern const unsigned int hs_guest_whatif_default_ncandidates;

struct hs_guest_whatif_row {
	uint64_t guest_halt_poll_ns;
	uint64_t wakes;			/* idle periods replayed */
	uint64_t polls;			/* of which began with a poll */
	uint64_t hits;			/* ended inside the poll: no halt, no exit to the hypervisor */
	uint64_t halts;			/* wakes - hits */
	double hit_rate;		/* hits / wakes, 0..1 */
	double poll_cpu_s;		/* CPU seconds spent polling */
	double miss_cpu_s;		/* of which on polls that timed out */
	double poll_cpu_pct;		/* percent of one CPU over the span */
	double poll_cpu_pct_per_cpu;	/* the same per guest CPU, for the totals */
	uint64_t grows, shrinks;	/* governor adjustments (each traces guest_halt_poll_ns) */
	/*
	 * The interval: the lowest and highest of the replays from limit 0,
	 * from the maximum, and with every time to wake 5% shorter or longer,
	 * each side widened by the sampling spread (guest_whatif.c).
	 */
	uint64_t hits_low, hits_high;
	double hit_rate_low, hit_rate_high;
	double poll_cpu_s_low, poll_cpu_s_high;
	double poll_cpu_pct_low, poll_cpu_pct_high;
};

struct hs_guest_whatif;

/* The governor's parameters come from the recording's metadata (module defaults where unknown). */
struct hs_guest_whatif *hs_guest_whatif_alloc(const struct hs_meta *meta);
void hs_guest_whatif_free(struct hs_guest_whatif *w);
/* A power:cpu_idle or power:guest_halt_poll_ns event of this CPU, in time order. */
void hs_guest_whatif_event(struct hs_guest_whatif *w, const struct hs_event *ev);
/* Events were lost on this CPU: the idle period and the limit in force are unknown. */
void hs_guest_whatif_break(struct hs_guest_whatif *w);
void hs_guest_whatif_finish(struct hs_guest_whatif *w, uint64_t span_ns);
unsigned int hs_guest_whatif_rows(const struct hs_guest_whatif *w,
				  struct hs_guest_whatif_row *rows);
/* replayed_max_ns: the recorded guest_halt_poll_ns; max_inferred: it was the module default. */
void hs_guest_whatif_selfcheck(const struct hs_guest_whatif *w, struct hs_selfcheck *out);
/* The estimated cost a halt adds past its wake (what a poll hit saves), and from how many polls that timed out. */
uint64_t hs_guest_whatif_halt_extra_ns(const struct hs_guest_whatif *w, uint64_t *samples);
/* The governor parameters replayed (max_ns: the recorded value). */
const struct hs_haltpoll_params *hs_guest_whatif_params(const struct hs_guest_whatif *w);
void hs_guest_whatif_rows_sum(struct hs_guest_whatif_row *into,
			      const struct hs_guest_whatif_row *from, unsigned int n);

#endif
