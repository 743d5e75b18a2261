/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_WHATIF_PRIV_H
#define HS_WHATIF_PRIV_H

#include "whatif.h"
#include "whatif_batch.h"
#include "whatif_types.h"

/*
 * The what-if's state, which whatif.c (the stream and the replays) and
 * whatif_max.c (the maximum in force) share. Not a public interface.
 */

#define HS_WHATIF_BUFFER 4096
#define HS_WHATIF_BACKFILLS 16


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
	uint64_t span_ns;

	uint64_t *gaps;			/* opts.keep_gaps times to wake, for haltstat replay */
	uint64_t ngaps, capgaps, gaps_seen;
};





/* whatif_max.c: the bounds one halt puts on M, and M from them; a bound from elsewhere. */
void hs_whatif_bound(struct hs_whatif *w, const struct hs_whatif_rec *r);
void hs_whatif_infer_max(struct hs_whatif *w);
void hs_whatif_bound_lo(struct hs_whatif *w, uint64_t lo);
void hs_whatif_bound_hi(struct hs_whatif *w, uint64_t hi);

/* What decides the windows of the buffered halts now. */
static inline struct hs_whatif_winctx hs_whatif_winctx(const struct hs_whatif *w)
{
	return (struct hs_whatif_winctx){
		.max_known = w->max_known,
		.recorded_max_ns = w->opts.recorded_max_ns,
		.max_live = w->max_source != HS_MAX_NONE && (w->check.rules & HS_RULE_MAX_LIVE),
		.max_ns = w->check.p.max_ns,
	};
}

static inline int64_t hs_whatif_window(const struct hs_whatif *w, const struct hs_whatif_rec *r)
{
	struct hs_whatif_winctx c = hs_whatif_winctx(w);

	return hs_whatif_rec_window(&c, r);
}

#endif
