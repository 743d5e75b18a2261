// SPDX-License-Identifier: GPL-2.0-only
/*
 * haltstat replay as JSON ("haltstat.replay/1"). Units are in the key names
 * (_ns, _s; rates are 0..1); what was not measured is null.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "../../lib/error.h"
#include "jsonw.h"
#include "replay_out.h"

#define HS_REPLAY_SCHEMA "haltstat.replay/1"

static json_t *rj_spread(struct hs_jw *j, const struct hs_replay_spread *s, bool known)
{
	json_t *o;

	if (!known)
		return json_null();
	o = json_object();
	hs_jw_put(j, o, "mean", hs_jw_num(s->mean));
	hs_jw_put(j, o, "min", hs_jw_num(s->min));
	hs_jw_put(j, o, "max", hs_jw_num(s->max));
	hs_jw_put(j, o, "stddev", hs_jw_num(s->stddev));
	return o;
}

static json_t *rj_figures(struct hs_jw *j, const struct hs_replay *r, const struct hs_replay_figures *f)
{
	json_t *o = json_object(), *p = json_object(), *m;

	hs_jw_put(j, o, "halts", hs_jw_u64(f->halts));
	hs_jw_put(j, p, "hits", hs_jw_u64(f->pred_hits));
	hs_jw_put(j, p, "hit_rate", hs_jw_num(f->pred_hit_rate));
	hs_jw_put(j, p, "hit_rate_low", hs_jw_num(f->pred_hit_rate_low));
	hs_jw_put(j, p, "hit_rate_high", hs_jw_num(f->pred_hit_rate_high));
	hs_jw_put(j, p, "hit_rate_stolen", hs_jw_num(f->pred_hit_rate_stolen));
	hs_jw_put(j, p, "poll_cpu_s", hs_jw_num(f->pred_poll_cpu_s));
	hs_jw_put(j, p, "poll_cpu_s_low", hs_jw_num(f->pred_poll_cpu_s_low));
	hs_jw_put(j, p, "poll_cpu_s_high", hs_jw_num(f->pred_poll_cpu_s_high));
	hs_jw_put(j, o, "predicted", p);
	if (!r->ran) {
		hs_jw_put(j, o, "measured", json_null());
		return o;
	}
	m = json_object();
	hs_jw_put(j, m, "halts", hs_jw_u64(f->halts_measured));
	hs_jw_put(j, m, "kvm_stats", json_boolean(f->measured));
	hs_jw_put(j, m, "hit_rate", rj_spread(j, &f->hit_rate, f->measured));
	hs_jw_put(j, m, "poll_cpu_s", rj_spread(j, &f->poll_cpu_s, f->measured));
	hs_jw_put(j, m, "vcpu_cpu_s", rj_spread(j, &f->vcpu_cpu_s, true));
	hs_jw_put(j, m, "handover_share", rj_spread(j, &f->handover_share, f->handovers_known));
	hs_jw_put(j, m, "steal_share", rj_spread(j, &f->steal_share, f->steal_known));
	hs_jw_put(j, m, "stolen_share", rj_spread(j, &f->stolen_share, f->steal_known));
	hs_jw_put(j, m, "hit_rate_low_judged",
		  f->measured ? hs_jw_num(f->judged_hit_rate_low) : json_null());
	hs_jw_put(j, m, "runs_inside", f->measured ? json_integer(f->runs_inside) : json_null());
	hs_jw_put(j, m, "inside", f->measured ? json_boolean(f->mean_inside) : json_null());
	hs_jw_put(j, o, "measured", m);
	return o;
}

static json_t *rj_overhead_here(struct hs_jw *j, const struct hs_replay_vcpu *v)
{
	const unsigned int q = HS_OVERHEAD_Q;
	json_t *o;

	if (!v->host.waits)
		return json_null();
	o = json_object();
	hs_jw_put(j, o, "waits", hs_jw_u64(v->host.waits));
	hs_jw_put(j, o, "p10_ns", hs_jw_u64(v->host.ns[q / 10]));
	hs_jw_put(j, o, "p50_ns", hs_jw_u64(v->host.ns[q / 2]));
	hs_jw_put(j, o, "p90_ns", hs_jw_u64(v->host.ns[q * 9 / 10]));
	hs_jw_put(j, o, "p99_ns", hs_jw_u64(v->host.ns[q - 1]));
	return o;
}

static json_t *rj_vcpu(struct hs_jw *j, const struct hs_replay_vcpu *v)
{
	json_t *o = json_object();

	hs_jw_put(j, o, "tid", json_integer(v->tid));
	hs_jw_put(j, o, "comm", hs_jw_str(v->comm, sizeof(v->comm)));
	hs_jw_put(j, o, "halts_recorded", hs_jw_u64(v->halts_recorded));
	hs_jw_put(j, o, "halts_replayed", hs_jw_u64(v->ngaps));
	hs_jw_put(j, o, "gaps_s", hs_jw_num(v->gaps_sum_ns / 1e9));
	hs_jw_put(j, o, "wake_overhead_ns", hs_jw_u64(v->wake_overhead_ns));
	hs_jw_put(j, o, "wake_overhead_here", rj_overhead_here(j, v));
	hs_jw_put(j, o, "cpu", v->cpu < 0 ? json_null() : json_integer(v->cpu));
	return o;
}

static json_t *rj_setting(struct hs_jw *j, const struct hs_replay *r, unsigned int s)
{
	json_t *o = json_object(), *arr = json_array();

	hs_jw_put(j, o, "halt_poll_ns", hs_jw_u64(r->settings[s]));
	hs_jw_put(j, o, "total", rj_figures(j, r, hs_replay_cell(r, s, r->nvcpus)));
	for (unsigned int v = 0; v < r->nvcpus; v++)
		hs_jw_push(j, arr, rj_figures(j, r, hs_replay_cell(r, s, v)));
	hs_jw_put(j, o, "vcpus", arr);
	return o;
}

static json_t *rj_root(struct hs_jw *j, const struct hs_replay *r, const char *source)
{
	json_t *o = json_object(), *vcpus = json_array(), *settings = json_array();

	hs_jw_put(j, o, "schema", json_string(HS_REPLAY_SCHEMA));
	hs_jw_put(j, o, "generator", json_string("haltstat " HS_VERSION));
	hs_jw_put(j, o, "source", source ? hs_jw_str(source, SIZE_MAX) : json_null());
	hs_jw_put(j, o, "ran", json_boolean(r->ran));
	hs_jw_put(j, o, "runs", json_integer(r->opts.runs));
	hs_jw_put(j, o, "pinned", json_boolean(r->pinned));
	hs_jw_put(j, o, "waker_cpu", r->waker_cpu < 0 ? json_null() : json_integer(r->waker_cpu));
	hs_jw_put(j, o, "recorded_halt_poll_ns", hs_jw_u64(r->recorded_ns));
	hs_jw_put(j, o, "recorded_inferred", json_boolean(r->recorded_inferred));
	hs_jw_put(j, o, "kernel_era", json_string(r->era));
	hs_jw_put(j, o, "recorded_stolen_share", hs_jw_num_known(r->recorded_stolen));
	hs_jw_put(j, o, "vcpus_skipped", json_integer(r->vcpus_skipped));
	hs_jw_put(j, o, "vcpus_capped", json_integer(r->vcpus_capped));
	hs_jw_put(j, o, "seconds", hs_jw_num(r->seconds));
	hs_jw_put(j, o, "handovers_counted", json_boolean(r->ran && r->handovers_counted));
	hs_jw_put(j, o, "handovers_unknown_why",
		  r->ran && !r->handovers_counted ? hs_jw_str(r->opts.no_handovers ? "--no-handovers" :
						   r->handovers_why, SIZE_MAX) : json_null());
	hs_jw_put(j, o, "settings_measured", json_integer(r->settings_measured));
	hs_jw_put(j, o, "settings_inside", json_integer(r->settings_inside));
	for (unsigned int v = 0; v < r->nvcpus; v++)
		hs_jw_push(j, vcpus, rj_vcpu(j, &r->vcpus[v]));
	hs_jw_put(j, o, "vcpus", vcpus);
	for (unsigned int s = 0; s < r->nsettings; s++)
		hs_jw_push(j, settings, rj_setting(j, r, s));
	hs_jw_put(j, o, "settings", settings);
	return o;
}

int hs_replay_write_json(FILE *out, const struct hs_replay *r, const char *source)
{
	struct hs_jw j = { .bad = false };
	json_t *root = rj_root(&j, r, source);

	return hs_jw_dump(out, &j, root, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
}
