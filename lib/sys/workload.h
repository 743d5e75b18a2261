/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_WORKLOAD_H
#define HS_WORKLOAD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "../error.h"
#include "../gaps.h"

/*
 * A real halt workload: tiny VMs through /dev/kvm whose single vCPU loops on
 * `sti; hlt` in real mode, woken through the in-kernel 8259 by a host thread
 * after each gap. The guest counts its halts in its own memory and leaves
 * through an `out` after exactly the requested number, so the number of
 * kvm_vcpu_wakeup events each vCPU thread produces is known in advance.
 *
 * The gaps between wakes come from lib/gaps.h, shared with the synthetic
 * trace generator (tests/tools/hs-synth.c) and the replay, so a synthetic
 * and a real run can be compared.
 */
struct hs_workload_params {
	unsigned int nvms;
	uint64_t halts;			/* per VM, 1 .. HS_WORKLOAD_MAX_HALTS */
	struct hs_gap_pattern gaps;
	const int64_t *halt_poll_ns;	/* nvms entries: KVM_CAP_HALT_POLL, -1 keeps the module's; or NULL */
	int waker_cpu;			/* -1: not pinned */
	const int *vcpu_cpus;		/* nvms entries, -1 not pinned; or NULL */
	bool fork;			/* one process per VM, as with QEMU */
	const char *process_name;	/* comm of each VM process (fork) or of the caller; NULL keeps it */
	int vcpu_names;			/* vCPU threads named as this VMM does (enum hs_vmm); -1: not renamed */
	uint64_t stall_ns;		/* give up when no VM halts for this long; 0: 10 s */
	/* Added: nvms recorded sequences; VM i then halts seqs[i].n times (halts and gaps unused). */
	const struct hs_gap_seq *seqs;
	/* Added: set (by a signal handler) to end the run early with an error; or NULL. */
	const volatile sig_atomic_t *interrupted;
};

#define HS_WORKLOAD_MAX_HALTS 4000000000ull
#define HS_WORKLOAD_LAT_BINS 2048	/* 1 us each; the last holds the longer ones */

struct hs_workload_vm {
	int pid;			/* process holding the VM */
	int tid;			/* its vCPU thread */
	char comm[16];			/* the vCPU thread's name, e.g. "CPU N/KVM" */
	uint64_t halts;			/* halts the guest counted */
	uint64_t irqs;			/* interrupts the waker raised */
	uint64_t vcpu_cpu_ns;		/* CPU time of the vCPU thread */
	int64_t halt_poll_ns;		/* the per-VM override applied, -1 none */
	/*
	 * Added: the vCPU's KVM binary statistics over the run (Linux 5.14+);
	 * kvm_stats false when they could not be read. Poll hits are
	 * halt_successful_poll, polling CPU the success plus fail ns.
	 */
	bool kvm_stats;
	uint64_t halt_attempted_poll, halt_successful_poll, halt_poll_invalid;
	uint64_t halt_poll_success_ns, halt_poll_fail_ns, halt_wait_ns;
	/*
	 * Added: per wake, from the waker raising the interrupt to the guest
	 * counting its next halt, in 1 us bins: the wake's latency as the
	 * guest sees it, a poll hit's or a wait's (haltstat replay tells the
	 * two apart by running at window 0 and at a wide one).
	 */
	uint32_t wake_lat_us[HS_WORKLOAD_LAT_BINS];
};

/* 0 when /dev/kvm can create VMs; else HS_ERR_KVM with the reason. */
int hs_workload_check(struct hs_error *err);

/* The CPUs this process may run on, lowest first, at most max; 0 on error. */
unsigned int hs_workload_allowed_cpus(int *cpus, unsigned int max);

/*
 * Runs the workload to completion. vms has nvms entries and is filled even
 * on failure as far as known. Installs an empty SIGUSR1 handler (no
 * SA_RESTART) used to kick vCPU threads out of KVM_RUN.
 */
int hs_workload_run(const struct hs_workload_params *p, struct hs_workload_vm *vms,
		    uint64_t *wall_ns, struct hs_error *err);

#endif
