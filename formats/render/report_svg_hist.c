// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SVG report's histograms: a panel a VM or vCPU, log2 buckets on a
 * shared x axis (the non-empty ones and a bucket of margin), poll hits and
 * waits stacked, and the windows in force marked where they fall.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/error.h"
#include "duration.h"
#include "report_svg_hist.h"

#define SVG_PLOT_TOP	40.0		/* from a panel's top */
#define SVG_PLOT_H	150.0
#define SVG_MAX_PANELS	64
/* The histogram's x axis: the non-empty buckets, a bucket of margin each side. */
#define SVG_MARGIN_BUCKETS 1
#define SVG_MIN_BUCKETS	6

/* A y tick: the count, to 3 digits with k, M or G from 10^4 up. */
static void fmt_count(char *buf, size_t size, double v)
{
	v = hs_svg_fin(v);
	if (v < 1e4)
		snprintf(buf, size, "%.0f", v);
	else if (v < 1e6)
		snprintf(buf, size, "%.3gk", v / 1e3);
	else if (v < 1e9)
		snprintf(buf, size, "%.3gM", v / 1e6);
	else
		snprintf(buf, size, "%.3gG", v / 1e9);
}

static const struct hs_svg_font F_PANEL = { .size = 12, .bold = true };
static const struct hs_svg_font F_XTICK = { .size = 9, .anchor = SVG_MIDDLE, .cls = "xtick" };
static const struct hs_svg_font F_AXIS = { .size = 10, .anchor = SVG_MIDDLE };

/* Continuous log2-bucket coordinate: bucket b covers [b, b+1). */
static double bucket_pos(double ns)
{
	ns = hs_svg_fin(ns);
	return ns < 1.0 ? (ns > 0 ? ns : 0.0) : 1.0 + log2(ns);
}

/* The buckets any panel has a halt in, a bucket of margin each side, at least a few wide. */
static void svg_range(struct hs_svg_hists *hs)
{
	unsigned int lo = HS_LOG2_BUCKETS, hi = 0;

	for (unsigned int p = 0; p < hs->npanels; p++)
		for (unsigned int b = 0; b < HS_LOG2_BUCKETS; b++)
			if (hs->panels[p].h->poll[b] || hs->panels[p].h->wait[b]) {
				if (b < lo)
					lo = b;
				if (b > hi)
					hi = b;
			}
	if (lo > hi) {			/* nothing at all: show 1us..1ms */
		hs->xlo = 11;
		hs->xhi = 20;
		return;
	}
	hs->xlo = lo > SVG_MARGIN_BUCKETS ? lo - SVG_MARGIN_BUCKETS : 0;
	hs->xhi = hi + SVG_MARGIN_BUCKETS < HS_LOG2_BUCKETS ? hi + SVG_MARGIN_BUCKETS :
							      HS_LOG2_BUCKETS - 1;
	/* one bar alone would fill the plot: widen, the right side first */
	for (unsigned int k = 0; hs->xhi - hs->xlo + 1 < SVG_MIN_BUCKETS; k++) {
		if ((k % 2 == 0 || !hs->xlo) && hs->xhi < HS_LOG2_BUCKETS - 1)
			hs->xhi++;
		else if (hs->xlo)
			hs->xlo--;
	}
}

/* Panels in the model's order, busiest first. */
int hs_svg_hists_init(struct hs_svg_hists *hs, const struct hs_report *rep, bool per_vm)
{
	unsigned int n = per_vm ? rep->nvms : rep->nvcpus;

	hs->nhidden = n > SVG_MAX_PANELS ? n - SVG_MAX_PANELS : 0;
	hs->npanels = n - hs->nhidden;
	hs->panels = calloc(hs->npanels ? hs->npanels : 1, sizeof(*hs->panels));
	if (!hs->panels)
		return HS_ERR_RUNTIME;
	for (unsigned int i = 0; i < hs->npanels; i++) {
		struct hs_svg_panel *p = &hs->panels[i];

		if (per_vm) {
			const struct hs_report_vm *vm = &rep->vms[rep->vm_order ? rep->vm_order[i] : i];
			bool named = vm->name[0];

			p->name = named ? vm->name : vm->comm;
			p->name_max = named ? sizeof(vm->name) : sizeof(vm->comm);
			snprintf(p->what, sizeof(p->what), "VM, pid %d, %u vCPUs", vm->tgid, vm->nvcpus);
			p->h = &vm->log2;
			p->st = &vm->stats;
		} else {
			const struct hs_report_vcpu *v =
				&rep->vcpus[rep->vcpu_order ? rep->vcpu_order[i] : i];
			bool named = v->vm[0];

			p->name = named ? v->vm : v->comm;
			p->name_max = named ? sizeof(v->vm) : sizeof(v->comm);
			if (v->vcpu_index >= 0)
				snprintf(p->what, sizeof(p->what), "vCPU %d, tid %d", v->vcpu_index, v->tid);
			else
				snprintf(p->what, sizeof(p->what), "vCPU ?, tid %d", v->tid);
			p->h = &v->log2;
			p->st = &v->stats;
		}
	}
	svg_range(hs);
	return HS_OK;
}

void hs_svg_hists_free(struct hs_svg_hists *hs)
{
	free(hs->panels);
	hs->panels = NULL;
}

/* Where a panel's plot is, how wide a bucket, and which buckets it shows. */
struct svg_hist_geom {
	double top, bottom, bw;
	unsigned int xlo, xhi;
};

static double hist_x(const struct svg_hist_geom *g, double pos)
{
	return SVG_LEFT + (pos - g->xlo) * g->bw;
}

/*
 * A window as a vertical line at its place on the axis, or at the edge with
 * an arrow when it lies outside the buckets shown (0, "off", is left of all).
 */
static void svg_window_marker(struct hs_svg *s, const struct svg_hist_geom *g, double ns,
			      const char *label, const char *attrs)
{
	double pos = bucket_pos(ns), x;
	const char *lead = "", *tail = "";
	char buf[32], txt[96];

	if (!isfinite(ns) || ns < 0)
		return;
	if (pos < g->xlo)
		lead = "\xe2\x86\x90 ";		/* left arrow */
	else if (pos > g->xhi + 1)
		tail = " \xe2\x86\x92";		/* right arrow */
	x = hs_svg_clamp(hist_x(g, pos), SVG_LEFT, SVG_W - SVG_RIGHT);
	hs_svg_line(s, x, g->top, x, g->bottom, attrs);
	hs_duration_format(buf, sizeof(buf), ns);
	snprintf(txt, sizeof(txt), "%s%s %s%s%s", lead, label, buf, ns == 0 ? " (off)" : "", tail);
	/* the first free row inside the plot, right of the line, else left of it */
	for (double dy = 10; dy <= 70; dy += 12) {
		struct hs_svg_font right = { .size = 10 }, left = right;

		left.anchor = SVG_END;
		if (hs_svg_text_if_free(s, x + 3, g->top + dy, &right, txt) ||
		    hs_svg_text_if_free(s, x - 3, g->top + dy, &left, txt))
			return;
	}
}

static void svg_hist_yaxis(struct hs_svg *s, const struct svg_hist_geom *g, double ymax)
{
	char buf[32];

	for (int t = 0; t <= 4; t++) {
		double y = g->bottom - (g->bottom - g->top) * t / 4;

		hs_svg_line(s, SVG_LEFT, y, SVG_W - SVG_RIGHT, y, "stroke=\"" COL_GRID "\"");
		fmt_count(buf, sizeof(buf), ymax * t / 4);
		hs_svg_text(s, SVG_LEFT - 5, y + 4, &hs_svg_font_ytick, buf);
	}
	hs_svg_line(s, SVG_LEFT, g->top, SVG_LEFT, g->bottom, "stroke=\"" COL_AXIS "\"");
	hs_svg_text_up(s, SVG_LEFT - 50, (g->top + g->bottom) / 2, 10, "halts");
}

/* Ticks at the bucket boundaries, labelled as often as the labels fit. */
static void svg_hist_xaxis(struct hs_svg *s, const struct svg_hist_geom *g)
{
	unsigned int ncols = g->xhi - g->xlo + 1, step;
	double widest = 0;
	char buf[32];

	for (unsigned int k = 0; k <= ncols; k++) {
		hs_duration_format(buf, sizeof(buf), (double)hs_log2_lo(g->xlo + k));
		widest = fmax(widest, (double)strlen(buf) * F_XTICK.size * SVG_CHAR_EM);
	}
	step = (unsigned int)ceil((widest + 6) / g->bw);
	for (unsigned int k = 0; k <= ncols; k++) {
		double x = SVG_LEFT + k * g->bw;
		/* the right end of the last bucket; 2^64 past the top one */
		double lo = g->xlo + k < HS_LOG2_BUCKETS ? (double)hs_log2_lo(g->xlo + k) :
			    18446744073709551616.0;

		hs_svg_line(s, x, g->bottom, x, g->bottom + 4, "stroke=\"" COL_AXIS "\"");
		if (k % (step ? step : 1))
			continue;
		hs_duration_format(buf, sizeof(buf), lo);
		if (lo == 0)
			snprintf(buf, sizeof(buf), "0");
		hs_svg_text_if_free(s, x, g->bottom + 16, &F_XTICK, buf);
	}
	fprintf(s->out, "<line class=\"xaxis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"" COL_AXIS "\"/>\n", SVG_LEFT, hs_svg_fin(g->bottom), SVG_W - SVG_RIGHT,
		hs_svg_fin(g->bottom));
	hs_svg_text(s, (SVG_LEFT + SVG_W - SVG_RIGHT) / 2, g->bottom + 32, &F_AXIS,
		    "halt duration (log2 buckets; ticks at their bounds)");
}

static void svg_hist_bars(const struct hs_svg *s, const struct svg_hist_geom *g,
			  const struct hs_log2_hist *h, double ymax)
{
	for (unsigned int b = g->xlo; b <= g->xhi; b++) {
		double x = hist_x(g, b) + 1;
		double hp = hs_svg_clamp((double)h->poll[b] / ymax * SVG_PLOT_H, 0, SVG_PLOT_H);
		double hw = hs_svg_clamp((double)h->wait[b] / ymax * SVG_PLOT_H, 0, SVG_PLOT_H - hp);
		double w = g->bw > 3 ? g->bw - 2 : 1;

		if (h->poll[b])
			fprintf(s->out, "<rect class=\"poll\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\" fill=\"" COL_POLL "\"><title>%" PRIu64
				" poll hits</title></rect>\n", hs_svg_fin(x),
				hs_svg_fin(g->bottom - hp), hs_svg_fin(w), hs_svg_fin(hp), h->poll[b]);
		if (h->wait[b])
			fprintf(s->out, "<rect class=\"wait\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\" fill=\"" COL_WAIT "\"><title>%" PRIu64
				" waits</title></rect>\n", hs_svg_fin(x),
				hs_svg_fin(g->bottom - hp - hw), hs_svg_fin(w), hs_svg_fin(hw), h->wait[b]);
	}
}

/* Name and what it is on one line, its numbers on the next. */
static void svg_hist_title(struct hs_svg *s, const struct hs_svg_panel *p, double y)
{
	const struct hs_halt_stats *st = p->st;
	char name[160], title[320], p50[32], p99[32], line[256];

	snprintf(title, sizeof(title), "%s \xe2\x80\x94 %s",
		 hs_svg_name_copy(name, sizeof(name), p->name, p->name_max, 40), p->what);
	hs_svg_text(s, SVG_LEFT, y, &F_PANEL, title);
	hs_duration_format(p50, sizeof(p50), (double)st->p50_ns);
	hs_duration_format(p99, sizeof(p99), (double)st->p99_ns);
	snprintf(line, sizeof(line), "%" PRIu64 " halts, %" PRIu64 " poll hits (%.1f%%), %" PRIu64
		 " waits, p50 %s, p99 %s", st->halts, st->poll_hits, hs_svg_fin(st->hit_rate) * 100,
		 st->waits, p50, p99);
	if (st->sched_halts && st->contended_share >= 0) {
		size_t n = strlen(line);

		snprintf(line + n, sizeof(line) - n, ", contended %.1f%%",
			 100.0 * st->contended_share);
	}
	hs_svg_text(s, SVG_LEFT, y + 15, &hs_svg_font_small, line);
}

static void svg_hist_panel(struct hs_svg *s, const struct hs_svg_hists *hs,
			   const struct hs_svg_panel *p, double y0)
{
	struct svg_hist_geom g = { .top = y0 + SVG_PLOT_TOP, .bottom = y0 + SVG_PLOT_TOP + SVG_PLOT_H,
				   .bw = (SVG_W - SVG_LEFT - SVG_RIGHT) / (hs->xhi - hs->xlo + 1),
				   .xlo = hs->xlo, .xhi = hs->xhi };
	double ymax = 0;

	s->nboxes = 0;
	for (unsigned int b = g.xlo; b <= g.xhi; b++)
		ymax = fmax(ymax, (double)p->h->poll[b] + (double)p->h->wait[b]);
	ymax = hs_svg_nice_ceil(ymax);
	svg_hist_title(s, p, y0 + 16);
	svg_hist_yaxis(s, &g, ymax);
	svg_hist_bars(s, &g, p->h, ymax);
	svg_hist_xaxis(s, &g);
	svg_window_marker(s, &g, (double)p->st->window_last_ns, "window",
			  "stroke=\"" COL_LAST "\" stroke-width=\"2\"");
	svg_window_marker(s, &g, p->st->window_mean_ns, "mean window",
			  "stroke=\"" COL_MEAN "\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"");
}

void hs_svg_hists_draw(struct hs_svg *s, const struct hs_svg_hists *hs)
{
	for (unsigned int i = 0; i < hs->npanels; i++) {
		svg_hist_panel(s, hs, &hs->panels[i], s->y);
		s->y += SVG_PANEL_H;
	}
	if (hs->nhidden) {
		char line[96];

		s->nboxes = 0;
		snprintf(line, sizeof(line), "%u more not drawn (see the text or JSON report)",
			 hs->nhidden);
		hs_svg_text(s, SVG_LEFT, s->y + 12, &hs_svg_font_small, line);
		s->y += 20;
	}
}
