/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_SIM_H
#define HS_SIM_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A replay of KVM's adaptive halt-polling window (virt/kvm/kvm_main.c) for
 * one vCPU at one maximum window M. It is fed the time-to-wake of each
 * recorded halt, in order, and keeps constant state.
 */
enum hs_kernel_era {
	HS_ERA_4_4,	/* grow clamps to M, no grow_start floor on shrink, no valid field */
	HS_ERA_5_X,	/* grow_start, shrink floor from 5.15 */
	HS_ERA_6_1,	/* M read live, clamp at entry, grow unclamped */
	HS_ERA_6_11,	/* as 6.1, shrink default 2 */
};

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
/* Replays one halt; returns +1 on a grow, -1 on a shrink, 0 otherwise, and
 * sets *hit when the wake came inside the window in force. */
int hs_sim_halt(struct hs_sim *sim, uint64_t time_to_wake_ns, bool valid, bool *hit);

enum hs_kernel_era hs_kernel_era_from_release(const char *release);
const char *hs_kernel_era_name(enum hs_kernel_era era);
int hs_kernel_era_parse(const char *name, enum hs_kernel_era *era);
/* Module defaults of an era, used when the recording does not carry them. */
void hs_sim_params_default(struct hs_sim_params *p, enum hs_kernel_era era);

#endif
