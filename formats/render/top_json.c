// SPDX-License-Identifier: GPL-2.0-only
/*
 * `haltstat top` without a terminal: one "haltstat.top/1" document per
 * interval on one line (NDJSON), described by formats/render/top.schema.json.
 */
#include <stdio.h>

#include "../../lib/error.h"
#include "jsonw.h"
#include "top_output.h"

#define HS_TOP_SCHEMA "haltstat.top/1"

static void top_json_stats(struct hs_jw *j, json_t *o, const struct hs_halt_stats *s)
{
	hs_jw_put(j, o, "halts", hs_jw_u64(s->halts));
	hs_jw_put(j, o, "halts_per_s", hs_jw_num(s->halts_per_s));
	hs_jw_put(j, o, "poll_hits", hs_jw_u64(s->poll_hits));
	hs_jw_put(j, o, "hit_rate", s->halts ? hs_jw_num(s->hit_rate) : json_null());
	hs_jw_put(j, o, "poll_ns", hs_jw_u64(s->poll_ns));
	hs_jw_put(j, o, "poll_cpu_pct", hs_jw_num(s->poll_cpu_pct));
	hs_jw_put(j, o, "poll_cpu_upper_bound", json_boolean(s->poll_upper_bound));
	hs_jw_put(j, o, "p50_ns", s->halts ? hs_jw_u64(s->p50_ns) : json_null());
	hs_jw_put(j, o, "p99_ns", s->halts ? hs_jw_u64(s->p99_ns) : json_null());
	hs_jw_put(j, o, "window_ns", hs_jw_i64_known(s->window_last_ns));
	hs_jw_put(j, o, "grows", hs_jw_u64(s->grows));
	hs_jw_put(j, o, "shrinks", hs_jw_u64(s->shrinks));
}

static json_t *top_json_vcpu(struct hs_jw *j, const struct hs_report_vcpu *v)
{
	json_t *o = json_object();

	hs_jw_put(j, o, "vm", hs_jw_str(v->vm, sizeof(v->vm)));
	hs_jw_put(j, o, "tgid", v->tgid >= 0 ? json_integer(v->tgid) : json_null());
	hs_jw_put(j, o, "tid", json_integer(v->tid));
	hs_jw_put(j, o, "vcpu", v->vcpu_index >= 0 ? json_integer(v->vcpu_index) : json_null());
	top_json_stats(j, o, &v->stats);
	return o;
}

static json_t *top_json_vm(struct hs_jw *j, const struct hs_report_vm *m)
{
	json_t *o = json_object();

	hs_jw_put(j, o, "vm", hs_jw_str(m->name, sizeof(m->name)));
	hs_jw_put(j, o, "tgid", m->tgid >= 0 ? json_integer(m->tgid) : json_null());
	hs_jw_put(j, o, "vcpus", json_integer(m->nvcpus));
	top_json_stats(j, o, &m->stats);
	return o;
}

#define GUEST(field) HS_JW_NUM(struct hs_report_guest_cpu, field)
static const struct hs_jw_field top_guest_fields[] = {
	HS_JW_NUM_AS("idle_entries_per_s", struct hs_report_guest_cpu, entries_per_s),
	GUEST(poll_entries_per_s),
	HS_JW_U64(struct hs_report_guest_cpu, poll_hits),
	HS_JW_U64(struct hs_report_guest_cpu, poll_misses),
	HS_JW_NUM_KNOWN(struct hs_report_guest_cpu, poll_hit_rate),
	GUEST(poll_cpu_pct),
	GUEST(idle_pct),
	HS_JW_I64_KNOWN_AS("window_ns", struct hs_report_guest_cpu, window_last_ns),
};
#undef GUEST

static json_t *top_json_guest(struct hs_jw *j, const struct hs_report_guest_cpu *g)
{
	json_t *o = json_object();

	hs_jw_put(j, o, "cpu", json_integer(g->cpu));
	hs_jw_put_fields(j, o, g, top_guest_fields,
			 sizeof(top_guest_fields) / sizeof(top_guest_fields[0]));
	return o;
}

static json_t *top_json_doc(struct hs_jw *j, const struct hs_top_view *v)
{
	const struct hs_report *r = v->rep;
	json_t *root = json_object(), *vcpus = json_array(), *vms = json_array();
	json_t *guest = json_array(), *host = json_object(), *miss = json_array();

	hs_jw_put(j, root, "schema", json_string(HS_TOP_SCHEMA));
	hs_jw_put(j, root, "interval", json_integer((json_int_t)v->interval));
	hs_jw_put(j, root, "ts", hs_jw_num(v->wall_ts));
	hs_jw_put(j, root, "seconds", hs_jw_num(v->seconds));
	hs_jw_put(j, root, "sort", json_string(v->sort));
	hs_jw_put(j, root, "events", hs_jw_u64(r->events_total));
	hs_jw_put(j, root, "lost_events", hs_jw_u64(v->lost_events));
	hs_jw_put(j, root, "lost_events_total", hs_jw_u64(v->lost_total));
	for (unsigned int i = 0; i < v->nmissing; i++)
		hs_jw_push(j, miss, json_string(v->missing[i]));
	hs_jw_put(j, root, "missing_events", miss);
	top_json_stats(j, host, &r->host);
	hs_jw_put(j, root, "host", host);
	for (unsigned int i = 0; i < r->nvms; i++)
		hs_jw_push(j, vms, top_json_vm(j, &r->vms[v->vm_order[i]]));
	hs_jw_put(j, root, "vms", vms);
	for (unsigned int i = 0; i < r->nvcpus; i++)
		hs_jw_push(j, vcpus, top_json_vcpu(j, &r->vcpus[v->order[i]]));
	hs_jw_put(j, root, "vcpus", vcpus);
	for (unsigned int i = 0; i < r->nguest; i++)
		hs_jw_push(j, guest, top_json_guest(j, &r->guest[i]));
	hs_jw_put(j, root, "guest_cpus", guest);
	return root;
}

int hs_top_write_json(FILE *out, const struct hs_top_view *v)
{
	struct hs_jw j = { false };
	json_t *root = top_json_doc(&j, v);

	return hs_jw_dump(out, &j, root, JSON_COMPACT | JSON_REAL_PRECISION(13));
}
