/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_CAPTURE_PRIV_H
#define HS_CAPTURE_PRIV_H

/* Shared by capture.c (tracefs side) and capture_save.c (trace.dat side) only. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "capture.h"

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

struct hs_thread_name {
	int tid;
	int tgid;
	char comm[64];
};

struct hs_capture {
	struct tracefs_instance *inst;
	char name[64];
	char output[4096];
	char dir[4096];
	char tmp_output[4200];		/* linked final file not yet renamed */
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
	uint64_t en_count[HS_CAPTURE_MAX_EVENTS];

	struct hs_thread_name *snap;	/* -p threads named at start */
	unsigned int nsnap;
	int pids[HS_CAPTURE_MAX_PIDS];
	unsigned int npids;

	uint64_t *lost;
	char **cpustat;
	uint64_t lost_total;
	unsigned int nthreads;
};

#endif
