// SPDX-License-Identifier: GPL-2.0-only
/*
 * hs-fakevmm: a process that looks like a VMM to a tracer, on any machine:
 * threads named as the VMM names its vCPU threads (lib/vmm.h) that sleep
 * and wake for a while, then exit, and a command line with the VMM's VM
 * name option. It creates no VM: its threads emit scheduler events, not
 * kvm ones, which is all that naming the threads of a recording needs.
 * Prints, as one JSON line, its pid and each thread's tid, name and index.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "tool_opts.h"
#include "../../lib/units.h"
#include "../../lib/vmm.h"

#define FAKE_MAX_THREADS 64

struct fake_thread {
	pthread_t thread;
	unsigned int index;
	int vmm;			/* enum hs_vmm, -1: keep the process's name */
	uint64_t run_ns;
	int tid;
	char comm[16];
};

static void *fake_vcpu(void *arg)
{
	struct fake_thread *t = arg;
	struct timespec nap = { 0, 1000000 }, now, end;

	t->tid = gettid();
	if (t->vmm >= 0) {
		hs_vmm_vcpu_thread_name((enum hs_vmm)t->vmm, t->index, t->comm, sizeof(t->comm));
		pthread_setname_np(pthread_self(), t->comm);
	} else {
		prctl(PR_GET_NAME, (unsigned long)t->comm, 0, 0, 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)(t->run_ns / 1000000000u);
	end.tv_nsec += (long)(t->run_ns % 1000000000u);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	do {
		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	return NULL;
}

static void fake_usage(FILE *f)
{
	fprintf(f,
		"usage: hs-fakevmm [-n THREADS] [-t TIME] [--vmm VMM] [--comm NAME]\n"
		"                  [-name NAME] [--id NAME] [-o FILE]\n"
		"  -n THREADS    vCPU-named threads (default 2)\n"
		"  -t TIME       how long they sleep and wake before exiting (default 300ms)\n"
		"  --vmm VMM     name them as qemu (default), firecracker, crosvm, kvmtool,\n"
		"                cloud-hypervisor or plain (the process's name) does\n"
		"  --comm NAME   process name\n"
		"  -name, --id   ignored: the VM's name as QEMU and Firecracker give it\n"
		"  -o FILE       the JSON line here instead of standard output\n");
}

static int fake_print(const char *path, struct fake_thread *t, unsigned int n)
{
	FILE *f = path ? fopen(path, "w") : stdout;

	if (!f) {
		perror(path);
		return 1;
	}
	fprintf(f, "{\"pid\":%d,\"threads\":[", (int)getpid());
	for (unsigned int i = 0; i < n; i++)
		fprintf(f, "%s{\"tid\":%d,\"comm\":\"%s\",\"index\":%u}", i ? "," : "", t[i].tid,
			t[i].comm, t[i].index);
	fprintf(f, "]}\n");
	return (path ? fclose(f) : fflush(f)) ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		TOOL_ARG("vmm", 'V'), TOOL_ARG("comm", 'C'), TOOL_ARG("name", 'N'),
		TOOL_ARG("id", 'N'), TOOL_FLAG("help", 'h'), TOOL_OPTS_END,
	};
	struct fake_thread t[FAKE_MAX_THREADS];
	uint64_t n = 2, run_ns = 300000000;
	const char *out = NULL;
	int vmm = HS_VMM_QEMU, c;

	while ((c = getopt_long_only(argc, argv, "n:t:o:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (hs_parse_u64(optarg, &n) || !n || n > FAKE_MAX_THREADS)
				return fake_usage(stderr), 2;
			break;
		case 't':
			if (hs_parse_duration_ns(optarg, &run_ns))
				return fake_usage(stderr), 2;
			break;
		case 'V':
			vmm = strcmp(optarg, "plain") ? hs_vmm_from_name(optarg) : -1;
			if (vmm < 0 && strcmp(optarg, "plain"))
				return fake_usage(stderr), 2;
			break;
		case 'C':
			prctl(PR_SET_NAME, (unsigned long)optarg, 0, 0, 0);
			break;
		case 'N':
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			fake_usage(stdout);
			return 0;
		default:
			fake_usage(stderr);
			return 2;
		}
	}
	for (unsigned int i = 0; i < n; i++) {
		t[i] = (struct fake_thread){ .index = i, .vmm = vmm, .run_ns = run_ns };
		if (pthread_create(&t[i].thread, NULL, fake_vcpu, &t[i]))
			return perror("pthread_create"), 1;
	}
	for (unsigned int i = 0; i < n; i++)
		pthread_join(t[i].thread, NULL);
	return fake_print(out, t, (unsigned int)n);
}
