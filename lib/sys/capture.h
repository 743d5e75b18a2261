/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_CAPTURE_H
#define HS_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../error.h"
#include "../steal.h"

struct tracefs_instance;
struct hs_tasks;

/*
 * Event capture through a private tracefs instance "haltstat_<pid>": one
 * reader thread per CPU splices raw ring-buffer pages into an unlinked
 * per-CPU temp file, with no per-event work. When it stops, one scan of
 * those pages counts the events and learns who the threads were; a writer
 * (formats/) then turns the result into a file.
 *
 * The top-level instance is never written. hs_capture_destroy() removes the
 * instance and every temp file at any stage; if the process is killed
 * instead, disable_on_free stops tracing and the next hs_capture_start()
 * reaps the instance.
 */
#define HS_CAPTURE_MAX_EVENTS	64
#define HS_CAPTURE_MAX_PIDS	64

struct hs_capture_opts {
	const char *dir;		/* per-CPU temp files go here; NULL: no readers (live) */
	const char *const *events;	/* "system:event" */
	const bool *required;		/* per event: true makes a missing one an error */
	const char *const *filters;	/* per event: a tracefs filter to record it through, or NULL */
	unsigned int nevents;
	const int *pids;		/* keep only these processes' threads, or NULL */
	unsigned int npids;
	unsigned int buffer_kib;	/* ring buffer per CPU */
	unsigned int buffer_percent;	/* when blocked readers wake; 0: 10 */
	const char *clock;		/* trace_clock of the instance; NULL: the kernel's default */
	/* also record task events and watch /proc, to name every thread (tasks.h) */
	bool identity;
	/* lines written into the trace before any event (trace_marker), or NULL */
	const char *notes;
};

/* An event format as the kernel describes it, saved with the data. */
struct hs_capture_format {
	const char *system;
	const char *text;
	size_t len;
};

/* What a stopped and scanned capture holds. Valid until hs_capture_destroy(). */
struct hs_capture_result {
	unsigned int page_size;
	unsigned int ncpus;		/* possible CPUs: per-CPU data runs 0..ncpus-1 */
	const int *cpu_fd;		/* per CPU: the raw pages, from offset 0 */
	const uint64_t *cpu_size;	/* per CPU: bytes of whole pages */
	const char *header_page, *header_event;
	const struct hs_capture_format *formats;	/* the enabled events' */
	unsigned int nformats;
	const struct hs_capture_format *ftrace_formats;	/* ftrace:print, for the notes */
	unsigned int nftrace_formats;
	const char *clock;
	double seconds;			/* wall time traced */
	const uint64_t *lost;		/* per CPU: overrun + dropped events */
	struct hs_cpu_steal steal;	/* the hypervisor above's, over the tracing */
	uint64_t lost_total;
	const char *const *cpustat;	/* per CPU: the kernel's stats text, or NULL */
	const char *const *event_names;	/* the enabled events and their counts */
	const uint64_t *event_counts;
	unsigned int nevents;
	uint64_t total_events;
	const int *tids;		/* every thread id in an event, ascending */
	unsigned int ntids;
	const struct hs_tasks *tasks;	/* who they were (NULL without opts.identity) */
};

struct hs_capture;

/*
 * Creates the instance, writes opts->notes, enables the events and starts
 * tracing. Without opts->dir only the instance is set up (no temp files,
 * no reader threads): the caller reads it through hs_capture_instance().
 */
int hs_capture_start(struct hs_capture **cp, const struct hs_capture_opts *opts,
		     struct hs_error *err);

/* Requested events that do not exist here (not enabled), for warnings. */
unsigned int hs_capture_missing(const struct hs_capture *c, const char *const **names);

/* Non-zero once a reader thread failed (disk full...); the error is kept for stop. */
int hs_capture_failed(const struct hs_capture *c);

/* Stops tracing and the readers; flush=false skips draining what is left (abort). */
int hs_capture_stop(struct hs_capture *c, bool flush, struct hs_error *err);

/* After stop: counts the events and names the threads. */
int hs_capture_scan(struct hs_capture *c, struct hs_error *err);

/* After scan: lines written at the end of the trace (trace_marker), no events around them. */
int hs_capture_note_end(struct hs_capture *c, const char *notes, struct hs_error *err);

const struct hs_capture_result *hs_capture_result(const struct hs_capture *c);

/* The instance, for callers that read it themselves; NULL before start. */
struct tracefs_instance *hs_capture_instance(const struct hs_capture *c);
/* Possible CPUs: per-CPU buffers run 0..ncpus-1. */
unsigned int hs_capture_ncpus(const struct hs_capture *c);
/* Per-CPU overrun + dropped events so far, from the instance's stats; -1 unreadable. */
int hs_capture_lost_now(const struct hs_capture *c, unsigned int cpu, uint64_t *lost);

/*
 * Events the kernel logged on cpu so far, from the instance's stats; -1
 * unreadable. Exact only without reader threads (opts.dir NULL), where the
 * buffer holds every event but those overwritten or dropped.
 */
int hs_capture_events_now(const struct hs_capture *c, unsigned int cpu, uint64_t *events);
/*
 * The command started under the capture (after its exec), to name its VM
 * from argv when the watcher missed its command line. argv must outlive
 * the scan.
 */
void hs_capture_set_command(struct hs_capture *c, int pid, char *const *argv);
/* Removes the instance and the temp files, frees everything. Safe at any stage, and on NULL. */
void hs_capture_destroy(struct hs_capture *c);

#endif
