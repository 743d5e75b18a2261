// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prediction intervals of the what-if, earned by replays rather than added
 * as a margin. The model part: the other wake model, Δ at both ends of its
 * range, and every time to wake perturbed by up to HS_WHATIF_IV_JITTER_PM
 * per mille, replayed over the first HS_WHATIF_IV_HALTS halts. The sampling
 * part: the point's spread over blocks of the recording (lib/spread.h) and
 * as much again for the run predicted. Each side is the root sum of squares
 * of the two; why: doc/INTERNALS.md, "Prediction intervals".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spread.h"
#include "whatif_iv.h"
#include "whatif_types.h"

#define HS_WHATIF_IV_JITTER_PM 50
#define HS_WHATIF_IV_VARIANTS 7
/*
 * A nested host's wake-up overhead drifts between a recording at window 0
 * and the runs that follow it, both ways (doc/INTERNALS.md, "Overhead
 * drift on a nested host"): two variants replay every timed wait's
 * overhead this much shorter and this much longer.
 */
#define HS_WHATIF_IV_WAKE_SHORT_PM 650
#define HS_WHATIF_IV_WAKE_LONG_PM 1400

struct hs_whatif_variant {
	struct hs_whatif_batch batch;		/* closed loop */
	struct hs_whatif_open *open;		/* open loop, else NULL */
	struct hs_sim_params p;
	uint64_t delta;
	uint32_t seed;				/* 0: times to wake as recorded */
	uint32_t overhead_pm;			/* each wait's overhead scaled; 0: as is */
};

struct hs_whatif_iv {
	struct hs_sim_params base;
	enum hs_kernel_era era;
	uint64_t cands[HS_WHATIF_MAX_CANDIDATES];
	unsigned int n;
	struct hs_whatif_variant var[HS_WHATIF_IV_VARIANTS];
	unsigned int nvar;
	uint64_t seen;				/* halts of the point */
	/* the point over the halts the variants covered */
	uint64_t snap_hits[HS_WHATIF_MAX_CANDIDATES], snap_poll[HS_WHATIF_MAX_CANDIDATES];
	bool snapped;
	/* blocks of the point, over all its halts */
	struct hs_spread spread[HS_WHATIF_MAX_CANDIDATES];
	uint64_t counted;			/* halts in the blocks so far */
};

void hs_whatif_open_init(struct hs_whatif_open *o, const struct hs_sim_params *base,
			 const uint64_t *cands, unsigned int n)
{
	struct hs_sim_params p = *base;

	memset(o, 0, sizeof(*o));
	for (unsigned int i = 0; i < n; i++) {
		p.max_ns = cands[i];
		hs_sim_init(&o->sim[i], &p);
	}
}

void hs_whatif_open_halt(struct hs_whatif_open *o, unsigned int n, uint64_t d, uint64_t overhead,
			 bool rec_waited, bool valid, uint64_t cut)
{
	uint64_t shift = o->prev_overhead;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t di = d;
		bool hit;

		if (o->started) {
			if (o->prev_rec_waited && o->prev_hit[i])
				di = d > UINT64_MAX - shift ? UINT64_MAX : d + shift;
			else if (!o->prev_rec_waited && !o->prev_hit[i] && !o->prev_pending)
				di = d > shift ? d - shift : 0;
		}
		o->sim[i].p.wake_overhead_ns = overhead;
		hs_sim_halt_cut(&o->sim[i], di, valid, cut, &hit);
		o->prev_hit[i] = hit;
	}
	o->prev_rec_waited = rec_waited;
	o->prev_pending = d < HS_WHATIF_PENDING_NS;
	o->prev_overhead = overhead;
	o->started = true;
}

struct hs_whatif_iv *hs_whatif_iv_alloc(const struct hs_sim_params *base, enum hs_kernel_era era,
					const uint64_t *cands, unsigned int n)
{
	struct hs_whatif_iv *iv = calloc(1, sizeof(*iv));

	if (!iv)
		return NULL;
	iv->base = *base;
	iv->era = era;
	iv->n = n;
	memcpy(iv->cands, cands, n * sizeof(*cands));
	return iv;
}

void hs_whatif_iv_free(struct hs_whatif_iv *iv)
{
	if (!iv)
		return;
	for (unsigned int v = 0; v < iv->nvar; v++)
		free(iv->var[v].open);
	free(iv);
}

/* Out of memory for an open-loop variant only drops that variant. */
static void iv_add(struct hs_whatif_iv *iv, bool open, uint64_t delta, uint32_t seed,
		   uint32_t overhead_pm)
{
	struct hs_whatif_variant *v = &iv->var[iv->nvar];

	memset(v, 0, sizeof(*v));
	v->p = iv->base;
	v->p.wake_overhead_ns = delta;
	v->delta = delta;
	v->seed = seed;
	v->overhead_pm = overhead_pm;
	if (open) {
		v->open = malloc(sizeof(*v->open));
		if (!v->open)
			return;
		hs_whatif_open_init(v->open, &v->p, iv->cands, iv->n);
	} else {
		hs_whatif_batch_init(&v->batch, iv->era);
		memcpy(v->batch.max, iv->cands, iv->n * sizeof(*iv->cands));
	}
	iv->nvar++;
}

void hs_whatif_iv_start(struct hs_whatif_iv *iv, uint64_t delta, uint64_t delta_lo,
			uint64_t delta_hi, bool point_open, bool other_model, bool idle_waits)
{
	if (other_model)
		iv_add(iv, !point_open, delta, 0, 0);
	iv_add(iv, point_open, delta_lo, 0, 0);
	iv_add(iv, point_open, delta_hi, 0, 0);
	iv_add(iv, point_open, delta, 1, 0);
	iv_add(iv, point_open, delta, 2, 0);
	if (idle_waits) {
		iv_add(iv, point_open, delta, 0, HS_WHATIF_IV_WAKE_SHORT_PM);
		iv_add(iv, point_open, delta, 0, HS_WHATIF_IV_WAKE_LONG_PM);
	}
}

/*
 * A fixed pseudo-random number in [-1, 1] for a halt of recorded duration
 * ns and draw seed: of the value, not of the halt's place, so that readers
 * that order halts with the same timestamp apart give the same replay.
 */
static double iv_unit(uint64_t ns, uint32_t seed)
{
	uint64_t z = ns * 0x9e3779b97f4a7c15ull + seed * 0xbf58476d1ce4e5b9ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) / (double)(1ull << 52) - 1.0;
}

static uint64_t iv_jitter(uint64_t d, uint64_t ns, uint32_t seed)
{
	double x;

	if (!seed)
		return d;
	x = (double)d * (1.0 + HS_WHATIF_IV_JITTER_PM / 1000.0 * iv_unit(ns, seed));
	if (x <= 0)
		return 0;
	/* the largest double below 2^64: a time to wake near the type's limit stays there */
	return x < 18446744073709549568.0 ? (uint64_t)x : UINT64_MAX;
}

/* ns scaled by pm per mille, saturating: a corrupt overhead stays large */
static uint64_t iv_scale_pm(uint64_t ns, uint32_t pm)
{
	uint64_t whole = ns / 1000;

	if (whole > UINT64_MAX / pm)
		return UINT64_MAX;
	return whole * pm + ns % 1000 * pm / 1000;
}

void hs_whatif_iv_halt(struct hs_whatif_iv *iv, const struct hs_whatif_rec *r)
{
	if (iv->seen++ >= HS_WHATIF_IV_HALTS)
		return;
	for (unsigned int k = 0; k < iv->nvar; k++) {
		struct hs_whatif_variant *v = &iv->var[k];
		uint64_t d = iv_jitter(hs_whatif_rec_ttw(r, v->delta), r->ns, v->seed);
		uint64_t ovh = hs_whatif_rec_overhead(r, v->delta);
		uint64_t cut = hs_whatif_cut_at(r->poll_cut, d);
		struct hs_sim_params own;

		if (v->overhead_pm)
			ovh = iv_scale_pm(ovh, v->overhead_pm);

		if (v->open)
			hs_whatif_open_halt(v->open, iv->n, d, ovh, r->waited, r->valid, cut);
		else
			hs_whatif_batch_halt(&v->batch, iv->n, hs_whatif_params_for(&v->p, ovh, &own),
					     d, r->valid, cut);
	}
}

bool hs_whatif_iv_tick(struct hs_whatif_iv *iv)
{
	return iv->seen % HS_SPREAD_BLOCK_MIN == 0 || iv->seen == HS_WHATIF_IV_HALTS;
}

void hs_whatif_iv_counts(struct hs_whatif_iv *iv, const uint64_t *hits, const uint64_t *poll_ns,
			 bool final)
{
	if (!iv->snapped && (final || iv->seen == HS_WHATIF_IV_HALTS)) {
		memcpy(iv->snap_hits, hits, iv->n * sizeof(*hits));
		memcpy(iv->snap_poll, poll_ns, iv->n * sizeof(*poll_ns));
		iv->snapped = true;
	}
	if (iv->seen == iv->counted || iv->seen % HS_SPREAD_BLOCK_MIN)
		return;
	for (unsigned int i = 0; i < iv->n; i++)
		hs_spread_add(&iv->spread[i], iv->seen, hits[i], poll_ns[i]);
	iv->counted = iv->seen;
}

/* margin: the sampling part's half-width. */
static void iv_bounds(double pt, double lo_model, double hi_model, double margin, double *lo,
		      double *hi, double cap)
{
	*lo = pt - hypot(pt - lo_model, margin);
	*hi = pt + hypot(hi_model - pt, margin);
	if (*lo < 0)
		*lo = 0;
	if (cap > 0 && *hi > cap)
		*hi = cap;
}

/* A variant's hits and polling ns for candidate i. */
static void iv_variant_counts(const struct hs_whatif_variant *v, unsigned int i, uint64_t *hits,
			      uint64_t *poll)
{
	if (v->open) {
		*hits = v->open->sim[i].hits;
		*poll = v->open->sim[i].poll_ns;
	} else {
		*hits = v->batch.hits[i];
		*poll = v->batch.poll_ns[i];
	}
}

void hs_whatif_iv_row(const struct hs_whatif_iv *iv, unsigned int i, struct hs_whatif_row *row)
{
	uint64_t covered = iv->seen < HS_WHATIF_IV_HALTS ? iv->seen : HS_WHATIF_IV_HALTS;
	double rate_lo = row->hit_rate, rate_hi = row->hit_rate;
	double poll_lo = row->poll_cpu_s, poll_hi = row->poll_cpu_s;
	double scale, pt_rate;

	row->hit_rate_low = row->hit_rate_high = row->hit_rate;
	row->hit_rate_sim_low = row->hit_rate_sim_high = row->hit_rate;
	row->poll_cpu_s_low = row->poll_cpu_s_high = row->poll_cpu_s;
	if (!covered || !iv->snapped || !row->halts)
		return;
	scale = (double)row->halts / covered;
	pt_rate = (double)iv->snap_hits[i] / covered;
	for (unsigned int k = 0; k < iv->nvar; k++) {
		uint64_t h, p;
		double r, c;

		iv_variant_counts(&iv->var[k], i, &h, &p);
		r = row->hit_rate + (double)h / covered - pt_rate;
		c = row->poll_cpu_s + ((double)p - (double)iv->snap_poll[i]) * scale / 1e9;
		rate_lo = r < rate_lo ? r : rate_lo;
		rate_hi = r > rate_hi ? r : rate_hi;
		poll_lo = c < poll_lo ? c : poll_lo;
		poll_hi = c > poll_hi ? c : poll_hi;
	}
	row->hit_rate_sim_low = rate_lo < 0 ? 0 : rate_lo;
	row->hit_rate_sim_high = rate_hi > 1 ? 1 : rate_hi;
	iv_bounds(row->hit_rate, rate_lo, rate_hi,
		  M_SQRT2 * hs_spread_margin(&iv->spread[i], iv->counted, HS_SPREAD_HIT_RATE, 1),
		  &row->hit_rate_low, &row->hit_rate_high, 1.0);
	iv_bounds(row->poll_cpu_s, poll_lo, poll_hi,
		  M_SQRT2 * hs_spread_margin(&iv->spread[i], iv->counted, HS_SPREAD_POLL_NS,
					     (double)iv->cands[i]) *
			  row->halts / 1e9,
		  &row->poll_cpu_s_low, &row->poll_cpu_s_high, 0);
}

/*
 * One closed-loop replay of gaps at p; the point's blocks when spread is
 * set. valid is always set on x86; a kept sequence does not carry it.
 */
static void iv_gaps_run(const struct hs_sim_params *p, const uint64_t *gaps, uint64_t n,
			uint32_t seed, uint64_t *hits, uint64_t *poll, struct hs_spread *spread)
{
	struct hs_sim s;

	hs_sim_init(&s, p);
	for (uint64_t i = 0; i < n; i++) {
		hs_sim_halt(&s, iv_jitter(gaps[i], gaps[i], seed), true, NULL);
		if (spread && (i + 1) % HS_SPREAD_BLOCK_MIN == 0)
			hs_spread_add(spread, i + 1, s.hits, s.poll_ns);
	}
	*hits = s.hits;
	*poll = s.poll_ns;
}

void hs_whatif_iv_gaps(const struct hs_sim_params *p, uint64_t delta_lo, uint64_t delta_hi,
		       const uint64_t *gaps, uint64_t n, struct hs_whatif_gaps_iv *out)
{
	const uint64_t deltas[] = { p->wake_overhead_ns, delta_lo, delta_hi,
				    p->wake_overhead_ns, p->wake_overhead_ns };
	const uint32_t seeds[] = { 0, 0, 0, 1, 2 };
	struct hs_spread spread = { 0 };
	double pt_rate = 0, pt_poll = 0, rlo, rhi, clo, chi;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	for (unsigned int k = 0; k < 5; k++) {
		struct hs_sim_params q = *p;
		uint64_t h, c;

		q.wake_overhead_ns = deltas[k];
		iv_gaps_run(&q, gaps, n, seeds[k], &h, &c, k ? NULL : &spread);
		double r = (double)h / n, s = c / 1e9;

		if (!k) {
			out->hits = h;
			out->poll_ns = c;
			pt_rate = rlo = rhi = r;
			pt_poll = clo = chi = s;
		}
		rlo = r < rlo ? r : rlo;
		rhi = r > rhi ? r : rhi;
		clo = s < clo ? s : clo;
		chi = s > chi ? s : chi;
	}
	iv_bounds(pt_rate, rlo, rhi, hs_spread_margin(&spread, n, HS_SPREAD_HIT_RATE, 1),
		  &out->hit_lo, &out->hit_hi, 1.0);
	iv_bounds(pt_poll, clo, chi,
		  hs_spread_margin(&spread, n, HS_SPREAD_POLL_NS, (double)p->max_ns) * n / 1e9,
		  &out->poll_lo, &out->poll_hi, 0);
}
