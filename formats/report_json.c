// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON report ("haltstat.report/1", described by formats/report.schema.json).
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

#include "../lib/error.h"
#include "output.h"

#define HS_REPORT_SCHEMA "haltstat.report/1"

/* Builders return NULL only when out of memory; a NULL anywhere fails the write. */
struct jctx {
	bool bad;
};

static void put(struct jctx *j, json_t *obj, const char *key, json_t *val)
{
	if (!obj || !val) {
		json_decref(val);
		j->bad = true;
	} else if (json_object_set_new(obj, key, val)) {
		j->bad = true;	/* the value was released by jansson */
	}
}

static void push(struct jctx *j, json_t *arr, json_t *val)
{
	if (!arr || !val) {
		json_decref(val);
		j->bad = true;
	} else if (json_array_append_new(arr, val)) {
		j->bad = true;
	}
}

static json_t *ju64(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* -1 (or any negative) means unknown. */
static json_t *ji64_known(int64_t v)
{
	return v < 0 ? json_null() : json_integer(v);
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jnum_known(double v)
{
	return v < 0 ? json_null() : jnum(v);
}

/*
 * jansson wants UTF-8; thread names are whatever bytes the kernel had, in
 * fixed arrays that may lack their NUL. Invalid text degrades to '?'.
 */
static json_t *jstrn(const char *s, size_t max)
{
	size_t n = s ? strnlen(s, max) : 0;
	json_t *v = json_stringn(s ? s : "", n);
	char *copy;

	if (v)
		return v;
	copy = malloc(n + 1);
	if (!copy)
		return NULL;
	for (size_t k = 0; k < n; k++)
		copy[k] = (unsigned char)s[k] >= 0x80 || !s[k] ? '?' : s[k];
	v = json_stringn(copy, n);
	free(copy);
	return v;
}

static json_t *jstr(const char *s)
{
	return jstrn(s, SIZE_MAX);
}

#define JFIELD(field) jstrn(field, sizeof(field))

static json_t *jstr_known(const char *s, size_t max)
{
	return s && s[0] ? jstrn(s, max) : json_null();
}

#define JFIELD_KNOWN(field) jstr_known(field, sizeof(field))

static uint64_t log2_lo(unsigned int i)
{
	return i == 0 ? 0 : (uint64_t)1 << (i - 1);
}

static json_t *log2_json(struct jctx *j, const struct hs_log2_hist *h)
{
	json_t *arr = json_array();

	for (unsigned int i = 0; i < HS_LOG2_BUCKETS; i++) {
		json_t *b;

		if (!h->poll[i] && !h->wait[i])
			continue;
		b = json_object();
		put(j, b, "lo_ns", ju64(log2_lo(i)));
		put(j, b, "hi_ns", i + 1 < HS_LOG2_BUCKETS ? ju64(log2_lo(i + 1)) : ju64(UINT64_MAX));
		put(j, b, "poll", ju64(h->poll[i]));
		put(j, b, "wait", ju64(h->wait[i]));
		push(j, arr, b);
	}
	return arr;
}

static json_t *linear_json(struct jctx *j, const struct hs_linear_hist *h)
{
	json_t *o = json_object(), *arr = json_array(), *over = json_object();
	uint64_t lo;

	put(j, o, "bucket_ns", ju64(h->bucket_ns));
	put(j, o, "entries", json_integer(h->entries));
	for (unsigned int i = 0; i < h->entries; i++) {
		json_t *b;

		if (!h->poll[i] && !h->wait[i])
			continue;
		b = json_object();
		lo = h->bucket_ns * i;
		put(j, b, "lo_ns", ju64(lo));
		put(j, b, "hi_ns", ju64(lo + h->bucket_ns));
		put(j, b, "poll", ju64(h->poll[i]));
		put(j, b, "wait", ju64(h->wait[i]));
		push(j, arr, b);
	}
	put(j, o, "buckets", arr);
	put(j, over, "lo_ns", ju64(h->bucket_ns * h->entries));
	put(j, over, "poll", ju64(h->poll[h->entries]));
	put(j, over, "wait", ju64(h->wait[h->entries]));
	put(j, o, "over", over);
	return o;
}

static json_t *whatif_json(struct jctx *j, const struct hs_whatif_row *rows, unsigned int n)
{
	json_t *arr = json_array();

	for (unsigned int i = 0; i < n; i++) {
		const struct hs_whatif_row *w = &rows[i];
		json_t *o = json_object();

		put(j, o, "halt_poll_ns", ju64(w->halt_poll_ns));
		put(j, o, "halts", ju64(w->halts));
		put(j, o, "hits", ju64(w->hits));
		put(j, o, "hit_rate", jnum(w->hit_rate));
		put(j, o, "poll_cpu_s", jnum(w->poll_cpu_s));
		put(j, o, "miss_cpu_s", jnum(w->miss_cpu_s));
		put(j, o, "poll_cpu_pct", jnum(w->poll_cpu_pct));
		put(j, o, "flaps_per_s", jnum(w->flaps_per_s));
		put(j, o, "grows", ju64(w->grows));
		put(j, o, "shrinks", ju64(w->shrinks));
		push(j, arr, o);
	}
	return arr;
}

/* The counters and times every level (vCPU, VM, host) shares, flat in obj. */
static void stats_json(struct jctx *j, json_t *obj, const struct hs_halt_stats *s)
{
	json_t *t = json_object(), *w = json_object();
	bool any = s->halts > 0;

	put(j, obj, "halts", ju64(s->halts));
	put(j, obj, "poll_hits", ju64(s->poll_hits));
	put(j, obj, "waits", ju64(s->waits));
	put(j, obj, "poll_misses", ju64(s->poll_misses));
	put(j, obj, "nopoll_waits", ju64(s->nopoll_waits));
	put(j, obj, "unknown_waits", ju64(s->unknown_waits));
	put(j, obj, "invalid", ju64(s->invalid));
	put(j, obj, "hit_rate", jnum(s->hit_rate));
	put(j, obj, "halts_per_s", jnum(s->halts_per_s));
	put(j, obj, "poll_ns", ju64(s->poll_ns));
	put(j, obj, "poll_cpu_s", jnum((double)s->poll_ns / 1e9));
	/* An empty histogram has no minimum; 0 keeps every field an integer. */
	put(j, t, "sum", ju64(s->sum_ns));
	put(j, t, "min", ju64(any ? s->min_ns : 0));
	put(j, t, "max", ju64(any ? s->max_ns : 0));
	put(j, t, "mean", jnum(any ? s->mean_ns : 0));
	put(j, t, "p50", ju64(any ? s->p50_ns : 0));
	put(j, t, "p90", ju64(any ? s->p90_ns : 0));
	put(j, t, "p99", ju64(any ? s->p99_ns : 0));
	put(j, t, "p999", ju64(any ? s->p999_ns : 0));
	put(j, obj, "halt_ns", t);
	put(j, w, "last_ns", ji64_known(s->window_last_ns));
	put(j, w, "mean_ns", jnum_known(s->window_mean_ns));
	put(j, w, "grows", ju64(s->grows));
	put(j, w, "shrinks", ju64(s->shrinks));
	put(j, w, "flaps", ju64(s->flaps));
	put(j, obj, "window", w);
}

static json_t *advice_json(struct jctx *j, const struct hs_advice *a,
			   const struct hs_whatif_row *rows, unsigned int n)
{
	json_t *o, *f;

	if (!a->valid)
		return json_null();
	o = json_object();
	f = json_array();
	put(j, o, "halt_poll_ns", ju64(a->halt_poll_ns));
	put(j, o, "objective", JFIELD(a->objective));
	put(j, o, "confidence", JFIELD(a->confidence));
	put(j, o, "max_poll_cpu_pct", jnum_known(a->max_poll_cpu_pct));
	put(j, o, "wake_overhead_ns", ju64(a->wake_overhead_ns));
	put(j, o, "what_if", whatif_json(j, rows, n));
	put(j, o, "text", a->text ? jstr(a->text) : json_null());
	for (unsigned int i = 0; a->findings && i < a->nfindings; i++)
		push(j, f, jstr(a->findings[i] ? a->findings[i] : ""));
	put(j, o, "findings", f);
	return o;
}

static json_t *selfcheck_json(struct jctx *j, const struct hs_selfcheck *s)
{
	json_t *o = json_object();

	put(j, o, "halts_compared", ju64(s->halts_compared));
	put(j, o, "halts_agreeing", ju64(s->halts_agreeing));
	put(j, o, "agree_pct", jnum_known(s->agree_pct));
	put(j, o, "replayed_max_ns", ju64(s->replayed_max_ns));
	put(j, o, "max_inferred", json_boolean(s->max_inferred));
	return o;
}

static json_t *vcpu_json(struct jctx *j, const struct hs_report_vcpu *v)
{
	json_t *o = json_object();

	put(j, o, "tid", json_integer(v->tid));
	put(j, o, "tgid", v->tgid < 0 ? json_null() : json_integer(v->tgid));
	put(j, o, "comm", JFIELD(v->comm));
	put(j, o, "vm", JFIELD_KNOWN(v->vm));
	put(j, o, "vcpu_index", v->vcpu_index < 0 ? json_null() : json_integer(v->vcpu_index));
	put(j, o, "vcpu_id", ji64_known(v->vcpu_id));
	stats_json(j, o, &v->stats);
	put(j, o, "histogram", log2_json(j, &v->log2));
	if (v->linear.entries && v->linear.poll && v->linear.wait)
		put(j, o, "linear_histogram", linear_json(j, &v->linear));
	put(j, o, "what_if", whatif_json(j, v->what_if, v->n_what_if));
	put(j, o, "selfcheck", selfcheck_json(j, &v->selfcheck));
	put(j, o, "wake_overhead_ns", ju64(v->wake_overhead_ns));
	return o;
}

static json_t *vm_json(struct jctx *j, const struct hs_report_vm *vm)
{
	json_t *o = json_object();

	put(j, o, "tgid", vm->tgid < 0 ? json_null() : json_integer(vm->tgid));
	put(j, o, "name", JFIELD(vm->name));
	put(j, o, "comm", JFIELD(vm->comm));
	put(j, o, "nvcpus", json_integer(vm->nvcpus));
	stats_json(j, o, &vm->stats);
	put(j, o, "histogram", log2_json(j, &vm->log2));
	put(j, o, "what_if", whatif_json(j, vm->what_if, vm->n_what_if));
	put(j, o, "advice", advice_json(j, &vm->advice, vm->what_if, vm->n_what_if));
	return o;
}

static const char *idle_state_name(const struct hs_report *r, unsigned int s)
{
	if (!strcmp(r->meta.cpuidle_driver, "haltpoll") && s <= 1)
		return s == 0 ? "POLL" : "haltpoll idle";
	return NULL;
}

static json_t *guest_json(struct jctx *j, const struct hs_report *r,
			  const struct hs_report_guest_cpu *g)
{
	json_t *o = json_object(), *states = json_array();

	put(j, o, "cpu", json_integer(g->cpu));
	for (unsigned int s = 0; s < HS_IDLE_STATES; s++) {
		json_t *st;

		if (!g->entries[s] && !g->residency_ns[s])
			continue;
		st = json_object();
		put(j, st, "state", json_integer(s));
		put(j, st, "name", jstr_known(idle_state_name(r, s), SIZE_MAX));
		put(j, st, "entries", ju64(g->entries[s]));
		put(j, st, "residency_ns", ju64(g->residency_ns[s]));
		push(j, states, st);
	}
	put(j, o, "idle_states", states);
	put(j, o, "poll_hits", ju64(g->poll_hits));
	put(j, o, "poll_misses", ju64(g->poll_misses));
	put(j, o, "window_last_ns", ji64_known(g->window_last_ns));
	put(j, o, "window_mean_ns", jnum_known(g->window_mean_ns));
	put(j, o, "grows", ju64(g->grows));
	put(j, o, "shrinks", ju64(g->shrinks));
	return o;
}

static json_t *kernel_json(struct jctx *j, const struct hs_meta *m)
{
	json_t *o = json_object();

	put(j, o, "release", JFIELD_KNOWN(m->kernel_release));
	put(j, o, "clock", JFIELD_KNOWN(m->clock));
	put(j, o, "ncpus", m->ncpus < 0 ? json_null() : json_integer(m->ncpus));
	put(j, o, "cpuidle_driver", JFIELD_KNOWN(m->cpuidle_driver));
	put(j, o, "cpuidle_governor", JFIELD_KNOWN(m->cpuidle_governor));
	return o;
}

static json_t *params_json(struct jctx *j, const struct hs_meta *m)
{
	json_t *o = json_object();

	put(j, o, "halt_poll_ns", ji64_known(m->halt_poll_ns));
	put(j, o, "halt_poll_ns_grow", ji64_known(m->halt_poll_ns_grow));
	put(j, o, "halt_poll_ns_grow_start", ji64_known(m->halt_poll_ns_grow_start));
	put(j, o, "halt_poll_ns_shrink", ji64_known(m->halt_poll_ns_shrink));
	put(j, o, "guest_halt_poll_ns", ji64_known(m->guest_halt_poll_ns));
	put(j, o, "guest_halt_poll_grow", ji64_known(m->guest_halt_poll_grow));
	put(j, o, "guest_halt_poll_grow_start", ji64_known(m->guest_halt_poll_grow_start));
	put(j, o, "guest_halt_poll_shrink", ji64_known(m->guest_halt_poll_shrink));
	put(j, o, "guest_halt_poll_allow_shrink", m->guest_halt_poll_allow_shrink < 0 ?
	    json_null() : json_boolean(m->guest_halt_poll_allow_shrink));
	return o;
}

static json_t *events_json(struct jctx *j, const struct hs_report *r)
{
	json_t *o = json_object();

	put(j, o, "total", ju64(r->events_total));
	put(j, o, "kvm_vcpu_wakeup", ju64(r->events_wakeup));
	put(j, o, "kvm_halt_poll_ns", ju64(r->events_poll_ns));
	put(j, o, "cpu_idle", ju64(r->events_idle));
	put(j, o, "guest_halt_poll_ns", ju64(r->events_guest_poll));
	return o;
}

static void top_json(struct jctx *j, json_t *root, const struct hs_report *r)
{
	const struct hs_meta *m = &r->meta;
	json_t *skipped = json_object(), *warn = json_array();

	put(j, root, "schema", json_string(HS_REPORT_SCHEMA));
	put(j, root, "generator", json_string("haltstat " HS_VERSION));
	put(j, root, "source", JFIELD_KNOWN(m->source));
	put(j, root, "format", JFIELD_KNOWN(m->format));
	put(j, root, "buffer_instance", JFIELD_KNOWN(m->buffer_instance));
	put(j, root, "kernel", kernel_json(j, m));
	put(j, root, "params", params_json(j, m));
	put(j, root, "duration_s", jnum(r->duration_s > 0 ? r->duration_s : 0));
	put(j, root, "record_seconds", jnum_known(m->record_seconds));
	put(j, root, "first_ts_ns", ju64(r->first_ts));
	put(j, root, "last_ts_ns", ju64(r->last_ts));
	put(j, root, "events", events_json(j, r));
	put(j, root, "lost_events", m->lost_known ? ju64(m->lost_events) : json_null());
	put(j, root, "lost_unknown_places", ju64(m->lost_unknown_places));
	put(j, root, "lost_pct", m->lost_known ? jnum_known(r->lost_pct) : json_null());
	put(j, skipped, "lines", ju64(m->skipped_lines));
	put(j, skipped, "pages", ju64(m->skipped_pages));
	put(j, skipped, "events", ju64(m->skipped_events));
	put(j, skipped, "clamped_timestamps", ju64(m->clamped_ts));
	put(j, root, "skipped", skipped);
	for (unsigned int i = 0; i < r->nwarnings; i++)
		push(j, warn, jstr(r->warnings[i] ? r->warnings[i] : ""));
	put(j, root, "warnings", warn);
}

static json_t *report_json(struct jctx *j, const struct hs_report *r)
{
	json_t *root = json_object(), *host = json_object();
	json_t *vcpus = json_array(), *vms = json_array(), *guest = json_array();

	top_json(j, root, r);
	stats_json(j, host, &r->host);
	put(j, host, "histogram", log2_json(j, &r->host_log2));
	put(j, host, "what_if", whatif_json(j, r->host_what_if, r->n_host_what_if));
	put(j, root, "host", host);
	for (unsigned int i = 0; i < r->nvms; i++)
		push(j, vms, vm_json(j, &r->vms[i]));
	put(j, root, "vms", vms);
	for (unsigned int i = 0; i < r->nvcpus; i++)
		push(j, vcpus, vcpu_json(j, &r->vcpus[i]));
	put(j, root, "vcpus", vcpus);
	put(j, root, "advice", advice_json(j, &r->advice, r->host_what_if, r->n_host_what_if));
	for (unsigned int i = 0; i < r->nguest; i++)
		push(j, guest, guest_json(j, r, &r->guest[i]));
	put(j, root, "guest", guest);
	return root;
}

int hs_report_write_json(FILE *out, const struct hs_report *rep)
{
	struct jctx j = { .bad = false };
	json_t *root = report_json(&j, rep);
	int ret = HS_OK;

	if (!root || j.bad)
		ret = HS_ERR_RUNTIME;
	else if (json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) ||
		 fputc('\n', out) == EOF || fflush(out) || ferror(out))
		ret = HS_ERR_OUTPUT;
	json_decref(root);
	return ret;
}
