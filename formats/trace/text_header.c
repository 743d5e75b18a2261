// SPDX-License-Identifier: GPL-2.0-only
/*
 * The header of a text event line: "COMM-PID (TGID) [CPU] FLAGS TIME:" in
 * its kernel, trace-cmd (also report -l, without brackets) and perf
 * variants. Apart from the payloads (text_payload.c) since it is the one
 * part all forms share, and the one that must stay cheap on lines that
 * are no trace at all: only the first HS_TXT_HEAD bytes are searched.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "text_header.h"
#include "text_scan.h"

#define HS_TXT_HEAD	512	/* header search window per line */

/* "SEC.FRAC:" (1 to 9 decimals) or an integer counter-clock "N:", to ns. */
static bool txt_ts(const char **pp, const char *e, uint64_t *ts)
{
	static const uint64_t scale[10] = {
		1000000000ull, 100000000ull, 10000000ull, 1000000ull, 100000ull,
		10000ull, 1000ull, 100ull, 10ull, 1ull,
	};
	const char *p = *pp, *f;
	uint64_t sec, frac = 0;

	if (!txt_u64(&p, e, &sec))
		return false;
	if (p < e && *p == '.') {
		f = ++p;
		while (p < e && txt_digit(*p) && p - f < 10)
			frac = frac * 10 + (uint64_t)(*p++ - '0');
		if (p == f || p - f > 9 || sec > UINT64_MAX / 1000000000ull)
			return false;
		sec = sec * 1000000000ull;
		frac *= scale[p - f];
		if (sec > UINT64_MAX - frac)
			return false;
		sec += frac;
	}
	if (p >= e || *p != ':')
		return false;
	*pp = p + 1;
	*ts = sec;
	return true;
}

/* "(  6001)" or "(-------)" right before r: the record-tgid column. */
static const char *txt_tgid(const char *s, const char *r, int32_t *tgid)
{
	const char *o = r - 1, *lim = r - s > 24 ? r - 24 : s, *p;

	while (o > lim && *o != '(')
		o--;
	if (*o != '(')
		return NULL;
	p = txt_spaces(o + 1, r - 1);
	if (p < r - 1 && *p == '-') {
		while (p < r - 1 && *p == '-')
			p++;
		if (p != r - 1)
			return NULL;
		*tgid = -1;
	} else if (!txt_i32(p, r - 1, tgid)) {
		return NULL;
	}
	return txt_rspaces(s, o);
}

/*
 * The task part [s, r): "COMM-PID" (kernel, trace-cmd; split at the last
 * '-' since names hold dashes and spaces), "COMM PID" or "COMM PID/TID"
 * (perf), then optionally "(TGID)".
 */
static bool txt_task(const char *s, const char *r, struct hs_txt_head *h)
{
	const char *d, *d2;
	int32_t pid;

	h->tgid = -1;
	h->perf = false;
	r = txt_rspaces(s, r);
	if (r > s && r[-1] == ')') {
		r = txt_tgid(s, r, &h->tgid);
		if (!r)
			return false;
	}
	d = txt_rdigits(s, r);
	if (!txt_i32(d, r, &pid))
		return false;
	h->tid = pid;
	if (d > s && d[-1] == '/') {
		d2 = txt_rdigits(s, d - 1);
		if (!txt_i32(d2, d - 1, &h->tgid))
			return false;
		d = d2;
		if (d == s || d[-1] != ' ')
			return false;
	}
	if (d <= s + 1)
		return false;
	if (d[-1] == '-') {
		h->comm_len = (size_t)(d - 1 - s);
	} else if (d[-1] == ' ') {
		h->perf = true;
		h->comm_len = (size_t)(txt_rspaces(s, d) - s);
		if (!h->comm_len)
			return false;
	} else {
		return false;
	}
	h->comm = s;
	return true;
}

/* "[NNN]" followed by a blank: the CPU column. Returns the byte after ']'. */
static const char *txt_cpu_at(const char *b, const char *e, int32_t *cpu)
{
	const char *p = b + 1, *d = p;

	while (p < e && txt_digit(*p) && p - d < 7)
		p++;
	if (p == d || p >= e || *p != ']' || !txt_i32(d, p, cpu))
		return NULL;
	p++;
	if (p < e && *p != ' ' && *p != '\t')
		return NULL;
	return p;
}

/* After the CPU: optional flags column ("d..1.", "d..1"), then the time. */
static const char *txt_after_cpu(const char *p, const char *e, struct hs_txt_head *h)
{
	const char *t;

	p = txt_spaces(p, e);
	if (p < e && !txt_digit(*p)) {
		t = p;
		while (p < e && *p != ' ' && p - t < 9)
			p++;
		if (p - t > 8)
			return NULL;
		p = txt_spaces(p, e);
	}
	if (!txt_ts(&p, e, &h->ts))
		return NULL;
	return p;
}

/*
 * trace-cmd report -l: "COMM-PID CPUFLAGS TIME:" with no brackets. Finds
 * the time token preceded by a token of digits then flag characters.
 */
static const char *txt_latency(const char *s, const char *e, struct hs_txt_head *h)
{
	const char *w = e - s > HS_TXT_HEAD ? s + HS_TXT_HEAD : e;
	const char *p = s, *prev = NULL, *t, *q, *c;

	while (p < w) {
		t = p;
		while (p < w && *p != ' ' && *p != '\t')
			p++;
		q = t;
		if (prev && txt_digit(*t) && txt_ts(&q, e, &h->ts)) {
			c = prev;
			while (txt_digit(*c))
				c++;
			if (c == prev || c == t || *c == ' ' ||
			    !txt_i32(prev, c, &h->cpu) ||
			    !txt_task(s, prev, h))
				return NULL;
			return q;
		}
		prev = t;
		p = txt_spaces(p, w);
	}
	return NULL;
}

/* The brackets' form first: a '[' after a blank that starts a CPU column. */
const char *hs_txt_read_header(const char *s, const char *e, struct hs_txt_head *h,
			       bool *latency)
{
	const char *w = e - s > HS_TXT_HEAD ? s + HS_TXT_HEAD : e;
	const char *b = s, *q;

	*latency = false;
	for (; b < w && (b = memchr(b, '[', (size_t)(w - b))); b++) {
		if (b > s && (b[-1] == ' ' || b[-1] == '\t') &&
		    (q = txt_cpu_at(b, e, &h->cpu)) && txt_task(s, b, h)) {
			q = txt_after_cpu(q, e, h);
			return q ? txt_spaces(q, e) : NULL;
		}
	}
	q = txt_latency(s, e, h);
	if (!q)
		return NULL;
	*latency = true;
	return txt_spaces(q, e);
}
