// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reader for pasted text traces: the kernel's trace / trace_pipe files,
 * `trace-cmd report` and `perf script` output, mixed freely.
 *
 * Everything works in place on the caller's buffer with explicit lengths:
 * no copy of a line, no allocation per line, no sscanf. This file is the
 * stream: lines through a bounded buffer, what each line is (event, loss
 * marker, header or comment, instance prefix), the thread names and the
 * form that names the input. An event line's header is read by
 * text_header.c, its payload by text_payload.c.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input.h"
#include "recmeta.h"
#include "text_header.h"
#include "text_internal.h"
#include "text_payload.h"
#include "text_scan.h"

#define HS_TXT_TCACHE	1024	/* tids whose name was already passed on */

enum hs_txt_form {
	HS_TXT_KERNEL,
	HS_TXT_TCMD,
	HS_TXT_PERF,
	HS_TXT_NFORMS,
};

struct hs_txt_tid {
	int32_t tid;
	int32_t tgid;
	uint8_t len;		/* of comm */
	bool used;
	char comm[63];		/* as passed on (truncated like it) */
};

struct hs_txt_state {
	struct hs_sink *sink;
	struct hs_meta *meta;
	uint64_t forms[HS_TXT_NFORMS];	/* lines seen in each form */
	uint64_t recognised;	/* event lines, loss markers, known headers */
	bool ctx_tcmd;		/* after a trace-cmd "cpus=" header */
	int status;		/* first accounting failure */
	struct hs_td_stats notes_lost;	/* per CPU, as the notes say */
	struct hs_td_stats seen_lost;	/* per CPU, as the loss lines say */
	struct hs_txt_tid tids[HS_TXT_TCACHE];
};

/* Event name (system prefix already dropped) to kind; 0 when not ours. */
static inline int txt_kind(const char *n, size_t len)
{
	/* the kernel's own text names trace_marker writes so; everyone else "print" */
	int kind;

	if (len == 18 && !memcmp(n, "tracing_mark_write", 18))
		return HS_EV_MARKER;
	kind = hs_ev_kind_of(NULL, n, len);
	return kind <= HS_EV_ANALYSED_LAST || kind == HS_EV_MARKER ? kind : 0;
}

/*
 * A trace_marker line: haltstat's note follows the event name, or the
 * writer's address or symbol that trace-cmd prints first.
 */
static void txt_note(struct hs_txt_state *st, const char *p, const char *e)
{
	static const char prefix[] = HS_RECMETA_NOTE_PREFIX;
	size_t room = (size_t)(e - p);
	const char *n = memmem(p, room < 96 ? room : 96, prefix, sizeof(prefix) - 1);

	if (n)
		hs_recmeta_note(n, (size_t)(e - n), st->sink, &st->notes_lost);
}

/* Passes a thread name on once per (tid, tgid, comm); "<...>" is no name. */
static void txt_thread(struct hs_txt_state *st, const struct hs_txt_head *h)
{
	struct hs_txt_tid *slot;
	char comm[64];
	size_t n;

	if (h->comm_len == 5 && !memcmp(h->comm, "<...>", 5))
		return;
	/* compared as stored: the name is cut at 63 bytes when passed on anyway */
	n = h->comm_len < sizeof(slot->comm) ? h->comm_len : sizeof(slot->comm);
	slot = &st->tids[((uint32_t)h->tid * 2654435761u) >> 22];
	if (slot->used && slot->tid == h->tid && slot->tgid == h->tgid && slot->len == n &&
	    !memcmp(slot->comm, h->comm, n))
		return;
	slot->used = true;
	slot->tid = h->tid;
	slot->tgid = h->tgid;
	slot->len = (uint8_t)n;
	memcpy(slot->comm, h->comm, n);
	memcpy(comm, h->comm, n);
	comm[n] = '\0';
	st->sink->thread(st->sink->priv, h->tid, h->tgid, comm);
}

/*
 * An event line from s (leading blanks and any instance prefix gone).
 * False when it is not one; a known event with a payload it cannot read
 * is a trace line all the same, counted in skipped_lines.
 */
static bool txt_event_line(struct hs_txt_state *st, const char *s, const char *e,
			   bool prefixed)
{
	struct hs_txt_head h;
	struct hs_event ev;
	const char *p, *t, *te, *n;
	bool latency, tcmd;
	int kind, form, ret;

	p = hs_txt_read_header(s, e, &h, &latency);
	if (!p)
		return false;
	tcmd = prefixed || latency;
	if (p < e && *p == '(') {	/* trace-cmd report --ts-diff "(+N)" */
		while (p < e && *p != ' ')
			p++;
		p = txt_spaces(p, e);
		tcmd = true;
	}
	t = p;
	n = NULL;
	for (; p < e && *p != ' ' && *p != '\t'; p++)
		if (*p == ':' && p + 1 < e && p[1] != ' ' && p[1] != '\t')
			n = p;
	te = p;
	st->recognised++;
	if (te - t < 2 || te[-1] != ':')
		return true;	/* another tracer's line (function, ...) */
	if (n)
		h.perf = true;	/* perf names events "system:event" */
	n = n ? n + 1 : t;
	if (e - te > 1 && te[1] == ' ')
		tcmd = true;	/* trace-cmd pads event names to 20 columns */
	p = txt_spaces(te, e);

	form = h.perf ? HS_TXT_PERF : tcmd || st->ctx_tcmd ? HS_TXT_TCMD : HS_TXT_KERNEL;
	st->forms[form]++;

	kind = txt_kind(n, (size_t)(te - 1 - n));
	if (!kind)
		return true;
	if (kind == HS_EV_MARKER) {
		txt_note(st, p, e);
		return true;
	}
	if (!hs_txt_payload(kind, p, e, &ev)) {
		st->meta->skipped_lines++;
		return true;
	}
	ev.kind = (uint8_t)kind;
	ev.ts = h.ts;
	ev.cpu = h.cpu;
	ev.tid = h.tid;
	txt_thread(st, &h);
	ret = st->sink->event(st->sink->priv, &ev);
	if (ret && !st->status)
		st->status = ret;
	return true;
}

/* "CPU:N [LOST N EVENTS]" (kernel), "CPU:N [N EVENTS DROPPED]" (trace-cmd). */
static bool txt_lost(struct hs_txt_state *st, const char *p, const char *e)
{
	uint64_t cpu, n = 0;
	bool known = true;
	int form = HS_TXT_KERNEL;

	if (!TXT_LIT(&p, e, "CPU:") || !txt_u64(&p, e, &cpu) || cpu > INT32_MAX ||
	    !TXT_LIT(&p, e, " ["))
		return false;
	if (TXT_LIT(&p, e, "LOST ")) {
		if (TXT_LIT(&p, e, "EVENTS]"))
			known = false;
		else if (!txt_u64(&p, e, &n) || !TXT_LIT(&p, e, " EVENTS]"))
			return false;
	} else {
		form = HS_TXT_TCMD;
		if (TXT_LIT(&p, e, "SUBBUFFER START]")) {
			st->recognised++;
			return true;	/* trace-cmd report --debug page marks */
		}
		if (TXT_LIT(&p, e, "EVENTS DROPPED]"))
			known = false;
		else if (!txt_u64(&p, e, &n) || !TXT_LIT(&p, e, " EVENTS DROPPED]"))
			return false;
	}
	if (p != e)
		return false;
	st->forms[form]++;
	st->recognised++;
	st->sink->lost(st->sink->priv, (int)cpu, n, known);
	if (known && n && (int64_t)cpu < HS_TD_MAXCPUS) {
		int64_t seen = (int64_t)cpu < st->seen_lost.ncpus ? st->seen_lost.lost[cpu] : 0;

		if (hs_td_stats_set(&st->seen_lost, (long)cpu, (seen > 0 ? seen : 0) +
				    (int64_t)(n < INT64_MAX / 2 ? n : INT64_MAX / 2)) && !st->status)
			st->status = HS_ERR_RUNTIME;
	}
	return true;
}

/* "#" lines: "# tracer:" starts a kernel file, "#P:N" is its CPU count. */
static void txt_comment(struct hs_txt_state *st, const char *p, const char *e)
{
	const char *q;
	uint64_t n;

	if (TXT_LIT(&p, e, "# tracer:")) {
		st->ctx_tcmd = false;
		st->recognised++;
		return;
	}
	if (!TXT_LIT(&p, e, "# entries-in-buffer/entries-written:"))
		return;
	q = memmem(p, (size_t)(e - p), "#P:", 3);
	if (!q)
		return;
	q += 3;
	if (txt_u64(&q, e, &n) && n <= INT32_MAX)
		st->meta->ncpus = (int)n;
}

/* trace-cmd report's first lines: "version = 6", "cpus=N". */
static bool txt_tcmd_header(struct hs_txt_state *st, const char *p, const char *e)
{
	uint64_t n;

	if (TXT_LIT(&p, e, "cpus=")) {
		if (!txt_u64(&p, e, &n) || p != e || n > INT32_MAX)
			return false;
		st->meta->ncpus = (int)n;
	} else if (TXT_LIT(&p, e, "version = ")) {
		if (!txt_u64(&p, e, &n) || p != e)
			return false;
	} else {
		return false;
	}
	st->ctx_tcmd = true;
	st->recognised++;
	return true;
}

/*
 * trace-cmd report puts "NAME: " (right-aligned) before each line when the
 * file has buffer instances or several files are read. Task-PID columns
 * end in a digit, so a first word ending in ':' is such a prefix.
 */
static const char *txt_prefix(const char *p, const char *e, size_t *name_len)
{
	const char *t = p;

	while (p < e && *p != ' ' && *p != '\t' && p - t <= HS_META_STR)
		p++;
	if (p == e || p - t < 2 || p[-1] != ':' || *p != ' ')
		return NULL;
	*name_len = (size_t)(p - 1 - t);
	return txt_spaces(p, e);
}

static bool txt_parse(struct hs_txt_state *st, const char *s, const char *e,
		      bool prefixed)
{
	return txt_event_line(st, s, e, prefixed) || txt_lost(st, s, e) ||
	       txt_tcmd_header(st, s, e);
}

static void txt_line(struct hs_txt_state *st, const char *p, const char *e)
{
	char *bi = st->meta->buffer_instance;
	const char *s;
	size_t n;

	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	p = txt_spaces(p, e);
	if (p == e)
		return;
	if (*p == '#') {
		txt_comment(st, p, e);
		return;
	}
	s = txt_prefix(p, e, &n);
	if (s && txt_parse(st, s, e, true)) {
		if (!bi[0] && n < sizeof(st->meta->buffer_instance)) {
			memcpy(bi, p, n);
			bi[n] = '\0';
		}
		return;
	}
	if (!txt_parse(st, p, e, false))
		st->meta->skipped_lines++;
}

static const char *const txt_form_names[HS_TXT_NFORMS] = {
	[HS_TXT_KERNEL] = "text (kernel trace)",
	[HS_TXT_TCMD] = "text (trace-cmd report)",
	[HS_TXT_PERF] = "text (perf script)",
};

/* The dominant form names the input; perf script never prints losses. */
static void txt_finish_meta(struct hs_txt_state *st)
{
	struct hs_meta *m = st->meta;
	int f = HS_TXT_KERNEL;

	if (st->forms[HS_TXT_TCMD] > st->forms[f])
		f = HS_TXT_TCMD;
	if (st->forms[HS_TXT_PERF] > st->forms[f])
		f = HS_TXT_PERF;
	snprintf(m->format, sizeof(m->format), "%s", txt_form_names[f]);
	m->lost_known = f != HS_TXT_PERF;
}

static struct hs_txt_state *txt_begin(struct hs_sink *sink)
{
	struct hs_txt_state *st = calloc(1, sizeof(*st));

	if (st) {
		st->sink = sink;
		st->meta = sink->meta;
	}
	return st;
}

/* Losses the notes count beyond the loss lines: counted, not placed. */
static void txt_notes_losses(struct hs_txt_state *st)
{
	for (int c = 0; c < st->notes_lost.ncpus; c++) {
		int64_t seen = c < st->seen_lost.ncpus ? st->seen_lost.lost[c] : 0;

		if (st->notes_lost.lost[c] > (seen > 0 ? seen : 0))
			st->meta->lost_events += (uint64_t)(st->notes_lost.lost[c] - (seen > 0 ? seen : 0));
	}
}

/* Complete lines of [p, e), and the last one too if final; returns the rest. */
static const char *txt_lines(struct hs_txt_state *st, const char *p, const char *e,
			     bool final)
{
	const char *nl;

	while (p < e && !st->status) {
		nl = memchr(p, '\n', (size_t)(e - p));
		if (!nl && !final)
			break;
		if (!nl)
			nl = e;
		txt_line(st, p, nl);
		p = nl < e ? nl + 1 : e;
	}
	return p;
}

static int txt_end(struct hs_txt_state *st, uint64_t len, struct hs_error *err)
{
	int ret = HS_OK;

	txt_finish_meta(st);
	txt_notes_losses(st);
	hs_td_stats_free(&st->notes_lost);
	hs_td_stats_free(&st->seen_lost);
	if (st->status)
		ret = hs_error_set(err, HS_ERR_RUNTIME, "accounting failed: %s",
				   strerror(-st->status));
	else if (len && !st->recognised)
		ret = hs_error_set(err, HS_ERR_INPUT, "no trace lines recognised in %s",
				   st->meta->source[0] ? st->meta->source : "input");
	free(st);
	return ret;
}

int hs_text_read(const char *buf, size_t len, struct hs_sink *sink, struct hs_error *err)
{
	struct hs_txt_state *st = txt_begin(sink);

	if (!st)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory reading text");
	txt_lines(st, buf, buf + len, true);
	return txt_end(st, len, err);
}

/*
 * Reads until buf holds a newline after *used bytes, or is full, or EOF;
 * 128 KiB at a time, so that the lines are parsed while in the L2 cache.
 */
static int txt_fill(int fd, char *buf, size_t cap, size_t *used, bool *eof)
{
	while (*used < cap) {
		size_t want = cap - *used < (128u << 10) ? cap - *used : (128u << 10);
		ssize_t n = read(fd, buf + *used, want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0) {
			*eof = true;
			return 0;
		}
		*used += (size_t)n;
		if (memchr(buf + *used - n, '\n', (size_t)n))
			return 0;
	}
	return 0;
}

/*
 * Streaming: whole lines through a bounded buffer that grows only for a
 * line longer than it (up to HS_TXT_BUF_MAX; a longer line is cut there,
 * it cannot be a trace line anyway). head/hlen: bytes already read.
 */
#define HS_TXT_BUF (1u << 20)
#define HS_TXT_BUF_MAX (64u << 20)

int hs_text_read_fd(int fd, const char *head, size_t hlen, struct hs_sink *sink,
		    struct hs_error *err)
{
	struct hs_txt_state *st = txt_begin(sink);
	size_t cap = hlen > HS_TXT_BUF ? hlen : HS_TXT_BUF, used = hlen;
	char *buf = malloc(cap);
	uint64_t total = hlen;
	bool eof = false;
	int ret = 0;

	if (!st || !buf) {
		free(buf);
		free(st);
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory reading text");
	}
	memcpy(buf, head, hlen);
	while (!st->status && !ret) {
		size_t before = used;
		const char *rest;

		ret = txt_fill(fd, buf, cap, &used, &eof);
		total += used - before;
		rest = txt_lines(st, buf, buf + used, eof || ret);
		used -= (size_t)(rest - buf);
		memmove(buf, rest, used);
		if (eof)
			break;
		if (used == cap && cap < HS_TXT_BUF_MAX) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				ret = HS_ERR_RUNTIME;
				break;
			}
			buf = nb;
			cap *= 2;
		} else if (used == cap) {
			txt_lines(st, buf, buf + used, true);
			used = 0;
		}
	}
	free(buf);
	if (ret) {
		free(st);
		return hs_error_set(err, ret == HS_ERR_RUNTIME ? HS_ERR_RUNTIME : HS_ERR_INPUT,
				    "read error: %s", strerror(-ret));
	}
	return txt_end(st, total, err);
}
