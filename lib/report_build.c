// SPDX-License-Identifier: GPL-2.0-only
/*
 * Builds the report model from a finished accounting: the rows the filter
 * selects, each vCPU's figures and what-if, the VMs and the host, the guest
 * layer and the warnings, so that the writers compute nothing themselves.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "report_build.h"
#include "report_group.h"
#include "report_select.h"
#include "report_stats.h"
#include "report_warn.h"

static uint64_t *u64_dup(const uint64_t *src, size_t n)
{
	uint64_t *p = malloc(n * sizeof(*p));

	if (p)
		memcpy(p, src, n * sizeof(*p));
	return p;
}

static int vcpu_linear(struct hs_report_vcpu *r, const struct hs_vcpu_acct *v,
		       const struct hs_account_opts *o)
{
	size_t n = (size_t)o->linear_entries + 1;

	if (!v->linear_poll || !v->linear_wait)
		return 0;
	r->linear.bucket_ns = o->linear_bucket_ns;
	r->linear.entries = o->linear_entries;
	r->linear.poll = u64_dup(v->linear_poll, n);
	r->linear.wait = u64_dup(v->linear_wait, n);
	return r->linear.poll && r->linear.wait ? 0 : HS_ERR_RUNTIME;
}

static void vcpu_whatif(struct hs_report_vcpu *r, const struct hs_vcpu_acct *v, double stolen)
{
	r->selfcheck.agree_pct = -1;
	hs_max_in_force_init(&r->max);
	if (!v->whatif)
		return;
	r->n_what_if = hs_whatif_rows(v->whatif, r->what_if);
	if (r->n_what_if > HS_WHATIF_MAX_CANDIDATES)
		r->n_what_if = HS_WHATIF_MAX_CANDIDATES;
	hs_whatif_rows_steal(r->what_if, r->n_what_if, stolen);
	hs_whatif_selfcheck(v->whatif, &r->selfcheck);
	r->max.module_ns = r->selfcheck.module_max_ns;
	r->max.lo = r->selfcheck.max_lo;
	r->max.hi = r->selfcheck.max_hi;
	r->max.soft = r->selfcheck.max_soft;
	r->max.source = r->selfcheck.max_source;
	r->max.max_ns = r->max.source == HS_MAX_NONE ? -1 : (int64_t)r->selfcheck.replayed_max_ns;
	r->max.nvcpus = r->max.lo > 0 || r->max.hi != UINT64_MAX;
	r->wake_overhead_ns = hs_whatif_wake_overhead_ns(v->whatif);
	hs_whatif_wake_overhead_range(v->whatif, &r->wake_overhead_lo_ns, &r->wake_overhead_hi_ns);
	hs_whatif_wake_overhead_measured(v->whatif, &r->wake_measured);
	hs_whatif_wake_model(v->whatif, &r->wake);
}

static int vcpu_fill(struct hs_report_vcpu *r, const struct hs_sel *s,
		     const struct hs_account *acct, double stolen)
{
	const struct hs_vcpu_acct *v = s->v;
	struct hs_window_sum w = { .last = HS_WINDOW_UNKNOWN };

	r->tid = v->tid;
	r->tgid = s->tgid;
	memcpy(r->comm, s->comm, sizeof(r->comm));
	r->vcpu_index = s->vcpu_index;
	r->vcpu_id = v->vcpu_id;
	memcpy(r->vm, s->vm, sizeof(r->vm));
	hs_stats_counters(&r->stats, v);
	hs_stats_poll(&r->stats, v);
	hs_stats_poll_bound(&r->stats);
	hs_stats_contention(&r->stats);
	hs_stats_hist(&r->stats, &v->all);
	hs_window_sum_add(&w, v);
	hs_window_sum_put(&r->stats, &w);
	memcpy(r->log2.poll, v->log2_poll, sizeof(r->log2.poll));
	memcpy(r->log2.wait, v->log2_wait, sizeof(r->log2.wait));
	vcpu_whatif(r, v, stolen);
	r->timed_waits = v->timed_waits;
	r->suggested_row = -1;
	r->hist = malloc(sizeof(*r->hist));
	if (!r->hist)
		return HS_ERR_RUNTIME;
	*r->hist = v->all;
	return vcpu_linear(r, v, hs_account_options(acct));
}

static int report_vcpus(struct hs_report *rep, const struct hs_account *acct,
			const struct hs_report_filter *filter, bool *filtered_out)
{
	struct hs_sel *sel;
	int n = hs_report_select(acct, filter, &sel);
	unsigned int i;
	int ret = HS_ERR_RUNTIME;

	if (n < 0)
		return HS_ERR_RUNTIME;
	*filtered_out = n == 0 && hs_filter_active(filter) && hs_account_nvcpus(acct);
	rep->vcpus = calloc((size_t)n + 1, sizeof(*rep->vcpus));
	if (!rep->vcpus)
		goto out;
	for (i = 0; i < (unsigned int)n; i++) {
		rep->nvcpus++;
		if (vcpu_fill(&rep->vcpus[i], &sel[i], acct, rep->steal_runnable_share))
			goto out;
	}
	hs_report_poll_host_clamp(rep);
	ret = hs_report_vms(rep, sel);
	for (i = 0; !ret && i < rep->nvms; i++)
		ret = hs_vm_linear(rep, &rep->vms[i]);
	if (!ret)
		ret = hs_report_order(rep);
out:
	free(sel);
	return ret;
}

/*
 * The recorded names of the idle states; a recording without them (older
 * files, pasted text) still knows the haltpoll driver's two.
 */
static void report_idle_names(struct hs_report *rep)
{
	bool haltpoll = !strcmp(rep->meta.cpuidle_driver, "haltpoll");

	for (unsigned int s = 0; s < HS_IDLE_STATES; s++) {
		const char *name = rep->meta.idle_state_name[s];

		if (!name[0] && haltpoll && s <= 1)
			name = s == 0 ? "POLL" : "haltpoll idle";
		snprintf(rep->idle_state_name[s], sizeof(rep->idle_state_name[s]), "%s", name);
	}
}

static void report_header(struct hs_report *rep, const struct hs_account *acct)
{
	uint64_t lost;

	/* hs_account_meta() only hands out a pointer; the copy leaves acct untouched */
	rep->meta = *hs_account_meta((struct hs_account *)acct);
	rep->first_ts = hs_account_first_ts(acct);
	rep->last_ts = hs_account_last_ts(acct);
	rep->duration_s = (double)(rep->last_ts - rep->first_ts) / 1e9;
	rep->events_wakeup = hs_account_events(acct, HS_EV_VCPU_WAKEUP);
	rep->events_poll_ns = hs_account_events(acct, HS_EV_HALT_POLL_NS);
	rep->events_idle = hs_account_events(acct, HS_EV_CPU_IDLE);
	rep->events_guest_poll = hs_account_events(acct, HS_EV_GUEST_HALT_POLL_NS);
	rep->events_sched_switch = hs_account_events(acct, HS_EV_SCHED_SWITCH);
	rep->events_sched_wakeup = hs_account_events(acct, HS_EV_SCHED_WAKEUP);
	rep->events_sched_waking = hs_account_events(acct, HS_EV_SCHED_WAKING);
	rep->events_total = rep->events_wakeup + rep->events_poll_ns + rep->events_idle +
			    rep->events_guest_poll + rep->events_sched_switch +
			    rep->events_sched_wakeup + rep->events_sched_waking;
	report_idle_names(rep);
	rep->steal_share = hs_cpu_steal_wall_share(&rep->meta.steal, rep->meta.record_seconds);
	rep->steal_runnable_share = hs_cpu_steal_runnable_share(&rep->meta.steal);
	lost = rep->meta.lost_events;
	if (!rep->meta.lost_known)
		rep->lost_pct = -1;
	else if (lost)
		rep->lost_pct = (double)lost / ((double)rep->events_total + (double)lost) * 100;
}

/* A guest CPU's replay of the haltpoll governor, and its sum into the guest layer's totals. */
static void report_guest_whatif(struct hs_report *rep, struct hs_report_guest_cpu *r,
				const struct hs_guest_whatif *w)
{
	if (!w)
		return;
	r->n_what_if = hs_guest_whatif_rows(w, r->what_if);
	hs_guest_whatif_selfcheck(w, &r->selfcheck);
	r->halt_extra_ns = hs_guest_whatif_halt_extra_ns(w, &r->halt_extra_samples);
	rep->guest_simulated = *hs_guest_whatif_params(w);
	if (!r->n_what_if || !r->what_if[0].wakes)
		return;
	/* the metadata is the same for every CPU, and so are the candidates */
	if (rep->n_guest_what_if && rep->n_guest_what_if != r->n_what_if)
		return;
	rep->n_guest_what_if = r->n_what_if;
	hs_guest_whatif_rows_sum(rep->guest_what_if, r->what_if, r->n_what_if);
	rep->active_guest_cpus++;
}

static void report_guest_extra(struct hs_report *rep)
{
	double sum = 0, w = 0;

	for (unsigned int i = 0; i < rep->nguest; i++) {
		const struct hs_report_guest_cpu *g = &rep->guest[i];
		double wakes = g->n_what_if ? (double)g->what_if[0].wakes : 0;

		sum += (double)g->halt_extra_ns * wakes;
		w += wakes;
	}
	rep->guest_halt_extra_ns = w ? (uint64_t)(sum / w + 0.5) : 0;
	for (unsigned int j = 0; j < rep->n_guest_what_if; j++)
		rep->guest_what_if[j].poll_cpu_pct_per_cpu = rep->guest_what_if[j].poll_cpu_pct /
			(rep->active_guest_cpus ? rep->active_guest_cpus : 1);
}

static int report_guest(struct hs_report *rep, const struct hs_account *acct)
{
	unsigned int i, n = hs_account_nguest(acct);

	rep->guest = calloc(n + 1, sizeof(*rep->guest));
	if (!rep->guest)
		return HS_ERR_RUNTIME;
	for (i = 0; i < n; i++) {
		const struct hs_guest_cpu_acct *g = hs_account_guest(acct, i);
		struct hs_report_guest_cpu *r = &rep->guest[i];

		r->cpu = g->cpu;
		memcpy(r->entries, g->entries, sizeof(r->entries));
		memcpy(r->residency_ns, g->residency_ns, sizeof(r->residency_ns));
		r->poll_hits = g->poll_hits;
		r->poll_misses = g->poll_misses;
		r->grows = g->grows;
		r->shrinks = g->shrinks;
		r->window_last_ns = g->window;
		if (g->window_time)
			r->window_mean_ns = g->window_area / (double)g->window_time;
		else
			r->window_mean_ns = g->window >= 0 ? (double)g->window : -1;
		report_guest_whatif(rep, r, g->whatif);
	}
	rep->nguest = n;
	report_guest_extra(rep);
	return 0;
}

/* HS_OK, or HS_ERR_RUNTIME out of memory (rep is then freed and empty). acct must be finished. */
int hs_report_build(struct hs_report *rep, const struct hs_account *acct,
		    const struct hs_report_filter *filter)
{
	bool filtered_out = false;

	memset(rep, 0, sizeof(*rep));
	report_header(rep, acct);
	if (report_vcpus(rep, acct, filter, &filtered_out) || report_guest(rep, acct) ||
	    (filter && filter->threads && hs_report_threads(rep, acct))) {
		hs_report_free(rep);
		return HS_ERR_RUNTIME;
	}
	hs_report_rates(rep, rep->duration_s);
	hs_report_warnings(rep, acct, filter, filtered_out);
	return 0;
}
