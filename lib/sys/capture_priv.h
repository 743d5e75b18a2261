/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_CAPTURE_PRIV_H
#define HS_CAPTURE_PRIV_H

/* Shared by capture.c (tracefs side) and capture_scan.c (the saved pages) only. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "capture.h"
#include "sysinfo.h"

struct tracefs_instance;
struct tracefs_cpu;

struct hs_cpu_reader {
	struct hs_capture *c;
	unsigned int cpu;
	int raw_fd;			/* per_cpu/cpuN/trace_pipe_raw */
	struct tracefs_cpu *tcpu;
	int fd;				/* unlinked temp file with the raw pages */
	pthread_t thread;
	bool running;
	int err;			/* errno of a failed write */
};

/* The events that name threads (tasks.h), recorded when opts.identity asks. */
#define HS_CAPTURE_NTASK_EVENTS 3

struct hs_capture {
	struct tracefs_instance *inst;
	char name[64];
	char dir[4096];
	int free_fd;			/* instance free_buffer, held open as a safety net */
	int stop_fd;			/* eventfd: readable once the readers must stop */
	unsigned int ncpus;
	unsigned int page_size;
	struct hs_cpu_reader *cpus;
	atomic_bool flush;
	atomic_int failed;
	bool tracing;
	struct timespec t0, t1;

	unsigned int nreq;		/* requested events */
	char req[HS_CAPTURE_MAX_EVENTS][128];
	const char *missing[HS_CAPTURE_MAX_EVENTS];
	unsigned int nmissing;
	unsigned int nen;		/* enabled events */
	const char *en_names[HS_CAPTURE_MAX_EVENTS];
	char en_sys[HS_CAPTURE_MAX_EVENTS][64];
	char en_ev[HS_CAPTURE_MAX_EVENTS][64];
	const char *en_filter[HS_CAPTURE_MAX_EVENTS];	/* the caller's, or NULL */
	uint64_t en_count[HS_CAPTURE_MAX_EVENTS];

	int pids[HS_CAPTURE_MAX_PIDS];
	unsigned int npids;
	struct hs_tasks *tasks;		/* NULL without opts.identity */
	int command_pid;		/* hs_capture_set_command(), 0 none */
	char *const *command_argv;

	uint64_t *lost;
	char **cpustat;
	uint64_t lost_total;
	/* /proc/stat at t0 and t1, ncpus each; steal_cpus read at both, 0 unknown */
	struct hs_cpu_time *cpu_t0, *cpu_t1;
	unsigned int steal_cpus;

	/* filled by hs_capture_scan() */
	char clock[64];
	char *header_page, *header_event;
	struct hs_capture_format formats[HS_CAPTURE_MAX_EVENTS];
	struct hs_capture_format print_format;
	int *cpu_fds;
	uint64_t *cpu_sizes;
	int *tids;
	unsigned int ntids;
	bool scanned;
	struct hs_capture_result result;
};

/* capture_scan.c */
int hs_capture_sizes(struct hs_capture *c, struct hs_error *err);
void hs_capture_scan_free(struct hs_capture *c);

#endif
