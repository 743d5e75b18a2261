// SPDX-License-Identifier: GPL-2.0-only
/*
 * The suggestion: which halt_poll_ns to set, why, and how sure we are.
 *
 * Method. Every candidate M has a replayed hit count H(M) and polling CPU
 * C(M) (lib/whatif.c). A hit saves about one wake-up overhead Δ of latency;
 * polling costs CPU. With λ the price of one CPU-ns in latency-ns, the
 * utility U(M) = Δ·H(M) − λ·C(M) is maximal where the marginal hits per
 * CPU-ns fall below λ/Δ: the knee of the hit-rate/CPU curve. Put
 * differently, going one candidate up is worth it while each extra hit
 * costs less than Δ/λ of polling. Only candidates whose polling stays
 * within the per-vCPU CPU budget on every vCPU are eligible; 0 always is.
 *
 *   objective  λ     pays per extra hit  default budget (% of one CPU per vCPU)
 *   latency    0.02  50·Δ                50
 *   balanced   0.2    5·Δ                10
 *   cpu        1.0    1·Δ                 2
 *
 * Δ for pricing is the halts-weighted estimate of the vCPUs, kept within
 * 5..100 us so that one odd estimate cannot make polling free or useless.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advice.h"
#include "advice_model.h"
#include "cliff.h"
#include "era.h"
#include "report.h"

#define HS_ADV_DELTA_MIN 5000
#define HS_ADV_DELTA_MAX 100000
#define HS_ADV_MIN_VCPU_HALTS 50	/* vCPUs with fewer do not set the budget */
#define HS_ADV_CUT_PCT 1.0		/* misses cut short, % of them, that cap the suggestion */

/* What one scope (the host or one VM) is judged on. */
struct hs_adv_scope {
	const struct hs_whatif_row *rows;
	unsigned int n;
	double vcpu_pct[HS_WHATIF_MAX_CANDIDATES];	/* worst vCPU per candidate */
	unsigned int nvcpus;
	int tgid;			/* vCPUs of this process; -2 all */
	int best;			/* index into rows, -1 none */
	int off_cliff_from;		/* the best by the point, moved off a cliff; -1 not moved */
	double utility[HS_WHATIF_MAX_CANDIDATES];
};

struct hs_adv_ctx {
	const struct hs_report *rep;
	const struct hs_adv_objective *obj;
	double budget;
	double delta;			/* for pricing */
	uint64_t ceiling_ns;		/* no suggestion above it; UINT64_MAX none */
	FILE *text;
	char *buf;
	size_t len;
	struct hs_advice *adv;
};

#define hs_adv_say(c, ...) hs_adv_text_say((c)->text, __VA_ARGS__)

static bool hs_adv_vcpu_in(const struct hs_report_vcpu *v, int tgid)
{
	return tgid == -2 || v->tgid == tgid;
}

/* Worst per-vCPU polling CPU per candidate; the budget is per vCPU. */
static void hs_adv_scope_pct(const struct hs_report *rep, struct hs_adv_scope *s)
{
	unsigned int counted = 0;

	memset(s->vcpu_pct, 0, sizeof(s->vcpu_pct));
	for (unsigned int i = 0; i < rep->nvcpus; i++) {
		const struct hs_report_vcpu *v = &rep->vcpus[i];

		if (!hs_adv_vcpu_in(v, s->tgid) || v->stats.halts < HS_ADV_MIN_VCPU_HALTS)
			continue;
		counted++;
		for (unsigned int j = 0; j < s->n && j < v->n_what_if; j++)
			if (v->what_if[j].poll_cpu_pct > s->vcpu_pct[j])
				s->vcpu_pct[j] = v->what_if[j].poll_cpu_pct;
	}
	if (counted)
		return;
	/* only short-lived vCPUs: fall back to the average */
	for (unsigned int j = 0; j < s->n; j++)
		s->vcpu_pct[j] = s->rows[j].poll_cpu_pct / (s->nvcpus ? s->nvcpus : 1);
}

/* The utility at the pessimistic end of the row's interval: fewest hits, most polling. */
static double hs_adv_utility_low(const struct hs_adv_ctx *c, const struct hs_whatif_row *r)
{
	return c->delta * r->hit_rate_low * (double)r->halts -
	       c->obj->lambda * r->poll_cpu_s_high * 1e9;
}

/*
 * A best candidate on a cliff gives way to the candidate off every cliff
 * that is better at the pessimistic end of its interval: where a few
 * microseconds decide, the point is a gamble.
 */
static void hs_adv_scope_off_cliff(const struct hs_adv_ctx *c, struct hs_adv_scope *s)
{
	int alt = -1;
	double alt_u = 0;

	s->off_cliff_from = -1;
	if (s->best < 0 || !hs_cliff_at(s->rows, s->n, (unsigned int)s->best))
		return;
	for (unsigned int j = 0; j < s->n; j++) {
		double u = hs_adv_utility_low(c, &s->rows[j]);

		if ((j && s->vcpu_pct[j] > c->budget) || hs_cliff_at(s->rows, s->n, j) ||
		    s->rows[j].halt_poll_ns > c->ceiling_ns)
			continue;
		if (alt < 0 || u > alt_u) {
			alt = (int)j;
			alt_u = u;
		}
	}
	if (alt >= 0 && alt_u > hs_adv_utility_low(c, &s->rows[s->best])) {
		s->off_cliff_from = s->best;
		s->best = alt;
	}
}

static void hs_adv_scope_pick(const struct hs_adv_ctx *c, struct hs_adv_scope *s)
{
	double best_u = 0;

	s->best = -1;
	for (unsigned int j = 0; j < s->n; j++) {
		const struct hs_whatif_row *r = &s->rows[j];

		s->utility[j] = c->delta * (double)r->hits - c->obj->lambda * r->poll_cpu_s * 1e9;
		if ((j && s->vcpu_pct[j] > c->budget) || r->halt_poll_ns > c->ceiling_ns)
			continue;
		/* strictly better only: ties go to the smaller window */
		if (s->best < 0 || s->utility[j] > best_u) {
			s->best = (int)j;
			best_u = s->utility[j];
		}
	}
	hs_adv_scope_off_cliff(c, s);
}

/*
 * Every vCPU's model told by its timed waits: the other model is refuted,
 * and left out of the intervals. False when any vCPU was told otherwise.
 */
static bool hs_adv_wake_timed(struct hs_adv_ctx *c, unsigned int open, unsigned int closed)
{
	const struct hs_report_vcpu *busiest = NULL;

	for (unsigned int i = 0; i < c->rep->nvcpus; i++) {
		const struct hs_report_vcpu *v = &c->rep->vcpus[i];

		if (!v->stats.halts)
			continue;
		if (!v->wake.from_timed)
			return false;
		if (!busiest || v->stats.halts > busiest->stats.halts)
			busiest = v;
	}
	if (!busiest)
		return false;
	hs_adv_say(c, "Wakes are replayed %s, as the timed waits show: the time to wake after a wait moves by %.2f us (+-%.2f) per us of that wait's own overhead on the busiest vCPU, where closed loop (each wake a fixed time after its halt starts) gives 0 and open loop (wakes at absolute times, as timers and packets) about -1. The other model is left out of the intervals.",
		   !open ? "closed loop" : !closed ? "open loop" : "closed or open loop as each vCPU's trace shows",
		   busiest->wake.slope, busiest->wake.slope_se);
	return true;
}

/* Which way the wakes were replayed, and whether the trace said so. */
static void hs_adv_wake_model(struct hs_adv_ctx *c)
{
	unsigned int open = 0, closed = 0, told = 0;

	for (unsigned int i = 0; i < c->rep->nvcpus; i++) {
		const struct hs_report_vcpu *v = &c->rep->vcpus[i];

		if (!v->stats.halts)
			continue;
		open += v->wake.model == HS_WAKE_OPEN;
		closed += v->wake.model == HS_WAKE_CLOSED;
		told += v->wake.supported;
	}
	if (!open && !closed)
		return;
	if (hs_adv_wake_timed(c, open, closed))
		return;
	if (!told)
		hs_adv_say(c, "Wakes are replayed closed loop (each a fixed time after its halt starts): without poll hits and waits to compare the trace cannot tell, so the open-loop replay (wakes at absolute times, as timers and packets) is the other bound of each interval.");
	else if (!open)
		hs_adv_say(c, "Wakes are replayed closed loop, as the trace shows on %u of %u vCPUs (the next wake does not move after a poll hit); the open-loop replay bounds each interval.",
			   told, closed);
	else
		hs_adv_say(c, "Wakes are replayed open loop (at absolute times) on %u vCPU%s, where the trace shows the next wake later after a poll hit, and closed loop on %u; the other model bounds each interval.",
			   open, open == 1 ? "" : "s", closed);
}

/*
 * What a hit saves, and whence the figure: sched_waking timed the waits
 * (the busiest such vCPU's spread is quoted), or it is estimated from the
 * halts alone, which blurs every wait's time to wake by the spread.
 */
static void hs_adv_wake_overhead(struct hs_adv_ctx *c, uint64_t delta)
{
	const struct hs_report_vcpu *busiest = NULL;
	unsigned int timed = 0, waiting = 0;

	for (unsigned int i = 0; i < c->rep->nvcpus; i++) {
		const struct hs_report_vcpu *v = &c->rep->vcpus[i];

		if (!v->stats.waits)
			continue;
		waiting++;
		if (!v->wake_measured.waits)
			continue;
		timed++;
		if (!busiest || v->stats.halts > busiest->stats.halts)
			busiest = v;
	}
	if (!busiest) {
		hs_adv_say(c, "A wait costs about %.1f us more than its time to wake (estimated from the halts alone; that is what a poll hit saves). Without sched_waking each wait's time to wake is its length minus this one figure, which the overhead's spread blurs; 'haltstat record' records it unless given --no-sched.",
			   delta / 1e3);
		return;
	}
	hs_adv_say(c, "A wait costs about %.1f us more than its time to wake, as sched_waking timed the waits of %u of %u vCPUs (the busiest: %.1f us at the median, %.1f to %.1f us from the 10th to the 90th percentile, %.1f at the 99th); that is what a poll hit saves. Each timed wait is replayed with its own time to wake and overhead.",
		   delta / 1e3, timed, waiting, busiest->wake_measured.p50_ns / 1e3,
		   busiest->wake_measured.p10_ns / 1e3, busiest->wake_measured.p90_ns / 1e3,
		   busiest->wake_measured.p99_ns / 1e3);
}

/* Cliffs next to the suggestion, or the one it was moved off, in words. */
static void hs_adv_cliffs(struct hs_adv_ctx *c, const struct hs_adv_scope *s)
{
	struct hs_cliff cl[HS_WHATIF_MAX_CANDIDATES];
	unsigned int n = hs_cliffs_find(s->rows, s->n, cl, HS_WHATIF_MAX_CANDIDATES);
	bool said = false;

	if (s->off_cliff_from >= 0) {
		const struct hs_whatif_row *r = &s->rows[s->off_cliff_from];

		hs_adv_say(c, "%llu scores better on the point replay (%.1f%% hits), but it sits on a cliff (anywhere from %.1f%% to %.1f%% is as likely): %llu is the better bet at the pessimistic end of each interval.",
			   (unsigned long long)r->halt_poll_ns, 100 * r->hit_rate,
			   100 * r->hit_rate_low, 100 * r->hit_rate_high,
			   (unsigned long long)s->rows[s->best].halt_poll_ns);
	}
	for (unsigned int k = 0; k < n; k++) {
		const struct hs_cliff *x = &cl[k];
		int b = s->best, f = s->off_cliff_from;
		bool near = (b >= 0 && (unsigned int)b + 1 >= x->lo && (unsigned int)b <= x->hi + 1) ||
			    (f >= 0 && (unsigned int)f >= x->lo && (unsigned int)f <= x->hi);

		if (!near)
			continue;
		if (x->lo == x->hi)
			hs_adv_say(c, "At %llu the hit rate can land anywhere from %.0f%% to %.0f%%: the window sits close to a common time to wake, and the outcome depends on a few microseconds.",
				   (unsigned long long)s->rows[x->lo].halt_poll_ns, 100 * x->from,
				   100 * x->to);
		else
			hs_adv_say(c, "Between %llu and %llu the hit rate %s from %.0f%% to %.0f%%: the outcome depends on a few microseconds.",
				   (unsigned long long)s->rows[x->lo].halt_poll_ns,
				   (unsigned long long)s->rows[x->hi].halt_poll_ns,
				   x->to > x->from ? "jumps" : "drops", 100 * x->from, 100 * x->to);
		said = true;
	}
	if (said || s->off_cliff_from >= 0)
		hs_adv_finding(c->adv, "cliff");
}

/* Halts-weighted wake-up overhead of the vCPUs in scope; 0 when none. */
static uint64_t hs_adv_delta(const struct hs_report *rep, int tgid)
{
	double sum = 0, w = 0;

	for (unsigned int i = 0; i < rep->nvcpus; i++) {
		const struct hs_report_vcpu *v = &rep->vcpus[i];

		if (!hs_adv_vcpu_in(v, tgid) || !v->stats.waits)
			continue;
		sum += (double)v->wake_overhead_ns * v->stats.waits;
		w += v->stats.waits;
	}
	return w ? (uint64_t)(sum / w + 0.5) : 0;
}

static double hs_adv_price_delta(uint64_t delta)
{
	if (delta < HS_ADV_DELTA_MIN)
		return HS_ADV_DELTA_MIN;
	if (delta > HS_ADV_DELTA_MAX)
		return HS_ADV_DELTA_MAX;
	return (double)delta;
}

/* Index of the candidate equal to ns, -1 when it is not one. */
static int hs_adv_row_of(const struct hs_adv_scope *s, int64_t ns)
{
	for (unsigned int j = 0; ns >= 0 && j < s->n; j++)
		if (s->rows[j].halt_poll_ns == (uint64_t)ns)
			return (int)j;
	return -1;
}

/* The busiest VM whose maximum in force is not the module's (or none was recorded). */
static const struct hs_report_vm *hs_adv_vm_own_max(const struct hs_report *rep)
{
	for (unsigned int k = 0; k < rep->nvms; k++) {
		const struct hs_report_vm *vm = &rep->vms[rep->vm_order ? rep->vm_order[k] : k];

		if (vm->max.source == HS_MAX_CONTRADICTED || vm->max.source == HS_MAX_INFERRED)
			return vm;
	}
	return NULL;
}

/*
 * The maximum in force: the metadata's unless the window events contradict
 * it (a VMM's own KVM_CAP_HALT_POLL), else what the self-check inferred.
 */
static int64_t hs_adv_recorded_max(const struct hs_report *rep)
{
	const struct hs_report_vm *vm = hs_adv_vm_own_max(rep);

	if (vm && (vm->max.source == HS_MAX_CONTRADICTED || rep->meta.halt_poll_ns < 0))
		return vm->max.max_ns;
	if (rep->meta.halt_poll_ns >= 0)
		return rep->meta.halt_poll_ns;
	for (unsigned int i = 0; i < rep->nvcpus; i++) {
		const struct hs_selfcheck *sc = &rep->vcpus[i].selfcheck;

		if (sc->halts_compared && sc->replayed_max_ns)
			return (int64_t)sc->replayed_max_ns;
	}
	return -1;
}

static void hs_adv_explain_up(struct hs_adv_ctx *c, const struct hs_adv_scope *s)
{
	const struct hs_whatif_row *b = &s->rows[s->best], *u = NULL;
	unsigned int j;
	double dh, dc;

	/* the next candidate that catches more wakes, skipping the flat part */
	for (j = (unsigned int)s->best + 1; j < s->n; j++) {
		if (s->rows[j].hits > b->hits || s->vcpu_pct[j] > c->budget) {
			u = &s->rows[j];
			break;
		}
	}
	if (!u) {
		hs_adv_say(c, "No larger candidate catches more wakes.");
		return;
	}
	if (j > (unsigned int)s->best + 1)
		hs_adv_say(c, "Every value from %llu to %llu behaves the same on this recording; the smallest is suggested.",
			   (unsigned long long)b->halt_poll_ns,
			   (unsigned long long)s->rows[j - 1].halt_poll_ns);
	if (s->vcpu_pct[j] > c->budget) {
		hs_adv_say(c, "Going up to %llu would make the busiest vCPU poll %.1f%% of a CPU, over the %.0f%% budget.",
			   (unsigned long long)u->halt_poll_ns, s->vcpu_pct[j], c->budget);
		return;
	}
	dh = (double)u->hits - (double)b->hits;
	dc = (u->poll_cpu_s - b->poll_cpu_s) * 1e6;	/* us */
	hs_adv_say(c, "Going up to %llu adds %.1f%% hits at %.1f us of polling per extra hit, more than the %.0f us one hit is worth to this objective (%.0fx the %.1f us a hit saves).",
		   (unsigned long long)u->halt_poll_ns, 100.0 * dh / (b->halts ? b->halts : 1),
		   dc / dh, c->delta / c->obj->lambda / 1e3, 1 / c->obj->lambda, c->delta / 1e3);
}

static void hs_adv_explain_down(struct hs_adv_ctx *c, const struct hs_adv_scope *s)
{
	const struct hs_whatif_row *b = &s->rows[s->best], *d;
	double dh, dc;

	if (s->best <= 0)
		return;
	d = &s->rows[s->best - 1];
	dh = (double)b->hits - (double)d->hits;
	dc = (b->poll_cpu_s - d->poll_cpu_s) * 1e6;
	if (dh <= 0)
		return;
	hs_adv_say(c, "Going down to %llu loses %.1f%% hits and saves only %.1f us of polling per lost hit.",
		   (unsigned long long)d->halt_poll_ns, 100.0 * dh / (b->halts ? b->halts : 1),
		   dc / dh);
}

static void hs_adv_explain_choice(struct hs_adv_ctx *c, const struct hs_adv_scope *s,
				  enum hs_kernel_era era)
{
	const struct hs_whatif_row *b = &s->rows[s->best];

	hs_adv_say(c, "Suggested halt_poll_ns: %llu (objective %s, at most %.0f%% of a CPU per vCPU for polling).",
		   (unsigned long long)b->halt_poll_ns, c->obj->name, c->budget);
	hs_adv_say(c, "Replaying the %s-era adaptive window over %llu halts of %u vCPUs: at %llu, %.1f%% of halts end in a poll hit, the busiest vCPU polls %.1f%% of a CPU (%.3f CPU-s in all, %.0f%% of it on misses).",
		   hs_kernel_era_name(era), (unsigned long long)b->halts, s->nvcpus,
		   (unsigned long long)b->halt_poll_ns, 100 * b->hit_rate, s->vcpu_pct[s->best],
		   b->poll_cpu_s, b->poll_cpu_s > 0 ? 100 * b->miss_cpu_s / b->poll_cpu_s : 0.0);
	hs_adv_explain_up(c, s);
	hs_adv_explain_down(c, s);
}

static void hs_adv_explain_recorded(struct hs_adv_ctx *c, const struct hs_adv_scope *s)
{
	const struct hs_report *rep = c->rep;
	int64_t m = hs_adv_recorded_max(rep);
	int j = hs_adv_row_of(s, m);
	double pct;

	if (j >= 0) {
		hs_adv_say(c, "The %s %lld replays to %.1f%% hits with the busiest vCPU polling %.1f%% of a CPU.",
			   m != rep->meta.halt_poll_ns && rep->meta.halt_poll_ns >= 0 ?
			   "maximum in force" : "recorded setting",
			   (long long)m, 100 * s->rows[j].hit_rate, s->vcpu_pct[j]);
		return;
	}
	if (rep->duration_s <= 0 || !s->nvcpus)
		return;
	pct = rep->host.poll_ns / (rep->duration_s * 1e9) / s->nvcpus * 100;
	if (rep->meta.halt_poll_ns >= 0)
		hs_adv_say(c, "The recording (halt_poll_ns %lld): %.1f%% poll hits, polling %.1f%% of a CPU per vCPU on average.",
			   (long long)rep->meta.halt_poll_ns, 100 * rep->host.hit_rate, pct);
	else
		hs_adv_say(c, "The recording (halt_poll_ns not recorded): %.1f%% poll hits, polling %.1f%% of a CPU per vCPU on average.",
			   100 * rep->host.hit_rate, pct);
}

/*
 * The VMs whose maximum in force is their own, the busiest few, in words:
 * ", but for VM a 300000 and VM b 0 (...)" after the module's value.
 */
#define HS_ADV_OWN_MAX_VMS 3

static void hs_adv_own_max_words(char *buf, size_t len, const struct hs_report *rep)
{
	unsigned int n = 0, more = 0;
	bool zero = false;
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned int k = 0; k < rep->nvms; k++) {
		const struct hs_report_vm *vm = &rep->vms[rep->vm_order ? rep->vm_order[k] : k];

		if (vm->max.source != HS_MAX_CONTRADICTED)
			continue;
		if (n == HS_ADV_OWN_MAX_VMS) {
			more++;
			continue;
		}
		zero |= vm->max.max_ns == 0;
		at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s VM %s %lld",
				       n ? " and" : ", but for", vm->name[0] ? vm->name : vm->comm,
				       (long long)vm->max.max_ns);
		n++;
	}
	if (!n)
		return;
	if (more)
		at += (size_t)snprintf(buf + at, at < len ? len - at : 0, " and %u more VMs", more);
	snprintf(buf + at, at < len ? len - at : 0,
		 ", inferred from their window events: their VMM sets its own (KVM_CAP_HALT_POLL)%s",
		 zero ? "; 0 is no polling in force, or the guest turned host polling off" : "");
}

static void hs_adv_selfcheck(struct hs_adv_ctx *c)
{
	const struct hs_report *rep = c->rep;
	uint64_t cmp = 0, agree = 0, max = 0;
	bool inferred = false;
	char own[512];
	double pct;

	for (unsigned int i = 0; i < rep->nvcpus; i++) {
		const struct hs_selfcheck *sc = &rep->vcpus[i].selfcheck;

		cmp += sc->halts_compared;
		agree += sc->halts_agreeing;
		if (sc->halts_compared && sc->replayed_max_ns > max) {
			max = sc->replayed_max_ns;
			inferred = sc->max_inferred;
		}
	}
	if (!cmp) {
		hs_adv_say(c, "Self-check: not possible (the window in force was never known), so the replay is unverified.");
		hs_adv_confidence_lower(c->adv, "medium");
		return;
	}
	pct = 100.0 * agree / cmp;
	hs_adv_own_max_words(own, sizeof(own), rep);
	if (own[0])
		hs_adv_say(c, "Self-check: replaying the maximum in force (the module's %lld%s) reproduces the poll outcome and the window change of %.1f%% of %llu halts.",
			   (long long)rep->meta.halt_poll_ns, own, pct, (unsigned long long)cmp);
	else
		hs_adv_say(c, "Self-check: replaying the recorded setting (%llu%s) reproduces the poll outcome and the window change of %.1f%% of %llu halts.",
			   (unsigned long long)max, inferred ? ", inferred from the trace" : "", pct,
			   (unsigned long long)cmp);
	if (own[0]) {
		hs_adv_finding(c->adv, "vm_sets_own_max");
		hs_adv_say(c, "Writing the module's halt_poll_ns does not reach a VM whose VMM sets its own maximum: change it in the VMM (KVM_CAP_HALT_POLL).");
	}
	if (pct < 95) {
		hs_adv_finding(c->adv, "selfcheck_low");
		hs_adv_say(c, "The replay disagrees with the kernel on %.1f%% of halts (another kernel era? try --kernel-era); treat the numbers with care.",
			   100 - pct);
		hs_adv_confidence_lower(c->adv, pct < 80 ? "low" : "medium");
	}
}

static void hs_adv_confidence(struct hs_adv_ctx *c)
{
	const struct hs_report *rep = c->rep;
	uint64_t halts = rep->host.halts;

	if (halts < 5000) {
		hs_adv_finding(c->adv, "few_halts");
		hs_adv_say(c, "Only %llu halts were recorded: record longer or under the real load for a firmer answer.",
			   (unsigned long long)halts);
		hs_adv_confidence_lower(c->adv, halts < 200 ? "low" : "medium");
	}
	if (rep->lost_pct > 0 || rep->meta.lost_unknown_places) {
		hs_adv_finding(c->adv, "lost_events");
		if (rep->lost_pct > 0)
			hs_adv_say(c, "%.2f%% of events were lost: the halts around them were left out of the self-check.",
				   rep->lost_pct);
		else
			hs_adv_say(c, "Events were lost (count unknown): the halts around them were left out of the self-check.");
		hs_adv_confidence_lower(c->adv, rep->lost_pct >= 5 ? "low" : "medium");
	}
}

/*
 * Ubuntu bug 1724614: wakes come periodically just under the window, so the
 * window settles above the period and the vCPU polls through nearly all of
 * its idle time. In the replay this is a candidate step where most halts
 * turn into hits at once, and the polling CPU jumps with them.
 */
static void hs_adv_periodic(struct hs_adv_ctx *c, const struct hs_adv_scope *s)
{
	int64_t m = hs_adv_recorded_max(c->rep);
	double jump, best_jump = 0;
	int at = -1;

	for (unsigned int j = 1; j < s->n; j++) {
		jump = s->rows[j].hit_rate - s->rows[j - 1].hit_rate;
		if (jump >= 0.4 && s->vcpu_pct[j] >= 30 && jump > best_jump) {
			best_jump = jump;
			at = (int)j;
		}
	}
	if (at < 0)
		return;
	if (m >= 0 && (uint64_t)m < s->rows[at].halt_poll_ns) {
		hs_adv_say(c, "Note: %.0f%% of halts wake between %llu and %llu ns; a halt_poll_ns of %llu or more would poll through them.",
			   100 * best_jump, (unsigned long long)s->rows[at - 1].halt_poll_ns,
			   (unsigned long long)s->rows[at].halt_poll_ns,
			   (unsigned long long)s->rows[at].halt_poll_ns);
		return;
	}
	hs_adv_finding(c->adv, "periodic_under_window");
	hs_adv_say(c, "Periodic wakes just under the window: %.0f%% of halts wake between %llu and %llu ns, so at halt_poll_ns >= %llu the window settles above them and the busiest vCPU polls %.0f%% of a CPU. This is the pattern of Ubuntu bug 1724614 (halt_poll_ns 400000, a ~250 us guest timer, ~90%% host system time). Keep halt_poll_ns below %llu.",
		   100 * best_jump, (unsigned long long)s->rows[at - 1].halt_poll_ns,
		   (unsigned long long)s->rows[at].halt_poll_ns,
		   (unsigned long long)s->rows[at].halt_poll_ns, s->vcpu_pct[at],
		   (unsigned long long)s->rows[at].halt_poll_ns);
}

static void hs_adv_flapping(struct hs_adv_ctx *c)
{
	const struct hs_halt_stats *h = &c->rep->host;

	if (h->flaps < 50 || h->flaps * 10 < h->halts)
		return;
	hs_adv_finding(c->adv, "window_flapping");
	hs_adv_say(c, "The window flaps: %llu grow/shrink reversals in %llu halts (%.0f per 100). Wakes alternate between shorter and longer than halt_poll_ns, so the window keeps restarting from halt_poll_ns_grow_start and seldom polls long enough to help; halt_poll_ns_shrink=2 (the default since 6.11) damps it.",
		   (unsigned long long)h->flaps, (unsigned long long)h->halts,
		   100.0 * h->flaps / h->halts);
}

/* KVM stops polling once another task is runnable on the vCPU's CPU: say how often, or that nobody knows. */
static void hs_adv_contention(struct hs_adv_ctx *c)
{
	const struct hs_halt_stats *h = &c->rep->host;

	if (!h->sched_halts || h->contended_share < 0) {
		hs_adv_finding(c->adv, "contention_unknown");
		hs_adv_say(c, "Contention unknown: the recording has no %s, so the what-if lets every poll run its whole window. Where other tasks share the vCPUs' CPUs, KVM stops polling as soon as one is runnable and polls hit less than shown; 'haltstat record' records what is needed to know unless given --no-sched.",
			   hs_report_sched_missing(c->rep));
		return;
	}
	if (h->contended_halts)
		hs_adv_finding(c->adv, "contention");
	hs_adv_say(c, "Another task was runnable on the vCPU's CPU during %.1f%% of %llu halts (%.1f%% of their time). KVM stops polling as soon as that happens, and the what-if cuts each replayed poll at that moment.",
		   100.0 * h->contended_share, (unsigned long long)h->sched_halts,
		   h->contended_time_share >= 0 ? 100.0 * h->contended_time_share : 0.0);
}

/*
 * Misses shorter than their window prove their poll was cut: another task
 * was runnable on the CPU. Without sched events nobody knows which other
 * polls were cut too, and the what-if lets them run their whole window, so
 * a longer window would look better than it is: the suggestion stays at or
 * below the recorded setting.
 */
static void hs_adv_cut_ceiling(struct hs_adv_ctx *c)
{
	const struct hs_halt_stats *h = &c->rep->host;
	int64_t m = hs_adv_recorded_max(c->rep);

	c->ceiling_ns = UINT64_MAX;
	if (h->sched_halts || !h->poll_misses || m < 0 ||
	    100.0 * (double)h->polls_cut < HS_ADV_CUT_PCT * (double)h->poll_misses)
		return;
	c->ceiling_ns = (uint64_t)m;
}

static void hs_adv_cut_explain(struct hs_adv_ctx *c)
{
	const struct hs_halt_stats *h = &c->rep->host;

	if (c->ceiling_ns == UINT64_MAX)
		return;
	hs_adv_finding(c->adv, "polls_cut");
	hs_adv_say(c, "Polls are being cut short: %llu of %llu misses (%.1f%%) ended before their window, so another task was runnable on the vCPUs' CPUs, and the recording has no sched events to say when. The what-if cannot tell which longer polls would be cut as well, so nothing above the recorded %llu is suggested; record with sched events (haltstat record's default) for one that can go higher.",
		   (unsigned long long)h->polls_cut, (unsigned long long)h->poll_misses,
		   100.0 * (double)h->polls_cut / (double)h->poll_misses,
		   (unsigned long long)c->ceiling_ns);
	hs_adv_confidence_lower(c->adv, "low");
}

static uint64_t hs_adv_log2_sum(const uint64_t *b, uint64_t lo, uint64_t hi)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < HS_LOG2_BUCKETS; i++)
		if (hs_log2_lo(i) >= lo && hs_log2_hi(i) <= hi)
			n += b[i];
	return n;
}

/*
 * Host polling off: no window change at all although some waits were short
 * enough to grow it, and every waited == 0 halt tiny (a wake that beat the
 * block, not a poll). With halt_poll_ns > 0 that is the guest's haltpoll
 * driver having switched host polling off through MSR_KVM_POLL_CONTROL.
 */
static void hs_adv_polling_off(struct hs_adv_ctx *c)
{
	const struct hs_report *rep = c->rep;
	int64_t m = hs_adv_recorded_max(rep);
	uint64_t probe = m > 0 ? (uint64_t)m : 200000;

	if (rep->events_poll_ns || rep->host.halts < 100 || m == 0)
		return;
	if (hs_adv_log2_sum(rep->host_log2.poll, 8192, UINT64_MAX) ||
	    hs_adv_log2_sum(rep->host_log2.wait, 0, probe / 2) < 10)
		return;
	if (m > 0) {
		hs_adv_finding(c->adv, "guest_haltpoll");
		hs_adv_say(c, "Host polling looks off although halt_poll_ns is %lld: no window change and only tiny poll hits in %llu halts. The guests in these VMs probably run the cpuidle-haltpoll driver, which polls inside them and turns this machine's polling off for their vCPUs; halt_poll_ns then has no effect on those vCPUs (their own guest_halt_poll_ns does).",
			   (long long)m, (unsigned long long)rep->host.halts);
	} else {
		hs_adv_finding(c->adv, "host_polling_off");
		hs_adv_say(c, "Host polling looks off: no window change and only tiny poll hits in %llu halts (halt_poll_ns 0, or the cpuidle-haltpoll driver inside these VMs disabled it).",
			   (unsigned long long)rep->host.halts);
	}
}

static void hs_adv_apply(struct hs_adv_ctx *c, uint64_t ns)
{
	const char *rel = c->rep->meta.kernel_release;
	int copies = hs_kernel_copies_halt_poll_ns(rel);

	hs_adv_say(c, "Apply: echo %llu > /sys/module/kvm/parameters/halt_poll_ns",
		   (unsigned long long)ns);
	if (copies < 0) {
		hs_adv_say(c, "On kernels 5.8 to 6.0 running VMs keep the old value until they are restarted.");
		return;
	}
	if (copies) {
		hs_adv_finding(c->adv, "restart_needed");
		hs_adv_say(c, "On this kernel (%s) running VMs keep the value they were created with: restart them for it to apply.",
			   rel);
	}
}

static void hs_adv_text_open(struct hs_adv_ctx *c)
{
	c->buf = NULL;
	c->len = 0;
	c->text = open_memstream(&c->buf, &c->len);
}

static void hs_adv_text_close(struct hs_adv_ctx *c)
{
	if (!c->text)
		return;
	if (fclose(c->text) == 0 && c->buf) {
		/* lines are separated, not terminated, by \n */
		if (c->len && c->buf[c->len - 1] == '\n')
			c->buf[c->len - 1] = '\0';
		c->adv->text = c->buf;
	} else {
		free(c->buf);
	}
	c->text = NULL;
	c->buf = NULL;
}

static void hs_adv_init(struct hs_advice *adv, const struct hs_adv_ctx *c, uint64_t delta)
{
	hs_advice_free(adv);
	snprintf(adv->objective, sizeof(adv->objective), "%s", c->obj->name);
	snprintf(adv->confidence, sizeof(adv->confidence), "high");
	adv->max_poll_cpu_pct = c->budget;
	adv->wake_overhead_ns = delta;
}

static unsigned int hs_adv_active_vcpus(const struct hs_report *rep, int tgid)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < rep->nvcpus; i++)
		if (hs_adv_vcpu_in(&rep->vcpus[i], tgid) && rep->vcpus[i].stats.halts)
			n++;
	return n;
}

static bool hs_adv_differs(uint64_t a, uint64_t b)
{
	uint64_t lo = a < b ? a : b, hi = a < b ? b : a;

	return (lo == 0 && hi > 0) || hi >= 2 * lo;
}

/* A VM whose best value is far from the host-wide one gets its own. */
static void hs_adv_vm(struct hs_adv_ctx *host, struct hs_report_vm *vm, uint64_t global)
{
	struct hs_adv_ctx c = *host;
	struct hs_adv_scope s = {
		.rows = vm->what_if, .n = vm->n_what_if, .nvcpus = vm->nvcpus, .tgid = vm->tgid,
	};
	const struct hs_whatif_row *b;
	int g;

	hs_advice_free(&vm->advice);
	if (vm->stats.halts < 1000 || !s.n || s.n != host->rep->n_host_what_if)
		return;
	c.delta = hs_adv_price_delta(hs_adv_delta(host->rep, vm->tgid));
	hs_adv_scope_pct(host->rep, &s);
	hs_adv_scope_pick(&c, &s);
	g = hs_adv_row_of(&s, (int64_t)global);
	if (s.best < 0 || g < 0 || !hs_adv_differs(s.rows[s.best].halt_poll_ns, global) ||
	    s.utility[s.best] <= s.utility[g])
		return;
	b = &s.rows[s.best];
	c.adv = &vm->advice;
	hs_adv_init(c.adv, &c, hs_adv_delta(host->rep, vm->tgid));
	c.adv->valid = true;
	c.adv->halt_poll_ns = b->halt_poll_ns;
	if (vm->stats.halts < 5000)
		hs_adv_confidence_lower(c.adv, "medium");
	hs_adv_finding(c.adv, "per_vm");
	hs_adv_text_open(&c);
	hs_adv_say(&c, "VM %s: halt_poll_ns %llu gives %.1f%% hits with the busiest vCPU polling %.1f%% of a CPU, against %.1f%% and %.1f%% at the host-wide %llu.",
		   vm->name[0] ? vm->name : vm->comm, (unsigned long long)b->halt_poll_ns,
		   100 * b->hit_rate, s.vcpu_pct[s.best], 100 * s.rows[g].hit_rate,
		   s.vcpu_pct[g], (unsigned long long)global);
	hs_adv_say(&c, "Set it for this VM alone from its VMM with KVM_ENABLE_CAP(KVM_CAP_HALT_POLL) (Linux 5.8+); the module parameter stays the host-wide default.");
	hs_adv_text_close(&c);
	hs_adv_finding(host->adv, "per_vm_differs");
	hs_adv_say(host, "VM %s would do better with %llu (%.1f%% hits) than with %llu (%.1f%%): set it per VM with KVM_CAP_HALT_POLL.",
		   vm->name[0] ? vm->name : vm->comm, (unsigned long long)b->halt_poll_ns,
		   100 * b->hit_rate, (unsigned long long)global, 100 * s.rows[g].hit_rate);
}

static void hs_adv_no_data(struct hs_adv_ctx *c)
{
	hs_adv_finding(c->adv, "no_halts");
	hs_adv_confidence_lower(c->adv, "low");
	if (!c->rep->n_host_what_if && c->rep->host.halts)
		hs_adv_say(c, "No suggestion: the what-if replay was not run.");
	else
		hs_adv_say(c, "No suggestion: no kvm_vcpu_wakeup halts were recorded (is a VM running, and were the kvm events enabled?).");
	hs_adv_polling_off(c);
}

/* Each vCPU's what-if row at the host's suggestion, for writers that show one row per vCPU. */
static void hs_adv_suggested_rows(struct hs_report *rep)
{
	for (unsigned int i = 0; i < rep->nvcpus; i++) {
		struct hs_report_vcpu *v = &rep->vcpus[i];

		v->suggested_row = -1;
		for (unsigned int j = 0; rep->advice.valid && j < v->n_what_if; j++)
			if (v->what_if[j].halt_poll_ns == rep->advice.halt_poll_ns)
				v->suggested_row = (int)j;
	}
}

void hs_advice_build(struct hs_report *rep, const struct hs_advice_opts *opts)
{
	struct hs_adv_ctx c = { .rep = rep, .adv = &rep->advice, .ceiling_ns = UINT64_MAX };
	struct hs_adv_scope s = {
		.rows = rep->host_what_if, .n = rep->n_host_what_if, .tgid = -2,
	};
	uint64_t delta = hs_adv_delta(rep, -2);

	c.obj = hs_adv_objective_find(opts ? opts->objective : NULL);
	c.budget = opts && opts->max_poll_cpu_pct > 0 ? opts->max_poll_cpu_pct :
		c.obj->budget_pct;
	c.delta = hs_adv_price_delta(delta);
	hs_adv_init(c.adv, &c, delta);
	for (unsigned int i = 0; i < rep->nvms; i++)
		hs_advice_free(&rep->vms[i].advice);
	if (opts && !opts->enabled)
		return;
	hs_adv_text_open(&c);
	if (!s.n || !rep->host.halts) {
		hs_adv_no_data(&c);
		hs_adv_text_close(&c);
		return;
	}
	s.nvcpus = hs_adv_active_vcpus(rep, -2);
	hs_adv_cut_ceiling(&c);
	hs_adv_scope_pct(rep, &s);
	hs_adv_scope_pick(&c, &s);
	c.adv->valid = s.best >= 0;
	c.adv->halt_poll_ns = s.best >= 0 ? s.rows[s.best].halt_poll_ns : 0;
	hs_adv_explain_choice(&c, &s, hs_kernel_era_from_release(rep->meta.kernel_release));
	hs_adv_cliffs(&c, &s);
	hs_adv_wake_model(&c);
	hs_adv_wake_overhead(&c, delta);
	hs_adv_contention(&c);
	hs_adv_cut_explain(&c);
	hs_adv_explain_recorded(&c, &s);
	hs_adv_selfcheck(&c);
	hs_adv_confidence(&c);
	hs_adv_periodic(&c, &s);
	hs_adv_flapping(&c);
	hs_adv_polling_off(&c);
	for (unsigned int i = 0; i < rep->nvms; i++)
		hs_adv_vm(&c, &rep->vms[i], c.adv->halt_poll_ns);
	hs_adv_apply(&c, c.adv->halt_poll_ns);
	hs_adv_text_close(&c);
	hs_adv_suggested_rows(rep);
}
