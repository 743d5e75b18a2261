/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_SYSINFO_H
#define HS_SYSINFO_H

#include <stddef.h>
#include <sys/types.h>

#include "../meta.h"
#include "../steal.h"

/*
 * Facts about the running system that a recording keeps: kernel and
 * halt-polling parameters, cpuidle, and thread/process names read from
 * /proc while the threads still exist (tasks.h keeps them for a recording).
 */

/*
 * The record-time facts about this system into m (which this initialises):
 * kernel release, kvm and haltpoll module parameters, cpuidle driver,
 * governor and state names, CPU count. What is not here stays unknown.
 */
void hs_sysinfo_facts(struct hs_meta *m);

/* A small file (sysfs, /proc) into buf, NUL-terminated: its length, or -1 when unreadable. */
ssize_t hs_sysinfo_read(const char *path, char *buf, size_t n);

/* "sysname nodename release version machine" (what trace-cmd stores) and the release alone. */
int hs_sysinfo_uname(char *full, size_t fn, char *release, size_t rn);

/* Thread name and thread group of a live thread; -1 when it is gone. */
int hs_sysinfo_thread(int tid, char *comm, size_t n, int *tgid);

/*
 * VM name of a live VMM process from its command line (vmm.h); empty when
 * there is none. Returns -1 when the process is gone.
 */
int hs_sysinfo_vm_name(int tgid, char *name, size_t n);

/* Thread ids of a live process, up to max; returns how many, or -1 when it is gone. */
int hs_sysinfo_tasks(int pid, int *tids, int max);

/*
 * What each CPU ran so far (user, nice, system, irq, softirq) and what the
 * hypervisor above gave to others while it wanted to run (steal), ns per
 * CPU into t[0..max): how many CPUs were read, -1 when /proc/stat is
 * unreadable. Ticks of USER_HZ, so 10 ms steps.
 */
struct hs_cpu_time {
	uint64_t busy_ns, steal_ns;
};
int hs_sysinfo_cpu_times(struct hs_cpu_time *t, unsigned int max);
/*
 * From before[] to after[] over the CPUs in mask[0..n) (every CPU when
 * mask is NULL), summed into s.
 */
void hs_sysinfo_steal_delta(const struct hs_cpu_time *before, const struct hs_cpu_time *after,
			    const bool *mask, unsigned int n, struct hs_cpu_steal *s);

/* Replaces newlines, carriage returns and tabs so a name fits on one metadata line. */
void hs_sysinfo_clean_name(char *s);

#endif
