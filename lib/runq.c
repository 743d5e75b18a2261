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

struct hs_runq {
	struct hs_runq_cpu **cpu;
	unsigned int ncpu;
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

void hs_runq_free(struct hs_runq *q)
{
	if (!q)
		return;
	for (unsigned int i = 0; i < q->ncpu; i++)
		free(q->cpu[i]);
	free(q->cpu);
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
	runq_remove(c, left);
	if (sw->next_pid <= 0) {
		/* idle runs only on an empty runqueue: whatever was left is stale */
		c->n = 0;
		c->overflow = false;
	} else {
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

/*
 * From the newest mark back to the one in force at start, then forward:
 * halts are short next to the history, so few marks are looked at.
 */
void hs_runq_halt(const struct hs_runq *q, int cpu, int tid, uint64_t start, uint64_t end,
		  struct hs_runq_halt *out)
{
	const struct hs_runq_cpu *c = runq_cpu_get(q, cpu);
	unsigned int back = 0, idx;
	bool busy;
	uint64_t since;

	*out = (struct hs_runq_halt){ .known = false, .cut_ns = UINT64_MAX, .slept_ns = UINT64_MAX };
	if (!c || !c->known || c->known_since > start || !c->count)
		return;
	if (c->newest.ts <= start) {
		/* the usual halt: nothing changed on its CPU while it lasted */
		out->known = true;
		if (runq_other(&c->newest, tid)) {
			out->cut_ns = 0;
			out->busy_ns = end > start ? end - start : 0;
		}
		return;
	}
	for (;;) {
		idx = (c->head + HS_RUNQ_HISTORY - 1 - back) % HS_RUNQ_HISTORY;
		if (c->hist[idx].ts <= start)
			break;
		if (++back == c->count)
			return;	/* the history no longer reaches back to start */
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
}
