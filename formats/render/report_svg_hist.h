/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_REPORT_SVG_HIST_H
#define HS_REPORT_SVG_HIST_H

#include <stdbool.h>
#include <stddef.h>

#include "../../lib/report.h"
#include "svg_draw.h"

/* The SVG report's halt-duration histograms: one panel a VM or a vCPU. */
#define SVG_PANEL_H	250.0

struct hs_svg_panel {
	const char *name;		/* untrusted */
	size_t name_max;
	char what[96];			/* "vCPU 0, tid 1001" */
	const struct hs_log2_hist *h;
	const struct hs_halt_stats *st;
};

struct hs_svg_hists {
	struct hs_svg_panel *panels;
	unsigned int npanels, nhidden;	/* drawn, and left out past the most there is room for */
	unsigned int xlo, xhi;		/* log2 bucket columns shown on every histogram */
};

/* A panel a VM (per_vm) or a vCPU, in the model's order: HS_OK or HS_ERR_RUNTIME. */
int hs_svg_hists_init(struct hs_svg_hists *hs, const struct hs_report *rep, bool per_vm);
void hs_svg_hists_free(struct hs_svg_hists *hs);
/* Every panel from s->y down, SVG_PANEL_H each, and a line for those left out. */
void hs_svg_hists_draw(struct hs_svg *s, const struct hs_svg_hists *hs);

#endif
