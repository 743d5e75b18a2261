/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_REPORT_TEXT_H
#define HS_REPORT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "output.h"

/* Shared by the text and Markdown writers; not a public interface. */

/* A window: "?" unknown (< 0), "0" off, else as above. */
const char *hs_text_fmt_window(char *buf, size_t len, double ns);
/* A module parameter: "?" when unknown (< 0). */
const char *hs_text_fmt_param(char *buf, size_t len, int64_t v);
/* The histograms of the text report, laid out as there (colour as opts say). */
int hs_report_write_text_hists(FILE *out, const struct hs_report *rep,
			       const struct hs_text_opts *opts, bool with_host);
/* The host's alone ("ALL: every vCPU of the host"). */
int hs_report_write_text_host_hist(FILE *out, const struct hs_report *rep,
				   const struct hs_text_opts *opts);

#endif
