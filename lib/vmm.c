// SPDX-License-Identifier: GPL-2.0-only
/*
 * vCPU indices from thread names and VM names from command lines, for the
 * VMMs listed in vmm.h. Names are matched whole: a thread called "vcpu3x"
 * or "CPU 1/TCG" carries no index.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "vmm.h"

static const struct {
	const char *name;
	const char *prefix, *suffix;	/* of a vCPU thread's name, around its index */
} vmm_vcpu_names[HS_VMM_COUNT] = {
	[HS_VMM_QEMU] = { "qemu", "CPU ", "/KVM" },
	[HS_VMM_FIRECRACKER] = { "firecracker", "fc_vcpu ", "" },
	[HS_VMM_CROSVM] = { "crosvm", "crosvm_vcpu", "" },
	[HS_VMM_KVMTOOL] = { "kvmtool", "kvm-vcpu-", "" },
	/* last: its bare "vcpuN" would not tell the others apart */
	[HS_VMM_CLOUD_HYPERVISOR] = { "cloud-hypervisor", "vcpu", "" },
};

int hs_vmm_from_name(const char *name)
{
	for (int i = 0; i < HS_VMM_COUNT; i++)
		if (!strcmp(name, vmm_vcpu_names[i].name))
			return i;
	return -1;
}

const char *hs_vmm_name(enum hs_vmm vmm)
{
	return vmm < HS_VMM_COUNT ? vmm_vcpu_names[vmm].name : "";
}

void hs_vmm_vcpu_thread_name(enum hs_vmm vmm, unsigned int index, char *name, size_t n)
{
	if (vmm >= HS_VMM_COUNT)
		vmm = HS_VMM_QEMU;
	snprintf(name, n, "%s%u%s", vmm_vcpu_names[vmm].prefix, index, vmm_vcpu_names[vmm].suffix);
}

void hs_vmm_vcpu_thread_glob(enum hs_vmm vmm, char *glob, size_t n)
{
	if (vmm >= HS_VMM_COUNT)
		vmm = HS_VMM_QEMU;
	snprintf(glob, n, "%s*%s", vmm_vcpu_names[vmm].prefix, vmm_vcpu_names[vmm].suffix);
}

static int vmm_index_between(const char *s, const char *suffix)
{
	long n = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	while (isdigit((unsigned char)*s)) {
		n = n * 10 + (*s++ - '0');
		if (n > INT_MAX)
			return -1;
	}
	return strcmp(s, suffix) ? -1 : (int)n;
}

int hs_vmm_vcpu_index(const char *comm)
{
	for (size_t i = 0; i < sizeof(vmm_vcpu_names) / sizeof(vmm_vcpu_names[0]); i++) {
		size_t n = strlen(vmm_vcpu_names[i].prefix);
		int index;

		if (strncmp(comm, vmm_vcpu_names[i].prefix, n))
			continue;
		index = vmm_index_between(comm + n, vmm_vcpu_names[i].suffix);
		if (index >= 0)
			return index;
	}
	return -1;
}

/* Control characters would break the one-line metadata the name goes into. */
static void vmm_copy_name(char *name, size_t n, const char *v, size_t len)
{
	size_t i;

	if (!n)
		return;
	if (len >= n)
		len = n - 1;
	for (i = 0; i < len; i++)
		name[i] = (unsigned char)v[i] < 0x20 || v[i] == 0x7f ? ' ' : v[i];
	name[i] = '\0';
}

/* QEMU: "guest=NAME,debug-threads=on" (libvirt) or "NAME[,process=...]"; "," escapes as ",,". */
static void vmm_qemu_name(const char *arg, char *name, size_t n)
{
	const char *v = arg, *g = strstr(arg, "guest=");

	if (g && (g == arg || g[-1] == ','))
		v = g + 6;
	vmm_copy_name(name, n, v, strcspn(v, ","));
}

/* "--key VALUE" or "--key=VALUE" at arg; the value, or NULL. */
static const char *vmm_option(const char *arg, const char *next, const char *key)
{
	size_t k = strlen(key);

	if (strncmp(arg, key, k))
		return NULL;
	if (arg[k] == '=')
		return arg + k + 1;
	return arg[k] == '\0' ? next : NULL;
}

void hs_vmm_vm_name(const char *cmdline, size_t len, char *name, size_t n)
{
	const char *p = cmdline, *end = cmdline + len;

	if (n)
		name[0] = '\0';
	while (p < end) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));
		const char *next = nul && nul + 1 < end ? nul + 1 : NULL;
		const char *v;

		if (!nul)
			break;
		if (next && memchr(next, '\0', (size_t)(end - next)) == NULL)
			next = NULL;
		if ((v = vmm_option(p, next, "-name")) || (v = vmm_option(p, next, "--name"))) {
			vmm_qemu_name(v, name, n);
			return;
		}
		if ((v = vmm_option(p, next, "--id"))) {
			vmm_copy_name(name, n, v, strlen(v));
			return;
		}
		p = nul + 1;
	}
}
