// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../error.h"
#include "sysinfo.h"
#include "../vmm.h"

ssize_t hs_sysinfo_read(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -1;
	r = read(fd, buf, n - 1);
	close(fd);
	if (r < 0)
		return -1;
	buf[r] = '\0';
	return r;
}

/* A small text file's first line into buf; -1 when unreadable. */
static int read_line(const char *path, char *buf, size_t n)
{
	if (hs_sysinfo_read(path, buf, n) < 0)
		return HS_ERR_RUNTIME;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* A module parameter as a number: sysfs prints booleans as Y/N. -1 when absent. */
static int64_t param_value(const char *dir, const char *file)
{
	char path[256], val[128], *end;
	long long v;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (read_line(path, val, sizeof(val)) || !val[0])
		return -1;
	if (!strcmp(val, "Y") || !strcmp(val, "N"))
		return val[0] == 'Y';
	v = strtoll(val, &end, 10);
	return *end || v < 0 ? -1 : v;
}

static void sysinfo_params(struct hs_meta *m)
{
	static const char kvm[] = "/sys/module/kvm/parameters";
	static const char hp[] = "/sys/module/haltpoll/parameters";

	m->halt_poll_ns = param_value(kvm, "halt_poll_ns");
	m->halt_poll_ns_grow = param_value(kvm, "halt_poll_ns_grow");
	m->halt_poll_ns_grow_start = param_value(kvm, "halt_poll_ns_grow_start");
	m->halt_poll_ns_shrink = param_value(kvm, "halt_poll_ns_shrink");
	m->guest_halt_poll_ns = param_value(hp, "guest_halt_poll_ns");
	m->guest_halt_poll_grow = param_value(hp, "guest_halt_poll_grow");
	m->guest_halt_poll_grow_start = param_value(hp, "guest_halt_poll_grow_start");
	m->guest_halt_poll_shrink = param_value(hp, "guest_halt_poll_shrink");
	m->guest_halt_poll_allow_shrink = (int)param_value(hp, "guest_halt_poll_allow_shrink");
}

/* cpuidle: the driver, the governor and the names of CPU 0's states (POLL, C1...). */
static void sysinfo_cpuidle(struct hs_meta *m)
{
	static const char idle[] = "/sys/devices/system/cpu/cpuidle";
	char path[128];

	snprintf(path, sizeof(path), "%s/current_driver", idle);
	read_line(path, m->cpuidle_driver, sizeof(m->cpuidle_driver));
	snprintf(path, sizeof(path), "%s/current_governor", idle);
	if (read_line(path, m->cpuidle_governor, sizeof(m->cpuidle_governor))) {
		snprintf(path, sizeof(path), "%s/current_governor_ro", idle);
		read_line(path, m->cpuidle_governor, sizeof(m->cpuidle_governor));
	}
	hs_sysinfo_clean_name(m->cpuidle_driver);
	hs_sysinfo_clean_name(m->cpuidle_governor);
	for (unsigned int s = 0; s < HS_IDLE_STATES; s++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cpuidle/state%u/name", s);
		if (read_line(path, m->idle_state_name[s], sizeof(m->idle_state_name[s])))
			break;
		hs_sysinfo_clean_name(m->idle_state_name[s]);
	}
}

/* The "hypervisor" CPU flag (x86): set by every hypervisor that says it is one. */
static int sysinfo_hypervisor(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[8192];
	int found = -1;

	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		char *save, *w, *colon = strchr(line, ':');

		if (strncmp(line, "flags", 5) || !colon)
			continue;
		found = 0;
		for (w = strtok_r(colon + 1, " \t\n", &save); w && !found;
		     w = strtok_r(NULL, " \t\n", &save))
			found = !strcmp(w, "hypervisor");
	}
	fclose(f);
	return found;
}

void hs_sysinfo_facts(struct hs_meta *m)
{
	char full[512];
	long n = sysconf(_SC_NPROCESSORS_CONF);

	hs_meta_init(m);
	if (hs_sysinfo_uname(full, sizeof(full), m->kernel_release, sizeof(m->kernel_release)))
		m->kernel_release[0] = '\0';
	sysinfo_params(m);
	sysinfo_cpuidle(m);
	m->ncpus = n > 0 && n <= INT32_MAX ? (int)n : -1;
	m->hypervisor = sysinfo_hypervisor();
}

int hs_sysinfo_uname(char *full, size_t fn, char *release, size_t rn)
{
	struct utsname u;

	if (uname(&u))
		return HS_ERR_RUNTIME;
	snprintf(full, fn, "%s %s %s %s %s", u.sysname, u.nodename, u.release, u.version,
		 u.machine);
	snprintf(release, rn, "%s", u.release);
	return 0;
}

void hs_sysinfo_clean_name(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r' || *s == '\t')
			*s = ' ';
}

static int thread_tgid(int tid)
{
	char path[64], buf[512];
	FILE *f;
	int tgid = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f)) {
		if (!strncmp(buf, "Tgid:", 5)) {
			tgid = atoi(buf + 5);
			break;
		}
	}
	fclose(f);
	return tgid;
}

int hs_sysinfo_thread(int tid, char *comm, size_t n, int *tgid)
{
	char path[96];
	int g;

	if (tid <= 0)
		return HS_ERR_RUNTIME;
	g = thread_tgid(tid);
	if (g <= 0)
		return HS_ERR_RUNTIME;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", g, tid);
	if (read_line(path, comm, n))
		return HS_ERR_RUNTIME;
	hs_sysinfo_clean_name(comm);
	*tgid = g;
	return 0;
}

int hs_sysinfo_vm_name(int tgid, char *name, size_t n)
{
	char path[64], buf[16384];
	ssize_t r;
	int fd;

	name[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cmdline", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return HS_ERR_RUNTIME;
	r = read(fd, buf, sizeof(buf));
	close(fd);
	if (r < 0)
		return HS_ERR_RUNTIME;
	hs_vmm_vm_name(buf, (size_t)r, name, n);
	return 0;
}

int hs_sysinfo_tasks(int pid, int *tids, int max)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)) && n < max) {
		int tid = atoi(de->d_name);

		if (tid > 0)
			tids[n++] = tid;
	}
	closedir(d);
	return n;
}

int hs_sysinfo_cpu_times(struct hs_cpu_time *t, unsigned int max)
{
	long hz = sysconf(_SC_CLK_TCK);
	unsigned long long tick = hz > 0 ? 1000000000ull / (unsigned long long)hz : 0;
	FILE *f = fopen("/proc/stat", "re");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	memset(t, 0, max * sizeof(*t));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[8];
		unsigned int cpu;

		/* cpuN user nice system idle iowait irq softirq steal ...; not the "cpu " sum */
		if (strncmp(line, "cpu", 3) || !isdigit((unsigned char)line[3]))
			continue;
		if (sscanf(line, "cpu%u %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9 || cpu >= max)
			continue;
		t[cpu].busy_ns = (v[0] + v[1] + v[2] + v[5] + v[6]) * tick;
		t[cpu].steal_ns = v[7] * tick;
		if ((int)cpu + 1 > n)
			n = (int)cpu + 1;
	}
	fclose(f);
	return n;
}

void hs_sysinfo_steal_delta(const struct hs_cpu_time *before, const struct hs_cpu_time *after,
			    const bool *mask, unsigned int n, struct hs_cpu_steal *s)
{
	s->steal_ns = s->busy_ns = 0;
	s->cpus = 0;
	for (unsigned int c = 0; c < n; c++) {
		if (mask && !mask[c])
			continue;
		/* a CPU that went offline and back restarts its counts */
		if (after[c].steal_ns >= before[c].steal_ns)
			s->steal_ns += (int64_t)(after[c].steal_ns - before[c].steal_ns);
		if (after[c].busy_ns >= before[c].busy_ns)
			s->busy_ns += (int64_t)(after[c].busy_ns - before[c].busy_ns);
		s->cpus++;
	}
}
