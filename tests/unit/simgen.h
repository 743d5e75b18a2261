/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test-only trace generator: halts made by the kernel pseudo-code of
 * halt-polling.md section 1, written independently of lib/sim.c, with a
 * known wake-up overhead DELTA.
 */
#ifndef HS_TEST_SIMGEN_H
#define HS_TEST_SIMGEN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../../lib/event.h"
#include "../../lib/hist.h"
#include "../../lib/whatif.h"

enum gen_mode {
	GEN_MIX,		/* quick wakes, wakes around windows, long sleeps */
	GEN_PERIODIC_250US,	/* a guest timer firing every ~250 us */
	GEN_SHORT,		/* 1..40 us */
	GEN_MID,		/* 150..190 us */
	GEN_ALTERNATE,		/* 20 us, then 1 ms, then 20 us... */
};

#define DELTA 25000

struct gen {
	uint64_t p, m;
	uint32_t grow, grow_start, shrink;
	bool clamp_at_entry;		/* 6.1+; before, grow clamps to M */
	uint64_t rng;
	uint64_t hits, grows, shrinks, flaps, halts;
	int last_dir;
	enum gen_mode mode;
	uint64_t log2_poll[HS_LOG2_BUCKETS], log2_wait[HS_LOG2_BUCKETS];
};

static inline uint64_t gen_rand(struct gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

/* A mix of quick wakes, wakes around typical windows, and long sleeps. */
static inline uint64_t gen_time_to_wake(struct gen *g)
{
	uint64_t r = gen_rand(g) % 100;

	switch (g->mode) {
	case GEN_PERIODIC_250US:
		return 240000 + gen_rand(g) % 10000;
	case GEN_SHORT:
		return 1000 + gen_rand(g) % 39000;
	case GEN_MID:
		return 150000 + gen_rand(g) % 40000;
	case GEN_ALTERNATE:
		return g->halts % 2 ? 1000000 : 20000;
	case GEN_MIX:
		break;
	}
	if (r < 40)
		return 1000 + gen_rand(g) % 59000;
	if (r < 70)
		return 60000 + gen_rand(g) % 340000;
	return 1000000 + gen_rand(g) % 4000000;
}

static inline void gen_init(struct gen *g, uint64_t m, uint32_t shrink, bool clamp_at_entry)
{
	memset(g, 0, sizeof(*g));
	g->m = m;
	g->grow = 2;
	g->grow_start = 10000;
	g->shrink = shrink;
	g->clamp_at_entry = clamp_at_entry;
	g->rng = 0x9e3779b97f4a7c15ull;
}

/* One halt by the kernel rules; *window gets the window in force. */
static inline bool gen_halt(struct gen *g, struct hs_wakeup *w, struct hs_poll_change *c,
		     int64_t *window)
{
	uint64_t d = gen_time_to_wake(g), old;

	if (g->clamp_at_entry && g->p > g->m)
		g->p = g->m;
	*window = (int64_t)g->p;
	w->valid = 1;
	w->waited = !(g->p && d < g->p);
	w->ns = w->waited ? d + DELTA : d;
	g->hits += !w->waited;
	g->halts++;
	if (w->waited)
		g->log2_wait[hs_log2_index(w->ns)]++;
	else
		g->log2_poll[hs_log2_index(w->ns)]++;
	if (!g->m) {
		g->p = 0;
		return false;
	}
	old = g->p;
	if (w->ns <= g->p)
		return false;
	if (g->p && w->ns > g->m) {
		g->p = g->shrink ? g->p / g->shrink : 0;
		if (g->p < g->grow_start)
			g->p = 0;
		g->shrinks++;
	} else if (g->p < g->m && w->ns < g->m) {
		g->p = g->p * g->grow > g->grow_start ? g->p * g->grow : g->grow_start;
		if (!g->clamp_at_entry && g->p > g->m)
			g->p = g->m;
		g->grows++;
	} else {
		return false;
	}
	c->grow = g->p > old;
	if (g->last_dir && g->last_dir != (c->grow ? 1 : -1))
		g->flaps++;
	g->last_dir = c->grow ? 1 : -1;
	c->old_ns = (uint32_t)old;
	c->new_ns = (uint32_t)g->p;
	c->vcpu_id = 0;
	return true;
}

static inline void opts_init(struct hs_whatif_opts *o, enum hs_kernel_era era, int64_t max)
{
	memset(o, 0, sizeof(*o));
	o->era = era;
	o->era_forced = true;
	o->recorded_max_ns = max;
	o->grow = o->grow_start = o->shrink = -1;
}

/* Feeds n halts (after skipping `skip` the recording missed) and finishes. */
static inline struct hs_whatif *run(struct gen *g, const struct hs_whatif_opts *o, int skip, int n,
			     int unreliable_every)
{
	struct hs_whatif *w = hs_whatif_alloc(o);
	struct hs_poll_change c;
	struct hs_wakeup wk;
	int64_t win;

	for (int i = 0; i < skip; i++)
		gen_halt(g, &wk, &c, &win);
	g->hits = g->grows = g->shrinks = g->flaps = g->halts = 0;
	memset(g->log2_poll, 0, sizeof(g->log2_poll));
	memset(g->log2_wait, 0, sizeof(g->log2_wait));
	for (int i = 0; w && i < n; i++) {
		bool ev = gen_halt(g, &wk, &c, &win);
		bool reliable = !unreliable_every || i % unreliable_every;

		hs_whatif_halt(w, &wk, ev ? &c : NULL, reliable ? win : -1, reliable,
			       HS_POLL_CUT_UNKNOWN);
	}
	if (w)
		hs_whatif_finish(w, 10ull * 1000000000);
	return w;
}

#endif
