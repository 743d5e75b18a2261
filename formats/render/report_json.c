// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON report ("haltstat.report/1", described by formats/render/report.schema.json).
 * Units are in the key names (_ns, _s, _pct; rates are 0..1). Unknown values
 * are null, never -1, NaN or infinity. JSON integers are signed 64-bit here:
 * unsigned values above 2^63-1 (only reachable from corrupt input) are
 * clamped to 2^63-1.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../../lib/error.h"
#include "jsonw.h"
#include "output.h"
#include "report_json_guest.h"

#define HS_REPORT_SCHEMA "haltstat.report/1"

static json_t *jstr(const char *s)
{
	return hs_jw_str(s, SIZE_MAX);
}

#define JFIELD(field) hs_jw_str(field, sizeof(field))

static json_t *jstr_known(const char *s, size_t max)
{
	return s && s[0] ? hs_jw_str(s, max) : json_null();
}

#define JFIELD_KNOWN(field) jstr_known(field, sizeof(field))

static uint64_t log2_lo(unsigned int i)
{
	return i == 0 ? 0 : (uint64_t)1 << (i - 1);
}

static json_t *log2_json(struct hs_jw *j, const struct hs_log2_hist *h)
{
	json_t *arr = json_array();

	for (unsigned int i = 0; i < HS_LOG2_BUCKETS; i++) {
		json_t *b;

		if (!h->poll[i] && !h->wait[i])
			continue;
		b = json_object();
		hs_jw_put(j, b, "lo_ns", hs_jw_u64(log2_lo(i)));
		hs_jw_put(j, b, "hi_ns", i + 1 < HS_LOG2_BUCKETS ? hs_jw_u64(log2_lo(i + 1)) : hs_jw_u64(UINT64_MAX));
		hs_jw_put(j, b, "poll", hs_jw_u64(h->poll[i]));
		hs_jw_put(j, b, "wait", hs_jw_u64(h->wait[i]));
		hs_jw_push(j, arr, b);
	}
	return arr;
}

static json_t *linear_json(struct hs_jw *j, const struct hs_linear_hist *h)
{
	json_t *o = json_object(), *arr = json_array(), *over = json_object();
	uint64_t lo;

	hs_jw_put(j, o, "bucket_ns", hs_jw_u64(h->bucket_ns));
	hs_jw_put(j, o, "entries", json_integer(h->entries));
	for (unsigned int i = 0; i < h->entries; i++) {
		json_t *b;

		if (!h->poll[i] && !h->wait[i])
			continue;
		b = json_object();
		lo = h->bucket_ns * i;
		hs_jw_put(j, b, "lo_ns", hs_jw_u64(lo));
		hs_jw_put(j, b, "hi_ns", hs_jw_u64(lo + h->bucket_ns));
		hs_jw_put(j, b, "poll", hs_jw_u64(h->poll[i]));
		hs_jw_put(j, b, "wait", hs_jw_u64(h->wait[i]));
		hs_jw_push(j, arr, b);
	}
	hs_jw_put(j, o, "buckets", arr);
	hs_jw_put(j, over, "lo_ns", hs_jw_u64(h->bucket_ns * h->entries));
	hs_jw_put(j, over, "poll", hs_jw_u64(h->poll[h->entries]));
	hs_jw_put(j, over, "wait", hs_jw_u64(h->wait[h->entries]));
	hs_jw_put(j, o, "over", over);
	return o;
}

#define MEASURED(field) HS_JW_U64(struct hs_wake_overhead_measured, field)
static const struct hs_jw_field wake_measured_fields[] = {
	MEASURED(waits), MEASURED(p10_ns), MEASURED(p50_ns), MEASURED(p90_ns), MEASURED(p99_ns),
};
#undef MEASURED

/* The timed waits' overhead quantiles; null when Δ was estimated. */
static json_t *wake_measured_json(struct hs_jw *j, const struct hs_wake_overhead_measured *m)
{
	json_t *o;

	if (!m->waits)
		return json_null();
	o = json_object();
	hs_jw_put_fields(j, o, m, wake_measured_fields,
			 sizeof(wake_measured_fields) / sizeof(wake_measured_fields[0]));
	return o;
}

static json_t *wake_model_json(struct hs_jw *j, const struct hs_wake_choice *c)
{
	json_t *o = json_object();

	hs_jw_put(j, o, "model", hs_jw_str(c->model == HS_WAKE_OPEN ? "open" : "closed", SIZE_MAX));
	hs_jw_put(j, o, "supported", json_boolean(c->supported));
	hs_jw_put(j, o, "shift_ns", hs_jw_num(c->shift_ns));
	hs_jw_put(j, o, "pairs", hs_jw_u64(c->pairs));
	hs_jw_put(j, o, "evidence", hs_jw_str(c->from_timed ? "timed_waits" :
					      c->supported ? "hit_pairs" : "none", SIZE_MAX));
	hs_jw_put(j, o, "timed_pairs", hs_jw_u64(c->timed_pairs));
	hs_jw_put(j, o, "slope", c->timed_pairs ? hs_jw_num(c->slope) : json_null());
	hs_jw_put(j, o, "slope_se", c->timed_pairs ? hs_jw_num(c->slope_se) : json_null());
	return o;
}

#define ROW(kind, field) HS_JW_##kind(struct hs_whatif_row, field)
static const struct hs_jw_field whatif_fields[] = {
	ROW(U64, halt_poll_ns), ROW(U64, halts), ROW(U64, hits), ROW(NUM, hit_rate),
	ROW(NUM, hit_rate_low), ROW(NUM, hit_rate_high), ROW(NUM, poll_cpu_s),
	ROW(NUM, poll_cpu_s_low), ROW(NUM, poll_cpu_s_high), ROW(NUM, miss_cpu_s),
	ROW(NUM, poll_cpu_pct), ROW(NUM, poll_cpu_pct_per_vcpu), ROW(NUM, flaps_per_s),
	ROW(U64, grows), ROW(U64, shrinks),
};
#undef ROW

static json_t *whatif_json(struct hs_jw *j, const struct hs_whatif_row *rows, unsigned int n)
{
	json_t *arr = json_array();

	for (unsigned int i = 0; i < n; i++) {
		json_t *o = json_object();

		hs_jw_put_fields(j, o, &rows[i], whatif_fields,
				 sizeof(whatif_fields) / sizeof(whatif_fields[0]));
		hs_jw_push(j, arr, o);
	}
	return arr;
}

/* Halts with another task runnable on the vCPU's CPU; shares null when unknown. */
static json_t *contention_json(struct hs_jw *j, const struct hs_halt_stats *s)
{
	json_t *o = json_object();
	bool known = s->sched_halts > 0;

	hs_jw_put(j, o, "known", json_boolean(known));
	hs_jw_put(j, o, "halts_tracked", hs_jw_u64(s->sched_halts));
	hs_jw_put(j, o, "halts_contended", hs_jw_u64(s->contended_halts));
	hs_jw_put(j, o, "halt_share", known ? hs_jw_num_known(s->contended_share) : json_null());
	hs_jw_put(j, o, "time_share", known ? hs_jw_num_known(s->contended_time_share) :
					      json_null());
	return o;
}

/* {name: count} for the named counters. */
static json_t *counts_json(struct hs_jw *j, const uint64_t *c, const char *const *names,
			   unsigned int n)
{
	json_t *o = json_object();

	for (unsigned int i = 0; i < n; i++)
		hs_jw_put(j, o, names[i], hs_jw_u64(c[i]));
	return o;
}

/* The counters and times every level (vCPU, VM, host) shares, flat in obj. */
static const struct hs_jw_field window_fields[] = {
	HS_JW_I64_KNOWN_AS("last_ns", struct hs_halt_stats, window_last_ns),
	HS_JW_NUM_KNOWN_AS("mean_ns", struct hs_halt_stats, window_mean_ns),
	HS_JW_U64(struct hs_halt_stats, grows),
	HS_JW_U64(struct hs_halt_stats, shrinks),
	HS_JW_U64(struct hs_halt_stats, flaps),
};

static void stats_json(struct hs_jw *j, json_t *obj, const struct hs_halt_stats *s)
{
	json_t *t = json_object(), *w = json_object();
	bool any = s->halts > 0;

	hs_jw_put(j, obj, "halts", hs_jw_u64(s->halts));
	hs_jw_put(j, obj, "poll_hits", hs_jw_u64(s->poll_hits));
	hs_jw_put(j, obj, "waits", hs_jw_u64(s->waits));
	hs_jw_put(j, obj, "poll_misses", hs_jw_u64(s->poll_misses));
	hs_jw_put(j, obj, "nopoll_waits", hs_jw_u64(s->nopoll_waits));
	hs_jw_put(j, obj, "unknown_waits", hs_jw_u64(s->unknown_waits));
	hs_jw_put(j, obj, "invalid", hs_jw_u64(s->invalid));
	hs_jw_put(j, obj, "hit_rate", hs_jw_num(s->hit_rate));
	hs_jw_put(j, obj, "halts_per_s", hs_jw_num(s->halts_per_s));
	hs_jw_put(j, obj, "poll_ns", hs_jw_u64(s->poll_ns));
	hs_jw_put(j, obj, "poll_cpu_s", hs_jw_num((double)s->poll_ns / 1e9));
	hs_jw_put(j, obj, "poll_cpu_pct", hs_jw_num(s->poll_cpu_pct));
	hs_jw_put(j, obj, "poll_bounded_ns", hs_jw_u64(s->poll_bounded_ns));
	hs_jw_put(j, obj, "poll_cpu_upper_bound", json_boolean(s->poll_upper_bound));
	hs_jw_put(j, obj, "poll_clamped", json_boolean(s->poll_clamped));
	hs_jw_put(j, obj, "polls_cut", hs_jw_u64(s->polls_cut));
	/* An empty histogram has no minimum; 0 keeps every field an integer. */
	hs_jw_put(j, t, "sum", hs_jw_u64(s->sum_ns));
	hs_jw_put(j, t, "min", hs_jw_u64(any ? s->min_ns : 0));
	hs_jw_put(j, t, "max", hs_jw_u64(any ? s->max_ns : 0));
	hs_jw_put(j, t, "mean", hs_jw_num(any ? s->mean_ns : 0));
	hs_jw_put(j, t, "p50", hs_jw_u64(any ? s->p50_ns : 0));
	hs_jw_put(j, t, "p90", hs_jw_u64(any ? s->p90_ns : 0));
	hs_jw_put(j, t, "p99", hs_jw_u64(any ? s->p99_ns : 0));
	hs_jw_put(j, t, "p999", hs_jw_u64(any ? s->p999_ns : 0));
	hs_jw_put(j, obj, "halt_ns", t);
	hs_jw_put_fields(j, w, s, window_fields, sizeof(window_fields) / sizeof(window_fields[0]));
	hs_jw_put(j, obj, "window", w);
	hs_jw_put(j, obj, "contention", contention_json(j, s));
	hs_jw_put(j, obj, "window_inferred", counts_json(j, s->inferred_waits,
							  hs_window_source_names, HS_WSRC_COUNT));
	hs_jw_put(j, obj, "unknown_why", counts_json(j, s->unknown_why, hs_unknown_reason_names,
						      HS_UNK_COUNT));
}

static json_t *max_json(struct hs_jw *j, const struct hs_max_in_force *m)
{
	json_t *o = json_object();

	hs_jw_put(j, o, "ns", hs_jw_i64_known(m->max_ns));
	hs_jw_put(j, o, "source", jstr(hs_max_source_name(m->source)));
	hs_jw_put(j, o, "module_ns", hs_jw_i64_known(m->module_ns));
	hs_jw_put(j, o, "lo_ns", hs_jw_u64(m->lo));
	hs_jw_put(j, o, "hi_ns", m->hi == UINT64_MAX ? json_null() : hs_jw_u64(m->hi));
	return o;
}

static json_t *advice_json(struct hs_jw *j, const struct hs_advice *a,
			   const struct hs_whatif_row *rows, unsigned int n)
{
	json_t *o, *f;

	if (!a->valid)
		return json_null();
	o = json_object();
	f = json_array();
	hs_jw_put(j, o, "halt_poll_ns", hs_jw_u64(a->halt_poll_ns));
	hs_jw_put(j, o, "objective", JFIELD(a->objective));
	hs_jw_put(j, o, "confidence", JFIELD(a->confidence));
	hs_jw_put(j, o, "max_poll_cpu_pct", hs_jw_num_known(a->max_poll_cpu_pct));
	hs_jw_put(j, o, "wake_overhead_ns", hs_jw_u64(a->wake_overhead_ns));
	hs_jw_put(j, o, "what_if", whatif_json(j, rows, n));
	hs_jw_put(j, o, "text", a->text ? jstr(a->text) : json_null());
	for (unsigned int i = 0; a->findings && i < a->nfindings; i++)
		hs_jw_push(j, f, jstr(a->findings[i] ? a->findings[i] : ""));
	hs_jw_put(j, o, "findings", f);
	hs_jw_put(j, o, "layer", json_string(hs_layer_name(a->layer)));
	hs_jw_put(j, o, "findings_detail", hs_json_findings_detail(j, a));
	return o;
}

static const struct hs_jw_field selfcheck_fields[] = {
	HS_JW_U64(struct hs_selfcheck, halts_compared),
	HS_JW_U64(struct hs_selfcheck, halts_agreeing),
	HS_JW_NUM_KNOWN(struct hs_selfcheck, agree_pct),
	HS_JW_U64(struct hs_selfcheck, replayed_max_ns),
};

static json_t *selfcheck_json(struct hs_jw *j, const struct hs_selfcheck *s)
{
	json_t *o = json_object();

	hs_jw_put_fields(j, o, s, selfcheck_fields,
			 sizeof(selfcheck_fields) / sizeof(selfcheck_fields[0]));
	hs_jw_put(j, o, "max_inferred", json_boolean(s->max_inferred));
	hs_jw_put(j, o, "max_source", jstr(hs_max_source_name(s->max_source)));
	return o;
}

/* 1-based place of index i in order (NULL: the array's own order). */
static json_t *rank_json(const unsigned int *order, unsigned int n, unsigned int i)
{
	for (unsigned int k = 0; order && k < n; k++)
		if (order[k] == i)
			return json_integer((json_int_t)k + 1);
	return json_integer((json_int_t)i + 1);
}

static json_t *vcpu_json(struct hs_jw *j, const struct hs_report_vcpu *v, json_t *rank)
{
	json_t *o = json_object();

	hs_jw_put(j, o, "tid", json_integer(v->tid));
	hs_jw_put(j, o, "tgid", v->tgid < 0 ? json_null() : json_integer(v->tgid));
	hs_jw_put(j, o, "comm", JFIELD(v->comm));
	hs_jw_put(j, o, "vm", JFIELD_KNOWN(v->vm));
	hs_jw_put(j, o, "vcpu_index", v->vcpu_index < 0 ? json_null() : json_integer(v->vcpu_index));
	hs_jw_put(j, o, "vcpu_id", hs_jw_i64_known(v->vcpu_id));
	stats_json(j, o, &v->stats);
	hs_jw_put(j, o, "histogram", log2_json(j, &v->log2));
	if (v->linear.entries && v->linear.poll && v->linear.wait)
		hs_jw_put(j, o, "linear_histogram", linear_json(j, &v->linear));
	hs_jw_put(j, o, "what_if", whatif_json(j, v->what_if, v->n_what_if));
	hs_jw_put(j, o, "selfcheck", selfcheck_json(j, &v->selfcheck));
	hs_jw_put(j, o, "max_in_force", max_json(j, &v->max));
	hs_jw_put(j, o, "wake_overhead_ns", hs_jw_u64(v->wake_overhead_ns));
	hs_jw_put(j, o, "wake_overhead_low_ns", hs_jw_u64(v->wake_overhead_lo_ns));
	hs_jw_put(j, o, "wake_overhead_high_ns", hs_jw_u64(v->wake_overhead_hi_ns));
	hs_jw_put(j, o, "wake_overhead_source",
		  hs_jw_str(v->wake_measured.waits ? "sched_waking" : "estimated", SIZE_MAX));
	hs_jw_put(j, o, "wake_overhead_measured", wake_measured_json(j, &v->wake_measured));
	hs_jw_put(j, o, "timed_waits", hs_jw_u64(v->timed_waits));
	hs_jw_put(j, o, "wake_model", wake_model_json(j, &v->wake));
	hs_jw_put(j, o, "rank", rank);
	return o;
}

static json_t *vm_json(struct hs_jw *j, const struct hs_report_vm *vm, json_t *rank)
{
	json_t *o = json_object();

	hs_jw_put(j, o, "tgid", vm->tgid < 0 ? json_null() : json_integer(vm->tgid));
	hs_jw_put(j, o, "name", JFIELD(vm->name));
	hs_jw_put(j, o, "comm", JFIELD(vm->comm));
	hs_jw_put(j, o, "nvcpus", json_integer(vm->nvcpus));
	stats_json(j, o, &vm->stats);
	hs_jw_put(j, o, "histogram", log2_json(j, &vm->log2));
	hs_jw_put(j, o, "what_if", whatif_json(j, vm->what_if, vm->n_what_if));
	hs_jw_put(j, o, "advice", advice_json(j, &vm->advice, vm->what_if, vm->n_what_if));
	hs_jw_put(j, o, "max_in_force", max_json(j, &vm->max));
	if (vm->linear.entries && vm->linear.poll && vm->linear.wait)
		hs_jw_put(j, o, "linear_histogram", linear_json(j, &vm->linear));
	hs_jw_put(j, o, "rank", rank);
	return o;
}

static const char *idle_state_name(const struct hs_report *r, unsigned int s)
{
	return r->idle_state_name[s][0] ? r->idle_state_name[s] : NULL;
}

#define GUEST(kind, field) HS_JW_##kind(struct hs_report_guest_cpu, field)
static const struct hs_jw_field guest_cpu_fields[] = {
	GUEST(NUM_KNOWN, idle_pct), GUEST(NUM_KNOWN, poll_cpu_pct), GUEST(NUM_KNOWN, poll_hit_rate),
	GUEST(U64, poll_hits), GUEST(U64, poll_misses), GUEST(I64_KNOWN, window_last_ns),
	GUEST(NUM_KNOWN, window_mean_ns), GUEST(U64, grows), GUEST(U64, shrinks),
};
#undef GUEST

static json_t *guest_json(struct hs_jw *j, const struct hs_report *r,
			  const struct hs_report_guest_cpu *g)
{
	json_t *o = json_object(), *states = json_array();

	hs_jw_put(j, o, "cpu", json_integer(g->cpu));
	for (unsigned int s = 0; s < HS_IDLE_STATES; s++) {
		json_t *st;

		if (!g->entries[s] && !g->residency_ns[s])
			continue;
		st = json_object();
		hs_jw_put(j, st, "state", json_integer(s));
		hs_jw_put(j, st, "name", jstr_known(idle_state_name(r, s), SIZE_MAX));
		hs_jw_put(j, st, "entries", hs_jw_u64(g->entries[s]));
		hs_jw_put(j, st, "residency_ns", hs_jw_u64(g->residency_ns[s]));
		hs_jw_put(j, st, "residency_pct", hs_jw_num_known(g->residency_pct[s]));
		hs_jw_push(j, states, st);
	}
	hs_jw_put(j, o, "idle_states", states);
	hs_jw_put_fields(j, o, g, guest_cpu_fields,
			 sizeof(guest_cpu_fields) / sizeof(guest_cpu_fields[0]));
	hs_json_guest_cpu_replay(j, o, g);
	return o;
}

/* The recorded names of the idle states, in state order, up to the last known. */
static json_t *idle_names_json(struct hs_jw *j, const struct hs_meta *m)
{
	json_t *a = json_array();
	unsigned int n = 0;

	for (unsigned int s = 0; s < HS_IDLE_STATES; s++)
		if (m->idle_state_name[s][0])
			n = s + 1;
	for (unsigned int s = 0; s < n; s++)
		hs_jw_push(j, a, JFIELD_KNOWN(m->idle_state_name[s]));
	return a;
}

static json_t *threads_json(struct hs_jw *j, const struct hs_report *r)
{
	json_t *a = json_array();

	for (unsigned int i = 0; i < r->nthreads; i++) {
		const struct hs_report_thread *t = &r->threads[i];
		json_t *o = json_object();

		hs_jw_put(j, o, "tid", json_integer(t->tid));
		hs_jw_put(j, o, "tgid", t->tgid < 0 ? json_null() : json_integer(t->tgid));
		hs_jw_put(j, o, "comm", jstr(t->comm));
		hs_jw_put(j, o, "vm", jstr(t->vm));
		hs_jw_put(j, o, "vcpu_index", t->vcpu_index < 0 ? json_null() :
			  json_integer(t->vcpu_index));
		hs_jw_put(j, o, "vcpu", json_boolean(t->vcpu));
		hs_jw_push(j, a, o);
	}
	return a;
}

static json_t *kernel_json(struct hs_jw *j, const struct hs_meta *m)
{
	json_t *o = json_object();

	hs_jw_put(j, o, "release", JFIELD_KNOWN(m->kernel_release));
	hs_jw_put(j, o, "clock", JFIELD_KNOWN(m->clock));
	hs_jw_put(j, o, "ncpus", m->ncpus < 0 ? json_null() : json_integer(m->ncpus));
	hs_jw_put(j, o, "hypervisor", m->hypervisor < 0 ? json_null() : json_boolean(m->hypervisor));
	hs_jw_put(j, o, "cpuidle_driver", JFIELD_KNOWN(m->cpuidle_driver));
	hs_jw_put(j, o, "cpuidle_governor", JFIELD_KNOWN(m->cpuidle_governor));
	hs_jw_put(j, o, "idle_states", idle_names_json(j, m));
	return o;
}

#define PARAM(field) HS_JW_I64_KNOWN(struct hs_meta, field)
static const struct hs_jw_field param_fields[] = {
	PARAM(halt_poll_ns), PARAM(halt_poll_ns_grow), PARAM(halt_poll_ns_grow_start),
	PARAM(halt_poll_ns_shrink), PARAM(guest_halt_poll_ns), PARAM(guest_halt_poll_grow),
	PARAM(guest_halt_poll_grow_start), PARAM(guest_halt_poll_shrink),
};
#undef PARAM

static json_t *params_json(struct hs_jw *j, const struct hs_meta *m)
{
	json_t *o = json_object();

	hs_jw_put_fields(j, o, m, param_fields, sizeof(param_fields) / sizeof(param_fields[0]));
	hs_jw_put(j, o, "guest_halt_poll_allow_shrink", m->guest_halt_poll_allow_shrink < 0 ?
	    json_null() : json_boolean(m->guest_halt_poll_allow_shrink));
	return o;
}

#define EVENTS(key, field) HS_JW_U64_AS(key, struct hs_report, field)
static const struct hs_jw_field event_fields[] = {
	EVENTS("total", events_total), EVENTS("kvm_vcpu_wakeup", events_wakeup),
	EVENTS("kvm_halt_poll_ns", events_poll_ns), EVENTS("cpu_idle", events_idle),
	EVENTS("guest_halt_poll_ns", events_guest_poll),
	EVENTS("sched_switch", events_sched_switch), EVENTS("sched_wakeup", events_sched_wakeup),
	EVENTS("sched_waking", events_sched_waking),
};
#undef EVENTS

static json_t *events_json(struct hs_jw *j, const struct hs_report *r)
{
	json_t *o = json_object();

	hs_jw_put_fields(j, o, r, event_fields, sizeof(event_fields) / sizeof(event_fields[0]));
	return o;
}

static json_t *kvm_json(enum hs_kvm_seen k)
{
	switch (k) {
	case HS_KVM_HALTING:
		return json_string("halting");
	case HS_KVM_IDLE:
		return json_string("idle");
	case HS_KVM_ABSENT:
		return json_string("absent");
	default:
		return json_null();
	}
}

static json_t *steal_json(struct hs_jw *j, const struct hs_report *r)
{
	json_t *o;

	if (!hs_cpu_steal_known(&r->meta.steal))
		return json_null();
	o = json_object();
	hs_jw_put(j, o, "cpus", json_integer(r->meta.steal.cpus));
	hs_jw_put(j, o, "steal_ns", json_integer(r->meta.steal.steal_ns));
	hs_jw_put(j, o, "busy_ns", json_integer(r->meta.steal.busy_ns));
	hs_jw_put(j, o, "wall_share", hs_jw_num_known(r->steal_share));
	hs_jw_put(j, o, "runnable_share", hs_jw_num_known(r->steal_runnable_share));
	return o;
}

static void top_json(struct hs_jw *j, json_t *root, const struct hs_report *r)
{
	const struct hs_meta *m = &r->meta;
	json_t *skipped = json_object(), *warn = json_array();

	hs_jw_put(j, root, "schema", json_string(HS_REPORT_SCHEMA));
	hs_jw_put(j, root, "generator", json_string("haltstat " HS_VERSION));
	hs_jw_put(j, root, "source", JFIELD_KNOWN(m->source));
	hs_jw_put(j, root, "format", JFIELD_KNOWN(m->format));
	hs_jw_put(j, root, "buffer_instance", JFIELD_KNOWN(m->buffer_instance));
	hs_jw_put(j, root, "kernel", kernel_json(j, m));
	hs_jw_put(j, root, "params", params_json(j, m));
	hs_jw_put(j, root, "duration_s", hs_jw_num(r->duration_s > 0 ? r->duration_s : 0));
	hs_jw_put(j, root, "record_seconds", hs_jw_num_known(m->record_seconds));
	hs_jw_put(j, root, "active_vcpus", json_integer(r->active_vcpus));
	hs_jw_put(j, root, "first_ts_ns", hs_jw_u64(r->first_ts));
	hs_jw_put(j, root, "last_ts_ns", hs_jw_u64(r->last_ts));
	hs_jw_put(j, root, "events", events_json(j, r));
	hs_jw_put(j, root, "lost_events", m->lost_known ? hs_jw_u64(m->lost_events) : json_null());
	hs_jw_put(j, root, "lost_unknown_places", hs_jw_u64(m->lost_unknown_places));
	hs_jw_put(j, root, "lost_pct", m->lost_known ? hs_jw_num_known(r->lost_pct) : json_null());
	hs_jw_put(j, root, "steal", steal_json(j, r));
	hs_jw_put(j, skipped, "lines", hs_jw_u64(m->skipped_lines));
	hs_jw_put(j, skipped, "pages", hs_jw_u64(m->skipped_pages));
	hs_jw_put(j, skipped, "events", hs_jw_u64(m->skipped_events));
	hs_jw_put(j, skipped, "clamped_timestamps", hs_jw_u64(m->clamped_ts));
	hs_jw_put(j, skipped, "over_limit", hs_jw_u64(m->over_limit_events));
	hs_jw_put(j, root, "skipped", skipped);
	for (unsigned int i = 0; i < r->nwarnings; i++)
		hs_jw_push(j, warn, jstr(r->warnings[i] ? r->warnings[i] : ""));
	hs_jw_put(j, root, "warnings", warn);
	hs_jw_put(j, root, "kvm", kvm_json(r->kvm));
}

static json_t *report_json(struct hs_jw *j, const struct hs_report *r)
{
	json_t *root = json_object(), *host = json_object();
	json_t *vcpus = json_array(), *vms = json_array(), *guest = json_array();

	top_json(j, root, r);
	stats_json(j, host, &r->host);
	hs_jw_put(j, host, "histogram", log2_json(j, &r->host_log2));
	hs_jw_put(j, host, "what_if", whatif_json(j, r->host_what_if, r->n_host_what_if));
	hs_jw_put(j, root, "host", host);
	for (unsigned int i = 0; i < r->nvms; i++)
		hs_jw_push(j, vms, vm_json(j, &r->vms[i], rank_json(r->vm_order, r->nvms, i)));
	hs_jw_put(j, root, "vms", vms);
	for (unsigned int i = 0; i < r->nvcpus; i++)
		hs_jw_push(j, vcpus, vcpu_json(j, &r->vcpus[i],
					       rank_json(r->vcpu_order, r->nvcpus, i)));
	hs_jw_put(j, root, "vcpus", vcpus);
	hs_jw_put(j, root, "advice", advice_json(j, &r->advice, r->host_what_if, r->n_host_what_if));
	for (unsigned int i = 0; i < r->nguest; i++)
		hs_jw_push(j, guest, guest_json(j, r, &r->guest[i]));
	hs_jw_put(j, root, "guest", guest);
	hs_jw_put(j, root, "guest_what_if", hs_json_guest_what_if(j, r->guest_what_if,
								   r->n_guest_what_if));
	hs_jw_put(j, root, "guest_advice", hs_json_guest_advice(j, r));
	if (r->threads)
		hs_jw_put(j, root, "threads", threads_json(j, r));
	return root;
}

int hs_report_write_json(FILE *out, const struct hs_report *rep)
{
	struct hs_jw j = { .bad = false };
	json_t *root = report_json(&j, rep);

	return hs_jw_dump(out, &j, root, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
}
