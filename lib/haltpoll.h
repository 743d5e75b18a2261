/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_HALTPOLL_H
#define HS_HALTPOLL_H

#include <stdbool.h>
#include <stdint.h>

#include "meta.h"

/*
 * A replay of the guest's cpuidle haltpoll governor
 * (drivers/cpuidle/governors/haltpoll.c) for one guest CPU: the per-CPU
 * poll limit, how a wake is met (poll, then halt to the hypervisor), and
 * how the limit moves after a halt. The counterpart of lib/sim.c one layer
 * down: sim.c is the host's KVM polling for its vCPUs, this is a guest
 * polling inside itself before it halts to its own host.
 */
struct hs_haltpoll_params {
	uint32_t max_ns;	/* guest_halt_poll_ns */
	uint32_t grow;		/* guest_halt_poll_grow */
	uint32_t grow_start;	/* guest_halt_poll_grow_start */
	uint32_t shrink;	/* guest_halt_poll_shrink */
	bool allow_shrink;	/* guest_halt_poll_allow_shrink */
	bool shrink_floor;	/* 6.9+: a shrink below grow_start goes to 0 */
};

#define HS_HALTPOLL_DEFAULT_MAX 200000

/* The module's defaults, on a current kernel. */
void hs_haltpoll_defaults(struct hs_haltpoll_params *p);
/* The recorded module values where known (-1 stays the default), the floor from the release. */
void hs_haltpoll_from_meta(struct hs_haltpoll_params *p, const struct hs_meta *m);

/*
 * adjust_poll_limit() after a halt of block_ns (its residency as cpuidle
 * measured it): the new limit; *branch is +1 when the grow branch ran, -1
 * the shrink branch (each traces guest_halt_poll_ns, even 0 -> 0), 0 none.
 */
uint32_t hs_haltpoll_adjust(const struct hs_haltpoll_params *p, uint32_t limit,
			    uint64_t block_ns, int *branch);

/* How one wake was met. */
struct hs_haltpoll_wake {
	bool polled;		/* the CPU polled first (limit > 0) */
	bool hit;		/* the wake came inside the poll: no halt */
	uint64_t poll_ns;	/* CPU spent polling */
	uint64_t block_ns;	/* the halt's residency, 0 on a hit */
	int branch;		/* of the adjustment after the halt */
};

/*
 * One idle period that ends in a wake d_ns after the CPU went idle. A halt
 * lasts past the wake by halt_extra_ns (the exit to the hypervisor and its
 * wake-up of this vCPU), and the governor sees that in the residency.
 * Updates *limit as the governor would.
 */
void hs_haltpoll_wake(const struct hs_haltpoll_params *p, uint32_t *limit, uint64_t d_ns,
		      uint64_t halt_extra_ns, struct hs_haltpoll_wake *out);

#endif
