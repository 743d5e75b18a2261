/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_ESCAPE_H
#define HS_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Names in a report (comm, VM names) come from untrusted traces: arbitrary
 * bytes, not necessarily UTF-8 and not necessarily NUL-terminated inside
 * their fixed arrays. These put them out safely for one output syntax each.
 */
#define HS_UTF8_REPLACEMENT 0xFFFDu

/* Decodes one code point from s (n > 0 bytes); returns the bytes used (>= 1),
 * *cp is HS_UTF8_REPLACEMENT for an invalid or truncated sequence. */
size_t hs_utf8_next(const char *s, size_t n, uint32_t *cp);
void hs_utf8_put(FILE *out, uint32_t cp);
/* Bytes taken by the first nchars code points of s (at most max bytes). */
size_t hs_utf8_prefix(const char *s, size_t max, size_t nchars);

/* XML 1.0 character data / attribute value: entities for & < > " ', and
 * U+FFFD for what XML cannot carry at all; line breaks become spaces. */
void hs_esc_xml(FILE *out, const char *s, size_t max);
/* OpenMetrics / Prometheus label value: \\ \" \n, other controls U+FFFD. */
void hs_esc_om_label(FILE *out, const char *s, size_t max);

#endif
