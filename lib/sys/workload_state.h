/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_WORKLOAD_STATE_H
#define HS_WORKLOAD_STATE_H

/*
 * Shared by workload_group.c (a group of VMs, one process per VM, the public
 * calls) and the parts it runs: workload_guest.c (the guest, its VM and
 * its vCPU thread) and workload_waker.c (the thread that wakes them).
 * The parts include this and never each other or workload_group.c.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "kvmstats.h"
#include "workload.h"

/* The guest's u32 count of the halts it entered: the waker watches it. */
#define KL_SEQ		0x0500

/* vCPU thread state, as the waker sees it */
enum { KL_RUNNING, KL_FINISHED, KL_FAILED };

struct kvm_run;

struct kl_vm {
	unsigned int index;		/* N in "CPU N/KVM" */
	int vcpu_names;			/* enum hs_vmm, -1: the process's name */
	int vm_fd;
	int vcpu_fd;
	uint8_t *mem;
	struct kvm_run *run;
	size_t run_size;
	pthread_t thread;
	bool started;
	int cpu;
	uint32_t limit;
	struct hs_gap_gen gen;
	struct hs_kvm_stats stats;	/* fd -1 when the kernel has none */
	uint64_t stats0[HS_KVM_STAT_N];
	/* waker-side state */
	uint32_t seen;
	uint64_t deadline;
	uint64_t irq_ts;		/* when the waker raised the interrupt, 0 none pending */
	bool armed;
	bool done;
	/* shared with the vCPU thread */
	atomic_int state;
	atomic_bool stop;
	struct hs_error err;
	struct hs_workload_vm *out;
};

/* The VMs of one process and their waker. */
struct kl_group {
	struct kl_vm *vms;
	unsigned int n;
	int waker_cpu;
	uint64_t stall_ns;
	const volatile sig_atomic_t *interrupted;
	struct hs_error err;
	int rc;
};

/* ---- small helpers of every part ---- */

static inline uint64_t kl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline int kl_ioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do
		r = ioctl(fd, req, arg);
	while (r < 0 && errno == EINTR);
	return r;
}

static inline int kl_kvm_err(struct hs_error *err, const char *what)
{
	return hs_error_set(err, HS_ERR_KVM, "%s: %s", what, strerror(errno));
}

/* Both the vCPU threads and the waker may be pinned; cpu -1: not. */
static inline int kl_pin_self(int cpu, struct hs_error *err)
{
	cpu_set_t set;
	int r;

	if (cpu < 0)
		return 0;
	if (cpu >= CPU_SETSIZE)
		return hs_error_set(err, HS_ERR_USAGE, "CPU %d out of range", cpu);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	r = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (r)
		return hs_error_set(err, HS_ERR_USAGE, "cannot pin to CPU %d: %s", cpu, strerror(r));
	return 0;
}

/* The guest's halt count; acquire pairs with its stores through KVM. */
static inline uint32_t kl_seq(const struct kl_vm *vm)
{
	return __atomic_load_n((const uint32_t *)(vm->mem + KL_SEQ), __ATOMIC_ACQUIRE);
}

/* ---- workload_guest.c ---- */

/* Opens /dev/kvm and checks its API; *run_size: the vCPU mapping's size. */
int hs_workload_open_kvm(int *fd, size_t *run_size, struct hs_error *err);
/* The VM, its memory with the guest in it, its vCPU at the guest's entry. */
int hs_workload_vm_setup(struct kl_vm *vm, int kvm_fd, size_t run_size, int64_t poll_ns,
			 struct hs_error *err);
void hs_workload_vm_teardown(struct kl_vm *vm);
/* pthread entry: runs vm's vCPU until the guest is done or vm->stop. */
void *hs_workload_vcpu_main(void *arg);
/* Once its thread is joined: what the guest and KVM counted, into vm->out. */
void hs_workload_vm_collect(struct kl_vm *vm);

/* ---- workload_waker.c ---- */

/* pthread entry: wakes g's VMs after each gap until all are done; g->rc. */
void *hs_workload_waker_main(void *arg);
/* Makes every started vCPU thread of g leave KVM_RUN and return. */
void hs_workload_group_stop(struct kl_group *g);

#endif
