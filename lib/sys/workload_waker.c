// SPDX-License-Identifier: GPL-2.0-only
/*
 * The waker of the KVM workload (see workload.h): one host thread per
 * group of VMs that raises IRQ0 in each guest a gap after it saw the
 * guest's halt count move, sleeping far from every deadline and spinning
 * the last stretch. It also stops the vCPU threads when the run fails.
 * It touches the guests only through KVM_IRQ_LINE and their count.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "workload_state.h"

/* The spin-wait hint: a sibling hyperthread may be running the vCPU. */
static void kl_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static int kl_irq0(struct kl_vm *vm, struct hs_error *err)
{
	struct kvm_irq_level lvl;

	/* The 8259 input is edge-triggered: one rising edge, one interrupt. */
	memset(&lvl, 0, sizeof(lvl));
	lvl.irq = 0;
	lvl.level = 1;
	if (kl_ioctl(vm->vm_fd, KVM_IRQ_LINE, &lvl) < 0)
		return kl_kvm_err(err, "KVM_IRQ_LINE");
	lvl.level = 0;
	if (kl_ioctl(vm->vm_fd, KVM_IRQ_LINE, &lvl) < 0)
		return kl_kvm_err(err, "KVM_IRQ_LINE");
	vm->out->irqs++;
	return 0;
}

static void kl_wake_latency(struct kl_vm *vm, uint64_t now)
{
	uint64_t us = (now - vm->irq_ts) / 1000;

	vm->out->wake_lat_us[us < HS_WORKLOAD_LAT_BINS ? us : HS_WORKLOAD_LAT_BINS - 1]++;
	vm->irq_ts = 0;
}

/*
 * One look at one VM. HS_ERR_RUNTIME on error, else HS_OK; sets *busy while the VM
 * needs watching closely and lowers *next to its next deadline.
 */
static int kl_waker_step(struct kl_group *g, struct kl_vm *vm, uint64_t now,
			 uint64_t *next, bool *busy, bool *progress)
{
	int st = atomic_load(&vm->state);
	uint32_t seq;

	if (st == KL_FAILED) {
		g->err = vm->err;
		return HS_ERR_RUNTIME;
	}
	seq = kl_seq(vm);
	if (seq != vm->seen) {
		if (vm->irq_ts)
			kl_wake_latency(vm, now);
		vm->seen = seq;
		*progress = true;
		vm->armed = seq <= vm->limit;
		if (vm->armed)
			vm->deadline = now + hs_gap_gen_next(&vm->gen);
	}
	if (seq > vm->limit) {
		vm->done = st == KL_FINISHED;
		*busy = true;
		return 0;
	}
	if (!vm->armed) {
		*busy = true;		/* waiting for the guest to count the wake */
		return 0;
	}
	if (now < vm->deadline) {
		if (vm->deadline < *next)
			*next = vm->deadline;
		return 0;
	}
	vm->armed = false;
	*busy = true;
	vm->irq_ts = now;
	return kl_irq0(vm, &g->err) ? -1 : 0;
}

void hs_workload_group_stop(struct kl_group *g)
{
	for (unsigned int i = 0; i < g->n; i++) {
		struct kl_vm *vm = &g->vms[i];

		if (!vm->started)
			continue;
		atomic_store(&vm->stop, true);
		/* immediate_exit covers a kick that lands before KVM_RUN is entered. */
		vm->run->immediate_exit = 1;
		pthread_kill(vm->thread, SIGUSR1);
	}
}

static void kl_waker_wait(const struct kl_group *g, uint64_t now, uint64_t next, bool busy)
{
	struct timespec ts;
	uint64_t t;

	/* Sleep only far from every deadline; the last stretch is spun for accuracy. */
	if (busy || next == UINT64_MAX || next - now < 200000) {
		/* An unpinned waker may share the CPU of the vCPU it waits for. */
		if (g->waker_cpu < 0)
			sched_yield();
		else
			kl_relax();
		return;
	}
	t = next - 100000;
	ts.tv_sec = (time_t)(t / 1000000000ull);
	ts.tv_nsec = (long)(t % 1000000000ull);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static int kl_waker_loop(struct kl_group *g)
{
	uint64_t last = kl_now();
	unsigned int left = g->n;

	while (left) {
		uint64_t now = kl_now(), next = UINT64_MAX;
		bool busy = false, progress = false;

		left = 0;
		for (unsigned int i = 0; i < g->n; i++) {
			struct kl_vm *vm = &g->vms[i];

			if (vm->done)
				continue;
			if (kl_waker_step(g, vm, now, &next, &busy, &progress))
				return HS_ERR_RUNTIME;
			left += !vm->done;
		}
		if (g->interrupted && *g->interrupted)
			return hs_error_set(&g->err, HS_ERR_RUNTIME, "interrupted");
		if (progress)
			last = now;
		else if (now - last > g->stall_ns)
			return hs_error_set(&g->err, HS_ERR_RUNTIME,
					    "workload stalled: no halt for %.1f s",
					    (double)g->stall_ns / 1e9);
		if (left)
			kl_waker_wait(g, now, next, busy);
	}
	return 0;
}

void *hs_workload_waker_main(void *arg)
{
	struct kl_group *g = arg;

	/* A nameless waker is only cosmetic: its failure is not an error. */
	pthread_setname_np(pthread_self(), "hs-waker");
	if (kl_pin_self(g->waker_cpu, &g->err) || kl_waker_loop(g))
		g->rc = g->err.code ? g->err.code : HS_ERR_RUNTIME;
	if (g->rc)
		hs_workload_group_stop(g);
	return NULL;
}

