/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_KVMSTATS_H
#define HS_KVMSTATS_H

#include <stdbool.h>
#include <stdint.h>

#include "../error.h"

/*
 * A vCPU's halt-polling counters from KVM's binary statistics
 * (KVM_GET_STATS_FD, Linux 5.14+). The layout is self-describing: the
 * header points at name descriptors and a data block, so the counters are
 * found by name at run time and nothing depends on the kernel's struct.
 */
enum hs_kvm_stat {
	HS_KVM_STAT_ATTEMPTED_POLL,	/* halt_attempted_poll */
	HS_KVM_STAT_SUCCESSFUL_POLL,	/* halt_successful_poll */
	HS_KVM_STAT_POLL_INVALID,	/* halt_poll_invalid */
	HS_KVM_STAT_POLL_SUCCESS_NS,	/* halt_poll_success_ns */
	HS_KVM_STAT_POLL_FAIL_NS,	/* halt_poll_fail_ns */
	HS_KVM_STAT_WAIT_NS,		/* halt_wait_ns */
	HS_KVM_STAT_N,
};

struct hs_kvm_stats {
	int fd;
	int64_t off[HS_KVM_STAT_N];	/* byte offset of each value in the fd, -1 absent */
	int exponent[HS_KVM_STAT_N];	/* power of ten of the unit (time: -9 is ns) */
};

extern const char *const hs_kvm_stat_names[HS_KVM_STAT_N];

/* Reads the descriptors of a stats fd (takes ownership of fd, also on failure). */
int hs_kvm_stats_from_fd(struct hs_kvm_stats *s, int fd, struct hs_error *err);
/* KVM_GET_STATS_FD on a vCPU fd, then as above. HS_ERR_KVM when unsupported. */
int hs_kvm_stats_open(struct hs_kvm_stats *s, int vcpu_fd, struct hs_error *err);
/* Current values, times in ns; a counter that was not found reads as 0. */
int hs_kvm_stats_read(const struct hs_kvm_stats *s, uint64_t vals[HS_KVM_STAT_N],
		      struct hs_error *err);
/* True when every counter a hit rate and polling CPU need was found. */
bool hs_kvm_stats_complete(const struct hs_kvm_stats *s);
void hs_kvm_stats_close(struct hs_kvm_stats *s);

#endif
