/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_SVG_DRAW_H
#define HS_SVG_DRAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * What the SVG report's figures draw with: the page's width and palette,
 * texts that know the room they take, lines, and the numbers' guards. No
 * figure of the report is here; report_svg*.c draw those.
 */
#define SVG_W		960.0
#define SVG_LEFT	80.0
#define SVG_RIGHT	30.0
#define SVG_MAX_BOXES	256

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

enum hs_svg_anchor { SVG_START, SVG_MIDDLE, SVG_END };

struct hs_svg_font {
	double size;
	enum hs_svg_anchor anchor;
	bool bold;
	const char *fill;		/* NULL: black */
	const char *cls;		/* class attribute, or NULL */
};

struct hs_svg_box {
	double x0, y0, x1, y1;
};

/* The file being drawn, where the next block starts, and the room its texts take. */
struct hs_svg {
	FILE *out;
	double y;
	/* the texts of the block being drawn; blocks do not overlap each other */
	struct hs_svg_box boxes[SVG_MAX_BOXES];
	unsigned int nboxes;
};

/* The fonts more than one figure uses. */
extern const struct hs_svg_font hs_svg_font_small;	/* notes, legend, advice */
extern const struct hs_svg_font hs_svg_font_ytick;	/* a y axis' tick labels */

/* The only way a number reaches a coordinate: finite, or 0. */
double hs_svg_fin(double v);
/* hs_svg_fin(v) held to [lo, hi]. */
double hs_svg_clamp(double v, double lo, double hi);
/* 1, 2 or 5 times a power of ten, at least v; 1 for nothing: an axis' top. */
double hs_svg_nice_ceil(double v);

/* The box nchars characters in font f take at (x, y). */
struct hs_svg_box hs_svg_box_of(double x, double y, const struct hs_svg_font *f, size_t nchars);
/* b counts as taken until the next block starts (s->nboxes = 0). */
void hs_svg_box_keep(struct hs_svg *s, const struct hs_svg_box *b);

/* At most nchars code points of str (max bytes), "..." after a cut. */
void hs_svg_text_n(struct hs_svg *s, double x, double y, const struct hs_svg_font *f,
		   const char *str, size_t max, size_t nchars);
void hs_svg_text(struct hs_svg *s, double x, double y, const struct hs_svg_font *f,
		 const char *str);
/* A label that may be left out: drawn only where it overprints nothing. */
bool hs_svg_text_if_free(struct hs_svg *s, double x, double y, const struct hs_svg_font *f,
			 const char *str);
/* An axis title turned a quarter left, centred on (cx, cy). */
void hs_svg_text_up(struct hs_svg *s, double cx, double cy, double size, const char *str);
/*
 * Copies the first nchars code points of an untrusted name (not always
 * NUL-terminated in its array) into buf, "..." after a cut; returns buf.
 */
char *hs_svg_name_copy(char *buf, size_t size, const char *name, size_t max, size_t nchars);
void hs_svg_line(const struct hs_svg *s, double x1, double y1, double x2, double y2,
		 const char *attrs);

#endif
