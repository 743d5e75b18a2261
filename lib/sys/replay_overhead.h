/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_REPLAY_OVERHEAD_H
#define HS_REPLAY_OVERHEAD_H

#include <stdint.h>

#include "../error.h"
#include "../gaps.h"

struct hs_workload_params;
struct hs_workload_vm;

#define HS_OVERHEAD_Q 64	/* quantiles kept */

/*
 * This host's wake-up overhead for one vCPU: what a wait costs past a poll
 * hit, per wait, as ascending quantiles; waits 0 when not measured.
 */
struct hs_host_overhead {
	uint64_t waits;
	uint64_t ns[HS_OVERHEAD_Q];
};

/*
 * Two runs of p's VMs, one with every halt waiting (window 0, the first of
 * each vCPU's recorded gaps) and one with every halt polled (a wide
 * window, short gaps); out, recorded, poll and vms have p->nvms entries
 * (poll and vms the caller's scratch).
 */
int hs_host_overhead_measure(const struct hs_workload_params *p,
			     const struct hs_gap_seq *recorded, int64_t *poll,
			     struct hs_workload_vm *vms, struct hs_host_overhead *out,
			     struct hs_error *err);

#endif
