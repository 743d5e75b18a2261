// SPDX-License-Identifier: GPL-2.0-only
/*
 * haltstat replay as JSON ("haltstat.replay/1"). Units are in the key names
 * (_ns, _s; rates are 0..1); what was not measured is null.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "../lib/error.h"
#include "replay_out.h"

#define HS_REPLAY_SCHEMA "haltstat.replay/1"

/* A NULL anywhere (out of memory) fails the write. */
struct rj {
	bool bad;
};

static void rj_put(struct rj *j, json_t *obj, const char *key, json_t *val)
{
	if (!obj || !val) {
		json_decref(val);
		j->bad = true;
	} else if (json_object_set_new(obj, key, val)) {
		j->bad = true;
	}
}

static void rj_push(struct rj *j, json_t *arr, json_t *val)
{
	if (!arr || !val) {
		json_decref(val);
		j->bad = true;
	} else if (json_array_append_new(arr, val)) {
		j->bad = true;
	}
}

static json_t *rj_u64(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* Thread names are raw bytes from the trace: keep ASCII when not UTF-8. */
static json_t *rj_str(const char *s)
{
	char buf[256];
	json_t *v = json_string(s);
	size_t i;

	if (v)
		return v;
	for (i = 0; s[i] && i + 1 < sizeof(buf); i++)
		buf[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	buf[i] = 0;
	return json_string(buf);
}

static json_t *rj_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *rj_spread(struct rj *j, const struct hs_replay_spread *s, bool known)
{
	json_t *o;

	if (!known)
		return json_null();
	o = json_object();
	rj_put(j, o, "mean", rj_num(s->mean));
	rj_put(j, o, "min", rj_num(s->min));
	rj_put(j, o, "max", rj_num(s->max));
	rj_put(j, o, "stddev", rj_num(s->stddev));
	return o;
}

static json_t *rj_figures(struct rj *j, const struct hs_replay *r, const struct hs_replay_figures *f)
{
	json_t *o = json_object(), *p = json_object(), *m;

	rj_put(j, o, "halts", rj_u64(f->halts));
	rj_put(j, p, "hits", rj_u64(f->pred_hits));
	rj_put(j, p, "hit_rate", rj_num(f->pred_hit_rate));
	rj_put(j, p, "poll_cpu_s", rj_num(f->pred_poll_cpu_s));
	rj_put(j, o, "predicted", p);
	if (!r->ran) {
		rj_put(j, o, "measured", json_null());
		return o;
	}
	m = json_object();
	rj_put(j, m, "halts", rj_u64(f->halts_measured));
	rj_put(j, m, "kvm_stats", json_boolean(f->measured));
	rj_put(j, m, "hit_rate", rj_spread(j, &f->hit_rate, f->measured));
	rj_put(j, m, "poll_cpu_s", rj_spread(j, &f->poll_cpu_s, f->measured));
	rj_put(j, m, "vcpu_cpu_s", rj_spread(j, &f->vcpu_cpu_s, true));
	rj_put(j, o, "measured", m);
	return o;
}

static json_t *rj_vcpu(struct rj *j, const struct hs_replay_vcpu *v)
{
	json_t *o = json_object();

	rj_put(j, o, "tid", json_integer(v->tid));
	rj_put(j, o, "comm", rj_str(v->comm));
	rj_put(j, o, "halts_recorded", rj_u64(v->halts_recorded));
	rj_put(j, o, "halts_replayed", rj_u64(v->ngaps));
	rj_put(j, o, "gaps_s", rj_num(v->gaps_sum_ns / 1e9));
	rj_put(j, o, "wake_overhead_ns", rj_u64(v->wake_overhead_ns));
	rj_put(j, o, "cpu", v->cpu < 0 ? json_null() : json_integer(v->cpu));
	return o;
}

static json_t *rj_setting(struct rj *j, const struct hs_replay *r, unsigned int s)
{
	json_t *o = json_object(), *arr = json_array();

	rj_put(j, o, "halt_poll_ns", rj_u64(r->settings[s]));
	rj_put(j, o, "total", rj_figures(j, r, hs_replay_cell(r, s, r->nvcpus)));
	for (unsigned int v = 0; v < r->nvcpus; v++)
		rj_push(j, arr, rj_figures(j, r, hs_replay_cell(r, s, v)));
	rj_put(j, o, "vcpus", arr);
	return o;
}

static json_t *rj_root(struct rj *j, const struct hs_replay *r, const char *source)
{
	json_t *o = json_object(), *vcpus = json_array(), *settings = json_array();

	rj_put(j, o, "schema", json_string(HS_REPLAY_SCHEMA));
	rj_put(j, o, "generator", json_string("haltstat " HS_VERSION));
	rj_put(j, o, "source", source ? rj_str(source) : json_null());
	rj_put(j, o, "ran", json_boolean(r->ran));
	rj_put(j, o, "runs", json_integer(r->opts.runs));
	rj_put(j, o, "pinned", json_boolean(r->pinned));
	rj_put(j, o, "waker_cpu", r->waker_cpu < 0 ? json_null() : json_integer(r->waker_cpu));
	rj_put(j, o, "recorded_halt_poll_ns", rj_u64(r->recorded_ns));
	rj_put(j, o, "recorded_inferred", json_boolean(r->recorded_inferred));
	rj_put(j, o, "kernel_era", json_string(r->era));
	rj_put(j, o, "vcpus_skipped", json_integer(r->vcpus_skipped));
	rj_put(j, o, "vcpus_capped", json_integer(r->vcpus_capped));
	rj_put(j, o, "seconds", rj_num(r->seconds));
	for (unsigned int v = 0; v < r->nvcpus; v++)
		rj_push(j, vcpus, rj_vcpu(j, &r->vcpus[v]));
	rj_put(j, o, "vcpus", vcpus);
	for (unsigned int s = 0; s < r->nsettings; s++)
		rj_push(j, settings, rj_setting(j, r, s));
	rj_put(j, o, "settings", settings);
	return o;
}

int hs_replay_write_json(FILE *out, const struct hs_replay *r, const char *source)
{
	struct rj j = { .bad = false };
	json_t *root = rj_root(&j, r, source);
	int ret = 0;

	if (!root || j.bad)
		ret = HS_ERR_RUNTIME;
	else if (json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) ||
		 fputc('\n', out) == EOF || fflush(out) || ferror(out))
		ret = HS_ERR_OUTPUT;
	json_decref(root);
	return ret;
}
