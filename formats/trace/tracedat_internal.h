/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_TRACEDAT_INTERNAL_H
#define HS_TRACEDAT_INTERNAL_H

/*
 * Shared by the trace.dat readers (tracedat_parse.c: the structure and the
 * v6 layout, tracedat_v7.c: the v7 layout, tracedat_decode.c: the page
 * decoder, tracecmd_read.c: libtracecmd when forced; tracedat_read.c picks
 * one) and by test tools that time the decoder without the accounting
 * behind it. Not a public interface.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../lib/event.h"
#include "../../lib/evdecode.h"
#include "../../lib/meta.h"
#include "../../lib/error.h"
#include "../../lib/shard_plan.h"
#include "sink.h"

struct tep_handle;
struct hs_account;

/* What the report readers decode: the analysed events and haltstat's notes. */
#define HS_TD_READ_KINDS (HS_EV_MASK_ANALYSED | HS_EV_MASK(HS_EV_MARKER))

/*
 * The fixed header of a trace.dat: magic, version and, for versions 6 and 7,
 * byte order, long size, page size; for 7 also the compression and the
 * first options section. Another version stops after the version.
 */
struct hs_td_head {
	char version[8];		/* as written, made printable */
	bool big;
	int long_size;
	uint32_t page_size;
	char comp[64];			/* v7: compression name ("" or "none": none) */
	uint64_t first_options;		/* v7 */
	size_t end;			/* offset after the fixed header */
};
/* 0 with h filled, else an input error in err (without the file's name). */
int hs_td_head_parse(const unsigned char *buf, size_t len, struct hs_td_head *h,
		     struct hs_error *err);
/* Does haltstat's own decoder read this file, or only libtracecmd (v7 compressions not its own)? */
bool hs_td_head_own_reader(const struct hs_td_head *h);

/* Per-CPU loss counts from CPUSTAT text, for one buffer ("" = top). */
#define HS_TD_MAXCPUS 4096
struct hs_td_stats {
	int64_t *lost;		/* per CPU, -1 unknown */
	int ncpus;
};
int hs_td_stats_parse(const char *text, size_t len, const char *buffer,
		      struct hs_td_stats *st);
void hs_td_stats_free(struct hs_td_stats *st);
/* One CPU's count; -1 when out of memory. */
int hs_td_stats_set(struct hs_td_stats *st, long cpu, int64_t lost);

/* haltstat trailer (recmeta.h). start: where the text begins, or 0 if none. */
int hs_td_trailer_find(const unsigned char *buf, size_t len, uint64_t data_end,
		       uint64_t *start, uint64_t *tlen);

void hs_td_uname_release(const char *uname, size_t len, struct hs_meta *meta);

/*
 * n bytes of fd at off into dst, as many as the file has: false on a read
 * error (errno tells which), else *got is below n only at the file's end.
 */
bool hs_td_pread_full(int fd, unsigned char *dst, size_t n, uint64_t off, size_t *got);
void hs_td_cmdlines_apply(const char *text, size_t len, struct hs_sink *sink);

/* v6 decoder proper; hs_tracedat_read wraps it around an hs_account. */
int hs_td_v6_decode(const unsigned char *buf, size_t len, struct hs_sink *sink,
		    struct hs_error *err);
/* The same with the file open on fd (-1: none): pages are pread, not mapped. */
int hs_td_v6_decode_fd(const unsigned char *buf, size_t len, int fd, struct hs_sink *sink,
		       struct hs_error *err);
struct hs_td_share;
/*
 * A v6 or v7 file (checked by the caller) through the reader it needs: the
 * own ones, libtracecmd for a compression they do not link or when
 * HALTSTAT_READER=libtracecmd asks for it.
 */
int hs_td_read_sink(const char *path, int fd, const unsigned char *buf, size_t len, bool v7,
		    struct hs_sink *sink, struct hs_td_share *share, struct hs_error *err);
/*
 * What the first analysed events of a trace.dat with head h, which
 * haltstat's own readers decode (hs_td_head_own_reader), show of its
 * report before it is read for real: how many are halts
 * (kvm_vcpu_wakeup), how much of it is per-vCPU work, and on which vCPU
 * threads (shard_plan.h).
 */
#define HS_TD_LOOK_TIDS 64
struct hs_td_look {
	uint64_t events, halts;
	struct hs_shard_load load[HS_TD_LOOK_TIDS];
	unsigned int ntids;
	bool many;		/* more vCPU threads than load[] holds */
};
void hs_td_first_look(const char *path, int fd, const unsigned char *buf, size_t len,
		      const struct hs_td_head *h, struct hs_td_look *look);
/*
 * hs_tracedat_read for a file also open on fd (-1: buf is all there is);
 * share: what it does once with another reader of the file, or NULL.
 */
int hs_tracedat_read_fd(const char *path, int fd, const unsigned char *buf, size_t len,
			struct hs_account *acct, struct hs_td_share *share,
			struct hs_error *err);
/*
 * A copy of an event format with only its name, ID and plain fields, each
 * checked, for libtraceevent. cap >= len + 64. Returns the length or 0.
 */
size_t hs_td_format_clean(const char *in, size_t len, char *out, size_t cap);
/* v7 through libtracecmd (needs a path; buf/len are only checked). */
int hs_td_v7_decode(const char *path, const unsigned char *buf, size_t len,
		    struct hs_sink *sink, struct hs_error *err);
/* The same in this process (hs_td_v7_decode runs it in a child, tracecmd_child.c). */
int hs_td_v7_decode_direct(const char *path, const unsigned char *buf, size_t len,
		    struct hs_sink *sink, struct hs_error *err);

#endif
