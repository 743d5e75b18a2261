// SPDX-License-Identifier: GPL-2.0-only
/*
 * A self-contained SVG of a report: no scripts, no external references, so
 * it can be attached to a bug report and opened anywhere. Every name comes
 * from the trace and is escaped; every coordinate goes through fin() or
 * clampd() so that no NaN or infinity reaches the file.
 *
 * Labels never overprint: every text's box is estimated from its font size,
 * anchor and length (the estimate tests/tools/svg_check.py makes too), and
 * the labels that can go in several places (what-if candidates, window
 * markers, axis ticks) take the first free one, or are left out.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/error.h"
#include "duration.h"
#include "escape.h"
#include "output.h"

#define SVG_W		960.0
#define SVG_LEFT	80.0
#define SVG_RIGHT	30.0
#define SVG_PANEL_H	250.0
#define SVG_PLOT_TOP	40.0		/* from a panel's top */
#define SVG_PLOT_H	150.0
#define SVG_WHATIF_H	400.0
#define SVG_MAX_PANELS	64
#define SVG_MAX_WARN	6
#define SVG_MAX_ADVICE	24
#define SVG_PER_VM_ABOVE 8
#define SVG_MAX_BOXES	256
/* The histogram's x axis: the non-empty buckets, a bucket of margin each side. */
#define SVG_MARGIN_BUCKETS 1
#define SVG_MIN_BUCKETS	6

/*
 * A character's advance in em: DejaVu Sans, the usual sans-serif, has 0.636
 * for digits and less for most letters, so this errs on the wide side.
 */
#define SVG_CHAR_EM	0.64
#define SVG_BOLD_EM	0.70
#define SVG_ASCENT_EM	0.80
#define SVG_DESCENT_EM	0.25

#define COL_POLL	"#1f77b4"
#define COL_WAIT	"#ff7f0e"
#define COL_LAST	"#d62728"
#define COL_MEAN	"#9467bd"
#define COL_SUGGEST	"#2ca02c"
#define COL_AXIS	"#444444"
#define COL_GRID	"#dddddd"
#define COL_LEADER	"#999999"

enum svg_anchor { SVG_START, SVG_MIDDLE, SVG_END };

struct svg_font {
	double size;
	enum svg_anchor anchor;
	bool bold;
	const char *fill;		/* NULL: black */
	const char *cls;		/* class attribute, or NULL */
};

struct svg_box {
	double x0, y0, x1, y1;
};

struct svg_panel {
	const char *name;		/* untrusted */
	size_t name_max;
	char what[96];			/* "vCPU 0, tid 1001" */
	const struct hs_log2_hist *h;
	const struct hs_halt_stats *st;
};

struct svg {
	FILE *out;
	const struct hs_report *rep;
	bool show_advice;
	struct svg_panel *panels;
	unsigned int npanels, nhidden;
	unsigned int xlo, xhi;		/* log2 bucket columns shown on every histogram */
	double y;			/* where the next block starts */
	/* the texts of the block being drawn; blocks do not overlap each other */
	struct svg_box boxes[SVG_MAX_BOXES];
	unsigned int nboxes;
};

/* The only way a number reaches a coordinate: finite, or 0. */
static double fin(double v)
{
	return isfinite(v) ? v : 0.0;
}

static double clampd(double v, double lo, double hi)
{
	v = fin(v);
	return v < lo ? lo : v > hi ? hi : v;
}

static void fmt_count(char *buf, size_t size, double v)
{
	v = fin(v);
	if (v < 1e4)
		snprintf(buf, size, "%.0f", v);
	else if (v < 1e6)
		snprintf(buf, size, "%.3gk", v / 1e3);
	else if (v < 1e9)
		snprintf(buf, size, "%.3gM", v / 1e6);
	else
		snprintf(buf, size, "%.3gG", v / 1e9);
}

/* 1, 2 or 5 times a power of ten, at least v; 1 for nothing. */
static double nice_ceil(double v)
{
	double p = 1.0;

	v = fin(v);
	if (v <= 0)
		return 1.0;
	/* p: the largest power of ten at most v */
	while (p * 10 <= v && p < 1e300)
		p *= 10;
	while (p > v && p > 1e-300)
		p /= 10;
	if (p >= v)
		return p;
	if (2 * p >= v)
		return 2 * p;
	if (5 * p >= v)
		return 5 * p;
	return 10 * p;
}

/* ---- text and its room ---- */

/* Code points in the first len bytes of s: what a viewer shows, one glyph each. */
static size_t svg_nchars(const char *s, size_t len)
{
	size_t n = 0;
	uint32_t cp;

	for (size_t i = 0; i < len; n++)
		i += hs_utf8_next(s + i, len - i, &cp);
	return n;
}

static struct svg_box svg_box_of(double x, double y, const struct svg_font *f, size_t nchars)
{
	double w = (double)nchars * f->size * (f->bold ? SVG_BOLD_EM : SVG_CHAR_EM);
	double x0 = f->anchor == SVG_START ? x : f->anchor == SVG_MIDDLE ? x - w / 2 : x - w;

	return (struct svg_box){ x0, y - SVG_ASCENT_EM * f->size, x0 + w,
				 y + SVG_DESCENT_EM * f->size };
}

static bool svg_box_free(const struct svg *s, const struct svg_box *b)
{
	if (b->x0 < 0 || b->x1 > SVG_W)
		return false;
	for (unsigned int i = 0; i < s->nboxes; i++) {
		const struct svg_box *o = &s->boxes[i];

		if (b->x0 < o->x1 && o->x0 < b->x1 && b->y0 < o->y1 && o->y0 < b->y1)
			return false;
	}
	return true;
}

static void svg_box_keep(struct svg *s, const struct svg_box *b)
{
	if (s->nboxes < SVG_MAX_BOXES)
		s->boxes[s->nboxes++] = *b;
}

static void svg_font_attrs(FILE *out, const struct svg_font *f)
{
	static const char *const anchors[] = { "", " text-anchor=\"middle\"",
					       " text-anchor=\"end\"" };

	fprintf(out, " font-size=\"%g\"%s%s", f->size, anchors[f->anchor],
		f->bold ? " font-weight=\"bold\"" : "");
	if (f->fill)
		fprintf(out, " fill=\"%s\"", f->fill);
	if (f->cls)
		fprintf(out, " class=\"%s\"", f->cls);
}

/* At most nchars code points of str (max bytes), "..." after a cut. */
static void svg_text_n(struct svg *s, double x, double y, const struct svg_font *f,
		       const char *str, size_t max, size_t nchars)
{
	size_t len = hs_utf8_prefix(str, max, nchars);
	bool cut = len < strnlen(str, max);
	struct svg_box b = svg_box_of(x, y, f, svg_nchars(str, len) + cut);

	fprintf(s->out, "<text x=\"%.1f\" y=\"%.1f\"", fin(x), fin(y));
	svg_font_attrs(s->out, f);
	fputc('>', s->out);
	hs_esc_xml(s->out, str, len);
	if (cut)
		fputs("\xe2\x80\xa6", s->out);
	fputs("</text>\n", s->out);
	svg_box_keep(s, &b);
}

static void svg_text(struct svg *s, double x, double y, const struct svg_font *f,
		     const char *str)
{
	svg_text_n(s, x, y, f, str, SIZE_MAX, SIZE_MAX);
}

/* A label that may be left out: drawn only where it overprints nothing. */
static bool svg_text_if_free(struct svg *s, double x, double y, const struct svg_font *f,
			     const char *str)
{
	struct svg_box b = svg_box_of(x, y, f, svg_nchars(str, strlen(str)));

	if (!svg_box_free(s, &b))
		return false;
	svg_text(s, x, y, f, str);
	return true;
}

/* An axis title turned a quarter left, centred on (cx, cy). */
static void svg_text_up(struct svg *s, double cx, double cy, double size, const char *str)
{
	struct svg_font f = { .size = size, .anchor = SVG_MIDDLE };
	struct svg_box b = svg_box_of(0, 0, &f, svg_nchars(str, strlen(str)));

	fprintf(s->out, "<text x=\"0\" y=\"0\" font-size=\"%g\" text-anchor=\"middle\" "
		"transform=\"translate(%.1f %.1f) rotate(-90)\">", size, fin(cx), fin(cy));
	hs_esc_xml(s->out, str, SIZE_MAX);
	fputs("</text>\n", s->out);
	/* rotate(-90) takes (u, v) to (v, -u) */
	b = (struct svg_box){ cx + b.y0, cy - b.x1, cx + b.y1, cy - b.x0 };
	svg_box_keep(s, &b);
}

/*
 * Copies the first nchars code points of an untrusted name (not always
 * NUL-terminated in its array) into buf, "..." after a cut; returns buf.
 */
static char *svg_name_copy(char *buf, size_t size, const char *name, size_t max, size_t nchars)
{
	size_t len = hs_utf8_prefix(name, max, nchars), n = 0;

	if (len + 4 > size)
		len = size > 4 ? size - 4 : 0;
	memcpy(buf, name, len);
	n = len;
	if (len < strnlen(name, max)) {
		memcpy(buf + n, "\xe2\x80\xa6", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

static void svg_line(const struct svg *s, double x1, double y1, double x2, double y2,
		     const char *attrs)
{
	fprintf(s->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>\n",
		fin(x1), fin(y1), fin(x2), fin(y2), attrs);
}

/* ---- histograms ---- */

static const struct svg_font F_PANEL = { .size = 12, .bold = true };
static const struct svg_font F_SMALL = { .size = 11 };
static const struct svg_font F_YTICK = { .size = 10, .anchor = SVG_END };
static const struct svg_font F_XTICK = { .size = 9, .anchor = SVG_MIDDLE, .cls = "xtick" };
static const struct svg_font F_AXIS = { .size = 10, .anchor = SVG_MIDDLE };

/* Continuous log2-bucket coordinate: bucket b covers [b, b+1). */
static double bucket_pos(double ns)
{
	ns = fin(ns);
	return ns < 1.0 ? (ns > 0 ? ns : 0.0) : 1.0 + log2(ns);
}

/* The buckets any panel has a halt in, a bucket of margin each side, at least a few wide. */
static void svg_range(struct svg *s)
{
	unsigned int lo = HS_LOG2_BUCKETS, hi = 0;

	for (unsigned int p = 0; p < s->npanels; p++)
		for (unsigned int b = 0; b < HS_LOG2_BUCKETS; b++)
			if (s->panels[p].h->poll[b] || s->panels[p].h->wait[b]) {
				if (b < lo)
					lo = b;
				if (b > hi)
					hi = b;
			}
	if (lo > hi) {			/* nothing at all: show 1us..1ms */
		s->xlo = 11;
		s->xhi = 20;
		return;
	}
	s->xlo = lo > SVG_MARGIN_BUCKETS ? lo - SVG_MARGIN_BUCKETS : 0;
	s->xhi = hi + SVG_MARGIN_BUCKETS < HS_LOG2_BUCKETS ? hi + SVG_MARGIN_BUCKETS :
							      HS_LOG2_BUCKETS - 1;
	/* one bar alone would fill the plot: widen, the right side first */
	for (unsigned int k = 0; s->xhi - s->xlo + 1 < SVG_MIN_BUCKETS; k++) {
		if ((k % 2 == 0 || !s->xlo) && s->xhi < HS_LOG2_BUCKETS - 1)
			s->xhi++;
		else if (s->xlo)
			s->xlo--;
	}
}

/* Panels in the model's order, busiest first. */
static int svg_panels(struct svg *s, bool per_vm)
{
	const struct hs_report *rep = s->rep;
	unsigned int n = per_vm ? rep->nvms : rep->nvcpus;

	s->nhidden = n > SVG_MAX_PANELS ? n - SVG_MAX_PANELS : 0;
	s->npanels = n - s->nhidden;
	s->panels = calloc(s->npanels ? s->npanels : 1, sizeof(*s->panels));
	if (!s->panels)
		return HS_ERR_RUNTIME;
	for (unsigned int i = 0; i < s->npanels; i++) {
		struct svg_panel *p = &s->panels[i];

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
	svg_range(s);
	return 0;
}

struct svg_hist_geom {
	double top, bottom, bw;
};

static double hist_x(const struct svg *s, const struct svg_hist_geom *g, double pos)
{
	return SVG_LEFT + (pos - s->xlo) * g->bw;
}

/*
 * A window as a vertical line at its place on the axis, or at the edge with
 * an arrow when it lies outside the buckets shown (0, "off", is left of all).
 */
static void svg_window_marker(struct svg *s, const struct svg_hist_geom *g, double ns,
			      const char *label, const char *attrs)
{
	double pos = bucket_pos(ns), x;
	const char *lead = "", *tail = "";
	char buf[32], txt[96];

	if (!isfinite(ns) || ns < 0)
		return;
	if (pos < s->xlo)
		lead = "\xe2\x86\x90 ";		/* left arrow */
	else if (pos > s->xhi + 1)
		tail = " \xe2\x86\x92";		/* right arrow */
	x = clampd(hist_x(s, g, pos), SVG_LEFT, SVG_W - SVG_RIGHT);
	svg_line(s, x, g->top, x, g->bottom, attrs);
	hs_duration_format(buf, sizeof(buf), ns);
	snprintf(txt, sizeof(txt), "%s%s %s%s%s", lead, label, buf, ns == 0 ? " (off)" : "", tail);
	/* the first free row inside the plot, right of the line, else left of it */
	for (double dy = 10; dy <= 70; dy += 12) {
		struct svg_font right = { .size = 10 }, left = right;

		left.anchor = SVG_END;
		if (svg_text_if_free(s, x + 3, g->top + dy, &right, txt) ||
		    svg_text_if_free(s, x - 3, g->top + dy, &left, txt))
			return;
	}
}

static void svg_hist_yaxis(struct svg *s, const struct svg_hist_geom *g, double ymax)
{
	char buf[32];

	for (int t = 0; t <= 4; t++) {
		double y = g->bottom - (g->bottom - g->top) * t / 4;

		svg_line(s, SVG_LEFT, y, SVG_W - SVG_RIGHT, y, "stroke=\"" COL_GRID "\"");
		fmt_count(buf, sizeof(buf), ymax * t / 4);
		svg_text(s, SVG_LEFT - 5, y + 4, &F_YTICK, buf);
	}
	svg_line(s, SVG_LEFT, g->top, SVG_LEFT, g->bottom, "stroke=\"" COL_AXIS "\"");
	svg_text_up(s, SVG_LEFT - 50, (g->top + g->bottom) / 2, 10, "halts");
}

/* Ticks at the bucket boundaries, labelled as often as the labels fit. */
static void svg_hist_xaxis(struct svg *s, const struct svg_hist_geom *g)
{
	unsigned int ncols = s->xhi - s->xlo + 1, step;
	double widest = 0;
	char buf[32];

	for (unsigned int k = 0; k <= ncols; k++) {
		hs_duration_format(buf, sizeof(buf), (double)hs_log2_lo(s->xlo + k));
		widest = fmax(widest, (double)strlen(buf) * F_XTICK.size * SVG_CHAR_EM);
	}
	step = (unsigned int)ceil((widest + 6) / g->bw);
	for (unsigned int k = 0; k <= ncols; k++) {
		double x = SVG_LEFT + k * g->bw;
		/* the right end of the last bucket; 2^64 past the top one */
		double lo = s->xlo + k < HS_LOG2_BUCKETS ? (double)hs_log2_lo(s->xlo + k) :
			    18446744073709551616.0;

		svg_line(s, x, g->bottom, x, g->bottom + 4, "stroke=\"" COL_AXIS "\"");
		if (k % (step ? step : 1))
			continue;
		hs_duration_format(buf, sizeof(buf), lo);
		if (lo == 0)
			snprintf(buf, sizeof(buf), "0");
		svg_text_if_free(s, x, g->bottom + 16, &F_XTICK, buf);
	}
	fprintf(s->out, "<line class=\"xaxis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"" COL_AXIS "\"/>\n", SVG_LEFT, fin(g->bottom), SVG_W - SVG_RIGHT,
		fin(g->bottom));
	svg_text(s, (SVG_LEFT + SVG_W - SVG_RIGHT) / 2, g->bottom + 32, &F_AXIS,
		 "halt duration (log2 buckets; ticks at their bounds)");
}

static void svg_hist_bars(const struct svg *s, const struct svg_hist_geom *g,
			  const struct hs_log2_hist *h, double ymax)
{
	for (unsigned int b = s->xlo; b <= s->xhi; b++) {
		double x = hist_x(s, g, b) + 1;
		double hp = clampd((double)h->poll[b] / ymax * SVG_PLOT_H, 0, SVG_PLOT_H);
		double hw = clampd((double)h->wait[b] / ymax * SVG_PLOT_H, 0, SVG_PLOT_H - hp);
		double w = g->bw > 3 ? g->bw - 2 : 1;

		if (h->poll[b])
			fprintf(s->out, "<rect class=\"poll\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\" fill=\"" COL_POLL "\"><title>%" PRIu64
				" poll hits</title></rect>\n", fin(x), fin(g->bottom - hp), fin(w),
				fin(hp), h->poll[b]);
		if (h->wait[b])
			fprintf(s->out, "<rect class=\"wait\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\" fill=\"" COL_WAIT "\"><title>%" PRIu64
				" waits</title></rect>\n", fin(x), fin(g->bottom - hp - hw), fin(w),
				fin(hw), h->wait[b]);
	}
}

/* Name and what it is on one line, its numbers on the next. */
static void svg_hist_title(struct svg *s, const struct svg_panel *p, double y)
{
	const struct hs_halt_stats *st = p->st;
	char name[160], title[320], p50[32], p99[32], line[256];

	snprintf(title, sizeof(title), "%s \xe2\x80\x94 %s",
		 svg_name_copy(name, sizeof(name), p->name, p->name_max, 40), p->what);
	svg_text(s, SVG_LEFT, y, &F_PANEL, title);
	hs_duration_format(p50, sizeof(p50), (double)st->p50_ns);
	hs_duration_format(p99, sizeof(p99), (double)st->p99_ns);
	snprintf(line, sizeof(line), "%" PRIu64 " halts, %" PRIu64 " poll hits (%.1f%%), %" PRIu64
		 " waits, p50 %s, p99 %s", st->halts, st->poll_hits, fin(st->hit_rate) * 100,
		 st->waits, p50, p99);
	if (st->sched_halts && st->contended_share >= 0) {
		size_t n = strlen(line);

		snprintf(line + n, sizeof(line) - n, ", contended %.1f%%",
			 100.0 * st->contended_share);
	}
	svg_text(s, SVG_LEFT, y + 15, &F_SMALL, line);
}

static void svg_hist_panel(struct svg *s, const struct svg_panel *p, double y0)
{
	struct svg_hist_geom g = { .top = y0 + SVG_PLOT_TOP, .bottom = y0 + SVG_PLOT_TOP + SVG_PLOT_H,
				   .bw = (SVG_W - SVG_LEFT - SVG_RIGHT) / (s->xhi - s->xlo + 1) };
	double ymax = 0;

	s->nboxes = 0;
	for (unsigned int b = s->xlo; b <= s->xhi; b++)
		ymax = fmax(ymax, (double)p->h->poll[b] + (double)p->h->wait[b]);
	ymax = nice_ceil(ymax);
	svg_hist_title(s, p, y0 + 16);
	svg_hist_yaxis(s, &g, ymax);
	svg_hist_bars(s, &g, p->h, ymax);
	svg_hist_xaxis(s, &g);
	svg_window_marker(s, &g, (double)p->st->window_last_ns, "window",
			  "stroke=\"" COL_LAST "\" stroke-width=\"2\"");
	svg_window_marker(s, &g, p->st->window_mean_ns, "mean window",
			  "stroke=\"" COL_MEAN "\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"");
}

/* ---- what-if ---- */

static const struct svg_font F_BLOCK = { .size = 12, .bold = true };
static const struct svg_font F_SUGGEST = { .size = 11, .fill = COL_SUGGEST };
static const struct svg_font F_AXIS12 = { .size = 12, .anchor = SVG_MIDDLE };
static const struct svg_font F_CAND = { .size = 10 };
static const struct svg_font F_CHOSEN = { .size = 11, .bold = true, .fill = COL_SUGGEST };

struct svg_plot {
	double left, right, top, bottom, xmax;
};

static double plot_x(const struct svg_plot *pl, double cpu_s)
{
	return clampd(pl->left + fin(cpu_s) / pl->xmax * (pl->right - pl->left), pl->left, pl->right);
}

static double plot_y(const struct svg_plot *pl, double rate)
{
	return clampd(pl->bottom - clampd(rate, 0, 1) * (pl->bottom - pl->top), pl->top, pl->bottom);
}

static void svg_whatif_axes(struct svg *s, const struct svg_plot *pl)
{
	struct svg_font tick = { .size = 10, .anchor = SVG_MIDDLE };
	char buf[32];

	for (int t = 0; t <= 4; t++) {
		double y = plot_y(pl, t / 4.0), x = pl->left + (pl->right - pl->left) * t / 4;

		svg_line(s, pl->left, y, pl->right, y, "stroke=\"" COL_GRID "\"");
		snprintf(buf, sizeof(buf), "%d%%", t * 25);
		svg_text(s, pl->left - 5, y + 4, &F_YTICK, buf);
		svg_line(s, x, pl->bottom, x, pl->bottom + 4, "stroke=\"" COL_AXIS "\"");
		hs_duration_format(buf, sizeof(buf), fin(pl->xmax * t / 4) * 1e9);
		svg_text(s, x, pl->bottom + 17, &tick, buf);
	}
	svg_line(s, pl->left, pl->bottom, pl->right, pl->bottom, "stroke=\"" COL_AXIS "\"");
	svg_line(s, pl->left, pl->top, pl->left, pl->bottom, "stroke=\"" COL_AXIS "\"");
	svg_text(s, (pl->left + pl->right) / 2, pl->bottom + 35, &F_AXIS12,
		 "CPU time spent polling over the trace (all vCPUs)");
	svg_text_up(s, pl->left - 50, (pl->top + pl->bottom) / 2, 12, "poll hit rate");
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
static bool svg_whatif_label(struct svg *s, const struct svg_plot *pl, double px, double py,
			     const char *label, bool chosen)
{
	/* offsets in units of the marker's radius plus a gap, then of a line */
	static const struct { double dx, dy; enum svg_anchor a; } near[] = {
		{ 1, -0.5, SVG_START }, { 1, 1, SVG_START }, { -1, -0.5, SVG_END },
		{ -1, 1, SVG_END }, { 1, -1.5, SVG_START }, { 1, 2, SVG_START },
		{ -1, -1.5, SVG_END }, { -1, 2, SVG_END }, { 0, -1.5, SVG_MIDDLE },
		{ 0, 2.5, SVG_MIDDLE },
	};
	struct svg_font f = chosen ? F_CHOSEN : F_CAND;
	double r = chosen ? 14 : 8, line = 12;

	for (size_t i = 0; i < sizeof(near) / sizeof(near[0]); i++) {
		double x = px + near[i].dx * r, y = py + near[i].dy * line + 4;

		f.anchor = near[i].a;
		if (y <= pl->bottom + 4 && svg_text_if_free(s, x, y, &f, label))
			return true;
	}
	f.anchor = SVG_START;
	for (int k = 0; k < 48; k++) {
		double y = py + 4 + (k % 2 ? -1 : 1) * (k + 1) / 2 * 13.0;

		if (y < pl->top || y > pl->bottom + 4)
			continue;
		if (svg_text_if_free(s, pl->right + 14, y, &f, label)) {
			svg_line(s, px, py, pl->right + 12, y - 4,
				 "stroke=\"" COL_LEADER "\" stroke-width=\"0.7\"");
			return true;
		}
	}
	return false;
}

/* The points and their rings, so that no label covers one. */
static void svg_whatif_obstacles(struct svg *s, const struct svg_plot *pl, int64_t suggest)
{
	const struct hs_report *rep = s->rep;

	for (unsigned int i = 0; i < rep->n_host_what_if; i++) {
		const struct hs_whatif_row *r = &rep->host_what_if[i];
		double x = plot_x(pl, r->poll_cpu_s), y = plot_y(pl, r->hit_rate);
		double d = suggest >= 0 && r->halt_poll_ns == (uint64_t)suggest ? 11 : 5;
		struct svg_box b = { x - d, y - d, x + d, y + d };
		/* the error bars too: a label across one would hide what it bounds */
		struct svg_box v = { x - 2, plot_y(pl, r->hit_rate_high), x + 2,
				     plot_y(pl, r->hit_rate_low) };
		struct svg_box h = { plot_x(pl, r->poll_cpu_s_low), y - 2,
				     plot_x(pl, r->poll_cpu_s_high), y + 2 };

		svg_box_keep(s, &b);
		svg_box_keep(s, &v);
		svg_box_keep(s, &h);
	}
}

/* The prediction interval of a row: hit rate up and down, polling CPU left and right. */
static void svg_whatif_bars(struct svg *s, const struct svg_plot *pl, const struct hs_whatif_row *r)
{
	double x = plot_x(pl, r->poll_cpu_s), y = plot_y(pl, r->hit_rate);
	double ylo = plot_y(pl, r->hit_rate_low), yhi = plot_y(pl, r->hit_rate_high);
	double xlo = plot_x(pl, r->poll_cpu_s_low), xhi = plot_x(pl, r->poll_cpu_s_high);
	const char *st = "stroke=\"" COL_AXIS "\" stroke-width=\"1\" class=\"errorbar\"";

	if (ylo - yhi >= 1) {
		svg_line(s, x, yhi, x, ylo, st);
		svg_line(s, x - 3, yhi, x + 3, yhi, st);
		svg_line(s, x - 3, ylo, x + 3, ylo, st);
	}
	if (xhi - xlo >= 1) {
		svg_line(s, xlo, y, xhi, y, st);
		svg_line(s, xlo, y - 3, xlo, y + 3, st);
		svg_line(s, xhi, y - 3, xhi, y + 3, st);
	}
}

static void svg_whatif_points(struct svg *s, const struct svg_plot *pl, int64_t suggest)
{
	const struct hs_report *rep = s->rep;
	unsigned int unlabelled = 0;
	char label[96];

	svg_whatif_obstacles(s, pl, suggest);
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
			x, y, (double)r->halt_poll_ns / 1e3, clampd(r->hit_rate, 0, 1) * 100,
			clampd(r->hit_rate_low, 0, 1) * 100, clampd(r->hit_rate_high, 0, 1) * 100,
			fin(r->poll_cpu_s), fin(r->poll_cpu_s_low), fin(r->poll_cpu_s_high));
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
		svg_text(s, pl->left, pl->bottom + 52, &F_CAND, label);
	}
}

static void svg_whatif(struct svg *s)
{
	const struct hs_report *rep = s->rep;
	struct svg_plot pl = { .left = SVG_LEFT, .right = SVG_W - SVG_RIGHT - 150,
			       .top = s->y + 56, .bottom = s->y + 56 + 270, .xmax = 0 };
	struct svg_font mid = { .size = 12, .anchor = SVG_MIDDLE };
	int64_t suggest = -1;
	char line[160];

	s->nboxes = 0;
	if (s->show_advice && rep->advice.valid && rep->advice.halt_poll_ns <= INT64_MAX)
		suggest = (int64_t)rep->advice.halt_poll_ns;
	svg_text(s, SVG_LEFT, s->y + 20, &F_BLOCK,
		 "What if: poll hit rate against polling CPU for each maximum halt_poll_ns");
	if (suggest >= 0) {
		snprintf(line, sizeof(line), "suggested halt_poll_ns=%" PRId64 " (%.4gus)", suggest,
			 (double)suggest / 1e3);
		svg_text(s, SVG_LEFT, s->y + 36, &F_SUGGEST, line);
	}
	if (!rep->n_host_what_if) {
		svg_text(s, (pl.left + pl.right) / 2, (pl.top + pl.bottom) / 2, &mid,
			 "no what-if data (no halts, or the replay was off)");
		s->y += SVG_WHATIF_H;
		return;
	}
	for (unsigned int i = 0; i < rep->n_host_what_if; i++)
		pl.xmax = fmax(pl.xmax, fin(rep->host_what_if[i].poll_cpu_s_high));
	pl.xmax = pl.xmax > 0 ? nice_ceil(pl.xmax) : 1.0;
	svg_whatif_axes(s, &pl);
	svg_whatif_points(s, &pl, suggest);
	s->y += SVG_WHATIF_H;
}

/* ---- header, legend, advice ---- */

static const struct svg_font F_TITLE = { .size = 16, .bold = true };
static const struct svg_font F_WARN = { .size = 11, .fill = COL_LAST };

static void svg_legend(struct svg *s, double y)
{
	static const struct { const char *col, *label; bool line; } items[] = {
		{ COL_POLL, "poll hit (woken while polling)", false },
		{ COL_WAIT, "wait (scheduled out)", false },
		{ COL_LAST, "window at end of trace", true },
		{ COL_MEAN, "mean window (time-weighted)", true },
	};
	double x = SVG_LEFT;

	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		struct svg_box b = svg_box_of(x + 16, y, &F_SMALL, strlen(items[i].label));

		if (items[i].line)
			fprintf(s->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"%s\" stroke-width=\"2\"/>\n", x, y - 4, x + 12, y - 4,
				items[i].col);
		else
			fprintf(s->out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"10\" "
				"fill=\"%s\"/>\n", x, y - 9, items[i].col);
		svg_text(s, x + 16, y, &F_SMALL, items[i].label);
		x = b.x1 + 18;
	}
}

/* Width of the texts of the header, in characters that fit SVG_W at their size. */
#define SVG_SOURCE_CHARS	44
#define SVG_FACT_CHARS		40
#define SVG_WARN_CHARS		110

static void svg_header(struct svg *s)
{
	const struct hs_report *rep = s->rep;
	const struct hs_meta *m = &rep->meta;
	char name[480], rel[200], line[720];

	s->nboxes = 0;
	snprintf(line, sizeof(line), "haltstat: KVM halt polling \xe2\x80\x94 %s",
		 svg_name_copy(name, sizeof(name), m->source[0] ? m->source : "(unknown source)",
			       sizeof(m->source), SVG_SOURCE_CHARS));
	svg_text(s, SVG_LEFT, 24, &F_TITLE, line);
	svg_name_copy(name, sizeof(name), m->format, sizeof(m->format), SVG_FACT_CHARS);
	svg_name_copy(rel, sizeof(rel), m->kernel_release, sizeof(m->kernel_release),
		      SVG_FACT_CHARS);
	snprintf(line, sizeof(line), "%s%s%s", name, rel[0] ? ", kernel " : "", rel);
	svg_text(s, SVG_LEFT, 42, &F_SMALL, line);
	snprintf(line, sizeof(line), "%u vCPU thread%s in %u VM%s, %" PRIu64 " halts over %.3gs, "
		 "poll hit rate %.1f%%, lost events: %s", rep->nvcpus, rep->nvcpus == 1 ? "" : "s",
		 rep->nvms, rep->nvms == 1 ? "" : "s", rep->host.halts,
		 fin(rep->duration_s), fin(rep->host.hit_rate) * 100,
		 !m->lost_known ? "unknown" : rep->lost_pct > 0 ? "some" : "none");
	if (m->lost_known && rep->lost_pct > 0)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " (%.3g%%)",
			 fin(rep->lost_pct));
	svg_text(s, SVG_LEFT, 58, &F_SMALL, line);
	s->y = 58;
	for (unsigned int i = 0; i < rep->nwarnings && i < SVG_MAX_WARN; i++) {
		s->y += 15;
		snprintf(line, sizeof(line), "warning: %s",
			 svg_name_copy(name, sizeof(name), rep->warnings[i], SIZE_MAX,
				       SVG_WARN_CHARS));
		svg_text(s, SVG_LEFT, s->y, &F_WARN, line);
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

static void svg_advice_text(struct svg *s)
{
	const char *t = s->rep->advice.text;

	s->nboxes = 0;
	for (unsigned int n = 0; t && *t && n < SVG_MAX_ADVICE; n++) {
		const char *line = t;
		size_t len = svg_advice_line(&t);

		svg_text_n(s, SVG_LEFT, s->y, &F_SMALL, line, len, SIZE_MAX);
		s->y += 15;
	}
}

static double svg_height(const struct svg *s, double header)
{
	unsigned int nlines = 0;
	const char *t = s->rep->advice.text;

	if (s->show_advice && t)
		for (; *t && nlines < SVG_MAX_ADVICE; nlines++)
			svg_advice_line(&t);
	return header + s->npanels * SVG_PANEL_H + (s->nhidden ? 20 : 0) + SVG_WHATIF_H +
	       nlines * 15 + 20;
}

int hs_report_write_svg(FILE *out, const struct hs_report *rep, const struct hs_text_opts *opts)
{
	bool per_vcpu = opts && opts->per_vcpu_histograms;
	bool per_vm = (opts && opts->per_vm_histograms) ||
		      (!per_vcpu && rep->nvcpus > SVG_PER_VM_ABOVE);
	bool hists = !opts || opts->show_histograms;
	struct svg *s = calloc(1, sizeof(*s));
	double h;

	if (!s)
		return HS_ERR_RUNTIME;
	s->out = out;
	s->rep = rep;
	s->show_advice = !opts || opts->show_advice;
	if (svg_panels(s, per_vm)) {
		free(s);
		return HS_ERR_RUNTIME;
	}
	if (!hists)
		s->npanels = s->nhidden = 0;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	/* the root element needs the height before anything is drawn: every
	 * block has a fixed or bounded size so that one pass is enough */
	h = svg_height(s, 58 + 15 * (rep->nwarnings < SVG_MAX_WARN ? rep->nwarnings : SVG_MAX_WARN) + 34);
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
		SVG_W, fin(h), SVG_W, fin(h));
	fputs("<title>haltstat report</title>\n", out);
	fprintf(out, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", SVG_W, fin(h));
	svg_header(s);
	for (unsigned int i = 0; i < s->npanels; i++) {
		svg_hist_panel(s, &s->panels[i], s->y);
		s->y += SVG_PANEL_H;
	}
	if (s->nhidden) {
		char line[96];

		s->nboxes = 0;
		snprintf(line, sizeof(line), "%u more not drawn (see the text or JSON report)",
			 s->nhidden);
		svg_text(s, SVG_LEFT, s->y + 12, &F_SMALL, line);
		s->y += 20;
	}
	svg_whatif(s);
	if (s->show_advice)
		svg_advice_text(s);
	fputs("</svg>\n", out);
	free(s->panels);
	free(s);
	if (fflush(out) || ferror(out))
		return HS_ERR_OUTPUT;
	return 0;
}
