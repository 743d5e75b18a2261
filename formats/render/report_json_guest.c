// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest layer in the JSON report: this machine's own idle toward its
 * hypervisor (guest what-if rows per CPU and in all, the guest_halt_poll_ns
 * suggestion), and the layer of every finding. Renders the model only.
 */
#include <stdint.h>

#include "report_json_guest.h"

#define ROW(kind, field) HS_JW_##kind(struct hs_guest_whatif_row, field)
static const struct hs_jw_field guest_whatif_fields[] = {
	ROW(U64, guest_halt_poll_ns), ROW(U64, wakes), ROW(U64, polls), ROW(U64, hits),
	ROW(U64, halts), ROW(NUM, hit_rate), ROW(NUM, poll_cpu_s), ROW(NUM, miss_cpu_s),
	ROW(NUM, poll_cpu_pct), ROW(NUM, poll_cpu_pct_per_cpu), ROW(U64, grows),
	ROW(U64, shrinks), ROW(U64, hits_low), ROW(U64, hits_high), ROW(NUM, hit_rate_low),
	ROW(NUM, hit_rate_high), ROW(NUM, poll_cpu_s_low), ROW(NUM, poll_cpu_s_high),
	ROW(NUM, poll_cpu_pct_low), ROW(NUM, poll_cpu_pct_high),
};
#undef ROW

json_t *hs_json_guest_what_if(struct hs_jw *j, const struct hs_guest_whatif_row *rows,
			      unsigned int n)
{
	json_t *arr = json_array();

	for (unsigned int i = 0; i < n; i++) {
		json_t *o = json_object();

		hs_jw_put_fields(j, o, &rows[i], guest_whatif_fields,
				 sizeof(guest_whatif_fields) / sizeof(guest_whatif_fields[0]));
		hs_jw_push(j, arr, o);
	}
	return arr;
}

void hs_json_guest_cpu_replay(struct hs_jw *j, json_t *o, const struct hs_report_guest_cpu *g)
{
	const struct hs_selfcheck *s = &g->selfcheck;
	json_t *sc = json_object();

	hs_jw_put(j, o, "what_if", hs_json_guest_what_if(j, g->what_if, g->n_what_if));
	hs_jw_put(j, sc, "wakes_compared", hs_jw_u64(s->halts_compared));
	hs_jw_put(j, sc, "wakes_agreeing", hs_jw_u64(s->halts_agreeing));
	hs_jw_put(j, sc, "agree_pct", hs_jw_num_known(s->agree_pct));
	hs_jw_put(j, sc, "replayed_guest_halt_poll_ns", hs_jw_u64(s->replayed_max_ns));
	hs_jw_put(j, sc, "guest_halt_poll_ns_inferred", json_boolean(s->max_inferred));
	hs_jw_put(j, o, "selfcheck", sc);
	hs_jw_put(j, o, "halt_extra_ns", hs_jw_u64(g->halt_extra_ns));
	hs_jw_put(j, o, "halt_extra_samples", hs_jw_u64(g->halt_extra_samples));
}

json_t *hs_json_findings_detail(struct hs_jw *j, const struct hs_advice *a)
{
	json_t *arr = json_array();

	for (unsigned int i = 0; a->findings && i < a->nfindings; i++) {
		json_t *o = json_object();

		hs_jw_put(j, o, "code", hs_jw_str(a->findings[i] ? a->findings[i] : "", SIZE_MAX));
		hs_jw_put(j, o, "layer", json_string(hs_layer_name(a->layer)));
		hs_jw_push(j, arr, o);
	}
	return arr;
}

json_t *hs_json_guest_advice(struct hs_jw *j, const struct hs_report *rep)
{
	const struct hs_advice *a = &rep->guest_advice;
	const struct hs_haltpoll_params *p = &rep->guest_simulated;
	json_t *o, *f, *gov;

	if (!a->valid && !a->text && !a->nfindings)
		return json_null();
	o = json_object();
	f = json_array();
	gov = json_object();
	hs_jw_put(j, o, "layer", json_string(hs_layer_name(a->layer)));
	hs_jw_put(j, o, "guest_halt_poll_ns", a->valid ? hs_jw_u64(a->halt_poll_ns) : json_null());
	hs_jw_put(j, o, "objective", hs_jw_str(a->objective, sizeof(a->objective)));
	hs_jw_put(j, o, "confidence", hs_jw_str(a->confidence, sizeof(a->confidence)));
	hs_jw_put(j, o, "max_poll_cpu_pct", hs_jw_num_known(a->max_poll_cpu_pct));
	hs_jw_put(j, o, "halt_extra_ns", hs_jw_u64(a->wake_overhead_ns));
	if (rep->n_guest_what_if) {
		hs_jw_put(j, gov, "grow", hs_jw_u64(p->grow));
		hs_jw_put(j, gov, "grow_start", hs_jw_u64(p->grow_start));
		hs_jw_put(j, gov, "shrink", hs_jw_u64(p->shrink));
		hs_jw_put(j, gov, "allow_shrink", json_boolean(p->allow_shrink));
		hs_jw_put(j, gov, "shrink_floor", json_boolean(p->shrink_floor));
		hs_jw_put(j, o, "replayed", gov);
	} else {
		json_decref(gov);
	}
	hs_jw_put(j, o, "what_if", hs_json_guest_what_if(j, rep->guest_what_if,
							 rep->n_guest_what_if));
	hs_jw_put(j, o, "text", a->text ? hs_jw_str(a->text, SIZE_MAX) : json_null());
	for (unsigned int i = 0; a->findings && i < a->nfindings; i++)
		hs_jw_push(j, f, hs_jw_str(a->findings[i] ? a->findings[i] : "", SIZE_MAX));
	hs_jw_put(j, o, "findings", f);
	hs_jw_put(j, o, "findings_detail", hs_json_findings_detail(j, a));
	return o;
}
