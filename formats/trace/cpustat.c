// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-CPU loss counts: the kernel's per_cpu/cpuN/stats text as trace-cmd
 * keeps it (CPUSTAT options), and the counts haltstat's metadata gives.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tracedat_internal.h"

/* "CPU: N\n...overrun: X\n...dropped events: Y\n" */
int hs_td_stats_set(struct hs_td_stats *st, long cpu, int64_t lost)
{
	if (cpu < 0 || cpu >= HS_TD_MAXCPUS)
		return 0;
	if (cpu >= st->ncpus) {
		int64_t *n = realloc(st->lost, (cpu + 1) * sizeof(*n));

		if (!n)
			return -1;
		for (int i = st->ncpus; i <= cpu; i++)
			n[i] = -1;
		st->lost = n;
		st->ncpus = (int)cpu + 1;
	}
	st->lost[cpu] = lost;
	return 0;
}

static int64_t num_after(const char *p, const char *end)
{
	int64_t v = 0;

	while (p < end && *p == ' ')
		p++;
	if (p >= end || !isdigit((unsigned char)*p))
		return -1;
	while (p < end && isdigit((unsigned char)*p) && v < INT64_MAX / 10)
		v = v * 10 + (*p++ - '0');
	return v;
}

static bool starts(const char *s, const char *end, const char *key)
{
	size_t n = strlen(key);

	return (size_t)(end - s) >= n && !memcmp(s, key, n);
}

/*
 * trace-cmd writes one CPUSTAT per CPU, and before each buffer instance's
 * stats a "Buffer: NAME" block; libtracecmd hands them over concatenated.
 */
int hs_td_stats_parse(const char *text, size_t len, const char *buffer,
		      struct hs_td_stats *st)
{
	const char *s = text, *end = text + len;
	bool ours = buffer[0] == '\0';
	int64_t cpu = -1, ov = 0, dr = 0;

	for (;;) {
		const char *le = s;

		while (le < end && *le != '\n' && *le != '\0')
			le++;
		if (s >= end || starts(s, le, "CPU: ") || starts(s, le, "Buffer: ")) {
			if (cpu >= 0 && ov >= 0 && dr >= 0 && hs_td_stats_set(st, cpu, ov + dr))
				return -1;
			cpu = -1;
			ov = dr = 0;
		}
		if (s >= end)
			return 0;
		if (starts(s, le, "Buffer: ")) {
			size_t n = le - s - 8;

			ours = n == strlen(buffer) && !memcmp(s + 8, buffer, n);
		} else if (ours && starts(s, le, "CPU: ")) {
			cpu = num_after(s + 5, le);
		} else if (starts(s, le, "overrun:")) {
			ov = num_after(s + 8, le);
		} else if (starts(s, le, "dropped events:")) {
			dr = num_after(s + 15, le);
		}
		s = le + 1;
	}
}

void hs_td_stats_free(struct hs_td_stats *st)
{
	free(st->lost);
	st->lost = NULL;
	st->ncpus = 0;
}

/* ---- haltstat trailer ---- */

int hs_td_trailer_find(const unsigned char *buf, size_t len, uint64_t data_end,
		       uint64_t *start, uint64_t *tlen)
{
	uint64_t n = 0;

	*start = *tlen = 0;
	if (len < 16 || memcmp(buf + len - 8, "HSMETA01", 8))
		return 0;
	for (int i = 7; i >= 0; i--)
		n = (n << 8) | buf[len - 16 + i];
	if (n > len - 16 || len - 16 - n < data_end)
		return -1;
	if (memchr(buf + len - 16 - n, '\0', n))
		return -1;
	*start = len - 16 - n;
	*tlen = n;
	return 1;
}

