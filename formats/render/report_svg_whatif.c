// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SVG report's what-if plot: each replayed halt_poll_ns as a point of
 * poll hit rate against polling CPU, with its prediction interval, the
 * suggestion and the value in force marked, and labels placed where they
 * cover neither another label nor a point.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>

#include "duration.h"
#include "report_svg_whatif.h"

static const struct hs_svg_font F_BLOCK = { .size = 12, .bold = true };
static const struct hs_svg_font F_SUGGEST = { .size = 11, .fill = COL_SUGGEST };
static const struct hs_svg_font F_AXIS12 = { .size = 12, .anchor = SVG_MIDDLE };
static const struct hs_svg_font F_CAND = { .size = 10 };
static const struct hs_svg_font F_CHOSEN = { .size = 11, .bold = true, .fill = COL_SUGGEST };

/* The plot's frame, and its x axis' top in CPU seconds. */
struct svg_plot {
	double left, right, top, bottom, xmax;
};

static double plot_x(const struct svg_plot *pl, double cpu_s)
{
	return hs_svg_clamp(pl->left + hs_svg_fin(cpu_s) / pl->xmax * (pl->right - pl->left),
			    pl->left, pl->right);
}

static double plot_y(const struct svg_plot *pl, double rate)
{
	return hs_svg_clamp(pl->bottom - hs_svg_clamp(rate, 0, 1) * (pl->bottom - pl->top),
			    pl->top, pl->bottom);
}

static void svg_whatif_axes(struct hs_svg *s, const struct svg_plot *pl)
{
	struct hs_svg_font tick = { .size = 10, .anchor = SVG_MIDDLE };
	char buf[32];

	for (int t = 0; t <= 4; t++) {
		double y = plot_y(pl, t / 4.0), x = pl->left + (pl->right - pl->left) * t / 4;

		hs_svg_line(s, pl->left, y, pl->right, y, "stroke=\"" COL_GRID "\"");
		snprintf(buf, sizeof(buf), "%d%%", t * 25);
		hs_svg_text(s, pl->left - 5, y + 4, &hs_svg_font_ytick, buf);
		hs_svg_line(s, x, pl->bottom, x, pl->bottom + 4, "stroke=\"" COL_AXIS "\"");
		hs_duration_format(buf, sizeof(buf), hs_svg_fin(pl->xmax * t / 4) * 1e9);
		hs_svg_text(s, x, pl->bottom + 17, &tick, buf);
	}
	hs_svg_line(s, pl->left, pl->bottom, pl->right, pl->bottom, "stroke=\"" COL_AXIS "\"");
	hs_svg_line(s, pl->left, pl->top, pl->left, pl->bottom, "stroke=\"" COL_AXIS "\"");
	hs_svg_text(s, (pl->left + pl->right) / 2, pl->bottom + 35, &F_AXIS12,
		    "CPU time spent polling over the trace (all vCPUs)");
	hs_svg_text_up(s, pl->left - 50, (pl->top + pl->bottom) / 2, 12, "poll hit rate");
}

static bool svg_same_spot(const struct svg_plot *pl, const struct hs_whatif_row *a,
			  const struct hs_whatif_row *b)
{
	return fabs(plot_x(pl, a->poll_cpu_s) - plot_x(pl, b->poll_cpu_s)) < 2 &&
	       fabs(plot_y(pl, a->hit_rate) - plot_y(pl, b->hit_rate)) < 2;
}

/* One label for rows[0..n): the value, or the range, and what it is. */
static bool svg_whatif_words(char *label, size_t size, const struct hs_whatif_row *rows,
			     unsigned int n, int64_t suggest, int64_t current)
{
	bool chosen = false, is_current = false;
	char range[48];

	for (unsigned int k = 0; k < n; k++) {
		chosen |= suggest >= 0 && rows[k].halt_poll_ns == (uint64_t)suggest;
		is_current |= current >= 0 && rows[k].halt_poll_ns == (uint64_t)current;
	}
	if (n > 1)
		snprintf(range, sizeof(range), "%.4g-%.4gus", (double)rows[0].halt_poll_ns / 1e3,
			 (double)rows[n - 1].halt_poll_ns / 1e3);
	else
		snprintf(range, sizeof(range), "%.4gus", (double)rows[0].halt_poll_ns / 1e3);
	snprintf(label, size, "%s%s%s", range, chosen ? " suggested" : "",
		 is_current ? " (current)" : "");
	return chosen;
}

/*
 * Near the point where it overprints nothing; else in the free column right
 * of the plot, tied to its point by a thin line; else not at all (the
 * point's tooltip still says it). Returns false for the last case.
 */
static bool svg_whatif_label(struct hs_svg *s, const struct svg_plot *pl, double px, double py,
			     const char *label, bool chosen)
{
	/* offsets in units of the marker's radius plus a gap, then of a line */
	static const struct { double dx, dy; enum hs_svg_anchor a; } near[] = {
		{ 1, -0.5, SVG_START }, { 1, 1, SVG_START }, { -1, -0.5, SVG_END },
		{ -1, 1, SVG_END }, { 1, -1.5, SVG_START }, { 1, 2, SVG_START },
		{ -1, -1.5, SVG_END }, { -1, 2, SVG_END }, { 0, -1.5, SVG_MIDDLE },
		{ 0, 2.5, SVG_MIDDLE },
	};
	struct hs_svg_font f = chosen ? F_CHOSEN : F_CAND;
	double r = chosen ? 14 : 8, line = 12;

	for (size_t i = 0; i < sizeof(near) / sizeof(near[0]); i++) {
		double x = px + near[i].dx * r, y = py + near[i].dy * line + 4;

		f.anchor = near[i].a;
		if (y <= pl->bottom + 4 && hs_svg_text_if_free(s, x, y, &f, label))
			return true;
	}
	f.anchor = SVG_START;
	for (int k = 0; k < 48; k++) {
		double y = py + 4 + (k % 2 ? -1 : 1) * (k + 1) / 2 * 13.0;

		if (y < pl->top || y > pl->bottom + 4)
			continue;
		if (hs_svg_text_if_free(s, pl->right + 14, y, &f, label)) {
			hs_svg_line(s, px, py, pl->right + 12, y - 4,
				    "stroke=\"" COL_LEADER "\" stroke-width=\"0.7\"");
			return true;
		}
	}
	return false;
}

/* The points and their rings, so that no label covers one. */
static void svg_whatif_obstacles(struct hs_svg *s, const struct svg_plot *pl,
				 const struct hs_report *rep, int64_t suggest)
{
	for (unsigned int i = 0; i < rep->n_host_what_if; i++) {
		const struct hs_whatif_row *r = &rep->host_what_if[i];
		double x = plot_x(pl, r->poll_cpu_s), y = plot_y(pl, r->hit_rate);
		double d = suggest >= 0 && r->halt_poll_ns == (uint64_t)suggest ? 11 : 5;
		struct hs_svg_box b = { x - d, y - d, x + d, y + d };
		/* the error bars too: a label across one would hide what it bounds */
		struct hs_svg_box v = { x - 2, plot_y(pl, r->hit_rate_high), x + 2,
					plot_y(pl, r->hit_rate_low) };
		struct hs_svg_box h = { plot_x(pl, r->poll_cpu_s_low), y - 2,
					plot_x(pl, r->poll_cpu_s_high), y + 2 };

		hs_svg_box_keep(s, &b);
		hs_svg_box_keep(s, &v);
		hs_svg_box_keep(s, &h);
	}
}

/* The prediction interval of a row: hit rate up and down, polling CPU left and right. */
static void svg_whatif_bars(struct hs_svg *s, const struct svg_plot *pl,
			    const struct hs_whatif_row *r)
{
	double x = plot_x(pl, r->poll_cpu_s), y = plot_y(pl, r->hit_rate);
	double ylo = plot_y(pl, r->hit_rate_low), yhi = plot_y(pl, r->hit_rate_high);
	double xlo = plot_x(pl, r->poll_cpu_s_low), xhi = plot_x(pl, r->poll_cpu_s_high);
	const char *st = "stroke=\"" COL_AXIS "\" stroke-width=\"1\" class=\"errorbar\"";

	if (ylo - yhi >= 1) {
		hs_svg_line(s, x, yhi, x, ylo, st);
		hs_svg_line(s, x - 3, yhi, x + 3, yhi, st);
		hs_svg_line(s, x - 3, ylo, x + 3, ylo, st);
	}
	if (xhi - xlo >= 1) {
		hs_svg_line(s, xlo, y, xhi, y, st);
		hs_svg_line(s, xlo, y - 3, xlo, y + 3, st);
		hs_svg_line(s, xhi, y - 3, xhi, y + 3, st);
	}
}

static void svg_whatif_points(struct hs_svg *s, const struct svg_plot *pl,
			      const struct hs_report *rep, int64_t suggest)
{
	unsigned int unlabelled = 0;
	char label[96];

	svg_whatif_obstacles(s, pl, rep, suggest);
	fputs("<polyline fill=\"none\" stroke=\"" COL_AXIS "\" stroke-width=\"1.5\" points=\"", s->out);
	for (unsigned int i = 0; i < rep->n_host_what_if; i++)
		fprintf(s->out, "%s%.1f,%.1f", i ? " " : "",
			plot_x(pl, rep->host_what_if[i].poll_cpu_s),
			plot_y(pl, rep->host_what_if[i].hit_rate));
	fputs("\"/>\n", s->out);
	for (unsigned int i = 0, first = 0; i < rep->n_host_what_if; i++) {
		const struct hs_whatif_row *r = &rep->host_what_if[i];
		double x = plot_x(pl, r->poll_cpu_s), y = plot_y(pl, r->hit_rate);
		bool chosen = suggest >= 0 && r->halt_poll_ns == (uint64_t)suggest;
		bool current = rep->meta.halt_poll_ns >= 0 &&
			       r->halt_poll_ns == (uint64_t)rep->meta.halt_poll_ns;

		svg_whatif_bars(s, pl, r);
		fprintf(s->out, "<circle class=\"candidate\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
			"fill=\"" COL_POLL "\"><title>%.4gus: %.1f%% hits (%.1f-%.1f), %.4g CPU s "
			"(%.4g-%.4g)</title></circle>\n",
			x, y, (double)r->halt_poll_ns / 1e3, hs_svg_clamp(r->hit_rate, 0, 1) * 100,
			hs_svg_clamp(r->hit_rate_low, 0, 1) * 100,
			hs_svg_clamp(r->hit_rate_high, 0, 1) * 100, hs_svg_fin(r->poll_cpu_s),
			hs_svg_fin(r->poll_cpu_s_low), hs_svg_fin(r->poll_cpu_s_high));
		if (current)
			fprintf(s->out, "<rect class=\"current\" x=\"%.1f\" y=\"%.1f\" width=\"12\" "
				"height=\"12\" fill=\"none\" stroke=\"" COL_AXIS "\"/>\n", x - 6, y - 6);
		if (chosen)
			fprintf(s->out, "<circle class=\"suggested\" cx=\"%.1f\" cy=\"%.1f\" r=\"9\" "
				"fill=\"none\" stroke=\"" COL_SUGGEST "\" stroke-width=\"3\"/>\n", x, y);
		/* candidates that land on the same spot share one label, "LO-HIus" */
		if (i + 1 < rep->n_host_what_if &&
		    svg_same_spot(pl, r, &rep->host_what_if[i + 1]))
			continue;
		chosen = svg_whatif_words(label, sizeof(label), rep->host_what_if + first,
					  i - first + 1, suggest, rep->meta.halt_poll_ns);
		unlabelled += !svg_whatif_label(s, pl, x, y, label, chosen);
		first = i + 1;
	}
	if (unlabelled) {
		snprintf(label, sizeof(label), "%u candidate%s without room for a label: hover the "
			 "points", unlabelled, unlabelled == 1 ? "" : "s");
		hs_svg_text(s, pl->left, pl->bottom + 52, &F_CAND, label);
	}
}

void hs_svg_whatif_draw(struct hs_svg *s, const struct hs_report *rep, bool show_advice)
{
	struct svg_plot pl = { .left = SVG_LEFT, .right = SVG_W - SVG_RIGHT - 150,
			       .top = s->y + 56, .bottom = s->y + 56 + 270, .xmax = 0 };
	struct hs_svg_font mid = { .size = 12, .anchor = SVG_MIDDLE };
	int64_t suggest = -1;
	char line[160];

	s->nboxes = 0;
	if (show_advice && rep->advice.valid && rep->advice.halt_poll_ns <= INT64_MAX)
		suggest = (int64_t)rep->advice.halt_poll_ns;
	hs_svg_text(s, SVG_LEFT, s->y + 20, &F_BLOCK,
		    "What if: poll hit rate against polling CPU for each maximum halt_poll_ns");
	if (suggest >= 0) {
		snprintf(line, sizeof(line), "suggested halt_poll_ns=%" PRId64 " (%.4gus)", suggest,
			 (double)suggest / 1e3);
		hs_svg_text(s, SVG_LEFT, s->y + 36, &F_SUGGEST, line);
	}
	if (!rep->n_host_what_if) {
		hs_svg_text(s, (pl.left + pl.right) / 2, (pl.top + pl.bottom) / 2, &mid,
			    "no what-if data (no halts, or the replay was off)");
		s->y += SVG_WHATIF_H;
		return;
	}
	for (unsigned int i = 0; i < rep->n_host_what_if; i++)
		pl.xmax = fmax(pl.xmax, hs_svg_fin(rep->host_what_if[i].poll_cpu_s_high));
	pl.xmax = pl.xmax > 0 ? hs_svg_nice_ceil(pl.xmax) : 1.0;
	svg_whatif_axes(s, &pl);
	svg_whatif_points(s, &pl, rep, suggest);
	s->y += SVG_WHATIF_H;
}
