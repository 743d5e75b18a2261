// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/vmm.c: vCPU indices from the thread names VMMs give, VM names from
 * their command lines, and names that only look like them.
 */
#include <fnmatch.h>
#include <string.h>

#include "../../lib/vmm.h"
#include "check.h"

static void test_indices(void)
{
	static const struct {
		const char *comm;
		int index;
	} cases[] = {
		{ "CPU 0/KVM", 0 }, { "CPU 17/KVM", 17 }, { "fc_vcpu 3", 3 }, { "vcpu12", 12 },
		{ "crosvm_vcpu7", 7 }, { "kvm-vcpu-2", 2 },
		/* not vCPU names: another accelerator, trailing text, no digits, a sign */
		{ "CPU 1/TCG", -1 }, { "CPU 1/KVMx", -1 }, { "vcpu3x", -1 }, { "vcpu", -1 },
		{ "CPU /KVM", -1 }, { "fc_vcpu -1", -1 }, { "qemu-system-x86", -1 }, { "", -1 },
		{ "vcpu99999999999", -1 },
	};
	int bad = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (hs_vmm_vcpu_index(cases[i].comm) != cases[i].index) {
			printf("# %s: %d\n", cases[i].comm, hs_vmm_vcpu_index(cases[i].comm));
			bad++;
		}
	CHECK_EQ_U64(bad, 0, "vmm_vcpu_indices");
}

/* Every VMM's own name for a vCPU thread reads back as its index. */
static void test_round_trip(void)
{
	char name[16], glob[32];
	int bad = 0;

	for (int v = 0; v < HS_VMM_COUNT; v++) {
		hs_vmm_vcpu_thread_glob((enum hs_vmm)v, glob, sizeof(glob));
		for (unsigned int i = 0; i < 300; i += 7) {
			hs_vmm_vcpu_thread_name((enum hs_vmm)v, i, name, sizeof(name));
			bad += hs_vmm_vcpu_index(name) != (int)i;
			/* the hand-over filter's glob matches every name (fnmatch as ftrace) */
			bad += fnmatch(glob, name, 0) != 0;
		}
		bad += hs_vmm_from_name(hs_vmm_name((enum hs_vmm)v)) != v;
	}
	CHECK_EQ_U64(bad, 0, "vmm_names_round_trip");
	CHECK(hs_vmm_from_name("vmware") == -1, "vmm_unknown_name");
	hs_vmm_vcpu_thread_glob(HS_VMM_QEMU, glob, sizeof(glob));
	CHECK(!strcmp(glob, "CPU */KVM") && fnmatch(glob, "CPU 1/TCG", 0), "vmm_glob_qemu");
}

static void vm_name(const char *argv, size_t len, const char *want, const char *name)
{
	char got[128];

	hs_vmm_vm_name(argv, len, got, sizeof(got));
	if (strcmp(got, want))
		printf("# got '%s'\n", got);
	CHECK(!strcmp(got, want), name);
}

#define ARGV(s) s, sizeof(s)

static void test_vm_names(void)
{
	vm_name(ARGV("qemu-system-x86_64\0-name\0guest=web1,debug-threads=on\0-m\0002048"), "web1",
		"vmm_qemu_libvirt_name");
	vm_name(ARGV("qemu-kvm\0-name\0db2\0"), "db2", "vmm_qemu_plain_name");
	vm_name(ARGV("qemu-kvm\0-name\0db2,process=x\0"), "db2", "vmm_qemu_name_options");
	vm_name(ARGV("qemu-kvm\0--name=w3\0"), "w3", "vmm_name_equals");
	vm_name(ARGV("firecracker\0--api-sock\0/run/fc.sock\0--id\0fc-vm7\0"), "fc-vm7",
		"vmm_firecracker_id");
	vm_name(ARGV("firecracker\0--id=fc8\0"), "fc8", "vmm_firecracker_id_equals");
	vm_name(ARGV("cloud-hypervisor\0--kernel\0vmlinux\0"), "", "vmm_no_name");
	vm_name(ARGV("qemu-kvm\0-name\0"), "", "vmm_name_without_value");
	vm_name("qemu\0-name\0ab", 12, "", "vmm_unterminated_value");
	vm_name(ARGV("qemu\0-name\0a\tb\nc\0"), "a b c", "vmm_control_characters");
	vm_name("", 0, "", "vmm_empty_cmdline");
}

int main(void)
{
	test_indices();
	test_round_trip();
	test_vm_names();
	return CHECK_DONE();
}
