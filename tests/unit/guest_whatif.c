// SPDX-License-Identifier: GPL-2.0-only
/*
 * The haltpoll governor replay (lib/haltpoll.c) and the guest what-if
 * (lib/guest_whatif.c) against sequences worked out by hand from
 * drivers/cpuidle/governors/haltpoll.c.
 */
#include <string.h>

#include "check.h"
#include "../../lib/guest_whatif.h"

static void test_adjust(void)
{
	struct hs_haltpoll_params p;
	int b;

	hs_haltpoll_defaults(&p);
	CHECK(hs_haltpoll_adjust(&p, 0, 30000, &b) == 50000 && b == 1, "haltpoll_grow_from_0");
	CHECK(hs_haltpoll_adjust(&p, 50000, 60000, &b) == 100000 && b == 1, "haltpoll_grow_double");
	CHECK(hs_haltpoll_adjust(&p, 100000, 150000, &b) == 200000 && b == 1, "haltpoll_grow_to_max");
	CHECK(hs_haltpoll_adjust(&p, 150000, 190000, &b) == 200000 && b == 1, "haltpoll_grow_clamped");
	CHECK(hs_haltpoll_adjust(&p, 200000, 150000, &b) == 200000 && b == 0, "haltpoll_no_change");
	CHECK(hs_haltpoll_adjust(&p, 200000, 200000, &b) == 200000 && b == 0, "haltpoll_at_max_no_change");
	CHECK(hs_haltpoll_adjust(&p, 200000, 250000, &b) == 100000 && b == -1, "haltpoll_shrink");
	CHECK(hs_haltpoll_adjust(&p, 50000, 250000, &b) == 0 && b == -1, "haltpoll_shrink_floor");
	CHECK(hs_haltpoll_adjust(&p, 0, 250000, &b) == 0 && b == -1, "haltpoll_shrink_0_traced");
	p.shrink_floor = false;
	CHECK(hs_haltpoll_adjust(&p, 50000, 250000, &b) == 25000 && b == -1, "haltpoll_shrink_pre_6_9");
	p.shrink_floor = true;
	p.allow_shrink = false;
	CHECK(hs_haltpoll_adjust(&p, 100000, 300000, &b) == 100000 && b == 0, "haltpoll_no_shrink");
	p.allow_shrink = true;
	p.shrink = 0;
	CHECK(hs_haltpoll_adjust(&p, 100000, 300000, &b) == 0 && b == -1, "haltpoll_shrink_0_resets");
	hs_haltpoll_defaults(&p);
	p.max_ns = 30000;
	CHECK(hs_haltpoll_adjust(&p, 0, 20000, &b) == 30000 && b == 1, "haltpoll_max_below_grow_start");
	p.max_ns = 0;
	CHECK(hs_haltpoll_adjust(&p, 0, 10, &b) == 0 && b == -1, "haltpoll_max_0_shrinks_every_halt");
}

static void test_wakes(void)
{
	static const uint64_t d[] = { 40000, 30000, 70000, 120000, 500000, 45000 };
	static const bool hit[] = { false, true, false, false, false, true };
	static const uint32_t limit_after[] = { 50000, 50000, 50000, 100000, 50000, 50000 };
	struct hs_haltpoll_params p;
	struct hs_haltpoll_wake o;
	uint64_t poll = 0, polls = 0;
	uint32_t limit = 0;
	bool ok = true;

	hs_haltpoll_defaults(&p);
	for (unsigned int i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		hs_haltpoll_wake(&p, &limit, d[i], 10000, &o);
		ok &= o.hit == hit[i] && limit == limit_after[i];
		poll += o.poll_ns;
		polls += o.polled;
	}
	CHECK(ok, "haltpoll_wake_sequence");
	CHECK_EQ_U64(poll, 275000, "haltpoll_wake_poll_ns");
	CHECK_EQ_U64(polls, 5, "haltpoll_wake_polls");
	limit = 100000;
	hs_haltpoll_wake(&p, &limit, 500000, 10000, &o);
	CHECK(o.polled && !o.hit && o.poll_ns == 100000 && o.block_ns == 410000 && o.branch == -1 &&
	      limit == 50000, "haltpoll_wake_miss_block");
}

static struct hs_event ev_idle(uint64_t ts, uint32_t state)
{
	struct hs_event e = { .ts = ts, .kind = HS_EV_CPU_IDLE };

	e.idle.state = state;
	return e;
}

static struct hs_event ev_limit(uint64_t ts, bool grow, uint32_t new_ns, uint32_t old_ns)
{
	struct hs_event e = { .ts = ts, .kind = HS_EV_GUEST_HALT_POLL_NS };

	e.guest_poll.grow = grow;
	e.guest_poll.new_ns = new_ns;
	e.guest_poll.old_ns = old_ns;
	return e;
}

static const struct hs_guest_whatif_row *row_of(const struct hs_guest_whatif_row *rows,
						unsigned int n, uint64_t g)
{
	for (unsigned int i = 0; i < n; i++)
		if (rows[i].guest_halt_poll_ns == g)
			return &rows[i];
	return NULL;
}

/*
 * A halt of 40 us (grow to 50000), a 30 us poll hit, a poll that timed
 * out then a 29.9 us halt (no change), a timed-out poll then an 80 us
 * halt (grow to 100000). Halt samples 40000, 29900, 80000: two after a
 * timed-out poll, so the extra cost is min(29900 * 0.95, 20000) = 20000,
 * and the times to wake 20000, 30000, 59900, 110000.
 */
static void feed(struct hs_guest_whatif *w, bool lose)
{
	struct hs_event evs[] = {
		ev_idle(0, 1), ev_idle(40000, HS_IDLE_EXIT), ev_limit(40100, true, 50000, 0),
		ev_idle(100000, 0), ev_idle(130000, HS_IDLE_EXIT),
		ev_idle(200000, 0), ev_idle(250000, HS_IDLE_EXIT),
		ev_idle(250100, 1), ev_idle(280000, HS_IDLE_EXIT),
		ev_idle(400000, 0), ev_idle(450000, HS_IDLE_EXIT),
		ev_idle(450000, 1), ev_idle(530000, HS_IDLE_EXIT), ev_limit(530100, true, 100000, 50000),
	};

	for (unsigned int i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		if (lose && i == 5)
			hs_guest_whatif_break(w);
		hs_guest_whatif_event(w, &evs[i]);
	}
	hs_guest_whatif_finish(w, 1000000);
}

static void test_replay(void)
{
	struct hs_guest_whatif_row rows[HS_GUEST_WHATIF_MAX_CANDIDATES];
	const struct hs_guest_whatif_row *r;
	struct hs_selfcheck sc;
	struct hs_guest_whatif *w;
	struct hs_meta m;
	uint64_t samples;
	unsigned int n;

	hs_meta_init(&m);
	snprintf(m.kernel_release, sizeof(m.kernel_release), "6.18.44");
	m.guest_halt_poll_ns = 200000;
	w = hs_guest_whatif_alloc(&m);
	CHECK(w != NULL, "guest_whatif_alloc");
	if (!w)
		return;
	feed(w, false);
	CHECK_EQ_U64(hs_guest_whatif_halt_extra_ns(w, &samples), 20000, "guest_whatif_extra");
	CHECK_EQ_U64(samples, 2, "guest_whatif_extra_samples");
	n = hs_guest_whatif_rows(w, rows);
	CHECK_EQ_U64(n, hs_guest_whatif_default_ncandidates, "guest_whatif_ncandidates");
	r = row_of(rows, n, 200000);
	CHECK(r && r->wakes == 4 && r->polls == 3 && r->hits == 1 && r->halts == 3 &&
	      r->grows == 2 && r->shrinks == 0, "guest_whatif_recorded_row");
	CHECK(r && r->poll_cpu_s * 1e9 > 129999 && r->poll_cpu_s * 1e9 < 130001 &&
	      r->poll_cpu_pct > 12.99 && r->poll_cpu_pct < 13.01, "guest_whatif_recorded_poll_cpu");
	/*
	 * From its maximum the limit is 200000 at once: every wake is a hit,
	 * polling 219900 ns. Four wakes cannot tell their own spread: the
	 * sampling part is its bound, twice 1 / (2 sqrt(4)) of the hit rate and
	 * 200000 / (2 sqrt(4)) ns per wake, times sqrt(2) (the predicted run's
	 * own) and 4 wakes: 2.83 hits, 565685 ns; the low side goes below 0,
	 * the high one to 130000 + hypot(89900, 565685) = 702784 ns.
	 */
	CHECK(r && r->hits_low == 0 && r->hits_high == 4 && r->hit_rate_high == 1.0 &&
	      r->poll_cpu_s_high * 1e9 > 702783 && r->poll_cpu_s_high * 1e9 < 702785,
	      "guest_whatif_interval_from_max");
	r = row_of(rows, n, 0);
	CHECK(r && r->wakes == 4 && r->polls == 0 && r->hits == 0 && r->shrinks == 4 &&
	      r->poll_cpu_s == 0, "guest_whatif_row_0");
	r = row_of(rows, n, 20000);
	CHECK(r && r->hits == 0 && r->polls == 0 && r->shrinks == 4, "guest_whatif_row_20000");
	r = row_of(rows, n, 50000);
	CHECK(r && r->hits == 1 && r->polls == 3 && r->grows == 1 && r->shrinks == 1,
	      "guest_whatif_row_50000");
	hs_guest_whatif_selfcheck(w, &sc);
	CHECK(sc.halts_compared == 3 && sc.halts_agreeing == 3 && sc.replayed_max_ns == 200000,
	      "guest_whatif_selfcheck");
	hs_guest_whatif_free(w);

	/* events lost after the hit's poll: that period is gone (3 wakes), the check re-seeds */
	w = hs_guest_whatif_alloc(&m);
	if (!w)
		return;
	feed(w, true);
	n = hs_guest_whatif_rows(w, rows);
	r = row_of(rows, n, 200000);
	hs_guest_whatif_selfcheck(w, &sc);
	CHECK(r && r->wakes == 3 && sc.halts_compared == 0, "guest_whatif_loss_reseeds");
	hs_guest_whatif_free(w);

	/*
	 * guest_halt_poll_ns unrecorded: the grows bound it from below by their
	 * halts and new limits (at most 100000), no shrink bounds it from above,
	 * so it is taken as 100000, and the check agrees on the three wakes
	 */
	m.guest_halt_poll_ns = -1;
	w = hs_guest_whatif_alloc(&m);
	if (!w)
		return;
	feed(w, false);
	hs_guest_whatif_selfcheck(w, &sc);
	CHECK(sc.max_inferred && sc.replayed_max_ns == 100000 && sc.halts_compared == 3 &&
	      sc.halts_agreeing == 3, "guest_whatif_infers_max");
	hs_guest_whatif_free(w);

	/* a recorded value that is no default candidate joins the list, in order */
	m.guest_halt_poll_ns = 250000;
	w = hs_guest_whatif_alloc(&m);
	if (!w)
		return;
	hs_guest_whatif_finish(w, 0);
	n = hs_guest_whatif_rows(w, rows);
	CHECK(n == hs_guest_whatif_default_ncandidates + 1 && row_of(rows, n, 250000) &&
	      rows[7].guest_halt_poll_ns == 250000 && rows[8].guest_halt_poll_ns == 300000,
	      "guest_whatif_recorded_candidate");
	hs_guest_whatif_free(w);
}

int main(void)
{
	test_adjust();
	test_wakes();
	test_replay();
	return CHECK_DONE();
}
