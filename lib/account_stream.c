// SPDX-License-Identifier: GPL-2.0-only
/*
 * Accounting of the event stream: one bounded state per vCPU thread
 * (account_vcpu.c) and per guest CPU (account_guest.c), found through small
 * open-addressing maps keyed by int, with the runqueues the sched events
 * show (account_sched.c). Nothing is kept per event. Here: the stream's
 * entry, its span and shards, losses and the end; the names
 * (account_names.c) and the merges of accounts (account_merge.c) apart.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "account_state.h"
#include "evdecode.h"

struct hs_account *hs_account_alloc(const struct hs_account_opts *opts)
{
	/* struct hs_account_front is aligned to its own cache lines */
	struct hs_account *a = aligned_alloc(_Alignof(struct hs_account), sizeof(*a));

	if (!a)
		return NULL;
	memset(a, 0, sizeof(*a));
	if (opts)
		a->opts = *opts;
	if (!a->opts.linear_bucket_ns || !a->opts.linear_entries) {
		a->opts.linear_bucket_ns = 0;
		a->opts.linear_entries = 0;
	}
	hs_meta_init(&a->meta);
	return a;
}

void hs_account_free(struct hs_account *a)
{
	unsigned int i;

	if (!a)
		return;
	for (i = 0; i < a->nvcpus; i++)
		hs_vcpu_free(a->vcpus[i]);
	free(a->vcpus);
	for (i = 0; i < a->nguest; i++)
		hs_guest_whatif_free(a->guest[i].whatif);
	free(a->guest);
	free(a->threads);
	free(a->procs);
	hs_contention_free(a->front.ctn);
	hs_contention_free(a->front.at_cut);
	hs_imap_free(&a->vcpu_map);
	hs_imap_free(&a->guest_map);
	hs_imap_free(&a->thread_map);
	hs_imap_free(&a->proc_map);
	free(a);
}

struct hs_meta *hs_account_meta(struct hs_account *a)
{
	return &a->meta;
}


/* The span of the events kept grows to cover [first, last]. */
static void account_span(struct hs_account *a, uint64_t first, uint64_t last)
{
	if (!a->have_ts || first < a->first_ts)
		a->first_ts = first;
	if (!a->have_ts || last > a->last_ts)
		a->last_ts = last;
	a->have_ts = true;
}

/* start/end count from the first event seen, whatever its kind: every event must be seen. */
static bool account_ranged(const struct hs_account_opts *o)
{
	return o->start_ns || o->end_ns;
}

bool hs_account_keeps(const struct hs_account *a, const struct hs_event *ev)
{
	int64_t key;

	/* every shard follows every runqueue */
	if (a->shard.count <= 1 || hs_ev_sched(ev->kind))
		return true;
	key = hs_account_key(ev);
	if (account_ranged(&a->opts) ||
	    ev->kind < HS_EV_VCPU_WAKEUP || ev->kind > HS_EV_ANALYSED_LAST ||
	    key < 0 || key > INT_MAX)
		return true;
	return hs_account_owns(a, (int)key);
}

bool hs_account_kvm_shard(const struct hs_account *a, struct hs_shard *shard)
{
	if (a->shard.count <= 1 || account_ranged(&a->opts))
		return false;
	*shard = a->shard;
	return true;
}

void hs_account_tally(struct hs_account *a, const struct hs_event_tally *t)
{
	bool any = false;

	for (int k = HS_EV_VCPU_WAKEUP; k <= HS_EV_ANALYSED_LAST; k++) {
		a->events[k] += t->count[k];
		any |= t->count[k] != 0;
	}
	if (any)
		account_span(a, t->first_ts, t->last_ts);
}

static int account_kvm(struct hs_account *a, const struct hs_event *ev,
		       const struct hs_halt_facts *facts)
{
	struct hs_vcpu_acct *v;

	if (!hs_account_owns(a, ev->tid))
		return 0;
	v = hs_vcpu_get(a, ev->tid, ev->ts);
	if (!v)
		return hs_account_over(a, a->nvcpus, HS_ACCOUNT_MAX_VCPUS);
	if (ev->ts > v->last_ts)
		v->last_ts = ev->ts;
	if (ev->kind == HS_EV_VCPU_WAKEUP)
		hs_vcpu_wakeup(a, v, ev, facts);
	else
		hs_vcpu_poll_ns(v, ev);
	return 0;
}

static bool front_in_range(struct hs_account_front *f, const struct hs_account_opts *o,
			   uint64_t ts)
{
	uint64_t rel;

	if (!account_ranged(o))
		return true;
	if (!f->have_base) {
		f->have_base = true;
		f->base_ts = ts;
	}
	rel = ts > f->base_ts ? ts - f->base_ts : 0;
	if (rel < o->start_ns)
		return false;
	return !o->end_ns || rel < o->end_ns;
}

static struct hs_contention *front_contention(struct hs_account *a)
{
	struct hs_account_front *f = &a->front;

	if (!f->ctn) {
		f->ctn = hs_contention_alloc();
		if (f->ctn)
			hs_contention_shard(f->ctn, a->shard);
	}
	return f->ctn;
}

/*
 * A run of sched events at the head of a batch, and what the front counts
 * of it, found in one pass: counted in registers, since an array indexed
 * by kind chained each event to the store of the one before.
 */
struct front_run {
	size_t n;
	uint64_t switches, wakeups, lo, hi;
};

static struct front_run front_run_scan(const struct hs_event *ev, size_t n)
{
	struct front_run r = { .lo = UINT64_MAX };
	size_t i = 0;

	for (; i < n && hs_ev_sched(ev[i].kind); i++) {
		r.switches += ev[i].kind == HS_EV_SCHED_SWITCH;
		r.wakeups += ev[i].kind == HS_EV_SCHED_WAKEUP;
		r.lo = ev[i].ts < r.lo ? ev[i].ts : r.lo;
		r.hi = ev[i].ts > r.hi ? ev[i].ts : r.hi;
	}
	r.n = i;
	return r;
}

/* The front's count and span of a run of sched events, taken by the contention. */
static void front_sched_count(struct hs_account_front *f, const struct front_run *r)
{
	f->events[HS_EV_SCHED_SWITCH] += r->switches;
	f->events[HS_EV_SCHED_WAKEUP] += r->wakeups;
	f->events[HS_EV_SCHED_WAKING] += r->n - r->switches - r->wakeups;
	if (!f->have_ts || r->lo < f->first_ts)
		f->first_ts = r->lo;
	if (!f->have_ts || r->hi > f->last_ts)
		f->last_ts = r->hi;
	f->have_ts = true;
}

void hs_account_front_meta(struct hs_account *a, const struct hs_meta *meta)
{
	a->front.meta = meta;
}

/* Without kvm event formats in the recording, no kvm event can come. */
static bool front_kvm_absent(const struct hs_account *a)
{
	const struct hs_meta *m = a->front.meta ? a->front.meta : &a->meta;

	return m->kvm_formats == 0;
}

bool hs_account_sched_counted(const struct hs_account *a)
{
	return front_kvm_absent(a) && !account_ranged(&a->opts);
}

static int front_sched(struct hs_account *a, const struct hs_event *ev,
		       const struct front_run *run)
{
	struct hs_contention *c;
	int ret = 0;

	/* the runqueues are followed for the halts only: most of the cost of a sched event */
	if (!front_kvm_absent(a)) {
		c = front_contention(a);
		ret = c ? hs_contention_sched(c, ev, run->n) : HS_ERR_RUNTIME;
	}
	if (!ret)
		front_sched_count(&a->front, run);
	return ret;
}

int hs_account_front_sched(struct hs_account *a, const struct hs_event *ev, size_t n,
			   size_t *taken)
{
	struct front_run run = front_run_scan(ev, n);
	struct hs_halt_facts facts;
	bool pass;
	int ret = 0;

	*taken = run.n;
	if (!run.n)
		return 0;
	if (!account_ranged(&a->opts))
		return front_sched(a, ev, &run);
	for (size_t i = 0; i < run.n && !ret; i++)
		ret = hs_account_front(a, &ev[i], &facts, &pass);
	return ret;
}

int hs_account_front(struct hs_account *a, const struct hs_event *ev,
		     struct hs_halt_facts *facts, bool *pass)
{
	struct hs_contention *c;
	int ret;

	*pass = false;
	if (ev->kind < HS_EV_VCPU_WAKEUP || ev->kind > HS_EV_ANALYSED_LAST)
		return HS_ERR_INPUT;
	if (!front_in_range(&a->front, &a->opts, ev->ts))
		return 0;
	if (hs_ev_sched(ev->kind)) {
		struct front_run run = front_run_scan(ev, 1);

		return front_sched(a, ev, &run);
	}
	if ((ev->kind == HS_EV_VCPU_WAKEUP || ev->kind == HS_EV_HALT_POLL_NS) &&
	    hs_account_owns(a, ev->tid)) {
		c = front_contention(a);
		ret = c ? hs_contention_kvm(c, ev, facts) : HS_ERR_RUNTIME;
		if (ret)
			return ret;
	}
	*pass = true;
	return 0;
}

int hs_account_back(struct hs_account *a, const struct hs_event *ev,
		    const struct hs_halt_facts *facts)
{
	int ret;

	if (ev->kind == HS_EV_VCPU_WAKEUP || ev->kind == HS_EV_HALT_POLL_NS)
		ret = account_kvm(a, ev, facts);
	else
		ret = hs_account_guest_event(a, ev);
	if (ret)
		return ret;
	a->events[ev->kind]++;
	account_span(a, ev->ts, ev->ts);
	return 0;
}

/* HS_OK, HS_ERR_INPUT for an unknown kind, HS_ERR_RUNTIME out of memory. Events outside start/end are dropped. */
int hs_account_event(struct hs_account *a, const struct hs_event *ev)
{
	struct hs_halt_facts facts;
	bool pass;
	int ret = hs_account_front(a, ev, &facts, &pass);

	return ret || !pass ? ret : hs_account_back(a, ev, &facts);
}

static int account_event_one(void *a, const struct hs_event *ev)
{
	return hs_account_event(a, ev);
}

int hs_account_event_batch(struct hs_account *a, const struct hs_event *ev, size_t n)
{
	return hs_account_front_batch(a, ev, n, account_event_one, a);
}

void hs_account_front_lost(struct hs_account *a, int cpu, uint64_t count, bool count_known)
{
	if ((!count_known || count) && a->front.ctn)
		hs_contention_lost(a->front.ctn, cpu);
}

void hs_account_back_lost(struct hs_account *a, int cpu, uint64_t count, bool count_known)
{
	unsigned int i;

	if (count_known && !count)
		return;
	if (count_known)
		a->meta.lost_events = hs_add_sat(a->meta.lost_events, count);
	else
		a->meta.lost_unknown_places++;
	/* vCPU threads migrate: a loss on any CPU may have hit any of them */
	for (i = 0; i < a->nvcpus; i++)
		hs_vcpu_forget(a, a->vcpus[i]);
	for (i = 0; i < a->nguest; i++)
		if (cpu < 0 || a->guest[i].cpu == cpu)
			hs_guest_forget(&a->guest[i]);
}

void hs_account_lost(struct hs_account *a, int cpu, uint64_t count, bool count_known)
{
	hs_account_back_lost(a, cpu, count, count_known);
	hs_account_front_lost(a, cpu, count, count_known);
}

/* The front's counts and span join the account's, once the reading is over. */
void hs_account_front_fold(struct hs_account *a)
{
	struct hs_account_front *f = &a->front;

	for (int k = 0; k <= HS_EV_ANALYSED_LAST; k++) {
		a->events[k] += f->events[k];
		f->events[k] = 0;
	}
	if (f->have_ts)
		account_span(a, f->first_ts, f->last_ts);
	f->have_ts = false;
}

bool hs_account_front_splits(const struct hs_account *a)
{
	return !account_ranged(&a->opts) && a->shard.count <= 1;
}

int hs_account_front_cut(struct hs_account *a)
{
	struct hs_account_front *f = &a->front;

	if (f->ctn && (!(f->at_cut = hs_contention_clone(f->ctn)) || hs_contention_watch(f->ctn)))
		return HS_ERR_RUNTIME;
	f->cut = true;
	memset(f->events, 0, sizeof(f->events));
	f->have_ts = false;
	return HS_OK;
}

/*
 * Where neither had a contention at the cut, both make it afresh from the
 * same events; where only the one reader had, the second's starts empty.
 */
bool hs_account_front_resumes(const struct hs_account *a, const struct hs_account *second)
{
	const struct hs_account_front *f = &second->front;

	if (!f->cut || !hs_account_front_splits(a) || !!a->front.ctn != !!f->at_cut)
		return false;
	return !a->front.ctn || hs_contention_resumes(a->front.ctn, f->at_cut, f->ctn);
}

void hs_account_front_take(struct hs_account *a, const struct hs_account *second)
{
	struct hs_account_front *f = &a->front;
	const struct hs_account_front *g = &second->front;

	for (int k = 0; k <= HS_EV_ANALYSED_LAST; k++)
		f->events[k] += g->events[k];
	if (!g->have_ts)
		return;
	if (!f->have_ts || g->first_ts < f->first_ts)
		f->first_ts = g->first_ts;
	if (!f->have_ts || g->last_ts > f->last_ts)
		f->last_ts = g->last_ts;
	f->have_ts = true;
}

/* The tgid of a vCPU thread, -1 unknown. */
static int vcpu_tgid(const struct hs_account *a, const struct hs_vcpu_acct *v)
{
	const struct hs_thread_info *t = hs_account_thread_info(a, v->tid);

	return t ? t->tgid : -1;
}

/*
 * A VM's maximum is one for all its vCPUs: each vCPU's what-if takes the
 * bounds of its VM's others before the windows told by the rules and the
 * self-check's last replay use it. The bounds are taken before any merge,
 * so the order of the vCPUs does not matter.
 */
static void account_vm_max(struct hs_account *a)
{
	struct hs_selfcheck *sc = calloc(a->nvcpus ? a->nvcpus : 1, sizeof(*sc));
	int *tgid = calloc(a->nvcpus ? a->nvcpus : 1, sizeof(*tgid));

	if (!sc || !tgid)
		goto out;	/* then each vCPU keeps its own bounds */
	for (unsigned int i = 0; i < a->nvcpus; i++) {
		tgid[i] = vcpu_tgid(a, a->vcpus[i]);
		if (a->vcpus[i]->whatif)
			hs_whatif_selfcheck(a->vcpus[i]->whatif, &sc[i]);
	}
	for (unsigned int i = 0; i < a->nvcpus; i++) {
		if (tgid[i] < 0 || !a->vcpus[i]->whatif)
			continue;
		for (unsigned int j = 0; j < a->nvcpus; j++)
			if (j != i && tgid[j] == tgid[i] && a->vcpus[j]->whatif)
				hs_whatif_max_merge(a->vcpus[i]->whatif, &sc[j]);
	}
out:
	free(sc);
	free(tgid);
}

void hs_account_finish(struct hs_account *a)
{
	uint64_t end, span;
	unsigned int i;

	if (a->finished)
		return;
	a->finished = true;
	hs_account_front_fold(a);
	end = a->last_ts;
	span = a->have_ts ? a->last_ts - a->first_ts : 0;
	account_vm_max(a);
	for (i = 0; i < a->nvcpus; i++) {
		struct hs_vcpu_acct *v = a->vcpus[i];

		hs_window_advance(v->window, &v->window_since_ts, end, &v->window_area,
				  &v->window_time);
		hs_vcpu_settle_end(a, v, end);
		if (v->whatif)
			hs_whatif_finish(v->whatif, span);
	}
	for (i = 0; i < a->nguest; i++) {
		hs_guest_finish(&a->guest[i], end);
		if (a->guest[i].whatif)
			hs_guest_whatif_finish(a->guest[i].whatif, span);
	}
}

unsigned int hs_account_nvcpus(const struct hs_account *a)
{
	return a->nvcpus;
}

const struct hs_vcpu_acct *hs_account_vcpu(const struct hs_account *a, unsigned int i)
{
	return i < a->nvcpus ? a->vcpus[i] : NULL;
}

unsigned int hs_account_nguest(const struct hs_account *a)
{
	return a->nguest;
}

const struct hs_guest_cpu_acct *hs_account_guest(const struct hs_account *a, unsigned int i)
{
	return i < a->nguest ? &a->guest[i] : NULL;
}

const struct hs_vcpu_acct *hs_account_vcpu_of(const struct hs_account *a, int tid)
{
	long i = hs_imap_get(&a->vcpu_map, tid);

	return i < 0 ? NULL : a->vcpus[i];
}

const struct hs_account_opts *hs_account_options(const struct hs_account *a)
{
	return &a->opts;
}

/* The span and counts so far: the front's join them at the end (hs_account_front_fold). */
uint64_t hs_account_first_ts(const struct hs_account *a)
{
	const struct hs_account_front *f = &a->front;

	if (f->have_ts && (!a->have_ts || f->first_ts < a->first_ts))
		return f->first_ts;
	return a->have_ts ? a->first_ts : 0;
}

uint64_t hs_account_last_ts(const struct hs_account *a)
{
	const struct hs_account_front *f = &a->front;

	if (f->have_ts && (!a->have_ts || f->last_ts > a->last_ts))
		return f->last_ts;
	return a->have_ts ? a->last_ts : 0;
}

uint64_t hs_account_events(const struct hs_account *a, enum hs_event_kind kind)
{
	if (kind < HS_EV_VCPU_WAKEUP || kind > HS_EV_ANALYSED_LAST)
		return 0;
	return a->events[kind] + a->front.events[kind];
}
