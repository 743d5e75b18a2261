// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "units.h"

int hs_parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (!s || !isdigit((unsigned char)s[0]))
		return HS_ERR_USAGE;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end)
		return HS_ERR_USAGE;
	*v = x;
	return 0;
}

static const struct {
	const char *suffix;
	double ns;
} duration_units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	{ "m", 60e9 }, { "h", 3600e9 }, { "", 1e9 },
};

int hs_parse_duration_ns(const char *s, uint64_t *ns)
{
	char *end;
	double x;

	if (!s || !(isdigit((unsigned char)s[0]) || s[0] == '.'))
		return HS_ERR_USAGE;
	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s || !isfinite(x) || x < 0)
		return HS_ERR_USAGE;
	for (size_t i = 0; i < sizeof(duration_units) / sizeof(duration_units[0]); i++) {
		if (strcmp(end, duration_units[i].suffix))
			continue;
		x *= duration_units[i].ns;
		if (x >= 18e18)
			return HS_ERR_USAGE;
		*ns = (uint64_t)x;
		return 0;
	}
	return HS_ERR_USAGE;
}

static int parse_list(const char *s, uint64_t *vals, int max, uint64_t limit)
{
	int n = 0;

	if (!s || !*s)
		return -1;
	while (*s) {
		char *end;
		unsigned long long x;

		if (!isdigit((unsigned char)*s) || n >= max)
			return -1;
		errno = 0;
		x = strtoull(s, &end, 10);
		if (errno || x > limit || (*end && *end != ','))
			return -1;
		vals[n++] = x;
		s = *end ? end + 1 : end;
		if (*end && !*s)
			return -1;
	}
	return n;
}

int hs_parse_pid_list(const char *s, int *pids, int max)
{
	uint64_t vals[256];
	int n;

	if (max > 256)
		max = 256;
	n = parse_list(s, vals, max, 4194304);
	for (int i = 0; i < n; i++) {
		if (vals[i] == 0)
			return -1;
		pids[i] = (int)vals[i];
	}
	return n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int hs_parse_u64_list(const char *s, uint64_t *vals, int max)
{
	int n = parse_list(s, vals, max, UINT32_MAX), u = 0;

	if (n <= 0)
		return n;
	qsort(vals, n, sizeof(*vals), cmp_u64);
	for (int i = 0; i < n; i++)
		if (u == 0 || vals[u - 1] != vals[i])
			vals[u++] = vals[i];
	return u;
}
