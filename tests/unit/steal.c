// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/steal.c and its way through the metadata: the shares of a steal
 * figure, the what-if rows' pessimistic ends lowered by the stolen share
 * of their hits, and record's lines read back, once however often applied.
 */
#include <math.h>
#include <string.h>

#include "../../formats/trace/recmeta.h"
#include "../../lib/account.h"
#include "../../lib/steal.h"
#include "../../lib/whatif_types.h"
#include "check.h"

static void test_shares(void)
{
	struct hs_cpu_steal s;

	hs_cpu_steal_init(&s);
	CHECK(!hs_cpu_steal_known(&s) && hs_cpu_steal_runnable_share(&s) == -1 &&
	      hs_cpu_steal_wall_share(&s, 1) == -1, "steal_unknown_by_default");
	s = (struct hs_cpu_steal){ .steal_ns = 20000000, .busy_ns = 180000000, .cpus = 2 };
	/* 20 ms of 2 CPUs x 1 s; 20 of the 200 ms they wanted to run */
	CHECK(fabs(hs_cpu_steal_wall_share(&s, 1.0) - 0.01) < 1e-12, "steal_wall_share");
	CHECK(fabs(hs_cpu_steal_runnable_share(&s) - 0.1) < 1e-12, "steal_runnable_share");
	CHECK(hs_cpu_steal_wall_share(&s, 0) == -1, "steal_wall_share_needs_a_duration");
	s.steal_ns = 0;
	s.busy_ns = 0;
	CHECK(hs_cpu_steal_runnable_share(&s) == 0, "steal_none_of_nothing_is_zero");
	s.cpus = 0;
	CHECK(!hs_cpu_steal_known(&s), "steal_no_cpus_unknown");
}

static void test_rows(void)
{
	struct hs_whatif_row rows[2] = {
		{ .halt_poll_ns = 200000, .halts = 1000, .hit_rate = 0.5, .hit_rate_low = 0.45,
		  .hit_rate_high = 0.55, .poll_cpu_s = 0.05, .poll_cpu_s_low = 0.04,
		  .poll_cpu_s_high = 0.06 },
		{ .halt_poll_ns = 100000, .halts = 1000, .hit_rate = 0.9, .hit_rate_low = 0.01,
		  .hit_rate_high = 0.95 },
	};
	struct hs_whatif_row same = rows[0];

	hs_whatif_rows_steal(rows, 2, 0);
	CHECK(!memcmp(&rows[0], &same, sizeof(same)), "steal_rows_untouched_without_steal");
	hs_whatif_rows_steal(rows, 2, 0.1);
	/* a tenth of the 0.5 hit rate lost; each lost hit polls a whole window */
	CHECK(fabs(rows[0].hit_rate_low - 0.40) < 1e-12, "steal_rows_low_end_lowered");
	CHECK(rows[0].hit_rate == 0.5 && rows[0].hit_rate_high == 0.55,
	      "steal_rows_point_and_high_end_stay");
	CHECK(fabs(rows[0].poll_cpu_s_high - (0.06 + 0.05 * 1000 * 200000 / 1e9)) < 1e-12,
	      "steal_rows_polling_high_end_raised");
	CHECK(rows[1].hit_rate_low == 0, "steal_rows_low_end_not_below_zero");
	/* the low end had room for 0.01 of the 0.09 lost: all 0.09 poll their windows */
	CHECK(fabs(rows[1].poll_cpu_s_high - 0.09 * 1000 * 100000 / 1e9) < 1e-12,
	      "steal_rows_polling_high_end_counts_every_lost_hit");
}

/* A replay keeps what came off the low end, to put a run's own steal in its place. */
static void test_widen(void)
{
	double low = 0.01, high = 0;

	CHECK(fabs(hs_steal_widen(0.1, 0.9, 1000, 100000, &low, &high) - 0.01) < 1e-12 &&
	      low == 0, "steal_widen_returns_what_came_off");
	low = 0.3, high = 1;
	CHECK(hs_steal_widen(0, 0.9, 1000, 100000, &low, &high) == 0 && low == 0.3 && high == 1,
	      "steal_widen_nothing_without_steal");
	CHECK(fabs(hs_steal_widen(2, 0.2, 10, 1000000, &low, &high) - 0.2) < 1e-12 &&
	      fabs(high - (1 + 0.2 * 10 * 1e6 / 1e9)) < 1e-12, "steal_widen_share_at_most_one");
}

static void test_metadata(void)
{
	struct hs_account *a = hs_account_alloc(NULL);
	struct hs_td_stats lost = { 0 };
	struct hs_sbuf sb = { 0 };
	struct hs_sink sink;
	uint64_t lost0 = 0;
	struct hs_capture_result r = {
		.ncpus = 1, .clock = "local", .lost = &lost0,
		.steal = { .steal_ns = 30000000, .busy_ns = 270000000, .cpus = 2 },
	};
	const struct hs_meta *m;

	hs_sink_account(&sink, a);
	CHECK(hs_cpu_steal_runnable_share(&hs_account_meta(a)->steal) == -1,
	      "steal_meta_unknown_before_the_trailer");
	hs_recmeta_put_end(&sb, &r);
	hs_recmeta_apply(sb.s, sb.len, &sink, &lost);
	hs_recmeta_apply(sb.s, sb.len, &sink, &lost);
	m = hs_account_meta(a);
	CHECK(m->steal.cpus == 2 && m->steal.steal_ns == 30000000 && m->steal.busy_ns == 270000000,
	      "steal_meta_round_trip_once");
	CHECK(fabs(hs_cpu_steal_runnable_share(&m->steal) - 0.1) < 1e-12, "steal_meta_share");
	hs_sbuf_free(&sb);
	r.steal.cpus = -1;
	hs_recmeta_put_end(&sb, &r);
	CHECK(!strstr(sb.s, "cpu_time."), "steal_meta_unknown_not_written");
	hs_sbuf_free(&sb);
	hs_td_stats_free(&lost);
	hs_account_free(a);
}

int main(void)
{
	test_shares();
	test_rows();
	test_widen();
	test_metadata();
	return CHECK_DONE();
}
