/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_TEXT_SCAN_H
#define HS_TEXT_SCAN_H

/*
 * The scanning steps the text reader's parts share (text_read.c,
 * text_header.c, text_payload.c): every one works on [p, e) of the
 * caller's buffer with an explicit end, never on a NUL, and never copies.
 * Inline, since a line goes through dozens of them.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline bool txt_digit(char c)
{
	return (unsigned char)(c - '0') < 10;
}

static inline const char *txt_spaces(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* Consumes literal s (n bytes) at *pp. */
static inline bool txt_lit(const char **pp, const char *e, const char *s, size_t n)
{
	if ((size_t)(e - *pp) < n || memcmp(*pp, s, n))
		return false;
	*pp += n;
	return true;
}

#define TXT_LIT(pp, e, s) txt_lit(pp, e, s, sizeof(s) - 1)

static inline bool txt_u64(const char **pp, const char *e, uint64_t *v)
{
	const char *p = *pp, *fast;
	uint64_t x = 0;

	if (p >= e || !txt_digit(*p))
		return false;
	/* 19 digits cannot overflow: check only beyond them */
	fast = e - p > 19 ? p + 19 : e;
	do
		x = x * 10 + (uint64_t)(*p++ - '0');
	while (p < fast && txt_digit(*p));
	for (; p < e && txt_digit(*p); p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*pp = p;
	*v = x;
	return true;
}

/* Decimal in [s, e) of at most 10 digits that fits an int32. */
static inline bool txt_i32(const char *s, const char *e, int32_t *v)
{
	uint64_t x = 0;

	if (s == e || e - s > 10)
		return false;
	for (; s < e; s++) {
		if (!txt_digit(*s))
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (x > INT32_MAX)
		return false;
	*v = (int32_t)x;
	return true;
}

/* Backwards over at most 10 digits ending at r (exclusive). */
static inline const char *txt_rdigits(const char *s, const char *r)
{
	const char *d = r;

	while (d > s && r - d < 11 && txt_digit(d[-1]))
		d--;
	return d;
}

static inline const char *txt_rspaces(const char *s, const char *r)
{
	while (r > s && (r[-1] == ' ' || r[-1] == '\t'))
		r--;
	return r;
}

#endif
