// SPDX-License-Identifier: GPL-2.0-only
/*
 * A self-contained SVG of a report: no scripts, no external references, so
 * it can be attached to a bug report and opened anywhere. Every name comes
 * from the trace and is escaped; every coordinate goes through svg_x()/svg_y()
 * style clamping so that no NaN or infinity reaches the file.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/error.h"
#include "escape.h"
#include "output.h"

#define SVG_W		960.0
#define SVG_LEFT	80.0
#define SVG_RIGHT	30.0
#define SVG_PANEL_H	262.0
#define SVG_PLOT_H	150.0
#define SVG_WHATIF_H	400.0
#define SVG_MAX_PANELS	64
#define SVG_MAX_WARN	6
#define SVG_MAX_ADVICE	24
#define SVG_PER_VM_ABOVE 8

#define COL_POLL	"#1f77b4"
#define COL_WAIT	"#ff7f0e"
#define COL_LAST	"#d62728"
#define COL_MEAN	"#9467bd"
#define COL_SUGGEST	"#2ca02c"
#define COL_AXIS	"#444444"
#define COL_GRID	"#dddddd"

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
	unsigned int xlo, xhi;		/* log2 bucket range shown on every histogram */
	double y;			/* where the next block starts */
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

static void fmt_ns(char *buf, size_t size, double ns)
{
	ns = fin(ns);
	if (ns < 1e3)
		snprintf(buf, size, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, size, "%.3gus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, size, "%.3gms", ns / 1e6);
	else if (ns < 1e12)
		snprintf(buf, size, "%.3gs", ns / 1e9);
	else
		snprintf(buf, size, "%.0fs", ns / 1e9);
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

/* 1, 2 or 5 times a power of ten, at least v (and at least 1). */
static double nice_ceil(double v)
{
	double p = 1.0;

	v = fin(v);
	if (v <= 0)
		return 1.0;
	while (p * 10 <= v && p < 1e300)
		p *= 10;
	while (p > v * 10 && p > 1e-300)
		p /= 10;
	if (p >= v)
		return p;
	if (2 * p >= v)
		return 2 * p;
	if (5 * p >= v)
		return 5 * p;
	return 10 * p;
}

static void svg_text(const struct svg *s, double x, double y, const char *attrs, const char *str)
{
	fprintf(s->out, "<text x=\"%.1f\" y=\"%.1f\"%s%s>", fin(x), fin(y), attrs ? " " : "",
		attrs ? attrs : "");
	hs_esc_xml(s->out, str, strlen(str));
	fputs("</text>\n", s->out);
}

/* Long untrusted names would run into the numbers beside them. */
static void svg_name(const struct svg *s, const char *name, size_t max, size_t nchars)
{
	size_t len = hs_utf8_prefix(name, max, nchars);

	hs_esc_xml(s->out, name, len);
	if (len < strnlen(name, max))
		fputs("\xe2\x80\xa6", s->out);
}

static void svg_line(const struct svg *s, double x1, double y1, double x2, double y2,
		     const char *attrs)
{
	fprintf(s->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>\n",
		fin(x1), fin(y1), fin(x2), fin(y2), attrs);
}

/* Continuous log2-bucket coordinate: bucket b covers [b, b+1). */
static double bucket_pos(double ns)
{
	ns = fin(ns);
	return ns < 1.0 ? (ns > 0 ? ns : 0.0) : 1.0 + log2(ns);
}

static void range_add(struct svg *s, unsigned int b)
{
	if (b < s->xlo)
		s->xlo = b;
	if (b > s->xhi)
		s->xhi = b;
}

static void range_add_window(struct svg *s, double ns)
{
	if (isfinite(ns) && ns >= 0)
		range_add(s, hs_log2_index((uint64_t)fmin(ns, 1.8e19)));
}

static void svg_range(struct svg *s)
{
	s->xlo = HS_LOG2_BUCKETS;
	s->xhi = 0;
	for (unsigned int p = 0; p < s->npanels; p++) {
		const struct svg_panel *pa = &s->panels[p];

		for (unsigned int b = 0; b < HS_LOG2_BUCKETS; b++)
			if (pa->h->poll[b] || pa->h->wait[b])
				range_add(s, b);
		range_add_window(s, (double)pa->st->window_last_ns);
		range_add_window(s, pa->st->window_mean_ns);
	}
	if (s->xlo > s->xhi) {		/* nothing at all: show 1us..1ms */
		s->xlo = 11;
		s->xhi = 20;
	}
	while (s->xhi - s->xlo < 7) {	/* a readable minimum width */
		if (s->xhi < HS_LOG2_BUCKETS - 1)
			s->xhi++;
		else
			s->xlo--;
	}
}

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
			const struct hs_report_vm *vm = &rep->vms[i];
			bool named = vm->name[0];

			p->name = named ? vm->name : vm->comm;
			p->name_max = named ? sizeof(vm->name) : sizeof(vm->comm);
			snprintf(p->what, sizeof(p->what), "VM, pid %d, %u vCPUs", vm->tgid, vm->nvcpus);
			p->h = &vm->log2;
			p->st = &vm->stats;
		} else {
			const struct hs_report_vcpu *v = &rep->vcpus[i];
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

static void svg_window_marker(const struct svg *s, double ns, double bw, double top,
			      double bottom, const char *label, const char *attrs, double dy)
{
	char buf[64], txt[96];
	double x;

	if (!isfinite(ns) || ns < 0)
		return;
	x = SVG_LEFT + (bucket_pos(ns) - s->xlo) * bw;
	x = clampd(x, SVG_LEFT, SVG_W - SVG_RIGHT);
	svg_line(s, x, top, x, bottom, attrs);
	fmt_ns(buf, sizeof(buf), ns);
	snprintf(txt, sizeof(txt), "%s %s%s", label, buf, ns == 0 ? " (off)" : "");
	/* near the right edge the label goes to the left of the line */
	if (x > SVG_W - SVG_RIGHT - 140)
		svg_text(s, x - 3, top + dy, "text-anchor=\"end\" font-size=\"10\"", txt);
	else
		svg_text(s, x + 3, top + dy, "font-size=\"10\"", txt);
}

static void svg_hist_axes(const struct svg *s, double top, double bottom, double ymax, double bw)
{
	char buf[32];

	for (int t = 0; t <= 4; t++) {
		double y = bottom - (bottom - top) * t / 4;

		svg_line(s, SVG_LEFT, y, SVG_W - SVG_RIGHT, y, "stroke=\"" COL_GRID "\"");
		fmt_count(buf, sizeof(buf), ymax * t / 4);
		svg_text(s, SVG_LEFT - 5, y + 4, "text-anchor=\"end\" font-size=\"10\"", buf);
	}
	/* about 24 labels fit under the axis */
	unsigned int step = (s->xhi - s->xlo) / 24 + 1;

	for (unsigned int b = s->xlo; b <= s->xhi; b += step) {
		double x = SVG_LEFT + (b - s->xlo + 0.5) * bw, y = bottom + 12;
		char attrs[96];

		fmt_ns(buf, sizeof(buf), (double)hs_log2_lo(b));
		snprintf(attrs, sizeof(attrs),
			 "text-anchor=\"end\" font-size=\"9\" transform=\"rotate(-40 %.1f %.1f)\"",
			 fin(x), fin(y));
		svg_text(s, x, y, attrs, buf);
	}
	svg_line(s, SVG_LEFT, bottom, SVG_W - SVG_RIGHT, bottom, "stroke=\"" COL_AXIS "\"");
	svg_line(s, SVG_LEFT, top, SVG_LEFT, bottom, "stroke=\"" COL_AXIS "\"");
	fprintf(s->out, "<text x=\"0\" y=\"0\" font-size=\"10\" text-anchor=\"middle\" "
		"transform=\"translate(%.1f %.1f) rotate(-90)\">halts</text>\n",
		SVG_LEFT - 50, fin((top + bottom) / 2));
}

static void svg_hist_bars(const struct svg *s, const struct hs_log2_hist *h, double bottom,
			  double ymax, double bw)
{
	for (unsigned int b = s->xlo; b <= s->xhi; b++) {
		double x = SVG_LEFT + (b - s->xlo) * bw + 1;
		double hp = clampd((double)h->poll[b] / ymax * SVG_PLOT_H, 0, SVG_PLOT_H);
		double hw = clampd((double)h->wait[b] / ymax * SVG_PLOT_H, 0, SVG_PLOT_H - hp);
		double w = bw > 3 ? bw - 2 : 1;

		if (h->poll[b])
			fprintf(s->out, "<rect class=\"poll\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\" fill=\"" COL_POLL "\"><title>%" PRIu64
				" poll hits</title></rect>\n", fin(x), fin(bottom - hp), fin(w),
				fin(hp), h->poll[b]);
		if (h->wait[b])
			fprintf(s->out, "<rect class=\"wait\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\" fill=\"" COL_WAIT "\"><title>%" PRIu64
				" waits</title></rect>\n", fin(x), fin(bottom - hp - hw), fin(w),
				fin(hw), h->wait[b]);
	}
}

static void svg_hist_title(const struct svg *s, const struct svg_panel *p, double y)
{
	const struct hs_halt_stats *st = p->st;
	char p50[32], p99[32], line[256];

	fprintf(s->out, "<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">", SVG_LEFT, fin(y));
	svg_name(s, p->name, p->name_max, 32);
	fputs(" \xe2\x80\x94 ", s->out);
	hs_esc_xml(s->out, p->what, sizeof(p->what));
	fputs("</text>\n", s->out);
	fmt_ns(p50, sizeof(p50), (double)st->p50_ns);
	fmt_ns(p99, sizeof(p99), (double)st->p99_ns);
	snprintf(line, sizeof(line), "%" PRIu64 " halts, %" PRIu64 " poll hits (%.1f%%), %" PRIu64
		 " waits, p50 %s, p99 %s", st->halts, st->poll_hits, fin(st->hit_rate) * 100,
		 st->waits, p50, p99);
	svg_text(s, SVG_W - SVG_RIGHT, y, "text-anchor=\"end\" font-size=\"11\"", line);
}

static void svg_hist_panel(const struct svg *s, const struct svg_panel *p, double y0)
{
	double top = y0 + 34, bottom = top + SVG_PLOT_H, ymax = 0;
	double bw = (SVG_W - SVG_LEFT - SVG_RIGHT) / (s->xhi - s->xlo + 1);

	for (unsigned int b = s->xlo; b <= s->xhi; b++)
		ymax = fmax(ymax, (double)p->h->poll[b] + (double)p->h->wait[b]);
	ymax = nice_ceil(ymax);
	svg_hist_title(s, p, y0 + 18);
	svg_hist_axes(s, top, bottom, ymax, bw);
	svg_hist_bars(s, p->h, bottom, ymax, bw);
	svg_window_marker(s, (double)p->st->window_last_ns, bw, top, bottom, "window",
			  "stroke=\"" COL_LAST "\" stroke-width=\"2\"", 10);
	svg_window_marker(s, p->st->window_mean_ns, bw, top, bottom, "mean window",
			  "stroke=\"" COL_MEAN "\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"", 22);
	svg_text(s, (SVG_LEFT + SVG_W - SVG_RIGHT) / 2, bottom + 62,
		 "text-anchor=\"middle\" font-size=\"10\"",
		 "halt duration (log2 bucket, lower bound)");
}

static void fmt_cpu_s(char *buf, size_t size, double sec)
{
	sec = fin(sec);
	if (sec == 0)
		snprintf(buf, size, "0");
	else if (sec < 1e-3)
		snprintf(buf, size, "%.3gus", sec * 1e6);
	else if (sec < 1)
		snprintf(buf, size, "%.3gms", sec * 1e3);
	else
		snprintf(buf, size, "%.3gs", sec);
}

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

static void svg_whatif_axes(const struct svg *s, const struct svg_plot *pl)
{
	char buf[32];

	for (int t = 0; t <= 4; t++) {
		double y = plot_y(pl, t / 4.0), x = pl->left + (pl->right - pl->left) * t / 4;

		svg_line(s, pl->left, y, pl->right, y, "stroke=\"" COL_GRID "\"");
		snprintf(buf, sizeof(buf), "%d%%", t * 25);
		svg_text(s, pl->left - 5, y + 4, "text-anchor=\"end\" font-size=\"10\"", buf);
		svg_line(s, x, pl->bottom, x, pl->bottom + 4, "stroke=\"" COL_AXIS "\"");
		fmt_cpu_s(buf, sizeof(buf), pl->xmax * t / 4);
		svg_text(s, x, pl->bottom + 16, "text-anchor=\"middle\" font-size=\"10\"", buf);
	}
	svg_line(s, pl->left, pl->bottom, pl->right, pl->bottom, "stroke=\"" COL_AXIS "\"");
	svg_line(s, pl->left, pl->top, pl->left, pl->bottom, "stroke=\"" COL_AXIS "\"");
	svg_text(s, (pl->left + pl->right) / 2, pl->bottom + 34, "text-anchor=\"middle\"",
		 "CPU time spent polling over the trace (all vCPUs)");
	fprintf(s->out, "<text x=\"0\" y=\"0\" text-anchor=\"middle\" "
		"transform=\"translate(%.1f %.1f) rotate(-90)\">poll hit rate</text>\n",
		fin(pl->left - 50), fin((pl->top + pl->bottom) / 2));
}

static bool svg_same_spot(const struct svg_plot *pl, const struct hs_whatif_row *a,
			  const struct hs_whatif_row *b)
{
	return fabs(plot_x(pl, a->poll_cpu_s) - plot_x(pl, b->poll_cpu_s)) < 2 &&
	       fabs(plot_y(pl, a->hit_rate) - plot_y(pl, b->hit_rate)) < 2;
}

/* One label for rows[0..n): the value, or the range, and what it is. */
static void svg_whatif_label(const struct svg *s, double x, double y,
			     const struct hs_whatif_row *rows, unsigned int n, int64_t suggest,
			     int64_t current, bool below)
{
	bool chosen = false, is_current = false;
	char label[96], range[48];

	for (unsigned int k = 0; k < n; k++) {
		chosen |= suggest >= 0 && rows[k].halt_poll_ns == (uint64_t)suggest;
		is_current |= current >= 0 && rows[k].halt_poll_ns == (uint64_t)current;
	}
	if (n > 1)
		snprintf(range, sizeof(range), "%.4g-%.4gus", (double)rows[0].halt_poll_ns / 1e3,
			 (double)rows[n - 1].halt_poll_ns / 1e3);
	else
		snprintf(range, sizeof(range), "%.4gus", (double)rows[0].halt_poll_ns / 1e3);
	snprintf(label, sizeof(label), "%s%s%s", range, chosen ? " suggested" : "",
		 is_current ? " (current)" : "");
	/* alternate sides: neighbouring candidates often sit close together */
	svg_text(s, x + 6, y + (below ? 16 : -8),
		 chosen ? "font-size=\"11\" font-weight=\"bold\" fill=\"" COL_SUGGEST "\""
			: "font-size=\"10\"", label);
}

static void svg_whatif_points(const struct svg *s, const struct svg_plot *pl, int64_t suggest)
{
	const struct hs_report *rep = s->rep;

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

		fprintf(s->out, "<circle class=\"candidate\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
			"fill=\"" COL_POLL "\"><title>%.4gus: %.1f%% hits, %.4g CPU s</title></circle>\n",
			x, y, (double)r->halt_poll_ns / 1e3, clampd(r->hit_rate, 0, 1) * 100,
			fin(r->poll_cpu_s));
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
		svg_whatif_label(s, x, y, rep->host_what_if + first, i - first + 1, suggest,
				 rep->meta.halt_poll_ns, (i % 2) != 0);
		first = i + 1;
	}
}

static void svg_whatif(struct svg *s)
{
	const struct hs_report *rep = s->rep;
	struct svg_plot pl = { .left = SVG_LEFT, .right = SVG_W - SVG_RIGHT - 120,
			       .top = s->y + 50, .bottom = s->y + 50 + 280, .xmax = 0 };
	int64_t suggest = -1;
	char line[160];

	if (s->show_advice && rep->advice.valid && rep->advice.halt_poll_ns <= INT64_MAX)
		suggest = (int64_t)rep->advice.halt_poll_ns;
	svg_text(s, SVG_LEFT, s->y + 20, "font-weight=\"bold\"",
		 "What if: poll hit rate against polling CPU for each maximum halt_poll_ns");
	if (suggest >= 0) {
		snprintf(line, sizeof(line), "suggested halt_poll_ns=%" PRId64 " (%.4gus)", suggest,
			 (double)suggest / 1e3);
		svg_text(s, SVG_LEFT, s->y + 36, "font-size=\"11\" fill=\"" COL_SUGGEST "\"", line);
	}
	if (!rep->n_host_what_if) {
		svg_text(s, (pl.left + pl.right) / 2, (pl.top + pl.bottom) / 2,
			 "text-anchor=\"middle\"", "no what-if data (no halts, or the replay was off)");
		s->y += SVG_WHATIF_H;
		return;
	}
	for (unsigned int i = 0; i < rep->n_host_what_if; i++)
		pl.xmax = fmax(pl.xmax, fin(rep->host_what_if[i].poll_cpu_s));
	pl.xmax = pl.xmax > 0 ? nice_ceil(pl.xmax) : 1.0;
	svg_whatif_axes(s, &pl);
	svg_whatif_points(s, &pl, suggest);
	s->y += SVG_WHATIF_H;
}

static void svg_legend(const struct svg *s, double y)
{
	static const struct { const char *col, *label; bool line; } items[] = {
		{ COL_POLL, "poll hit (woken while polling)", false },
		{ COL_WAIT, "wait (scheduled out)", false },
		{ COL_LAST, "window at end of trace", true },
		{ COL_MEAN, "mean window (time-weighted)", true },
	};
	double x = SVG_LEFT;

	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		if (items[i].line)
			fprintf(s->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"%s\" stroke-width=\"2\"/>\n", x, y - 4, x + 12, y - 4,
				items[i].col);
		else
			fprintf(s->out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"10\" "
				"fill=\"%s\"/>\n", x, y - 9, items[i].col);
		svg_text(s, x + 16, y, "font-size=\"11\"", items[i].label);
		x += 205;
	}
}

static void svg_header(struct svg *s)
{
	const struct hs_report *rep = s->rep;
	const struct hs_meta *m = &rep->meta;
	char line[320];

	fprintf(s->out, "<text x=\"%.1f\" y=\"24\" font-size=\"16\" font-weight=\"bold\">"
		"haltstat: KVM halt polling \xe2\x80\x94 ", SVG_LEFT);
	svg_name(s, m->source[0] ? m->source : "(unknown source)", sizeof(m->source), 60);
	fprintf(s->out, "</text>\n<text x=\"%.1f\" y=\"42\" font-size=\"11\">", SVG_LEFT);
	svg_name(s, m->format, sizeof(m->format), 60);
	if (m->kernel_release[0]) {
		fputs(", kernel ", s->out);
		svg_name(s, m->kernel_release, sizeof(m->kernel_release), 60);
	}
	fputs("</text>\n", s->out);
	snprintf(line, sizeof(line), "%u vCPU thread%s in %u VM%s, %" PRIu64 " halts over %.3gs, "
		 "poll hit rate %.1f%%, lost events: %s", rep->nvcpus, rep->nvcpus == 1 ? "" : "s",
		 rep->nvms, rep->nvms == 1 ? "" : "s", rep->host.halts,
		 fin(rep->duration_s), fin(rep->host.hit_rate) * 100,
		 !m->lost_known ? "unknown" : rep->lost_pct > 0 ? "some" : "none");
	if (m->lost_known && rep->lost_pct > 0)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " (%.3g%%)",
			 fin(rep->lost_pct));
	svg_text(s, SVG_LEFT, 58, "font-size=\"11\"", line);
	s->y = 58;
	for (unsigned int i = 0; i < rep->nwarnings && i < SVG_MAX_WARN; i++) {
		s->y += 15;
		fprintf(s->out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"" COL_LAST
			"\">warning: ", SVG_LEFT, s->y);
		svg_name(s, rep->warnings[i], SIZE_MAX, 130);
		fputs("</text>\n", s->out);
	}
	svg_legend(s, s->y + 22);
	s->y += 34;
}

/* 11px text is about 6.2px a character: wrap to the drawing's width. */
#define SVG_ADVICE_CHARS ((size_t)((SVG_W - SVG_LEFT - SVG_RIGHT) / 6.2))

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

	for (unsigned int n = 0; t && *t && n < SVG_MAX_ADVICE; n++) {
		const char *line = t;
		size_t len = svg_advice_line(&t);

		fprintf(s->out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", SVG_LEFT, s->y);
		hs_esc_xml(s->out, line, len);
		fputs("</text>\n", s->out);
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
	struct svg s = { .out = out, .rep = rep, .show_advice = !opts || opts->show_advice };
	bool per_vcpu = opts && opts->per_vcpu_histograms;
	bool per_vm = (opts && opts->per_vm_histograms) ||
		      (!per_vcpu && rep->nvcpus > SVG_PER_VM_ABOVE);
	bool hists = !opts || opts->show_histograms;
	double h;

	if (svg_panels(&s, per_vm))
		return HS_ERR_RUNTIME;
	if (!hists)
		s.npanels = s.nhidden = 0;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	/* the root element needs the height before anything is drawn: every
	 * block has a fixed or bounded size so that one pass is enough */
	h = svg_height(&s, 58 + 15 * (rep->nwarnings < SVG_MAX_WARN ? rep->nwarnings : SVG_MAX_WARN) + 34);
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
		SVG_W, fin(h), SVG_W, fin(h));
	fputs("<title>haltstat report</title>\n", out);
	fprintf(out, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", SVG_W, fin(h));
	svg_header(&s);
	for (unsigned int i = 0; i < s.npanels; i++) {
		svg_hist_panel(&s, &s.panels[i], s.y);
		s.y += SVG_PANEL_H;
	}
	if (s.nhidden) {
		char line[96];

		snprintf(line, sizeof(line), "%u more not drawn (see the text or JSON report)", s.nhidden);
		svg_text(&s, SVG_LEFT, s.y + 12, "font-size=\"11\"", line);
		s.y += 20;
	}
	svg_whatif(&s);
	if (s.show_advice)
		svg_advice_text(&s);
	fputs("</svg>\n", out);
	free(s.panels);
	if (fflush(out) || ferror(out))
		return HS_ERR_OUTPUT;
	return 0;
}
