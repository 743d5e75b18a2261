/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_TRACEDAT_WRITE_H
#define HS_TRACEDAT_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "../../lib/error.h"

/*
 * Writes a trace.dat version 6 (uncompressed) that trace-cmd report and
 * KernelShark read, following trace-cmd's trace-cmd.dat.v6 description.
 * haltstat's own record-time metadata travels inside the file in a way that
 * trace-cmd ignores (see tracedat_write.c for where).
 */
struct hs_tracedat_format {
	const char *system;		/* "kvm", "power", ... */
	const char *text;		/* contents of events/SYSTEM/NAME/format */
	size_t len;
};

struct hs_tracedat_cpu {
	const void *buf;		/* raw ring-buffer pages in memory, or NULL */
	int fd;				/* else read size bytes from fd at offset 0 */
	uint64_t size;			/* a multiple of page_size */
};

struct hs_tracedat_desc {
	unsigned int page_size;
	const char *header_page;	/* events/header_page */
	size_t header_page_len;
	const char *header_event;	/* events/header_event */
	size_t header_event_len;
	const struct hs_tracedat_format *formats;
	unsigned int nformats;
	const struct hs_tracedat_format *ftrace_formats;	/* system "ftrace" (print) */
	unsigned int nftrace_formats;
	const char *cmdlines;		/* "PID COMM\n" lines */
	size_t cmdlines_len;
	unsigned int ncpus;
	const struct hs_tracedat_cpu *cpus;	/* ncpus entries */
	const char *uname;		/* TRACECMD_OPTION_UNAME, or NULL */
	const char *clock;		/* TRACECMD_OPTION_TRACECLOCK, or NULL */
	const char *const *cpustat;	/* per-CPU "stats" text (TRACECMD_OPTION_CPUSTAT), or NULL */
	const char *meta;		/* haltstat "key=value\n" metadata, or NULL */
	size_t meta_len;
};

int hs_tracedat_write(int fd, const struct hs_tracedat_desc *desc, struct hs_error *err);
/*
 * The same file made around CPU k's data where it lies (cpus[k].fd, from
 * offset 0, which becomes the file): what comes before it is put in front
 * (FALLOC_FL_INSERT_RANGE), what comes after is appended, and not a byte
 * of that CPU is copied. 1: the file system cannot insert, or k has no
 * data in a file (nothing was changed: write a copy); 0: done; else an
 * error, with the file half made.
 */
int hs_tracedat_write_around(const struct hs_tracedat_desc *desc, unsigned int k,
			     struct hs_error *err);

#endif
