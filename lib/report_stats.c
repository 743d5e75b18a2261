// SPDX-License-Identifier: GPL-2.0-only
/*
 * The figures of one row of the report: a vCPU's counts and polling CPU
 * from its accounting, sums for a VM or the host, and the rates over a span.
 */
#include <stdlib.h>
#include <string.h>

#include "report_stats.h"

void hs_stats_counters(struct hs_halt_stats *s, const struct hs_vcpu_acct *v)
{
	s->halts += v->halts;
	s->poll_hits += v->poll_hits;
	s->waits += v->waits;
	s->poll_misses += v->poll_misses;
	s->nopoll_waits += v->nopoll_waits;
	s->unknown_waits += v->unknown_waits;
	s->invalid += v->invalid;
	s->grows += v->grows;
	s->shrinks += v->shrinks;
	s->flaps += v->flaps;
	s->sched_halts += v->sched_halts;
	s->contended_halts += v->contended_halts;
	s->sched_halt_ns += v->sched_halt_ns;
	s->contended_ns += v->contended_ns;
	for (unsigned int k = 0; k < HS_WSRC_COUNT; k++)
		s->inferred_waits[k] += v->inferred_waits[k];
	for (unsigned int k = 0; k < HS_UNK_COUNT; k++)
		s->unknown_why[k] += v->unknown_why[k];
}

static uint64_t u64_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* A vCPU's polling CPU, which nothing may show above its own span. */
void hs_stats_poll(struct hs_halt_stats *s, const struct hs_vcpu_acct *v)
{
	uint64_t span;

	s->poll_ns = v->poll_ns;
	s->poll_bounded_ns = v->poll_bounded_ns;
	s->polls_cut = v->polls_cut;
	s->first_start_ts = v->first_start_ts ? v->first_start_ts : v->first_ts;
	s->last_ts = v->last_ts;
	span = s->last_ts > s->first_start_ts ? s->last_ts - s->first_start_ts : 0;
	if (s->poll_ns <= span)
		return;
	s->poll_clamped = true;
	s->poll_ns = span;
	if (s->poll_bounded_ns > span)
		s->poll_bounded_ns = span;
}

/* Mostly exact is not an upper bound: a few halts come before the sched events reach back. */
void hs_stats_poll_bound(struct hs_halt_stats *s)
{
	s->poll_upper_bound = (double)s->poll_bounded_ns > 0.01 * (double)s->poll_ns;
}

/* Sums of the vCPUs' (clamped) polling CPU, and the span they cover. */
void hs_stats_poll_add(struct hs_halt_stats *into, const struct hs_halt_stats *from)
{
	into->poll_ns = u64_add_sat(into->poll_ns, from->poll_ns);
	into->poll_bounded_ns = u64_add_sat(into->poll_bounded_ns, from->poll_bounded_ns);
	into->polls_cut += from->polls_cut;
	into->poll_clamped |= from->poll_clamped;
	if (!into->first_start_ts || from->first_start_ts < into->first_start_ts)
		into->first_start_ts = from->first_start_ts;
	if (from->last_ts > into->last_ts)
		into->last_ts = from->last_ts;
}

/* The shares of the summed contention counters: unknown without a tracked halt. */
void hs_stats_contention(struct hs_halt_stats *s)
{
	s->contended_share = s->sched_halts ? (double)s->contended_halts / s->sched_halts : -1;
	s->contended_time_share = s->sched_halt_ns ?
				  (double)s->contended_ns / (double)s->sched_halt_ns : -1;
}

void hs_stats_hist(struct hs_halt_stats *s, const struct hs_hist *h)
{
	s->sum_ns = h->sum;
	s->min_ns = h->min;
	s->max_ns = h->max;
	s->mean_ns = h->count ? (double)h->sum / (double)h->count : 0;
	s->p50_ns = hs_hist_quantile(h, 0.5);
	s->p90_ns = hs_hist_quantile(h, 0.9);
	s->p99_ns = hs_hist_quantile(h, 0.99);
	s->p999_ns = hs_hist_quantile(h, 0.999);
	s->hit_rate = s->halts ? (double)s->poll_hits / (double)s->halts : 0;
}

void hs_window_sum_add(struct hs_window_sum *w, const struct hs_vcpu_acct *v)
{
	w->area += v->window_area;
	w->time += v->window_time;
	if (v->window > w->last)
		w->last = v->window;
}

void hs_window_sum_put(struct hs_halt_stats *s, const struct hs_window_sum *w)
{
	s->window_last_ns = w->last;
	if (w->time)
		s->window_mean_ns = w->area / (double)w->time;
	else
		s->window_mean_ns = w->last >= 0 ? (double)w->last : -1;
}

void hs_log2_add(struct hs_log2_hist *into, const struct hs_log2_hist *from)
{
	unsigned int i;

	for (i = 0; i < HS_LOG2_BUCKETS; i++) {
		into->poll[i] += from->poll[i];
		into->wait[i] += from->wait[i];
	}
}

static void stats_rates(struct hs_halt_stats *s, double seconds)
{
	s->halts_per_s = seconds > 0 ? (double)s->halts / seconds : 0;
	s->poll_cpu_pct = seconds > 0 ? (double)s->poll_ns / (seconds * 1e9) * 100 : 0;
}

static void whatif_per_vcpu(struct hs_whatif_row *rows, unsigned int n, unsigned int nvcpus)
{
	for (unsigned int i = 0; i < n; i++)
		rows[i].poll_cpu_pct_per_vcpu = rows[i].poll_cpu_pct / (nvcpus ? nvcpus : 1);
}

static void guest_rates(struct hs_report_guest_cpu *g, double seconds)
{
	uint64_t polls = g->poll_hits + g->poll_misses;

	g->entries_total = g->residency_total_ns = 0;
	for (unsigned int s = 0; s < HS_IDLE_STATES; s++) {
		g->entries_total += g->entries[s];
		g->residency_total_ns += g->residency_ns[s];
		g->residency_pct[s] = seconds > 0 ? (double)g->residency_ns[s] / (seconds * 1e9) * 100
						  : -1;
	}
	g->entries_per_s = seconds > 0 ? (double)g->entries_total / seconds : -1;
	g->poll_entries_per_s = seconds > 0 ? (double)g->entries[0] / seconds : -1;
	g->idle_pct = seconds > 0 ? (double)g->residency_total_ns / (seconds * 1e9) * 100 : -1;
	g->poll_cpu_pct = g->residency_pct[0];
	g->poll_hit_rate = polls ? (double)g->poll_hits / (double)polls : -1;
}

void hs_report_rates(struct hs_report *rep, double seconds)
{
	unsigned int vm_active;

	rep->span_s = seconds;
	rep->active_vcpus = 0;
	stats_rates(&rep->host, seconds);
	for (unsigned int i = 0; i < rep->nvcpus; i++) {
		struct hs_report_vcpu *v = &rep->vcpus[i];

		stats_rates(&v->stats, seconds);
		whatif_per_vcpu(v->what_if, v->n_what_if, 1);
		rep->active_vcpus += v->stats.halts > 0;
	}
	for (unsigned int i = 0; i < rep->nvms; i++) {
		struct hs_report_vm *m = &rep->vms[i];

		stats_rates(&m->stats, seconds);
		vm_active = 0;
		for (unsigned int k = 0; k < rep->nvcpus; k++)
			vm_active += hs_report_vcpu_in_vm(&rep->vcpus[k], m) &&
				     rep->vcpus[k].stats.halts > 0;
		whatif_per_vcpu(m->what_if, m->n_what_if, vm_active);
	}
	whatif_per_vcpu(rep->host_what_if, rep->n_host_what_if, rep->active_vcpus);
	for (unsigned int i = 0; i < rep->nguest; i++)
		guest_rates(&rep->guest[i], seconds);
}
