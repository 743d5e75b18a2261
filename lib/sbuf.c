// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"

void hs_sbuf_printf(struct hs_sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sb->oom)
		return;
	for (;;) {
		size_t room = sb->cap - sb->len;

		va_start(ap, fmt);
		n = vsnprintf(sb->s ? sb->s + sb->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			sb->oom = 1;
			return;
		}
		if ((size_t)n < room) {
			sb->len += (size_t)n;
			return;
		}
		size_t cap = sb->cap ? sb->cap * 2 : 4096;
		while (cap - sb->len <= (size_t)n)
			cap *= 2;
		char *s = realloc(sb->s, cap);

		if (!s) {
			sb->oom = 1;
			return;
		}
		sb->s = s;
		sb->cap = cap;
	}
}

void hs_sbuf_free(struct hs_sbuf *sb)
{
	free(sb->s);
	memset(sb, 0, sizeof(*sb));
}
