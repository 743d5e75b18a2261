/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_TOP_OUTPUT_H
#define HS_TOP_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../../lib/report.h"

/*
 * One interval of `haltstat top`: the interval's report plus what the
 * screen needs around it. Writers lay it out; cmd/top.c decides the order.
 */
struct hs_top_view {
	const struct hs_report *rep;	/* its rates are per second of the interval (span_s) */
	const unsigned int *order;	/* rep->vcpus indexes, display order */
	const unsigned int *vm_order;	/* rep->vms indexes, display order */
	unsigned long interval;		/* 1, 2, ... */
	double seconds;			/* length of this interval */
	double wall_ts;			/* end of the interval, seconds since the epoch */
	uint64_t lost_events, lost_total;
	const char *sort;		/* sort key name */
	unsigned int rows, cols;	/* terminal size; 0: unlimited */
	bool color;
	const char *const *missing;	/* requested events that do not exist here */
	unsigned int nmissing;
};

/* The full-screen text view (cursor home, lines cleared; no screen switching). */
int hs_top_write_text(FILE *out, const struct hs_top_view *v);
/* One JSON document on one line ("haltstat.top/1"), for NDJSON streams. */
int hs_top_write_json(FILE *out, const struct hs_top_view *v);

#endif
