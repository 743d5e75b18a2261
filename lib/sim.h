/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_SIM_H
#define HS_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "era.h"

/*
 * A replay of KVM's adaptive halt-polling window (virt/kvm/kvm_main.c) for
 * one vCPU at one maximum window M, by the rules of an era (era.h). It is
 * fed the time-to-wake of each recorded halt, in order, and keeps constant
 * state.
 */

struct hs_sim_params {
	enum hs_kernel_era era;
	uint64_t max_ns;	/* M */
	uint32_t grow;
	uint32_t grow_start;
	uint32_t shrink;
	/*
	 * Added: scheduler wake-up cost. A halt that ends in a wait lasts
	 * time-to-wake plus this, and the kernel's grow/shrink decision sees
	 * that whole duration. 0 by default.
	 */
	uint64_t wake_overhead_ns;
};

struct hs_sim {
	struct hs_sim_params p;
	unsigned int rules;	/* of p.era, looked up once */
	uint64_t window;	/* P */
	uint64_t halts;
	uint64_t hits;		/* wake came within the window */
	uint64_t poll_ns;	/* CPU spent polling: hits' time-to-wake plus misses' window */
	uint64_t miss_poll_ns;	/* the part of poll_ns spent on misses */
	uint64_t grows;
	uint64_t shrinks;
	uint64_t flaps;		/* a grow directly after a shrink or the reverse */
	int last_change;	/* +1 grow, -1 shrink, 0 none yet */
};

void hs_sim_init(struct hs_sim *sim, const struct hs_sim_params *p);
/*
 * Replays one halt; returns +1 on a grow, -1 on a shrink, 0 otherwise, and
 * sets *hit when the wake came inside the window in force. poll_cut_ns: the
 * poll ends there at the latest (another task became runnable), so the
 * window polled is min(window, poll_cut_ns); the grow/shrink decision still
 * compares the whole halt with the window, as the kernel does.
 */
int hs_sim_halt_cut(struct hs_sim *sim, uint64_t time_to_wake_ns, bool valid,
		    uint64_t poll_cut_ns, bool *hit);
/* A halt on an otherwise idle CPU: the poll runs the whole window. */
static inline int hs_sim_halt(struct hs_sim *sim, uint64_t time_to_wake_ns, bool valid, bool *hit)
{
	return hs_sim_halt_cut(sim, time_to_wake_ns, valid, UINT64_MAX, hit);
}

/* Module defaults of an era, used when the recording does not carry them. */
void hs_sim_params_default(struct hs_sim_params *p, enum hs_kernel_era era);

/*
 * The era's rules, shared with the scalar loop of whatif_batch.c, where
 * rules is a constant and max the candidate's M.
 */

/* The kernel keeps the window in an unsigned int. */
#define HS_SIM_WINDOW_MAX 0xffffffffull

/* The window after a grow from old. */
static inline __attribute__((always_inline)) uint64_t
hs_sim_rule_grow(unsigned int rules, const struct hs_sim_params *p, uint64_t old, uint64_t max)
{
	uint64_t val;

	if (!(rules & HS_RULE_GROW_START)) {
		val = old == 0 && p->grow ? p->grow_start : old * p->grow;
		return rules & HS_RULE_GROW_CLAMP && val > max ? max : val;
	}
	if (!p->grow)
		return old;	/* the event still fires, with new == old */
	val = old * p->grow;
	if (val < p->grow_start)
		val = p->grow_start;
	if (rules & HS_RULE_GROW_CLAMP && val > max)
		val = max;
	return val > HS_SIM_WINDOW_MAX ? HS_SIM_WINDOW_MAX : val;
}

/* The window after a shrink; shift = log2(shrink) when that is a power of two, else -1. */
static inline __attribute__((always_inline)) uint64_t
hs_sim_rule_shrink(unsigned int rules, const struct hs_sim_params *p, uint64_t win, int shift)
{
	uint64_t val = !p->shrink ? 0 : shift >= 0 ? win >> shift : win / p->shrink;

	if (rules & HS_RULE_SHRINK_FLOOR && val < p->grow_start)
		val = 0;
	return val;
}

/*
 * The grow/shrink decision after a halt of halt_ns in window win: +1, -1
 * or 0. valid is true for every halt of an era without the field.
 */
static inline __attribute__((always_inline)) int
hs_sim_rule_decide(uint64_t halt_ns, uint64_t win, uint64_t max, bool valid)
{
	if (!valid)
		return -1;
	if (max && halt_ns > win)
		return win && halt_ns > max ? -1 : win < max && halt_ns < max;
	return 0;
}

#endif
