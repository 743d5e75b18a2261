// SPDX-License-Identifier: GPL-2.0-only
/*
 * A self-contained SVG of a report: no scripts, no external references, so
 * it can be attached to a bug report and opened anywhere. This file lays
 * out the page (the header, the legend, the advice, its height) around the
 * figures of report_svg_hist.c and report_svg_whatif.c; svg_draw.c holds
 * what they draw with, names escaped and labels kept from overprinting.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/error.h"
#include "output.h"
#include "report_svg_hist.h"
#include "report_svg_whatif.h"
#include "svg_draw.h"

#define SVG_MAX_WARN	6
#define SVG_MAX_ADVICE	24
#define SVG_PER_VM_ABOVE 8

static const struct hs_svg_font F_TITLE = { .size = 16, .bold = true };
static const struct hs_svg_font F_WARN = { .size = 11, .fill = COL_LAST };

static void svg_legend(struct hs_svg *s, double y)
{
	static const struct { const char *col, *label; bool line; } items[] = {
		{ COL_POLL, "poll hit (woken while polling)", false },
		{ COL_WAIT, "wait (scheduled out)", false },
		{ COL_LAST, "window at end of trace", true },
		{ COL_MEAN, "mean window (time-weighted)", true },
	};
	double x = SVG_LEFT;

	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		struct hs_svg_box b = hs_svg_box_of(x + 16, y, &hs_svg_font_small,
						    strlen(items[i].label));

		if (items[i].line)
			fprintf(s->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"%s\" stroke-width=\"2\"/>\n", x, y - 4, x + 12, y - 4,
				items[i].col);
		else
			fprintf(s->out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"10\" "
				"fill=\"%s\"/>\n", x, y - 9, items[i].col);
		hs_svg_text(s, x + 16, y, &hs_svg_font_small, items[i].label);
		x = b.x1 + 18;
	}
}

/* Width of the texts of the header, in characters that fit SVG_W at their size. */
#define SVG_SOURCE_CHARS	44
#define SVG_FACT_CHARS		40
#define SVG_WARN_CHARS		110

static void svg_header(struct hs_svg *s, const struct hs_report *rep)
{
	const struct hs_meta *m = &rep->meta;
	char name[480], rel[200], line[720];

	s->nboxes = 0;
	snprintf(line, sizeof(line), "haltstat: KVM halt polling \xe2\x80\x94 %s",
		 hs_svg_name_copy(name, sizeof(name), m->source[0] ? m->source : "(unknown source)",
				  sizeof(m->source), SVG_SOURCE_CHARS));
	hs_svg_text(s, SVG_LEFT, 24, &F_TITLE, line);
	hs_svg_name_copy(name, sizeof(name), m->format, sizeof(m->format), SVG_FACT_CHARS);
	hs_svg_name_copy(rel, sizeof(rel), m->kernel_release, sizeof(m->kernel_release),
			 SVG_FACT_CHARS);
	snprintf(line, sizeof(line), "%s%s%s", name, rel[0] ? ", kernel " : "", rel);
	hs_svg_text(s, SVG_LEFT, 42, &hs_svg_font_small, line);
	snprintf(line, sizeof(line), "%u vCPU thread%s in %u VM%s, %" PRIu64 " halts over %.3gs, "
		 "poll hit rate %.1f%%, lost events: %s", rep->nvcpus, rep->nvcpus == 1 ? "" : "s",
		 rep->nvms, rep->nvms == 1 ? "" : "s", rep->host.halts,
		 hs_svg_fin(rep->duration_s), hs_svg_fin(rep->host.hit_rate) * 100,
		 !m->lost_known ? "unknown" : rep->lost_pct > 0 ? "some" : "none");
	if (m->lost_known && rep->lost_pct > 0)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " (%.3g%%)",
			 hs_svg_fin(rep->lost_pct));
	hs_svg_text(s, SVG_LEFT, 58, &hs_svg_font_small, line);
	s->y = 58;
	for (unsigned int i = 0; i < rep->nwarnings && i < SVG_MAX_WARN; i++) {
		s->y += 15;
		snprintf(line, sizeof(line), "warning: %s",
			 hs_svg_name_copy(name, sizeof(name), rep->warnings[i], SIZE_MAX,
					  SVG_WARN_CHARS));
		hs_svg_text(s, SVG_LEFT, s->y, &F_WARN, line);
	}
	svg_legend(s, s->y + 22);
	s->y += 34;
}

/* The advice's characters that fit the drawing's width at 11px. */
#define SVG_ADVICE_CHARS ((size_t)((SVG_W - SVG_LEFT - SVG_RIGHT) / (11 * SVG_CHAR_EM)))

/*
 * The next line of the advice text starting at *t, at most SVG_ADVICE_CHARS
 * long and broken at a space where it can be; *t moves past it.
 */
static size_t svg_advice_line(const char **t)
{
	const char *p = *t;
	size_t len = strcspn(p, "\n");

	if (len > SVG_ADVICE_CHARS) {
		size_t cut = SVG_ADVICE_CHARS;

		while (cut > SVG_ADVICE_CHARS / 2 && p[cut] != ' ')
			cut--;
		len = p[cut] == ' ' ? cut : SVG_ADVICE_CHARS;
	}
	*t = p + len;
	while (**t == ' ' || **t == '\n')
		(*t)++;
	return len;
}

static void svg_advice_text(struct hs_svg *s, const struct hs_report *rep)
{
	const char *t = rep->advice.text;

	s->nboxes = 0;
	for (unsigned int n = 0; t && *t && n < SVG_MAX_ADVICE; n++) {
		const char *line = t;
		size_t len = svg_advice_line(&t);

		hs_svg_text_n(s, SVG_LEFT, s->y, &hs_svg_font_small, line, len, SIZE_MAX);
		s->y += 15;
	}
}

/* Every block has a fixed or bounded height: the page's is known before it is drawn. */
static double svg_height(const struct hs_report *rep, const struct hs_svg_hists *hs,
			 bool show_advice, double header)
{
	unsigned int nlines = 0;
	const char *t = rep->advice.text;

	if (show_advice && t)
		for (; *t && nlines < SVG_MAX_ADVICE; nlines++)
			svg_advice_line(&t);
	return header + hs->npanels * SVG_PANEL_H + (hs->nhidden ? 20 : 0) + SVG_WHATIF_H +
	       nlines * 15 + 20;
}

int hs_report_write_svg(FILE *out, const struct hs_report *rep, const struct hs_text_opts *opts)
{
	bool per_vcpu = opts && opts->per_vcpu_histograms;
	bool per_vm = (opts && opts->per_vm_histograms) ||
		      (!per_vcpu && rep->nvcpus > SVG_PER_VM_ABOVE);
	bool hists = !opts || opts->show_histograms;
	bool show_advice = !opts || opts->show_advice;
	unsigned int nwarn = rep->nwarnings < SVG_MAX_WARN ? rep->nwarnings : SVG_MAX_WARN;
	struct hs_svg *s = calloc(1, sizeof(*s));
	struct hs_svg_hists hs;
	double h;

	if (!s)
		return HS_ERR_RUNTIME;
	s->out = out;
	if (hs_svg_hists_init(&hs, rep, per_vm)) {
		free(s);
		return HS_ERR_RUNTIME;
	}
	if (!hists)
		hs.npanels = hs.nhidden = 0;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	/* the root element needs the height before anything is drawn */
	h = svg_height(rep, &hs, show_advice, 58 + 15 * nwarn + 34);
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
		SVG_W, hs_svg_fin(h), SVG_W, hs_svg_fin(h));
	fputs("<title>haltstat report</title>\n", out);
	fprintf(out, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", SVG_W,
		hs_svg_fin(h));
	svg_header(s, rep);
	hs_svg_hists_draw(s, &hs);
	hs_svg_whatif_draw(s, rep, show_advice);
	if (show_advice)
		svg_advice_text(s, rep);
	fputs("</svg>\n", out);
	hs_svg_hists_free(&hs);
	free(s);
	if (fflush(out) || ferror(out))
		return HS_ERR_OUTPUT;
	return 0;
}
