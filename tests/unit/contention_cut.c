// SPDX-License-Identifier: GPL-2.0-only
/*
 * A recording's front split in time (lib/contention.c, lib/runq.c): a
 * second state rebuilt from a stretch before the cut, watched from the cut
 * on, must be accepted only where the one reader's state at the cut gives
 * every halt since the same facts, and always where the stretch is the
 * whole recording. Random streams of sched and kvm events, many cuts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/contention.h"
#include "../../lib/evdecode.h"
#include "check.h"

#define VCPU_BASE 100
#define MAX_EVENTS 20000

struct gen {
	uint64_t s;
	int ncpu, ntasks, nvcpus;
	uint64_t step;
	unsigned int idle;	/* one switch in idle goes to the idle task */
};

static uint64_t rnd(struct gen *g)
{
	g->s ^= g->s << 13;
	g->s ^= g->s >> 7;
	g->s ^= g->s << 17;
	return g->s;
}

static int pick_pid(struct gen *g)
{
	int k = (int)(rnd(g) % (uint64_t)(g->ntasks + g->nvcpus));

	return k < g->ntasks ? 1 + k : VCPU_BASE + (k - g->ntasks);
}

static struct hs_event sched_ev(uint64_t ts, int cpu, enum hs_event_kind kind)
{
	return (struct hs_event){ .ts = ts, .cpu = cpu, .tid = 1, .kind = (uint8_t)kind };
}

/* One event of the stream at ts; curr[] and slept[] follow who runs and who halted when. */
static struct hs_event gen_event(struct gen *g, uint64_t ts, int *curr, uint64_t *slept)
{
	unsigned int op = (unsigned int)(rnd(g) % 100);
	int cpu = (int)(rnd(g) % (uint64_t)g->ncpu);
	struct hs_event ev;

	if (op < 45) {
		int prev = curr[cpu], next = rnd(g) % g->idle ? pick_pid(g) : 0;
		bool runnable = rnd(g) % 3 == 0;

		ev = sched_ev(ts, cpu, HS_EV_SCHED_SWITCH);
		ev.sched_switch = (struct hs_sched_switch){ prev, next, runnable };
		if (prev >= VCPU_BASE && !runnable)
			slept[prev - VCPU_BASE] = ts;
		curr[cpu] = next;
	} else if (op < 75) {
		ev = sched_ev(ts, cpu, op < 60 ? HS_EV_SCHED_WAKING : HS_EV_SCHED_WAKEUP);
		ev.sched_wakeup = (struct hs_sched_wakeup){ pick_pid(g),
							    (int)(rnd(g) % (uint64_t)g->ncpu) };
	} else {
		int v = (int)(rnd(g) % (uint64_t)g->nvcpus);
		unsigned int how = (unsigned int)(rnd(g) % 10);
		uint64_t ns = how < 5 && slept[v] && ts > slept[v] ? ts - slept[v] :
			      how < 9 ? rnd(g) % (20 * g->step) : rnd(g) % 60000000;

		ev = (struct hs_event){ .ts = ts, .cpu = cpu, .tid = VCPU_BASE + v,
					.kind = op < 95 ? HS_EV_VCPU_WAKEUP : HS_EV_HALT_POLL_NS };
		if (ev.kind == HS_EV_VCPU_WAKEUP)
			ev.wakeup = (struct hs_wakeup){ .ns = ns, .waited = rnd(g) % 10 < 7,
							.valid = 1 };
		else
			ev.poll = (struct hs_poll_change){ .vcpu_id = (uint32_t)v, .new_ns = 10000 };
	}
	return ev;
}

static size_t gen_stream(struct gen *g, struct hs_event *ev, size_t n)
{
	int curr[8] = { 0 };
	uint64_t slept[8] = { 0 }, ts = 1000000;

	for (size_t i = 0; i < n; i++) {
		ts += 1 + rnd(g) % g->step;
		ev[i] = gen_event(g, ts, curr, slept);
	}
	return n;
}

/* Events [from, to) into c; the facts of each halt from keep on into facts[]. */
static void feed(struct hs_contention *c, const struct hs_event *ev, size_t from, size_t to,
		 struct hs_halt_facts *facts)
{
	for (size_t i = from; i < to; i++) {
		struct hs_halt_facts f;

		if (hs_ev_sched(ev[i].kind)) {
			hs_contention_sched(c, &ev[i], 1);
			continue;
		}
		memset(&f, 0, sizeof(f));
		hs_contention_kvm(c, &ev[i], &f);
		if (facts && ev[i].kind == HS_EV_VCPU_WAKEUP)
			facts[i] = f;
	}
}

static bool facts_same(const struct hs_halt_facts *a, const struct hs_halt_facts *b)
{
	return a->tracked == b->tracked && a->woken_ns == b->woken_ns &&
	       a->runq.known == b->runq.known && a->runq.cut_ns == b->runq.cut_ns &&
	       a->runq.busy_ns == b->runq.busy_ns && a->runq.slept_ns == b->runq.slept_ns;
}

/*
 * Halts that end after the cut begin after it too: what decides is then the
 * runqueues and the threads as they stand at the cut, not their histories.
 */
static void halts_after(struct hs_event *ev, size_t n, size_t k)
{
	for (size_t i = k; i < n; i++)
		if (ev[i].kind == HS_EV_VCPU_WAKEUP && ev[i].wakeup.ns > ev[i].ts - ev[k].ts)
			ev[i].wakeup.ns = ev[i].ts - ev[k].ts;
}

struct tally {
	unsigned int accepted, rejected, wrong, whole_rejected;
};

/* One cut at k with a stretch of warm events before it. */
static void try_cut(const struct hs_event *ev, size_t n, size_t k, size_t warm,
		    struct hs_halt_facts *fa, struct hs_halt_facts *fb, struct tally *t)
{
	struct hs_contention *a = hs_contention_alloc(), *b = hs_contention_alloc(), *snap;
	bool ok;

	feed(a, ev, 0, k, NULL);
	feed(b, ev, k - warm, k, NULL);
	snap = hs_contention_clone(b);
	hs_contention_watch(b);
	memset(fa, 0, sizeof(*fa) * n);
	memset(fb, 0, sizeof(*fb) * n);
	feed(b, ev, k, n, fb);
	ok = hs_contention_resumes(a, snap, b);
	feed(a, ev, k, n, fa);
	if (ok) {
		t->accepted++;
		for (size_t i = k; i < n; i++)
			if (ev[i].kind == HS_EV_VCPU_WAKEUP && !facts_same(&fa[i], &fb[i])) {
				t->wrong++;
				break;
			}
	} else {
		t->rejected++;
		t->whole_rejected += warm == k;
	}
	hs_contention_free(a);
	hs_contention_free(b);
	hs_contention_free(snap);
}

int main(void)
{
	static struct hs_event ev[MAX_EVENTS];
	static struct hs_halt_facts fa[MAX_EVENTS], fb[MAX_EVENTS];
	static const uint64_t steps[] = { 200, 2000, 20000, 200000 };
	struct tally t = { 0 };

	for (unsigned int round = 0; round < 240; round++) {
		struct gen g = { .s = 0x9e3779b97f4a7c15ull * (round + 1) };
		size_t n, k;

		g.ncpu = 1 + (int)(rnd(&g) % 4);
		g.ntasks = 2 + (int)(rnd(&g) % 40);
		g.nvcpus = 1 + (int)(rnd(&g) % 4);
		g.step = steps[rnd(&g) % 4];
		g.idle = rnd(&g) % 2 ? 5 : 200;
		n = gen_stream(&g, ev, 2000 + rnd(&g) % (MAX_EVENTS - 2000));
		k = n / 4 + rnd(&g) % (n / 2);
		if (round % 2)
			halts_after(ev, n, k);
		try_cut(ev, n, k, k, fa, fb, &t);
		try_cut(ev, n, k, rnd(&g) % 64, fa, fb, &t);
		for (int j = 0; j < 4; j++) {
			size_t warm = 50 + rnd(&g) % 3000;

			try_cut(ev, n, k, warm < k ? warm : k, fa, fb, &t);
		}
	}
	CHECK(t.wrong == 0, "contention_cut_accepted_only_where_the_facts_agree");
	CHECK(t.whole_rejected == 0, "contention_cut_accepted_from_the_start");
	/* neither check is empty: both outcomes come up */
	CHECK(t.accepted > 300 && t.rejected > 100, "contention_cut_both_outcomes");
	return CHECK_DONE();
}
