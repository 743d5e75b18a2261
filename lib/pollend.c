// SPDX-License-Identifier: GPL-2.0-only
/* What a segment's waits polled under a window told afterwards (pollend.h). */
#include <string.h>

#include "pollend.h"

static unsigned int ends_index(uint64_t v)
{
	unsigned int octave, sub, i;

	if (v < 4)
		return 0;
	octave = 63u - (unsigned int)__builtin_clzll(v);
	sub = (unsigned int)(v >> (octave - 2)) & 3u;
	i = octave * HS_POLL_ENDS_SUB + sub;
	return i < HS_POLL_ENDS_BUCKETS ? i : HS_POLL_ENDS_BUCKETS - 1;
}

/* [lo, hi) of bucket i; the first holds 0 to 3. */
static void ends_edges(unsigned int i, uint64_t *lo, uint64_t *hi)
{
	unsigned int octave = i / HS_POLL_ENDS_SUB, sub = i % HS_POLL_ENDS_SUB;

	if (octave < 2) {
		*lo = 0;
		*hi = 4;
		return;
	}
	*lo = (uint64_t)(4 + sub) << (octave - 2);
	*hi = i == HS_POLL_ENDS_BUCKETS - 1 ? UINT64_MAX : (uint64_t)(5 + sub) << (octave - 2);
}

void hs_poll_ends_reset(struct hs_poll_ends *e)
{
	for (int b = 0; b < 2; b++) {
		if (e->hi <= e->lo)
			break;
		memset(&e->count[b][e->lo], 0, sizeof(e->count[b][0]) * (e->hi - e->lo));
		memset(&e->sum[b][e->lo], 0, sizeof(e->sum[b][0]) * (e->hi - e->lo));
	}
	e->lo = e->hi = 0;
}

void hs_poll_ends_add(struct hs_poll_ends *e, uint64_t end, bool bounded)
{
	unsigned int i = ends_index(end);

	if (e->hi <= e->lo) {
		e->lo = i;
		e->hi = i + 1;
	} else if (i < e->lo) {
		e->lo = i;
	} else if (i >= e->hi) {
		e->hi = i + 1;
	}
	e->count[bounded][i]++;
	e->sum[bounded][i] += end;
}

/*
 * Buckets wholly below the window charge their ends and were cut, those at
 * or above it charge the window; the one it falls in charges the smaller
 * of both (an upper bound) and counts as cut when its mean is below it.
 */
void hs_poll_ends_cost(const struct hs_poll_ends *e, int64_t window, struct hs_poll_cost *out)
{
	uint64_t w = window > 0 ? (uint64_t)window : 0;

	memset(out, 0, sizeof(*out));
	if (!w)
		return;
	for (unsigned int i = e->lo; i < e->hi; i++) {
		uint64_t lo, hi;

		ends_edges(i, &lo, &hi);
		for (int b = 0; b < 2; b++) {
			uint64_t n = e->count[b][i], s = e->sum[b][i], c;

			if (!n)
				continue;
			if (hi <= w)
				c = s;
			else if (lo >= w)
				c = n * w;
			else
				c = s < n * w ? s : n * w;
			out->poll_ns += c;
			if (b)
				out->bounded_ns += c;
			if (hi <= w || (lo < w && s < n * w))
				out->cut += n;
		}
	}
}
