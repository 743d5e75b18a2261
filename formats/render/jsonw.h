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
#include <stddef.h>
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

/*
 * A struct's plain fields, in table order: the rows of the what-if tables
 * are long runs of numbers, written alike.
 */
enum hs_jw_kind {
	HS_JW_KIND_U64,			/* uint64_t */
	HS_JW_KIND_NUM,			/* double, null when not finite */
	HS_JW_KIND_NUM_KNOWN,		/* double, null when negative (unknown) or not finite */
	HS_JW_KIND_I64_KNOWN,		/* int64_t, null when negative (unknown) */
};

struct hs_jw_field {
	const char *key;
	enum hs_jw_kind kind;
	size_t off;			/* offsetof in the struct */
};

/* the field's own type, checked: a table entry of the wrong kind does not compile */
#define HS_JW_CHECK(type, field, t)						\
	(0 * sizeof(struct { char c; _Static_assert(_Generic(((type *)0)->field, t: 1,	\
					      default: 0), #field " is not " #t); }))
#define HS_JW_FIELD_AS(key, kind, type, field, ctype)					\
	{ key, kind, offsetof(type, field) + HS_JW_CHECK(type, field, ctype) }
#define HS_JW_U64_AS(key, type, field) HS_JW_FIELD_AS(key, HS_JW_KIND_U64, type, field, uint64_t)
#define HS_JW_NUM_AS(key, type, field) HS_JW_FIELD_AS(key, HS_JW_KIND_NUM, type, field, double)
#define HS_JW_NUM_KNOWN_AS(key, type, field)						\
	HS_JW_FIELD_AS(key, HS_JW_KIND_NUM_KNOWN, type, field, double)
#define HS_JW_I64_KNOWN_AS(key, type, field)						\
	HS_JW_FIELD_AS(key, HS_JW_KIND_I64_KNOWN, type, field, int64_t)
#define HS_JW_U64(type, field) HS_JW_U64_AS(#field, type, field)
#define HS_JW_NUM(type, field) HS_JW_NUM_AS(#field, type, field)
#define HS_JW_NUM_KNOWN(type, field) HS_JW_NUM_KNOWN_AS(#field, type, field)
#define HS_JW_I64_KNOWN(type, field) HS_JW_I64_KNOWN_AS(#field, type, field)

static inline void hs_jw_put_fields(struct hs_jw *j, json_t *o, const void *base,
				    const struct hs_jw_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *p = (const char *)base + f[i].off;
		double d;
		uint64_t u;
		int64_t v;

		switch (f[i].kind) {
		case HS_JW_KIND_NUM:
		case HS_JW_KIND_NUM_KNOWN:
			memcpy(&d, p, sizeof(d));
			hs_jw_put(j, o, f[i].key, f[i].kind == HS_JW_KIND_NUM ? hs_jw_num(d) :
				  hs_jw_num_known(d));
			break;
		case HS_JW_KIND_I64_KNOWN:
			memcpy(&v, p, sizeof(v));
			hs_jw_put(j, o, f[i].key, hs_jw_i64_known(v));
			break;
		default:
			memcpy(&u, p, sizeof(u));
			hs_jw_put(j, o, f[i].key, hs_jw_u64(u));
		}
	}
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
