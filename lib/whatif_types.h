/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_WHATIF_TYPES_H
#define HS_WHATIF_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "sim.h"

/*
 * What the what-if's parts hand each other (lib/whatif.c streams the halts
 * and owns the replays; whatif_wake.c estimates Δ and the wake model from
 * the buffered halts; whatif_iv.c replays the interval's variants;
 * whatif_batch.c the candidates' loop) and what its users read back.
 */
#define HS_WHATIF_MAX_CANDIDATES 32

struct hs_whatif_row {
	uint64_t halt_poll_ns;
	uint64_t halts;
	uint64_t hits;			/* wake-ups that avoid the scheduler */
	double hit_rate;		/* hits / halts, 0..1 */
	double poll_cpu_s;		/* CPU seconds spent polling */
	double miss_cpu_s;		/* of which wasted on misses */
	double poll_cpu_pct;		/* percent of one CPU over the span */
	double poll_cpu_pct_per_vcpu;	/* the same per halting vCPU, for VM and host sums */
	double flaps_per_s;
	uint64_t grows, shrinks;
	/*
	 * Prediction interval (whatif_iv.c): the other wake model, the
	 * wake-up overhead's range and perturbed times to wake, replayed,
	 * with the sampling spread. Sums add the vCPUs' bounds.
	 */
	double hit_rate_low, hit_rate_high;	/* 0..1 */
	double poll_cpu_s_low, poll_cpu_s_high;
	/*
	 * The replays' hit rates alone, without the sampling spread: how far
	 * the path forks on a few microseconds (a cliff, lib/cliff.c), where
	 * the full interval may be wide only for a short recording.
	 */
	double hit_rate_sim_low, hit_rate_sim_high;
};

/*
 * Which way a vCPU's wakes come (whatif.c): closed loop (each wake a fixed
 * time after the halt starts, as a ping-pong) or open loop (wakes at
 * absolute times, as timers and packets), told from how the time from one
 * halt's end to the next wake shifts after a poll hit against after a wait.
 */
enum hs_wake_model { HS_WAKE_CLOSED, HS_WAKE_OPEN };

struct hs_wake_choice {
	enum hs_wake_model model;	/* the one the point replay uses */
	bool supported;			/* the trace decided it; else closed loop by default */
	double shift_ns;		/* after a hit minus after a wait (open loop: about Δ) */
	uint64_t pairs;			/* matched halt pairs it was measured on */
	/*
	 * From consecutive waits sched_waking timed: the slope of a wait's
	 * time to wake against the overhead of the wait before it (closed
	 * loop 0, open loop -1), its standard error, and over how many pairs.
	 * from_timed: that slope decided, and the other model, which it
	 * refutes, does not bound the intervals.
	 */
	double slope, slope_se;
	uint64_t timed_pairs;
	bool from_timed;
};

struct hs_wake_overhead_measured {
	uint64_t waits;
	uint64_t p10_ns, p50_ns, p90_ns, p99_ns;
};

/*
 * poll_cut_ns: from the halt's start to the first moment another task was
 * runnable on the vCPU's CPU (KVM stops polling then), HS_POLL_CUT_NONE
 * when none was, HS_POLL_CUT_UNKNOWN when the recording has no sched
 * events for that CPU (both poll to the window's end in the replay).
 */
#define HS_POLL_CUT_NONE UINT64_MAX
#define HS_POLL_CUT_UNKNOWN (UINT64_MAX - 1)
#define HS_WOKEN_UNKNOWN UINT64_MAX

/* One buffered halt: what hs_whatif_halt was given, compacted. */
struct hs_whatif_rec {
	uint64_t ts;		/* the wakeup's timestamp, 0 unknown */
	uint64_t ns;
	int64_t window;		/* window in force, -1 unknown */
	uint64_t poll_cut;	/* hs_halt_sched's poll_cut_ns */
	uint64_t woken;		/* hs_halt_sched's woken_ns, at most ns; HS_WOKEN_UNKNOWN */
	uint32_t chg_new, chg_old;
	bool waited, valid, reliable, has_change, grow;
};

/*
 * What decides the window a buffered halt polled with: the recorded
 * maximum (a recorded 0 polls nothing) and, with M read live (6.1+), the M
 * a grown window is cut to when the next halt starts.
 */
struct hs_whatif_winctx {
	bool max_known;			/* the recorded M was given */
	int64_t recorded_max_ns;
	bool max_live;			/* a maximum is in force and the era reads it live */
	uint64_t max_ns;		/* that maximum */
};

/* The window the kernel polled with during this halt, -1 unknown. */
static inline int64_t hs_whatif_rec_window(const struct hs_whatif_winctx *c,
					   const struct hs_whatif_rec *r)
{
	int64_t win = r->has_change ? (int64_t)r->chg_old : r->window;

	/*
	 * An inferred 0 does not stand in for unknown windows here: the account
	 * back-fills them, after Δ is taken from the windows known at each halt.
	 */
	if (win < 0 && c->max_known && c->recorded_max_ns == 0)
		return 0;
	if (win > 0 && c->max_live && (uint64_t)win > c->max_ns)
		win = (int64_t)c->max_ns;
	return win;
}

/*
 * A halt's time to wake D, and the wake-up overhead a miss of it costs in
 * the replay: a wait timed by sched_waking has both exactly, any other
 * halt takes Δ (a poll hit's D is its ns).
 */
static inline uint64_t hs_whatif_rec_ttw(const struct hs_whatif_rec *r, uint64_t delta)
{
	if (!r->waited)
		return r->ns;
	if (r->woken != HS_WOKEN_UNKNOWN)
		return r->woken;
	return r->ns > delta ? r->ns - delta : 0;
}

/*
 * Where a halt's replayed poll ends at the latest: as the sched events said,
 * else before its wake for a wait shorter than the window it polled under
 * (HS_POLL_CUT_BEFORE_WAKE): KVM stopped that poll for a task it saw
 * runnable, which a longer window would not have outlasted.
 */
#define HS_POLL_CUT_BEFORE_WAKE (UINT64_MAX - 2)

static inline uint64_t hs_whatif_rec_cut(const struct hs_whatif_winctx *c,
					 const struct hs_whatif_rec *r)
{
	int64_t win;

	if (r->poll_cut != HS_POLL_CUT_UNKNOWN || !r->waited)
		return r->poll_cut;
	win = hs_whatif_rec_window(c, r);
	return win > 0 && r->ns < (uint64_t)win ? HS_POLL_CUT_BEFORE_WAKE : HS_POLL_CUT_UNKNOWN;
}

/* The cut a replay with time to wake d polls to (hs_sim_halt_cut's poll_cut_ns). */
static inline uint64_t hs_whatif_cut_at(uint64_t cut, uint64_t d)
{
	return cut == HS_POLL_CUT_BEFORE_WAKE ? d : cut;
}

static inline uint64_t hs_whatif_rec_overhead(const struct hs_whatif_rec *r, uint64_t delta)
{
	return r->woken != HS_WOKEN_UNKNOWN ? r->ns - r->woken : delta;
}

/* The candidates' parameters p for one halt whose miss costs ovh: p itself, or a copy in *own. */
static inline const struct hs_sim_params *hs_whatif_params_for(const struct hs_sim_params *p,
							       uint64_t ovh,
							       struct hs_sim_params *own)
{
	if (ovh == p->wake_overhead_ns)
		return p;
	*own = *p;
	own->wake_overhead_ns = ovh;
	return own;
}

static inline int hs_whatif_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#endif
