/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_REPORT_SVG_WHATIF_H
#define HS_REPORT_SVG_WHATIF_H

#include <stdbool.h>

#include "../../lib/report.h"
#include "svg_draw.h"

/* The SVG report's what-if plot: its height, fixed so that the page's is known first. */
#define SVG_WHATIF_H	400.0

/*
 * The host's what-if rows from s->y down, the suggestion marked when
 * show_advice; s->y moves SVG_WHATIF_H down.
 */
void hs_svg_whatif_draw(struct hs_svg *s, const struct hs_report *rep, bool show_advice);

#endif
