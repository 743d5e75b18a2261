/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_TRACEDAT_SPLIT_H
#define HS_TRACEDAT_SPLIT_H

#include <stdbool.h>
#include <stdint.h>

#include "tracedat_file.h"
#include "tracedat_internal.h"

/*
 * A recording read in two halves of its time, one thread each
 * (tracedat_split.c). The first reader takes every CPU's records up to
 * the first whose raw time stamp is at or past the cut; the second starts
 * each CPU a stretch before the cut, so that its front (the runqueues and
 * the vCPU threads' sleeps and wakes) is rebuilt by then, and keeps what
 * passes from the cut on. Both note where their cursors stand at the cut
 * (struct hs_td_cut): only where these are the same, and the fronts agree
 * (hs_sink.second_join), does the second's part stand for the rest of the
 * first's; else the first reads on alone.
 */
#define HS_TD_CUT_QUEUE 32	/* TD_QUEUE */

struct hs_td_cut_cpu {
	bool present;			/* the CPU has records from the cut on */
	uint64_t page;			/* the next page's offset */
	uint64_t left;			/* bytes of the page's records not decoded yet */
	uint64_t walk_ts, last_ts;	/* the page walk's time, the clamp's */
	uint64_t lost, lost_unknown;	/* losses not reported yet */
	unsigned int queued;		/* decoded ahead, not merged yet: */
	uint64_t key[HS_TD_CUT_QUEUE], ts[HS_TD_CUT_QUEUE];
};

struct hs_td_cut {
	int ncpus;
	struct hs_td_cut_cpu *cpu;
	/* the reader's counts as they stood there */
	uint64_t clamped_ts, skipped_pages, skipped_events;
	bool valid;			/* the reader got to the cut and noted it all */
};

struct hs_td_half {
	uint64_t cut;
	const uint64_t *start;		/* the second's: each CPU's first page, or NULL */
	/* at the cut: 0 read on, 1 stop (the rest is the second's), -1 an error */
	int (*at_cut)(struct hs_td_half *half, const struct hs_td_cut *here);
	void *priv;
};

/*
 * The page decoder (tracedat_decode.c): the event layouts and the header's
 * metadata into s, with the per-CPU losses haltstat's trailer gives into
 * *tlost; then the pages, of one half (NULL: all of them). hs_td_run()
 * (tracedat_split.c) reads the whole recording with them, in two halves
 * when that pays and the sink can take a second reader's part.
 */
void hs_td_prepare(struct td_file *f, struct hs_sink *s, struct hs_td_stats *tlost);
int hs_td_decode(struct td_file *f, int fd, struct hs_sink *s, struct hs_td_stats *tlost,
		 struct hs_td_half *half);

#endif
