/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_TRACEDAT_INTERNAL_H
#define HS_TRACEDAT_INTERNAL_H

/*
 * Shared by the trace.dat readers (tracedat_read.c: own v6 parser and page
 * decoder, tracedat_v7.c: own v7 parser, tracecmd_read.c: libtracecmd for
 * v7 files compressed otherwise or when forced) and by test tools that time
 * the decoder without the accounting behind it. Not a public interface.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../lib/event.h"
#include "../lib/meta.h"
#include "../lib/error.h"

struct tep_handle;
struct hs_account;

/* Where decoded things go: an hs_account, or a counter in benchmarks. */
struct hs_td_sink {
	int (*event)(void *priv, const struct hs_event *ev);
	void (*lost)(void *priv, int cpu, uint64_t count, bool known);
	void (*thread)(void *priv, int tid, int tgid, const char *comm);
	void (*process)(void *priv, int tgid, const char *comm, const char *vm);
	void *priv;
	struct hs_meta *meta;
	/*
	 * Optional (NULL: every event goes to event()). keeps() false: the
	 * sink would only count ev, so the decoder drops it before the merge
	 * and hands the count of such events to count() at the end.
	 */
	bool (*keeps)(void *priv, const struct hs_event *ev);
	void (*count)(void *priv, const struct hs_event_tally *t);
};

void hs_td_sink_account(struct hs_td_sink *sink, struct hs_account *acct);

/* Byte and bit offsets of one field inside an event payload; size 0 = absent. */
struct hs_td_field {
	uint16_t off;
	uint8_t size;
};

#define HS_TD_NKINDS 4
#define HS_TD_NFIELDS 4

struct hs_td_evdesc {
	int id;			/* event id, -1 when the event is not in the file */
	struct hs_td_field pid;
	struct hs_td_field f[HS_TD_NFIELDS];
	uint32_t need;		/* payload bytes that hold every field above */
};

/* Event ids and field layouts, indexed by enum hs_event_kind - 1. */
struct hs_td_layout {
	struct hs_td_evdesc ev[HS_TD_NKINDS];
	uint64_t idmask;	/* bit id % 64 of each present id: most records fail it */
	bool swap;		/* file endianness differs from ours */
};

/* Looks the 4 events up in tep once. Returns how many exist. */
int hs_td_layout_init(struct hs_td_layout *lay, struct tep_handle *tep, bool swap);

/* Either kvm event's format is in the file: kvm was loaded where it was recorded. */
static inline bool hs_td_has_kvm(const struct hs_td_layout *lay)
{
	return lay->ev[HS_EV_VCPU_WAKEUP - 1].id >= 0 || lay->ev[HS_EV_HALT_POLL_NS - 1].id >= 0;
}
/*
 * libtraceevent 1.7 parses formats through file-scope variables, so two
 * threads must not parse at once, even into different handles.
 */
void hs_td_tep_lock(void);
void hs_td_tep_unlock(void);
/*
 * Inlined: the decoders call this for every field of every record. checked
 * is a constant after inlining: false when the record is known to be long
 * enough for every field (the usual case), which saves a compare a field.
 */
static inline __attribute__((always_inline)) uint64_t
hs_td_rd(const unsigned char *p, size_t len, struct hs_td_field f, bool swap, bool *bad,
	 const bool checked)
{
	uint64_t v = 0;

	if (!f.size)
		return 0;
	if (checked && (size_t)f.off + f.size > len) {
		*bad = true;
		return 0;
	}
	switch (f.size) {
	case 1: return p[f.off];
	case 2: { uint16_t x; memcpy(&x, p + f.off, 2); return swap ? __builtin_bswap16(x) : x; }
	case 4: { uint32_t x; memcpy(&x, p + f.off, 4); return swap ? __builtin_bswap32(x) : x; }
	default: memcpy(&v, p + f.off, 8); return swap ? __builtin_bswap64(v) : v;
	}
}

static inline int hs_td_kind(const struct hs_td_layout *lay, int id)
{
	if (!(lay->idmask >> (id & 63) & 1))
		return -1;
	for (int k = 0; k < HS_TD_NKINDS; k++)
		if (lay->ev[k].id == id)
			return k;
	return -1;
}

/* The fields of a record of kind ev->kind; checked as for hs_td_rd. */
static inline __attribute__((always_inline)) int
hs_td_fields(const struct hs_td_evdesc *d, const unsigned char *p, size_t len, bool sw,
	     struct hs_event *ev, const bool checked)
{
	bool bad = false;

	ev->tid = (int32_t)hs_td_rd(p, len, d->pid, sw, &bad, checked);
	switch (ev->kind) {
	case HS_EV_VCPU_WAKEUP:
		ev->wakeup.ns = hs_td_rd(p, len, d->f[0], sw, &bad, checked);
		ev->wakeup.waited = hs_td_rd(p, len, d->f[1], sw, &bad, checked) != 0;
		ev->wakeup.valid = d->f[2].size ? (hs_td_rd(p, len, d->f[2], sw, &bad, checked) != 0) : -1;
		bad |= !d->f[0].size || !d->f[1].size;
		break;
	case HS_EV_HALT_POLL_NS:
		ev->poll.grow = hs_td_rd(p, len, d->f[0], sw, &bad, checked) != 0;
		ev->poll.vcpu_id = (uint32_t)hs_td_rd(p, len, d->f[1], sw, &bad, checked);
		ev->poll.new_ns = (uint32_t)hs_td_rd(p, len, d->f[2], sw, &bad, checked);
		ev->poll.old_ns = (uint32_t)hs_td_rd(p, len, d->f[3], sw, &bad, checked);
		bad |= !d->f[2].size || !d->f[3].size;
		break;
	case HS_EV_CPU_IDLE:
		ev->idle.state = (uint32_t)hs_td_rd(p, len, d->f[0], sw, &bad, checked);
		ev->idle.cpu_id = (uint32_t)hs_td_rd(p, len, d->f[1], sw, &bad, checked);
		bad |= !d->f[0].size;
		break;
	default:
		ev->guest_poll.grow = hs_td_rd(p, len, d->f[0], sw, &bad, checked) != 0;
		ev->guest_poll.new_ns = (uint32_t)hs_td_rd(p, len, d->f[1], sw, &bad, checked);
		ev->guest_poll.old_ns = (uint32_t)hs_td_rd(p, len, d->f[2], sw, &bad, checked);
		bad |= !d->f[1].size || !d->f[2].size;
		break;
	}
	return bad ? -2 : 0;
}

/* Decodes payload (id at offset 0) into ev: 0 ok, -1 unrelated, -2 malformed. */
static inline int hs_td_decode(const struct hs_td_layout *lay, const unsigned char *p,
			       size_t len, struct hs_event *ev)
{
	const struct hs_td_evdesc *d;
	bool sw = lay->swap;
	uint16_t id;
	int k;

	if (len < 2)
		return -2;
	memcpy(&id, p, 2);
	k = hs_td_kind(lay, sw ? __builtin_bswap16(id) : id);
	if (k < 0)
		return -1;
	d = &lay->ev[k];
	ev->kind = (uint8_t)(k + 1);
	return len >= d->need ? hs_td_fields(d, p, len, sw, ev, false) :
				hs_td_fields(d, p, len, sw, ev, true);
}

/* Per-CPU loss counts from CPUSTAT text, for one buffer ("" = top). */
#define HS_TD_MAXCPUS 4096
struct hs_td_stats {
	int64_t *lost;		/* per CPU, -1 unknown */
	int ncpus;
};
int hs_td_stats_parse(const char *text, size_t len, const char *buffer,
		      struct hs_td_stats *st);
void hs_td_stats_free(struct hs_td_stats *st);

/* haltstat trailer (notes/META.md). start: where the text begins, or 0 if none. */
int hs_td_trailer_find(const unsigned char *buf, size_t len, uint64_t data_end,
		       uint64_t *start, uint64_t *tlen);
void hs_td_trailer_apply(const char *text, size_t len, struct hs_td_sink *sink,
			 struct hs_td_stats *trailer_lost);

void hs_td_uname_release(const char *uname, size_t len, struct hs_meta *meta);
void hs_td_cmdlines_apply(const char *text, size_t len, struct hs_td_sink *sink);

/* v6 decoder proper; hs_tracedat_read wraps it around an hs_account. */
int hs_td_v6_decode(const unsigned char *buf, size_t len, struct hs_td_sink *sink,
		    struct hs_error *err);
/* The same with the file open on fd (-1: none): pages are pread, not mapped. */
int hs_td_v6_decode_fd(const unsigned char *buf, size_t len, int fd, struct hs_td_sink *sink,
		       struct hs_error *err);
/*
 * A v6 or v7 file (checked by the caller) through the reader it needs: the
 * own ones, libtracecmd for a compression they do not link or when
 * HALTSTAT_READER=libtracecmd asks for it.
 */
int hs_td_read_sink(const char *path, int fd, const unsigned char *buf, size_t len, bool v7,
		    struct hs_td_sink *sink, struct hs_error *err);
/* hs_tracedat_read for a file also open on fd (-1: buf is all there is). */
int hs_tracedat_read_fd(const char *path, int fd, const unsigned char *buf, size_t len,
			struct hs_account *acct, struct hs_error *err);
/*
 * A copy of an event format with only its name, ID and plain fields, each
 * checked, for libtraceevent. cap >= len + 64. Returns the length or 0.
 */
size_t hs_td_format_clean(const char *in, size_t len, char *out, size_t cap);
/* Sizes of a v7 file's sections and chunks, checked before libtracecmd reads it. */
int hs_tc_check_sections(const unsigned char *buf, size_t len, struct hs_error *err);
/* v7 through libtracecmd (needs a path; buf/len are only checked). */
int hs_td_v7_decode(const char *path, const unsigned char *buf, size_t len,
		    struct hs_td_sink *sink, struct hs_error *err);
/* The same in this process (hs_td_v7_decode runs it in a child, tracecmd_child.c). */
int hs_td_v7_decode_direct(const char *path, const unsigned char *buf, size_t len,
		    struct hs_td_sink *sink, struct hs_error *err);

#endif
