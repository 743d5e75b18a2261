/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_RECMETA_H
#define HS_RECMETA_H

#include <stdbool.h>
#include <stddef.h>

#include "../../lib/sys/capture.h"
#include "../../lib/meta.h"
#include "../../lib/sbuf.h"
#include "tracedat_internal.h"

/*
 * haltstat's record-time metadata: "key=value" lines (doc/INTERNALS.md,
 * "Record-time metadata", lists the keys). They travel two ways, with the
 * same lines:
 *   - as notes inside the trace: each line a trace_marker write prefixed
 *     "haltstat-meta: ", so an ftrace:print event that every tool keeps:
 *     trace-cmd convert copies it, trace-cmd report and the kernel's text
 *     print it, and a pasted trace still has it. The facts go first, before
 *     any event; the losses and who the threads were go last.
 *   - in the trailer after a haltstat trace.dat v6's CPU data (older
 *     haltstat files have only this).
 */
#define HS_RECMETA_NOTE_PREFIX "haltstat-meta: "

/* The record-time facts of m (kernel, parameters, cpuidle) as lines. */
void hs_recmeta_put_facts(struct hs_sbuf *sb, const struct hs_meta *m);
/* What is known once a capture has been scanned: clock, span, events, losses, threads. */
void hs_recmeta_put_end(struct hs_sbuf *sb, const struct hs_capture_result *r);
/* lines as notes: each one prefixed. */
void hs_recmeta_put_notes(struct hs_sbuf *sb, const char *lines, size_t len);

/* Applies every line of text (a trailer) to the sink; loss counts go to lost. */
void hs_recmeta_apply(const char *text, size_t len, struct hs_sink *sink,
		      struct hs_td_stats *lost);
/* A trace_marker text: false when it is not a haltstat note; else its line is applied. */
bool hs_recmeta_note(const char *text, size_t len, struct hs_sink *sink,
		     struct hs_td_stats *lost);

#endif
