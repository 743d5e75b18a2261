// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SVG report's drawing primitives: texts that record the box they take
 * (so that labels never overprint: the estimate tests/tools/svg_check.py
 * makes too), lines, names cut to a length, and hs_svg_fin()/hs_svg_clamp(),
 * through which every coordinate goes so that no NaN or infinity reaches
 * the file.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "escape.h"
#include "svg_draw.h"

const struct hs_svg_font hs_svg_font_small = { .size = 11 };
const struct hs_svg_font hs_svg_font_ytick = { .size = 10, .anchor = SVG_END };

double hs_svg_fin(double v)
{
	return isfinite(v) ? v : 0.0;
}

double hs_svg_clamp(double v, double lo, double hi)
{
	v = hs_svg_fin(v);
	return v < lo ? lo : v > hi ? hi : v;
}

double hs_svg_nice_ceil(double v)
{
	double p = 1.0;

	v = hs_svg_fin(v);
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
static size_t nchars_of(const char *s, size_t len)
{
	size_t n = 0;
	uint32_t cp;

	for (size_t i = 0; i < len; n++)
		i += hs_utf8_next(s + i, len - i, &cp);
	return n;
}

struct hs_svg_box hs_svg_box_of(double x, double y, const struct hs_svg_font *f, size_t nchars)
{
	double w = (double)nchars * f->size * (f->bold ? SVG_BOLD_EM : SVG_CHAR_EM);
	double x0 = f->anchor == SVG_START ? x : f->anchor == SVG_MIDDLE ? x - w / 2 : x - w;

	return (struct hs_svg_box){ x0, y - SVG_ASCENT_EM * f->size, x0 + w,
				    y + SVG_DESCENT_EM * f->size };
}

static bool box_free(const struct hs_svg *s, const struct hs_svg_box *b)
{
	if (b->x0 < 0 || b->x1 > SVG_W)
		return false;
	for (unsigned int i = 0; i < s->nboxes; i++) {
		const struct hs_svg_box *o = &s->boxes[i];

		if (b->x0 < o->x1 && o->x0 < b->x1 && b->y0 < o->y1 && o->y0 < b->y1)
			return false;
	}
	return true;
}

void hs_svg_box_keep(struct hs_svg *s, const struct hs_svg_box *b)
{
	if (s->nboxes < SVG_MAX_BOXES)
		s->boxes[s->nboxes++] = *b;
}

static void font_attrs(FILE *out, const struct hs_svg_font *f)
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

void hs_svg_text_n(struct hs_svg *s, double x, double y, const struct hs_svg_font *f,
		   const char *str, size_t max, size_t nchars)
{
	size_t len = hs_utf8_prefix(str, max, nchars);
	bool cut = len < strnlen(str, max);
	struct hs_svg_box b = hs_svg_box_of(x, y, f, nchars_of(str, len) + cut);

	fprintf(s->out, "<text x=\"%.1f\" y=\"%.1f\"", hs_svg_fin(x), hs_svg_fin(y));
	font_attrs(s->out, f);
	fputc('>', s->out);
	hs_esc_xml(s->out, str, len);
	if (cut)
		fputs("\xe2\x80\xa6", s->out);
	fputs("</text>\n", s->out);
	hs_svg_box_keep(s, &b);
}

void hs_svg_text(struct hs_svg *s, double x, double y, const struct hs_svg_font *f,
		 const char *str)
{
	hs_svg_text_n(s, x, y, f, str, SIZE_MAX, SIZE_MAX);
}

bool hs_svg_text_if_free(struct hs_svg *s, double x, double y, const struct hs_svg_font *f,
			 const char *str)
{
	struct hs_svg_box b = hs_svg_box_of(x, y, f, nchars_of(str, strlen(str)));

	if (!box_free(s, &b))
		return false;
	hs_svg_text(s, x, y, f, str);
	return true;
}

void hs_svg_text_up(struct hs_svg *s, double cx, double cy, double size, const char *str)
{
	struct hs_svg_font f = { .size = size, .anchor = SVG_MIDDLE };
	struct hs_svg_box b = hs_svg_box_of(0, 0, &f, nchars_of(str, strlen(str)));

	fprintf(s->out, "<text x=\"0\" y=\"0\" font-size=\"%g\" text-anchor=\"middle\" "
		"transform=\"translate(%.1f %.1f) rotate(-90)\">", size, hs_svg_fin(cx),
		hs_svg_fin(cy));
	hs_esc_xml(s->out, str, SIZE_MAX);
	fputs("</text>\n", s->out);
	/* rotate(-90) takes (u, v) to (v, -u) */
	b = (struct hs_svg_box){ cx + b.y0, cy - b.x1, cx + b.y1, cy - b.x0 };
	hs_svg_box_keep(s, &b);
}

char *hs_svg_name_copy(char *buf, size_t size, const char *name, size_t max, size_t nchars)
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

void hs_svg_line(const struct hs_svg *s, double x1, double y1, double x2, double y2,
		 const char *attrs)
{
	fprintf(s->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>\n",
		hs_svg_fin(x1), hs_svg_fin(y1), hs_svg_fin(x2), hs_svg_fin(y2), attrs);
}
