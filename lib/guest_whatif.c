// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest what-if: the haltpoll governor (lib/haltpoll.c) replayed per guest
 * CPU at each candidate guest_halt_poll_ns over the recorded idle periods
 * (a poll hit; a poll that timed out and its halt; a halt alone). A halt
 * adds its residency less X to the time to wake, X being what a halt costs
 * past the wake, estimated from the first HS_GUEST_WHATIF_BUFFER periods
 * (kept, and replayed once it is known). The recorded setting is replayed
 * as the self-check. Why: doc/INTERNALS.md, "Guest what-if".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "guest_whatif.h"
#include "spread.h"

#define HS_GUEST_WHATIF_BUFFER 4096
#define HS_GUEST_DEFAULT_EXTRA 20000
#define HS_GUEST_EXTRA_SAMPLES 32
#define HS_GUEST_EXTRA_FLOOR 1000

const uint32_t hs_guest_whatif_default_candidates[] = {
	0, 10000, 20000, 50000, 100000, 150000, 200000, 300000, 400000,
	500000, 800000, 1000000,
};
const unsigned int hs_guest_whatif_default_ncandidates =
	sizeof(hs_guest_whatif_default_candidates) / sizeof(hs_guest_whatif_default_candidates[0]);

enum hs_gw_kind { HS_GW_HIT, HS_GW_MISS, HS_GW_HALT };

/* One recorded idle period. */
struct hs_gw_wake {
	uint64_t poll_ns, halt_ns;
	uint32_t rec_new;		/* the limit traced after it, when rec_branch != 0 */
	uint8_t kind;
	int8_t rec_branch;		/* guest_halt_poll_ns after it: +1 grow, -1 shrink, 0 none */
	bool reset_before;		/* events were lost before it */
};

struct hs_gw_run {
	uint32_t limit;
	uint64_t wakes, polls, hits, poll_ns, miss_ns, grows, shrinks;
};

/*
 * A candidate runs HS_GW_RUNS times: from limit 0 (the prediction), from
 * its maximum, and with every time to wake 5% shorter and 5% longer; their
 * spread is the model part of the interval, the sampling part is the host
 * what-if's (doc/INTERNALS.md, "Guest what-if").
 */
enum { HS_GW_NOMINAL, HS_GW_FROM_MAX, HS_GW_SHORTER, HS_GW_LONGER, HS_GW_RUNS };

struct hs_gw_cand {
	struct hs_haltpoll_params p;
	struct hs_gw_run run[HS_GW_RUNS];
	struct hs_spread spread;	/* of run[HS_GW_NOMINAL] */
};

struct hs_guest_whatif {
	struct hs_haltpoll_params p;	/* as recorded */
	bool max_known;
	bool max_inferred;		/* guest_halt_poll_ns came from the trace, not the metadata */
	uint64_t infer_lo, infer_hi;	/* what the recorded changes tell of it: lo <= G < hi */
	struct hs_gw_cand cand[HS_GUEST_WHATIF_MAX_CANDIDATES];
	unsigned int ncand;

	int64_t check_limit;		/* the recorded setting's replayed limit, -1 unknown */
	uint64_t compared, agreeing;

	/* the idle period being read */
	int64_t cur_state;		/* -1 not idle */
	uint64_t cur_since;
	bool poll_done;			/* a POLL ended: what comes next tells hit or miss */
	uint64_t poll_ns;
	bool in_miss;			/* the halt now running follows a timed-out POLL */
	bool halt_done;			/* pending ended; its adjustment event may follow */
	struct hs_gw_wake pending;
	bool reset_next;

	struct hs_gw_wake *buf;		/* the first wakes, until X is known; NULL after */
	unsigned int nbuf, cap_buf;	/* grown as needed: a CPU with few wakes costs little */
	bool streaming;
	uint64_t min_sample, miss_samples;
	uint64_t extra;
	uint64_t span_ns;
};

static void gw_candidates(struct hs_guest_whatif *w)
{
	unsigned int n = 0;
	bool placed = !w->max_known;

	for (unsigned int i = 0; i < hs_guest_whatif_default_ncandidates; i++) {
		uint32_t c = hs_guest_whatif_default_candidates[i];

		if (!placed && w->p.max_ns <= c) {
			if (w->p.max_ns < c)
				w->cand[n++].p.max_ns = w->p.max_ns;
			placed = true;
		}
		w->cand[n++].p.max_ns = c;
	}
	if (!placed)
		w->cand[n++].p.max_ns = w->p.max_ns;
	for (unsigned int i = 0; i < n; i++) {
		uint32_t max = w->cand[i].p.max_ns;

		w->cand[i].p = w->p;
		w->cand[i].p.max_ns = max;
		w->cand[i].run[HS_GW_FROM_MAX].limit = max;
	}
	w->ncand = n;
}

struct hs_guest_whatif *hs_guest_whatif_alloc(const struct hs_meta *meta)
{
	struct hs_guest_whatif *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	hs_haltpoll_from_meta(&w->p, meta);
	w->max_known = meta->guest_halt_poll_ns >= 0 && meta->guest_halt_poll_ns <= UINT32_MAX;
	gw_candidates(w);
	w->check_limit = -1;
	w->cur_state = -1;
	w->extra = HS_GUEST_DEFAULT_EXTRA;
	w->min_sample = UINT64_MAX;
	return w;
}

void hs_guest_whatif_free(struct hs_guest_whatif *w)
{
	if (!w)
		return;
	free(w->buf);
	free(w);
}

static uint64_t gw_time_to_wake(const struct hs_guest_whatif *w, const struct hs_gw_wake *k)
{
	uint64_t past = k->halt_ns > w->extra ? k->halt_ns - w->extra : 0;

	return k->kind == HS_GW_HIT ? k->poll_ns : k->poll_ns + past;
}

static void gw_check(struct hs_guest_whatif *w, const struct hs_gw_wake *k, uint64_t d)
{
	struct hs_haltpoll_wake o;
	uint32_t limit;

	if (k->reset_before)
		w->check_limit = -1;
	if (!w->max_known)
		return;
	if (w->check_limit < 0) {
		if (k->rec_branch)
			w->check_limit = k->rec_new;
		return;
	}
	limit = (uint32_t)w->check_limit;
	hs_haltpoll_wake(&w->p, &limit, d, w->extra, &o);
	w->compared++;
	w->agreeing += o.polled == (k->kind != HS_GW_HALT) && o.hit == (k->kind == HS_GW_HIT) &&
		       o.branch == k->rec_branch;
	w->check_limit = limit;
}

static void gw_simulate(struct hs_guest_whatif *w, const struct hs_gw_wake *k)
{
	uint64_t d = gw_time_to_wake(w, k);
	struct hs_haltpoll_wake o;

	uint64_t dr[HS_GW_RUNS] = { d, d, d - d / 20, d + d / 20 };

	for (unsigned int i = 0; i < w->ncand; i++) {
		const struct hs_gw_run *nom = &w->cand[i].run[HS_GW_NOMINAL];

		for (unsigned int k2 = 0; k2 < HS_GW_RUNS; k2++) {
			struct hs_gw_run *c = &w->cand[i].run[k2];

			hs_haltpoll_wake(&w->cand[i].p, &c->limit, dr[k2], w->extra, &o);
			c->wakes++;
			c->polls += o.polled;
			c->hits += o.hit;
			c->poll_ns += o.poll_ns;
			if (!o.hit)
				c->miss_ns += o.poll_ns;
			c->grows += o.branch > 0;
			c->shrinks += o.branch < 0;
		}
		if (nom->wakes % HS_SPREAD_BLOCK_MIN == 0)
			hs_spread_add(&w->cand[i].spread, nom->wakes, nom->hits, nom->poll_ns);
	}
	gw_check(w, k, d);
}

static void gw_estimate_extra(struct hs_guest_whatif *w)
{
	if (w->min_sample != UINT64_MAX)
		w->extra = w->min_sample - w->min_sample / 20;
	if (w->miss_samples < HS_GUEST_EXTRA_SAMPLES && w->extra > HS_GUEST_DEFAULT_EXTRA)
		w->extra = HS_GUEST_DEFAULT_EXTRA;
}

/*
 * guest_halt_poll_ns G unrecorded (pasted text): the kept wakes bound it by
 * the governor's rules. A halt of residency b followed by a grow means
 * b <= G, and the grown limit is <= G; one followed by a shrink means b > G
 * (allow_shrink assumed, as the module's default). G is the lower bound
 * rounded up to a multiple of 10000 when that stays below the upper bound
 * (operators set round numbers), else the lower bound.
 */
static void gw_infer_max(struct hs_guest_whatif *w)
{
	uint64_t lo = 0, hi = UINT64_MAX, g;

	for (unsigned int i = 0; i < w->nbuf; i++) {
		const struct hs_gw_wake *k = &w->buf[i];

		if (k->kind == HS_GW_HIT || !k->rec_branch)
			continue;
		if (k->rec_branch > 0) {
			lo = k->halt_ns > lo ? k->halt_ns : lo;
			lo = k->rec_new > lo ? k->rec_new : lo;
		} else if (k->halt_ns < hi) {
			hi = k->halt_ns;
		}
	}
	if (hi == UINT64_MAX && !lo)
		return;
	if (hi != UINT64_MAX && lo >= hi)
		return;			/* the rules do not hold: leave it unknown */
	g = (lo + 9999) / 10000 * 10000;
	if (hi != UINT64_MAX && g >= hi)
		g = lo;
	if (g > UINT32_MAX)
		return;
	w->infer_lo = lo;
	w->infer_hi = hi;
	/* the candidates stay as they are, the same on every CPU */
	w->p.max_ns = (uint32_t)g;
	w->max_known = w->max_inferred = true;
}

/* X is known from here on: replay what was kept, then stream. */
static void gw_flush(struct hs_guest_whatif *w)
{
	if (w->streaming)
		return;
	w->streaming = true;
	if (!w->max_known)
		gw_infer_max(w);
	gw_estimate_extra(w);
	for (unsigned int i = 0; i < w->nbuf; i++)
		gw_simulate(w, &w->buf[i]);
	free(w->buf);
	w->buf = NULL;
}

static void gw_emit(struct hs_guest_whatif *w, struct hs_gw_wake *k)
{
	k->reset_before = w->reset_next;
	w->reset_next = false;
	if (w->streaming) {
		gw_simulate(w, k);
		return;
	}
	if (w->nbuf == w->cap_buf) {
		unsigned int cap = w->cap_buf ? w->cap_buf * 2 : 64;
		struct hs_gw_wake *b = realloc(w->buf, sizeof(*b) * cap);

		/* out of memory: estimate from what is kept and stream from here */
		if (!b) {
			gw_flush(w);
			gw_simulate(w, k);
			return;
		}
		w->buf = b;
		w->cap_buf = cap;
	}
	if (k->kind != HS_GW_HIT && k->halt_ns >= HS_GUEST_EXTRA_FLOOR) {
		if (k->halt_ns < w->min_sample)
			w->min_sample = k->halt_ns;
		w->miss_samples += k->kind == HS_GW_MISS;
	}
	w->buf[w->nbuf++] = *k;
	if (w->nbuf == HS_GUEST_WHATIF_BUFFER)
		gw_flush(w);
}

static void gw_emit_hit(struct hs_guest_whatif *w, uint64_t poll_ns)
{
	struct hs_gw_wake k = { .poll_ns = poll_ns, .kind = HS_GW_HIT };

	gw_emit(w, &k);
}

/* Whatever ended before this entry is settled now. */
static void gw_settle(struct hs_guest_whatif *w, bool halt_next)
{
	if (w->halt_done) {
		gw_emit(w, &w->pending);
		w->halt_done = false;
	}
	w->in_miss = false;
	if (!w->poll_done)
		return;
	w->poll_done = false;
	if (halt_next)
		w->in_miss = true;
	else
		gw_emit_hit(w, w->poll_ns);
}

static void gw_exit(struct hs_guest_whatif *w, uint64_t ts)
{
	uint64_t r = ts > w->cur_since ? ts - w->cur_since : 0;

	if (w->cur_state < 0)
		return;
	if (w->cur_state == 0) {
		w->poll_done = true;
		w->poll_ns = r;
	} else {
		memset(&w->pending, 0, sizeof(w->pending));
		w->pending.kind = w->in_miss ? HS_GW_MISS : HS_GW_HALT;
		w->pending.poll_ns = w->in_miss ? w->poll_ns : 0;
		w->pending.halt_ns = r;
		w->halt_done = true;
		w->in_miss = false;
	}
	w->cur_state = -1;
}

void hs_guest_whatif_event(struct hs_guest_whatif *w, const struct hs_event *ev)
{
	if (ev->kind == HS_EV_GUEST_HALT_POLL_NS) {
		/* the adjustment after the halt that just ended */
		if (w->halt_done && !w->pending.rec_branch) {
			w->pending.rec_branch = ev->guest_poll.grow ? 1 : -1;
			w->pending.rec_new = ev->guest_poll.new_ns;
		}
		return;
	}
	if (ev->kind != HS_EV_CPU_IDLE)
		return;
	if (ev->idle.state == HS_IDLE_EXIT) {
		gw_exit(w, ev->ts);
		return;
	}
	/* an entry without the previous exit: that period is not measurable */
	gw_settle(w, ev->idle.state >= 1);
	w->cur_state = ev->idle.state;
	w->cur_since = ev->ts;
}

void hs_guest_whatif_break(struct hs_guest_whatif *w)
{
	w->cur_state = -1;
	w->poll_done = w->in_miss = w->halt_done = false;
	w->reset_next = true;
}

void hs_guest_whatif_finish(struct hs_guest_whatif *w, uint64_t span_ns)
{
	gw_settle(w, false);
	gw_flush(w);
	w->span_ns = span_ns;
}

/* The interval's rates, from its counts (also for the totals). */
static void gw_row_rates(struct hs_guest_whatif_row *r, double span_ns)
{
	r->hit_rate_low = r->wakes ? (double)r->hits_low / (double)r->wakes : 0;
	r->hit_rate_high = r->wakes ? (double)r->hits_high / (double)r->wakes : 0;
	r->poll_cpu_pct_low = span_ns > 0 ? r->poll_cpu_s_low * 1e9 / span_ns * 100 : 0;
	r->poll_cpu_pct_high = span_ns > 0 ? r->poll_cpu_s_high * 1e9 / span_ns * 100 : 0;
}

/* One side of the interval: the model part's reach from the point and the sampling part. */
static double gw_side(double point, double model, double margin)
{
	return hypot(model - point, margin);
}

static void gw_interval(const struct hs_gw_cand *c, struct hs_guest_whatif_row *r)
{
	const struct hs_gw_run *nom = &c->run[HS_GW_NOMINAL];
	double n = (double)nom->wakes, hits = (double)nom->hits, poll = (double)nom->poll_ns;
	double hlo = hits, hhi = hits, plo = poll, phi = poll, mh, mp, x;

	for (unsigned int k = 0; k < HS_GW_RUNS; k++) {
		const struct hs_gw_run *u = &c->run[k];

		hlo = u->hits < hlo ? u->hits : hlo;
		hhi = u->hits > hhi ? u->hits : hhi;
		plo = u->poll_ns < plo ? u->poll_ns : plo;
		phi = u->poll_ns > phi ? u->poll_ns : phi;
	}
	mh = M_SQRT2 * n * hs_spread_margin(&c->spread, nom->wakes, HS_SPREAD_HIT_RATE, 1);
	mp = M_SQRT2 * n * hs_spread_margin(&c->spread, nom->wakes, HS_SPREAD_POLL_NS, c->p.max_ns);
	x = floor(hits - gw_side(hits, hlo, mh));
	r->hits_low = x > 0 ? (uint64_t)x : 0;
	x = ceil(hits + gw_side(hits, hhi, mh));
	r->hits_high = x < n ? (uint64_t)x : nom->wakes;
	x = poll - gw_side(poll, plo, mp);
	r->poll_cpu_s_low = x > 0 ? x / 1e9 : 0;
	r->poll_cpu_s_high = (poll + gw_side(poll, phi, mp)) / 1e9;
}

unsigned int hs_guest_whatif_rows(const struct hs_guest_whatif *w,
				  struct hs_guest_whatif_row *rows)
{
	double span = w->span_ns ? (double)w->span_ns : 0;

	for (unsigned int i = 0; i < w->ncand; i++) {
		const struct hs_gw_run *c = &w->cand[i].run[HS_GW_NOMINAL];
		struct hs_guest_whatif_row *r = &rows[i];

		memset(r, 0, sizeof(*r));
		r->guest_halt_poll_ns = w->cand[i].p.max_ns;
		gw_interval(&w->cand[i], r);
		r->wakes = c->wakes;
		r->polls = c->polls;
		r->hits = c->hits;
		r->halts = c->wakes - c->hits;
		r->hit_rate = c->wakes ? (double)c->hits / (double)c->wakes : 0;
		r->poll_cpu_s = (double)c->poll_ns / 1e9;
		r->miss_cpu_s = (double)c->miss_ns / 1e9;
		r->poll_cpu_pct = span > 0 ? (double)c->poll_ns / span * 100 : 0;
		r->poll_cpu_pct_per_cpu = r->poll_cpu_pct;
		r->grows = c->grows;
		r->shrinks = c->shrinks;
		gw_row_rates(r, span);
	}
	return w->ncand;
}

void hs_guest_whatif_selfcheck(const struct hs_guest_whatif *w, struct hs_selfcheck *out)
{
	memset(out, 0, sizeof(*out));
	out->halts_compared = w->compared;
	out->halts_agreeing = w->agreeing;
	out->agree_pct = w->compared ? 100.0 * (double)w->agreeing / (double)w->compared : -1;
	out->replayed_max_ns = w->max_known ? w->p.max_ns : 0;
	out->max_inferred = w->max_inferred;
}

uint64_t hs_guest_whatif_halt_extra_ns(const struct hs_guest_whatif *w, uint64_t *samples)
{
	if (samples)
		*samples = w->miss_samples;
	return w->extra;
}

const struct hs_haltpoll_params *hs_guest_whatif_params(const struct hs_guest_whatif *w)
{
	return &w->p;
}

void hs_guest_whatif_rows_sum(struct hs_guest_whatif_row *into,
			      const struct hs_guest_whatif_row *from, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct hs_guest_whatif_row *a = &into[i];
		const struct hs_guest_whatif_row *b = &from[i];

		a->guest_halt_poll_ns = b->guest_halt_poll_ns;
		a->wakes += b->wakes;
		a->polls += b->polls;
		a->hits += b->hits;
		a->halts += b->halts;
		a->hit_rate = a->wakes ? (double)a->hits / (double)a->wakes : 0;
		a->poll_cpu_s += b->poll_cpu_s;
		a->miss_cpu_s += b->miss_cpu_s;
		a->poll_cpu_pct += b->poll_cpu_pct;
		a->grows += b->grows;
		a->shrinks += b->shrinks;
		a->hits_low += b->hits_low;
		a->hits_high += b->hits_high;
		a->hit_rate_low = a->wakes ? (double)a->hits_low / (double)a->wakes : 0;
		a->hit_rate_high = a->wakes ? (double)a->hits_high / (double)a->wakes : 0;
		a->poll_cpu_s_low += b->poll_cpu_s_low;
		a->poll_cpu_s_high += b->poll_cpu_s_high;
		a->poll_cpu_pct_low += b->poll_cpu_pct_low;
		a->poll_cpu_pct_high += b->poll_cpu_pct_high;
	}
}
