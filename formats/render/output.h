/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_OUTPUT_H
#define HS_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "../../lib/report.h"

/* Writers: render one hs_report. They decide layout, never numbers. */
struct hs_text_opts {
	bool color;		/* only on a TTY and never with NO_COLOR: cmd/ decides */
	bool linear;		/* show the linear histogram instead of log2 */
	bool show_advice;
	bool show_histograms;
	/*
	 * Text: per VM unless per_vcpu_histograms. SVG: per vCPU up to 8 vCPU
	 * threads, per VM above or with per_vm_histograms, per vCPU with
	 * per_vcpu_histograms.
	 */
	bool per_vm_histograms;
	bool per_vcpu_histograms;
	bool fold_empty_buckets;	/* a run of 3 or more empty log2 rows as one line (Markdown) */
	const char *command;	/* the command line that made it (Markdown), or NULL */
};

int hs_report_write_text(FILE *out, const struct hs_report *rep, const struct hs_text_opts *opts);
int hs_report_write_json(FILE *out, const struct hs_report *rep);
int hs_report_write_csv(FILE *out, const struct hs_report *rep);
int hs_advice_write_text(FILE *out, const struct hs_report *rep, const struct hs_text_opts *opts);
/* The guest layer alone (this machine's own idle: guest what-if, guest_halt_poll_ns), and whether there is one. */
int hs_guest_advice_write_text(FILE *out, const struct hs_report *rep,
			       const struct hs_text_opts *opts);
bool hs_advice_has_guest(const struct hs_report *rep);
/*
 * SVG: log2 histograms as above; the advice marker only with
 * opts->show_advice. opts may be NULL (per vCPU up to 8, advice shown).
 */
int hs_report_write_svg(FILE *out, const struct hs_report *rep, const struct hs_text_opts *opts);
/* OpenMetrics 1.0 (ends with "# EOF"), and the Prometheus text format 0.0.4
 * that node_exporter's textfile collector reads (no "# EOF", counter TYPE
 * lines named with _total). */
int hs_report_write_openmetrics(FILE *out, const struct hs_report *rep);
int hs_report_write_prometheus(FILE *out, const struct hs_report *rep);
/*
 * Markdown (CommonMark with GitHub tables) to paste into an issue: the
 * recording's facts, the table, the histograms in a code block, the advice
 * and opts->command.
 */
int hs_report_write_markdown(FILE *out, const struct hs_report *rep,
			     const struct hs_text_opts *opts);

#endif
