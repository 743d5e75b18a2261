/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_WHATIF_PRIV_H
#define HS_WHATIF_PRIV_H

#include "whatif.h"
#include "whatif_batch.h"

/*
 * What the files of the what-if share (whatif.c: the stream and the
 * replays; whatif_wake.c: the wake-up overhead and the wake model;
 * whatif_max.c: the maximum in force). Not a public interface.
 */

#define HS_WHATIF_BUFFER 4096
#define HS_WHATIF_DEFAULT_DELTA 20000
#define HS_WHATIF_DELTA_SAMPLES 32
#define HS_WHATIF_DELTA_FLOOR 1000
#define HS_WHATIF_DELTA_QUANTILE 200	/* past cut polls: the 0.5% quantile, not the minimum */
#define HS_WHATIF_BACKFILLS 16
#define HS_WHATIF_DELTA_SPAN 50000
#define HS_WAKE_MIN_PAIRS 16
#define HS_WAKE_MIN_TIMED 64		/* consecutive timed waits before their slope decides */
#define HS_WAKE_SLOPE_Z 3.0		/* standard errors between their slope and the other model's */

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

struct hs_whatif {
	struct hs_whatif_opts opts;
	struct hs_sim cand[HS_WHATIF_MAX_CANDIDATES];	/* parameters; counts at the end */
	struct hs_whatif_batch batch;
	unsigned int ncand;

	struct hs_sim check;		/* the recorded setting */
	bool check_seeded;
	bool max_known;			/* recorded M given */
	enum hs_max_source max_source;	/* what check.p.max_ns is */
	uint64_t max_lo, max_hi;	/* bounds on M from the window events */
	uint64_t max_soft;		/* a likely M the bounds allow but do not prove */

	/* back-filled windows, applied to the buffer before its replay */
	struct { unsigned int from, to; int64_t window; } fill[HS_WHATIF_BACKFILLS];
	unsigned int nfill;
	unsigned int unres_from;	/* buffer index where the latest run of unknown windows began */
	bool unres_open;
	uint32_t prev_new;		/* the last event's new value, when the chain holds */
	bool prev_new_known;
	uint64_t compared, agreeing;

	uint64_t delta;
	uint64_t delta_lo, delta_hi;	/* the range the interval replays */
	struct hs_wake_overhead_measured measured;	/* from timed waits; waits 0: none */
	struct hs_wake_choice wake;
	struct hs_whatif_open *open;	/* the point replay when the wakes are open loop */
	struct hs_whatif_iv *iv;	/* the interval's replays; NULL: none (out of memory) */
	bool streaming;			/* Δ is fixed, halts go straight through */
	struct hs_whatif_rec *buf;
	unsigned int nbuf, capbuf;
	uint64_t min_wait;		/* smallest waited ns seen in the buffer */
	uint64_t span_ns;

	uint64_t *gaps;			/* opts.keep_gaps times to wake, for haltstat replay */
	uint64_t ngaps, capgaps, gaps_seen;
};

static inline int hs_whatif_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The window the kernel polled with during this halt, -1 unknown. */
static inline int64_t hs_whatif_window(const struct hs_whatif *w, const struct hs_whatif_rec *r)
{
	int64_t win = r->has_change ? (int64_t)r->chg_old : r->window;
	bool max_set = w->max_source != HS_MAX_NONE;

	/*
	 * A recorded M of 0 polls nothing. An inferred 0 does not stand in for
	 * unknown windows here: the account back-fills them, after Δ is taken
	 * from the windows known at each halt (as without the inference).
	 */
	if (win < 0 && w->max_known && w->opts.recorded_max_ns == 0)
		return 0;
	/* with M read live a grown window is clamped only when the next halt starts */
	if (win > 0 && max_set && w->check.rules & HS_RULE_MAX_LIVE &&
	    (uint64_t)win > w->check.p.max_ns)
		win = (int64_t)w->check.p.max_ns;
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

static inline uint64_t hs_whatif_rec_cut(const struct hs_whatif *w, const struct hs_whatif_rec *r)
{
	int64_t win;

	if (r->poll_cut != HS_POLL_CUT_UNKNOWN || !r->waited)
		return r->poll_cut;
	win = hs_whatif_window(w, r);
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

/* whatif_wake.c: Δ from the buffered halts, then the wake model and the interval's replays. */
void hs_whatif_estimate_delta(struct hs_whatif *w);
void hs_whatif_choose_models(struct hs_whatif *w);

/* whatif_max.c: the bounds one halt puts on M, and M from them; a bound from elsewhere. */
void hs_whatif_bound(struct hs_whatif *w, const struct hs_whatif_rec *r);
void hs_whatif_infer_max(struct hs_whatif *w);
void hs_whatif_bound_lo(struct hs_whatif *w, uint64_t lo);
void hs_whatif_bound_hi(struct hs_whatif *w, uint64_t hi);

#endif
