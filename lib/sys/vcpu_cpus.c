// SPDX-License-Identifier: GPL-2.0-only
/* Where vCPU threads may run, from /proc (vcpu_cpus.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysinfo.h"
#include "vcpu_cpus.h"
#include "../vmm.h"

#define VC_MAX_TIDS 4096

bool hs_vcpu_cpus_parse(const char *s, bool *cpus, unsigned int ncpus)
{
	bool any = false;

	while (*s && *s != '\n') {
		char *e;
		unsigned long a = strtoul(s, &e, 10), b = a;

		if (e == s)
			return false;
		if (*e == '-') {
			s = e + 1;
			b = strtoul(s, &e, 10);
			if (e == s || b < a)
				return false;
		}
		for (unsigned long i = a; i <= b && i < ncpus; i++)
			cpus[i] = any = true;
		s = e;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return false;
	}
	return any;
}

/* Cpus_allowed_list of one thread into cpus (or'ed in); false when unreadable. */
static bool vc_thread_cpus(int pid, int tid, bool *cpus, unsigned int ncpus)
{
	char path[64], buf[4096];
	const char *l;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	if (hs_sysinfo_read(path, buf, sizeof(buf)) < 0)
		return false;
	l = strstr(buf, "\nCpus_allowed_list:");
	if (!l)
		return false;
	l += strlen("\nCpus_allowed_list:");
	l += strspn(l, " \t");
	return hs_vcpu_cpus_parse(l, cpus, ncpus);
}

/* The threads of pid that name a vCPU, or all when none does. */
static int vc_process(int pid, bool *cpus, unsigned int ncpus)
{
	int *tids = malloc(sizeof(*tids) * VC_MAX_TIDS);
	int n = tids ? hs_sysinfo_tasks(pid, tids, VC_MAX_TIDS) : 0, named = 0, seen = 0, g;
	char comm[64];

	for (int i = 0; i < n; i++) {
		if (hs_sysinfo_thread(tids[i], comm, sizeof(comm), &g) || hs_vmm_vcpu_index(comm) < 0)
			continue;
		named++;
		seen += vc_thread_cpus(pid, tids[i], cpus, ncpus);
	}
	for (int i = 0; !named && i < n; i++)
		seen += vc_thread_cpus(pid, tids[i], cpus, ncpus);
	free(tids);
	return seen;
}

/* A process holding a vCPU file descriptor. */
static bool vc_has_vcpu_fd(int pid)
{
	char path[64], link[64];
	struct dirent *d;
	bool found = false;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	dir = opendir(path);
	if (!dir)
		return false;
	while (!found && (d = readdir(dir))) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/fd/%.16s", pid, d->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			found = !strncmp(link, "anon_inode:kvm-vcpu", 19);
		}
	}
	closedir(dir);
	return found;
}

int hs_vcpu_cpus(const int *pids, unsigned int npids, bool *cpus, unsigned int ncpus)
{
	struct dirent *d;
	int seen = 0;
	DIR *proc;

	memset(cpus, 0, sizeof(*cpus) * ncpus);
	if (npids) {
		for (unsigned int i = 0; i < npids; i++)
			seen += vc_process(pids[i], cpus, ncpus);
		return seen;
	}
	proc = opendir("/proc");
	if (!proc)
		return 0;
	while ((d = readdir(proc))) {
		int pid = atoi(d->d_name);

		if (pid > 0 && vc_has_vcpu_fd(pid))
			seen += vc_process(pid, cpus, ncpus);
	}
	closedir(proc);
	return seen;
}

bool hs_vcpu_cpus_filter(const char *field, const bool *cpus, unsigned int ncpus, char *buf,
			 size_t n)
{
	size_t used = 0;

	if (!n)
		return false;
	buf[0] = '\0';
	for (unsigned int i = 0; i < ncpus; i++) {
		int w;

		if (!cpus[i])
			continue;
		w = snprintf(buf + used, n - used, "%s%s == %u", used ? " || " : "", field, i);
		if (w < 0 || (size_t)w >= n - used)
			return false;
		used += (size_t)w;
	}
	return used > 0;
}
