// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reader for pasted text traces: the kernel's trace / trace_pipe files,
 * `trace-cmd report` and `perf script` output, mixed freely.
 *
 * Everything works in place on the caller's buffer with explicit lengths:
 * no copy of a line, no allocation per line, no sscanf. Only the first
 * HS_TXT_HEAD bytes of a line are searched for the task/CPU/time header,
 * so a huge garbage line costs one memchr for its newline and nothing more.
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
#include "text_internal.h"

#define HS_TXT_HEAD	512	/* header search window per line */
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

static inline bool hs_txt_digit(char c)
{
	return (unsigned char)(c - '0') < 10;
}

static inline const char *hs_txt_spaces(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* Consumes literal s (n bytes) at *pp. */
static inline bool hs_txt_lit(const char **pp, const char *e, const char *s, size_t n)
{
	if ((size_t)(e - *pp) < n || memcmp(*pp, s, n))
		return false;
	*pp += n;
	return true;
}

#define HS_TXT_LIT(pp, e, s) hs_txt_lit(pp, e, s, sizeof(s) - 1)

static inline bool hs_txt_u64(const char **pp, const char *e, uint64_t *v)
{
	const char *p = *pp, *fast;
	uint64_t x = 0;

	if (p >= e || !hs_txt_digit(*p))
		return false;
	/* 19 digits cannot overflow: check only beyond them */
	fast = e - p > 19 ? p + 19 : e;
	do
		x = x * 10 + (uint64_t)(*p++ - '0');
	while (p < fast && hs_txt_digit(*p));
	for (; p < e && hs_txt_digit(*p); p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*pp = p;
	*v = x;
	return true;
}

/*
 * A u32 field. Kernels before ~4.7 printed some of them with %d, so a
 * value above INT32_MAX shows up negative: take it back modulo 2^32.
 */
static inline bool hs_txt_u32(const char **pp, const char *e, uint32_t *v)
{
	const char *p = *pp;
	bool neg = false;
	uint64_t x;

	if (p < e && *p == '-') {
		neg = true;
		p++;
	}
	if (!hs_txt_u64(&p, e, &x))
		return false;
	if (neg) {
		if (x > 0x80000000u)
			return false;
		*v = (uint32_t)(0x100000000ull - x);
	} else {
		if (x > UINT32_MAX)
			return false;
		*v = (uint32_t)x;
	}
	*pp = p;
	return true;
}

/* "SEC.FRAC:" (1 to 9 decimals) or an integer counter-clock "N:", to ns. */
static bool hs_txt_ts(const char **pp, const char *e, uint64_t *ts)
{
	static const uint64_t scale[10] = {
		1000000000ull, 100000000ull, 10000000ull, 1000000ull, 100000ull,
		10000ull, 1000ull, 100ull, 10ull, 1ull,
	};
	const char *p = *pp, *f;
	uint64_t sec, frac = 0;

	if (!hs_txt_u64(&p, e, &sec))
		return false;
	if (p < e && *p == '.') {
		f = ++p;
		while (p < e && hs_txt_digit(*p) && p - f < 10)
			frac = frac * 10 + (uint64_t)(*p++ - '0');
		if (p == f || p - f > 9 || sec > UINT64_MAX / 1000000000ull)
			return false;
		sec = sec * 1000000000ull;
		frac *= scale[p - f];
		if (sec > UINT64_MAX - frac)
			return false;
		sec += frac;
	}
	if (p >= e || *p != ':')
		return false;
	*pp = p + 1;
	*ts = sec;
	return true;
}

/* Decimal in [s, e) of at most 10 digits that fits an int32. */
static bool hs_txt_i32(const char *s, const char *e, int32_t *v)
{
	uint64_t x = 0;

	if (s == e || e - s > 10)
		return false;
	for (; s < e; s++) {
		if (!hs_txt_digit(*s))
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (x > INT32_MAX)
		return false;
	*v = (int32_t)x;
	return true;
}

/* Backwards over at most 10 digits ending at r (exclusive). */
static inline const char *hs_txt_rdigits(const char *s, const char *r)
{
	const char *d = r;

	while (d > s && r - d < 11 && hs_txt_digit(d[-1]))
		d--;
	return d;
}

static inline const char *hs_txt_rspaces(const char *s, const char *r)
{
	while (r > s && (r[-1] == ' ' || r[-1] == '\t'))
		r--;
	return r;
}

/* "(  6001)" or "(-------)" right before r: the record-tgid column. */
static const char *hs_txt_tgid(const char *s, const char *r, int32_t *tgid)
{
	const char *o = r - 1, *lim = r - s > 24 ? r - 24 : s, *p;

	while (o > lim && *o != '(')
		o--;
	if (*o != '(')
		return NULL;
	p = hs_txt_spaces(o + 1, r - 1);
	if (p < r - 1 && *p == '-') {
		while (p < r - 1 && *p == '-')
			p++;
		if (p != r - 1)
			return NULL;
		*tgid = -1;
	} else if (!hs_txt_i32(p, r - 1, tgid)) {
		return NULL;
	}
	return hs_txt_rspaces(s, o);
}

/*
 * The task part [s, r): "COMM-PID" (kernel, trace-cmd; split at the last
 * '-' since names hold dashes and spaces), "COMM PID" or "COMM PID/TID"
 * (perf), then optionally "(TGID)".
 */
static bool hs_txt_task(const char *s, const char *r, struct hs_txt_head *h)
{
	const char *d, *d2;
	int32_t pid;

	h->tgid = -1;
	h->perf = false;
	r = hs_txt_rspaces(s, r);
	if (r > s && r[-1] == ')') {
		r = hs_txt_tgid(s, r, &h->tgid);
		if (!r)
			return false;
	}
	d = hs_txt_rdigits(s, r);
	if (!hs_txt_i32(d, r, &pid))
		return false;
	h->tid = pid;
	if (d > s && d[-1] == '/') {
		d2 = hs_txt_rdigits(s, d - 1);
		if (!hs_txt_i32(d2, d - 1, &h->tgid))
			return false;
		d = d2;
		if (d == s || d[-1] != ' ')
			return false;
	}
	if (d <= s + 1)
		return false;
	if (d[-1] == '-') {
		h->comm_len = (size_t)(d - 1 - s);
	} else if (d[-1] == ' ') {
		h->perf = true;
		h->comm_len = (size_t)(hs_txt_rspaces(s, d) - s);
		if (!h->comm_len)
			return false;
	} else {
		return false;
	}
	h->comm = s;
	return true;
}

/* "[NNN]" followed by a blank: the CPU column. Returns the byte after ']'. */
static const char *hs_txt_cpu_at(const char *b, const char *e, int32_t *cpu)
{
	const char *p = b + 1, *d = p;

	while (p < e && hs_txt_digit(*p) && p - d < 7)
		p++;
	if (p == d || p >= e || *p != ']' || !hs_txt_i32(d, p, cpu))
		return NULL;
	p++;
	if (p < e && *p != ' ' && *p != '\t')
		return NULL;
	return p;
}

/* After the CPU: optional flags column ("d..1.", "d..1"), then the time. */
static const char *hs_txt_after_cpu(const char *p, const char *e, struct hs_txt_head *h)
{
	const char *t;

	p = hs_txt_spaces(p, e);
	if (p < e && !hs_txt_digit(*p)) {
		t = p;
		while (p < e && *p != ' ' && p - t < 9)
			p++;
		if (p - t > 8)
			return NULL;
		p = hs_txt_spaces(p, e);
	}
	if (!hs_txt_ts(&p, e, &h->ts))
		return NULL;
	return p;
}

/*
 * trace-cmd report -l: "COMM-PID CPUFLAGS TIME:" with no brackets. Finds
 * the time token preceded by a token of digits then flag characters.
 */
static const char *hs_txt_latency(const char *s, const char *e, struct hs_txt_head *h)
{
	const char *w = e - s > HS_TXT_HEAD ? s + HS_TXT_HEAD : e;
	const char *p = s, *prev = NULL, *t, *q, *c;

	while (p < w) {
		t = p;
		while (p < w && *p != ' ' && *p != '\t')
			p++;
		q = t;
		if (prev && hs_txt_digit(*t) && hs_txt_ts(&q, e, &h->ts)) {
			c = prev;
			while (hs_txt_digit(*c))
				c++;
			if (c == prev || c == t || *c == ' ' ||
			    !hs_txt_i32(prev, c, &h->cpu) ||
			    !hs_txt_task(s, prev, h))
				return NULL;
			return q;
		}
		prev = t;
		p = hs_txt_spaces(p, w);
	}
	return NULL;
}

/* The header of an event line; returns where the event name starts. */
static const char *hs_txt_head(const char *s, const char *e, struct hs_txt_head *h,
			       bool *latency)
{
	const char *w = e - s > HS_TXT_HEAD ? s + HS_TXT_HEAD : e;
	const char *b = s, *q;

	*latency = false;
	for (; b < w && (b = memchr(b, '[', (size_t)(w - b))); b++) {
		if (b > s && (b[-1] == ' ' || b[-1] == '\t') &&
		    (q = hs_txt_cpu_at(b, e, &h->cpu)) && hs_txt_task(s, b, h)) {
			q = hs_txt_after_cpu(q, e, h);
			return q ? hs_txt_spaces(q, e) : NULL;
		}
	}
	q = hs_txt_latency(s, e, h);
	if (!q)
		return NULL;
	*latency = true;
	return hs_txt_spaces(q, e);
}

static bool hs_txt_grow(const char **pp, const char *e, bool *grow)
{
	if (HS_TXT_LIT(pp, e, "grow "))
		*grow = true;
	else if (HS_TXT_LIT(pp, e, "shrink "))
		*grow = false;
	else
		return false;
	return true;
}

/* "wait time N ns, polling valid"; 4.0-4.6 stop after "ns". */
static bool hs_txt_wakeup(const char *p, const char *e, struct hs_event *ev)
{
	uint64_t v;

	if (HS_TXT_LIT(&p, e, "wait time "))
		ev->wakeup.waited = true;
	else if (HS_TXT_LIT(&p, e, "poll time "))
		ev->wakeup.waited = false;
	else
		return false;
	if (!hs_txt_u64(&p, e, &ev->wakeup.ns) || !HS_TXT_LIT(&p, e, " ns"))
		return false;
	/* a proposed variant adds the window in force; tolerate it */
	if (HS_TXT_LIT(&p, e, " (max poll ") &&
	    (!hs_txt_u64(&p, e, &v) || !HS_TXT_LIT(&p, e, " ns)")))
		return false;
	ev->wakeup.valid = -1;
	if (p == e)
		return true;
	if (!HS_TXT_LIT(&p, e, ", polling "))
		return false;
	if (HS_TXT_LIT(&p, e, "valid"))
		ev->wakeup.valid = 1;
	else if (HS_TXT_LIT(&p, e, "invalid"))
		ev->wakeup.valid = 0;
	else
		return false;
	return p == e;
}

/* "NEW (grow OLD)" / "NEW (shrink OLD)" after "halt_poll_ns ". */
static bool hs_txt_window(const char *p, const char *e, uint32_t *nv, uint32_t *ov,
			  bool *grow)
{
	return hs_txt_u32(&p, e, nv) && HS_TXT_LIT(&p, e, " (") &&
	       hs_txt_grow(&p, e, grow) && hs_txt_u32(&p, e, ov) &&
	       HS_TXT_LIT(&p, e, ")") && p == e;
}

static bool hs_txt_halt_poll(const char *p, const char *e, struct hs_event *ev)
{
	struct hs_poll_change *c = &ev->poll;

	return HS_TXT_LIT(&p, e, "vcpu ") && hs_txt_u32(&p, e, &c->vcpu_id) &&
	       HS_TXT_LIT(&p, e, ": halt_poll_ns ") &&
	       hs_txt_window(p, e, &c->new_ns, &c->old_ns, &c->grow);
}

static bool hs_txt_idle(const char *p, const char *e, struct hs_event *ev)
{
	return HS_TXT_LIT(&p, e, "state=") && hs_txt_u32(&p, e, &ev->idle.state) &&
	       HS_TXT_LIT(&p, e, " cpu_id=") && hs_txt_u32(&p, e, &ev->idle.cpu_id) &&
	       p == e;
}

static bool hs_txt_guest_poll(const char *p, const char *e, struct hs_event *ev)
{
	struct hs_guest_poll *g = &ev->guest_poll;

	return HS_TXT_LIT(&p, e, "halt_poll_ns ") &&
	       hs_txt_window(p, e, &g->new_ns, &g->old_ns, &g->grow);
}

/* [a, a + n) holds the n bytes of b: short literals, compared in line. */
static inline bool hs_txt_same(const char *a, const char *b, size_t n)
{
	while (n && *a == *b) {
		a++;
		b++;
		n--;
	}
	return !n;
}

/*
 * The last occurrence of literal lit (n >= 1 bytes) in [s, e), or NULL.
 * A sched_switch line is searched four times: a byte loop, with no call
 * per candidate, keeps those lines cheap.
 */
static inline const char *hs_txt_rfind(const char *s, const char *e, const char *lit, size_t n)
{
	size_t len = (size_t)(e - s);

	for (size_t i = len >= n ? len - n + 1 : 0; i > 0; i--)
		if (s[i - 1] == lit[0] && hs_txt_same(s + i, lit + 1, n - 1))
			return s + i - 1;
	return NULL;
}

/*
 * A task's pid in [s, e): "NAME=PID" when the kernel's "name=" label is
 * there (kernel text, perf), else trace-cmd's "COMM:PID [PRIO]", the pid
 * being the digits before the last " [" (a comm may hold blanks and colons).
 */
static bool hs_txt_sched_pid(const char *s, const char *e, const char *label, size_t n,
			     int32_t *pid)
{
	const char *p = hs_txt_rfind(s, e, label, n), *d, *q;

	if (p) {
		p += n;
		for (q = p; q < e && hs_txt_digit(*q); q++)
			;
		return hs_txt_i32(p, q, pid);
	}
	q = hs_txt_rfind(s, e, " [", 2);
	if (!q)
		return false;
	d = hs_txt_rdigits(s, q);
	return d > s && d[-1] == ':' && hs_txt_i32(d, q, pid);
}

/* lit (n bytes) ends at r, within [s, r): where it starts, else NULL. */
static inline const char *hs_txt_before(const char *s, const char *r, const char *lit, size_t n)
{
	return (size_t)(r - s) >= n && hs_txt_same(r - n, lit, n) ? r - n : NULL;
}

/* "LABEL=N" ending at r, the digits read into v: where the label starts, else NULL. */
static const char *hs_txt_rfield(const char *s, const char *r, const char *label, size_t n,
				 int32_t *v)
{
	const char *d = hs_txt_rdigits(s, r);

	return d < r && hs_txt_i32(d, r, v) ? hs_txt_before(s, d, label, n) : NULL;
}

/*
 * The kernel's and perf's sched_switch read from its fixed end
 * "prev_pid=1 prev_prio=120 prev_state=R+ ==> next_comm=B next_pid=2 next_prio=120",
 * so only next_comm is searched. It gives what the searches of
 * hs_txt_sched_switch would: nothing after either label holds it again,
 * and no " ==> " starts later than 4 bytes before " next_pid=". False:
 * another form, left to the searches.
 */
static bool hs_txt_sched_switch_tail(const char *p, const char *e, struct hs_sched_switch *sw)
{
	const char *t, *arrow, *st;
	int32_t prio;

	t = hs_txt_rfield(p, e, " next_prio=", 11, &prio);
	t = t ? hs_txt_rfield(p, t, " next_pid=", 10, &sw->next_pid) : NULL;
	arrow = t ? hs_txt_rfind(p, t + 1, " ==> ", 5) : NULL;
	st = arrow ? hs_txt_rfind(p, arrow, "prev_state=", 11) : NULL;
	t = st && st > p && st[-1] == ' ' ? hs_txt_rfield(p, st - 1, " prev_prio=", 11, &prio) : NULL;
	if (!t || !hs_txt_rfield(p, t, "prev_pid=", 9, &sw->prev_pid) || st + 11 >= arrow)
		return false;
	sw->prev_runnable = st[11] == 'R';
	return true;
}

/*
 * "prev_comm=A prev_pid=1 prev_prio=120 prev_state=R+ ==> next_comm=B next_pid=2 next_prio=120"
 * (kernel, perf) or "A:1 [120] R+ ==> B:2 [120]" (trace-cmd). The state is
 * runnable when it is R or R+ (preempted).
 */
static bool hs_txt_sched_switch(const char *p, const char *e, struct hs_event *ev)
{
	const char *arrow, *st;
	struct hs_sched_switch *sw = &ev->sched_switch;

	if (hs_txt_sched_switch_tail(p, e, sw))
		return true;
	arrow = hs_txt_rfind(p, e, " ==> ", 5);

	if (!arrow)
		return false;
	st = hs_txt_rfind(p, arrow, "prev_state=", 11);
	if (st) {
		st += 11;
	} else {
		st = hs_txt_rfind(p, arrow, " ", 1);
		if (!st)
			return false;
		st++;
	}
	if (st >= arrow)
		return false;
	sw->prev_runnable = *st == 'R';
	return hs_txt_sched_pid(p, st, "prev_pid=", 9, &sw->prev_pid) &&
	       hs_txt_sched_pid(arrow + 5, e, "next_pid=", 9, &sw->next_pid);
}

/*
 * "comm=A pid=1 prio=120 target_cpu=001" (kernel, perf; older kernels put
 * "success=1 " before target_cpu) or "A:1 [120] CPU:001" (trace-cmd's
 * sched_wakeup; its sched_waking keeps the kernel's words).
 */
static bool hs_txt_sched_wakeup(const char *p, const char *e, struct hs_event *ev)
{
	struct hs_sched_wakeup *w = &ev->sched_wakeup;
	const char *c = hs_txt_rfind(p, e, "target_cpu=", 11), *q;
	size_t n = 11;

	if (!c) {
		c = hs_txt_rfind(p, e, "CPU:", 4);
		n = 4;
	}
	if (!c)
		return false;
	for (q = c + n; q < e && hs_txt_digit(*q); q++)
		;
	return q == e && hs_txt_i32(c + n, q, &w->target_cpu) &&
	       hs_txt_sched_pid(p, c, " pid=", 5, &w->pid);
}

/* Event name (system prefix already dropped) to kind; 0 when not ours. */
static inline int hs_txt_kind(const char *n, size_t len)
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
static void hs_txt_note(struct hs_txt_state *st, const char *p, const char *e)
{
	static const char prefix[] = HS_RECMETA_NOTE_PREFIX;
	size_t room = (size_t)(e - p);
	const char *n = memmem(p, room < 96 ? room : 96, prefix, sizeof(prefix) - 1);

	if (n)
		hs_recmeta_note(n, (size_t)(e - n), st->sink, &st->notes_lost);
}

static bool hs_txt_payload(int kind, const char *p, const char *e, struct hs_event *ev)
{
	switch (kind) {
	case HS_EV_VCPU_WAKEUP:
		return hs_txt_wakeup(p, e, ev);
	case HS_EV_HALT_POLL_NS:
		return hs_txt_halt_poll(p, e, ev);
	case HS_EV_CPU_IDLE:
		return hs_txt_idle(p, e, ev);
	case HS_EV_GUEST_HALT_POLL_NS:
		return hs_txt_guest_poll(p, e, ev);
	case HS_EV_SCHED_SWITCH:
		return hs_txt_sched_switch(p, e, ev);
	case HS_EV_SCHED_WAKEUP:
	case HS_EV_SCHED_WAKING:
		return hs_txt_sched_wakeup(p, e, ev);
	}
	return false;
}

/* Passes a thread name on once per (tid, tgid, comm); "<...>" is no name. */
static void hs_txt_thread(struct hs_txt_state *st, const struct hs_txt_head *h)
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
static bool hs_txt_event_line(struct hs_txt_state *st, const char *s, const char *e,
			      bool prefixed)
{
	struct hs_txt_head h;
	struct hs_event ev;
	const char *p, *t, *te, *n;
	bool latency, tcmd;
	int kind, form, ret;

	p = hs_txt_head(s, e, &h, &latency);
	if (!p)
		return false;
	tcmd = prefixed || latency;
	if (p < e && *p == '(') {	/* trace-cmd report --ts-diff "(+N)" */
		while (p < e && *p != ' ')
			p++;
		p = hs_txt_spaces(p, e);
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
	p = hs_txt_spaces(te, e);

	form = h.perf ? HS_TXT_PERF : tcmd || st->ctx_tcmd ? HS_TXT_TCMD : HS_TXT_KERNEL;
	st->forms[form]++;

	kind = hs_txt_kind(n, (size_t)(te - 1 - n));
	if (!kind)
		return true;
	if (kind == HS_EV_MARKER) {
		hs_txt_note(st, p, e);
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
	hs_txt_thread(st, &h);
	ret = st->sink->event(st->sink->priv, &ev);
	if (ret && !st->status)
		st->status = ret;
	return true;
}

/* "CPU:N [LOST N EVENTS]" (kernel), "CPU:N [N EVENTS DROPPED]" (trace-cmd). */
static bool hs_txt_lost(struct hs_txt_state *st, const char *p, const char *e)
{
	uint64_t cpu, n = 0;
	bool known = true;
	int form = HS_TXT_KERNEL;

	if (!HS_TXT_LIT(&p, e, "CPU:") || !hs_txt_u64(&p, e, &cpu) || cpu > INT32_MAX ||
	    !HS_TXT_LIT(&p, e, " ["))
		return false;
	if (HS_TXT_LIT(&p, e, "LOST ")) {
		if (HS_TXT_LIT(&p, e, "EVENTS]"))
			known = false;
		else if (!hs_txt_u64(&p, e, &n) || !HS_TXT_LIT(&p, e, " EVENTS]"))
			return false;
	} else {
		form = HS_TXT_TCMD;
		if (HS_TXT_LIT(&p, e, "SUBBUFFER START]")) {
			st->recognised++;
			return true;	/* trace-cmd report --debug page marks */
		}
		if (HS_TXT_LIT(&p, e, "EVENTS DROPPED]"))
			known = false;
		else if (!hs_txt_u64(&p, e, &n) || !HS_TXT_LIT(&p, e, " EVENTS DROPPED]"))
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
			st->status = -ENOMEM;
	}
	return true;
}

/* "#" lines: "# tracer:" starts a kernel file, "#P:N" is its CPU count. */
static void hs_txt_comment(struct hs_txt_state *st, const char *p, const char *e)
{
	const char *q;
	uint64_t n;

	if (HS_TXT_LIT(&p, e, "# tracer:")) {
		st->ctx_tcmd = false;
		st->recognised++;
		return;
	}
	if (!HS_TXT_LIT(&p, e, "# entries-in-buffer/entries-written:"))
		return;
	q = memmem(p, (size_t)(e - p), "#P:", 3);
	if (!q)
		return;
	q += 3;
	if (hs_txt_u64(&q, e, &n) && n <= INT32_MAX)
		st->meta->ncpus = (int)n;
}

/* trace-cmd report's first lines: "version = 6", "cpus=N". */
static bool hs_txt_tcmd_header(struct hs_txt_state *st, const char *p, const char *e)
{
	uint64_t n;

	if (HS_TXT_LIT(&p, e, "cpus=")) {
		if (!hs_txt_u64(&p, e, &n) || p != e || n > INT32_MAX)
			return false;
		st->meta->ncpus = (int)n;
	} else if (HS_TXT_LIT(&p, e, "version = ")) {
		if (!hs_txt_u64(&p, e, &n) || p != e)
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
static const char *hs_txt_prefix(const char *p, const char *e, size_t *name_len)
{
	const char *t = p;

	while (p < e && *p != ' ' && *p != '\t' && p - t <= HS_META_STR)
		p++;
	if (p == e || p - t < 2 || p[-1] != ':' || *p != ' ')
		return NULL;
	*name_len = (size_t)(p - 1 - t);
	return hs_txt_spaces(p, e);
}

static bool hs_txt_parse(struct hs_txt_state *st, const char *s, const char *e,
			 bool prefixed)
{
	return hs_txt_event_line(st, s, e, prefixed) || hs_txt_lost(st, s, e) ||
	       hs_txt_tcmd_header(st, s, e);
}

static void hs_txt_line(struct hs_txt_state *st, const char *p, const char *e)
{
	char *bi = st->meta->buffer_instance;
	const char *s;
	size_t n;

	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	p = hs_txt_spaces(p, e);
	if (p == e)
		return;
	if (*p == '#') {
		hs_txt_comment(st, p, e);
		return;
	}
	s = hs_txt_prefix(p, e, &n);
	if (s && hs_txt_parse(st, s, e, true)) {
		if (!bi[0] && n < sizeof(st->meta->buffer_instance)) {
			memcpy(bi, p, n);
			bi[n] = '\0';
		}
		return;
	}
	if (!hs_txt_parse(st, p, e, false))
		st->meta->skipped_lines++;
}

static const char *const hs_txt_form_names[HS_TXT_NFORMS] = {
	[HS_TXT_KERNEL] = "text (kernel trace)",
	[HS_TXT_TCMD] = "text (trace-cmd report)",
	[HS_TXT_PERF] = "text (perf script)",
};

/* The dominant form names the input; perf script never prints losses. */
static void hs_txt_finish_meta(struct hs_txt_state *st)
{
	struct hs_meta *m = st->meta;
	int f = HS_TXT_KERNEL;

	if (st->forms[HS_TXT_TCMD] > st->forms[f])
		f = HS_TXT_TCMD;
	if (st->forms[HS_TXT_PERF] > st->forms[f])
		f = HS_TXT_PERF;
	snprintf(m->format, sizeof(m->format), "%s", hs_txt_form_names[f]);
	m->lost_known = f != HS_TXT_PERF;
}

static struct hs_txt_state *hs_txt_begin(struct hs_sink *sink)
{
	struct hs_txt_state *st = calloc(1, sizeof(*st));

	if (st) {
		st->sink = sink;
		st->meta = sink->meta;
	}
	return st;
}

/* Losses the notes count beyond the loss lines: counted, not placed. */
static void hs_txt_notes_losses(struct hs_txt_state *st)
{
	for (int c = 0; c < st->notes_lost.ncpus; c++) {
		int64_t seen = c < st->seen_lost.ncpus ? st->seen_lost.lost[c] : 0;

		if (st->notes_lost.lost[c] > (seen > 0 ? seen : 0))
			st->meta->lost_events += (uint64_t)(st->notes_lost.lost[c] - (seen > 0 ? seen : 0));
	}
}

/* Complete lines of [p, e), and the last one too if final; returns the rest. */
static const char *hs_txt_lines(struct hs_txt_state *st, const char *p, const char *e,
				bool final)
{
	const char *nl;

	while (p < e && !st->status) {
		nl = memchr(p, '\n', (size_t)(e - p));
		if (!nl && !final)
			break;
		if (!nl)
			nl = e;
		hs_txt_line(st, p, nl);
		p = nl < e ? nl + 1 : e;
	}
	return p;
}

static int hs_txt_end(struct hs_txt_state *st, uint64_t len, struct hs_error *err)
{
	int ret = HS_OK;

	hs_txt_finish_meta(st);
	hs_txt_notes_losses(st);
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
	struct hs_txt_state *st = hs_txt_begin(sink);

	if (!st)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory reading text");
	hs_txt_lines(st, buf, buf + len, true);
	return hs_txt_end(st, len, err);
}

/*
 * Reads until buf holds a newline after *used bytes, or is full, or EOF;
 * 128 KiB at a time, so that the lines are parsed while in the L2 cache.
 */
static int hs_txt_fill(int fd, char *buf, size_t cap, size_t *used, bool *eof)
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
	struct hs_txt_state *st = hs_txt_begin(sink);
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

		ret = hs_txt_fill(fd, buf, cap, &used, &eof);
		total += used - before;
		rest = hs_txt_lines(st, buf, buf + used, eof || ret);
		used -= (size_t)(rest - buf);
		memmove(buf, rest, used);
		if (eof)
			break;
		if (used == cap && cap < HS_TXT_BUF_MAX) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		} else if (used == cap) {
			hs_txt_lines(st, buf, buf + used, true);
			used = 0;
		}
	}
	free(buf);
	if (ret) {
		free(st);
		return hs_error_set(err, ret == -ENOMEM ? HS_ERR_RUNTIME : HS_ERR_INPUT,
				    "read error: %s", strerror(-ret));
	}
	return hs_txt_end(st, total, err);
}
