// SPDX-License-Identifier: GPL-2.0-only
/*
 * The suggestion: which halt_poll_ns to set, why, and how sure we are.
 * Each candidate M is worth U(M) = Δ·H(M) − λ·C(M): its replayed hits
 * (lib/whatif.c) at about one wake-up overhead Δ each, less its polling
 * CPU at the objective's price λ (advice_model.c). Only candidates within
 * the per-vCPU polling budget on every vCPU are eligible, 0 always; Δ is
 * priced within HS_ADV_DELTA_MIN..HS_ADV_DELTA_MAX. The method and the
 * objectives' table: doc/INTERNALS.md, "The suggestion".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advice.h"
#include "advice_model.h"
#include "advice_ctx.h"
#include "cliff.h"
#include "era.h"
#include "report.h"

#define HS_ADV_DELTA_MIN 5000
#define HS_ADV_DELTA_MAX 100000
#define HS_ADV_MIN_VCPU_HALTS 50	/* vCPUs with fewer do not set the budget */
#define HS_ADV_CUT_PCT 1.0		/* misses cut short, % of them, that cap the suggestion */

/* Worst per-vCPU polling CPU per candidate; the budget is per vCPU. */
static void adv_scope_pct(const struct hs_report *rep, struct hs_adv_scope *s)
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
static double adv_utility_low(const struct hs_adv_ctx *c, const struct hs_whatif_row *r)
{
	return c->delta * r->hit_rate_low * (double)r->halts -
	       c->obj->lambda * r->poll_cpu_s_high * 1e9;
}

/*
 * A best candidate on a cliff gives way to the candidate off every cliff
 * that is better at the pessimistic end of its interval: where a few
 * microseconds decide, the point is a gamble.
 */
static void adv_scope_off_cliff(const struct hs_adv_ctx *c, struct hs_adv_scope *s)
{
	int alt = -1;
	double alt_u = 0;

	s->off_cliff_from = -1;
	if (s->best < 0 || !hs_cliff_at(s->rows, s->n, (unsigned int)s->best))
		return;
	for (unsigned int j = 0; j < s->n; j++) {
		double u = adv_utility_low(c, &s->rows[j]);

		if ((j && s->vcpu_pct[j] > c->budget) || hs_cliff_at(s->rows, s->n, j) ||
		    s->rows[j].halt_poll_ns > c->ceiling_ns)
			continue;
		if (alt < 0 || u > alt_u) {
			alt = (int)j;
			alt_u = u;
		}
	}
	if (alt >= 0 && alt_u > adv_utility_low(c, &s->rows[s->best])) {
		s->off_cliff_from = s->best;
		s->best = alt;
	}
}

static void adv_scope_pick(const struct hs_adv_ctx *c, struct hs_adv_scope *s)
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
	adv_scope_off_cliff(c, s);
}

/* Halts-weighted wake-up overhead of the vCPUs in scope; 0 when none. */
static uint64_t adv_delta(const struct hs_report *rep, int tgid)
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

static double adv_price_delta(uint64_t delta)
{
	if (delta < HS_ADV_DELTA_MIN)
		return HS_ADV_DELTA_MIN;
	if (delta > HS_ADV_DELTA_MAX)
		return HS_ADV_DELTA_MAX;
	return (double)delta;
}

/*
 * Misses shorter than their window prove their poll was cut: another task
 * was runnable on the CPU. Without sched events nobody knows which other
 * polls were cut too, and the what-if lets them run their whole window, so
 * a longer window would look better than it is: the suggestion stays at or
 * below the recorded setting.
 */
static void adv_cut_ceiling(struct hs_adv_ctx *c)
{
	const struct hs_halt_stats *h = &c->rep->host;
	int64_t m = hs_adv_recorded_max(c->rep);

	c->ceiling_ns = UINT64_MAX;
	if (h->sched_halts || !h->poll_misses || m < 0 ||
	    100.0 * (double)h->polls_cut < HS_ADV_CUT_PCT * (double)h->poll_misses)
		return;
	c->ceiling_ns = (uint64_t)m;
}

static void adv_text_open(struct hs_adv_ctx *c)
{
	c->buf = NULL;
	c->len = 0;
	c->text = open_memstream(&c->buf, &c->len);
}

static void adv_text_close(struct hs_adv_ctx *c)
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

static void adv_init(struct hs_advice *adv, const struct hs_adv_ctx *c, uint64_t delta)
{
	hs_advice_free(adv);
	snprintf(adv->objective, sizeof(adv->objective), "%s", c->obj->name);
	snprintf(adv->confidence, sizeof(adv->confidence), "high");
	adv->max_poll_cpu_pct = c->budget;
	adv->wake_overhead_ns = delta;
}

static unsigned int adv_active_vcpus(const struct hs_report *rep, int tgid)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < rep->nvcpus; i++)
		if (hs_adv_vcpu_in(&rep->vcpus[i], tgid) && rep->vcpus[i].stats.halts)
			n++;
	return n;
}

static bool adv_differs(uint64_t a, uint64_t b)
{
	uint64_t lo = a < b ? a : b, hi = a < b ? b : a;

	return (lo == 0 && hi > 0) || hi >= 2 * lo;
}

/* A VM whose best value is far from the host-wide one gets its own. */
static void adv_vm(struct hs_adv_ctx *host, struct hs_report_vm *vm, uint64_t global)
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
	c.delta = adv_price_delta(adv_delta(host->rep, vm->tgid));
	adv_scope_pct(host->rep, &s);
	adv_scope_pick(&c, &s);
	g = hs_adv_row_of(&s, (int64_t)global);
	if (s.best < 0 || g < 0 || !adv_differs(s.rows[s.best].halt_poll_ns, global) ||
	    s.utility[s.best] <= s.utility[g])
		return;
	b = &s.rows[s.best];
	c.adv = &vm->advice;
	adv_init(c.adv, &c, adv_delta(host->rep, vm->tgid));
	c.adv->valid = true;
	c.adv->halt_poll_ns = b->halt_poll_ns;
	if (vm->stats.halts < 5000)
		hs_adv_confidence_lower(c.adv, "medium");
	hs_adv_finding(c.adv, "per_vm");
	adv_text_open(&c);
	hs_adv_say(&c, "VM %s: halt_poll_ns %llu gives %.1f%% hits with the busiest vCPU polling %.1f%% of a CPU, against %.1f%% and %.1f%% at the host-wide %llu.",
		   vm->name[0] ? vm->name : vm->comm, (unsigned long long)b->halt_poll_ns,
		   100 * b->hit_rate, s.vcpu_pct[s.best], 100 * s.rows[g].hit_rate,
		   s.vcpu_pct[g], (unsigned long long)global);
	hs_adv_say(&c, "Set it for this VM alone from its VMM with KVM_ENABLE_CAP(KVM_CAP_HALT_POLL) (Linux 5.8+); the module parameter stays the host-wide default.");
	adv_text_close(&c);
	hs_adv_finding(host->adv, "per_vm_differs");
	hs_adv_say(host, "VM %s would do better with %llu (%.1f%% hits) than with %llu (%.1f%%): set it per VM with KVM_CAP_HALT_POLL.",
		   vm->name[0] ? vm->name : vm->comm, (unsigned long long)b->halt_poll_ns,
		   100 * b->hit_rate, (unsigned long long)global, 100 * s.rows[g].hit_rate);
}

static void adv_no_data(struct hs_adv_ctx *c)
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
static void adv_suggested_rows(struct hs_report *rep)
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
	uint64_t delta = adv_delta(rep, -2);

	c.obj = hs_adv_objective_find(opts ? opts->objective : NULL);
	c.budget = opts && opts->max_poll_cpu_pct > 0 ? opts->max_poll_cpu_pct :
		c.obj->budget_pct;
	c.delta = adv_price_delta(delta);
	adv_init(c.adv, &c, delta);
	for (unsigned int i = 0; i < rep->nvms; i++)
		hs_advice_free(&rep->vms[i].advice);
	if (opts && !opts->enabled)
		return;
	adv_text_open(&c);
	if (!s.n || !rep->host.halts) {
		adv_no_data(&c);
		adv_text_close(&c);
		return;
	}
	s.nvcpus = adv_active_vcpus(rep, -2);
	adv_cut_ceiling(&c);
	adv_scope_pct(rep, &s);
	adv_scope_pick(&c, &s);
	c.adv->valid = s.best >= 0;
	c.adv->halt_poll_ns = s.best >= 0 ? s.rows[s.best].halt_poll_ns : 0;
	hs_adv_explain_choice(&c, &s, hs_kernel_era_from_release(rep->meta.kernel_release));
	hs_adv_cliffs(&c, &s);
	hs_adv_wake_model(&c);
	hs_adv_wake_overhead(&c, delta);
	hs_adv_contention(&c);
	hs_adv_steal(&c);
	hs_adv_cut_explain(&c);
	hs_adv_explain_recorded(&c, &s);
	hs_adv_selfcheck(&c);
	hs_adv_confidence(&c);
	hs_adv_periodic(&c, &s);
	hs_adv_flapping(&c);
	hs_adv_polling_off(&c);
	for (unsigned int i = 0; i < rep->nvms; i++)
		adv_vm(&c, &rep->vms[i], c.adv->halt_poll_ns);
	hs_adv_apply(&c, c.adv->halt_poll_ns);
	adv_text_close(&c);
	adv_suggested_rows(rep);
}
