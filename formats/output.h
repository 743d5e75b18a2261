/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_OUTPUT_H
#define HS_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "../lib/report.h"

/* Writers: render one hs_report. They decide layout, never numbers. */
struct hs_text_opts {
	bool color;		/* only on a TTY and never with NO_COLOR: cmd/ decides */
	bool linear;		/* show the linear histogram instead of log2 */
	bool show_advice;
	bool show_histograms;
	bool per_vm_histograms;	/* one histogram per VM instead of per vCPU */
};

int hs_report_write_text(FILE *out, const struct hs_report *rep, const struct hs_text_opts *opts);
int hs_report_write_json(FILE *out, const struct hs_report *rep);
int hs_report_write_csv(FILE *out, const struct hs_report *rep);
int hs_advice_write_text(FILE *out, const struct hs_report *rep, const struct hs_text_opts *opts);
/*
 * SVG: one log2 histogram per vCPU, or per VM when opts->per_vm_histograms or
 * more than 8 vCPUs; the advice marker only with opts->show_advice. opts may
 * be NULL (per vCPU up to 8, advice shown).
 */
int hs_report_write_svg(FILE *out, const struct hs_report *rep, const struct hs_text_opts *opts);
/* OpenMetrics 1.0 (ends with "# EOF"), and the Prometheus text format 0.0.4
 * that node_exporter's textfile collector reads (no "# EOF", counter TYPE
 * lines named with _total). */
int hs_report_write_openmetrics(FILE *out, const struct hs_report *rep);
int hs_report_write_prometheus(FILE *out, const struct hs_report *rep);

#endif
