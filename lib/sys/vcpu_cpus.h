/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_VCPU_CPUS_H
#define HS_VCPU_CPUS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The CPUs vCPU threads may run on, from /proc at the start of a recording
 * (record filters the scheduler's events to them): the union of
 * Cpus_allowed_list of the threads whose names carry a vCPU index (vmm.h),
 * or of all their threads when none does, in the processes pids, or when
 * npids is 0 in every process holding a KVM vCPU (an anon_inode:kvm-vcpu
 * file descriptor). cpus[i] is set for CPU i < ncpus. Returns the threads
 * looked at: 0 when there is no vCPU yet (cpus then all false).
 */
int hs_vcpu_cpus(const int *pids, unsigned int npids, bool *cpus, unsigned int ncpus);

/* "0-3,8" into cpus[]; false when it is not a CPU list. */
bool hs_vcpu_cpus_parse(const char *list, bool *cpus, unsigned int ncpus);

/*
 * The tracefs filter "FIELD == 0 || FIELD == 3" for the CPUs set in cpus,
 * into buf; false when it does not fit or no CPU is set.
 */
bool hs_vcpu_cpus_filter(const char *field, const bool *cpus, unsigned int ncpus, char *buf,
			 size_t n);

#endif
