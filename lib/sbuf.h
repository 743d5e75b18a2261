/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_SBUF_H
#define HS_SBUF_H

#include <stddef.h>

/* A growable text buffer; oom sticks so callers check once at the end. */
struct hs_sbuf {
	char *s;
	size_t len;
	size_t cap;
	int oom;
};

void hs_sbuf_printf(struct hs_sbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void hs_sbuf_free(struct hs_sbuf *sb);

#endif
