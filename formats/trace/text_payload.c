// SPDX-License-Identifier: GPL-2.0-only
/*
 * The payloads of the events the text reader keeps: what follows the
 * event name, in the kernel's, trace-cmd's and perf's wording and in the
 * variants older kernels printed. Apart from the line header
 * (text_header.c) and the stream (text_read.c) since each event has its
 * own grammar, and sched_switch's, the most frequent, its own fast path.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "text_payload.h"
#include "text_scan.h"

/*
 * A u32 field. Kernels before ~4.7 printed some of them with %d, so a
 * value above INT32_MAX shows up negative: take it back modulo 2^32.
 */
static inline bool txt_u32(const char **pp, const char *e, uint32_t *v)
{
	const char *p = *pp;
	bool neg = false;
	uint64_t x;

	if (p < e && *p == '-') {
		neg = true;
		p++;
	}
	if (!txt_u64(&p, e, &x))
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

static bool txt_grow(const char **pp, const char *e, bool *grow)
{
	if (TXT_LIT(pp, e, "grow "))
		*grow = true;
	else if (TXT_LIT(pp, e, "shrink "))
		*grow = false;
	else
		return false;
	return true;
}

/* "wait time N ns, polling valid"; 4.0-4.6 stop after "ns". */
static bool txt_wakeup(const char *p, const char *e, struct hs_event *ev)
{
	uint64_t v;

	if (TXT_LIT(&p, e, "wait time "))
		ev->wakeup.waited = true;
	else if (TXT_LIT(&p, e, "poll time "))
		ev->wakeup.waited = false;
	else
		return false;
	if (!txt_u64(&p, e, &ev->wakeup.ns) || !TXT_LIT(&p, e, " ns"))
		return false;
	/* a proposed variant adds the window in force; tolerate it */
	if (TXT_LIT(&p, e, " (max poll ") &&
	    (!txt_u64(&p, e, &v) || !TXT_LIT(&p, e, " ns)")))
		return false;
	ev->wakeup.valid = -1;
	if (p == e)
		return true;
	if (!TXT_LIT(&p, e, ", polling "))
		return false;
	if (TXT_LIT(&p, e, "valid"))
		ev->wakeup.valid = 1;
	else if (TXT_LIT(&p, e, "invalid"))
		ev->wakeup.valid = 0;
	else
		return false;
	return p == e;
}

/* "NEW (grow OLD)" / "NEW (shrink OLD)" after "halt_poll_ns ". */
static bool txt_window(const char *p, const char *e, uint32_t *nv, uint32_t *ov,
		       bool *grow)
{
	return txt_u32(&p, e, nv) && TXT_LIT(&p, e, " (") &&
	       txt_grow(&p, e, grow) && txt_u32(&p, e, ov) &&
	       TXT_LIT(&p, e, ")") && p == e;
}

static bool txt_halt_poll(const char *p, const char *e, struct hs_event *ev)
{
	struct hs_poll_change *c = &ev->poll;

	return TXT_LIT(&p, e, "vcpu ") && txt_u32(&p, e, &c->vcpu_id) &&
	       TXT_LIT(&p, e, ": halt_poll_ns ") &&
	       txt_window(p, e, &c->new_ns, &c->old_ns, &c->grow);
}

static bool txt_idle(const char *p, const char *e, struct hs_event *ev)
{
	return TXT_LIT(&p, e, "state=") && txt_u32(&p, e, &ev->idle.state) &&
	       TXT_LIT(&p, e, " cpu_id=") && txt_u32(&p, e, &ev->idle.cpu_id) &&
	       p == e;
}

static bool txt_guest_poll(const char *p, const char *e, struct hs_event *ev)
{
	struct hs_guest_poll *g = &ev->guest_poll;

	return TXT_LIT(&p, e, "halt_poll_ns ") &&
	       txt_window(p, e, &g->new_ns, &g->old_ns, &g->grow);
}

/* [a, a + n) holds the n bytes of b: short literals, compared in line. */
static inline bool txt_same(const char *a, const char *b, size_t n)
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
static inline const char *txt_rfind(const char *s, const char *e, const char *lit, size_t n)
{
	size_t len = (size_t)(e - s);

	for (size_t i = len >= n ? len - n + 1 : 0; i > 0; i--)
		if (s[i - 1] == lit[0] && txt_same(s + i, lit + 1, n - 1))
			return s + i - 1;
	return NULL;
}

/*
 * A task's pid in [s, e): "NAME=PID" when the kernel's "name=" label is
 * there (kernel text, perf), else trace-cmd's "COMM:PID [PRIO]", the pid
 * being the digits before the last " [" (a comm may hold blanks and colons).
 */
static bool txt_sched_pid(const char *s, const char *e, const char *label, size_t n,
			  int32_t *pid)
{
	const char *p = txt_rfind(s, e, label, n), *d, *q;

	if (p) {
		p += n;
		for (q = p; q < e && txt_digit(*q); q++)
			;
		return txt_i32(p, q, pid);
	}
	q = txt_rfind(s, e, " [", 2);
	if (!q)
		return false;
	d = txt_rdigits(s, q);
	return d > s && d[-1] == ':' && txt_i32(d, q, pid);
}

/* lit (n bytes) ends at r, within [s, r): where it starts, else NULL. */
static inline const char *txt_before(const char *s, const char *r, const char *lit, size_t n)
{
	return (size_t)(r - s) >= n && txt_same(r - n, lit, n) ? r - n : NULL;
}

/* "LABEL=N" ending at r, the digits read into v: where the label starts, else NULL. */
static const char *txt_rfield(const char *s, const char *r, const char *label, size_t n,
			      int32_t *v)
{
	const char *d = txt_rdigits(s, r);

	return d < r && txt_i32(d, r, v) ? txt_before(s, d, label, n) : NULL;
}

/*
 * The kernel's and perf's sched_switch read from its fixed end
 * "prev_pid=1 prev_prio=120 prev_state=R+ ==> next_comm=B next_pid=2 next_prio=120",
 * so only next_comm is searched. It gives what the searches of
 * txt_sched_switch would: nothing after either label holds it again,
 * and no " ==> " starts later than 4 bytes before " next_pid=". False:
 * another form, left to the searches.
 */
static bool txt_sched_switch_tail(const char *p, const char *e, struct hs_sched_switch *sw)
{
	const char *t, *arrow, *st;
	int32_t prio;

	t = txt_rfield(p, e, " next_prio=", 11, &prio);
	t = t ? txt_rfield(p, t, " next_pid=", 10, &sw->next_pid) : NULL;
	arrow = t ? txt_rfind(p, t + 1, " ==> ", 5) : NULL;
	st = arrow ? txt_rfind(p, arrow, "prev_state=", 11) : NULL;
	t = st && st > p && st[-1] == ' ' ? txt_rfield(p, st - 1, " prev_prio=", 11, &prio) : NULL;
	if (!t || !txt_rfield(p, t, "prev_pid=", 9, &sw->prev_pid) || st + 11 >= arrow)
		return false;
	sw->prev_runnable = st[11] == 'R';
	return true;
}

/*
 * "prev_comm=A prev_pid=1 prev_prio=120 prev_state=R+ ==> next_comm=B next_pid=2 next_prio=120"
 * (kernel, perf) or "A:1 [120] R+ ==> B:2 [120]" (trace-cmd). The state is
 * runnable when it is R or R+ (preempted).
 */
static bool txt_sched_switch(const char *p, const char *e, struct hs_event *ev)
{
	const char *arrow, *st;
	struct hs_sched_switch *sw = &ev->sched_switch;

	if (txt_sched_switch_tail(p, e, sw))
		return true;
	arrow = txt_rfind(p, e, " ==> ", 5);

	if (!arrow)
		return false;
	st = txt_rfind(p, arrow, "prev_state=", 11);
	if (st) {
		st += 11;
	} else {
		st = txt_rfind(p, arrow, " ", 1);
		if (!st)
			return false;
		st++;
	}
	if (st >= arrow)
		return false;
	sw->prev_runnable = *st == 'R';
	return txt_sched_pid(p, st, "prev_pid=", 9, &sw->prev_pid) &&
	       txt_sched_pid(arrow + 5, e, "next_pid=", 9, &sw->next_pid);
}

/*
 * "comm=A pid=1 prio=120 target_cpu=001" (kernel, perf; older kernels put
 * "success=1 " before target_cpu) or "A:1 [120] CPU:001" (trace-cmd's
 * sched_wakeup; its sched_waking keeps the kernel's words).
 */
static bool txt_sched_wakeup(const char *p, const char *e, struct hs_event *ev)
{
	struct hs_sched_wakeup *w = &ev->sched_wakeup;
	const char *c = txt_rfind(p, e, "target_cpu=", 11), *q;
	size_t n = 11;

	if (!c) {
		c = txt_rfind(p, e, "CPU:", 4);
		n = 4;
	}
	if (!c)
		return false;
	for (q = c + n; q < e && txt_digit(*q); q++)
		;
	return q == e && txt_i32(c + n, q, &w->target_cpu) &&
	       txt_sched_pid(p, c, " pid=", 5, &w->pid);
}

/* Only the union member of kind is written: the caller sets kind, ts, cpu, tid. */
bool hs_txt_payload(int kind, const char *p, const char *e, struct hs_event *ev)
{
	switch (kind) {
	case HS_EV_VCPU_WAKEUP:
		return txt_wakeup(p, e, ev);
	case HS_EV_HALT_POLL_NS:
		return txt_halt_poll(p, e, ev);
	case HS_EV_CPU_IDLE:
		return txt_idle(p, e, ev);
	case HS_EV_GUEST_HALT_POLL_NS:
		return txt_guest_poll(p, e, ev);
	case HS_EV_SCHED_SWITCH:
		return txt_sched_switch(p, e, ev);
	case HS_EV_SCHED_WAKEUP:
	case HS_EV_SCHED_WAKING:
		return txt_sched_wakeup(p, e, ev);
	}
	return false;
}
