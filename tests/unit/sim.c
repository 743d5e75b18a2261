// SPDX-License-Identifier: GPL-2.0-only
/* The window replay against the oracles of halt-polling.md section 5 and the era table. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "../../lib/sim.h"

static void sim_new(struct hs_sim *s, enum hs_kernel_era era, uint64_t max, uint32_t shrink)
{
	struct hs_sim_params p;

	hs_sim_params_default(&p, era);
	p.max_ns = max;
	p.shrink = shrink;
	p.wake_overhead_ns = 5000;
	hs_sim_init(s, &p);
}

static void test_grow(void)
{
	struct hs_sim s;
	bool hit;
	int c;

	sim_new(&s, HS_ERA_6_1, 200000, 0);
	/* a short wait with no window: grow to grow_start */
	c = hs_sim_halt(&s, 3000, true, &hit);
	CHECK(c == 1 && !hit && s.window == 10000, "sim_grow_from_zero_to_grow_start");
	/* a miss shorter than M: new = old * 2 */
	c = hs_sim_halt(&s, 30000, true, &hit);
	CHECK(c == 1 && !hit && s.window == 20000, "sim_grow_doubles");
	/* a hit: ns <= P, no event, window kept */
	c = hs_sim_halt(&s, 15000, true, &hit);
	CHECK(c == 0 && hit && s.window == 20000, "sim_hit_no_event");
	CHECK_EQ_U64(s.poll_ns, 0 + 10000 + 15000, "sim_poll_cpu_hit_d_miss_p");
	CHECK_EQ_U64(s.miss_poll_ns, 10000, "sim_miss_poll_cpu");
	/* a halt exactly at M neither grows nor shrinks */
	c = hs_sim_halt(&s, 200000 - 5000, true, &hit);
	CHECK(c == 0 && s.window == 20000, "sim_halt_at_max_no_event");
	/* longer than M with a window: shrink, default 0 before 6.11 */
	c = hs_sim_halt(&s, 300000, true, &hit);
	CHECK(c == -1 && s.window == 0, "sim_shrink_to_zero_before_6_11");
	/* longer than M without a window: nothing */
	c = hs_sim_halt(&s, 300000, true, &hit);
	CHECK(c == 0 && s.window == 0, "sim_no_shrink_without_window");
	CHECK(s.grows == 2 && s.shrinks == 1 && s.hits == 1 && s.halts == 6, "sim_counters");
}

static void test_shrink_floor(void)
{
	struct hs_sim s;
	bool hit;

	sim_new(&s, HS_ERA_6_11, 200000, 2);
	s.window = 40000;
	CHECK(hs_sim_halt(&s, 500000, true, &hit) == -1 && s.window == 20000, "sim_shrink_halves");
	s.window = 15000;
	CHECK(hs_sim_halt(&s, 500000, true, &hit) == -1 && s.window == 0,
	      "sim_shrink_floor_grow_start");
	/* 4.4 had no floor */
	sim_new(&s, HS_ERA_4_4, 200000, 2);
	s.window = 15000;
	CHECK(hs_sim_halt(&s, 500000, true, &hit) == -1 && s.window == 7500,
	      "sim_4_4_no_shrink_floor");
	/* invalid wakeup: shrink whatever the duration */
	sim_new(&s, HS_ERA_6_11, 200000, 2);
	s.window = 80000;
	CHECK(hs_sim_halt(&s, 100, false, &hit) == -1 && s.window == 40000, "sim_invalid_shrinks");
}

static void test_eras(void)
{
	struct hs_sim a, b, c;
	bool hit;

	/* M = 30000: 4.4 and 5.x clamp the grow, 6.1 traces 40000 and clamps at entry */
	sim_new(&a, HS_ERA_4_4, 30000, 0);
	sim_new(&b, HS_ERA_5_X, 30000, 0);
	sim_new(&c, HS_ERA_6_1, 30000, 0);
	for (int i = 0; i < 3; i++) {
		hs_sim_halt(&a, 20000, true, &hit);
		hs_sim_halt(&b, 20000, true, &hit);
		hs_sim_halt(&c, 20000, true, &hit);
	}
	/* 0 -> 10000 -> 20000 (miss: 20000+5000 > 20000) -> 40000 or 30000 */
	CHECK_EQ_U64(a.window, 30000, "sim_4_4_grow_clamped");
	CHECK_EQ_U64(b.window, 30000, "sim_5_x_grow_clamped");
	CHECK_EQ_U64(c.window, 40000, "sim_6_1_grow_unclamped");
	hs_sim_halt(&c, 25000, true, &hit);
	CHECK(hit && c.window == 30000, "sim_6_1_clamp_at_entry");
	/* grow = 0: the event fires with new == old */
	struct hs_sim_params p;

	hs_sim_params_default(&p, HS_ERA_6_11);
	p.grow = 0;
	hs_sim_init(&a, &p);
	a.window = 20000;
	CHECK(hs_sim_halt(&a, 50000, true, &hit) == 1 && a.window == 20000, "sim_grow_zero_keeps");
	/* M = 0: never polls, never traces */
	sim_new(&a, HS_ERA_6_11, 0, 2);
	for (int i = 0; i < 10; i++)
		CHECK(hs_sim_halt(&a, 1000, true, &hit) == 0 && !hit, "sim_max_zero_no_poll");
}

/* M = 200000, wakes alternate short/long: 10000 (grow 0) then 0 (shrink 10000) */
static void test_flapping(void)
{
	struct hs_sim s;
	bool hit, pattern = true;

	sim_new(&s, HS_ERA_6_1, 200000, 0);
	for (int i = 0; i < 1000; i++) {
		int c = hs_sim_halt(&s, i % 2 ? 1000000 : 20000, true, &hit);

		if (i % 2 ? (c != -1 || s.window != 0) : (c != 1 || s.window != 10000))
			pattern = false;
	}
	CHECK(pattern, "sim_flapping_pattern");
	CHECK_EQ_U64(s.flaps, 999, "sim_flaps_counted");
	CHECK_EQ_U64(s.hits, 0, "sim_flapping_no_hits");
}

static void test_era_names(void)
{
	enum hs_kernel_era e;

	CHECK(hs_kernel_era_from_release("6.18.44-fc") == HS_ERA_6_11, "era_6_18");
	CHECK(hs_kernel_era_from_release("4.4.0-97-generic") == HS_ERA_4_4, "era_4_4");
	CHECK(hs_kernel_era_from_release("5.15.0-91-generic") == HS_ERA_5_X, "era_5_15");
	CHECK(hs_kernel_era_from_release("6.0.9") == HS_ERA_5_X, "era_6_0");
	CHECK(hs_kernel_era_from_release("6.1.0-18-amd64") == HS_ERA_6_1, "era_6_1");
	CHECK(hs_kernel_era_from_release("6.10.2") == HS_ERA_6_1, "era_6_10");
	CHECK(hs_kernel_era_from_release("6.11.0") == HS_ERA_6_11, "era_6_11");
	CHECK(hs_kernel_era_from_release("") == HS_ERA_6_11, "era_unknown");
	CHECK(hs_kernel_era_parse("4.4", &e) == 0 && e == HS_ERA_4_4, "era_parse_4_4");
	CHECK(hs_kernel_era_parse("5.x", &e) == 0 && e == HS_ERA_5_X, "era_parse_5_x");
	CHECK(hs_kernel_era_parse("6.1", &e) == 0 && e == HS_ERA_6_1, "era_parse_6_1");
	CHECK(hs_kernel_era_parse("6.11", &e) == 0 && e == HS_ERA_6_11, "era_parse_6_11");
	CHECK(hs_kernel_era_parse("bogus", &e) == HS_ERR_USAGE, "era_parse_bad");
	CHECK(!strcmp(hs_kernel_era_name(HS_ERA_6_1), "6.1"), "era_name");
}

/* Properties every row of the table must have, whatever it holds. */
static void test_era_table(void)
{
	bool names = true, order = true, since = true, before = true, defaults = true;
	char rel[32];
	enum hs_kernel_era e;

	CHECK(HS_ERA_COUNT >= 2, "era_table_rows");
	for (unsigned int i = 0; i < HS_ERA_COUNT; i++) {
		const struct hs_era *r = hs_kernel_era_get((enum hs_kernel_era)i);
		struct hs_sim_params p;

		names &= hs_kernel_era_parse(r->name, &e) == 0 && e == i && r->about && r->about[0] &&
			 !strcmp(hs_kernel_era_name(e), r->name);
		snprintf(rel, sizeof(rel), "%u.%u.0-1-generic", r->since_major, r->since_minor);
		since &= hs_kernel_era_from_release(rel) == i;
		hs_sim_params_default(&p, (enum hs_kernel_era)i);
		defaults &= p.max_ns == r->default_max_ns && p.shrink == r->default_shrink &&
			    p.era == i;
		if (!i)
			continue;
		order &= r->since_major > r[-1].since_major ||
			 (r->since_major == r[-1].since_major && r->since_minor > r[-1].since_minor);
		/* the last release before the row's first belongs to the row before */
		if (r->since_minor)
			snprintf(rel, sizeof(rel), "%u.%u.99", r->since_major, r->since_minor - 1);
		else
			snprintf(rel, sizeof(rel), "%u.99.1", r->since_major - 1);
		before &= hs_kernel_era_from_release(rel) == i - 1;
	}
	CHECK(names, "era_names_parse_back");
	CHECK(order, "era_rows_oldest_first");
	CHECK(since, "era_from_its_first_release");
	CHECK(before, "era_not_before_its_first_release");
	CHECK(defaults, "era_module_defaults");
	CHECK(hs_kernel_era_get(HS_ERA_COUNT + 3) == hs_kernel_era_get(HS_ERA_COUNT - 1),
	      "era_out_of_range_is_newest");
	CHECK(!strcmp(hs_kernel_era_name(HS_ERA_COUNT), "?"), "era_out_of_range_name");
	CHECK(hs_kernel_copies_halt_poll_ns("5.8.0") == 1 && hs_kernel_copies_halt_poll_ns("6.0.9") == 1 &&
	      hs_kernel_copies_halt_poll_ns("5.7.1") == 0 && hs_kernel_copies_halt_poll_ns("6.1.0") == 0 &&
	      hs_kernel_copies_halt_poll_ns("") < 0, "kernel_copies_halt_poll_ns_5_8_to_6_0");
}

/* A poll cut by another runnable task: a miss, polled to the cut; the decision as without it. */
static void test_poll_cut(void)
{
	struct hs_sim s;
	bool hit;
	int c;

	sim_new(&s, HS_ERA_6_11, 200000, 2);
	s.window = 40000;
	c = hs_sim_halt_cut(&s, 30000, true, 10000, &hit);
	CHECK(!hit && s.poll_ns == 10000 && s.miss_poll_ns == 10000,
	      "sim_cut_poll_misses_and_polls_to_the_cut");
	/* 30000 + 5000 > 40000 is false: no change, as if the whole window had run */
	CHECK(c == 0 && s.window == 40000, "sim_cut_poll_decides_on_the_whole_halt");
	c = hs_sim_halt_cut(&s, 30000, true, 35000, &hit);
	CHECK(hit && s.poll_ns == 40000 && s.hits == 1, "sim_cut_after_the_wake_still_hits");
	c = hs_sim_halt_cut(&s, 50000, true, 0, &hit);
	CHECK(!hit && c == 1 && s.window == 80000 && s.poll_ns == 40000,
	      "sim_cut_at_once_polls_nothing_and_still_grows");
}

int main(void)
{
	test_grow();
	test_poll_cut();
	test_shrink_floor();
	test_eras();
	test_flapping();
	test_era_names();
	test_era_table();
	return CHECK_DONE();
}
