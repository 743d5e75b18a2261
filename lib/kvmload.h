/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_KVMLOAD_H
#define HS_KVMLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

/*
 * A real halt workload: tiny VMs through /dev/kvm whose single vCPU loops on
 * `sti; hlt` in real mode, woken through the in-kernel 8259 by a host thread
 * after each gap. The guest counts its halts in its own memory and leaves
 * through an `out` after exactly the requested number, so the number of
 * kvm_vcpu_wakeup events each vCPU thread produces is known in advance.
 *
 * Gap patterns are shared with the synthetic trace generator
 * (tests/tools/hs-synth.c), so a synthetic and a real run can be compared.
 */
enum hs_gap_kind {
	HS_GAP_LIST,		/* ns[0..n) cycled; a period is a list of one */
	HS_GAP_EXP,		/* exponential with mean ns[0], seeded */
};

#define HS_GAP_MAX 64

struct hs_gap_pattern {
	enum hs_gap_kind kind;
	unsigned int n;
	uint64_t ns[HS_GAP_MAX];
	uint64_t seed;
};

struct hs_gap_gen {
	const struct hs_gap_pattern *p;
	uint64_t i;
	uint64_t rng;
	const uint64_t *seq;		/* added: a recorded sequence replayed instead of p */
	uint64_t nseq;
};

/* Added: a recorded gap sequence for one VM (haltstat replay). */
struct hs_gap_seq {
	const uint64_t *ns;
	uint64_t n;
};

/* "30us,100us,600us" (cycled), "period:250us", "exp:200us" (seed set apart). */
int hs_gap_pattern_parse(const char *spec, struct hs_gap_pattern *p, struct hs_error *err);
/* stream: one independent sequence per vCPU (exponential patterns). */
void hs_gap_gen_init(struct hs_gap_gen *g, const struct hs_gap_pattern *p, unsigned int stream);
/* Added: replays seq[0..n) (cycled past the end); seq must outlive g. */
void hs_gap_gen_init_seq(struct hs_gap_gen *g, const uint64_t *seq, uint64_t n);
uint64_t hs_gap_gen_next(struct hs_gap_gen *g);

struct hs_kvmload_params {
	unsigned int nvms;
	uint64_t halts;			/* per VM, 1 .. HS_KVMLOAD_MAX_HALTS */
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
};

#define HS_KVMLOAD_MAX_HALTS 4000000000ull

struct hs_kvmload_vm {
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
};

/* 0 when /dev/kvm can create VMs; else HS_ERR_KVM with the reason. */
int hs_kvmload_check(struct hs_error *err);

/*
 * Runs the workload to completion. vms has nvms entries and is filled even
 * on failure as far as known. Installs an empty SIGUSR1 handler (no
 * SA_RESTART) used to kick vCPU threads out of KVM_RUN.
 */
/* The CPUs this process may run on, lowest first, at most max; 0 on error. */
unsigned int hs_kvmload_allowed_cpus(int *cpus, unsigned int max);

int hs_kvmload_run(const struct hs_kvmload_params *p, struct hs_kvmload_vm *vms,
		   uint64_t *wall_ns, struct hs_error *err);

#endif
