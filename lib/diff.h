/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_DIFF_H
#define HS_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "report.h"

/*
 * `haltstat diff A B`: two reports (before / after a change) side by side
 * per vCPU, host totals included. vCPUs are matched by VM name and vCPU
 * index (thread ids change when a VM restarts), else by thread id, else by
 * their order within the same VM; what stays unmatched is listed.
 */
enum hs_diff_metric {
	HS_DIFF_HALTS_PER_S,
	HS_DIFF_HIT_RATE,		/* 0..1 */
	HS_DIFF_POLL_NS,		/* ns spent polling in the whole recording */
	HS_DIFF_POLL_CPU_PCT,		/* poll_ns per second of recording, % of one CPU */
	HS_DIFF_P50_NS,
	HS_DIFF_P99_NS,
	HS_DIFF_WINDOW_MEAN_NS,		/* time-weighted halt_poll_ns */
	HS_DIFF_GROWS_PER_S,
	HS_DIFF_SHRINKS_PER_S,
	HS_DIFF_FLAPS_PER_S,
	HS_DIFF_NMETRICS
};

extern const char *const hs_diff_metric_names[HS_DIFF_NMETRICS];

struct hs_diff_value {
	double a, b;
	bool known_a, known_b;		/* false: no halts, or the window never showed */
	double delta;			/* b - a, when both are known */
	double rel;			/* delta / a, when both are known and a != 0 */
	bool has_delta, has_rel;
};

enum hs_diff_match { HS_DIFF_BY_NAME, HS_DIFF_BY_TID, HS_DIFF_BY_ORDER, HS_DIFF_TOTAL };

extern const char *const hs_diff_match_names[4];

struct hs_diff_row {
	char vm[128];
	int vcpu_index;			/* -1 unknown */
	int tid_a, tid_b;
	uint64_t halts_a, halts_b;
	enum hs_diff_match match;
	struct hs_diff_value v[HS_DIFF_NMETRICS];
};

struct hs_diff_unmatched {
	char side;			/* 'a' or 'b' */
	char vm[128];
	int vcpu_index;
	int tid;
	uint64_t halts;
};

struct hs_diff_side {
	char source[4096];
	double duration_s;
	int64_t halt_poll_ns;		/* module parameter at record time, -1 unknown */
	/*
	 * VMs whose window events show a maximum of their own (their VMM sets
	 * KVM_CAP_HALT_POLL, lib/whatif_max.c), and that maximum: -1 none,
	 * -2 when they differ.
	 */
	unsigned int vms_own_max;
	int64_t vm_max_ns;
	unsigned int nvcpus;
	uint64_t lost_events;
};

struct hs_diff {
	struct hs_diff_side a, b;
	struct hs_diff_row host;	/* all vCPUs of each side */
	struct hs_diff_row *rows;
	unsigned int nrows;
	struct hs_diff_unmatched *unmatched;
	unsigned int nunmatched;
};

int hs_diff_build(struct hs_diff *d, const struct hs_report *a, const struct hs_report *b,
		  struct hs_error *err);
void hs_diff_free(struct hs_diff *d);

#endif
