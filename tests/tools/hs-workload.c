// SPDX-License-Identifier: GPL-2.0-only
/*
 * hs-workload: drive K tiny KVM guests that halt on cue (lib/sys/workload*.c) and
 * print, as one JSON line, what they did: per VM the pid, the vCPU thread,
 * the halts the guest counted, the vCPU thread's CPU time and KVM's own
 * halt-polling statistics of the vCPU (poll hits, polling time).
 */
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool_opts.h"
#include "../../lib/sys/handover.h"
#include "../../lib/sys/workload.h"
#include "../../lib/units.h"
#include "../../lib/vmm.h"

#define MAX_VMS 256

struct wl_opts {
	struct hs_workload_params p;
	const char *gaps;
	const char *poll;
	const char *vcpu_cpus;
	const char *out;
	bool no_pin;
	bool handovers;			/* count them (lib/sys/handover.h) into the JSON */
	int64_t poll_ns[MAX_VMS];
	int cpus[MAX_VMS];
};

static void wl_usage(FILE *f)
{
	fprintf(f,
		"usage: hs-workload [options]\n"
		"  -n, --vms K             VMs, one vCPU each (default 1)\n"
		"  -H, --halts N           halts per VM (default 10000)\n"
		"  -g, --gaps PATTERN      30us,100us,600us (cycled) | period:250us | exp:200us\n"
		"  -s, --seed S            seed for exp: patterns (default 1)\n"
		"  -p, --halt-poll-ns LIST per-VM KVM_CAP_HALT_POLL (one value for all, or one per VM)\n"
		"  -w, --waker-cpu C       CPU of the waker thread (default: the last allowed CPU)\n"
		"  -c, --vcpu-cpus LIST    CPUs for the vCPU threads, used round-robin\n"
		"      --no-pin            pin nothing (polling then rarely succeeds)\n"
		"  -f, --fork              one process per VM, as QEMU\n"
		"      --comm NAME         process name (default hs-workload)\n"
		"      --stall SECONDS     give up when no halt happens for this long (default 10)\n"
		"  -o, --output FILE       JSON result here instead of stdout\n"
		"      --vmm VMM           name the vCPU threads as VMM does: qemu (CPU N/KVM,\n"
		"                          the default), firecracker (fc_vcpu N), crosvm\n"
		"                          (crosvm_vcpuN), kvmtool (kvm-vcpu-N), cloud-hypervisor\n"
		"                          (vcpuN), plain (the process's name, as QEMU without\n"
		"                          debug-threads)\n"
		"      --check             exit 0 when a VM can be made here, 8 (and why) when not\n"
		"      --handovers         count the halts in which a vCPU thread gave its CPU to\n"
		"                          another task (tracefs; not with --vmm plain)\n"
		"  -name NAME, --id NAME   ignored; show in the command line as QEMU's -name\n"
		"                          and Firecracker's --id\n"
		"Exit status: 0 ok, 1 runtime error, 2 usage, 8 KVM unavailable.\n");
}

static int wl_fail(const struct hs_error *err)
{
	fprintf(stderr, "hs-workload: %s\n", err->msg);
	return err->code ? err->code : HS_ERR_RUNTIME;
}

static int wl_usage_err(const char *msg, const char *arg)
{
	fprintf(stderr, "hs-workload: %s '%s'\n", msg, arg ? arg : "");
	return HS_ERR_USAGE;
}

static int wl_poll_list(struct wl_opts *o)
{
	uint64_t v[MAX_VMS];
	char buf[4096], *save = NULL, *tok;
	int n = 0;

	if (strlen(o->poll) >= sizeof(buf))
		return wl_usage_err("list too long", o->poll);
	strcpy(buf, o->poll);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_VMS || hs_parse_u64(tok, &v[n]) || v[n] > UINT32_MAX)
			return wl_usage_err("bad halt_poll_ns", tok);
		n++;
	}
	if (n != 1 && n != (int)o->p.nvms)
		return wl_usage_err("want one halt_poll_ns or one per VM, got", o->poll);
	for (unsigned int i = 0; i < o->p.nvms; i++)
		o->poll_ns[i] = (int64_t)v[n == 1 ? 0 : i];
	o->p.halt_poll_ns = o->poll_ns;
	return 0;
}

/* Waker and vCPUs on different CPUs: a waker sharing the vCPU's CPU ends every poll. */
static int wl_pinning(struct wl_opts *o)
{
	int allowed[MAX_VMS], list[MAX_VMS], n = 0;
	int na = (int)hs_workload_allowed_cpus(allowed, MAX_VMS);

	if (o->no_pin)
		return 0;
	if (o->vcpu_cpus) {
		uint64_t v;
		char buf[4096], *save = NULL, *tok;

		if (strlen(o->vcpu_cpus) >= sizeof(buf))
			return wl_usage_err("list too long", o->vcpu_cpus);
		strcpy(buf, o->vcpu_cpus);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (n == MAX_VMS || hs_parse_u64(tok, &v) || v >= CPU_SETSIZE)
				return wl_usage_err("bad CPU", tok);
			list[n++] = (int)v;
		}
	} else {
		if (na < 2)
			return 0;
		if (o->p.waker_cpu < 0)
			o->p.waker_cpu = allowed[na - 1];
		for (int i = 0; i < na; i++)
			if (allowed[i] != o->p.waker_cpu)
				list[n++] = allowed[i];
	}
	if (!n)
		return 0;
	for (unsigned int i = 0; i < o->p.nvms; i++)
		o->cpus[i] = list[i % n];
	o->p.vcpu_cpus = o->cpus;
	return 0;
}

static int wl_parse(int argc, char **argv, struct wl_opts *o)
{
	static const struct option lopts[] = {
		TOOL_ARG("vms", 'n'), TOOL_ARG("halts", 'H'), TOOL_ARG("gaps", 'g'),
		TOOL_ARG("seed", 's'), TOOL_ARG("halt-poll-ns", 'p'),
		TOOL_ARG("waker-cpu", 'w'), TOOL_ARG("vcpu-cpus", 'c'),
		TOOL_FLAG("no-pin", 'P'), TOOL_FLAG("fork", 'f'), TOOL_ARG("comm", 'C'),
		TOOL_ARG("stall", 'S'), TOOL_ARG("output", 'o'), TOOL_ARG("name", 'N'),
		TOOL_ARG("id", 'N'), TOOL_ARG("vmm", 'V'), TOOL_FLAG("check", 'K'),
		TOOL_FLAG("handovers", 'O'), TOOL_FLAG("help", 'h'), TOOL_OPTS_END,
	};
	struct hs_error err;
	uint64_t v;
	int c;

	o->p.nvms = 1;
	o->p.halts = 10000;
	o->p.waker_cpu = -1;
	o->p.gaps.seed = 1;
	o->gaps = "100us";
	o->p.process_name = "hs-workload";
	while ((c = getopt_long_only(argc, argv, "n:H:g:s:p:w:c:fo:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (hs_parse_u64(optarg, &v) || !v || v > MAX_VMS)
				return wl_usage_err("bad VM count", optarg);
			o->p.nvms = (unsigned int)v;
			break;
		case 'H':
			if (hs_parse_u64(optarg, &o->p.halts))
				return wl_usage_err("bad halt count", optarg);
			break;
		case 'g': o->gaps = optarg; break;
		case 's':
			if (hs_parse_u64(optarg, &o->p.gaps.seed))
				return wl_usage_err("bad seed", optarg);
			break;
		case 'p': o->poll = optarg; break;
		case 'w':
			if (hs_parse_u64(optarg, &v) || v >= CPU_SETSIZE)
				return wl_usage_err("bad CPU", optarg);
			o->p.waker_cpu = (int)v;
			break;
		case 'c': o->vcpu_cpus = optarg; break;
		case 'P': o->no_pin = true; break;
		case 'f': o->p.fork = true; break;
		case 'C': o->p.process_name = optarg; break;
		case 'S':
			if (hs_parse_duration_ns(optarg, &o->p.stall_ns) || !o->p.stall_ns)
				return wl_usage_err("bad stall time", optarg);
			break;
		case 'o': o->out = optarg; break;
		case 'N': break;
		case 'O': o->handovers = true; break;
		case 'K': {
			struct hs_error kerr = { 0 };

			if (hs_workload_check(&kerr))
				exit(wl_fail(&kerr));
			exit(0);
		}
		case 'V':
			o->p.vcpu_names = strcmp(optarg, "plain") ? hs_vmm_from_name(optarg) : -1;
			if (o->p.vcpu_names < 0 && strcmp(optarg, "plain"))
				return wl_usage_err("unknown VMM", optarg);
			break;
		case 'h': wl_usage(stdout); exit(0);
		default: wl_usage(stderr); return HS_ERR_USAGE;
		}
	}
	if (optind < argc)
		return wl_usage_err("unexpected argument", argv[optind]);
	if (o->handovers && o->p.vcpu_names < 0)
		return wl_usage_err("--handovers needs named vCPU threads, not --vmm", "plain");
	if (hs_gap_pattern_parse(o->gaps, &o->p.gaps, &err))
		return wl_fail(&err);
	if (o->poll && wl_poll_list(o))
		return HS_ERR_USAGE;
	return wl_pinning(o);
}

static long long wl_module_poll_ns(void)
{
	FILE *f = fopen("/sys/module/kvm/parameters/halt_poll_ns", "r");
	long long v = -1;

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* KVM's own counters over the run (Linux 5.14+), null when unreadable. */
static void wl_print_stats(FILE *f, const struct hs_workload_vm *v)
{
	if (!v->kvm_stats) {
		fprintf(f, "\"kvm_stats\":null");
		return;
	}
	fprintf(f, "\"kvm_stats\":{\"halt_attempted_poll\":%llu,\"halt_successful_poll\":%llu,"
		"\"halt_poll_invalid\":%llu,\"halt_poll_success_ns\":%llu,"
		"\"halt_poll_fail_ns\":%llu,\"halt_wait_ns\":%llu}",
		(unsigned long long)v->halt_attempted_poll,
		(unsigned long long)v->halt_successful_poll,
		(unsigned long long)v->halt_poll_invalid,
		(unsigned long long)v->halt_poll_success_ns,
		(unsigned long long)v->halt_poll_fail_ns, (unsigned long long)v->halt_wait_ns);
}

/* Per VM its CPU's hand-overs (when pinned alone there: one VM per CPU), and all of them. */
static void wl_print_handovers(FILE *f, const struct wl_opts *o, const uint64_t *cpu,
			       unsigned int ncpus, unsigned int vm)
{
	int c = o->p.vcpu_cpus ? o->p.vcpu_cpus[vm] : -1;
	bool alone = c >= 0 && (unsigned int)c < ncpus;

	for (unsigned int i = 0; alone && i < o->p.nvms; i++)
		alone = i == vm || o->p.vcpu_cpus[i] != c;
	if (!cpu || !alone)
		fprintf(f, ",\"handovers\":null");
	else
		fprintf(f, ",\"handovers\":%llu", (unsigned long long)cpu[c]);
}

static int wl_print(const struct wl_opts *o, const struct hs_workload_vm *vms, uint64_t wall_ns,
		    const uint64_t *cpu_handovers, unsigned int ncpus)
{
	FILE *f = o->out ? fopen(o->out, "w") : stdout;
	uint64_t total = 0;

	if (!f) {
		perror(o->out);
		return HS_ERR_OUTPUT;
	}
	for (unsigned int i = 0; i < o->p.nvms; i++)
		total += vms[i].halts;
	fprintf(f, "{\"vms\":%u,\"halts_per_vm\":%llu,\"gaps\":\"%s\",\"fork\":%s,"
		"\"module_halt_poll_ns\":%lld,\"waker_cpu\":%d,\"wall_ns\":%llu,"
		"\"halts\":%llu,\"halts_per_s\":%.0f,\"vm\":[",
		o->p.nvms, (unsigned long long)o->p.halts, o->gaps, o->p.fork ? "true" : "false",
		wl_module_poll_ns(), o->p.waker_cpu, (unsigned long long)wall_ns,
		(unsigned long long)total, wall_ns ? (double)total * 1e9 / (double)wall_ns : 0.0);
	for (unsigned int i = 0; i < o->p.nvms; i++) {
		fprintf(f, "%s{\"index\":%u,\"pid\":%d,\"tid\":%d,\"comm\":\"%s\",\"cpu\":%d,"
			"\"halts\":%llu,\"irqs\":%llu,\"vcpu_cpu_ns\":%llu,\"halt_poll_ns\":%lld,",
			i ? "," : "", i, vms[i].pid, vms[i].tid, vms[i].comm,
			o->p.vcpu_cpus ? o->p.vcpu_cpus[i] : -1,
			(unsigned long long)vms[i].halts, (unsigned long long)vms[i].irqs,
			(unsigned long long)vms[i].vcpu_cpu_ns, (long long)vms[i].halt_poll_ns);
		wl_print_stats(f, &vms[i]);
		wl_print_handovers(f, o, cpu_handovers, ncpus, i);
		fputc('}', f);
	}
	fprintf(f, "]");
	if (cpu_handovers) {
		uint64_t all = 0;

		for (unsigned int c = 0; c < ncpus; c++)
			all += cpu_handovers[c];
		fprintf(f, ",\"handovers\":%llu", (unsigned long long)all);
	} else {
		fprintf(f, ",\"handovers\":null");
	}
	fprintf(f, "}\n");
	if ((o->out ? fclose(f) : fflush(f)) != 0) {
		perror(o->out ? o->out : "stdout");
		return HS_ERR_OUTPUT;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct wl_opts o;
	struct hs_workload_vm *vms;
	struct hs_error err;
	struct hs_handover *ho = NULL;
	uint64_t wall_ns = 0, *cpu;
	unsigned int ncpus;
	int r;

	hs_error_clear(&err);
	r = wl_parse(argc, argv, &o);
	if (r)
		return r;
	vms = calloc(o.p.nvms, sizeof(*vms));
	if (!vms) {
		fprintf(stderr, "hs-workload: out of memory\n");
		return HS_ERR_RUNTIME;
	}
	if (o.handovers) {
		char glob[64];

		hs_vmm_vcpu_thread_glob((enum hs_vmm)o.p.vcpu_names, glob, sizeof(glob));
		r = hs_handover_start(&ho, glob, &err);
		if (r) {
			free(vms);
			return wl_fail(&err);
		}
	}
	r = hs_workload_run(&o.p, vms, &wall_ns, &err);
	ncpus = ho ? hs_handover_ncpus(ho) : 0;
	cpu = ho ? calloc(ncpus ? ncpus : 1, sizeof(*cpu)) : NULL;
	if (cpu && hs_handover_counts(ho, cpu, ncpus)) {
		fprintf(stderr, "hs-workload: cannot read the hand-over counts\n");
		free(cpu);
		cpu = NULL;
	}
	hs_handover_stop(ho);
	if (!r && ho && !cpu)
		r = hs_error_set(&err, HS_ERR_RUNTIME, "hand-overs not counted");
	if (!r)
		r = wl_print(&o, vms, wall_ns, cpu, ncpus);
	else
		r = wl_fail(&err);
	free(cpu);
	free(vms);
	return r;
}
