// SPDX-License-Identifier: GPL-2.0-only
/*
 * The what-if's wake-up overhead Δ and its wake model (whatif_priv.h).
 * Δ is each wait's own where sched_waking timed it (one figure for every
 * wait blurs the times to wake); else it is estimated as the floor of the
 * misses' excess over their window, a low quantile where polls were cut
 * (doc/INTERNALS.md, "Wake-up overhead"). The wake model, closed or open
 * loop, comes from the timed waits' slope, else from pairs of halts
 * (doc/INTERNALS.md, "The wake model").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "whatif_wake.h"

#define HS_WHATIF_DELTA_SAMPLES 32
#define HS_WHATIF_DELTA_FLOOR 1000
#define HS_WHATIF_DELTA_QUANTILE 200	/* past cut polls: the 0.5% quantile, not the minimum */
#define HS_WHATIF_DELTA_SPAN 50000
#define HS_WAKE_MIN_PAIRS 16
#define HS_WAKE_MIN_TIMED 64		/* consecutive timed waits before their slope decides */
#define HS_WAKE_SLOPE_Z 3.0		/* standard errors between their slope and the other model's */

/*
 * A miss's excess over its window (doc/INTERNALS.md, "Wake-up overhead"),
 * or UINT64_MAX when the halt says nothing of Δ. *cut_evidence is set for a
 * poll that must have been cut: its excess is below any wake-up overhead.
 */
static uint64_t whatif_delta_sample(const struct hs_whatif_halts *h,
				    const struct hs_whatif_rec *r, bool *cut_evidence)
{
	int64_t win = hs_whatif_rec_window(&h->win, r);

	*cut_evidence = false;
	if (!r->waited || !r->reliable || !r->valid || win < 0)
		return UINT64_MAX;
	/* a poll that sched events show was cut ended before its window: no bound */
	if (win > 0 && r->poll_cut < (uint64_t)win)
		return UINT64_MAX;
	if (r->ns < (uint64_t)win + HS_WHATIF_DELTA_FLOOR) {
		*cut_evidence = win > 0 && r->poll_cut == HS_POLL_CUT_UNKNOWN;
		return UINT64_MAX;
	}
	return r->ns - (uint64_t)win;
}

/*
 * The buffered misses' samples, ascending, into s (room for nbuf); *cut
 * counts the evidence of cut polls. Returns how many.
 */
static unsigned int whatif_delta_samples(const struct hs_whatif_halts *h, uint64_t *s,
					 unsigned int *cut)
{
	unsigned int n = 0;

	*cut = 0;
	for (unsigned int i = 0; i < h->n; i++) {
		bool evidence;
		uint64_t sm = whatif_delta_sample(h, &h->rec[i], &evidence);

		*cut += evidence;
		if (sm != UINT64_MAX)
			s[n++] = sm;
	}
	qsort(s, n, sizeof(*s), hs_whatif_u64_cmp);
	return n;
}

/*
 * Waits that sched_waking timed carry their own overhead, and replay with
 * it; the rest of the halts need one Δ: with enough timed waits it is
 * their median (a poll hit that misses in the replay costs a typical
 * wake-up, not the quickest), and the interval replays their tenth and
 * ninetieth percentiles. False: too few, Δ is estimated as below.
 */
static bool whatif_delta_measure(const struct hs_whatif_halts *h, struct hs_whatif_delta *d)
{
	uint64_t *s = h->n ? malloc(sizeof(*s) * h->n) : NULL;
	unsigned int n = 0;

	for (unsigned int i = 0; s && i < h->n; i++) {
		const struct hs_whatif_rec *r = &h->rec[i];

		if (r->woken != HS_WOKEN_UNKNOWN && r->reliable)
			s[n++] = r->ns - r->woken;
	}
	if (n >= HS_WHATIF_DELTA_SAMPLES) {
		qsort(s, n, sizeof(*s), hs_whatif_u64_cmp);
		d->measured.waits = n;
		d->measured.p10_ns = s[n / 10];
		d->measured.p50_ns = s[n / 2];
		d->measured.p90_ns = s[n * 9 / 10];
		d->measured.p99_ns = s[n * 99 / 100];
		d->delta = d->measured.p50_ns;
	}
	free(s);
	return d->measured.waits != 0;
}

/*
 * Every wait lasts its time to wake plus Δ, so Δ is at most the shortest
 * wait: where cut polls leave few misses that ran their window, the lowest
 * 0.5% of the waits (below the 1 us floor aside) bound it. s has room for
 * nbuf.
 */
static void whatif_delta_cap(const struct hs_whatif_halts *h, struct hs_whatif_delta *d,
			     uint64_t *s)
{
	unsigned int n = 0;

	if (!s)
		return;
	for (unsigned int i = 0; i < h->n; i++) {
		const struct hs_whatif_rec *r = &h->rec[i];

		if (r->waited && r->reliable && r->valid && r->ns >= HS_WHATIF_DELTA_FLOOR)
			s[n++] = r->ns;
	}
	if (n < HS_WHATIF_DELTA_SAMPLES)
		return;
	qsort(s, n, sizeof(*s), hs_whatif_u64_cmp);
	if (d->delta > s[n / HS_WHATIF_DELTA_QUANTILE])
		d->delta = s[n / HS_WHATIF_DELTA_QUANTILE];
}

/* The shortest wait, UINT64_MAX none. */
static uint64_t whatif_min_wait(const struct hs_whatif_halts *h)
{
	uint64_t m = UINT64_MAX;

	for (unsigned int i = 0; i < h->n; i++)
		if (h->rec[i].waited && h->rec[i].ns < m)
			m = h->rec[i].ns;
	return m;
}

/* Δ itself, before its range. */
static void whatif_delta_point(const struct hs_whatif_halts *h, struct hs_whatif_delta *d)
{
	uint64_t *samples;
	unsigned int n = 0, cut = 0, rank;

	if (whatif_delta_measure(h, d))
		return;
	samples = h->n ? malloc(sizeof(*samples) * h->n) : NULL;
	if (samples)
		n = whatif_delta_samples(h, samples, &cut);
	if (n) {
		rank = cut ? n / HS_WHATIF_DELTA_QUANTILE + cut / 2 : 0;
		if (rank >= n)
			rank = n - 1;
		d->delta = samples[rank] - samples[rank] / 20;
	} else if (whatif_min_wait(h) != UINT64_MAX) {
		d->delta = whatif_min_wait(h);
	}
	if (n < HS_WHATIF_DELTA_SAMPLES && d->delta > HS_WHATIF_DEFAULT_DELTA)
		d->delta = HS_WHATIF_DEFAULT_DELTA;
	if (cut)
		whatif_delta_cap(h, d, samples);
	free(samples);
}

/*
 * The range of Δ the interval replays: the timed waits' middle 80% when
 * there are enough of them. Otherwise Δ is a floor (see the estimate):
 * most wake-ups cost more than the quickest, and a recording at 0 cannot
 * tell a wait's time to wake from its overhead. The low end is half the
 * estimate, the high end the tenth percentile of the same samples (cut
 * polls left out, as there; the waits themselves when no window was
 * known), at most 50 us above it.
 */
static void whatif_delta_range(const struct hs_whatif_halts *h, struct hs_whatif_delta *d)
{
	uint64_t *s;
	unsigned int n, cut;

	if (d->measured.waits) {
		d->lo = d->measured.p10_ns;
		d->hi = d->measured.p90_ns;
		return;
	}
	d->lo = d->delta / 2;
	d->hi = d->delta;
	s = malloc(sizeof(*s) * (h->n ? h->n : 1));
	if (!s)
		return;
	n = whatif_delta_samples(h, s, &cut);
	if (!n) {
		for (unsigned int i = 0; i < h->n; i++) {
			const struct hs_whatif_rec *r = &h->rec[i];

			if (r->waited && r->reliable && r->valid && r->ns >= HS_WHATIF_DELTA_FLOOR)
				s[n++] = r->ns;
		}
		qsort(s, n, sizeof(*s), hs_whatif_u64_cmp);
	}
	if (n) {
		uint64_t p10 = s[n / 10], cap = d->delta + HS_WHATIF_DELTA_SPAN;

		d->hi = p10 > cap ? cap : p10 > d->delta ? p10 : d->delta;
	}
	free(s);
}

/* One pair of consecutive halts whose second is a poll hit. */
struct hs_wake_pair {
	uint64_t x;		/* first halt's end to the second's end (its wake) */
	uint64_t bucket;	/* the window the second halt polled with */
	bool hit;		/* the first halt was a poll hit */
};

static int wake_pair_cmp(const void *a, const void *b)
{
	const struct hs_wake_pair *x = a, *y = b;

	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	if (x->hit != y->hit)
		return x->hit ? 1 : -1;
	return x->x < y->x ? -1 : x->x > y->x;
}

/* Pairs whose second halt is a hit: its end is its wake, exactly. */
static unsigned int wake_pairs(const struct hs_whatif_halts *h, struct hs_wake_pair *pr)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i + 1 < h->n; i++) {
		const struct hs_whatif_rec *a = &h->rec[i], *b = &h->rec[i + 1];
		int64_t win = hs_whatif_rec_window(&h->win, b);

		if (!a->ts || b->ts <= a->ts || !a->reliable || !b->reliable || !a->valid ||
		    !b->valid || b->waited || win <= 0)
			continue;
		pr[n].x = b->ts - a->ts;
		pr[n].bucket = (uint64_t)win;
		pr[n].hit = !a->waited && hs_whatif_rec_window(&h->win, a) != 0;
		n++;
	}
	return n;
}

/*
 * Timed waits show the wake model directly: the next halt's time to wake
 * falls with the wait's own overhead, slope -1 open loop (a little less
 * steep where wakes come pending), 0 closed. The slope is pooled within
 * bands of the wait's time to wake (a quarter octave each), so that cycled
 * gaps do not fake one, and decides HS_WAKE_SLOPE_Z standard errors clear
 * of the other model (doc/INTERNALS.md, "The wake model").
 */
#define HS_WAKE_BANDS 160

struct hs_wake_band {
	double n, sx, sy, sxx, sxy, syy;
};

static unsigned int wake_band_of(uint64_t ttw)
{
	unsigned int lg = ttw ? 63 - (unsigned int)__builtin_clzll(ttw) : 0;
	unsigned int sub = lg >= 2 ? (unsigned int)(ttw >> (lg - 2)) & 3 : 0;

	return 4 * lg + sub < HS_WAKE_BANDS ? 4 * lg + sub : HS_WAKE_BANDS - 1;
}

/* The next halt's time to wake when the trace shows it exactly, else UINT64_MAX. */
static uint64_t wake_exact_ttw(const struct hs_whatif_rec *r)
{
	if (!r->reliable)
		return UINT64_MAX;
	return !r->waited ? r->ns : r->woken != HS_WOKEN_UNKNOWN ? r->woken : UINT64_MAX;
}

static bool whatif_wake_timed(const struct hs_whatif_halts *h, struct hs_wake_choice *out)
{
	struct hs_wake_band *band = calloc(HS_WAKE_BANDS, sizeof(*band));
	double sxx = 0, sxy = 0, syy = 0, n = 0, used = 0, res;

	if (!band)
		return false;
	for (unsigned int i = 1; i < h->n; i++) {
		const struct hs_whatif_rec *a = &h->rec[i - 1];
		uint64_t y = wake_exact_ttw(&h->rec[i]);
		struct hs_wake_band *b;
		double x;

		if (a->woken == HS_WOKEN_UNKNOWN || !a->reliable || y == UINT64_MAX)
			continue;
		x = (double)(a->ns - a->woken);
		b = &band[wake_band_of(a->woken)];
		b->n++;
		b->sx += x;
		b->sy += (double)y;
		b->sxx += x * x;
		b->sxy += x * (double)y;
		b->syy += (double)y * (double)y;
	}
	for (unsigned int k = 0; k < HS_WAKE_BANDS; k++) {
		const struct hs_wake_band *b = &band[k];

		if (b->n < 2)
			continue;
		sxx += b->sxx - b->sx * b->sx / b->n;
		sxy += b->sxy - b->sx * b->sy / b->n;
		syy += b->syy - b->sy * b->sy / b->n;
		n += b->n;
		used++;
	}
	free(band);
	out->timed_pairs = (uint64_t)n;
	if (n < HS_WAKE_MIN_TIMED || sxx <= 0 || n <= used + 1)
		return false;
	out->slope = sxy / sxx;
	res = (syy - out->slope * sxy) / (n - used - 1);
	out->slope_se = res > 0 ? sqrt(res / sxx) : 0;
	if (out->slope >= -0.25 &&
	    out->slope - HS_WAKE_SLOPE_Z * out->slope_se > -0.5)
		out->model = HS_WAKE_CLOSED;
	else if (out->slope < -0.25 && out->slope + HS_WAKE_SLOPE_Z * out->slope_se < 0)
		out->model = HS_WAKE_OPEN;
	else
		return false;
	out->supported = out->from_timed = true;
	return true;
}

/*
 * The wake model of the buffered halts: the timed waits' slope where it
 * decides; else pairs whose second halt is a hit, compared among those
 * polled with the same window by their first quartiles (open loop, the
 * time from a halt's end to the next wake is Δ shorter after a wait than
 * after a hit); HS_WAKE_MIN_PAIRS matched pairs decide (doc/INTERNALS.md,
 * "The wake model").
 */
void hs_whatif_wake_choose(const struct hs_whatif_halts *h, const struct hs_whatif_delta *d,
			   struct hs_wake_choice *out)
{
	struct hs_wake_pair *pr = malloc(sizeof(*pr) * (h->n ? h->n : 1));
	double wsum = 0, dsum = 0;
	unsigned int n, i = 0;

	memset(out, 0, sizeof(*out));
	if (whatif_wake_timed(h, out) || !pr) {
		free(pr);
		return;
	}
	n = wake_pairs(h, pr);
	qsort(pr, n, sizeof(*pr), wake_pair_cmp);
	while (i < n) {
		unsigned int j = i, k;

		while (j < n && pr[j].bucket == pr[i].bucket && !pr[j].hit)
			j++;
		k = j;
		while (k < n && pr[k].bucket == pr[i].bucket)
			k++;
		/* [i, j) waits, [j, k) hits, each sorted by x */
		if (j - i >= 8 && k - j >= 8) {
			double wt = j - i < k - j ? j - i : k - j;

			dsum += wt * ((double)pr[j + (k - j) / 4].x - (double)pr[i + (j - i) / 4].x);
			wsum += wt;
		}
		i = k;
	}
	free(pr);
	out->pairs = (uint64_t)wsum;
	out->shift_ns = wsum ? dsum / wsum : 0;
	out->supported = wsum >= HS_WAKE_MIN_PAIRS && d->hi >= HS_WHATIF_DELTA_FLOOR;
	if (out->supported && out->shift_ns > (d->delta + d->hi) / 4.0)
		out->model = HS_WAKE_OPEN;
}

void hs_whatif_delta_estimate(const struct hs_whatif_halts *h, struct hs_whatif_delta *d)
{
	memset(d, 0, sizeof(*d));
	d->delta = HS_WHATIF_DEFAULT_DELTA;
	whatif_delta_point(h, d);
	whatif_delta_range(h, d);
}
