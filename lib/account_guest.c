// SPDX-License-Identifier: GPL-2.0-only
/* One guest CPU's idle periods (power events): residency per state, guest polls, its window. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "account_state.h"

struct hs_guest_cpu_acct *hs_guest_get(struct hs_account *a, int cpu, uint64_t ts)
{
	long i = hs_imap_get(&a->guest_map, cpu);
	struct hs_guest_whatif *whatif = NULL;
	struct hs_guest_cpu_acct *g;

	if (i >= 0)
		return &a->guest[i];
	if (hs_account_full(a, a->nguest, HS_ACCOUNT_MAX_GUEST_CPUS))
		return NULL;
	if (!a->opts.no_whatif && !(whatif = hs_guest_whatif_alloc(&a->meta)))
		return NULL;
	if (hs_array_reserve((void **)&a->guest, &a->cap_guest, a->nguest, sizeof(*a->guest)) ||
	    hs_imap_put(&a->guest_map, cpu, a->nguest)) {
		hs_guest_whatif_free(whatif);
		return NULL;
	}
	g = &a->guest[a->nguest++];
	memset(g, 0, sizeof(*g));
	g->cpu = cpu;
	g->cur_state = -1;
	g->last_exit_state = -1;
	g->window = HS_WINDOW_UNKNOWN;
	g->first_ts = ts;
	g->last_ts = ts;
	g->whatif = whatif;
	return g;
}

unsigned int hs_idle_slot(int64_t state)
{
	return state >= HS_IDLE_STATES ? HS_IDLE_STATES - 1 : (unsigned int)state;
}

static void guest_close(struct hs_guest_cpu_acct *g, uint64_t ts)
{
	unsigned int slot = hs_idle_slot(g->cur_state);

	if (ts > g->cur_since)
		g->residency_ns[slot] += ts - g->cur_since;
	g->entries[slot]++;
	g->last_exit_state = g->cur_state;
	g->poll_pending = g->cur_state == 0;
	g->cur_state = -1;
}

static void guest_idle(struct hs_guest_cpu_acct *g, const struct hs_event *ev)
{
	uint32_t state = ev->idle.state;

	if (state == HS_IDLE_EXIT) {
		if (g->cur_state >= 0)
			guest_close(g, ev->ts);
		return;
	}
	/* the POLL that just ended timed out if the governor now halts */
	if (g->poll_pending) {
		if (state == 1)
			g->poll_misses++;
		else
			g->poll_hits++;
		g->poll_pending = false;
	}
	/* an entry without the previous exit: that period is not measurable */
	g->cur_state = state;
	g->cur_since = ev->ts;
}

static void guest_poll_ns(struct hs_guest_cpu_acct *g, const struct hs_event *ev)
{
	if (ev->guest_poll.grow)
		g->grows++;
	else
		g->shrinks++;
	hs_window_advance(g->window, &g->window_since_ts, ev->ts, &g->window_area,
			  &g->window_time);
	if (g->window == HS_WINDOW_UNKNOWN)
		g->window_since_ts = ev->ts;
	g->window = ev->guest_poll.new_ns;
}

int hs_account_guest_event(struct hs_account *a, const struct hs_event *ev)
{
	int64_t key = hs_account_key(ev);
	struct hs_guest_cpu_acct *g;

	/* a CPU number no machine has: a damaged record, not worth a map slot */
	if (key < 0 || key > INT_MAX || !hs_account_owns(a, (int)key))
		return 0;
	g = hs_guest_get(a, (int)key, ev->ts);
	if (!g)
		return hs_account_over(a, a->nguest, HS_ACCOUNT_MAX_GUEST_CPUS);
	if (ev->ts > g->last_ts)
		g->last_ts = ev->ts;
	if (ev->kind == HS_EV_CPU_IDLE)
		guest_idle(g, ev);
	else
		guest_poll_ns(g, ev);
	if (g->whatif)
		hs_guest_whatif_event(g->whatif, ev);
	return 0;
}

void hs_guest_forget(struct hs_guest_cpu_acct *g)
{
	hs_window_advance(g->window, &g->window_since_ts, g->last_ts, &g->window_area,
			  &g->window_time);
	g->window = HS_WINDOW_UNKNOWN;
	g->cur_state = -1;
	g->poll_pending = false;
	if (g->whatif)
		hs_guest_whatif_break(g->whatif);
}

void hs_guest_finish(struct hs_guest_cpu_acct *g, uint64_t end)
{
	if (g->cur_state >= 0) {
		guest_close(g, end);
		g->cur_state = -1;
	}
	/* a POLL that ended and was not followed by a halt was a hit */
	if (g->poll_pending) {
		g->poll_hits++;
		g->poll_pending = false;
	}
	hs_window_advance(g->window, &g->window_since_ts, end, &g->window_area,
			  &g->window_time);
}
