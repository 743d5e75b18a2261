/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_LIVE_H
#define HS_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "../error.h"
#include "../report.h"

/*
 * The live engine behind `haltstat top`: the same events as record, read
 * straight from the ring buffers of a private instance (see capture.h for
 * its lifecycle) and decoded into one accounting per interval. State that
 * spans a boundary (windows, open idle periods) is carried over, so an
 * interval counts what happened in it and nothing twice. Timestamps are
 * CLOCK_MONOTONIC ns (the instance runs the "mono" trace clock).
 */
struct hs_live_opts {
	bool host, guest;		/* kvm / power events; both when neither */
	unsigned int buffer_kib;	/* ring buffer per CPU; 0: 4096 */
	bool cumulative;		/* also keep totals since start (hs_live_total) */
};

struct hs_live_interval {
	unsigned long index;		/* 1, 2, ... */
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC */
	double seconds;
	uint64_t lost_events;		/* overruns in this interval, all CPUs */
	uint64_t lost_total;		/* since start */
	uint64_t events_total;		/* decoded since start */
};

struct hs_live;

int hs_live_start(struct hs_live **lp, const struct hs_live_opts *opts, struct hs_error *err);
/* Requested events that do not exist here. */
unsigned int hs_live_missing(const struct hs_live *l, const char *const **names);
/* Takes in whatever the ring buffers hold now; call it often (every 100 ms or so). */
int hs_live_read(struct hs_live *l, struct hs_error *err);
/*
 * Ends the current interval now and builds its report (rep zeroed by the
 * caller, freed with hs_report_free). Rates in rep are per second of the
 * interval; advice and what-if are not computed.
 */
int hs_live_interval(struct hs_live *l, const struct hs_report_filter *filter,
		     struct hs_report *rep, struct hs_live_interval *info, struct hs_error *err);
/*
 * Everything since start, as of the last interval (counters only grow: what
 * Prometheus wants); needs opts.cumulative. Windows and open idle periods
 * are as last seen, not closed. The what-if and a suggestion (objective
 * balanced) are computed, against the kvm module's parameters at start.
 */
int hs_live_total(struct hs_live *l, const struct hs_report_filter *filter,
		  struct hs_report *rep, struct hs_error *err);
/* Stops tracing, removes the instance, frees everything. Safe on NULL. */
void hs_live_destroy(struct hs_live *l);

uint64_t hs_live_now_ns(void);

#endif
