// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "account_priv.h"
#include "evdecode.h"

/*
 * Accounting of the event stream: one bounded state per vCPU thread and
 * per guest CPU, found through small open-addressing maps keyed by int.
 * Nothing is kept per event. The hot path (every event) is all here; the
 * names (account_names.c) and the merges of accounts (account_merge.c)
 * are elsewhere.
 */

/* The halt histogram and the what-if replay of one halt. */
static void hs_account_halt(struct hs_hist *hist, struct hs_whatif *w, uint64_t ts,
			    const struct hs_wakeup *wakeup,
			    const struct hs_poll_change *change, int64_t window,
			    bool reliable, const struct hs_halt_sched *sched)
{
	hs_hist_add(hist, wakeup->ns);
	if (w)
		hs_whatif_halt_ts(w, ts, wakeup, change, window, reliable, sched);
}

static uint64_t hs_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Time-weighted window: the value held from *since until ts. */
void hs_window_advance(int64_t window, uint64_t *since, uint64_t ts,
			      double *area, uint64_t *time)
{
	if (ts <= *since)
		return;
	if (window >= 0) {
		*area += (double)window * (double)(ts - *since);
		*time += ts - *since;
	}
	*since = ts;
}

struct hs_account *hs_account_alloc(const struct hs_account_opts *opts)
{
	struct hs_account *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	if (opts)
		a->opts = *opts;
	if (!a->opts.linear_bucket_ns || !a->opts.linear_entries) {
		a->opts.linear_bucket_ns = 0;
		a->opts.linear_entries = 0;
	}
	hs_meta_init(&a->meta);
	return a;
}

static void hs_vcpu_free(struct hs_vcpu_acct *v)
{
	if (!v)
		return;
	if (v->whatif)
		hs_whatif_free(v->whatif);
	free(v->linear_poll);
	free(v->linear_wait);
	free(v);
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
	hs_runq_free(a->runq);
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


/*
 * The replay must follow the recorded kernel and its module parameters, which
 * the reader only knows once the file's header is parsed, i.e. by the time
 * the first vCPU thread appears; command-line choices still win.
 */
static void account_whatif_opts(const struct hs_account *a, struct hs_whatif_opts *wo)
{
	const struct hs_meta *m = &a->meta;

	*wo = a->opts.whatif;
	if (!wo->era_forced)
		wo->era = hs_kernel_era_from_release(m->kernel_release);
	if (wo->recorded_max_ns < 0)
		wo->recorded_max_ns = m->halt_poll_ns;
	if (wo->grow < 0)
		wo->grow = m->halt_poll_ns_grow;
	if (wo->grow_start < 0)
		wo->grow_start = m->halt_poll_ns_grow_start;
	if (wo->shrink < 0)
		wo->shrink = m->halt_poll_ns_shrink;
}

static struct hs_vcpu_acct *hs_vcpu_new(const struct hs_account *a, int tid)
{
	size_t n = (size_t)a->opts.linear_entries + 1;
	struct hs_vcpu_acct *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->tid = tid;
	v->window = HS_WINDOW_UNKNOWN;
	hs_seg_open(&v->seg, HS_WINDOW_UNKNOWN, 0);
	v->vcpu_id = -1;
	/* v->all is empty as calloc left it: touching its 64 KiB here would fault every page in */
	if (a->opts.linear_bucket_ns) {
		v->linear_poll = calloc(n, sizeof(*v->linear_poll));
		v->linear_wait = calloc(n, sizeof(*v->linear_wait));
		if (!v->linear_poll || !v->linear_wait)
			goto fail;
	}
	if (!a->opts.no_whatif) {
		struct hs_whatif_opts wo;

		account_whatif_opts(a, &wo);
		v->whatif = hs_whatif_alloc(&wo);
		if (!v->whatif)
			goto fail;
	}
	return v;
fail:
	hs_vcpu_free(v);
	return NULL;
}

/* A shard keeps its share of the limit, so that two readers stay within it too. */
static bool hs_account_full(const struct hs_account *a, unsigned int n, unsigned int max)
{
	return n >= max / (a->nshards > 1 ? a->nshards : 1);
}

/* After a failed lookup: 0 and counted when the limit was the cause. */
static int hs_account_over(struct hs_account *a, unsigned int n, unsigned int max)
{
	if (!hs_account_full(a, n, max))
		return -ENOMEM;
	a->meta.over_limit_events++;
	return 0;
}

static unsigned int hs_waking_slot(int tid)
{
	return (unsigned int)tid & (HS_ACCOUNT_WAKING_EARLY - 1);
}

/* NULL: out of memory, or a new thread past HS_ACCOUNT_MAX_VCPUS. */
struct hs_vcpu_acct *hs_vcpu_get(struct hs_account *a, int tid, uint64_t ts)
{
	long i = hs_imap_get(&a->vcpu_map, tid);
	struct hs_vcpu_acct *v;

	if (i >= 0)
		return a->vcpus[i];
	if (hs_account_full(a, a->nvcpus, HS_ACCOUNT_MAX_VCPUS))
		return NULL;
	if (hs_array_reserve((void **)&a->vcpus, &a->cap_vcpus, a->nvcpus, sizeof(*a->vcpus)))
		return NULL;
	v = hs_vcpu_new(a, tid);
	if (!v)
		return NULL;
	v->first_ts = ts;
	v->last_ts = ts;
	v->seg.since_ts = ts;
	if (a->waking_early[hs_waking_slot(tid)].tid == tid)
		v->waking_ts = a->waking_early[hs_waking_slot(tid)].ts;
	if (hs_imap_put(&a->vcpu_map, tid, a->nvcpus)) {
		hs_vcpu_free(v);
		return NULL;
	}
	a->vcpus[a->nvcpus++] = v;
	return v;
}

struct hs_guest_cpu_acct *hs_guest_get(struct hs_account *a, int cpu, uint64_t ts)
{
	long i = hs_imap_get(&a->guest_map, cpu);
	struct hs_guest_whatif *whatif = NULL;
	struct hs_guest_cpu_acct *g;

	if (i >= 0)
		return &a->guest[i];
	if (hs_account_full(a, a->nguest, HS_ACCOUNT_MAX_GUEST_CPUS))
		return NULL;
	if (!a->opts.no_whatif && !(whatif = hs_guest_whatif_alloc(&a->meta)))
		return NULL;
	if (hs_array_reserve((void **)&a->guest, &a->cap_guest, a->nguest, sizeof(*a->guest)) ||
	    hs_imap_put(&a->guest_map, cpu, a->nguest)) {
		hs_guest_whatif_free(whatif);
		return NULL;
	}
	g = &a->guest[a->nguest++];
	memset(g, 0, sizeof(*g));
	g->cpu = cpu;
	g->cur_state = -1;
	g->last_exit_state = -1;
	g->window = HS_WINDOW_UNKNOWN;
	g->first_ts = ts;
	g->last_ts = ts;
	g->whatif = whatif;
	return g;
}

static void hs_linear_add(const struct hs_account *a, uint64_t *lin, uint64_t ns)
{
	uint64_t i;

	if (!lin)
		return;
	i = ns / a->opts.linear_bucket_ns;
	if (i > a->opts.linear_entries)
		i = a->opts.linear_entries;
	lin[i]++;
}

/*
 * The halts since the window was last certain are one segment of counts
 * (lib/winstate.c says why one window covers them all), moved once the
 * window is told: by the next event's old value, else at the end or at a
 * loss by the rules, with the maximum in force the what-if's (which
 * follows the window events where they contradict the module parameter).
 * The halt right after lost events stays unknown.
 */
static uint64_t hs_sub_floor(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * Moves the segment's n waits, counted under window from, into window to:
 * what they polled is charged again under to (pollend.h).
 */
static void hs_waits_move(struct hs_vcpu_acct *v, uint64_t n, int64_t from, int64_t to)
{
	struct hs_poll_cost *c = &v->seg_cost;

	if (from > 0)
		v->poll_misses -= n;
	else if (from == 0)
		v->nopoll_waits -= n;
	else
		v->unknown_waits -= n;
	/* waited == 0 under a window of 0 beat the block without a poll */
	if (from == 0 && to != 0)
		v->poll_ns = hs_add_sat(v->poll_ns, v->seg_hit_ns);
	else if (from != 0 && to == 0)
		v->poll_ns = hs_sub_floor(v->poll_ns, v->seg_hit_ns);
	v->poll_ns = hs_sub_floor(v->poll_ns, c->poll_ns);
	v->poll_bounded_ns = hs_sub_floor(v->poll_bounded_ns, c->bounded_ns);
	v->polls_cut = hs_sub_floor(v->polls_cut, c->cut);
	hs_poll_ends_cost(&v->seg_ends, to, c);
	v->poll_ns = hs_add_sat(v->poll_ns, c->poll_ns);
	v->poll_bounded_ns = hs_add_sat(v->poll_bounded_ns, c->bounded_ns);
	v->polls_cut += c->cut;
	if (to > 0)
		v->poll_misses += n;
	else
		v->nopoll_waits += n;
}

/* The halts from ts on form a new segment, provisionally under window. */
static void hs_vcpu_seg_open(struct hs_vcpu_acct *v, int64_t window, uint64_t ts)
{
	hs_seg_open(&v->seg, window, ts);
	hs_poll_ends_reset(&v->seg_ends);
	memset(&v->seg_cost, 0, sizeof(v->seg_cost));
	v->seg_hit_ns = 0;
}

/*
 * The open segment ran under window w (>= 0) until end: its waits move, the
 * timeline takes w for its time (unless w is only a lower bound), and
 * waits that were unknown count under src.
 */
static void hs_seg_settle(struct hs_vcpu_acct *v, int64_t w, uint64_t end, int src, bool lower)
{
	struct hs_window_seg *s = &v->seg;
	uint64_t dt = end > s->since_ts ? end - s->since_ts : 0;

	if (w < 0 || w == s->window)
		return;
	hs_waits_move(v, s->waits, s->window, w);
	if (s->window < 0 && src >= 0)
		v->inferred_waits[src] += s->waits;
	if (lower)
		return;
	if (s->window >= 0) {
		v->window_area += ((double)w - (double)s->window) * (double)dt;
	} else {
		v->window_area += (double)w * (double)dt;
		v->window_time += dt;
	}
}

static enum hs_kernel_era account_era(const struct hs_account *a)
{
	struct hs_whatif_opts wo;

	account_whatif_opts(a, &wo);
	return wo.era;
}

/*
 * The maximum in force for this vCPU as far as is known, -1 unknown: the
 * what-if's, else (no what-if: nothing checks it against the trace) the
 * recorded module parameter.
 */
static int64_t hs_vcpu_max(const struct hs_account *a, struct hs_vcpu_acct *v, bool *checked,
			   bool *own)
{
	enum hs_max_source src = HS_MAX_MODULE;
	int64_t max;

	*checked = v->whatif != NULL;
	max = v->whatif ? hs_whatif_max_ns(v->whatif, &src) : a->meta.halt_poll_ns;
	*own = src == HS_MAX_CONTRADICTED;
	return max;
}

/*
 * No event told the open segment's window by end: the rules decide an
 * unknown one; a known one (a grow's new value) is cut to M where 6.1+
 * would have cut it.
 */
static void hs_seg_close(struct hs_account *a, struct hs_vcpu_acct *v, uint64_t end)
{
	struct hs_window_seg *s = &v->seg;
	enum hs_window_source src = HS_WSRC_COUNT;
	enum hs_unknown_reason why = HS_UNK_NO_RULE;
	bool lower = false, checked, own;
	int64_t max = hs_vcpu_max(a, v, &checked, &own), w;

	if (s->window >= 0) {
		/* an unchecked module value may not be the VM's maximum: no cut then */
		if (checked && max >= 0 && s->window > max &&
		    hs_kernel_era_has(account_era(a), HS_RULE_MAX_LIVE)) {
			hs_seg_settle(v, max, end, -1, false);
			v->window = max;
		}
		return;
	}
	if (!s->halts)
		return;
	w = hs_seg_decide(s, max, &src, &why, &lower);
	/* a maximum of 0 the module does not have was inferred from these very halts */
	if (src == HS_WSRC_MAX_ZERO && own)
		src = HS_WSRC_NO_POLLING;
	if (v->whatif)
		hs_whatif_backfill(v->whatif, w, lower);
	if (w < 0) {
		v->unknown_why[why] += s->waits;
		return;
	}
	hs_seg_settle(v, w, end, (int)src, lower);
	if (!lower)
		v->window = w;
}

/* The end of the stream, or of a live view's interval, at end. */
void hs_vcpu_settle_end(struct hs_account *a, struct hs_vcpu_acct *v, uint64_t end)
{
	hs_seg_close(a, v, end);
	hs_vcpu_seg_open(v, v->window, end);
}

static void hs_vcpu_poll_ns(struct hs_vcpu_acct *v, const struct hs_event *ev)
{
	const struct hs_poll_change *c = &ev->poll;
	int dir = c->grow ? 1 : -1;

	/* two changes without a wakeup between: a wakeup went missing */
	if (v->has_pending)
		v->unreliable = true;
	v->vcpu_id = c->vcpu_id;
	if (dir > 0)
		v->grows++;
	else
		v->shrinks++;
	if (v->last_change && v->last_change != dir)
		v->flaps++;
	v->last_change = dir;
	hs_window_advance(v->window, &v->window_since_ts, ev->ts, &v->window_area,
			  &v->window_time);
	if (v->window == HS_WINDOW_UNKNOWN)
		v->window_since_ts = ev->ts;
	/* the halts since the window was last certain ran under old */
	if (v->seg.window < 0 && v->whatif)
		hs_whatif_backfill(v->whatif, c->old_ns, false);
	hs_seg_settle(v, c->old_ns, ev->ts, HS_WSRC_NEXT_EVENT, false);
	/* from here on the timeline holds the new value; the halt still ends under old */
	v->window = c->new_ns;
	hs_vcpu_seg_open(v, v->window, ev->ts);
	v->pending = *c;
	v->has_pending = true;
}

/*
 * A wait whose poll ended at end at the latest (pollend.h); in_seg: it
 * joins the segment, whose window may still be told otherwise.
 */
static void hs_vcpu_wait(struct hs_account *a, struct hs_vcpu_acct *v, uint64_t ns,
			 int64_t window, uint64_t end, bool bounded, bool in_seg)
{
	struct hs_poll_cost c = {
		.poll_ns = hs_poll_charge(window, end),
		.cut = hs_poll_was_cut(window, end),
	};

	c.bounded_ns = bounded ? c.poll_ns : 0;
	v->waits++;
	if (window > 0)
		v->poll_misses++;
	else if (window == 0)
		v->nopoll_waits++;
	else
		v->unknown_waits++;
	v->poll_ns = hs_add_sat(v->poll_ns, c.poll_ns);
	v->poll_bounded_ns = hs_add_sat(v->poll_bounded_ns, c.bounded_ns);
	v->polls_cut += c.cut;
	if (in_seg) {
		hs_poll_ends_add(&v->seg_ends, end, bounded);
		v->seg_cost.poll_ns += c.poll_ns;
		v->seg_cost.bounded_ns += c.bounded_ns;
		v->seg_cost.cut += c.cut;
	}
	v->log2_wait[hs_log2_index(ns)]++;
	hs_linear_add(a, v->linear_wait, ns);
}

/* When a halt began: the kvm_vcpu_wakeup that ends it, less its duration. */
static uint64_t hs_wakeup_start(const struct hs_event *ev)
{
	return ev->ts > ev->wakeup.ns ? ev->ts - ev->wakeup.ns : 0;
}

/*
 * A wait that polled its whole window went to sleep lag ns after: how long
 * the kernel takes from a poll's end to schedule() (1.7 us on a quiet
 * nested host, 3.4 with three vCPUs on its CPU). A poll that ended early
 * for a reason the events do not show ended that much before its thread
 * slept. The first samples decide, so that every halt after them is
 * charged alike, whichever reader thread has the vCPU.
 */
static void hs_vcpu_sleep_lag(struct hs_vcpu_acct *v, uint64_t lag)
{
	unsigned int i;

	if (v->nsleep_lag == HS_SLEEP_LAGS)
		return;
	if (lag > UINT32_MAX)
		lag = UINT32_MAX;
	for (i = v->nsleep_lag++; i > 0 && v->sleep_lag[i - 1] > lag; i--)
		v->sleep_lag[i] = v->sleep_lag[i - 1];
	v->sleep_lag[i] = (uint32_t)lag;
	if (v->nsleep_lag >= HS_SLEEP_LAG_MIN)
		v->sleep_lag_ns = v->sleep_lag[v->nsleep_lag / 2];
}

/*
 * What the sched events tell of a halt's poll: when it would have ended for
 * another task runnable on the vCPU thread's CPU, from the halt's start
 * (HS_POLL_CUT_UNKNOWN without sched events for that CPU), and the latest
 * its poll can have ended (*end, the halt's length without them). A thread
 * that went to sleep before the window in force ran out had its poll ended
 * by something the events do not name (need_resched() set from elsewhere,
 * say): that ends the poll as well, at any setting. The CPU is the one the
 * thread went to sleep on, else the wakeup's: a woken thread may run
 * elsewhere, but it polled where it halted.
 */
static uint64_t hs_vcpu_contention(struct hs_account *a, struct hs_vcpu_acct *v,
				   const struct hs_event *ev, int64_t window, uint64_t *end)
{
	uint64_t ns = ev->wakeup.ns, start = hs_wakeup_start(ev), slept;
	int cpu = ev->cpu;
	struct hs_runq_halt h;

	*end = ns;
	if (!a->runq)
		return HS_POLL_CUT_UNKNOWN;
	if (ev->wakeup.waited && v->slept_ts >= start && v->slept_ts <= ev->ts)
		cpu = v->slept_cpu;
	hs_runq_halt(a->runq, cpu, ev->tid, start, ev->ts, &h);
	if (!h.known)
		return HS_POLL_CUT_UNKNOWN;
	v->sched_halts++;
	v->sched_halt_ns = hs_add_sat(v->sched_halt_ns, ns);
	if (h.cut_ns != UINT64_MAX) {
		v->contended_halts++;
		v->contended_ns = hs_add_sat(v->contended_ns, h.busy_ns);
	}
	if (h.cut_ns < *end)
		*end = h.cut_ns;
	if (!ev->wakeup.waited || h.slept_ns == UINT64_MAX)
		return h.cut_ns == UINT64_MAX ? HS_POLL_CUT_NONE : h.cut_ns;
	if (window > 0 && h.slept_ns >= (uint64_t)window && h.cut_ns >= (uint64_t)window)
		hs_vcpu_sleep_lag(v, h.slept_ns - (uint64_t)window);
	if (h.slept_ns >= *end)
		return h.cut_ns == UINT64_MAX ? HS_POLL_CUT_NONE : h.cut_ns;
	/* asleep before anything the events show ended it: it ended a little before */
	slept = h.slept_ns > v->sleep_lag_ns ? h.slept_ns - v->sleep_lag_ns : 0;
	*end = slept;
	if (window > 0 && h.slept_ns < (uint64_t)window)
		h.cut_ns = slept;
	return h.cut_ns == UINT64_MAX ? HS_POLL_CUT_NONE : h.cut_ns;
}

/*
 * From a wait's start (ts - ns) to the sched_waking that woke its thread:
 * its exact time to wake, which a wait's ns holds only together with the
 * wake-up overhead; HS_WOKEN_UNKNOWN without one inside the wait. A thread
 * woken and put back to sleep within one halt (kvm_vcpu_block() loops) is
 * timed by its last wake.
 */
static uint64_t hs_vcpu_woken(struct hs_vcpu_acct *v, const struct hs_event *ev)
{
	uint64_t start = hs_wakeup_start(ev);

	if (!ev->wakeup.waited || !v->waking_ts || v->waking_ts <= start || v->waking_ts > ev->ts)
		return HS_WOKEN_UNKNOWN;
	v->timed_waits++;
	return v->waking_ts - start;
}

static void hs_vcpu_wakeup(struct hs_account *a, struct hs_vcpu_acct *v,
			   const struct hs_event *ev)
{
	const struct hs_wakeup *w = &ev->wakeup;
	const struct hs_poll_change *change = v->has_pending ? &v->pending : NULL;
	int64_t window = change ? (int64_t)change->old_ns : v->window;
	/* a halt with its own event ran under old, known; the rest join the segment */
	bool after_loss = !change && v->unreliable && window < 0;
	bool in_seg = !change && !after_loss;
	uint64_t end, start = hs_wakeup_start(ev);
	struct hs_halt_sched sched = {
		.poll_cut_ns = hs_vcpu_contention(a, v, ev, window, &end),
		.woken_ns = hs_vcpu_woken(v, ev),
	};

	v->halts++;
	if (!v->first_start_ts || start < v->first_start_ts)
		v->first_start_ts = start;
	if (w->valid == 0)
		v->invalid++;
	if (w->waited) {
		hs_vcpu_wait(a, v, w->ns, window, end,
			     sched.poll_cut_ns == HS_POLL_CUT_UNKNOWN, in_seg);
	} else {
		v->poll_hits++;
		/* a wake that beat the block under window 0 was not polled for */
		if (window != 0)
			v->poll_ns = hs_add_sat(v->poll_ns, w->ns);
		if (in_seg)
			v->seg_hit_ns = hs_add_sat(v->seg_hit_ns, w->ns);
		v->log2_poll[hs_log2_index(w->ns)]++;
		hs_linear_add(a, v->linear_poll, w->ns);
	}
	if (after_loss && w->waited)
		v->unknown_why[HS_UNK_AFTER_LOSS]++;
	else if (in_seg)
		hs_seg_add(&v->seg, w->ns, w->waited, w->valid != 0);
	hs_account_halt(&v->all, v->whatif, ev->ts, w, change, window, !v->unreliable, &sched);
	v->has_pending = false;
	v->unreliable = false;
}

/*
 * A share of the keys by a hash: vCPU threads of one VM have consecutive
 * tids, which a plain modulo would hand out just as well, but tids picked
 * from a sparse set might not.
 */
static bool hs_account_owns(const struct hs_account *a, int key)
{
	/* the hash scaled to [0, nshards): its high bits, and no division */
	return a->nshards <= 1 ||
	       (unsigned int)(((uint64_t)hs_imap_hash(key) * a->nshards) >> 32) == a->shard;
}

/* The key hs_account_kvm or hs_account_guest_event files ev under; -1: none. */
static int64_t hs_account_key(const struct hs_event *ev)
{
	if (ev->kind == HS_EV_VCPU_WAKEUP || ev->kind == HS_EV_HALT_POLL_NS)
		return ev->tid;
	return ev->kind == HS_EV_CPU_IDLE ? (int64_t)ev->idle.cpu_id : ev->cpu;
}

/* The span of the events kept grows to cover [first, last]. */
static void hs_account_span(struct hs_account *a, uint64_t first, uint64_t last)
{
	if (!a->have_ts || first < a->first_ts)
		a->first_ts = first;
	if (!a->have_ts || last > a->last_ts)
		a->last_ts = last;
	a->have_ts = true;
}

bool hs_account_keeps(const struct hs_account *a, const struct hs_event *ev)
{
	int64_t key;

	/* every shard follows every runqueue */
	if (a->nshards <= 1 || hs_ev_sched(ev->kind))
		return true;
	key = hs_account_key(ev);
	/* start/end count from the first event seen: every event must be seen */
	if (a->opts.start_ns || a->opts.end_ns ||
	    ev->kind < HS_EV_VCPU_WAKEUP || ev->kind > HS_EV_ANALYSED_LAST ||
	    key < 0 || key > INT_MAX)
		return true;
	return hs_account_owns(a, (int)key);
}

void hs_account_tally(struct hs_account *a, const struct hs_event_tally *t)
{
	bool any = false;

	for (int k = HS_EV_VCPU_WAKEUP; k <= HS_EV_ANALYSED_LAST; k++) {
		a->events[k] += t->count[k];
		any |= t->count[k] != 0;
	}
	if (any)
		hs_account_span(a, t->first_ts, t->last_ts);
}

static int hs_account_kvm(struct hs_account *a, const struct hs_event *ev)
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
		hs_vcpu_wakeup(a, v, ev);
	else
		hs_vcpu_poll_ns(v, ev);
	return 0;
}

unsigned int hs_idle_slot(int64_t state)
{
	return state >= HS_IDLE_STATES ? HS_IDLE_STATES - 1 : (unsigned int)state;
}

static void hs_guest_close(struct hs_guest_cpu_acct *g, uint64_t ts)
{
	unsigned int slot = hs_idle_slot(g->cur_state);

	if (ts > g->cur_since)
		g->residency_ns[slot] += ts - g->cur_since;
	g->entries[slot]++;
	g->last_exit_state = g->cur_state;
	g->poll_pending = g->cur_state == 0;
	g->cur_state = -1;
}

static void hs_guest_idle(struct hs_guest_cpu_acct *g, const struct hs_event *ev)
{
	uint32_t state = ev->idle.state;

	if (state == HS_IDLE_EXIT) {
		if (g->cur_state >= 0)
			hs_guest_close(g, ev->ts);
		return;
	}
	/* the POLL that just ended timed out if the governor now halts */
	if (g->poll_pending) {
		if (state == 1)
			g->poll_misses++;
		else
			g->poll_hits++;
		g->poll_pending = false;
	}
	/* an entry without the previous exit: that period is not measurable */
	g->cur_state = state;
	g->cur_since = ev->ts;
}

static void hs_guest_poll_ns(struct hs_guest_cpu_acct *g, const struct hs_event *ev)
{
	if (ev->guest_poll.grow)
		g->grows++;
	else
		g->shrinks++;
	hs_window_advance(g->window, &g->window_since_ts, ev->ts, &g->window_area,
			  &g->window_time);
	if (g->window == HS_WINDOW_UNKNOWN)
		g->window_since_ts = ev->ts;
	g->window = ev->guest_poll.new_ns;
}

static int hs_account_guest_event(struct hs_account *a, const struct hs_event *ev)
{
	int64_t key = hs_account_key(ev);
	struct hs_guest_cpu_acct *g;

	/* a CPU number no machine has: a damaged record, not worth a map slot */
	if (key < 0 || key > INT_MAX || !hs_account_owns(a, (int)key))
		return 0;
	g = hs_guest_get(a, (int)key, ev->ts);
	if (!g)
		return hs_account_over(a, a->nguest, HS_ACCOUNT_MAX_GUEST_CPUS);
	if (ev->ts > g->last_ts)
		g->last_ts = ev->ts;
	if (ev->kind == HS_EV_CPU_IDLE)
		hs_guest_idle(g, ev);
	else
		hs_guest_poll_ns(g, ev);
	if (g->whatif)
		hs_guest_whatif_event(g->whatif, ev);
	return 0;
}

/*
 * The shard of a vCPU thread notes when it is woken; a thread not known as
 * one yet may be a vCPU thread in its first halt, so its wake is kept aside.
 */
static void hs_account_waking(struct hs_account *a, const struct hs_event *ev)
{
	int tid = ev->sched_wakeup.pid;
	long i;

	if (tid <= 0 || !hs_account_owns(a, tid))
		return;
	i = hs_imap_get(&a->vcpu_map, tid);
	if (i < 0) {
		a->waking_early[hs_waking_slot(tid)].tid = tid;
		a->waking_early[hs_waking_slot(tid)].ts = ev->ts;
	} else if (ev->ts > a->vcpus[i]->waking_ts) {
		a->vcpus[i]->waking_ts = ev->ts;
	}
}

/* A vCPU thread that goes to sleep does so on the CPU it polled on. */
static void hs_account_slept(struct hs_account *a, const struct hs_event *ev)
{
	const struct hs_sched_switch *sw = &ev->sched_switch;
	long i;

	if (sw->prev_runnable || sw->prev_pid <= 0 || !hs_account_owns(a, sw->prev_pid))
		return;
	i = hs_imap_get(&a->vcpu_map, sw->prev_pid);
	if (i < 0)
		return;
	a->vcpus[i]->slept_ts = ev->ts;
	a->vcpus[i]->slept_cpu = ev->cpu;
}

/* Every shard tracks every CPU's runqueue: any of its vCPUs may halt there. */
static int hs_account_sched(struct hs_account *a, const struct hs_event *ev)
{
	if (ev->kind == HS_EV_SCHED_WAKING) {
		hs_account_waking(a, ev);
		return 0;
	}
	if (!a->runq) {
		a->runq = hs_runq_alloc();
		if (!a->runq)
			return -ENOMEM;
	}
	if (ev->kind == HS_EV_SCHED_SWITCH)
		hs_account_slept(a, ev);
	if (ev->kind == HS_EV_SCHED_SWITCH)
		hs_runq_switch(a->runq, ev->ts, ev->cpu, &ev->sched_switch);
	else
		hs_runq_wakeup(a->runq, ev->ts, &ev->sched_wakeup);
	return 0;
}

/* start/end count from the first event seen, whatever its kind. */
static bool hs_account_in_range(struct hs_account *a, uint64_t ts)
{
	uint64_t rel;

	if (!a->have_base) {
		a->have_base = true;
		a->base_ts = ts;
	}
	rel = ts > a->base_ts ? ts - a->base_ts : 0;
	if (rel < a->opts.start_ns)
		return false;
	return !a->opts.end_ns || rel < a->opts.end_ns;
}

/* Returns 0, -EINVAL for an unknown kind, -ENOMEM. Events outside start/end are dropped. */
int hs_account_event(struct hs_account *a, const struct hs_event *ev)
{
	int ret;

	if (ev->kind < HS_EV_VCPU_WAKEUP || ev->kind > HS_EV_ANALYSED_LAST)
		return -EINVAL;
	if (!hs_account_in_range(a, ev->ts))
		return 0;
	if (ev->kind == HS_EV_VCPU_WAKEUP || ev->kind == HS_EV_HALT_POLL_NS)
		ret = hs_account_kvm(a, ev);
	else if (hs_ev_sched(ev->kind))
		ret = hs_account_sched(a, ev);
	else
		ret = hs_account_guest_event(a, ev);
	if (ret)
		return ret;
	a->events[ev->kind]++;
	hs_account_span(a, ev->ts, ev->ts);
	return 0;
}

/*
 * After a loss the window and any pending change can no longer be trusted;
 * what came before it is told by the rules, as at the end.
 */
static void hs_vcpu_forget(struct hs_account *a, struct hs_vcpu_acct *v)
{
	hs_window_advance(v->window, &v->window_since_ts, v->last_ts, &v->window_area,
			  &v->window_time);
	hs_seg_close(a, v, v->last_ts);
	v->window = HS_WINDOW_UNKNOWN;
	hs_vcpu_seg_open(v, HS_WINDOW_UNKNOWN, v->last_ts);
	v->has_pending = false;
	v->unreliable = true;
	v->last_change = 0;
}

static void hs_guest_forget(struct hs_guest_cpu_acct *g)
{
	hs_window_advance(g->window, &g->window_since_ts, g->last_ts, &g->window_area,
			  &g->window_time);
	g->window = HS_WINDOW_UNKNOWN;
	g->cur_state = -1;
	g->poll_pending = false;
	if (g->whatif)
		hs_guest_whatif_break(g->whatif);
}

void hs_account_lost(struct hs_account *a, int cpu, uint64_t count, bool count_known)
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
	if (a->runq)
		hs_runq_lost(a->runq, cpu);
}

static void hs_guest_finish(struct hs_guest_cpu_acct *g, uint64_t end)
{
	if (g->cur_state >= 0) {
		hs_guest_close(g, end);
		g->cur_state = -1;
	}
	/* a POLL that ended and was not followed by a halt was a hit */
	if (g->poll_pending) {
		g->poll_hits++;
		g->poll_pending = false;
	}
	hs_window_advance(g->window, &g->window_since_ts, end, &g->window_area,
			  &g->window_time);
}

/* The tgid of a vCPU thread, -1 unknown. */
static int hs_vcpu_tgid(const struct hs_account *a, const struct hs_vcpu_acct *v)
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
static void hs_account_vm_max(struct hs_account *a)
{
	struct hs_selfcheck *sc = calloc(a->nvcpus ? a->nvcpus : 1, sizeof(*sc));
	int *tgid = calloc(a->nvcpus ? a->nvcpus : 1, sizeof(*tgid));

	if (!sc || !tgid)
		goto out;	/* then each vCPU keeps its own bounds */
	for (unsigned int i = 0; i < a->nvcpus; i++) {
		tgid[i] = hs_vcpu_tgid(a, a->vcpus[i]);
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
	uint64_t end = a->last_ts, span = a->have_ts ? a->last_ts - a->first_ts : 0;
	unsigned int i;

	if (a->finished)
		return;
	a->finished = true;
	hs_account_vm_max(a);
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

uint64_t hs_account_first_ts(const struct hs_account *a)
{
	return a->have_ts ? a->first_ts : 0;
}

uint64_t hs_account_last_ts(const struct hs_account *a)
{
	return a->have_ts ? a->last_ts : 0;
}

uint64_t hs_account_events(const struct hs_account *a, enum hs_event_kind kind)
{
	if (kind < HS_EV_VCPU_WAKEUP || kind > HS_EV_ANALYSED_LAST)
		return 0;
	return a->events[kind];
}
