// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/account*.c fed hand-built event sequences; every expected number is
 * worked out by hand in the comments next to the events.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/account.h"
#include "../../lib/evdecode.h"
#include "check.h"

static int feed_errors;
/*
 * The tests run three times: through hs_account_event(); through its two
 * halves as a reader's thread and the accounting's would call them (facts
 * handed from one to the other); and in batches as the decoders hand them
 * over (hs_account_event_batch), a run of sched events held until the
 * next other event or until the account is looked at. Every figure must
 * come out the same.
 */
static enum { FEED_ONE, FEED_HALVES, FEED_BATCH } feed_mode;
static struct hs_event pending[64];
static size_t npending;
static struct hs_account *pending_acct;

static void flush(void)
{
	if (npending && hs_account_event_batch(pending_acct, pending, npending))
		feed_errors++;
	npending = 0;
}

static void feed_batched(struct hs_account *a, const struct hs_event *ev)
{
	if (pending_acct != a || npending == sizeof(pending) / sizeof(pending[0]))
		flush();
	pending_acct = a;
	pending[npending++] = *ev;
	if (!hs_ev_sched(ev->kind))
		flush();
}

static void feed(struct hs_account *a, const struct hs_event *ev)
{
	struct hs_halt_facts facts;
	bool pass;
	int ret = 0;

	switch (feed_mode) {
	case FEED_ONE:
		ret = hs_account_event(a, ev);
		break;
	case FEED_HALVES:
		ret = hs_account_front(a, ev, &facts, &pass);
		if (!ret && pass)
			ret = hs_account_back(a, ev, &facts);
		break;
	case FEED_BATCH:
		feed_batched(a, ev);
		break;
	}
	if (ret)
		feed_errors++;
}

static void lost(struct hs_account *a, int cpu, uint64_t count, bool known)
{
	flush();
	if (feed_mode != FEED_HALVES) {
		hs_account_lost(a, cpu, count, known);
		return;
	}
	hs_account_back_lost(a, cpu, count, known);
	hs_account_front_lost(a, cpu, count, known);
}

/* what the account shows is looked at after what was fed */
#define hs_account_finish(a) (flush(), hs_account_finish(a))
#define hs_account_nvcpus(a) (flush(), hs_account_nvcpus(a))
#define hs_account_nguest(a) (flush(), hs_account_nguest(a))
#define hs_account_events(a, k) (flush(), hs_account_events(a, k))
#define hs_account_free(a) (flush(), hs_account_free(a))

static void wake(struct hs_account *a, uint64_t ts, int tid, uint64_t ns, bool waited,
		 int valid)
{
	struct hs_event ev = { .ts = ts, .cpu = 0, .tid = tid, .kind = HS_EV_VCPU_WAKEUP };

	ev.wakeup.ns = ns;
	ev.wakeup.waited = waited;
	ev.wakeup.valid = (int8_t)valid;
	feed(a, &ev);
}

static void pollns(struct hs_account *a, uint64_t ts, int tid, uint32_t vcpu, uint32_t new_ns,
		   uint32_t old_ns)
{
	struct hs_event ev = { .ts = ts, .cpu = 0, .tid = tid, .kind = HS_EV_HALT_POLL_NS };

	ev.poll.vcpu_id = vcpu;
	ev.poll.new_ns = new_ns;
	ev.poll.old_ns = old_ns;
	ev.poll.grow = new_ns > old_ns;
	feed(a, &ev);
}

static void idle(struct hs_account *a, uint64_t ts, int buf_cpu, uint32_t cpu_id, uint32_t state)
{
	struct hs_event ev = { .ts = ts, .cpu = buf_cpu, .tid = 0, .kind = HS_EV_CPU_IDLE };

	ev.idle.state = state;
	ev.idle.cpu_id = cpu_id;
	feed(a, &ev);
}

static void gpoll(struct hs_account *a, uint64_t ts, int cpu, uint32_t new_ns, uint32_t old_ns)
{
	struct hs_event ev = { .ts = ts, .cpu = cpu, .tid = 0, .kind = HS_EV_GUEST_HALT_POLL_NS };

	ev.guest_poll.new_ns = new_ns;
	ev.guest_poll.old_ns = old_ns;
	ev.guest_poll.grow = new_ns > old_ns;
	feed(a, &ev);
}

static struct hs_account *acct_new(uint64_t start, uint64_t end, uint64_t bucket,
				   unsigned int entries)
{
	struct hs_account_opts o;

	memset(&o, 0, sizeof(o));
	o.start_ns = start;
	o.end_ns = end;
	o.linear_bucket_ns = bucket;
	o.linear_entries = entries;
	o.no_whatif = true;
	return hs_account_alloc(&o);
}

static const struct hs_vcpu_acct *find_vcpu(const struct hs_account *a, int tid)
{
	unsigned int i;

	for (i = 0; i < hs_account_nvcpus(a); i++)
		if (hs_account_vcpu(a, i)->tid == tid)
			return hs_account_vcpu(a, i);
	return NULL;
}

static const struct hs_guest_cpu_acct *find_guest(const struct hs_account *a, int cpu)
{
	unsigned int i;

	for (i = 0; i < hs_account_nguest(a); i++)
		if (hs_account_guest(a, i)->cpu == cpu)
			return hs_account_guest(a, i);
	return NULL;
}

static void test_classification(void)
{
	struct hs_account *a = acct_new(0, 0, 0, 0);
	const struct hs_vcpu_acct *v;

	wake(a, 1000, 100, 5000, true, 1);	/* window unknown: nopoll once the grow says old 0 */
	wake(a, 2000, 100, 300, false, 1);	/* beat the block: not polled once the grow says old 0 */
	pollns(a, 3000, 100, 3, 10000, 0);	/* grow; this halt still ran under 0, and so did those before */
	wake(a, 3000, 100, 7000, true, 1);	/* nopoll wait */
	wake(a, 4000, 100, 600000, true, 1);	/* miss under 10000, poll_ns += 10000 */
	pollns(a, 5000, 100, 3, 0, 10000);	/* shrink: flap 1 */
	wake(a, 5000, 100, 300000, true, 1);	/* miss under old 10000 */
	wake(a, 6000, 100, 1000, true, 0);	/* nopoll wait, invalid */
	pollns(a, 7000, 100, 3, 10000, 0);	/* grow: flap 2 */
	wake(a, 7000, 100, 8000, false, 1);	/* beat the block under 0: not polled */
	pollns(a, 8000, 100, 3, 20000, 10000);	/* grow after grow: no flap */
	wake(a, 8000, 100, 15000, false, 1);	/* hit */
	wake(a, 10000, 100, 2000, true, 1);	/* miss under 20000, cut short: poll_ns += 2000 */
	hs_account_finish(a);
	v = find_vcpu(a, 100);
	if (!v) {
		CHECK(0, "acct_class_vcpu_exists");
		hs_account_free(a);
		return;
	}
	CHECK_EQ_U64(hs_account_nvcpus(a), 1, "acct_class_nvcpus");
	CHECK_EQ_U64(v->halts, 9, "acct_class_halts");
	CHECK_EQ_U64(v->poll_hits, 3, "acct_class_hits");
	CHECK_EQ_U64(v->waits, 6, "acct_class_waits");
	CHECK_EQ_U64(v->poll_misses, 3, "acct_class_misses");
	CHECK_EQ_U64(v->nopoll_waits, 3, "acct_class_nopoll");
	CHECK_EQ_U64(v->unknown_waits, 0, "acct_class_unknown");
	CHECK_EQ_U64(v->inferred_waits[HS_WSRC_NEXT_EVENT], 1, "acct_class_backfilled");
	CHECK_EQ_U64(v->invalid, 1, "acct_class_invalid");
	CHECK_EQ_U64(v->poll_ns, 10000 + 10000 + 15000 + 2000, "acct_class_poll_ns");
	/* no sched events: the three misses are charged an upper bound */
	CHECK_EQ_U64(v->poll_bounded_ns, 10000 + 10000 + 2000, "acct_class_poll_bounded");
	CHECK_EQ_U64(v->polls_cut, 1, "acct_class_polls_cut");
	CHECK_EQ_U64(v->grows, 3, "acct_class_grows");
	CHECK_EQ_U64(v->shrinks, 1, "acct_class_shrinks");
	CHECK_EQ_U64(v->flaps, 2, "acct_class_flaps");
	CHECK_EQ_U64(v->vcpu_id, 3, "acct_class_vcpu_id");
	CHECK_EQ_U64(v->window, 20000, "acct_class_window_last");
	/* 1000..3000 at 0 (back-filled), 3000..5000 at 10000, 5000..7000 at 0, 7000..8000 at 10000, 8000..10000 at 20000 */
	CHECK_EQ_U64(v->window_time, 9000, "acct_class_window_time");
	CHECK(fabs(v->window_area - 7e7) < 1, "acct_class_window_area");
	CHECK_EQ_U64(v->all.count, 9, "acct_class_hist_count");
	CHECK_EQ_U64(v->all.min, 300, "acct_class_hist_min");
	CHECK_EQ_U64(v->all.max, 600000, "acct_class_hist_max");
	CHECK_EQ_U64(v->log2_wait[13], 2, "acct_class_log2_wait_4k");	/* 5000, 7000 */
	CHECK_EQ_U64(v->log2_poll[9], 1, "acct_class_log2_poll_256");	/* 300 */
	CHECK_EQ_U64(v->log2_poll[14], 1, "acct_class_log2_poll_8k");	/* 15000 */
	CHECK_EQ_U64(v->first_ts, 1000, "acct_class_first_ts");
	CHECK_EQ_U64(v->last_ts, 10000, "acct_class_last_ts");
	CHECK(!v->has_pending, "acct_class_no_pending");
	CHECK_EQ_U64(hs_account_events(a, HS_EV_VCPU_WAKEUP), 9, "acct_class_events_wakeup");
	CHECK_EQ_U64(hs_account_events(a, HS_EV_HALT_POLL_NS), 4, "acct_class_events_pollns");
	CHECK_EQ_U64(hs_account_first_ts(a), 1000, "acct_class_trace_first");
	CHECK_EQ_U64(hs_account_last_ts(a), 10000, "acct_class_trace_last");
	hs_account_free(a);
}

static void test_threads_independent(void)
{
	struct hs_account *a = acct_new(0, 0, 0, 0);
	const struct hs_vcpu_acct *v200, *v201;

	pollns(a, 100, 200, 0, 10000, 0);
	wake(a, 110, 201, 5000, true, 1);	/* other thread: unknown, and M is unknown too */
	wake(a, 120, 200, 5000, true, 1);	/* old 0: nopoll */
	wake(a, 130, 200, 5000, true, 1);	/* 10000: miss */
	hs_account_finish(a);
	v200 = find_vcpu(a, 200);
	v201 = find_vcpu(a, 201);
	CHECK(v200 && v201, "acct_threads_exist");
	if (!v200 || !v201)
		goto out;
	CHECK_EQ_U64(v201->unknown_waits, 1, "acct_threads_other_unknown");
	CHECK_EQ_U64(v201->unknown_why[HS_UNK_MAX_UNKNOWN], 1, "acct_threads_other_why");
	CHECK_EQ_U64(v200->nopoll_waits, 1, "acct_threads_nopoll");
	CHECK_EQ_U64(v200->poll_misses, 1, "acct_threads_miss");
	CHECK_EQ_U64(v201->vcpu_id, (uint64_t)-1, "acct_threads_vcpu_id_unknown");
out:
	hs_account_free(a);
}

static void test_lost(void)
{
	struct hs_account *a = acct_new(0, 0, 0, 0);
	const struct hs_vcpu_acct *v;
	struct hs_meta *m = hs_account_meta(a);

	pollns(a, 100, 300, 1, 10000, 0);	/* grow */
	wake(a, 100, 300, 500, true, 1);	/* nopoll (old 0) */
	pollns(a, 200, 300, 1, 0, 10000);	/* shrink: flap 1, pending */
	lost(a, 0, 5, true);		/* pending dropped, window unknown */
	wake(a, 200, 300, 900000, true, 1);	/* unknown wait: right after the loss */
	wake(a, 300, 300, 900000, true, 1);	/* nopoll, told by the next event's old */
	pollns(a, 400, 300, 1, 10000, 0);	/* grow after loss: not a flap */
	wake(a, 400, 300, 700, true, 1);	/* nopoll */
	lost(a, 3, 0, false);
	lost(a, 3, 0, true);		/* nothing lost: no effect */
	wake(a, 500, 300, 700, true, 1);	/* unknown again: right after the loss */
	hs_account_finish(a);
	v = find_vcpu(a, 300);
	if (!v) {
		CHECK(0, "acct_lost_vcpu");
		hs_account_free(a);
		return;
	}
	CHECK_EQ_U64(m->lost_events, 5, "acct_lost_count");
	CHECK_EQ_U64(m->lost_unknown_places, 1, "acct_lost_unknown_places");
	CHECK_EQ_U64(v->unknown_waits, 2, "acct_lost_unknown_waits");
	CHECK_EQ_U64(v->unknown_why[HS_UNK_AFTER_LOSS], 2, "acct_lost_unknown_why");
	CHECK_EQ_U64(v->nopoll_waits, 3, "acct_lost_nopoll");
	CHECK_EQ_U64(v->poll_misses, 0, "acct_lost_no_miss");
	CHECK_EQ_U64(v->flaps, 1, "acct_lost_flaps");
	CHECK_EQ_U64(v->window, (uint64_t)HS_WINDOW_UNKNOWN, "acct_lost_window_unknown");
	/* 100..200 at 10000, 200..400 at 0 (the grow's old, from the loss on), 400..400 at 10000 */
	CHECK_EQ_U64(v->window_time, 300, "acct_lost_window_time");
	CHECK(v->unreliable == false, "acct_lost_reliable_after_halt");
	hs_account_free(a);
}

static void test_guest_idle(void)
{
	struct hs_account *a = acct_new(0, 0, 0, 0);
	const struct hs_guest_cpu_acct *g0, *g1;

	idle(a, 100, 0, 0, 0);		/* POLL */
	idle(a, 150, 0, 0, HS_IDLE_EXIT);	/* res[0] 50 */
	idle(a, 160, 0, 0, 1);		/* HALT after POLL: miss */
	idle(a, 400, 0, 0, HS_IDLE_EXIT);	/* res[1] 240 */
	idle(a, 500, 0, 0, 0);
	idle(a, 520, 0, 0, HS_IDLE_EXIT);	/* res[0] 20 */
	idle(a, 600, 0, 0, 0);		/* POLL after POLL: hit */
	idle(a, 610, 0, 0, HS_IDLE_EXIT);	/* res[0] 10 */
	idle(a, 700, 0, 0, 9);		/* deep state: hit, last slot */
	idle(a, 750, 0, 0, HS_IDLE_EXIT);	/* res[7] 50 */
	idle(a, 800, 0, 0, 0);
	idle(a, 820, 0, 0, HS_IDLE_EXIT);	/* res[0] 20; ends the trace as a hit */
	/* cpu 1 events recorded in cpu 0's buffer: keyed by cpu_id */
	idle(a, 100, 0, 1, 1);
	idle(a, 300, 0, 1, HS_IDLE_EXIT);	/* res[1] 200 */
	idle(a, 900, 0, 1, 1);
	idle(a, 950, 0, 1, HS_IDLE_EXIT);	/* res[1] 50 */
	idle(a, 960, 0, 1, 2);		/* still open at finish: res[2] 40 */
	idle(a, 1000, 5, 5, HS_IDLE_EXIT);	/* exit without entry: ignored */
	hs_account_finish(a);
	g0 = find_guest(a, 0);
	g1 = find_guest(a, 1);
	CHECK(g0 && g1 && hs_account_nguest(a) == 3, "acct_guest_cpus");
	if (!g0 || !g1)
		goto out;
	CHECK_EQ_U64(g0->residency_ns[0], 50 + 20 + 10 + 20, "acct_guest_res0");
	CHECK_EQ_U64(g0->entries[0], 4, "acct_guest_entries0");
	CHECK_EQ_U64(g0->residency_ns[1], 240, "acct_guest_res1");
	CHECK_EQ_U64(g0->residency_ns[HS_IDLE_STATES - 1], 50, "acct_guest_res_last");
	CHECK_EQ_U64(g0->entries[HS_IDLE_STATES - 1], 1, "acct_guest_entries_last");
	CHECK_EQ_U64(g0->poll_misses, 1, "acct_guest_poll_misses");
	CHECK_EQ_U64(g0->poll_hits, 3, "acct_guest_poll_hits");
	CHECK_EQ_U64(g1->residency_ns[1], 250, "acct_guest_cpu1_res1");
	CHECK_EQ_U64(g1->entries[1], 2, "acct_guest_cpu1_entries1");
	CHECK_EQ_U64(g1->residency_ns[2], 40, "acct_guest_open_closed_at_end");
	CHECK_EQ_U64(g1->poll_hits + g1->poll_misses, 0, "acct_guest_cpu1_no_polls");
	CHECK_EQ_U64(hs_account_events(a, HS_EV_CPU_IDLE), 18, "acct_guest_events");
out:
	hs_account_free(a);
}

static void test_guest_lost(void)
{
	struct hs_account *a = acct_new(0, 0, 0, 0);
	const struct hs_guest_cpu_acct *g0, *g1;

	idle(a, 100, 0, 0, 1);
	idle(a, 100, 1, 1, 1);
	lost(a, 0, 2, true);
	idle(a, 200, 0, 0, HS_IDLE_EXIT);	/* period crossed a loss: not counted */
	idle(a, 200, 1, 1, HS_IDLE_EXIT);	/* other CPU: 100 */
	idle(a, 300, 0, 0, 0);
	idle(a, 310, 0, 0, HS_IDLE_EXIT);	/* res[0] 10, poll pending */
	lost(a, 0, 0, false);	/* outcome of that POLL unknown */
	idle(a, 320, 0, 0, 1);
	idle(a, 330, 0, 0, HS_IDLE_EXIT);	/* res[1] 10 */
	hs_account_finish(a);
	g0 = find_guest(a, 0);
	g1 = find_guest(a, 1);
	CHECK(g0 && g1, "acct_guest_lost_cpus");
	if (!g0 || !g1)
		goto out;
	CHECK_EQ_U64(g0->residency_ns[1], 10, "acct_guest_lost_res1");
	CHECK_EQ_U64(g0->entries[1], 1, "acct_guest_lost_entries1");
	CHECK_EQ_U64(g0->residency_ns[0], 10, "acct_guest_lost_res0");
	CHECK_EQ_U64(g0->poll_hits + g0->poll_misses, 0, "acct_guest_lost_poll_unknown");
	CHECK_EQ_U64(g1->residency_ns[1], 100, "acct_guest_lost_other_cpu");
out:
	hs_account_free(a);
}

static void test_guest_window(void)
{
	struct hs_account *a = acct_new(0, 0, 0, 0);
	const struct hs_guest_cpu_acct *g;

	gpoll(a, 1000, 2, 50000, 0);
	gpoll(a, 3000, 2, 100000, 50000);
	gpoll(a, 4000, 2, 50000, 100000);
	idle(a, 5000, 3, 3, HS_IDLE_EXIT);	/* moves the end of the trace to 5000 */
	hs_account_finish(a);
	g = find_guest(a, 2);
	if (!g) {
		CHECK(0, "acct_gwin_cpu");
		hs_account_free(a);
		return;
	}
	CHECK_EQ_U64(g->grows, 2, "acct_gwin_grows");
	CHECK_EQ_U64(g->shrinks, 1, "acct_gwin_shrinks");
	CHECK_EQ_U64(g->window, 50000, "acct_gwin_last");
	CHECK_EQ_U64(g->window_time, 4000, "acct_gwin_time");
	/* 2000 * 50000 + 1000 * 100000 + 1000 * 50000 */
	CHECK(fabs(g->window_area - 2.5e8) < 1, "acct_gwin_area");
	CHECK_EQ_U64(hs_account_events(a, HS_EV_GUEST_HALT_POLL_NS), 3, "acct_gwin_events");
	hs_account_free(a);
}

static void test_time_filter(void)
{
	struct hs_account *a = acct_new(1000, 3000, 0, 0);
	const struct hs_vcpu_acct *v;

	idle(a, 10000, 0, 0, 1);		/* first event: origin, dropped (rel 0) */
	wake(a, 10500, 400, 10, true, 1);	/* rel 500: dropped */
	wake(a, 11000, 400, 20, true, 1);	/* rel 1000: kept */
	wake(a, 12999, 400, 30, true, 1);	/* kept */
	wake(a, 13000, 400, 40, true, 1);	/* rel 3000: end is exclusive */
	wake(a, 14000, 400, 50, true, 1);
	hs_account_finish(a);
	v = find_vcpu(a, 400);
	CHECK(v != NULL, "acct_filter_vcpu");
	if (v) {
		CHECK_EQ_U64(v->halts, 2, "acct_filter_halts");
		CHECK_EQ_U64(v->all.sum, 50, "acct_filter_sum");
	}
	CHECK_EQ_U64(hs_account_first_ts(a), 11000, "acct_filter_first");
	CHECK_EQ_U64(hs_account_last_ts(a), 12999, "acct_filter_last");
	CHECK_EQ_U64(hs_account_events(a, HS_EV_CPU_IDLE), 0, "acct_filter_idle_dropped");
	CHECK_EQ_U64(hs_account_events(a, HS_EV_VCPU_WAKEUP), 2, "acct_filter_wakeups");
	hs_account_free(a);
}

static void test_linear(void)
{
	struct hs_account *a = acct_new(0, 0, 1000, 10);
	static const uint64_t hits[] = { 0, 999, 1000, 9999, 10000, 1000000000 };
	const struct hs_vcpu_acct *v;
	unsigned int i;

	for (i = 0; i < sizeof(hits) / sizeof(hits[0]); i++)
		wake(a, 100 + i, 500, hits[i], false, 1);
	wake(a, 200, 500, 500, true, 1);
	wake(a, 201, 500, UINT64_MAX, true, 1);
	hs_account_finish(a);
	v = find_vcpu(a, 500);
	if (!v || !v->linear_poll || !v->linear_wait) {
		CHECK(0, "acct_linear_alloc");
		hs_account_free(a);
		return;
	}
	CHECK_EQ_U64(v->linear_poll[0], 2, "acct_linear_poll0");
	CHECK_EQ_U64(v->linear_poll[1], 1, "acct_linear_poll1");
	CHECK_EQ_U64(v->linear_poll[9], 1, "acct_linear_poll9");
	CHECK_EQ_U64(v->linear_poll[10], 2, "acct_linear_overflow");
	CHECK_EQ_U64(v->linear_wait[0], 1, "acct_linear_wait0");
	CHECK_EQ_U64(v->linear_wait[10], 1, "acct_linear_wait_overflow");
	CHECK_EQ_U64(v->all.sum, UINT64_MAX, "acct_linear_sum_saturates");
	CHECK_EQ_U64(v->log2_wait[64], 1, "acct_linear_log2_top");
	hs_account_free(a);
}

static void test_names(void)
{
	struct hs_account *a = acct_new(0, 0, 0, 0);
	const struct hs_thread_info *t;
	const struct hs_process_info *p;
	char longname[300];

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	hs_account_thread(a, 10, 5, "CPU 0/KVM");
	hs_account_thread(a, 10, -1, NULL);		/* keeps what is known */
	hs_account_thread(a, 11, -1, "bad\nname");
	hs_account_process(a, 5, "qemu-system-x86", longname);
	t = hs_account_thread_info(a, 10);
	CHECK(t && t->tgid == 5 && !strcmp(t->comm, "CPU 0/KVM"), "acct_names_thread_kept");
	t = hs_account_thread_info(a, 11);
	CHECK(t && t->tgid == -1 && !strcmp(t->comm, "bad?name"), "acct_names_sanitized");
	p = hs_account_process_info(a, 5);
	CHECK(p && strlen(p->vm_name) == sizeof(p->vm_name) - 1, "acct_names_truncated");
	CHECK(hs_account_thread_info(a, 12) == NULL, "acct_names_unknown_tid");
	CHECK(hs_account_process_info(a, 6) == NULL, "acct_names_unknown_tgid");
	hs_account_free(a);
}

static void test_many_threads(void)
{
	struct hs_account *a = acct_new(0, 0, 0, 0);
	unsigned int i, bad = 0;
	int tid;

	for (i = 0; i < 3; i++)
		for (tid = 1; tid <= 2000; tid++)
			if ((unsigned int)tid % 3 >= i)
				wake(a, i * 10000 + (uint64_t)tid, tid * 7, 100, true, 1);
	for (tid = 1; tid <= 2000; tid++) {
		const struct hs_vcpu_acct *v = find_vcpu(a, tid * 7);

		hs_account_thread(a, tid * 7, tid, "t");
		if (!v || v->halts != (uint64_t)(tid % 3) + 1)
			bad++;
	}
	for (tid = 1; tid <= 2000; tid++) {
		const struct hs_thread_info *t = hs_account_thread_info(a, tid * 7);

		if (!t || t->tgid != tid)
			bad++;
	}
	CHECK_EQ_U64(hs_account_nvcpus(a), 2000, "acct_many_nvcpus");
	CHECK_EQ_U64(bad, 0, "acct_many_counts");
	hs_account_free(a);
}

static void test_bad_kind(void)
{
	struct hs_account *a = acct_new(0, 0, 0, 0);
	struct hs_event ev = { .ts = 1, .kind = 99 };

	CHECK(hs_account_event(a, &ev) == HS_ERR_INPUT, "acct_bad_kind");
	ev.kind = 0;
	CHECK(hs_account_event(a, &ev) == HS_ERR_INPUT, "acct_zero_kind");
	CHECK_EQ_U64(hs_account_nvcpus(a) + hs_account_nguest(a), 0, "acct_bad_kind_nothing");
	hs_account_free(a);
}

static void test_whatif_hook(void)
{
	struct hs_account_opts o;
	struct hs_account *a;
	const struct hs_vcpu_acct *v;
	struct hs_whatif_row rows[HS_WHATIF_MAX_CANDIDATES];
	unsigned int n, i, bad = 0;

	memset(&o, 0, sizeof(o));
	o.whatif.recorded_max_ns = 200000;
	o.whatif.grow = o.whatif.grow_start = o.whatif.shrink = -1;
	a = hs_account_alloc(&o);
	for (i = 0; i < 100; i++)
		wake(a, 1000000 * (uint64_t)i, 42, i % 2 ? 5000 : 500000, i % 2 == 0, 1);
	hs_account_finish(a);
	v = find_vcpu(a, 42);
	CHECK(v && v->whatif, "acct_whatif_alloc");
	if (!v || !v->whatif)
		goto out;
	n = hs_whatif_rows(v->whatif, rows);
	CHECK(n > 0, "acct_whatif_rows");
	for (i = 0; i < n; i++)
		bad += rows[i].halts != 100;
	CHECK_EQ_U64(bad, 0, "acct_whatif_sees_every_halt");
out:
	hs_account_free(a);
}


/* One mixed stream into every account of accts[0..n). */
static void shard_stream(struct hs_account **accts, int n)
{
	for (int k = 0; k < n; k++) {
		struct hs_account *a = accts[k];

		for (int i = 0; i < 200; i++) {
			uint64_t ts = 1000 + (uint64_t)i * 100;
			int tid = 500 + (i * 7) % 13;	/* 13 vCPU threads, interleaved */

			if (i % 5 == 0)
				pollns(a, ts, tid, (uint32_t)(tid - 500), 20000 + (uint32_t)i, 10000);
			wake(a, ts + 50, tid, (uint64_t)(i * 37) % 30000, i % 3 == 0, 1);
			idle(a, ts + 60, i % 4, (uint32_t)(i % 4), i % 2 ? 1 : 4294967295u);
			if (i == 120)
				lost(a, 1, 5, true);
		}
	}
}

/*
 * Two shards fed the same stream and absorbed give what one account gives:
 * the same vCPUs and guest CPUs, in the same order, with the same counts,
 * and the totals of shard 0 (counted once, not twice).
 */
static void test_shards(void)
{
	struct hs_account *one = acct_new(0, 0, 0, 0), *sh[2] = { acct_new(0, 0, 0, 0),
								   acct_new(0, 0, 0, 0) };
	unsigned int i, same = 1;

	hs_account_shard(sh[0], (struct hs_shard){ 0, 2, 0 });
	hs_account_shard(sh[1], (struct hs_shard){ 1, 2, 0 });
	shard_stream(&one, 1);
	shard_stream(sh, 2);
	CHECK(hs_account_nvcpus(sh[0]) > 0 && hs_account_nvcpus(sh[1]) > 0 &&
	      hs_account_nvcpus(sh[0]) + hs_account_nvcpus(sh[1]) == 13, "acct_shards_split_vcpus");
	CHECK(hs_account_absorb(sh[0], sh[1]) == 0, "acct_shards_absorb");
	hs_account_finish(one);
	hs_account_finish(sh[0]);
	CHECK_EQ_U64(hs_account_nvcpus(sh[0]), hs_account_nvcpus(one), "acct_shards_nvcpus");
	CHECK_EQ_U64(hs_account_nguest(sh[0]), hs_account_nguest(one), "acct_shards_nguest");
	for (i = 0; i < hs_account_nvcpus(one) && i < hs_account_nvcpus(sh[0]); i++) {
		const struct hs_vcpu_acct *x = hs_account_vcpu(one, i), *y = hs_account_vcpu(sh[0], i);

		same &= x->tid == y->tid && x->halts == y->halts && x->waits == y->waits &&
			x->poll_misses == y->poll_misses && x->grows == y->grows &&
			x->window_area == y->window_area && x->all.sum == y->all.sum;
	}
	CHECK(same, "acct_shards_vcpus_same_order_and_counts");
	for (i = 0, same = 1; i < hs_account_nguest(one) && i < hs_account_nguest(sh[0]); i++) {
		const struct hs_guest_cpu_acct *x = hs_account_guest(one, i);
		const struct hs_guest_cpu_acct *y = hs_account_guest(sh[0], i);

		same &= x->cpu == y->cpu && !memcmp(x->entries, y->entries, sizeof(x->entries)) &&
			!memcmp(x->residency_ns, y->residency_ns, sizeof(x->residency_ns));
	}
	CHECK(same, "acct_shards_guest_same_order_and_counts");
	CHECK_EQ_U64(hs_account_events(sh[0], HS_EV_VCPU_WAKEUP), 200, "acct_shards_events_once");
	CHECK_EQ_U64(hs_account_meta(sh[0])->lost_events, 5, "acct_shards_lost_once");
	CHECK(find_vcpu(sh[0], 512) != NULL, "acct_shards_map_rebuilt");
	hs_account_free(one);
	hs_account_free(sh[0]);
	hs_account_free(sh[1]);
}

/* A recording that starts mid-life: windows told afterwards, module M 200000. */
static void test_midlife(void)
{
	struct hs_account *a = acct_new(0, 0, 0, 0);
	const struct hs_vcpu_acct *v;

	hs_account_meta(a)->halt_poll_ns = 200000;
	/* 10: every halt above M and no shrink: window 0 */
	wake(a, 100, 10, 300000, true, 1);
	wake(a, 200, 10, 2000000, true, 1);
	/* 11: 40 us would have grown a zero window, 800 us shrunk any other: polling off */
	wake(a, 100, 11, 40000, true, 1);
	wake(a, 200, 11, 800000, true, 1);
	/* 12: hits up to 150 us and one wait, all below M: a window of at least 150000 */
	wake(a, 100, 12, 40000, false, 1);
	wake(a, 200, 12, 150000, false, 1);
	wake(a, 300, 12, 90000, true, 1);
	/* 13: two waits, then a shrink whose old is the window they ran under (from 100 on) */
	wake(a, 100, 13, 900000, true, 1);
	wake(a, 200, 13, 900000, true, 1);
	pollns(a, 300, 13, 0, 25000, 50000);
	wake(a, 300, 13, 900000, true, 1);
	/* 14: a grow past M (6.1+ does not clamp it), two misses cut to 300000, told by the shrink */
	pollns(a, 100, 14, 0, 320000, 160000);
	wake(a, 100, 14, 170000, true, 1);
	wake(a, 200, 14, 310000, true, 1);
	wake(a, 300, 14, 310000, true, 1);
	pollns(a, 400, 14, 0, 150000, 300000);
	wake(a, 400, 14, 900000, true, 1);
	/* 15: waits of 30 and 70 us before a shrink whose old says 50000: one was cut */
	wake(a, 100, 15, 30000, true, 1);
	wake(a, 200, 15, 70000, true, 1);
	pollns(a, 300, 15, 0, 25000, 50000);
	wake(a, 300, 15, 900000, true, 1);
	hs_account_finish(a);

	v = find_vcpu(a, 10);
	CHECK(v && v->nopoll_waits == 2 && !v->unknown_waits &&
	      v->inferred_waits[HS_WSRC_LONGER_THAN_MAX] == 2 && v->window == 0,
	      "acct_midlife_longer_than_max");
	v = find_vcpu(a, 11);
	CHECK(v && v->nopoll_waits == 2 && v->inferred_waits[HS_WSRC_NO_POLLING] == 2,
	      "acct_midlife_no_polling");
	v = find_vcpu(a, 12);
	CHECK(v && v->poll_misses == 1 && v->poll_ns == 40000 + 150000 + 90000 && v->polls_cut == 1 &&
	      v->inferred_waits[HS_WSRC_WITHIN_WINDOW] == 1 && v->window == HS_WINDOW_UNKNOWN,
	      "acct_midlife_within_window");
	v = find_vcpu(a, 13);
	CHECK(v && v->poll_misses == 3 && v->poll_ns == 3 * 50000 &&
	      v->inferred_waits[HS_WSRC_NEXT_EVENT] == 2 && v->window_time == 400 - 100,
	      "acct_midlife_next_event");
	v = find_vcpu(a, 14);
	CHECK(v && v->poll_misses == 4 && v->poll_ns == 160000 + 3 * 300000 &&
	      !v->inferred_waits[HS_WSRC_NEXT_EVENT], "acct_midlife_cut_to_max");
	/* the window held 300000 from 100 to 400, 150000 after */
	CHECK(v && fabs(v->window_area - 300000.0 * 300) < 1, "acct_midlife_cut_timeline");
	v = find_vcpu(a, 15);
	CHECK(v && v->poll_misses == 3 && v->poll_ns == 30000 + 50000 + 50000 && v->polls_cut == 1 &&
	      v->poll_bounded_ns == v->poll_ns, "acct_midlife_told_window_charges_ends");
	hs_account_free(a);
}

static void waking(struct hs_account *a, uint64_t ts, int tid)
{
	struct hs_event ev = { .ts = ts, .cpu = 1, .tid = 99, .kind = HS_EV_SCHED_WAKING };

	ev.sched_wakeup.pid = tid;
	ev.sched_wakeup.target_cpu = 0;
	feed(a, &ev);
}

/*
 * A wait is timed by the sched_waking of its thread inside it, the thread's
 * first wait too, although the thread is known as a vCPU thread only from
 * that wait's kvm event on.
 */
static void test_timed_waits(void)
{
	struct hs_account *a = acct_new(0, 0, 0, 0);
	const struct hs_vcpu_acct *v, *w;

	/* tid 5: first wait 1000..1400, woken at 1300; second 2000..2500, at 2450 */
	waking(a, 1300, 5);
	wake(a, 1400, 5, 400, true, 1);
	waking(a, 2450, 5);
	wake(a, 2500, 5, 500, true, 1);
	/* a waking before the wait (2900 < 3800 - 800) times nothing */
	waking(a, 2900, 5);
	wake(a, 3800, 5, 800, true, 1);
	/* tids 7 and 7 + 256 share a slot: the later waking (263's) wins it */
	waking(a, 4100, 7);
	waking(a, 4200, 7 + 256);
	wake(a, 4300, 7, 500, true, 1);
	wake(a, 4400, 7 + 256, 500, true, 1);
	v = find_vcpu(a, 5);
	CHECK(v && v->timed_waits == 2, "acct_timed_first_wait");
	v = find_vcpu(a, 7);
	w = find_vcpu(a, 7 + 256);
	CHECK(v && w && v->timed_waits == 0 && w->timed_waits == 1, "acct_timed_slot_collision");
	hs_account_free(a);
}

static void sw(struct hs_account *a, uint64_t ts, int cpu, int prev, bool prev_runnable, int next)
{
	struct hs_event ev = { .ts = ts, .cpu = cpu, .tid = prev, .kind = HS_EV_SCHED_SWITCH };

	ev.sched_switch.prev_pid = prev;
	ev.sched_switch.next_pid = next;
	ev.sched_switch.prev_runnable = prev_runnable;
	feed(a, &ev);
}

static void wakeup_on(struct hs_account *a, uint64_t ts, int pid, int cpu)
{
	struct hs_event ev = { .ts = ts, .cpu = cpu, .tid = 99, .kind = HS_EV_SCHED_WAKEUP };

	ev.sched_wakeup.pid = pid;
	ev.sched_wakeup.target_cpu = cpu;
	feed(a, &ev);
}

/* A wait woken on cpu at ts, its kvm event right after; ns from its start. */
static void wake_on(struct hs_account *a, uint64_t ts, int cpu, int tid, uint64_t ns)
{
	struct hs_event ev = { .ts = ts, .cpu = cpu, .tid = tid, .kind = HS_EV_VCPU_WAKEUP };

	ev.wakeup.ns = ns;
	ev.wakeup.waited = true;
	ev.wakeup.valid = 1;
	feed(a, &ev);
}

/*
 * With sched events a miss polled until the first of its window, another
 * task runnable on its CPU, and its thread asleep there less the time a
 * thread takes from a poll's end to sleeping (measured on the misses that
 * polled their whole window). A woken thread may run elsewhere: the CPU it
 * slept on is the one it polled on.
 */
static void test_sched_poll_end(void)
{
	struct hs_account *a = acct_new(0, 0, 0, 0);
	const struct hs_vcpu_acct *v;
	uint64_t t = 1000000, want = 0;

	sw(a, 500, 0, 0, false, 40);		/* tid 40 runs on CPU 0 */
	pollns(a, 900, 40, 0, 50000, 25000);
	wake_on(a, 1000, 0, 40, 1000);		/* a miss under 25000: cut by its end */
	want += 1000;
	sw(a, 1100, 0, 40, true, 40);
	/* 8 misses that polled their 50 us window, asleep 2 us after it */
	for (int i = 0; i < 8; i++, t += 1000000) {
		sw(a, t + 52000, 0, 40, false, 0);
		wakeup_on(a, t + 200000, 40, 0);
		sw(a, t + 200500, 0, 0, false, 40);
		wake_on(a, t + 201000, 0, 40, 201000);
		want += 50000;
	}
	/* another task runnable 7 us into the halt: the poll ended there */
	sw(a, t + 3000, 0, 40, false, 0);	/* idle's stale schedule-out aside */
	sw(a, t + 3500, 0, 0, false, 40);
	wakeup_on(a, t + 7000, 77, 0);
	sw(a, t + 7600, 0, 40, false, 77);
	sw(a, t + 60000, 0, 77, false, 0);
	wakeup_on(a, t + 100000, 40, 0);
	sw(a, t + 100500, 0, 0, false, 40);
	wake_on(a, t + 101000, 0, 40, 101000 - 3500);
	want += 7000 - 3500;
	t += 1000000;
	/* asleep 10 us in with nothing else runnable, on CPU 0; woken on CPU 1 */
	sw(a, t + 10000, 0, 40, false, 0);
	wakeup_on(a, t + 150000, 40, 1);
	sw(a, t + 150500, 1, 0, false, 40);
	wake_on(a, t + 151000, 1, 40, 151000);
	want += 10000 - 2000;
	hs_account_finish(a);
	v = find_vcpu(a, 40);
	CHECK(v && v->poll_misses == 11, "acct_sched_end_misses");
	CHECK(v && v->sleep_lag_ns == 2000, "acct_sched_end_sleep_lag");
	CHECK(v && v->polls_cut == 3, "acct_sched_end_polls_cut");
	CHECK_EQ_U64(v ? v->poll_ns : 0, want, "acct_sched_end_poll_ns");
	CHECK_EQ_U64(v ? v->poll_bounded_ns : 1, 1000, "acct_sched_end_bounded_only_before_sched");
	hs_account_free(a);
}

static void run_all(void)
{
	test_sched_poll_end();
	test_midlife();
	test_timed_waits();
	test_classification();
	test_threads_independent();
	test_lost();
	test_guest_idle();
	test_guest_lost();
	test_guest_window();
	test_time_filter();
	test_linear();
	test_names();
	test_many_threads();
	test_bad_kind();
	test_whatif_hook();
	test_shards();
}

int main(void)
{
	run_all();
	printf("# the same through hs_account_front and hs_account_back\n");
	feed_mode = FEED_HALVES;
	run_all();
	printf("# the same in batches, runs of sched events in one call\n");
	feed_mode = FEED_BATCH;
	run_all();
	CHECK_EQ_U64(feed_errors, 0, "acct_feed_errors");
	return CHECK_DONE();
}
