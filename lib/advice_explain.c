// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host suggestion's findings and words: why this value, what the what-if
 * and its self-check show, how sure it is, and how to apply it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advice_ctx.h"
#include "cliff.h"
#include "era.h"

/*
 * Every vCPU's model told by its timed waits: the other model is refuted,
 * and left out of the intervals. False when any vCPU was told otherwise.
 */
static bool adv_wake_timed(struct hs_adv_ctx *c, unsigned int open, unsigned int closed)
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
void hs_adv_wake_model(struct hs_adv_ctx *c)
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
	if (adv_wake_timed(c, open, closed))
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
void hs_adv_wake_overhead(struct hs_adv_ctx *c, uint64_t delta)
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
void hs_adv_cliffs(struct hs_adv_ctx *c, const struct hs_adv_scope *s)
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

/* Index of the candidate equal to ns, -1 when it is not one. */
int hs_adv_row_of(const struct hs_adv_scope *s, int64_t ns)
{
	for (unsigned int j = 0; ns >= 0 && j < s->n; j++)
		if (s->rows[j].halt_poll_ns == (uint64_t)ns)
			return (int)j;
	return -1;
}

/* The busiest VM whose maximum in force is not the module's (or none was recorded). */
static const struct hs_report_vm *adv_vm_own_max(const struct hs_report *rep)
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
int64_t hs_adv_recorded_max(const struct hs_report *rep)
{
	const struct hs_report_vm *vm = adv_vm_own_max(rep);

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

static void adv_explain_up(struct hs_adv_ctx *c, const struct hs_adv_scope *s)
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

static void adv_explain_down(struct hs_adv_ctx *c, const struct hs_adv_scope *s)
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

void hs_adv_explain_choice(struct hs_adv_ctx *c, const struct hs_adv_scope *s,
			   enum hs_kernel_era era)
{
	const struct hs_whatif_row *b = &s->rows[s->best];

	hs_adv_say(c, "Suggested halt_poll_ns: %llu (objective %s, at most %.0f%% of a CPU per vCPU for polling).",
		   (unsigned long long)b->halt_poll_ns, c->obj->name, c->budget);
	hs_adv_say(c, "Replaying the %s-era adaptive window over %llu halts of %u vCPUs: at %llu, %.1f%% of halts end in a poll hit, the busiest vCPU polls %.1f%% of a CPU (%.3f CPU-s in all, %.0f%% of it on misses).",
		   hs_kernel_era_name(era), (unsigned long long)b->halts, s->nvcpus,
		   (unsigned long long)b->halt_poll_ns, 100 * b->hit_rate, s->vcpu_pct[s->best],
		   b->poll_cpu_s, b->poll_cpu_s > 0 ? 100 * b->miss_cpu_s / b->poll_cpu_s : 0.0);
	adv_explain_up(c, s);
	adv_explain_down(c, s);
}

void hs_adv_explain_recorded(struct hs_adv_ctx *c, const struct hs_adv_scope *s)
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

static void adv_own_max_words(char *buf, size_t len, const struct hs_report *rep)
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

void hs_adv_selfcheck(struct hs_adv_ctx *c)
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
	adv_own_max_words(own, sizeof(own), rep);
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

void hs_adv_confidence(struct hs_adv_ctx *c)
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
void hs_adv_periodic(struct hs_adv_ctx *c, const struct hs_adv_scope *s)
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

void hs_adv_flapping(struct hs_adv_ctx *c)
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
void hs_adv_contention(struct hs_adv_ctx *c)
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
 * Said when some was stolen, or when nobody knows on a host that is a
 * guest (the CPUs' hypervisor flag, or the haltpoll cpuidle driver, which
 * only loads in a KVM guest). On bare metal the figure is 0 or unknown
 * and says nothing.
 */
void hs_adv_steal(struct hs_adv_ctx *c)
{
	const struct hs_meta *m = &c->rep->meta;

	if (c->rep->steal_runnable_share < 0 && hs_meta_nested(m)) {
		hs_adv_finding(c->adv, "steal_unknown");
		hs_adv_say(c, "Steal unknown: this host is itself a guest (%s) and the recording does not say how much of its CPUs' time the hypervisor above took. A wake in stolen time arrives late, mostly past the window, so with steal the hit rates reached are lower than each interval's low end; 'haltstat record' keeps the steal.",
			   m->hypervisor == 1 ? "its CPUs' hypervisor flag" : "cpuidle driver haltpoll");
		return;
	}
	if (!(c->rep->steal_runnable_share > 0))
		return;
	hs_adv_finding(c->adv, "steal");
	hs_adv_say(c, "The hypervisor above this host stole %.2f%% of the time its CPUs wanted to run while recording (%.2f%% of their time). A wake that lands in stolen time arrives when the theft ends, mostly past the window, and a CPU that polls wants to run: each interval's low end counts that share of the hits as misses.",
		   100 * c->rep->steal_runnable_share,
		   c->rep->steal_share >= 0 ? 100 * c->rep->steal_share : 0.0);
}

void hs_adv_cut_explain(struct hs_adv_ctx *c)
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

static uint64_t adv_log2_sum(const uint64_t *b, uint64_t lo, uint64_t hi)
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
void hs_adv_polling_off(struct hs_adv_ctx *c)
{
	const struct hs_report *rep = c->rep;
	int64_t m = hs_adv_recorded_max(rep);
	uint64_t probe = m > 0 ? (uint64_t)m : 200000;

	if (rep->events_poll_ns || rep->host.halts < 100 || m == 0)
		return;
	if (adv_log2_sum(rep->host_log2.poll, 8192, UINT64_MAX) ||
	    adv_log2_sum(rep->host_log2.wait, 0, probe / 2) < 10)
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

void hs_adv_apply(struct hs_adv_ctx *c, uint64_t ns)
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
