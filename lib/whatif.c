// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-vCPU what-if: every candidate maximum window is replayed with the
 * era's exact adaptive rules (lib/sim.c) over the recorded times to wake.
 * The first HS_WHATIF_BUFFER halts of a vCPU are kept until Δ is estimated
 * from them, then replayed; later ones stream through, so memory is
 * constant per vCPU. The recorded setting is replayed too, as the
 * self-check, and windows told only afterwards (hs_whatif_backfill) are
 * written into the buffer before its replay (doc/INTERNALS.md, "Replay
 * and self-check", "Back-filled windows"). Δ and the wake model:
 * whatif_wake.c; the maximum in force M: whatif_max.c.
 */
#include <stdlib.h>
#include <string.h>

#include "whatif_iv.h"
#include "whatif_priv.h"
#include "whatif_wake.h"
#include "winstate.h"

const uint64_t hs_whatif_default_candidates[] = {
	0, 10000, 20000, 50000, 100000, 150000, 200000, 300000, 400000,
	500000, 800000, 1000000,
};
const unsigned int hs_whatif_default_ncandidates =
	sizeof(hs_whatif_default_candidates) / sizeof(hs_whatif_default_candidates[0]);

static unsigned int whatif_copy_candidates(uint64_t *dst, const struct hs_whatif_opts *o)
{
	unsigned int n = 0;

	if (!o->ncandidates) {
		memcpy(dst, hs_whatif_default_candidates,
		       sizeof(hs_whatif_default_candidates));
		return hs_whatif_default_ncandidates;
	}
	memcpy(dst, o->candidates, sizeof(uint64_t) *
	       (o->ncandidates > HS_WHATIF_MAX_CANDIDATES ?
		HS_WHATIF_MAX_CANDIDATES : o->ncandidates));
	n = o->ncandidates > HS_WHATIF_MAX_CANDIDATES ? HS_WHATIF_MAX_CANDIDATES :
		o->ncandidates;
	qsort(dst, n, sizeof(*dst), hs_whatif_u64_cmp);
	/* drop duplicates so that rows stay one per value */
	unsigned int u = 0;

	for (unsigned int i = 0; i < n; i++)
		if (!u || dst[u - 1] != dst[i])
			dst[u++] = dst[i];
	return u;
}

static void whatif_base_params(const struct hs_whatif_opts *o, struct hs_sim_params *p)
{
	hs_sim_params_default(p, o->era);
	if (o->grow >= 0)
		p->grow = o->grow > UINT32_MAX ? UINT32_MAX : (uint32_t)o->grow;
	if (o->grow_start >= 0)
		p->grow_start = o->grow_start > UINT32_MAX ? UINT32_MAX : (uint32_t)o->grow_start;
	if (o->shrink >= 0)
		p->shrink = o->shrink > UINT32_MAX ? UINT32_MAX : (uint32_t)o->shrink;
}

struct hs_whatif *hs_whatif_alloc(const struct hs_whatif_opts *opts)
{
	struct hs_sim_params p;
	struct hs_whatif *w;

	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->opts = *opts;
	hs_whatif_batch_init(&w->batch, opts->era);
	w->ncand = whatif_copy_candidates(w->opts.candidates, opts);
	w->opts.ncandidates = w->ncand;
	whatif_base_params(&w->opts, &p);
	for (unsigned int i = 0; i < w->ncand; i++) {
		p.max_ns = w->opts.candidates[i];
		hs_sim_init(&w->cand[i], &p);
		w->batch.max[i] = p.max_ns;
	}
	p.max_ns = opts->recorded_max_ns >= 0 ? (uint64_t)opts->recorded_max_ns : 0;
	w->max_known = opts->recorded_max_ns >= 0;
	w->max_source = w->max_known ? HS_MAX_MODULE : HS_MAX_NONE;
	hs_sim_init(&w->check, &p);
	w->max_hi = UINT64_MAX;
	w->delta = HS_WHATIF_DEFAULT_DELTA;
	p.max_ns = 0;
	w->iv = hs_whatif_iv_alloc(&p, opts->era, w->opts.candidates, w->ncand);
	return w;
}

void hs_whatif_free(struct hs_whatif *w)
{
	if (!w)
		return;
	free(w->buf);
	free(w->gaps);
	free(w->open);
	hs_whatif_iv_free(w->iv);
	free(w);
}

static void whatif_check(struct hs_whatif *w, const struct hs_whatif_rec *r)
{
	int64_t win = hs_whatif_window(w, r);
	int rec_change = r->has_change ? (r->grow ? 1 : -1) : 0;
	bool hit, rec_hit, compare;
	uint64_t d;
	int change;

	if (!r->reliable) {
		w->check_seeded = false;
		return;
	}
	if (!w->check_seeded && win >= 0) {
		w->check.window = (uint64_t)win;
		w->check_seeded = true;
	}
	compare = w->check_seeded;
	w->check.p.wake_overhead_ns = hs_whatif_rec_overhead(r, w->delta);
	d = hs_whatif_rec_ttw(r, w->delta);
	change = hs_sim_halt_cut(&w->check, d, r->valid, hs_whatif_cut_at(r->poll_cut, d), &hit);
	if (!compare)
		return;
	/* waited == 0 without a window is a wake that beat the block, not a poll hit */
	rec_hit = !r->waited && win != 0;
	w->compared++;
	if (hit == rec_hit && change == rec_change)
		w->agreeing++;
}

/* Grows by doubling up to the cap; out of memory only ends the kept sequence early. */
static void whatif_keep_gap(struct hs_whatif *w, uint64_t d)
{
	w->gaps_seen++;
	if (w->ngaps >= w->opts.keep_gaps || w->ngaps + 1 < w->gaps_seen)
		return;
	if (w->ngaps == w->capgaps) {
		uint64_t cap = w->capgaps ? w->capgaps * 2 : 1024;
		uint64_t *ng;

		if (cap > w->opts.keep_gaps)
			cap = w->opts.keep_gaps;
		ng = realloc(w->gaps, sizeof(*ng) * cap);
		if (!ng)
			return;
		w->gaps = ng;
		w->capgaps = cap;
	}
	w->gaps[w->ngaps++] = d;
}

/* The candidates' counts into cand[], where the rows are read from. */
static void whatif_counts_store(struct hs_whatif *w)
{
	if (w->open) {
		for (unsigned int i = 0; i < w->ncand; i++)
			w->cand[i] = w->open->sim[i];
		return;
	}
	for (unsigned int i = 0; i < w->ncand; i++) {
		struct hs_sim *c = &w->cand[i];

		c->window = w->batch.window[i];
		c->halts = w->batch.halts;
		c->hits = w->batch.hits[i];
		c->poll_ns = w->batch.poll_ns[i];
		c->miss_poll_ns = w->batch.miss_poll_ns[i];
		c->grows = w->batch.grows[i];
		c->shrinks = w->batch.shrinks[i];
		c->flaps = w->batch.flaps[i];
		c->last_change = w->batch.last_change[i];
	}
}

/* The point's hits and polling per candidate, for the interval's snapshots. */
static void whatif_point_counts(const struct hs_whatif *w, uint64_t *hits, uint64_t *poll)
{
	for (unsigned int i = 0; i < w->ncand; i++) {
		hits[i] = w->open ? w->open->sim[i].hits : w->batch.hits[i];
		poll[i] = w->open ? w->open->sim[i].poll_ns : w->batch.poll_ns[i];
	}
}

static void whatif_iv_feed(struct hs_whatif *w, const struct hs_whatif_rec *r, bool final)
{
	uint64_t hits[HS_WHATIF_MAX_CANDIDATES], poll[HS_WHATIF_MAX_CANDIDATES];

	if (!w->iv)
		return;
	if (!final) {
		hs_whatif_iv_halt(w->iv, r);
		if (!hs_whatif_iv_tick(w->iv))
			return;
	}
	whatif_point_counts(w, hits, poll);
	hs_whatif_iv_counts(w->iv, hits, poll, final);
}

static void whatif_simulate(struct hs_whatif *w, const struct hs_whatif_rec *rec)
{
	struct hs_whatif_rec cut = *rec, *r = &cut;
	uint64_t d = hs_whatif_rec_ttw(r, w->delta), ovh = hs_whatif_rec_overhead(r, w->delta);
	struct hs_sim_params own;

	struct hs_whatif_winctx win = hs_whatif_winctx(w);

	cut.poll_cut = hs_whatif_rec_cut(&win, rec);
	if (w->opts.keep_gaps)
		whatif_keep_gap(w, d);
	if (w->open)
		hs_whatif_open_halt(w->open, w->ncand, d, ovh, r->waited, r->valid,
				    hs_whatif_cut_at(r->poll_cut, d));
	else if (w->ncand)
		hs_whatif_batch_halt(&w->batch, w->ncand,
				     hs_whatif_params_for(&w->cand[0].p, ovh, &own), d, r->valid,
				     hs_whatif_cut_at(r->poll_cut, d));
	whatif_iv_feed(w, r, false);
	hs_whatif_infer_max(w);
	whatif_check(w, r);
}

/* A back-filled run's halts, lost-event ones aside, take its window. */
static void whatif_apply_fills(struct hs_whatif *w)
{
	for (unsigned int f = 0; f < w->nfill; f++)
		for (unsigned int i = w->fill[f].from; i < w->fill[f].to && i < w->nbuf; i++) {
			struct hs_whatif_rec *r = &w->buf[i];

			if (r->reliable && !r->has_change && r->window < 0)
				r->window = w->fill[f].window;
		}
	w->nfill = 0;
}

void hs_whatif_backfill(struct hs_whatif *w, int64_t window, bool lower_bound)
{
	if (!w->unres_open)
		return;
	/* -1: the run stays unknown, and the next one starts apart from it */
	w->unres_open = false;
	if (window < 0 || w->streaming || w->nfill == HS_WHATIF_BACKFILLS)
		return;
	w->fill[w->nfill].from = w->unres_from;
	w->fill[w->nfill].to = w->nbuf;
	w->fill[w->nfill++].window = window;
	for (unsigned int i = w->unres_from; i < w->nbuf; i++) {
		const struct hs_whatif_rec *r = &w->buf[i];

		if (!r->reliable || !r->valid || r->has_change || r->window >= 0)
			continue;
		/* a window polled with, or at least that: M is no smaller */
		if (window > 0)
			hs_whatif_bound_lo(w, (uint64_t)window);
		else if (!lower_bound && r->ns)
			hs_whatif_bound_hi(w, r->ns);
	}
}

/*
 * The buffer is full (or the stream ends) while the window of its latest
 * run is still untold: the rules decide from the run so far (the account
 * decides again from the whole run at its end, for the counts).
 */
static void whatif_decide_open_run(struct hs_whatif *w)
{
	enum hs_window_source src;
	enum hs_unknown_reason why;
	struct hs_window_seg seg;
	int64_t win;
	bool lower = false;

	if (!w->unres_open)
		return;
	hs_winstate_open(&seg, HS_WINDOW_UNKNOWN, 0);
	for (unsigned int i = w->unres_from; i < w->nbuf; i++) {
		const struct hs_whatif_rec *r = &w->buf[i];

		if (r->reliable && !r->has_change && r->window < 0)
			hs_winstate_add(&seg, r->ns, r->waited, r->valid);
	}
	win = seg.halts ? hs_winstate_decide(&seg, hs_whatif_max_ns(w, NULL), &src, &why, &lower) :
		HS_WINDOW_UNKNOWN;
	hs_whatif_backfill(w, win, lower);
}

/*
 * Δ and the wake model from the buffered halts; then the point replay for
 * that model and the interval's replays.
 */
static void whatif_choose_models(struct hs_whatif *w)
{
	struct hs_whatif_halts h = { .rec = w->buf, .n = w->nbuf, .win = hs_whatif_winctx(w) };
	struct hs_whatif_delta d;

	hs_whatif_delta_estimate(&h, &d);
	w->delta = d.delta;
	w->delta_lo = d.lo;
	w->delta_hi = d.hi;
	w->measured = d.measured;
	for (unsigned int i = 0; i < w->ncand; i++)
		w->cand[i].p.wake_overhead_ns = w->delta;
	w->check.p.wake_overhead_ns = w->delta;
	hs_whatif_wake_choose(&h, &d, &w->wake);
	if (w->wake.model == HS_WAKE_OPEN && w->ncand) {
		w->open = malloc(sizeof(*w->open));
		if (w->open)
			hs_whatif_open_init(w->open, &w->cand[0].p, w->opts.candidates, w->ncand);
		else
			w->wake.model = HS_WAKE_CLOSED;
	}
	if (w->iv)
		hs_whatif_iv_start(w->iv, w->delta, w->delta_lo, w->delta_hi, w->open != NULL,
				   !w->wake.from_timed,
				   w->opts.nested_host && d.measured.waits && w->check.p.max_ns == 0);
}

static void whatif_start_streaming(struct hs_whatif *w)
{
	if (w->streaming)
		return;
	whatif_decide_open_run(w);
	/* An inferred M must be known before the first replayed halt (and Δ clamps with it). */
	hs_whatif_infer_max(w);
	whatif_choose_models(w);
	whatif_apply_fills(w);
	for (unsigned int i = 0; i < w->nbuf; i++)
		whatif_simulate(w, &w->buf[i]);
	free(w->buf);
	w->buf = NULL;
	w->nbuf = w->capbuf = 0;
	w->streaming = true;
	w->unres_open = false;
}

static bool whatif_buffer(struct hs_whatif *w, const struct hs_whatif_rec *r)
{
	if (w->nbuf == w->capbuf) {
		unsigned int cap = w->capbuf ? w->capbuf * 2 : 256;
		struct hs_whatif_rec *nb;

		if (cap > HS_WHATIF_BUFFER)
			cap = HS_WHATIF_BUFFER;
		nb = realloc(w->buf, sizeof(*nb) * cap);
		if (!nb)
			return false;
		w->buf = nb;
		w->capbuf = cap;
	}
	w->buf[w->nbuf++] = *r;
	return true;
}

void hs_whatif_halt(struct hs_whatif *w, const struct hs_wakeup *wakeup,
		    const struct hs_poll_change *change, int64_t window_ns,
		    bool data_reliable, uint64_t poll_cut_ns)
{
	struct hs_halt_sched sched = { .poll_cut_ns = poll_cut_ns, .woken_ns = HS_WOKEN_UNKNOWN };

	hs_whatif_halt_ts(w, 0, wakeup, change, window_ns, data_reliable, &sched);
}

void hs_whatif_halt_ts(struct hs_whatif *w, uint64_t ts, const struct hs_wakeup *wakeup,
		       const struct hs_poll_change *change, int64_t window_ns,
		       bool data_reliable, const struct hs_halt_sched *sched)
{
	bool timed = sched && wakeup->waited && sched->woken_ns <= wakeup->ns;
	struct hs_whatif_rec r = {
		.ts = ts,
		.ns = wakeup->ns,
		.window = window_ns < 0 ? -1 : window_ns,
		.poll_cut = sched ? sched->poll_cut_ns : HS_POLL_CUT_UNKNOWN,
		.woken = timed ? sched->woken_ns : HS_WOKEN_UNKNOWN,
		.waited = wakeup->waited,
		.valid = wakeup->valid != 0,	/* -1: the kernel had no such field */
		.reliable = data_reliable,
		.has_change = change != NULL,
	};

	if (change) {
		r.chg_new = change->new_ns;
		r.chg_old = change->old_ns;
		r.grow = change->grow;
	}
	hs_whatif_bound(w, &r);
	if (!w->streaming) {
		if (r.window >= 0 || r.has_change) {
			w->unres_open = false;
		} else if (!w->unres_open) {
			w->unres_open = true;
			w->unres_from = w->nbuf;
		}
		bool kept = whatif_buffer(w, &r);

		if (kept && w->nbuf < HS_WHATIF_BUFFER)
			return;
		/* buffer full (or no memory for it): fix Δ with what we have */
		whatif_start_streaming(w);
		if (kept)
			return;
	}
	whatif_simulate(w, &r);
}

void hs_whatif_finish(struct hs_whatif *w, uint64_t span_ns)
{
	whatif_start_streaming(w);
	whatif_iv_feed(w, NULL, true);
	whatif_counts_store(w);
	w->span_ns = span_ns;
}

static void whatif_row_fill(struct hs_whatif_row *row, const struct hs_sim *s,
			    uint64_t span_ns)
{
	double span_s = span_ns / 1e9;

	memset(row, 0, sizeof(*row));
	row->halt_poll_ns = s->p.max_ns;
	row->halts = s->halts;
	row->hits = s->hits;
	row->hit_rate = s->halts ? (double)s->hits / s->halts : 0;
	row->poll_cpu_s = s->poll_ns / 1e9;
	row->miss_cpu_s = s->miss_poll_ns / 1e9;
	row->poll_cpu_pct = span_ns ? 100.0 * s->poll_ns / span_ns : 0;
	row->flaps_per_s = span_ns ? s->flaps / span_s : 0;
	row->grows = s->grows;
	row->shrinks = s->shrinks;
}

static void whatif_row_point_only(struct hs_whatif_row *row)
{
	row->hit_rate_low = row->hit_rate_high = row->hit_rate;
	row->hit_rate_sim_low = row->hit_rate_sim_high = row->hit_rate;
	row->poll_cpu_s_low = row->poll_cpu_s_high = row->poll_cpu_s;
}

unsigned int hs_whatif_rows(const struct hs_whatif *w, struct hs_whatif_row *rows)
{
	for (unsigned int i = 0; i < w->ncand; i++) {
		whatif_row_fill(&rows[i], &w->cand[i], w->span_ns);
		if (w->iv)
			hs_whatif_iv_row(w->iv, i, &rows[i]);
		else
			whatif_row_point_only(&rows[i]);
	}
	return w->ncand;
}

void hs_whatif_selfcheck(const struct hs_whatif *w, struct hs_selfcheck *out)
{
	memset(out, 0, sizeof(*out));
	out->halts_compared = w->compared;
	out->halts_agreeing = w->agreeing;
	out->agree_pct = w->compared ? 100.0 * w->agreeing / w->compared : -1;
	out->replayed_max_ns = w->check.p.max_ns;
	out->max_source = w->max_source;
	out->max_inferred = w->max_source != HS_MAX_MODULE;
	out->module_max_ns = w->opts.recorded_max_ns;
	out->max_lo = w->max_lo;
	out->max_hi = w->max_hi;
	out->max_soft = w->max_soft;
}

uint64_t hs_whatif_wake_overhead_ns(const struct hs_whatif *w)
{
	return w->delta;
}

void hs_whatif_wake_overhead_measured(const struct hs_whatif *w,
				      struct hs_wake_overhead_measured *out)
{
	*out = w->measured;
}

void hs_whatif_wake_overhead_range(const struct hs_whatif *w, uint64_t *lo, uint64_t *hi)
{
	*lo = w->delta_lo;
	*hi = w->delta_hi;
}

void hs_whatif_wake_model(const struct hs_whatif *w, struct hs_wake_choice *out)
{
	*out = w->wake;
}

const uint64_t *hs_whatif_gaps(const struct hs_whatif *w, uint64_t *n, uint64_t *total)
{
	*n = w->ngaps;
	*total = w->gaps_seen;
	return w->gaps;
}

void hs_whatif_sim_params(const struct hs_whatif *w, uint64_t max_ns, struct hs_sim_params *p)
{
	whatif_base_params(&w->opts, p);
	p->max_ns = max_ns;
	p->wake_overhead_ns = w->delta;
}

/*
 * Sums are what the per-VM and host tables need: counts and CPU seconds
 * add up, poll_cpu_pct becomes percent of one CPU (it can pass 100), and
 * the hit rate is recomputed from the summed counts.
 */
void hs_whatif_rows_sum(struct hs_whatif_row *into, const struct hs_whatif_row *from,
			unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct hs_whatif_row *a = &into[i];
		const struct hs_whatif_row *b = &from[i];

		uint64_t before = a->halts;

		a->halt_poll_ns = b->halt_poll_ns;
		a->halts += b->halts;
		a->hits += b->hits;
		if (a->halts) {
			a->hit_rate_low = (a->hit_rate_low * before + b->hit_rate_low * b->halts) /
					  a->halts;
			a->hit_rate_high = (a->hit_rate_high * before + b->hit_rate_high * b->halts) /
					   a->halts;
			a->hit_rate_sim_low = (a->hit_rate_sim_low * before +
						  b->hit_rate_sim_low * b->halts) / a->halts;
			a->hit_rate_sim_high = (a->hit_rate_sim_high * before +
						   b->hit_rate_sim_high * b->halts) / a->halts;
		}
		a->poll_cpu_s_low += b->poll_cpu_s_low;
		a->poll_cpu_s_high += b->poll_cpu_s_high;
		a->hit_rate = a->halts ? (double)a->hits / a->halts : 0;
		a->poll_cpu_s += b->poll_cpu_s;
		a->miss_cpu_s += b->miss_cpu_s;
		a->poll_cpu_pct += b->poll_cpu_pct;
		a->flaps_per_s += b->flaps_per_s;
		a->grows += b->grows;
		a->shrinks += b->shrinks;
	}
}
