/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_REPORT_JSON_GUEST_H
#define HS_REPORT_JSON_GUEST_H

#include <jansson.h>

#include "../../lib/report.h"
#include "jsonw.h"

/* The guest layer's parts of the JSON report (report_json.c puts them in place). */
json_t *hs_json_guest_what_if(struct hs_jw *j, const struct hs_guest_whatif_row *rows,
			      unsigned int n);
/* The guest CPU's replay: what_if, selfcheck, halt_extra_ns, into o. */
void hs_json_guest_cpu_replay(struct hs_jw *j, json_t *o, const struct hs_report_guest_cpu *g);
/* rep->guest_advice, or null when the guest layer has nothing to say. */
json_t *hs_json_guest_advice(struct hs_jw *j, const struct hs_report *rep);
/* Every finding of a with its layer: [{"code", "layer"}]. */
json_t *hs_json_findings_detail(struct hs_jw *j, const struct hs_advice *a);

#endif
