// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest layer's suggestion: which guest_halt_poll_ns this machine should
 * run for its own idle toward its hypervisor (the cpuidle-haltpoll
 * governor), from the guest what-if (lib/guest_whatif.c); the host layer is
 * lib/advice.c's, and neither speaks for the other. The method is the
 * host's with a halt's extra cost X for Δ: U(G) = X·hits(G) − λ·poll_ns(G)
 * within the per-CPU budget, 0 always eligible, ties to the smaller
 * (doc/INTERNALS.md, "Guest what-if").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advice.h"
#include "advice_model.h"
#include "report.h"

#define HS_GADV_X_MIN 5000
#define HS_GADV_X_MAX 100000
#define HS_GADV_MIN_CPU_WAKES 50	/* CPUs with fewer do not set the budget */

struct hs_gadv {
	const struct hs_report *rep;
	const struct hs_adv_objective *obj;
	double budget, x_price;
	struct hs_advice *adv;
	FILE *text;
	const struct hs_guest_whatif_row *rows;
	unsigned int n;
	double cpu_pct[HS_GUEST_WHATIF_MAX_CANDIDATES];	/* busiest CPU per candidate */
	int best;
};

#define hs_gadv_say(c, ...) hs_adv_text_say((c)->text, __VA_ARGS__)

static bool gadv_driver_is(const struct hs_report *rep, const char *name)
{
	return !strcmp(rep->meta.cpuidle_driver, name);
}

/* The governor can be replayed on this idle: the haltpoll driver, or states that look like it. */
static bool gadv_haltpoll_idle(const struct hs_report *rep)
{
	if (rep->meta.cpuidle_driver[0])
		return gadv_driver_is(rep, "haltpoll");
	for (unsigned int i = 0; i < rep->nguest; i++)
		for (unsigned int s = 2; s < HS_IDLE_STATES; s++)
			if (rep->guest[i].entries[s])
				return false;
	return true;
}

static void gadv_busiest(struct hs_gadv *c)
{
	const struct hs_report *rep = c->rep;
	unsigned int counted = 0;

	memset(c->cpu_pct, 0, sizeof(c->cpu_pct));
	for (unsigned int i = 0; i < rep->nguest; i++) {
		const struct hs_report_guest_cpu *g = &rep->guest[i];

		if (g->n_what_if != c->n || g->what_if[0].wakes < HS_GADV_MIN_CPU_WAKES)
			continue;
		counted++;
		for (unsigned int j = 0; j < c->n; j++)
			if (g->what_if[j].poll_cpu_pct > c->cpu_pct[j])
				c->cpu_pct[j] = g->what_if[j].poll_cpu_pct;
	}
	if (counted)
		return;
	for (unsigned int j = 0; j < c->n; j++)
		c->cpu_pct[j] = c->rows[j].poll_cpu_pct_per_cpu;
}

static double gadv_utility(const struct hs_gadv *c, unsigned int j)
{
	return c->x_price * (double)c->rows[j].hits - c->obj->lambda * c->rows[j].poll_cpu_s * 1e9;
}

static void gadv_pick(struct hs_gadv *c)
{
	double best_u = 0;

	c->best = -1;
	for (unsigned int j = 0; j < c->n; j++) {
		double u = gadv_utility(c, j);

		if (j && c->cpu_pct[j] > c->budget)
			continue;
		if (c->best < 0 || u > best_u) {
			c->best = (int)j;
			best_u = u;
		}
	}
}

static int gadv_row_of(const struct hs_gadv *c, int64_t ns)
{
	for (unsigned int j = 0; ns >= 0 && j < c->n; j++)
		if (c->rows[j].guest_halt_poll_ns == (uint64_t)ns)
			return (int)j;
	return -1;
}

static void gadv_explain_up(struct hs_gadv *c)
{
	const struct hs_guest_whatif_row *b = &c->rows[c->best], *u = NULL;
	unsigned int j;
	double dh, dc;

	for (j = (unsigned int)c->best + 1; j < c->n; j++) {
		if (c->rows[j].hits > b->hits || c->cpu_pct[j] > c->budget) {
			u = &c->rows[j];
			break;
		}
	}
	if (!u) {
		hs_gadv_say(c, "No larger guest_halt_poll_ns catches more wakes.");
		return;
	}
	if (c->cpu_pct[j] > c->budget) {
		hs_gadv_say(c, "Going up to %llu would make the busiest CPU poll %.1f%% of a CPU, over the %.0f%% budget.",
			    (unsigned long long)u->guest_halt_poll_ns, c->cpu_pct[j], c->budget);
		return;
	}
	dh = (double)u->hits - (double)b->hits;
	dc = (u->poll_cpu_s - b->poll_cpu_s) * 1e6;
	hs_gadv_say(c, "Going up to %llu catches %.1f%% more wakes at %.1f us of polling per extra hit, more than the %.0f us one hit is worth to this objective.",
		    (unsigned long long)u->guest_halt_poll_ns, 100.0 * dh / (b->wakes ? b->wakes : 1),
		    dc / dh, c->x_price / c->obj->lambda / 1e3);
}

/* Wide intervals: where the limit's path forks on a few microseconds. */
static void gadv_cliffs(struct hs_gadv *c)
{
	for (unsigned int j = 0; j < c->n; j++) {
		const struct hs_guest_whatif_row *r = &c->rows[j];
		double lo = r->hit_rate_low, hi = r->hit_rate_high;

		if (hi - lo < 0.1 || (j != (unsigned int)c->best && j != (unsigned int)c->best + 1))
			continue;
		hs_adv_finding(c->adv, "guest_cliff");
		hs_gadv_say(c, "At guest_halt_poll_ns %llu the outcome depends on a few microseconds: replays from another start or with the times to wake 5%% shorter or longer give %.0f%% to %.0f%% hits (%.1f%% predicted).",
			    (unsigned long long)r->guest_halt_poll_ns, 100 * lo, 100 * hi, 100 * r->hit_rate);
	}
}

static void gadv_explain(struct hs_gadv *c)
{
	const struct hs_report *rep = c->rep;
	const struct hs_haltpoll_params *p = &rep->guest_simulated;
	const struct hs_guest_whatif_row *b = &c->rows[c->best];

	hs_gadv_say(c, "Suggested guest_halt_poll_ns: %llu (objective %s, at most %.0f%% of a CPU per CPU for polling).",
		    (unsigned long long)b->guest_halt_poll_ns, c->obj->name, c->budget);
	hs_gadv_say(c, "Replaying the haltpoll governor (grow %u, grow_start %u, shrink %u, allow_shrink %s) over %llu wakes of %u CPU%s: at %llu, %.1f%% of wakes end inside the poll (no halt, no exit to the hypervisor), the busiest CPU polls %.1f%% of a CPU (%.3f CPU-s in all, %.0f%% of it on polls that timed out).",
		    p->grow, p->grow_start, p->shrink, p->allow_shrink ? "Y" : "N",
		    (unsigned long long)b->wakes, rep->active_guest_cpus,
		    rep->active_guest_cpus == 1 ? "" : "s",
		    (unsigned long long)b->guest_halt_poll_ns, 100 * b->hit_rate, c->cpu_pct[c->best],
		    b->poll_cpu_s, b->poll_cpu_s > 0 ? 100 * b->miss_cpu_s / b->poll_cpu_s : 0.0);
	gadv_explain_up(c);
	gadv_cliffs(c);
}

static void gadv_extra(struct hs_gadv *c)
{
	uint64_t samples = 0;

	for (unsigned int i = 0; i < c->rep->nguest; i++)
		samples += c->rep->guest[i].halt_extra_samples;
	if (samples)
		hs_gadv_say(c, "A halt costs about %.1f us past its wake (the exit to the hypervisor and its wake-up of this vCPU; from %llu halts after a timed-out poll): that is what a poll hit saves.",
			    c->rep->guest_halt_extra_ns / 1e3, (unsigned long long)samples);
	else
		hs_gadv_say(c, "A halt costs at most about %.1f us past its wake (no poll timed out, so only the shortest halts bound it): that is what a poll hit saves.",
			    c->rep->guest_halt_extra_ns / 1e3);
}

/* The recorded guest_halt_poll_ns: the metadata's, else what the CPUs' self-checks inferred. */
static int64_t gadv_recorded_max(const struct hs_report *rep, bool *inferred)
{
	*inferred = false;
	if (rep->meta.guest_halt_poll_ns >= 0)
		return rep->meta.guest_halt_poll_ns;
	for (unsigned int i = 0; i < rep->nguest; i++) {
		const struct hs_selfcheck *sc = &rep->guest[i].selfcheck;

		if (sc->max_inferred) {
			*inferred = true;
			return (int64_t)sc->replayed_max_ns;
		}
	}
	return -1;
}

static void gadv_recorded(struct hs_gadv *c)
{
	bool inferred;
	int64_t g = gadv_recorded_max(c->rep, &inferred);
	int j = gadv_row_of(c, g);

	if (g < 0) {
		hs_gadv_say(c, "guest_halt_poll_ns was not recorded and the trace does not tell it; the other governor parameters are taken as the module defaults.");
		hs_adv_confidence_lower(c->adv, "medium");
		return;
	}
	if (inferred)
		hs_gadv_say(c, "guest_halt_poll_ns was not recorded; the limit changes in the trace make it %lld.",
			    (long long)g);
	if (g == 0) {
		hs_adv_finding(c->adv, "guest_polling_off");
		hs_gadv_say(c, "The recorded guest_halt_poll_ns is 0: this machine never polls, every wake was a halt to the hypervisor.");
	}
	if (j >= 0)
		hs_gadv_say(c, "The recorded guest_halt_poll_ns %lld replays to %.1f%% hits with the busiest CPU polling %.1f%% of a CPU.",
			    (long long)g, 100 * c->rows[j].hit_rate, c->cpu_pct[j]);
}

static void gadv_selfcheck(struct hs_gadv *c)
{
	uint64_t cmp = 0, agree = 0;
	double pct;

	for (unsigned int i = 0; i < c->rep->nguest; i++) {
		cmp += c->rep->guest[i].selfcheck.halts_compared;
		agree += c->rep->guest[i].selfcheck.halts_agreeing;
	}
	if (!cmp) {
		hs_gadv_say(c, "Self-check: not possible (%s), so the guest replay is unverified.",
			    gadv_recorded_max(c->rep, &(bool){ false }) < 0 ?
			    "guest_halt_poll_ns unknown" :
			    "no guest_halt_poll_ns event told the limit in force");
		hs_adv_confidence_lower(c->adv, "medium");
		return;
	}
	pct = 100.0 * (double)agree / (double)cmp;
	hs_gadv_say(c, "Self-check: replaying the recorded setting reproduces the poll outcome and the limit change of %.1f%% of %llu wakes.",
		    pct, (unsigned long long)cmp);
	if (pct < 95) {
		hs_adv_finding(c->adv, "guest_selfcheck_low");
		hs_adv_confidence_lower(c->adv, pct < 80 ? "low" : "medium");
	}
}

static void gadv_confidence(struct hs_gadv *c)
{
	uint64_t wakes = c->rows[0].wakes;

	if (wakes < 5000) {
		hs_adv_finding(c->adv, "guest_few_wakes");
		hs_gadv_say(c, "Only %llu wakes were recorded: record longer or under the real load for a firmer answer.",
			    (unsigned long long)wakes);
		hs_adv_confidence_lower(c->adv, wakes < 200 ? "low" : "medium");
	}
	if (c->rep->lost_pct > 0 || c->rep->meta.lost_unknown_places) {
		hs_adv_finding(c->adv, "lost_events");
		hs_adv_confidence_lower(c->adv, c->rep->lost_pct >= 5 ? "low" : "medium");
	}
}

/* What this machine's own cpuidle setup says, events or not. */
static void gadv_cpuidle(struct hs_gadv *c)
{
	const struct hs_meta *m = &c->rep->meta;

	if (!strcmp(m->cpuidle_governor, "haltpoll") && m->cpuidle_driver[0] &&
	    strcmp(m->cpuidle_driver, "haltpoll")) {
		hs_adv_finding(c->adv, "haltpoll_governor_mismatch");
		hs_gadv_say(c, "This machine's cpuidle governor is haltpoll but its driver is %s: the governor is meant only for the haltpoll driver and can limit the CPU to POLL and C1; use another governor (menu, teo) or the cpuidle-haltpoll driver.",
			    m->cpuidle_driver);
	}
	if (!strcmp(m->cpuidle_driver, "haltpoll"))
		hs_adv_finding(c->adv, "self_haltpoll");
}

static void gadv_scope(struct hs_gadv *c)
{
	const struct hs_report *rep = c->rep;

	hs_gadv_say(c, "This machine's own idle, as a guest of its hypervisor (power:cpu_idle on %u CPU%s, cpuidle driver %s): guest_halt_poll_ns sets how long each of its CPUs polls before it halts to the hypervisor.",
		    rep->active_guest_cpus, rep->active_guest_cpus == 1 ? "" : "s", rep->meta.cpuidle_driver[0] ? rep->meta.cpuidle_driver : "unknown");
	if (rep->host.halts)
		hs_gadv_say(c, "The VMs this machine runs are the other layer: their halts are tuned by this machine's halt_poll_ns, which the cpuidle-haltpoll driver here leaves in force (it turns off only the hypervisor's polling for this machine's own vCPUs).");
}

static void gadv_body(struct hs_gadv *c)
{
	const struct hs_report *rep = c->rep;

	gadv_cpuidle(c);
	if (!rep->n_guest_what_if) {
		if (gadv_driver_is(rep, "haltpoll"))
			hs_gadv_say(c, "This machine runs the cpuidle-haltpoll driver for its own idle (it is a guest of its hypervisor), but that idle was not recorded (no power:cpu_idle events): record with --guest for a guest_halt_poll_ns what-if. %s",
				    rep->host.halts ? "Its halt_poll_ns still applies to the VMs it runs." : "");
		return;
	}
	if (!gadv_haltpoll_idle(rep)) {
		hs_adv_finding(c->adv, "self_not_haltpoll");
		hs_gadv_say(c, "This machine's own idle runs the cpuidle driver %s, not cpuidle-haltpoll: guest_halt_poll_ns does not apply to it.",
			    rep->meta.cpuidle_driver);
		return;
	}
	gadv_scope(c);
	if (!rep->meta.cpuidle_driver[0]) {
		hs_adv_finding(c->adv, "guest_driver_unknown");
		hs_adv_confidence_lower(c->adv, "medium");
		hs_gadv_say(c, "The cpuidle driver was not recorded; the idle states look like cpuidle-haltpoll's (a poll state and one halt state), so its governor is assumed.");
	}
	gadv_busiest(c);
	gadv_pick(c);
	if (c->best < 0)
		return;
	c->adv->valid = true;
	c->adv->halt_poll_ns = c->rows[c->best].guest_halt_poll_ns;
	gadv_explain(c);
	gadv_extra(c);
	gadv_recorded(c);
	gadv_selfcheck(c);
	gadv_confidence(c);
	if (c->adv->halt_poll_ns)
		hs_gadv_say(c, "Guest polling is CPU time of this machine's vCPUs: its hypervisor sees them busy, and they poll even when the host has other work for that CPU.");
	hs_gadv_say(c, "Apply: echo %llu > /sys/module/haltpoll/parameters/guest_halt_poll_ns",
		    (unsigned long long)c->adv->halt_poll_ns);
}

/* buf and len are open_memstream's: valid once the stream is closed. */
static void gadv_text_close(struct hs_gadv *c, char **buf, size_t *len)
{
	if (fclose(c->text) == 0 && *buf && *len) {
		if ((*buf)[*len - 1] == '\n')
			(*buf)[*len - 1] = '\0';
		c->adv->text = *buf;
	} else {
		free(*buf);
	}
	c->text = NULL;
}

void hs_guest_advice_build(struct hs_report *rep, const struct hs_advice_opts *opts)
{
	struct hs_gadv c = { .rep = rep, .adv = &rep->guest_advice, .rows = rep->guest_what_if,
			     .n = rep->n_guest_what_if };
	size_t len = 0;
	char *buf = NULL;
	uint64_t x = rep->guest_halt_extra_ns;

	hs_advice_free(c.adv);
	c.adv->layer = HS_LAYER_GUEST;
	if (opts && !opts->enabled)
		return;
	c.obj = hs_adv_objective_find(opts ? opts->objective : NULL);
	c.budget = opts && opts->max_poll_cpu_pct > 0 ? opts->max_poll_cpu_pct : c.obj->budget_pct;
	c.x_price = x < HS_GADV_X_MIN ? HS_GADV_X_MIN : x > HS_GADV_X_MAX ? HS_GADV_X_MAX : (double)x;
	snprintf(c.adv->objective, sizeof(c.adv->objective), "%s", c.obj->name);
	snprintf(c.adv->confidence, sizeof(c.adv->confidence), "high");
	c.adv->max_poll_cpu_pct = c.budget;
	c.adv->wake_overhead_ns = x;
	c.text = open_memstream(&buf, &len);
	gadv_body(&c);
	if (c.text)
		gadv_text_close(&c, &buf, &len);
}
