/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_TEXT_LAYOUT_H
#define HS_TEXT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output.h"

/*
 * The plain-text layout that the text and the Markdown writers share: how
 * values read, the model's order, and the halt-duration histograms. It
 * works on what it is handed and calls neither writer.
 */

/* ANSI colours: a writer puts them out only when opts->color says so. */
#define HS_SGR_RED	"\033[31m"
#define HS_SGR_YELLOW	"\033[33m"
#define HS_SGR_GREEN	"\033[32m"
#define HS_SGR_BLUE	"\033[34m"
#define HS_SGR_BOLD	"\033[1m"
#define HS_SGR_RESET	"\033[0m"

/* A window: "?" unknown (< 0), "0" off, else a duration. */
const char *hs_layout_window_fmt(char *buf, size_t len, double ns);
/* A module parameter: "?" when unknown (< 0). */
const char *hs_layout_param_fmt(char *buf, size_t len, int64_t v);
/*
 * A name from the trace (src, at most max bytes, not always terminated):
 * a bounded copy with no control bytes that could drive the terminal.
 */
const char *hs_layout_name_fmt(char *dst, size_t len, const char *src, size_t max);
#define HS_LAYOUT_NAME(buf, field) hs_layout_name_fmt(buf, sizeof(buf), field, sizeof(field))
/* A VM's name, or its VMM's comm when it has none, copied as above. */
const char *hs_layout_vm_label_fmt(char *buf, size_t len, const struct hs_report_vm *vm);

/* The k-th VM or vCPU to show: the model's order, busiest first, when it has one. */
const struct hs_report_vm *hs_layout_vm_at(const struct hs_report *r, unsigned int k);
const struct hs_report_vcpu *hs_layout_vcpu_at(const struct hs_report *r, unsigned int k);
/* Whether the builder put v in some VM: those it did not are still shown. */
bool hs_layout_vcpu_in_any_vm(const struct hs_report *r, const struct hs_report_vcpu *v);

/* Which of the histograms: all of them, the host's alone, or all but the host's. */
enum hs_layout_hists { HS_LAYOUT_HISTS_ALL, HS_LAYOUT_HISTS_HOST, HS_LAYOUT_HISTS_BUT_HOST };

/*
 * The histograms as the text report lays them out (per vCPU, per VM or one
 * table for many VMs, as opts say; colour as opts->color), each after an
 * empty line. Nothing without vCPUs, except the host's alone.
 */
void hs_layout_hists_write(FILE *out, const struct hs_report *rep,
			   const struct hs_text_opts *opts, enum hs_layout_hists which);
/*
 * The same into *body (malloc'd, the caller frees it), without the empty
 * line before the first: a block to put in a frame that must be measured
 * first (Markdown's code fence). HS_OK or an HS_ERR_ code.
 */
int hs_layout_hists_str(char **body, const struct hs_report *rep,
			const struct hs_text_opts *opts, enum hs_layout_hists which);

#endif
