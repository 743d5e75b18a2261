// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-CPU runqueues from the scheduler's events (runq.h). Memory is bounded:
 * HS_RUNQ_TASKS tasks and HS_RUNQ_HISTORY changes per CPU, a CPU's state
 * made when it is first named, and a fixed cache of which CPU a task was
 * last seen runnable on.
 */
#include <stdlib.h>
#include <string.h>

#include "runq.h"

#define HS_RUNQ_WHERE 4096	/* task -> CPU cache slots, a power of two */
#define HS_RUNQ_WAKING 4096	/* task -> its pending sched_waking, a power of two */
/* a sched_waking older than this before its sched_wakeup is not the same wake-up */
#define HS_RUNQ_WAKING_MAX_NS 1000000
#define HS_RUNQ_MANY (HS_RUNQ_TASKS + 1)

/* The runqueue from ts on: n tasks runnable, the one of them when n == 1. */
struct hs_runq_mark {
	uint64_t ts;
	uint32_t n;
	int32_t sole;
	int32_t left;		/* the task that went to sleep here, 0: none */
};

/*
 * What a halt looks at first sits in one cache line, ahead of the task
 * list and the history: most halts need nothing more (hs_runq_halt).
 */
struct hs_runq_cpu {
	_Alignas(64) unsigned int head;	/* next slot to write */
	unsigned int count;	/* marks held, up to HS_RUNQ_HISTORY */
	bool known;		/* a sched_switch was seen here since the start or a loss */
	bool overflow;		/* more tasks than pids[] holds: "many" until idle */
	uint64_t total;		/* marks ever made: those after a cut tell from before */
	uint64_t known_since;
	struct hs_runq_mark newest;	/* hist[head - 1], when count > 0 */
	uint32_t n;
	int32_t pids[HS_RUNQ_TASKS];
	struct hs_runq_mark hist[HS_RUNQ_HISTORY];
};

struct hs_runq_where {
	int32_t pid;
	int32_t cpu;		/* -1: none */
};

struct hs_runq_waking {
	int32_t pid;		/* 0: none */
	uint64_t ts;
};

/*
 * What the answers given after a cut in time took from the state at the
 * cut (hs_runq_watch): a state that agrees there gives the same answers.
 */
struct hs_runq_watch {
	unsigned int ncpu;		/* CPUs made at the cut */
	uint64_t *total_at_cut;		/* each one's marks then */
	unsigned int *need;		/* marks from the cut back that an answer read */
	bool *all;			/* an answer wanted more than the whole history */
	bool *since;			/* an answer was before the CPU was first seen */
	uint64_t woken_min;		/* earliest sched_wakeup looked up, UINT64_MAX none */
};

struct hs_runq {
	struct hs_runq_cpu **cpu;
	unsigned int ncpu;
	struct hs_runq_watch *watch;	/* after a cut only */
	struct hs_runq_where where[HS_RUNQ_WHERE];
	struct hs_runq_waking waking[HS_RUNQ_WAKING];
};

struct hs_runq *hs_runq_alloc(void)
{
	struct hs_runq *q = calloc(1, sizeof(*q));

	if (q)
		for (unsigned int i = 0; i < HS_RUNQ_WHERE; i++)
			q->where[i].cpu = -1;
	return q;
}

static void runq_watch_free(struct hs_runq_watch *w)
{
	if (!w)
		return;
	free(w->total_at_cut);
	free(w->need);
	free(w->all);
	free(w->since);
	free(w);
}

void hs_runq_free(struct hs_runq *q)
{
	if (!q)
		return;
	for (unsigned int i = 0; i < q->ncpu; i++)
		free(q->cpu[i]);
	free(q->cpu);
	runq_watch_free(q->watch);
	free(q);
}

/* The state of cpu made: NULL for a CPU no machine has, or out of memory. */
static struct hs_runq_cpu *runq_cpu_new(struct hs_runq *q, int cpu)
{
	if (cpu < 0 || cpu >= HS_RUNQ_MAX_CPUS)
		return NULL;
	if ((unsigned int)cpu >= q->ncpu) {
		unsigned int n = (unsigned int)cpu + 1;
		struct hs_runq_cpu **nc = realloc(q->cpu, sizeof(*nc) * n);

		if (!nc)
			return NULL;
		memset(nc + q->ncpu, 0, sizeof(*nc) * (n - q->ncpu));
		q->cpu = nc;
		q->ncpu = n;
	}
	if (!q->cpu[cpu]) {
		/* sizeof is a multiple of the alignment, as aligned_alloc wants */
		q->cpu[cpu] = aligned_alloc(_Alignof(struct hs_runq_cpu), sizeof(struct hs_runq_cpu));
		if (q->cpu[cpu])
			memset(q->cpu[cpu], 0, sizeof(struct hs_runq_cpu));
	}
	return q->cpu[cpu];
}

/* The state of cpu, made if new: every sched event looks one up. */
static inline __attribute__((always_inline)) struct hs_runq_cpu *runq_cpu(struct hs_runq *q,
									   int cpu)
{
	if ((unsigned int)cpu < q->ncpu && q->cpu[cpu])
		return q->cpu[cpu];
	return runq_cpu_new(q, cpu);
}

static const struct hs_runq_cpu *runq_cpu_get(const struct hs_runq *q, int cpu)
{
	return cpu >= 0 && (unsigned int)cpu < q->ncpu ? q->cpu[cpu] : NULL;
}

static inline struct hs_runq_where *runq_where(struct hs_runq *q, int32_t pid)
{
	return &q->where[((uint32_t)pid * 2654435761u) >> 20 & (HS_RUNQ_WHERE - 1)];
}

/* A change of the runqueue's summary at ts goes into the history; left: who went to sleep. */
static inline __attribute__((always_inline)) void runq_mark(struct hs_runq_cpu *c, uint64_t ts, bool force, int32_t left)
{
	uint32_t n = c->overflow ? HS_RUNQ_MANY : c->n;
	int32_t sole = n == 1 ? c->pids[0] : -1;
	struct hs_runq_mark mark;

	/* a wake-up dated back to its sched_waking (runq_wakeup) keeps the history in order */
	if (c->count && ts < c->newest.ts)
		ts = c->newest.ts;
	if (!force && !left && c->count && c->newest.n == n && c->newest.sole == sole)
		return;
	/* both stores from registers: a load of the first would stall on its parts */
	mark = (struct hs_runq_mark){ ts, n, sole, left };
	c->hist[c->head] = mark;
	c->newest = mark;
	c->head = (c->head + 1) % HS_RUNQ_HISTORY;
	c->total++;
	if (c->count < HS_RUNQ_HISTORY)
		c->count++;
}

static inline bool runq_remove(struct hs_runq_cpu *c, int32_t pid)
{
	for (uint32_t i = 0; i < c->n; i++) {
		if (c->pids[i] != pid)
			continue;
		c->pids[i] = c->pids[--c->n];
		return true;
	}
	return false;
}

/* pid is runnable on cpu from ts: off the runqueue it was last seen on, if another. */
static inline __attribute__((always_inline)) void runq_add(struct hs_runq *q, struct hs_runq_cpu *c, int cpu, int32_t pid, uint64_t ts)
{
	struct hs_runq_where *w = runq_where(q, pid);

	if (w->cpu >= 0 && w->cpu != cpu && w->pid == pid) {
		struct hs_runq_cpu *old = q->cpu[w->cpu];

		if (old && runq_remove(old, pid))
			runq_mark(old, ts, false, 0);
	}
	w->pid = pid;
	w->cpu = cpu;
	for (uint32_t i = 0; i < c->n; i++)
		if (c->pids[i] == pid)
			return;
	if (c->n < HS_RUNQ_TASKS)
		c->pids[c->n++] = pid;
	else
		c->overflow = true;
}

static inline __attribute__((always_inline)) void runq_switch(struct hs_runq *q, uint64_t ts, int cpu,
							    const struct hs_sched_switch *sw)
{
	struct hs_runq_cpu *c = runq_cpu(q, cpu);
	int32_t left;
	bool first;

	if (!c)
		return;
	first = !c->known;
	if (first) {
		c->known = true;
		c->known_since = ts;
	}
	/* sleeping or preempted at random: a mask, not a branch (no pids[] holds 0) */
	left = sw->prev_pid & -(int32_t)(!sw->prev_runnable & (sw->prev_pid > 0));
	if (sw->next_pid <= 0) {
		/* idle runs only on an empty runqueue: whatever was left is stale */
		c->n = 0;
		c->overflow = false;
	} else {
		runq_remove(c, left);
		runq_add(q, c, cpu, sw->next_pid, ts);
	}
	runq_mark(c, ts, first, left);
}

static struct hs_runq_waking *runq_waking_slot(struct hs_runq *q, int32_t pid)
{
	return &q->waking[((uint32_t)pid * 2654435761u) >> 20 & (HS_RUNQ_WAKING - 1)];
}

static inline void runq_waking(struct hs_runq *q, uint64_t ts, const struct hs_sched_wakeup *wk)
{
	struct hs_runq_waking *w;

	if (wk->pid <= 0)
		return;
	w = runq_waking_slot(q, wk->pid);
	w->pid = wk->pid;
	w->ts = ts;
}

/* When the task woken at ts joined a runqueue: at its sched_waking, if that was seen. */
static uint64_t runq_woken_at(struct hs_runq *q, int32_t pid, uint64_t ts)
{
	struct hs_runq_waking *w = runq_waking_slot(q, pid);
	uint64_t from = ts;

	if (q->watch && ts < q->watch->woken_min)
		q->watch->woken_min = ts;
	if (w->pid == pid && w->ts <= ts && ts - w->ts <= HS_RUNQ_WAKING_MAX_NS)
		from = w->ts;
	w->pid = 0;
	return from;
}

static inline void runq_wakeup(struct hs_runq *q, uint64_t ts, const struct hs_sched_wakeup *wk)
{
	struct hs_runq_cpu *c;

	if (wk->pid <= 0)
		return;
	c = runq_cpu(q, wk->target_cpu);
	if (!c)
		return;
	ts = runq_woken_at(q, wk->pid, ts);
	runq_add(q, c, wk->target_cpu, wk->pid, ts);
	runq_mark(c, ts, false, 0);
}

void hs_runq_events(struct hs_runq *q, const struct hs_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (ev[i].kind == HS_EV_SCHED_SWITCH)
			runq_switch(q, ev[i].ts, ev[i].cpu, &ev[i].sched_switch);
		else if (ev[i].kind == HS_EV_SCHED_WAKING)
			runq_waking(q, ev[i].ts, &ev[i].sched_wakeup);
		else
			runq_wakeup(q, ev[i].ts, &ev[i].sched_wakeup);
	}
}

static void runq_forget(struct hs_runq_cpu *c)
{
	if (c)
		memset(c, 0, sizeof(*c));
}

void hs_runq_lost(struct hs_runq *q, int cpu)
{
	if (cpu >= 0) {
		if ((unsigned int)cpu < q->ncpu)
			runq_forget(q->cpu[cpu]);
		return;
	}
	for (unsigned int i = 0; i < q->ncpu; i++)
		runq_forget(q->cpu[i]);
}

static bool runq_other(const struct hs_runq_mark *m, int tid)
{
	return m->n >= 2 || (m->n == 1 && m->sole != tid);
}

/* What an answer read of a CPU's history (runq_watch_note). */
struct runq_read {
	unsigned int marks;	/* back from the newest */
	bool all;		/* all it held, and wanted more */
	bool since;		/* none: the CPU was seen only after start */
};

/*
 * From the newest mark back to the one in force at start, then forward:
 * halts are short next to the history, so few marks are looked at.
 */
static struct runq_read runq_halt(const struct hs_runq *q, int cpu, int tid, uint64_t start,
				   uint64_t end, struct hs_runq_halt *out)
{
	const struct hs_runq_cpu *c = runq_cpu_get(q, cpu);
	unsigned int back = 0, idx;
	bool busy;
	uint64_t since;

	*out = (struct hs_runq_halt){ .known = false, .cut_ns = UINT64_MAX, .slept_ns = UINT64_MAX };
	if (!c || !c->known || !c->count)
		return (struct runq_read){ 0 };
	if (c->known_since > start)
		return (struct runq_read){ .since = true };
	if (c->newest.ts <= start) {
		/* the usual halt: nothing changed on its CPU while it lasted */
		out->known = true;
		if (runq_other(&c->newest, tid)) {
			out->cut_ns = 0;
			out->busy_ns = end > start ? end - start : 0;
		}
		return (struct runq_read){ .marks = 1 };
	}
	for (;;) {
		idx = (c->head + HS_RUNQ_HISTORY - 1 - back) % HS_RUNQ_HISTORY;
		if (c->hist[idx].ts <= start)
			break;
		if (++back == c->count)	/* the history no longer reaches back to start */
			return (struct runq_read){ .marks = back, .all = true };
	}
	out->known = true;
	busy = runq_other(&c->hist[idx], tid);
	since = start;
	if (busy)
		out->cut_ns = 0;
	while (back-- > 0) {
		const struct hs_runq_mark *m;

		idx = (idx + 1) % HS_RUNQ_HISTORY;
		m = &c->hist[idx];
		if (m->ts >= end)
			break;
		if (m->ts < since)
			continue;	/* another CPU's clock a little behind */
		if (busy)
			out->busy_ns += m->ts - since;
		if (m->left == tid && out->slept_ns == UINT64_MAX)
			out->slept_ns = m->ts - start;
		busy = runq_other(m, tid);
		since = m->ts;
		if (busy && out->cut_ns == UINT64_MAX)
			out->cut_ns = m->ts - start;
	}
	if (busy && end > since)
		out->busy_ns += end - since;
	return (struct runq_read){ .marks = back + 1 };
}

/*
 * After a cut, what of the cut's state this answer read: the marks back
 * from the newest then, and whether it ran out of them or was before the
 * CPU was first seen (the other state must then have had no more).
 */
static void runq_watch_note(struct hs_runq *q, int cpu, struct runq_read r)
{
	struct hs_runq_watch *w = q->watch;
	const struct hs_runq_cpu *c = runq_cpu_get(q, cpu);
	uint64_t since;

	if ((unsigned int)cpu >= w->ncpu || !c)
		return;		/* not there at the cut: both start it alike */
	w->since[cpu] |= r.since;
	since = c->total - w->total_at_cut[cpu];
	if (r.marks > since && r.marks - since > w->need[cpu])
		w->need[cpu] = (unsigned int)(r.marks - since);
	w->all[cpu] |= r.all && c->count < HS_RUNQ_HISTORY;
}

void hs_runq_halt(struct hs_runq *q, int cpu, int tid, uint64_t start, uint64_t end,
		  struct hs_runq_halt *out)
{
	struct runq_read r = runq_halt(q, cpu, tid, start, end, out);

	if (q->watch)
		runq_watch_note(q, cpu, r);
}

struct hs_runq *hs_runq_clone(const struct hs_runq *q)
{
	struct hs_runq *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	*c = *q;
	c->watch = NULL;
	c->cpu = q->ncpu ? calloc(q->ncpu, sizeof(*c->cpu)) : NULL;
	if (q->ncpu && !c->cpu) {
		free(c);
		return NULL;
	}
	for (unsigned int i = 0; i < q->ncpu; i++) {
		if (!q->cpu[i])
			continue;
		c->cpu[i] = aligned_alloc(_Alignof(struct hs_runq_cpu), sizeof(struct hs_runq_cpu));
		if (!c->cpu[i]) {
			hs_runq_free(c);
			return NULL;
		}
		*c->cpu[i] = *q->cpu[i];
	}
	return c;
}

int hs_runq_watch(struct hs_runq *q)
{
	struct hs_runq_watch *w = calloc(1, sizeof(*w));

	if (!w)
		return -1;
	w->ncpu = q->ncpu;
	w->woken_min = UINT64_MAX;
	w->total_at_cut = calloc(q->ncpu + 1, sizeof(*w->total_at_cut));
	w->need = calloc(q->ncpu + 1, sizeof(*w->need));
	w->all = calloc(q->ncpu + 1, sizeof(*w->all));
	w->since = calloc(q->ncpu + 1, sizeof(*w->since));
	if (!w->total_at_cut || !w->need || !w->all || !w->since) {
		runq_watch_free(w);
		return -1;
	}
	for (unsigned int i = 0; i < q->ncpu; i++)
		w->total_at_cut[i] = q->cpu[i] ? q->cpu[i]->total : 0;
	runq_watch_free(q->watch);
	q->watch = w;
	return 0;
}

static bool runq_has(const struct hs_runq_cpu *c, int32_t pid)
{
	for (uint32_t i = 0; i < c->n; i++)
		if (c->pids[i] == pid)
			return true;
	return false;
}

static bool runq_mark_same(const struct hs_runq_mark *a, const struct hs_runq_mark *b)
{
	return a->ts == b->ts && a->n == b->n && a->sole == b->sole && a->left == b->left;
}

/* The newest need marks of both histories are the same ones. */
static bool runq_history_same(const struct hs_runq_cpu *a, const struct hs_runq_cpu *b,
			      unsigned int need)
{
	if (need > a->count || need > b->count)
		return false;
	for (unsigned int back = 0; back < need; back++) {
		unsigned int ia = (a->head + HS_RUNQ_HISTORY - 1 - back) % HS_RUNQ_HISTORY;
		unsigned int ib = (b->head + HS_RUNQ_HISTORY - 1 - back) % HS_RUNQ_HISTORY;

		if (!runq_mark_same(&a->hist[ia], &b->hist[ib]))
			return false;
	}
	return true;
}

/*
 * One CPU's runqueue as both states hold it, as far as the answers since
 * the cut read it: its history back as far as they went, its size where
 * they ran out of it, when it was first seen where they were before that.
 * Where neither has seen the CPU, both start it alike.
 */
static bool runq_cpu_same(const struct hs_runq_cpu *a, const struct hs_runq_cpu *b,
			  const struct hs_runq_watch *w, unsigned int cpu)
{
	unsigned int need = cpu < w->ncpu ? w->need[cpu] : 0;

	static const struct hs_runq_cpu none;

	a = a ? a : &none;
	b = b ? b : &none;
	if (a->known != b->known || a->overflow != b->overflow || a->n != b->n ||
	    !a->count != !b->count)
		return false;
	if (a->count && !runq_mark_same(&a->newest, &b->newest))
		return false;
	if (cpu < w->ncpu && ((w->all[cpu] && a->count != b->count) ||
			      (w->since[cpu] && a->known_since != b->known_since)))
		return false;
	for (uint32_t i = 0; i < a->n; i++)
		if (!runq_has(b, a->pids[i]))
			return false;
	return runq_history_same(a, b, need);
}

/* The CPU a runnable task would be taken off, as where[] says, or -1. */
static int32_t runq_where_of(const struct hs_runq *q, int32_t pid)
{
	const struct hs_runq_where *w = &q->where[((uint32_t)pid * 2654435761u) >> 20 &
						  (HS_RUNQ_WHERE - 1)];

	return w->pid == pid ? w->cpu : -1;
}

/* Pending sched_waking entries that a wakeup at woken_min or later can still use. */
static bool runq_waking_same(const struct hs_runq *a, const struct hs_runq *b, uint64_t woken_min)
{
	uint64_t from = woken_min > HS_RUNQ_WAKING_MAX_NS ? woken_min - HS_RUNQ_WAKING_MAX_NS : 0;

	if (woken_min == UINT64_MAX)
		return true;
	for (unsigned int i = 0; i < HS_RUNQ_WAKING; i++) {
		const struct hs_runq_waking *x = &a->waking[i], *y = &b->waking[i];
		bool ux = x->pid && x->ts >= from, uy = y->pid && y->ts >= from;

		if (ux != uy || (ux && (x->pid != y->pid || x->ts != y->ts)))
			return false;
	}
	return true;
}

bool hs_runq_resumes(const struct hs_runq *seq, const struct hs_runq *snap,
		     const struct hs_runq *after)
{
	const struct hs_runq_watch *w = after->watch;
	unsigned int n = seq->ncpu > snap->ncpu ? seq->ncpu : snap->ncpu;

	if (!w || !runq_waking_same(seq, snap, w->woken_min))
		return false;
	for (unsigned int i = 0; i < n; i++) {
		const struct hs_runq_cpu *a = runq_cpu_get(seq, (int)i);
		const struct hs_runq_cpu *b = runq_cpu_get(snap, (int)i);

		if (!runq_cpu_same(a, b, w, i))
			return false;
		for (uint32_t k = 0; a && k < a->n; k++)
			if (runq_where_of(seq, a->pids[k]) != runq_where_of(snap, a->pids[k]))
				return false;
	}
	return true;
}
