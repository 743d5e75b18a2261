/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_TEXT_HEADER_H
#define HS_TEXT_HEADER_H

/* The task/CPU/time header of a text event line, for text_read.c. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The task/CPU/time part every form shares, once parsed. */
struct hs_txt_head {
	const char *comm;
	size_t comm_len;
	int32_t tid;
	int32_t tgid;		/* -1 unknown */
	int32_t cpu;
	uint64_t ts;
	bool perf;		/* "comm pid" or "comm pid/tid" */
};

/*
 * The header of an event line [s, e); returns where the event name starts,
 * or NULL when s holds none. *latency: it was trace-cmd report -l's form.
 */
const char *hs_txt_read_header(const char *s, const char *e, struct hs_txt_head *h,
			       bool *latency);

#endif
