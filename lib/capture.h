/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_CAPTURE_H
#define HS_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

struct tracefs_instance;

/*
 * Event capture through a private tracefs instance "haltstat_<pid>": one
 * reader thread per CPU splices raw ring-buffer pages into an unlinked
 * per-CPU temp file next to the output, with no per-event work. At the end
 * the pages are scanned once (thread ids, counts) and assembled into a
 * trace.dat v6 with the haltstat metadata trailer.
 *
 * The top-level instance is never written. hs_capture_destroy() removes the
 * instance and every temp file at any stage; if the process is killed
 * instead, disable_on_free stops tracing and the next hs_capture_start()
 * reaps the instance.
 */
#define HS_CAPTURE_MAX_EVENTS	64
#define HS_CAPTURE_MAX_PIDS	64

struct hs_capture_opts {
	const char *output;		/* final trace.dat path */
	const char *const *events;	/* "system:event" */
	const bool *required;		/* per event: true makes a missing one an error */
	unsigned int nevents;
	const int *pids;		/* keep only these processes' threads, or NULL */
	unsigned int npids;
	unsigned int buffer_kib;	/* ring buffer per CPU */
	unsigned int buffer_percent;	/* when blocked readers wake; 0: 10 */
	const char *clock;		/* trace_clock of the instance; NULL: the kernel's default */
};

struct hs_capture_summary {
	double seconds;
	unsigned int ncpus;
	const uint64_t *lost;		/* per CPU: overrun + dropped events */
	uint64_t lost_total;
	unsigned int nevents;		/* enabled events */
	const char *const *event_names;
	const uint64_t *event_counts;
	uint64_t total_events;
	unsigned int nthreads;		/* distinct pids seen in the events */
	uint64_t file_size;
};

struct hs_capture;

/*
 * Creates the instance, enables the events and starts tracing. Without
 * opts->output only the instance is set up (no temp files, no reader
 * threads): the caller reads it through hs_capture_instance(), e.g. live.
 */
int hs_capture_start(struct hs_capture **cp, const struct hs_capture_opts *opts,
		     struct hs_error *err);

/* Requested events that do not exist here (not enabled), for warnings. */
unsigned int hs_capture_missing(const struct hs_capture *c, const char *const **names);

/* Non-zero once a reader thread failed (disk full...); the error is kept for stop. */
int hs_capture_failed(const struct hs_capture *c);

/* Stops tracing and the readers; flush=false skips draining what is left (abort). */
int hs_capture_stop(struct hs_capture *c, bool flush, struct hs_error *err);

/* Writes the trace.dat to a temp name in the output directory, then renames it. */
int hs_capture_save(struct hs_capture *c, struct hs_capture_summary *sum, struct hs_error *err);

/* The instance, for callers that read it themselves; NULL before start. */
struct tracefs_instance *hs_capture_instance(const struct hs_capture *c);
/* Possible CPUs: per-CPU buffers run 0..ncpus-1. */
unsigned int hs_capture_ncpus(const struct hs_capture *c);
/* Per-CPU overrun + dropped events so far, from the instance's stats; -1 unreadable. */
int hs_capture_lost_now(const struct hs_capture *c, unsigned int cpu, uint64_t *lost);

/* Removes the instance and the temp files, frees everything. Safe at any stage, and on NULL. */
void hs_capture_destroy(struct hs_capture *c);

#endif
