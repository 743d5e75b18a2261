/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_JSONW_H
#define HS_JSONW_H

/*
 * Small jansson builders shared by the JSON writers (report, replay, diff, top): a NULL
 * anywhere (out of memory) marks the document bad instead of crashing, and
 * unknown or non-finite numbers become null.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../../lib/error.h"

struct hs_jw {
	bool bad;
};

static inline void hs_jw_put(struct hs_jw *j, json_t *obj, const char *key, json_t *val)
{
	if (!obj || !val) {
		json_decref(val);
		j->bad = true;
	} else if (json_object_set_new(obj, key, val)) {
		j->bad = true;
	}
}

static inline void hs_jw_push(struct hs_jw *j, json_t *arr, json_t *val)
{
	if (!arr || !val) {
		json_decref(val);
		j->bad = true;
	} else if (json_array_append_new(arr, val)) {
		j->bad = true;
	}
}

static inline json_t *hs_jw_u64(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* Negative means unknown. */
static inline json_t *hs_jw_i64_known(int64_t v)
{
	return v < 0 ? json_null() : json_integer(v);
}

static inline json_t *hs_jw_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static inline json_t *hs_jw_num_known(double v)
{
	return isfinite(v) && v >= 0 ? json_real(v) : json_null();
}

/* Names come from traces: not always UTF-8, so a fallback with '?' for high bytes. */
static inline json_t *hs_jw_str(const char *s, size_t max)
{
	size_t n = s ? strnlen(s, max) : 0;
	json_t *v = json_stringn(s ? s : "", n);
	char *copy;

	if (v)
		return v;
	copy = malloc(n + 1);
	if (!copy)
		return NULL;
	for (size_t k = 0; k < n; k++)
		copy[k] = (unsigned char)s[k] >= 0x80 ? '?' : s[k];
	v = json_stringn(copy, n);
	free(copy);
	return v;
}

/*
 * Writes one document and a newline, then drops it. HS_ERR_RUNTIME when a
 * builder ran out of memory (nothing written), HS_ERR_OUTPUT on a write error.
 */
static inline int hs_jw_dump(FILE *out, const struct hs_jw *j, json_t *root, size_t flags)
{
	int ret = 0;

	if (!root || j->bad)
		ret = HS_ERR_RUNTIME;
	else if (json_dumpf(root, out, flags) || fputc('\n', out) == EOF || fflush(out) ||
		 ferror(out))
		ret = HS_ERR_OUTPUT;
	json_decref(root);
	return ret;
}

#endif
