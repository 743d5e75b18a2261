// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "escape.h"

static size_t utf8_len(unsigned char c, uint32_t *first)
{
	if (c < 0x80) {
		*first = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		*first = c & 0x1F;
		return 2;
	}
	if (c >= 0xE0 && c <= 0xEF) {
		*first = c & 0x0F;
		return 3;
	}
	if (c >= 0xF0 && c <= 0xF4) {
		*first = c & 0x07;
		return 4;
	}
	return 0;
}

size_t hs_utf8_next(const char *s, size_t n, uint32_t *cp)
{
	static const uint32_t min_for_len[] = { 0, 0, 0x80, 0x800, 0x10000 };
	const unsigned char *u = (const unsigned char *)s;
	uint32_t v;
	size_t len = utf8_len(u[0], &v);

	*cp = HS_UTF8_REPLACEMENT;
	if (!len || len > n)
		return 1;
	for (size_t i = 1; i < len; i++) {
		if ((u[i] & 0xC0) != 0x80)
			return i;
		v = (v << 6) | (u[i] & 0x3F);
	}
	/* overlong forms, surrogates and values past U+10FFFF are not UTF-8 */
	if (v < min_for_len[len] || (v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF)
		return len;
	*cp = v;
	return len;
}

void hs_utf8_put(FILE *out, uint32_t cp)
{
	if (cp < 0x80) {
		fputc((int)cp, out);
	} else if (cp < 0x800) {
		fputc((int)(0xC0 | (cp >> 6)), out);
		fputc((int)(0x80 | (cp & 0x3F)), out);
	} else if (cp < 0x10000) {
		fputc((int)(0xE0 | (cp >> 12)), out);
		fputc((int)(0x80 | ((cp >> 6) & 0x3F)), out);
		fputc((int)(0x80 | (cp & 0x3F)), out);
	} else {
		fputc((int)(0xF0 | (cp >> 18)), out);
		fputc((int)(0x80 | ((cp >> 12) & 0x3F)), out);
		fputc((int)(0x80 | ((cp >> 6) & 0x3F)), out);
		fputc((int)(0x80 | (cp & 0x3F)), out);
	}
}

static int xml_char_ok(uint32_t cp)
{
	return (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) ||
	       (cp >= 0x10000 && cp <= 0x10FFFF);
}

void hs_esc_xml(FILE *out, const char *s, size_t max)
{
	size_t n = strnlen(s, max), i = 0;
	uint32_t cp;

	while (i < n) {
		i += hs_utf8_next(s + i, n - i, &cp);
		switch (cp) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		case '\t': case '\n': case '\r': fputc(' ', out); break;
		default:
			hs_utf8_put(out, xml_char_ok(cp) ? cp : HS_UTF8_REPLACEMENT);
		}
	}
}

void hs_esc_om_label(FILE *out, const char *s, size_t max)
{
	size_t n = strnlen(s, max), i = 0;
	uint32_t cp;

	while (i < n) {
		i += hs_utf8_next(s + i, n - i, &cp);
		if (cp == '\\')
			fputs("\\\\", out);
		else if (cp == '"')
			fputs("\\\"", out);
		else if (cp == '\n')
			fputs("\\n", out);
		else if (cp < 0x20 || cp == 0x7F)
			hs_utf8_put(out, HS_UTF8_REPLACEMENT);
		else
			hs_utf8_put(out, cp);
	}
}

size_t hs_utf8_prefix(const char *s, size_t max, size_t nchars)
{
	size_t n = strnlen(s, max), i = 0;
	uint32_t cp;

	while (i < n && nchars--)
		i += hs_utf8_next(s + i, n - i, &cp);
	return i;
}
