// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest of the KVM workload (see workload.h) and what runs it: its
 * code and memory image, the VM and vCPU made through /dev/kvm, the vCPU
 * thread that runs it until the guest reports done, and what it counted.
 * Everything that knows the guest's layout and its exits is here: the
 * waker (workload_waker.c) knows only the halt count at KL_SEQ and IRQ0.
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
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "workload_state.h"
#include "../vmm.h"

#define KL_MEM		0x10000
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

/* ---- VM setup ---- */

int hs_workload_open_kvm(int *fd, size_t *run_size, struct hs_error *err)
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

/* Order matters: the irqchip must exist before the vCPU is created. */
int hs_workload_vm_setup(struct kl_vm *vm, int kvm_fd, size_t run_size, int64_t poll_ns,
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

void hs_workload_vm_teardown(struct kl_vm *vm)
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

void *hs_workload_vcpu_main(void *arg)
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

/* ---- what the run counted ---- */

static void kl_vm_stats_end(struct kl_vm *vm)
{
	struct hs_workload_vm *o = vm->out;
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

void hs_workload_vm_collect(struct kl_vm *vm)
{
	kl_vm_stats_end(vm);
	vm->out->halts = kl_seq(vm);
	/* seq counts halts entered; the last increment is the exit check. */
	if (vm->out->halts > vm->limit)
		vm->out->halts = vm->limit;
	else if (vm->out->halts)
		vm->out->halts--;
}
