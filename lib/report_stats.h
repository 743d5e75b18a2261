/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_REPORT_STATS_H
#define HS_REPORT_STATS_H

#include <stdint.h>

#include "account.h"
#include "report.h"

/* Window figures summed over several threads: time-weighted mean, largest last value. */
struct hs_window_sum {
	double area;
	uint64_t time;
	int64_t last;
};

/* A vCPU's counters into s (a row, or a sum of rows), polling CPU aside. */
void hs_stats_counters(struct hs_halt_stats *s, const struct hs_vcpu_acct *v);
/* A vCPU's polling CPU, which nothing may show above its own span. */
void hs_stats_poll(struct hs_halt_stats *s, const struct hs_vcpu_acct *v);
/* Whether the polling CPU is called an upper bound (over 1% of it is). */
void hs_stats_poll_bound(struct hs_halt_stats *s);
/* Sums of the vCPUs' (clamped) polling CPU, and the span they cover. */
void hs_stats_poll_add(struct hs_halt_stats *into, const struct hs_halt_stats *from);
/* The shares of the summed contention counters: unknown without a tracked halt. */
void hs_stats_contention(struct hs_halt_stats *s);
/* Sum, extremes, mean, quantiles and hit rate from the halt-duration histogram. */
void hs_stats_hist(struct hs_halt_stats *s, const struct hs_hist *h);
void hs_window_sum_add(struct hs_window_sum *w, const struct hs_vcpu_acct *v);
void hs_window_sum_put(struct hs_halt_stats *s, const struct hs_window_sum *w);
void hs_log2_add(struct hs_log2_hist *into, const struct hs_log2_hist *from);
/*
 * The per-second figures (rates, polling CPU, guest shares) over seconds:
 * a report of a recording uses the events' span, a live view its interval.
 */
void hs_report_rates(struct hs_report *rep, double seconds);

#endif
