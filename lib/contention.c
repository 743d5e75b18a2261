// SPDX-License-Identifier: GPL-2.0-only
/*
 * The accounting's first stage (contention.h): the runqueues, and each
 * vCPU thread's last sleep and wake, turned into the facts of its halts.
 */
#include <stdlib.h>
#include <string.h>

#include "contention.h"
#include "error.h"
#include "intmap.h"
#include "whatif_types.h"

/* vCPU threads followed (the accounting keeps no more: HS_ACCOUNT_MAX_VCPUS). */
#define CTN_THREADS 4096
/* Slots of waking_early (a power of two). */
#define CTN_WAKING_EARLY 256
/* Bits of known_tid (a power of two). */
#define CTN_KNOWN_BITS 4096

struct ctn_thread {
	int tid;
	int slept_cpu;
	uint64_t slept_ts;	/* where and when it last went to sleep, 0 never */
	uint64_t waking_ts;	/* its latest sched_waking, 0 none */
	/* after a cut (hs_contention_watch): */
	uint64_t need_from;	/* earliest start of its halts since, UINT64_MAX none */
	bool found_after;	/* first known since */
};

struct hs_contention {
	struct hs_runq *runq;		/* from the first sched event on; NULL before */
	struct ctn_thread *threads;	/* known from their first kvm event */
	unsigned int nthreads, cap_threads;
	struct hs_imap thread_map;
	/*
	 * A bit per tid modulo CTN_KNOWN_BITS, set for the threads above: most
	 * tasks that go to sleep are not vCPU threads, and are told so here
	 * without a lookup in thread_map.
	 */
	uint64_t known_tid[CTN_KNOWN_BITS / 64];
	/*
	 * sched_waking of threads not (yet) known as vCPU threads: a thread is
	 * known from its first kvm event, which ends a wait its waking came
	 * inside. Direct-mapped by tid; a collision only leaves that first
	 * wait untimed.
	 */
	struct { int tid; uint64_t ts; } waking_early[CTN_WAKING_EARLY];
	struct hs_shard shard;
	bool watching;			/* since a cut: what the halts need is noted */
	bool watch_full;		/* a thread past CTN_THREADS since the cut */
};

struct hs_contention *hs_contention_alloc(void)
{
	struct hs_contention *c = calloc(1, sizeof(*c));

	if (c)
		c->shard.count = 1;
	return c;
}

void hs_contention_free(struct hs_contention *c)
{
	if (!c)
		return;
	hs_runq_free(c->runq);
	free(c->threads);
	hs_imap_free(&c->thread_map);
	free(c);
}

void hs_contention_shard(struct hs_contention *c, struct hs_shard s)
{
	c->shard = hs_shard_norm(s);
}

/* tid's word in known_tid, and its bit there in *bit */
static uint64_t *ctn_known_word(struct hs_contention *c, int tid, uint64_t *bit)
{
	unsigned int b = (unsigned int)tid & (CTN_KNOWN_BITS - 1);

	*bit = 1ull << (b % 64);
	return &c->known_tid[b / 64];
}

static bool ctn_maybe_known(struct hs_contention *c, int tid)
{
	uint64_t bit;

	return *ctn_known_word(c, tid, &bit) & bit;
}

static inline struct ctn_thread *ctn_thread_find(struct hs_contention *c, int tid)
{
	long i;

	if (!ctn_maybe_known(c, tid))
		return NULL;
	i = hs_imap_get(&c->thread_map, tid);
	return i < 0 ? NULL : &c->threads[i];
}

static unsigned int ctn_waking_slot(int tid)
{
	return (unsigned int)tid & (CTN_WAKING_EARLY - 1);
}

/* A thread of the share is woken: noted for its wait, or aside until it is known. */
static void ctn_waking(struct hs_contention *c, const struct hs_event *ev)
{
	int tid = ev->sched_wakeup.pid;
	struct ctn_thread *t;

	if (tid <= 0 || !hs_shard_owns(c->shard, tid))
		return;
	t = ctn_thread_find(c, tid);
	if (!t) {
		c->waking_early[ctn_waking_slot(tid)].tid = tid;
		c->waking_early[ctn_waking_slot(tid)].ts = ev->ts;
	} else if (ev->ts > t->waking_ts) {
		t->waking_ts = ev->ts;
	}
}

/*
 * A vCPU thread that goes to sleep does so on the CPU it polled on. Most
 * switches are of other tasks, sleeping or preempted at random: the one
 * test that usually fails is the known bit, not a branch on each field.
 */
static void ctn_slept(struct hs_contention *c, const struct hs_event *ev)
{
	const struct hs_sched_switch *sw = &ev->sched_switch;
	int tid = sw->prev_pid & -(int)(!sw->prev_runnable & (sw->prev_pid > 0));
	struct ctn_thread *t;

	if (!ctn_maybe_known(c, tid) || !tid || !hs_shard_owns(c->shard, tid))
		return;
	t = ctn_thread_find(c, tid);
	if (!t)
		return;
	t->slept_ts = ev->ts;
	t->slept_cpu = ev->cpu;
}

int hs_contention_sched(struct hs_contention *c, const struct hs_event *ev, size_t n)
{
	if (!c->runq) {
		c->runq = hs_runq_alloc();
		if (!c->runq)
			return HS_ERR_RUNTIME;
	}
	/*
	 * The threads' sleeps and wakes and the runqueues are apart: each
	 * in its own pass over the run, which holds no kvm event.
	 */
	for (size_t i = 0; i < n; i++) {
		if (ev[i].kind == HS_EV_SCHED_SWITCH)
			ctn_slept(c, &ev[i]);
		else if (ev[i].kind == HS_EV_SCHED_WAKING)
			ctn_waking(c, &ev[i]);
	}
	hs_runq_events(c->runq, ev, n);
	return HS_OK;
}

/* The thread from its first kvm event on; NULL past CTN_THREADS, or *oom. */
static struct ctn_thread *ctn_thread_get(struct hs_contention *c, int tid, bool *oom)
{
	bool added;
	long i = hs_itable_slot(&c->thread_map, (void **)&c->threads, &c->nthreads,
				&c->cap_threads, sizeof(*c->threads), tid, CTN_THREADS, &added);
	struct ctn_thread *t;

	*oom = i < 0 && c->nthreads < CTN_THREADS;
	if (i < 0) {
		c->watch_full |= c->watching;
		return NULL;
	}
	t = &c->threads[i];
	if (added) {
		uint64_t bit;

		*ctn_known_word(c, tid, &bit) |= bit;
		t->tid = tid;
		t->need_from = UINT64_MAX;
		t->found_after = c->watching;
		if (c->waking_early[ctn_waking_slot(tid)].tid == tid)
			t->waking_ts = c->waking_early[ctn_waking_slot(tid)].ts;
	}
	return t;
}

/*
 * The CPU a halt polled on is the one its thread went to sleep on, else
 * the wakeup's: a woken thread may run elsewhere, but it polled where it
 * halted. A thread woken and put back to sleep within one halt
 * (kvm_vcpu_block() loops) is timed by its last wake.
 */
static void ctn_halt(const struct hs_contention *c, struct ctn_thread *t,
		     const struct hs_event *ev, struct hs_halt_facts *facts)
{
	uint64_t start = ev->ts > ev->wakeup.ns ? ev->ts - ev->wakeup.ns : 0;
	bool waited = ev->wakeup.waited;
	int cpu = ev->cpu;

	if (t && c->watching && start < t->need_from)
		t->need_from = start;
	if (t && waited && t->slept_ts >= start && t->slept_ts <= ev->ts)
		cpu = t->slept_cpu;
	if (c->runq)
		hs_runq_halt(c->runq, cpu, ev->tid, start, ev->ts, &facts->runq);
	if (t && waited && t->waking_ts > start && t->waking_ts <= ev->ts)
		facts->woken_ns = t->waking_ts - start;
}

int hs_contention_kvm(struct hs_contention *c, const struct hs_event *ev,
		      struct hs_halt_facts *facts)
{
	struct ctn_thread *t;
	bool oom;

	*facts = (struct hs_halt_facts){ .tracked = c->runq != NULL, .woken_ns = HS_WOKEN_UNKNOWN };
	t = ctn_thread_get(c, ev->tid, &oom);
	if (oom)
		return HS_ERR_RUNTIME;
	if (ev->kind == HS_EV_VCPU_WAKEUP)
		ctn_halt(c, t, ev, facts);
	return HS_OK;
}

void hs_contention_lost(struct hs_contention *c, int cpu)
{
	if (c->runq)
		hs_runq_lost(c->runq, cpu);
}

struct hs_contention *hs_contention_clone(const struct hs_contention *c)
{
	struct hs_contention *k = malloc(sizeof(*k));

	if (!k)
		return NULL;
	*k = *c;
	k->runq = NULL;
	k->threads = NULL;
	k->cap_threads = 0;
	memset(&k->thread_map, 0, sizeof(k->thread_map));
	if ((c->runq && !(k->runq = hs_runq_clone(c->runq))) ||
	    hs_array_reserve((void **)&k->threads, &k->cap_threads, c->nthreads,
			     sizeof(*k->threads)))
		goto fail;
	for (unsigned int i = 0; i < c->nthreads; i++) {
		k->threads[i] = c->threads[i];
		if (hs_imap_put(&k->thread_map, c->threads[i].tid, i))
			goto fail;
	}
	return k;
fail:
	hs_contention_free(k);
	return NULL;
}

int hs_contention_watch(struct hs_contention *c)
{
	if (c->runq && hs_runq_watch(c->runq))
		return HS_ERR_RUNTIME;
	for (unsigned int i = 0; i < c->nthreads; i++) {
		c->threads[i].need_from = UINT64_MAX;
		c->threads[i].found_after = false;
	}
	c->watching = true;
	return HS_OK;
}

static const struct ctn_thread *ctn_thread_at(const struct hs_contention *c, int tid)
{
	long i = hs_imap_get(&c->thread_map, tid);

	return i < 0 ? NULL : &c->threads[i];
}

/* A time the halts since the cut use only from from on; 0 for none. */
static uint64_t ctn_used(uint64_t ts, uint64_t from)
{
	return ts >= from ? ts : 0;
}

/*
 * A thread with halts since the cut, from need on: what seq and snap knew
 * of it at the cut that those halts use. One it was first known after the
 * cut has its first wait timed by its sched_waking kept aside.
 */
static bool ctn_thread_resumes(const struct hs_contention *seq, const struct hs_contention *snap,
			       const struct ctn_thread *after)
{
	const struct ctn_thread *a = ctn_thread_at(seq, after->tid);
	const struct ctn_thread *b = ctn_thread_at(snap, after->tid);
	uint64_t need = after->need_from;

	if (after->found_after) {
		unsigned int k = ctn_waking_slot(after->tid);
		uint64_t wa = seq->waking_early[k].tid == after->tid ? seq->waking_early[k].ts : 0;
		uint64_t wb = snap->waking_early[k].tid == after->tid ? snap->waking_early[k].ts : 0;

		return !a && ctn_used(wa, need + 1) == ctn_used(wb, need + 1);
	}
	if (!a || !b)
		return false;
	if (ctn_used(a->slept_ts, need) != ctn_used(b->slept_ts, need) ||
	    (ctn_used(a->slept_ts, need) && a->slept_cpu != b->slept_cpu))
		return false;
	return ctn_used(a->waking_ts, need + 1) == ctn_used(b->waking_ts, need + 1);
}

bool hs_contention_resumes(const struct hs_contention *seq, const struct hs_contention *snap,
			   const struct hs_contention *after)
{
	if (!after->watching || after->watch_full || !seq->runq != !snap->runq ||
	    seq->nthreads + after->nthreads >= CTN_THREADS ||
	    seq->shard.index != snap->shard.index || seq->shard.count != snap->shard.count ||
	    seq->shard.salt != snap->shard.salt)
		return false;
	if (seq->runq && !hs_runq_resumes(seq->runq, snap->runq, after->runq))
		return false;
	for (unsigned int i = 0; i < after->nthreads; i++)
		if (after->threads[i].need_from != UINT64_MAX &&
		    !ctn_thread_resumes(seq, snap, &after->threads[i]))
			return false;
	return true;
}
