// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-vCPU what-if: every candidate maximum window is replayed with the
 * era's exact adaptive rules (lib/sim.c) over the recorded times to wake.
 *
 * The time to wake D of a halt is its ns when it was a poll hit, and its ns
 * minus the wake-up overhead Δ when it waited. Δ has to be known before the
 * first halt is replayed, so the first HS_WHATIF_BUFFER halts of a vCPU are
 * kept (a bounded buffer), Δ is estimated from them, they are replayed, and
 * every later halt streams straight through: memory is constant per vCPU.
 *
 * Δ estimate. For a wait the kernel measured ns = poll window W + the rest of
 * the time to wake past the window + Δ, so s = ns - W >= Δ for a poll miss
 * (W > 0) and s = ns >= Δ for a wait without polling (W == 0). The floor of
 * these samples is Δ: wakes that land just after the window end give
 * s close to Δ. The estimate is the smallest sample, ignoring samples
 * below HS_WHATIF_DELTA_FLOOR (1 us: no schedule-out and back is that
 * quick, so such a sample is a halt we misread). The smallest sample is
 * also the largest Δ that keeps every recorded miss a miss in the replay
 * (D = ns - Δ >= window): a larger one would turn misses into hits and send
 * the replay down another path, a smaller one only makes the replay count a
 * few hits less at larger windows, so the error is on the safe side. It is
 * taken 5% below that sample: only the first halts are looked at, and a
 * later wake landing even closer to the window end must still replay as
 * the miss it was.
 *
 * Under contention that floor collapses: KVM stops polling as soon as
 * another task is runnable on the CPU, so a miss whose poll was cut ends
 * anywhere from Δ - W to Δ past its window (an overcommitted host gave
 * 1.2 us for a Δ of about 28). Two defences. Halts whose poll the sched
 * events show cut (poll_cut_ns < W: another task runnable, or the vCPU
 * thread asleep before its window ran out) are left out: their s bounds
 * nothing. Without sched events the cut polls still show: a sample below
 * the 1 us floor cannot come from a poll that ran its window, so each one
 * is evidence of a cut. Their companions that landed above the floor but
 * below Δ cannot be told apart, and they are fewer than those below it
 * (a cut at a uniform moment of a window W lands within Δ of its end
 * about Δ/W of the time), so with evidence of cuts the estimate skips
 * half as many low samples as there are below the floor, plus the lowest
 * 0.5% (HS_WHATIF_DELTA_QUANTILE) for the cuts too rare to leave any
 * evidence: a low quantile instead of the minimum. Measured on the shared
 * recordings of one host: 3 vCPUs on 2 CPUs, 27.8 us -> 25.8 us against
 * 26.8 us for an uncontended exponential-gap recording (which has a few
 * cut polls too; the minimum gave 1.3 and 11.2). Without evidence of cuts
 * the minimum stands, so an uncontended replay still reproduces every
 * recorded miss.
 *
 * With fewer than HS_WHATIF_DELTA_SAMPLES samples (a vCPU whose window
 * settled early, so nearly every halt is a hit) no wake may have landed
 * near the window end, and the smallest sample is only a loose upper
 * bound: the estimate is then at most HS_WHATIF_DEFAULT_DELTA (20 us, a
 * typical scheduler wake-up on x86), because overestimating Δ would make
 * periodic wakes look too long to ever grow the window on. With no sample
 * at all (the window was never known) the smallest wait bounds it the same
 * way, and with no wait at all it is the default (it then affects nothing:
 * every halt was a hit and keeps D = ns).
 *
 * Self-check. The recorded setting M is replayed too and compared halt by
 * halt with what the kernel did: poll hit (waited == 0 with a window in
 * force) and grow/shrink/none (the kvm_halt_poll_ns event before the
 * wakeup). The replay is seeded with the recorded window in force the
 * first time it is known, and again after lost events (the chain is broken
 * there); otherwise it runs free like the candidates do, so a wrong rule
 * shows as the divergence it causes in the what-if numbers.
 *
 * Inferring M. Every reliable, valid halt with a known window W bounds the
 * maximum in force by the kernel's rules, whatever the metadata says: a
 * grow means ns < M; a shrink means ns > M; no event with W == 0 and ns > 0
 * means ns >= M (else it would have grown); a window polled with (the
 * event's old value, after the 6.1+ entry clamp; on 4.4/5.x, where grows
 * clamp to M, any window and a grow's new value) is <= M; on 6.1+ an
 * event whose old is below the previous event's new shows the entry cut,
 * so that old is M (>= M too). The bounds do
 * not depend on M, so they are gathered as halts arrive. When the recorded
 * M is unknown, or known and outside the bounds (a VMM that sets its own
 * with KVM_CAP_HALT_POLL: the module parameter is then not the maximum in
 * force), M is taken where operators set it, at round numbers: between
 * two bounds the roundest value (a multiple of 1000000, else 500000,
 * 100000, 50000, 10000, 1000: the smallest such), with only a lower bound
 * that rounded up to a multiple of 10000 (or else 1000), else the lower
 * bound itself; bounds that contradict each other
 * (M changed during the recording) keep the recorded value. Within the
 * bounds a likely value wins where there is one: the largest window polled
 * that the grow and shrink rules do not reach from grow_start (only a cut
 * to M explains it), or on 6.1+ the largest window a grow carried on to
 * (unproven: it may have been cut). The replay follows the bounds as they
 * are kept up to date (as 6.1+ reads M live).
 * A trace without any bound (only hits) gives 0.
 *
 * Back-filled windows. The account learns the window of halts that ran
 * before it was known only later (the next event's old value, or the
 * rules at the end: lib/account.c). hs_whatif_backfill() gives it for the
 * latest such run while it is still in the buffer; it is written into
 * those halts after Δ is estimated (Δ keeps using only the windows known
 * at each halt, as before) and before they are replayed, so the
 * self-check compares them too, and their windows bound M like any other.
 */
#include <stdlib.h>
#include <string.h>

#include "whatif.h"
#include "whatif_batch.h"
#include "winstate.h"
#include "whatif_iv.h"

#define HS_WHATIF_BUFFER 4096
#define HS_WHATIF_DEFAULT_DELTA 20000
#define HS_WHATIF_DELTA_SAMPLES 32
#define HS_WHATIF_DELTA_FLOOR 1000
#define HS_WHATIF_DELTA_QUANTILE 200	/* past cut polls: the 0.5% quantile, not the minimum */
#define HS_WHATIF_BACKFILLS 16
#define HS_WHATIF_DELTA_SPAN 50000
#define HS_WAKE_MIN_PAIRS 16

const uint64_t hs_whatif_default_candidates[] = {
	0, 10000, 20000, 50000, 100000, 150000, 200000, 300000, 400000,
	500000, 800000, 1000000,
};
const unsigned int hs_whatif_default_ncandidates =
	sizeof(hs_whatif_default_candidates) / sizeof(hs_whatif_default_candidates[0]);

/* One buffered halt: what hs_whatif_halt was given, compacted. */
struct hs_whatif_rec {
	uint64_t ts;		/* the wakeup's timestamp, 0 unknown */
	uint64_t ns;
	int64_t window;		/* window in force, -1 unknown */
	uint64_t poll_cut;	/* hs_whatif_halt's poll_cut_ns */
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

static int hs_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static unsigned int hs_whatif_copy_candidates(uint64_t *dst, const struct hs_whatif_opts *o)
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
	qsort(dst, n, sizeof(*dst), hs_u64_cmp);
	/* drop duplicates so that rows stay one per value */
	unsigned int u = 0;

	for (unsigned int i = 0; i < n; i++)
		if (!u || dst[u - 1] != dst[i])
			dst[u++] = dst[i];
	return u;
}

static void hs_whatif_base_params(const struct hs_whatif_opts *o, struct hs_sim_params *p)
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
	w->ncand = hs_whatif_copy_candidates(w->opts.candidates, opts);
	w->opts.ncandidates = w->ncand;
	hs_whatif_base_params(&w->opts, &p);
	for (unsigned int i = 0; i < w->ncand; i++) {
		p.max_ns = w->opts.candidates[i];
		hs_sim_init(&w->cand[i], &p);
		w->batch.max[i] = p.max_ns;
	}
	p.max_ns = opts->recorded_max_ns >= 0 ? (uint64_t)opts->recorded_max_ns : 0;
	w->max_known = opts->recorded_max_ns >= 0;
	w->max_source = w->max_known ? HS_MAX_MODULE : HS_MAX_NONE;
	hs_sim_init(&w->check, &p);
	w->min_wait = UINT64_MAX;
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

/* The window the kernel polled with during this halt, -1 unknown. */
static int64_t hs_whatif_window(const struct hs_whatif *w, const struct hs_whatif_rec *r)
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

static uint64_t hs_whatif_time_to_wake(const struct hs_whatif *w, const struct hs_whatif_rec *r)
{
	if (!r->waited)
		return r->ns;
	return r->ns > w->delta ? r->ns - w->delta : 0;
}

/*
 * A miss's excess over its window (see the comment at the top), or
 * UINT64_MAX when the halt says nothing of Δ. *cut_evidence is set for a
 * poll that must have been cut: its excess is below any wake-up overhead.
 */
static uint64_t hs_whatif_delta_sample(const struct hs_whatif *w, const struct hs_whatif_rec *r,
				       bool *cut_evidence)
{
	int64_t win = hs_whatif_window(w, r);

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

static void hs_whatif_estimate_delta(struct hs_whatif *w)
{
	uint64_t *samples = w->nbuf ? malloc(sizeof(*samples) * w->nbuf) : NULL;
	unsigned int n = 0, cut = 0, rank;

	for (unsigned int i = 0; samples && i < w->nbuf; i++) {
		bool evidence;
		uint64_t sm = hs_whatif_delta_sample(w, &w->buf[i], &evidence);

		cut += evidence;
		if (sm != UINT64_MAX)
			samples[n++] = sm;
	}
	if (n) {
		qsort(samples, n, sizeof(*samples), hs_u64_cmp);
		rank = cut ? n / HS_WHATIF_DELTA_QUANTILE + cut / 2 : 0;
		if (rank >= n)
			rank = n - 1;
		w->delta = samples[rank] - samples[rank] / 20;
	} else if (w->min_wait != UINT64_MAX) {
		w->delta = w->min_wait;
	}
	if (n < HS_WHATIF_DELTA_SAMPLES && w->delta > HS_WHATIF_DEFAULT_DELTA)
		w->delta = HS_WHATIF_DEFAULT_DELTA;
	free(samples);
}

uint64_t hs_whatif_max_pick(uint64_t lo, uint64_t hi)
{
	/* bounded on both sides, the roundest value between; else lo rounded up a little */
	static const uint64_t roundest[] = { 1000000, 500000, 100000, 50000, 10000, 1000 };
	static const uint64_t near[] = { 10000, 1000 };
	const uint64_t *steps = hi == UINT64_MAX ? near : roundest;
	unsigned int n = hi == UINT64_MAX ? 2 : 6;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t m = (lo + steps[i] - 1) / steps[i] * steps[i];

		if (m >= lo && m <= hi)
			return m;
	}
	return lo;
}

static void hs_whatif_bound_lo(struct hs_whatif *w, uint64_t lo)
{
	if (lo > w->max_lo)
		w->max_lo = lo;
}

static void hs_whatif_bound_hi(struct hs_whatif *w, uint64_t hi)
{
	if (hi < w->max_hi)
		w->max_hi = hi;
}

/*
 * A window the grow and shrink rules reach from grow_start alone; one they
 * do not was cut to M at some point (M itself, or M shrunk and grown back).
 */
static bool hs_whatif_on_lattice(const struct hs_sim_params *p, uint64_t win)
{
	uint64_t up = p->grow_start;

	if (!win || !p->grow_start)
		return true;
	for (unsigned int k = 0; k < 40 && up <= HS_SIM_WINDOW_MAX; k++) {
		uint64_t down = up;

		for (unsigned int j = 0; j < 40 && down >= win; j++) {
			if (down == win)
				return true;
			if (p->shrink < 2)
				break;
			down /= p->shrink;
		}
		if (p->grow < 2)
			break;
		up *= p->grow;
	}
	return false;
}

/* What one halt tells of M, whatever M is taken to be (see the top). */
static void hs_whatif_bound(struct hs_whatif *w, const struct hs_whatif_rec *r)
{
	bool cut = w->prev_new_known && r->reliable && r->has_change &&
		   r->chg_old < w->prev_new;

	if (r->has_change || !r->reliable) {
		w->prev_new = r->chg_new;
		w->prev_new_known = r->has_change && r->reliable;
	}
	if (!r->reliable || !r->valid)
		return;
	if (r->has_change) {
		/* 6.1+ cut the last event's value to M at this halt's entry: that is M */
		if (cut && w->check.rules & HS_RULE_MAX_LIVE)
			hs_whatif_bound_hi(w, r->chg_old);
		hs_whatif_bound_lo(w, r->chg_old);
		/* the largest window that only a cut explains is likely M itself */
		if (r->chg_old > w->max_soft && !hs_whatif_on_lattice(&w->check.p, r->chg_old))
			w->max_soft = r->chg_old;
		if (r->grow) {
			hs_whatif_bound_lo(w, r->ns + 1);
			if (w->check.rules & HS_RULE_GROW_CLAMP)
				hs_whatif_bound_lo(w, r->chg_new);
		} else if (r->chg_old > 0 && r->ns > r->chg_old) {
			hs_whatif_bound_hi(w, r->ns - 1);
		}
		return;
	}
	if (r->window == 0 && r->ns)
		hs_whatif_bound_hi(w, r->ns);
	/*
	 * 6.1+: a window the account carried on from a grow may be above M
	 * until cut, so it bounds nothing; with nothing against it, it is still
	 * the likeliest M (only the pick uses it)
	 */
	else if (r->window > 0 && !(w->check.rules & HS_RULE_MAX_LIVE))
		hs_whatif_bound_lo(w, (uint64_t)r->window);
	else if (r->window > 0 && (uint64_t)r->window > w->max_soft)
		w->max_soft = (uint64_t)r->window;
}

/* M from the bounds: the likely value where they allow it, else the roundest between. */
static uint64_t hs_whatif_pick(uint64_t lo, uint64_t hi, uint64_t soft)
{
	return soft >= lo && soft <= hi && soft ? soft : hs_whatif_max_pick(lo, hi);
}

/* The M the self-check replays, from the recorded one and the bounds. */
static void hs_whatif_infer_max(struct hs_whatif *w)
{
	uint64_t lo = w->max_lo, hi = w->max_hi, rec = (uint64_t)w->opts.recorded_max_ns;
	bool bounded = lo > 0 || hi != UINT64_MAX;

	if (w->max_known && (!bounded || lo > hi || (lo <= rec && rec <= hi))) {
		w->max_source = HS_MAX_MODULE;
		w->check.p.max_ns = rec;
		return;
	}
	if (!bounded)
		return;
	w->max_source = w->max_known ? HS_MAX_CONTRADICTED : HS_MAX_INFERRED;
	w->check.p.max_ns = hs_whatif_pick(lo, hi, w->max_soft);
}

/* Replays one halt through the recorded setting and compares. */
static void hs_whatif_check(struct hs_whatif *w, const struct hs_whatif_rec *r)
{
	int64_t win = hs_whatif_window(w, r);
	int rec_change = r->has_change ? (r->grow ? 1 : -1) : 0;
	bool hit, rec_hit, compare;
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
	change = hs_sim_halt_cut(&w->check, hs_whatif_time_to_wake(w, r), r->valid, r->poll_cut,
				 &hit);
	if (!compare)
		return;
	/* waited == 0 without a window is a wake that beat the block, not a poll hit */
	rec_hit = !r->waited && win != 0;
	w->compared++;
	if (hit == rec_hit && change == rec_change)
		w->agreeing++;
}

/* Grows by doubling up to the cap; out of memory only ends the kept sequence early. */
static void hs_whatif_keep_gap(struct hs_whatif *w, uint64_t d)
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
static void hs_whatif_counts_store(struct hs_whatif *w)
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
static void hs_whatif_point_counts(const struct hs_whatif *w, uint64_t *hits, uint64_t *poll)
{
	for (unsigned int i = 0; i < w->ncand; i++) {
		hits[i] = w->open ? w->open->sim[i].hits : w->batch.hits[i];
		poll[i] = w->open ? w->open->sim[i].poll_ns : w->batch.poll_ns[i];
	}
}

static void hs_whatif_iv_feed(struct hs_whatif *w, const struct hs_whatif_rec *r, bool final)
{
	uint64_t hits[HS_WHATIF_MAX_CANDIDATES], poll[HS_WHATIF_MAX_CANDIDATES];

	if (!w->iv)
		return;
	if (!final) {
		hs_whatif_iv_halt(w->iv, r->ns, r->waited, r->valid, r->poll_cut);
		if (!hs_whatif_iv_tick(w->iv))
			return;
	}
	hs_whatif_point_counts(w, hits, poll);
	hs_whatif_iv_counts(w->iv, hits, poll, final);
}

static void hs_whatif_replay(struct hs_whatif *w, const struct hs_whatif_rec *r)
{
	uint64_t d = hs_whatif_time_to_wake(w, r);

	if (w->opts.keep_gaps)
		hs_whatif_keep_gap(w, d);

	if (w->open)
		hs_whatif_open_halt(w->open, w->ncand, d, w->delta, r->waited, r->valid,
				    r->poll_cut);
	else if (w->ncand)
		hs_whatif_batch_halt(&w->batch, w->ncand, &w->cand[0].p, d, r->valid,
				     r->poll_cut);
	hs_whatif_iv_feed(w, r, false);
	hs_whatif_infer_max(w);
	hs_whatif_check(w, r);
}

/* A back-filled run's halts, lost-event ones aside, take its window. */
static void hs_whatif_apply_fills(struct hs_whatif *w)
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

void hs_whatif_max_merge(struct hs_whatif *w, const struct hs_selfcheck *o)
{
	uint64_t lo = o->max_lo > w->max_lo ? o->max_lo : w->max_lo;
	uint64_t hi = o->max_hi < w->max_hi ? o->max_hi : w->max_hi;

	/* bounds that disagree (M changed, or not one VM after all) stay apart */
	if (lo > hi)
		return;
	w->max_lo = lo;
	w->max_hi = hi;
	if (o->max_soft > w->max_soft)
		w->max_soft = o->max_soft;
}

int64_t hs_whatif_max_ns(struct hs_whatif *w, enum hs_max_source *src)
{
	hs_whatif_infer_max(w);
	if (src)
		*src = w->max_source;
	return w->max_source == HS_MAX_NONE ? -1 : (int64_t)w->check.p.max_ns;
}

void hs_max_in_force_init(struct hs_max_in_force *m)
{
	memset(m, 0, sizeof(*m));
	m->max_ns = -1;
	m->module_ns = -1;
	m->source = HS_MAX_NONE;
	m->hi = UINT64_MAX;
}

void hs_max_in_force_add(struct hs_max_in_force *m, const struct hs_selfcheck *sc)
{
	if (sc->module_max_ns >= 0)
		m->module_ns = sc->module_max_ns;
	if (sc->max_lo == 0 && sc->max_hi == UINT64_MAX)
		return;
	m->nvcpus++;
	if (sc->max_lo > m->lo)
		m->lo = sc->max_lo;
	if (sc->max_hi < m->hi)
		m->hi = sc->max_hi;
	if (sc->max_soft > m->soft)
		m->soft = sc->max_soft;
}

/* As hs_whatif_infer_max(), over the VM's bounds. */
void hs_max_in_force_decide(struct hs_max_in_force *m)
{
	bool bounded = m->nvcpus > 0;
	uint64_t rec = (uint64_t)m->module_ns;

	if (m->module_ns >= 0 && (!bounded || m->lo > m->hi || (m->lo <= rec && rec <= m->hi))) {
		m->max_ns = m->module_ns;
		m->source = HS_MAX_MODULE;
	} else if (bounded) {
		m->max_ns = (int64_t)hs_whatif_pick(m->lo, m->hi, m->soft);
		m->source = m->module_ns >= 0 ? HS_MAX_CONTRADICTED : HS_MAX_INFERRED;
	}
}

const char *hs_max_source_name(enum hs_max_source s)
{
	static const char *const names[] = { "module", "inferred", "inferred_contradicts_module",
					     "unknown" };

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

/*
 * The buffer is full (or the stream ends) while the window of its latest
 * run is still untold: the rules decide from the run so far (the account
 * decides again from the whole run at its end, for the counts).
 */
static void hs_whatif_decide_open_run(struct hs_whatif *w)
{
	enum hs_window_source src;
	enum hs_unknown_reason why;
	struct hs_window_seg seg;
	int64_t win;
	bool lower = false;

	if (!w->unres_open)
		return;
	hs_seg_open(&seg, HS_WINDOW_UNKNOWN, 0);
	for (unsigned int i = w->unres_from; i < w->nbuf; i++) {
		const struct hs_whatif_rec *r = &w->buf[i];

		if (r->reliable && !r->has_change && r->window < 0)
			hs_seg_add(&seg, r->ns, r->waited, r->valid);
	}
	win = seg.halts ? hs_seg_decide(&seg, hs_whatif_max_ns(w, NULL), &src, &why, &lower) :
		HS_WINDOW_UNKNOWN;
	hs_whatif_backfill(w, win, lower);
}

/*
 * The range of Δ the interval replays. Δ is a floor (see the estimate):
 * most wake-ups cost more than the quickest, and a recording at 0 cannot
 * tell a wait's time to wake from its overhead. The low end is half the
 * estimate, the high end the tenth percentile of the same samples (of the
 * waits themselves when no window was known), at most 50 us above it.
 */
static void hs_whatif_delta_range(struct hs_whatif *w)
{
	uint64_t *s = malloc(sizeof(*s) * (w->nbuf ? w->nbuf : 1));
	unsigned int n = 0;

	w->delta_lo = w->delta / 2;
	w->delta_hi = w->delta;
	if (!s)
		return;
	for (int pass = 0; pass < 2 && !n; pass++)
		for (unsigned int i = 0; i < w->nbuf; i++) {
			const struct hs_whatif_rec *r = &w->buf[i];
			int64_t win = hs_whatif_window(w, r);

			if (!r->waited || !r->reliable || !r->valid)
				continue;
			if (pass == 0 && (win < 0 || r->ns < (uint64_t)win + HS_WHATIF_DELTA_FLOOR))
				continue;
			if (pass == 1 && r->ns < HS_WHATIF_DELTA_FLOOR)
				continue;
			s[n++] = r->ns - (pass == 0 ? (uint64_t)win : 0);
		}
	if (n) {
		qsort(s, n, sizeof(*s), hs_u64_cmp);
		uint64_t p10 = s[n / 10], cap = w->delta + HS_WHATIF_DELTA_SPAN;

		w->delta_hi = p10 > cap ? cap : p10 > w->delta ? p10 : w->delta;
	}
	free(s);
}

/* One pair of consecutive halts whose second is a poll hit. */
struct hs_wake_pair {
	uint64_t x;		/* first halt's end to the second's end (its wake) */
	uint64_t bucket;	/* the window the second halt polled with */
	bool hit;		/* the first halt was a poll hit */
};

static int hs_wake_pair_cmp(const void *a, const void *b)
{
	const struct hs_wake_pair *x = a, *y = b;

	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	if (x->hit != y->hit)
		return x->hit ? 1 : -1;
	return x->x < y->x ? -1 : x->x > y->x;
}

/* Pairs whose second halt is a hit: its end is its wake, exactly. */
static unsigned int hs_wake_pairs(const struct hs_whatif *w, struct hs_wake_pair *pr)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i + 1 < w->nbuf; i++) {
		const struct hs_whatif_rec *a = &w->buf[i], *b = &w->buf[i + 1];
		int64_t win = hs_whatif_window(w, b);

		if (!a->ts || b->ts <= a->ts || !a->reliable || !b->reliable || !a->valid ||
		    !b->valid || b->waited || win <= 0)
			continue;
		pr[n].x = b->ts - a->ts;
		pr[n].bucket = (uint64_t)win;
		pr[n].hit = !a->waited && hs_whatif_window(w, a) != 0;
		n++;
	}
	return n;
}

/*
 * Closed loop, the next wake comes a fixed time after the next halt
 * starts, whatever the halt before it did; open loop, it comes at its own
 * absolute time, so the time from a halt's end to the next wake is Δ
 * shorter after a wait (which ended Δ late) than after a hit. Only second
 * halts that were hits show their wake exactly, and which of them hit
 * depends on their window, which the first halt's outcome moved (a miss
 * grows or shrinks it): so pairs are compared among second halts polled
 * with the same window (at least 8 of each kind). Being a hit cuts the
 * second halts' times to wake at the window from above, so the shift shows
 * whole only toward the bottom: the first quartiles' difference, weighted
 * by the smaller count. At least HS_WAKE_MIN_PAIRS matched pairs decide; a
 * shift above half the middle of Δ's range is open loop (the estimate is a
 * floor, which contention can press near 0).
 */
static void hs_whatif_choose_wake(struct hs_whatif *w)
{
	struct hs_wake_pair *pr = malloc(sizeof(*pr) * (w->nbuf ? w->nbuf : 1));
	double wsum = 0, dsum = 0;
	unsigned int n, i = 0;

	memset(&w->wake, 0, sizeof(w->wake));
	if (!pr)
		return;
	n = hs_wake_pairs(w, pr);
	qsort(pr, n, sizeof(*pr), hs_wake_pair_cmp);
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
	w->wake.pairs = (uint64_t)wsum;
	w->wake.shift_ns = wsum ? dsum / wsum : 0;
	w->wake.supported = wsum >= HS_WAKE_MIN_PAIRS && w->delta_hi >= HS_WHATIF_DELTA_FLOOR;
	if (w->wake.supported && w->wake.shift_ns > (w->delta + w->delta_hi) / 4.0)
		w->wake.model = HS_WAKE_OPEN;
}

/* With Δ known: the wake model, the point's replay for it, and the interval's replays. */
static void hs_whatif_choose_models(struct hs_whatif *w)
{
	struct hs_sim_params p = w->cand[0].p;

	hs_whatif_delta_range(w);
	hs_whatif_choose_wake(w);
	if (w->wake.model == HS_WAKE_OPEN && w->ncand) {
		w->open = malloc(sizeof(*w->open));
		if (w->open)
			hs_whatif_open_init(w->open, &p, w->opts.candidates, w->ncand);
		else
			w->wake.model = HS_WAKE_CLOSED;
	}
	if (w->iv)
		hs_whatif_iv_start(w->iv, w->delta, w->delta_lo, w->delta_hi, w->open != NULL);
}

/* Δ is now fixed: replay what was buffered and stream from here on. */
static void hs_whatif_start_streaming(struct hs_whatif *w)
{
	if (w->streaming)
		return;
	hs_whatif_decide_open_run(w);
	/* An inferred M must be known before the first replayed halt (and Δ clamps with it). */
	hs_whatif_infer_max(w);
	hs_whatif_estimate_delta(w);
	for (unsigned int i = 0; i < w->ncand; i++)
		w->cand[i].p.wake_overhead_ns = w->delta;
	w->check.p.wake_overhead_ns = w->delta;
	hs_whatif_choose_models(w);
	hs_whatif_apply_fills(w);
	for (unsigned int i = 0; i < w->nbuf; i++)
		hs_whatif_replay(w, &w->buf[i]);
	free(w->buf);
	w->buf = NULL;
	w->nbuf = w->capbuf = 0;
	w->streaming = true;
	w->unres_open = false;
}

static bool hs_whatif_buffer(struct hs_whatif *w, const struct hs_whatif_rec *r)
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
	if (r->waited && r->ns < w->min_wait)
		w->min_wait = r->ns;
	return true;
}

void hs_whatif_halt(struct hs_whatif *w, const struct hs_wakeup *wakeup,
		    const struct hs_poll_change *change, int64_t window_ns,
		    bool data_reliable, uint64_t poll_cut_ns)
{
	hs_whatif_halt_ts(w, 0, wakeup, change, window_ns, data_reliable, poll_cut_ns);
}

void hs_whatif_halt_ts(struct hs_whatif *w, uint64_t ts, const struct hs_wakeup *wakeup,
		       const struct hs_poll_change *change, int64_t window_ns,
		       bool data_reliable, uint64_t poll_cut_ns)
{
	struct hs_whatif_rec r = {
		.ts = ts,
		.ns = wakeup->ns,
		.window = window_ns < 0 ? -1 : window_ns,
		.poll_cut = poll_cut_ns,
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
		bool kept = hs_whatif_buffer(w, &r);

		if (kept && w->nbuf < HS_WHATIF_BUFFER)
			return;
		/* buffer full (or no memory for it): fix Δ with what we have */
		hs_whatif_start_streaming(w);
		if (kept)
			return;
	}
	hs_whatif_replay(w, &r);
}

void hs_whatif_finish(struct hs_whatif *w, uint64_t span_ns)
{
	hs_whatif_start_streaming(w);
	hs_whatif_iv_feed(w, NULL, true);
	hs_whatif_counts_store(w);
	w->span_ns = span_ns;
}

static void hs_whatif_row_fill(struct hs_whatif_row *row, const struct hs_sim *s,
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

static void hs_whatif_row_point_only(struct hs_whatif_row *row)
{
	row->hit_rate_low = row->hit_rate_high = row->hit_rate;
	row->poll_cpu_s_low = row->poll_cpu_s_high = row->poll_cpu_s;
}

unsigned int hs_whatif_rows(const struct hs_whatif *w, struct hs_whatif_row *rows)
{
	for (unsigned int i = 0; i < w->ncand; i++) {
		hs_whatif_row_fill(&rows[i], &w->cand[i], w->span_ns);
		if (w->iv)
			hs_whatif_iv_row(w->iv, i, &rows[i]);
		else
			hs_whatif_row_point_only(&rows[i]);
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
	hs_whatif_base_params(&w->opts, p);
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
