// SPDX-License-Identifier: GPL-2.0-only
/*
 * One vCPU thread's halts: poll hits and misses, the polling CPU each was
 * charged, the window timeline and the segments of halts whose window is
 * told afterwards, and what the sched events say of each halt.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "account_state.h"

/* The halt histogram and the what-if replay of one halt. */
static void account_halt(struct hs_hist *hist, struct hs_whatif *w, uint64_t ts,
			 const struct hs_wakeup *wakeup,
			 const struct hs_poll_change *change, int64_t window,
			 bool reliable, const struct hs_halt_sched *sched)
{
	hs_hist_add(hist, wakeup->ns);
	if (w)
		hs_whatif_halt_ts(w, ts, wakeup, change, window, reliable, sched);
}

void hs_vcpu_free(struct hs_vcpu_acct *v)
{
	if (!v)
		return;
	if (v->whatif)
		hs_whatif_free(v->whatif);
	free(v->linear_poll);
	free(v->linear_wait);
	free(v);
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
	wo->nested_host = hs_meta_nested(m);
}

static struct hs_vcpu_acct *vcpu_new(const struct hs_account *a, int tid)
{
	size_t n = (size_t)a->opts.linear_entries + 1;
	struct hs_vcpu_acct *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->tid = tid;
	v->window = HS_WINDOW_UNKNOWN;
	hs_winstate_open(&v->seg, HS_WINDOW_UNKNOWN, 0);
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
	v = vcpu_new(a, tid);
	if (!v)
		return NULL;
	v->first_ts = ts;
	v->last_ts = ts;
	v->seg.since_ts = ts;
	if (hs_imap_put(&a->vcpu_map, tid, a->nvcpus)) {
		hs_vcpu_free(v);
		return NULL;
	}
	a->vcpus[a->nvcpus++] = v;
	return v;
}

static void linear_add(const struct hs_account *a, uint64_t *lin, uint64_t ns)
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
static uint64_t sub_floor(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * Moves the segment's n waits, counted under window from, into window to:
 * what they polled is charged again under to (pollend.h).
 */
static void waits_move(struct hs_vcpu_acct *v, uint64_t n, int64_t from, int64_t to)
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
		v->poll_ns = sub_floor(v->poll_ns, v->seg_hit_ns);
	v->poll_ns = sub_floor(v->poll_ns, c->poll_ns);
	v->poll_bounded_ns = sub_floor(v->poll_bounded_ns, c->bounded_ns);
	v->polls_cut = sub_floor(v->polls_cut, c->cut);
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
static void vcpu_seg_open(struct hs_vcpu_acct *v, int64_t window, uint64_t ts)
{
	hs_winstate_open(&v->seg, window, ts);
	hs_poll_ends_reset(&v->seg_ends);
	memset(&v->seg_cost, 0, sizeof(v->seg_cost));
	v->seg_hit_ns = 0;
}

/*
 * The open segment ran under window w (>= 0) until end: its waits move, the
 * timeline takes w for its time (unless w is only a lower bound), and
 * waits that were unknown count under src.
 */
static void seg_settle(struct hs_vcpu_acct *v, int64_t w, uint64_t end, int src, bool lower)
{
	struct hs_window_seg *s = &v->seg;
	uint64_t dt = end > s->since_ts ? end - s->since_ts : 0;

	if (w < 0 || w == s->window)
		return;
	waits_move(v, s->waits, s->window, w);
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
static int64_t vcpu_max(const struct hs_account *a, struct hs_vcpu_acct *v, bool *checked,
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
static void seg_close(struct hs_account *a, struct hs_vcpu_acct *v, uint64_t end)
{
	struct hs_window_seg *s = &v->seg;
	enum hs_window_source src = HS_WSRC_COUNT;
	enum hs_unknown_reason why = HS_UNK_NO_RULE;
	bool lower = false, checked, own;
	int64_t max = vcpu_max(a, v, &checked, &own), w;

	if (s->window >= 0) {
		/* an unchecked module value may not be the VM's maximum: no cut then */
		if (checked && max >= 0 && s->window > max &&
		    hs_kernel_era_has(account_era(a), HS_RULE_MAX_LIVE)) {
			seg_settle(v, max, end, -1, false);
			v->window = max;
		}
		return;
	}
	if (!s->halts)
		return;
	w = hs_winstate_decide(s, max, &src, &why, &lower);
	/* a maximum of 0 the module does not have was inferred from these very halts */
	if (src == HS_WSRC_MAX_ZERO && own)
		src = HS_WSRC_NO_POLLING;
	if (v->whatif)
		hs_whatif_backfill(v->whatif, w, lower);
	if (w < 0) {
		v->unknown_why[why] += s->waits;
		return;
	}
	seg_settle(v, w, end, (int)src, lower);
	if (!lower)
		v->window = w;
}

/* The end of the stream, or of a live view's interval, at end. */
void hs_vcpu_settle_end(struct hs_account *a, struct hs_vcpu_acct *v, uint64_t end)
{
	seg_close(a, v, end);
	vcpu_seg_open(v, v->window, end);
}

void hs_vcpu_poll_ns(struct hs_vcpu_acct *v, const struct hs_event *ev)
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
	seg_settle(v, c->old_ns, ev->ts, HS_WSRC_NEXT_EVENT, false);
	/* from here on the timeline holds the new value; the halt still ends under old */
	v->window = c->new_ns;
	vcpu_seg_open(v, v->window, ev->ts);
	v->pending = *c;
	v->has_pending = true;
}

/*
 * A wait whose poll ended at end at the latest (pollend.h); in_seg: it
 * joins the segment, whose window may still be told otherwise.
 */
static void vcpu_wait(struct hs_account *a, struct hs_vcpu_acct *v, uint64_t ns,
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
	linear_add(a, v->linear_wait, ns);
}

/* When a halt began: the kvm_vcpu_wakeup that ends it, less its duration. */
static uint64_t wakeup_start(const struct hs_event *ev)
{
	return ev->ts > ev->wakeup.ns ? ev->ts - ev->wakeup.ns : 0;
}

/*
 * A wait that polled its whole window went to sleep lag ns after: how long
 * the kernel takes from a poll's end to schedule() (doc/INTERNALS.md,
 * "Polling CPU", has the figures). A poll that ended early for a reason
 * the events do not show ended that much before its thread slept. The
 * first samples decide, so that every halt after them is charged alike,
 * whichever reader thread has the vCPU.
 */
static void vcpu_sleep_lag(struct hs_vcpu_acct *v, uint64_t lag)
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
 * What the sched events tell of a halt's poll (facts, contention.h): when it
 * would have ended for another task runnable on the vCPU thread's CPU, from
 * the halt's start (HS_POLL_CUT_UNKNOWN without sched events for that CPU),
 * and the latest its poll can have ended (*end, the halt's length without
 * them). A thread that went to sleep before the window in force ran out had
 * its poll ended by something the events do not name (need_resched() set
 * from elsewhere, say): that ends the poll as well, at any setting.
 */
static uint64_t vcpu_contention(struct hs_vcpu_acct *v, const struct hs_event *ev,
				const struct hs_halt_facts *facts, int64_t window, uint64_t *end)
{
	uint64_t ns = ev->wakeup.ns, slept;
	struct hs_runq_halt h = facts->runq;

	*end = ns;
	if (!facts->tracked || !h.known)
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
		vcpu_sleep_lag(v, h.slept_ns - (uint64_t)window);
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
 * From a wait's start to the sched_waking that woke its thread: its exact
 * time to wake, which a wait's ns holds only together with the wake-up
 * overhead; HS_WOKEN_UNKNOWN without one inside the wait.
 */
static uint64_t vcpu_woken(struct hs_vcpu_acct *v, const struct hs_halt_facts *facts)
{
	if (facts->woken_ns != HS_WOKEN_UNKNOWN)
		v->timed_waits++;
	return facts->woken_ns;
}

void hs_vcpu_wakeup(struct hs_account *a, struct hs_vcpu_acct *v,
		    const struct hs_event *ev, const struct hs_halt_facts *facts)
{
	const struct hs_wakeup *w = &ev->wakeup;
	const struct hs_poll_change *change = v->has_pending ? &v->pending : NULL;
	int64_t window = change ? (int64_t)change->old_ns : v->window;
	/* a halt with its own event ran under old, known; the rest join the segment */
	bool after_loss = !change && v->unreliable && window < 0;
	bool in_seg = !change && !after_loss;
	uint64_t end, start = wakeup_start(ev);
	struct hs_halt_sched sched = {
		.poll_cut_ns = vcpu_contention(v, ev, facts, window, &end),
		.woken_ns = vcpu_woken(v, facts),
	};

	v->halts++;
	if (!v->first_start_ts || start < v->first_start_ts)
		v->first_start_ts = start;
	if (w->valid == 0)
		v->invalid++;
	if (w->waited) {
		vcpu_wait(a, v, w->ns, window, end,
			     sched.poll_cut_ns == HS_POLL_CUT_UNKNOWN, in_seg);
	} else {
		v->poll_hits++;
		/* a wake that beat the block under window 0 was not polled for */
		if (window != 0)
			v->poll_ns = hs_add_sat(v->poll_ns, w->ns);
		if (in_seg)
			v->seg_hit_ns = hs_add_sat(v->seg_hit_ns, w->ns);
		v->log2_poll[hs_log2_index(w->ns)]++;
		linear_add(a, v->linear_poll, w->ns);
	}
	if (after_loss && w->waited)
		v->unknown_why[HS_UNK_AFTER_LOSS]++;
	else if (in_seg)
		hs_winstate_add(&v->seg, w->ns, w->waited, w->valid != 0);
	account_halt(&v->all, v->whatif, ev->ts, w, change, window, !v->unreliable, &sched);
	v->has_pending = false;
	v->unreliable = false;
}

/*
 * After a loss the window and any pending change can no longer be trusted;
 * what came before it is told by the rules, as at the end.
 */
void hs_vcpu_forget(struct hs_account *a, struct hs_vcpu_acct *v)
{
	hs_window_advance(v->window, &v->window_since_ts, v->last_ts, &v->window_area,
			  &v->window_time);
	seg_close(a, v, v->last_ts);
	v->window = HS_WINDOW_UNKNOWN;
	vcpu_seg_open(v, HS_WINDOW_UNKNOWN, v->last_ts);
	v->has_pending = false;
	v->unreliable = true;
	v->last_change = 0;
}
