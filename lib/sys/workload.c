// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tiny real-mode VMs that halt on cue (see kvmload.h).
 *
 * Guest memory (one 64 KiB slot at GPA 0):
 *   0x0000  real-mode IVT: vector 8 (8259 IRQ0 at base 8) -> wake handler,
 *           vector 15 (8259 spurious) -> iret, everything else -> fault stub
 *   0x0500  u32 seq: halts entered so far; the host watches it
 *   0x0504  u32 limit: halts to do
 *   0x1000  code, 0xf000 stack
 *
 * The wake handler drops its interrupt frame and jumps back to the loop head
 * with IF still clear, so an interrupt can only be taken at `sti; hlt`: each
 * raised IRQ ends exactly one halt, and the waker raises the next one only
 * after it saw seq move.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"
#include "kvmstats.h"
#include "../units.h"
#include "../vmm.h"

#define KL_MEM		0x10000
#define KL_SEQ		0x0500
#define KL_LIMIT	0x0504
#define KL_CODE		0x1000
#define KL_STACK	0xf000
#define KL_PORT		0xe0		/* guest -> host: 0 done, 1 fault */
#define KL_VEC_IRQ0	8
#define KL_VEC_SPURIOUS	15
#define KL_TSS_ADDR	0xfffbd000ul	/* KVM API documentation's example, outside our slot */

/*
 * 16-bit code at KL_CODE (assembled with GNU as, .code16):
 *  00 cli; program the master 8259: ICW1 0x11, ICW2 base 0x08, ICW3 0x04,
 *     ICW4 0x03 (8086, auto-EOI: no EOI write per wake), OCW1 0xfe (IRQ0 only)
 *  15 top:  incl 0x500; mov 0x500,%eax; cmp 0x504,%eax; ja done
 *  25       sti; hlt; jmp top
 *  29 done: mov $0,%al; out %al,$0xe0; jmp done
 *  2f wake: add $6,%sp; jmp top
 *  34 fault: mov $1,%al; out %al,$0xe0; jmp fault
 *  3a iret
 */
static const uint8_t kl_code[] = {
	0xfa, 0xb0, 0x11, 0xe6, 0x20, 0xb0, 0x08, 0xe6, 0x21, 0xb0, 0x04, 0xe6,
	0x21, 0xb0, 0x03, 0xe6, 0x21, 0xb0, 0xfe, 0xe6, 0x21, 0x66, 0xff, 0x06,
	0x00, 0x05, 0x66, 0xa1, 0x00, 0x05, 0x66, 0x3b, 0x06, 0x04, 0x05, 0x77,
	0x04, 0xfb, 0xf4, 0xeb, 0xec, 0xb0, 0x00, 0xe6, 0xe0, 0xeb, 0xfa, 0x83,
	0xc4, 0x06, 0xeb, 0xe1, 0xb0, 0x01, 0xe6, 0xe0, 0xeb, 0xfa, 0xcf,
};

#define KL_OFF_WAKE	0x2f
#define KL_OFF_FAULT	0x34
#define KL_OFF_IRET	0x3a

enum { KL_RUNNING, KL_FINISHED, KL_FAILED };

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
	bool armed;
	bool done;
	/* shared with the vCPU thread */
	atomic_int state;
	atomic_bool stop;
	struct hs_error err;
	struct hs_kvmload_vm *out;
};

struct kl_group {
	struct kl_vm *vms;
	unsigned int n;
	int waker_cpu;
	uint64_t stall_ns;
	const volatile sig_atomic_t *interrupted;
	struct hs_error err;
	int rc;
};

/* ---- helpers ---- */

static uint64_t kl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void kl_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static int kl_ioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do
		r = ioctl(fd, req, arg);
	while (r < 0 && errno == EINTR);
	return r;
}

static int kl_kvm_err(struct hs_error *err, const char *what)
{
	return hs_error_set(err, HS_ERR_KVM, "%s: %s", what, strerror(errno));
}

static void kl_kick_handler(int sig)
{
	(void)sig;
}

static int kl_open_kvm(int *fd, size_t *run_size, struct hs_error *err)
{
	int r;

	*fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (*fd < 0)
		return hs_error_set(err, HS_ERR_KVM,
				    "cannot open /dev/kvm: %s (is KVM enabled on this host?)",
				    strerror(errno));
	r = ioctl(*fd, KVM_GET_API_VERSION, 0);
	if (r != KVM_API_VERSION) {
		close(*fd);
		return hs_error_set(err, HS_ERR_KVM, "/dev/kvm: API version %d, want %d",
				    r, KVM_API_VERSION);
	}
	r = ioctl(*fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (r < (int)sizeof(struct kvm_run)) {
		kl_kvm_err(err, "KVM_GET_VCPU_MMAP_SIZE");
		close(*fd);
		return HS_ERR_KVM;
	}
	*run_size = (size_t)r;
	return 0;
}

/* ---- VM setup ---- */

static void kl_ivt_set(uint8_t *mem, unsigned int vec, uint16_t off)
{
	mem[vec * 4 + 0] = off & 0xff;
	mem[vec * 4 + 1] = off >> 8;
	mem[vec * 4 + 2] = 0;		/* segment 0 */
	mem[vec * 4 + 3] = 0;
}

static void kl_guest_image(uint8_t *mem, uint32_t limit)
{
	for (unsigned int v = 0; v < 256; v++)
		kl_ivt_set(mem, v, KL_CODE + KL_OFF_FAULT);
	kl_ivt_set(mem, KL_VEC_IRQ0, KL_CODE + KL_OFF_WAKE);
	kl_ivt_set(mem, KL_VEC_SPURIOUS, KL_CODE + KL_OFF_IRET);
	memcpy(mem + KL_CODE, kl_code, sizeof(kl_code));
	__atomic_store_n((uint32_t *)(mem + KL_SEQ), 0, __ATOMIC_RELAXED);
	__atomic_store_n((uint32_t *)(mem + KL_LIMIT), limit, __ATOMIC_RELAXED);
}

static void kl_seg_real(struct kvm_segment *s)
{
	s->base = 0;
	s->selector = 0;
}

static int kl_vcpu_regs(struct kl_vm *vm, struct hs_error *err)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs;

	if (kl_ioctl(vm->vcpu_fd, KVM_GET_SREGS, &sregs) < 0)
		return kl_kvm_err(err, "KVM_GET_SREGS");
	kl_seg_real(&sregs.cs);
	kl_seg_real(&sregs.ds);
	kl_seg_real(&sregs.es);
	kl_seg_real(&sregs.fs);
	kl_seg_real(&sregs.gs);
	kl_seg_real(&sregs.ss);
	sregs.idt.base = 0;
	sregs.idt.limit = 0x3ff;
	if (kl_ioctl(vm->vcpu_fd, KVM_SET_SREGS, &sregs) < 0)
		return kl_kvm_err(err, "KVM_SET_SREGS");
	memset(&regs, 0, sizeof(regs));
	regs.rip = KL_CODE;
	regs.rsp = KL_STACK;
	regs.rflags = 0x2;		/* bit 1 is reserved-one; IF clear */
	if (kl_ioctl(vm->vcpu_fd, KVM_SET_REGS, &regs) < 0)
		return kl_kvm_err(err, "KVM_SET_REGS");
	return 0;
}

static int kl_vm_poll_cap(struct kl_vm *vm, int64_t ns, struct hs_error *err)
{
	struct kvm_enable_cap cap;

	if (ns < 0)
		return 0;
	if (ns > UINT32_MAX)
		return hs_error_set(err, HS_ERR_USAGE, "halt_poll_ns %lld is above 2^32-1",
				    (long long)ns);
	if (ioctl(vm->vm_fd, KVM_CHECK_EXTENSION, KVM_CAP_HALT_POLL) <= 0)
		return hs_error_set(err, HS_ERR_KVM,
				    "this kernel has no KVM_CAP_HALT_POLL (needs Linux 5.8+)");
	memset(&cap, 0, sizeof(cap));
	cap.cap = KVM_CAP_HALT_POLL;
	cap.args[0] = (uint64_t)ns;
	if (kl_ioctl(vm->vm_fd, KVM_ENABLE_CAP, &cap) < 0)
		return kl_kvm_err(err, "KVM_ENABLE_CAP(KVM_CAP_HALT_POLL)");
	return 0;
}

static int kl_vm_memory(struct kl_vm *vm, struct hs_error *err)
{
	struct kvm_userspace_memory_region region;

	vm->mem = mmap(NULL, KL_MEM, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (vm->mem == MAP_FAILED) {
		vm->mem = NULL;
		return hs_error_set(err, HS_ERR_RUNTIME, "guest memory: %s", strerror(errno));
	}
	kl_guest_image(vm->mem, vm->limit);
	memset(&region, 0, sizeof(region));
	region.slot = 0;
	region.guest_phys_addr = 0;
	region.memory_size = KL_MEM;
	region.userspace_addr = (uint64_t)(uintptr_t)vm->mem;
	if (kl_ioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		return kl_kvm_err(err, "KVM_SET_USER_MEMORY_REGION");
	return 0;
}

/*
 * The statistics are optional (Linux 5.14+): without them the run still
 * counts halts and CPU time, and out->kvm_stats stays false.
 */
static void kl_vm_stats_start(struct kl_vm *vm)
{
	struct hs_error e;

	if (hs_kvm_stats_open(&vm->stats, vm->vcpu_fd, &e))
		return;
	if (!hs_kvm_stats_complete(&vm->stats) || hs_kvm_stats_read(&vm->stats, vm->stats0, &e))
		hs_kvm_stats_close(&vm->stats);
}

static void kl_vm_stats_end(struct kl_vm *vm)
{
	struct hs_kvmload_vm *o = vm->out;
	uint64_t v[HS_KVM_STAT_N], d[HS_KVM_STAT_N];
	struct hs_error e;

	if (vm->stats.fd < 0 || hs_kvm_stats_read(&vm->stats, v, &e))
		return;
	for (unsigned int i = 0; i < HS_KVM_STAT_N; i++)
		d[i] = v[i] >= vm->stats0[i] ? v[i] - vm->stats0[i] : 0;
	o->halt_attempted_poll = d[HS_KVM_STAT_ATTEMPTED_POLL];
	o->halt_successful_poll = d[HS_KVM_STAT_SUCCESSFUL_POLL];
	o->halt_poll_invalid = d[HS_KVM_STAT_POLL_INVALID];
	o->halt_poll_success_ns = d[HS_KVM_STAT_POLL_SUCCESS_NS];
	o->halt_poll_fail_ns = d[HS_KVM_STAT_POLL_FAIL_NS];
	o->halt_wait_ns = d[HS_KVM_STAT_WAIT_NS];
	o->kvm_stats = true;
}

/* Order matters: the irqchip must exist before the vCPU is created. */
static int kl_vm_setup(struct kl_vm *vm, int kvm_fd, size_t run_size, int64_t poll_ns,
		       struct hs_error *err)
{
	void *run;
	int r;

	vm->vm_fd = kl_ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm->vm_fd < 0)
		return kl_kvm_err(err, "KVM_CREATE_VM");
	r = kl_vm_poll_cap(vm, poll_ns, err);
	if (r)
		return r;
	if (kl_ioctl(vm->vm_fd, KVM_SET_TSS_ADDR, (void *)KL_TSS_ADDR) < 0)
		return kl_kvm_err(err, "KVM_SET_TSS_ADDR");
	if (kl_ioctl(vm->vm_fd, KVM_CREATE_IRQCHIP, 0) < 0)
		return kl_kvm_err(err, "KVM_CREATE_IRQCHIP");
	r = kl_vm_memory(vm, err);
	if (r)
		return r;
	vm->vcpu_fd = kl_ioctl(vm->vm_fd, KVM_CREATE_VCPU, 0);
	if (vm->vcpu_fd < 0)
		return kl_kvm_err(err, "KVM_CREATE_VCPU");
	run = mmap(NULL, run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vm->vcpu_fd, 0);
	if (run == MAP_FAILED)
		return kl_kvm_err(err, "mmap(vcpu)");
	vm->run = run;
	vm->run_size = run_size;
	kl_vm_stats_start(vm);
	return kl_vcpu_regs(vm, err);
}

static void kl_vm_teardown(struct kl_vm *vm)
{
	hs_kvm_stats_close(&vm->stats);
	if (vm->run)
		munmap(vm->run, vm->run_size);
	if (vm->vcpu_fd >= 0)
		close(vm->vcpu_fd);
	if (vm->mem)
		munmap(vm->mem, KL_MEM);
	if (vm->vm_fd >= 0)
		close(vm->vm_fd);
	vm->run = NULL;
	vm->mem = NULL;
	vm->vcpu_fd = vm->vm_fd = -1;
}

/* ---- vCPU thread ---- */

static uint64_t kl_thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int kl_pin_self(int cpu, struct hs_error *err)
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

/* Returns 0 when the guest reported done, else fills vm->err. */
static int kl_exit_io(struct kl_vm *vm)
{
	struct kvm_run *run = vm->run;
	uint8_t val;

	if (run->io.direction != KVM_EXIT_IO_OUT || run->io.port != KL_PORT || run->io.size != 1)
		return hs_error_set(&vm->err, HS_ERR_KVM, "VM %u: unexpected port I/O 0x%x",
				    vm->index, run->io.port);
	val = *((uint8_t *)run + run->io.data_offset);
	if (val != 0)
		return hs_error_set(&vm->err, HS_ERR_KVM,
				    "VM %u: guest took an unexpected interrupt or exception",
				    vm->index);
	return 0;
}

static int kl_vcpu_loop(struct kl_vm *vm)
{
	for (;;) {
		if (atomic_load(&vm->stop))
			return hs_error_set(&vm->err, HS_ERR_RUNTIME, "VM %u: stopped", vm->index);
		if (ioctl(vm->vcpu_fd, KVM_RUN, 0) < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return hs_error_set(&vm->err, HS_ERR_KVM, "VM %u: KVM_RUN: %s",
					    vm->index, strerror(errno));
		}
		switch (vm->run->exit_reason) {
		case KVM_EXIT_IO:
			return kl_exit_io(vm);
		case KVM_EXIT_INTR:
			continue;
		case KVM_EXIT_INTERNAL_ERROR:
			return hs_error_set(&vm->err, HS_ERR_KVM,
					    "VM %u: KVM internal error, suberror %u",
					    vm->index, vm->run->internal.suberror);
		case KVM_EXIT_FAIL_ENTRY:
			return hs_error_set(&vm->err, HS_ERR_KVM,
					    "VM %u: VM entry failed, reason 0x%llx", vm->index,
					    (unsigned long long)vm->run->fail_entry.hardware_entry_failure_reason);
		default:
			return hs_error_set(&vm->err, HS_ERR_KVM, "VM %u: unexpected exit %u",
					    vm->index, vm->run->exit_reason);
		}
	}
}

static void *kl_vcpu_main(void *arg)
{
	struct kl_vm *vm = arg;
	uint64_t cpu0;
	int r;

	vm->out->tid = gettid();
	/* Set before the first halt so the tracer sees the final name. */
	r = 0;
	if (vm->vcpu_names >= 0) {
		hs_vmm_vcpu_thread_name((enum hs_vmm)vm->vcpu_names, vm->index % 100000,
					vm->out->comm, sizeof(vm->out->comm));
		r = pthread_setname_np(pthread_self(), vm->out->comm);
	} else if (prctl(PR_GET_NAME, (unsigned long)vm->out->comm, 0, 0, 0)) {
		r = errno;
	}
	if (r)
		r = hs_error_set(&vm->err, HS_ERR_RUNTIME, "cannot name thread: %s", strerror(r));
	if (!r)
		r = kl_pin_self(vm->cpu, &vm->err);
	cpu0 = kl_thread_cpu_ns();
	if (!r)
		r = kl_vcpu_loop(vm);
	vm->out->vcpu_cpu_ns = kl_thread_cpu_ns() - cpu0;
	atomic_store(&vm->state, r ? KL_FAILED : KL_FINISHED);
	return NULL;
}

/* ---- waker ---- */

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

/*
 * One look at one VM. Returns -1 on error, else 0; sets *busy while the VM
 * needs watching closely and lowers *next to its next deadline.
 */
static int kl_waker_step(struct kl_group *g, struct kl_vm *vm, uint64_t now,
			 uint64_t *next, bool *busy, bool *progress)
{
	int st = atomic_load(&vm->state);
	uint32_t seq;

	if (st == KL_FAILED) {
		g->err = vm->err;
		return -1;
	}
	seq = __atomic_load_n((uint32_t *)(vm->mem + KL_SEQ), __ATOMIC_ACQUIRE);
	if (seq != vm->seen) {
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
	return kl_irq0(vm, &g->err) ? -1 : 0;
}

static void kl_group_stop(struct kl_group *g)
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
				return -1;
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

static void *kl_waker_main(void *arg)
{
	struct kl_group *g = arg;

	/* A nameless waker is only cosmetic: its failure is not an error. */
	pthread_setname_np(pthread_self(), "hs-waker");
	if (kl_pin_self(g->waker_cpu, &g->err) || kl_waker_loop(g))
		g->rc = g->err.code ? g->err.code : HS_ERR_RUNTIME;
	if (g->rc)
		kl_group_stop(g);
	return NULL;
}

/* ---- running a group of VMs in this process ---- */

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
		int r = pthread_create(&vm->thread, NULL, kl_vcpu_main, vm);

		if (r) {
			kl_group_stop(g);
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
	int r = pthread_create(&waker, NULL, kl_waker_main, g);

	if (r) {
		kl_group_stop(g);
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
		kl_vm_stats_end(vm);
		vm->out->halts = __atomic_load_n((uint32_t *)(vm->mem + KL_SEQ), __ATOMIC_ACQUIRE);
		/* seq counts halts entered; the last increment is the exit check. */
		if (vm->out->halts > vm->limit)
			vm->out->halts = vm->limit;
		else if (vm->out->halts)
			vm->out->halts--;
	}
	return r ? HS_ERR_RUNTIME : g->rc;
}

static int kl_group_run(struct kl_group *g, const int64_t *poll, struct hs_error *err)
{
	size_t run_size = 0;
	int kvm_fd, r;

	r = kl_open_kvm(&kvm_fd, &run_size, err);
	if (r)
		return r;
	for (unsigned int i = 0; i < g->n && !r; i++) {
		g->vms[i].out->halt_poll_ns = poll ? poll[i] : -1;
		r = kl_vm_setup(&g->vms[i], kvm_fd, run_size, poll ? poll[i] : -1, err);
	}
	if (!r)
		r = kl_signal_setup(err);
	if (!r)
		r = kl_group_start(g, err);
	if (!r)
		r = kl_group_join(g, err);
	for (unsigned int i = 0; i < g->n; i++)
		kl_vm_teardown(&g->vms[i]);
	close(kvm_fd);
	return r;
}

static void kl_vm_init(struct kl_vm *vm, const struct hs_kvmload_params *p, unsigned int index,
		       unsigned int stream, struct hs_kvmload_vm *out)
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

static int kl_run_inproc(const struct hs_kvmload_params *p, struct hs_kvmload_vm *vms,
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
	struct hs_kvmload_vm vm;
	struct hs_error err;
	int rc;
};

static void kl_child_main(const struct hs_kvmload_params *p, struct kl_child *shared,
			  struct hs_kvmload_vm *vms, unsigned int i)
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

static int kl_run_forked(const struct hs_kvmload_params *p, struct hs_kvmload_vm *vms,
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

int hs_kvmload_check(struct hs_error *err)
{
	size_t run_size;
	int fd, vm, r;

	r = kl_open_kvm(&fd, &run_size, err);
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

static int kl_params_check(const struct hs_kvmload_params *p, struct hs_error *err)
{
	if (!p->nvms)
		return hs_error_set(err, HS_ERR_USAGE, "need at least one VM");
	for (unsigned int i = 0; p->seqs && i < p->nvms; i++)
		if (!p->seqs[i].n || p->seqs[i].n > HS_KVMLOAD_MAX_HALTS || !p->seqs[i].ns)
			return hs_error_set(err, HS_ERR_USAGE, "VM %u: gap sequence must hold 1..%llu gaps",
					    i, HS_KVMLOAD_MAX_HALTS);
	if (p->seqs)
		return 0;
	if (!p->halts || p->halts > HS_KVMLOAD_MAX_HALTS)
		return hs_error_set(err, HS_ERR_USAGE, "halts per VM must be 1..%llu",
				    HS_KVMLOAD_MAX_HALTS);
	if (!p->gaps.n)
		return hs_error_set(err, HS_ERR_USAGE, "missing gap pattern");
	return 0;
}

int hs_kvmload_run(const struct hs_kvmload_params *p, struct hs_kvmload_vm *vms,
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

unsigned int hs_kvmload_allowed_cpus(int *cpus, unsigned int max)
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
