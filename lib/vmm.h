/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_VMM_H
#define HS_VMM_H

#include <stddef.h>

/*
 * What the virtual machine monitors tell about themselves through names:
 * the vCPU index in a vCPU thread's name and the VM's name on the VMM's
 * command line. A thread is a vCPU because it emits kvm events; these only
 * label it.
 *
 *   QEMU             "CPU 3/KVM" (with debug-threads=on, as libvirt sets it)
 *                    -name guest=NAME,... | -name NAME
 *   Firecracker      "fc_vcpu 3"                        --id NAME
 *   Cloud Hypervisor "vcpu3"
 *   crosvm           "crosvm_vcpu3"                     --name NAME
 *   kvmtool          "kvm-vcpu-3"                       --name NAME
 */

enum hs_vmm {
	HS_VMM_QEMU,
	HS_VMM_FIRECRACKER,
	HS_VMM_CROSVM,
	HS_VMM_KVMTOOL,
	HS_VMM_CLOUD_HYPERVISOR,
	HS_VMM_COUNT,
};

/* "qemu", "firecracker", "crosvm", "kvmtool", "cloud-hypervisor"; -1 for others. */
int hs_vmm_from_name(const char *name);
const char *hs_vmm_name(enum hs_vmm vmm);

/* The vCPU index a thread name carries, or -1. */
int hs_vmm_vcpu_index(const char *comm);
/* The name that VMM gives the thread of vCPU index (for workloads that stand in for it). */
void hs_vmm_vcpu_thread_name(enum hs_vmm vmm, unsigned int index, char *name, size_t n);
/* A glob (as ftrace filters take it) that every such name matches. */
void hs_vmm_vcpu_thread_glob(enum hs_vmm vmm, char *glob, size_t n);

/*
 * The VM's name from a VMM's command line (argv strings separated by NUL,
 * len bytes in all, as /proc/PID/cmdline holds it); "" when it has none.
 */
void hs_vmm_vm_name(const char *cmdline, size_t len, char *name, size_t n);

#endif
