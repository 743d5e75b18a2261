/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_META_H
#define HS_META_H

#include <stdbool.h>
#include <stdint.h>

#include "steal.h"

/*
 * Facts about a recording that are not events: where it came from, the
 * kernel and its halt-polling parameters at record time, and what was lost.
 * Unknown numbers are -1 and unknown strings are empty, so that a pasted
 * trace (which carries none of this) is told apart from a zero.
 */
#define HS_META_STR 128
#define HS_IDLE_STATES 8

struct hs_meta {
	char source[4096];		/* file name, or "-" for stdin */
	char format[HS_META_STR];	/* e.g. "haltstat", "trace.dat v7 (zstd)", "text (trace-cmd report)" */
	char kernel_release[HS_META_STR];
	char clock[32];
	char cpuidle_driver[64];
	char cpuidle_governor[64];
	char idle_state_name[HS_IDLE_STATES][32];	/* "POLL", "C1"...; "" unknown */
	char buffer_instance[HS_META_STR]; /* trace-cmd -B NAME the events came from */

	int64_t halt_poll_ns;		/* /sys/module/kvm/parameters/... */
	int64_t halt_poll_ns_grow;
	int64_t halt_poll_ns_grow_start;
	int64_t halt_poll_ns_shrink;

	int64_t guest_halt_poll_ns;	/* /sys/module/haltpoll/parameters/... */
	int64_t guest_halt_poll_grow;
	int64_t guest_halt_poll_grow_start;
	int64_t guest_halt_poll_shrink;
	int guest_halt_poll_allow_shrink; /* 1, 0 or -1 */

	int kvm_formats;		/* kvm event formats in the input: 1, 0, or -1 cannot tell */
	int ncpus;			/* -1 when unknown */
	int hypervisor;			/* the CPUs' hypervisor flag: 1 this is a guest, 0 not, -1 unknown */
	double record_seconds;		/* wall time of the recording, -1 unknown */
	struct hs_cpu_steal steal;	/* over the recording, every CPU summed */

	/* Losses: every reader reports them through hs_account_lost(). */
	uint64_t lost_events;		/* sum of known counts */
	uint64_t lost_unknown_places;	/* pages/markers that lost an unknown count */
	bool lost_known;		/* false when the source cannot tell (pasted text without stats) */

	/* Partial input: what a reader skipped and carried on past. */
	uint64_t skipped_lines;
	uint64_t skipped_pages;
	uint64_t skipped_events;	/* malformed records inside good pages */
	uint64_t clamped_ts;		/* events whose timestamp went backwards on their CPU */
	uint64_t over_limit_events;	/* of vCPU threads or guest CPUs past the account's limits */
};

void hs_meta_init(struct hs_meta *meta);
/* The recording's host is itself a guest: its CPUs' hypervisor flag, or the haltpoll cpuidle driver (which only loads in a KVM guest). */
bool hs_meta_nested(const struct hs_meta *meta);

#endif
