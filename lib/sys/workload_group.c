// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tiny real-mode VMs that halt on cue (see workload.h): the runs. A group
 * of VMs in this process (their vCPU threads from workload_guest.c, one
 * waker from workload_waker.c), or one process per VM as with QEMU, and
 * the public calls around them.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload_state.h"

/* ---- running a group of VMs in this process ---- */

/* SIGUSR1 only has to end a KVM_RUN (no SA_RESTART): nothing to do here. */
static void kl_kick_handler(int sig)
{
	(void)sig;
}

static int kl_signal_setup(struct hs_error *err)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = kl_kick_handler;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return hs_error_set(err, HS_ERR_RUNTIME, "sigaction: %s", strerror(errno));
	return 0;
}

static int kl_group_start(struct kl_group *g, struct hs_error *err)
{
	for (unsigned int i = 0; i < g->n; i++) {
		struct kl_vm *vm = &g->vms[i];
		int r = pthread_create(&vm->thread, NULL, hs_workload_vcpu_main, vm);

		if (r) {
			hs_workload_group_stop(g);
			for (unsigned int j = 0; j < i; j++)
				pthread_join(g->vms[j].thread, NULL);
			return hs_error_set(err, HS_ERR_RUNTIME, "pthread_create: %s", strerror(r));
		}
		vm->started = true;
	}
	return 0;
}

static int kl_group_join(struct kl_group *g, struct hs_error *err)
{
	pthread_t waker;
	int r = pthread_create(&waker, NULL, hs_workload_waker_main, g);

	if (r) {
		hs_workload_group_stop(g);
		hs_error_set(err, HS_ERR_RUNTIME, "pthread_create: %s", strerror(r));
	} else {
		pthread_join(waker, NULL);
		if (g->rc)
			*err = g->err;
	}
	for (unsigned int i = 0; i < g->n; i++) {
		struct kl_vm *vm = &g->vms[i];

		if (vm->started)
			pthread_join(vm->thread, NULL);
		hs_workload_vm_collect(vm);
	}
	return r ? HS_ERR_RUNTIME : g->rc;
}

static int kl_group_run(struct kl_group *g, const int64_t *poll, struct hs_error *err)
{
	size_t run_size = 0;
	int kvm_fd, r;

	r = hs_workload_open_kvm(&kvm_fd, &run_size, err);
	if (r)
		return r;
	for (unsigned int i = 0; i < g->n && !r; i++) {
		g->vms[i].out->halt_poll_ns = poll ? poll[i] : -1;
		r = hs_workload_vm_setup(&g->vms[i], kvm_fd, run_size, poll ? poll[i] : -1, err);
	}
	if (!r)
		r = kl_signal_setup(err);
	if (!r)
		r = kl_group_start(g, err);
	if (!r)
		r = kl_group_join(g, err);
	for (unsigned int i = 0; i < g->n; i++)
		hs_workload_vm_teardown(&g->vms[i]);
	close(kvm_fd);
	return r;
}

static void kl_vm_init(struct kl_vm *vm, const struct hs_workload_params *p, unsigned int index,
		       unsigned int stream, struct hs_workload_vm *out)
{
	memset(vm, 0, sizeof(*vm));
	vm->index = index;
	vm->vcpu_names = p->vcpu_names;
	vm->vm_fd = vm->vcpu_fd = -1;
	vm->stats.fd = -1;
	vm->cpu = p->vcpu_cpus ? p->vcpu_cpus[stream] : -1;
	vm->limit = (uint32_t)(p->seqs ? p->seqs[stream].n : p->halts);
	vm->out = out;
	if (p->seqs)
		hs_gap_gen_init_seq(&vm->gen, p->seqs[stream].ns, p->seqs[stream].n);
	else
		hs_gap_gen_init(&vm->gen, &p->gaps, stream);
	atomic_init(&vm->state, KL_RUNNING);
	atomic_init(&vm->stop, false);
	out->pid = getpid();
	out->tid = 0;
	memset(out->wake_lat_us, 0, sizeof(out->wake_lat_us));
}

static int kl_set_comm(const char *name, struct hs_error *err)
{
	if (!name)
		return 0;
	if (prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0))
		return hs_error_set(err, HS_ERR_RUNTIME, "cannot set process name: %s",
				    strerror(errno));
	return 0;
}

static int kl_run_inproc(const struct hs_workload_params *p, struct hs_workload_vm *vms,
			 unsigned int first, unsigned int n, unsigned int name_base,
			 struct hs_error *err)
{
	struct kl_group g;
	int r;

	memset(&g, 0, sizeof(g));
	g.vms = calloc(n, sizeof(*g.vms));
	if (!g.vms)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	g.n = n;
	g.waker_cpu = p->waker_cpu;
	g.stall_ns = p->stall_ns ? p->stall_ns : 10000000000ull;
	g.interrupted = p->interrupted;
	for (unsigned int i = 0; i < n; i++)
		kl_vm_init(&g.vms[i], p, name_base + i, first + i, &vms[first + i]);
	r = kl_group_run(&g, p->halt_poll_ns ? p->halt_poll_ns + first : NULL, err);
	free(g.vms);
	return r;
}

/* ---- one process per VM ---- */

struct kl_child {
	struct hs_workload_vm vm;
	struct hs_error err;
	int rc;
};

static void kl_child_main(const struct hs_workload_params *p, struct kl_child *shared,
			  struct hs_workload_vm *vms, unsigned int i)
{
	struct hs_error err;
	int r;

	hs_error_clear(&err);
	/* A VM must not outlive the tool that drives it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	r = kl_set_comm(p->process_name, &err);
	if (!r)
		r = kl_run_inproc(p, vms, i, 1, 0, &err);
	shared[i].vm = vms[i];
	shared[i].err = err;
	shared[i].rc = r;
	_exit(r ? 1 : 0);
}

static int kl_run_forked(const struct hs_workload_params *p, struct hs_workload_vm *vms,
			 struct hs_error *err)
{
	size_t sz = sizeof(struct kl_child) * p->nvms;
	struct kl_child *shared;
	pid_t *pids;
	int rc = 0;

	shared = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc(p->nvms, sizeof(*pids));
	if (shared == MAP_FAILED || !pids) {
		free(pids);
		if (shared != MAP_FAILED)
			munmap(shared, sz);
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	}
	for (unsigned int i = 0; i < p->nvms; i++) {
		shared[i].rc = HS_ERR_RUNTIME;
		hs_error_set(&shared[i].err, HS_ERR_RUNTIME, "VM %u: process died", i);
		pids[i] = fork();
		if (pids[i] == 0)
			kl_child_main(p, shared, vms, i);
		if (pids[i] < 0) {
			rc = hs_error_set(err, HS_ERR_RUNTIME, "fork: %s", strerror(errno));
			break;
		}
	}
	for (unsigned int i = 0; i < p->nvms && pids[i] > 0; i++) {
		int status;

		while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR)
			;
		vms[i] = shared[i].vm;
		vms[i].pid = pids[i];
		if (shared[i].rc && !rc) {
			*err = shared[i].err;
			rc = shared[i].rc;
		}
	}
	free(pids);
	munmap(shared, sz);
	return rc;
}

/* ---- public ---- */

int hs_workload_check(struct hs_error *err)
{
	size_t run_size;
	int fd, vm, r;

	r = hs_workload_open_kvm(&fd, &run_size, err);
	if (r)
		return r;
	vm = kl_ioctl(fd, KVM_CREATE_VM, 0);
	if (vm < 0)
		r = kl_kvm_err(err, "KVM_CREATE_VM");
	else
		close(vm);
	close(fd);
	return r;
}

static int kl_params_check(const struct hs_workload_params *p, struct hs_error *err)
{
	if (!p->nvms)
		return hs_error_set(err, HS_ERR_USAGE, "need at least one VM");
	for (unsigned int i = 0; p->seqs && i < p->nvms; i++)
		if (!p->seqs[i].n || p->seqs[i].n > HS_WORKLOAD_MAX_HALTS || !p->seqs[i].ns)
			return hs_error_set(err, HS_ERR_USAGE, "VM %u: gap sequence must hold 1..%llu gaps",
					    i, HS_WORKLOAD_MAX_HALTS);
	if (p->seqs)
		return 0;
	if (!p->halts || p->halts > HS_WORKLOAD_MAX_HALTS)
		return hs_error_set(err, HS_ERR_USAGE, "halts per VM must be 1..%llu",
				    HS_WORKLOAD_MAX_HALTS);
	if (!p->gaps.n)
		return hs_error_set(err, HS_ERR_USAGE, "missing gap pattern");
	return 0;
}

int hs_workload_run(const struct hs_workload_params *p, struct hs_workload_vm *vms,
		    uint64_t *wall_ns, struct hs_error *err)
{
	uint64_t t0 = kl_now();
	int r;

	memset(vms, 0, sizeof(*vms) * p->nvms);
	r = kl_params_check(p, err);
	if (r)
		return r;
	if (p->fork) {
		r = kl_run_forked(p, vms, err);
	} else {
		r = kl_set_comm(p->process_name, err);
		if (!r)
			r = kl_run_inproc(p, vms, 0, p->nvms, 0, err);
	}
	if (wall_ns)
		*wall_ns = kl_now() - t0;
	return r;
}

unsigned int hs_workload_allowed_cpus(int *cpus, unsigned int max)
{
	cpu_set_t set;
	unsigned int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}
