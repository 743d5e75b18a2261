/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_STEAL_H
#define HS_STEAL_H

#include <stdbool.h>
#include <stdint.h>

struct hs_whatif_row;

/*
 * What the hypervisor above a nested host took of its CPUs (/proc/stat
 * steal) and what they ran meanwhile, summed over the CPUs of a recording
 * or a run. Steal only accrues while a CPU wants to run: a CPU that idles
 * toward its hypervisor (a recording at window 0) is rarely stolen, the
 * same CPU polling is stolen as often as any busy one. So the figure that
 * carries from a recording to a run with polling on is the stolen share
 * of the runnable time, not of the wall time.
 */
struct hs_cpu_steal {
	int64_t steal_ns;		/* -1 unknown */
	int64_t busy_ns;		/* user, system, irq: what ran; -1 unknown */
	int cpus;			/* CPUs summed; -1 unknown */
};

void hs_cpu_steal_init(struct hs_cpu_steal *s);
bool hs_cpu_steal_known(const struct hs_cpu_steal *s);
/* Stolen share of the CPUs' wall time over wall_s seconds; -1 unknown. */
double hs_cpu_steal_wall_share(const struct hs_cpu_steal *s, double wall_s);
/* Stolen share of the time the CPUs wanted to run: steal / (steal + busy); -1 unknown. */
double hs_cpu_steal_runnable_share(const struct hs_cpu_steal *s);

/*
 * A poll hit needs its wake to land while the vCPU's CPU runs: a wake in
 * stolen time arrives when the theft ends, often past the window. Each
 * hit is so lost with the chance q that a runnable moment is stolen; the
 * pessimistic end of rows[0..n) takes them off its hit rate and adds
 * their full windows to its polling CPU.
 */
void hs_whatif_rows_steal(struct hs_whatif_row *rows, unsigned int n, double q);
/*
 * The same for one prediction of hit_rate over halts at window_ns: returns
 * what came off *hit_low (which stops at 0), so that a run can put its own
 * q in place of the recording's. Every lost hit polls its whole window,
 * whether or not the low end had room for it.
 */
double hs_steal_widen(double q, double hit_rate, double halts, uint64_t window_ns,
		      double *hit_low, double *poll_cpu_s_high);

#endif
