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

#endif
