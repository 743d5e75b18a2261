// SPDX-License-Identifier: GPL-2.0-only
/*
 * `haltstat diff --json`: "haltstat.diff/1", described by
 * formats/render/diff.schema.json. What a recording cannot tell is null.
 */
#include <stdio.h>

#include "../../lib/error.h"
#include "diff_output.h"
#include "jsonw.h"

#define HS_DIFF_SCHEMA "haltstat.diff/1"

static json_t *diff_json_side(struct hs_jw *j, const struct hs_diff_side *s)
{
	json_t *o = json_object();

	hs_jw_put(j, o, "source", hs_jw_str(s->source, sizeof(s->source)));
	hs_jw_put(j, o, "duration_s", hs_jw_num(s->duration_s));
	hs_jw_put(j, o, "halt_poll_ns", hs_jw_i64_known(s->halt_poll_ns));
	hs_jw_put(j, o, "vms_own_max", json_integer(s->vms_own_max));
	hs_jw_put(j, o, "vm_max_ns", s->vm_max_ns >= 0 ? json_integer(s->vm_max_ns) : json_null());
	hs_jw_put(j, o, "vcpus", json_integer(s->nvcpus));
	hs_jw_put(j, o, "lost_events", hs_jw_u64(s->lost_events));
	return o;
}

static json_t *diff_json_value(struct hs_jw *j, const struct hs_diff_value *v)
{
	json_t *o = json_object();

	hs_jw_put(j, o, "a", v->known_a ? hs_jw_num(v->a) : json_null());
	hs_jw_put(j, o, "b", v->known_b ? hs_jw_num(v->b) : json_null());
	hs_jw_put(j, o, "delta", v->has_delta ? hs_jw_num(v->delta) : json_null());
	hs_jw_put(j, o, "rel", v->has_rel ? hs_jw_num(v->rel) : json_null());
	return o;
}

static json_t *diff_json_tid(int tid)
{
	return tid >= 0 ? json_integer(tid) : json_null();
}

static json_t *diff_json_row(struct hs_jw *j, const struct hs_diff_row *r)
{
	json_t *o = json_object(), *m = json_object();

	hs_jw_put(j, o, "vm", hs_jw_str(r->vm, sizeof(r->vm)));
	hs_jw_put(j, o, "vcpu", r->vcpu_index >= 0 ? json_integer(r->vcpu_index) : json_null());
	hs_jw_put(j, o, "tid_a", diff_json_tid(r->tid_a));
	hs_jw_put(j, o, "tid_b", diff_json_tid(r->tid_b));
	hs_jw_put(j, o, "match", json_string(hs_diff_match_names[r->match]));
	hs_jw_put(j, o, "halts_a", hs_jw_u64(r->halts_a));
	hs_jw_put(j, o, "halts_b", hs_jw_u64(r->halts_b));
	for (int k = 0; k < HS_DIFF_NMETRICS; k++)
		hs_jw_put(j, m, hs_diff_metric_names[k], diff_json_value(j, &r->v[k]));
	hs_jw_put(j, o, "metrics", m);
	return o;
}

static json_t *diff_json_unmatched(struct hs_jw *j, const struct hs_diff_unmatched *u)
{
	json_t *o = json_object();

	hs_jw_put(j, o, "side", json_string(u->side == 'a' ? "a" : "b"));
	hs_jw_put(j, o, "vm", hs_jw_str(u->vm, sizeof(u->vm)));
	hs_jw_put(j, o, "vcpu", u->vcpu_index >= 0 ? json_integer(u->vcpu_index) : json_null());
	hs_jw_put(j, o, "tid", json_integer(u->tid));
	hs_jw_put(j, o, "halts", hs_jw_u64(u->halts));
	return o;
}

static json_t *diff_json_doc(struct hs_jw *j, const struct hs_diff *d)
{
	json_t *root = json_object(), *rows = json_array(), *un = json_array();

	hs_jw_put(j, root, "schema", json_string(HS_DIFF_SCHEMA));
	hs_jw_put(j, root, "generator", json_string("haltstat " HS_VERSION));
	hs_jw_put(j, root, "a", diff_json_side(j, &d->a));
	hs_jw_put(j, root, "b", diff_json_side(j, &d->b));
	hs_jw_put(j, root, "host", diff_json_row(j, &d->host));
	for (unsigned int i = 0; i < d->nrows; i++)
		hs_jw_push(j, rows, diff_json_row(j, &d->rows[i]));
	hs_jw_put(j, root, "vcpus", rows);
	for (unsigned int i = 0; i < d->nunmatched; i++)
		hs_jw_push(j, un, diff_json_unmatched(j, &d->unmatched[i]));
	hs_jw_put(j, root, "unmatched", un);
	return root;
}

int hs_diff_write_json(FILE *out, const struct hs_diff *d)
{
	struct hs_jw j = { false };
	json_t *root = diff_json_doc(&j, d);

	return hs_jw_dump(out, &j, root, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
}
