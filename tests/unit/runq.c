// SPDX-License-Identifier: GPL-2.0-only
/* Per-CPU runqueue tracking from sched events (lib/runq.c). */
#include <stdint.h>

#include "../../lib/runq.h"
#include "check.h"

#define VCPU 100

static void sw(struct hs_runq *q, uint64_t ts, int cpu, int prev, bool runnable, int next)
{
	struct hs_event ev = { .ts = ts, .cpu = cpu, .tid = prev, .kind = HS_EV_SCHED_SWITCH };

	ev.sched_switch = (struct hs_sched_switch){ .prev_pid = prev, .prev_runnable = runnable,
						    .next_pid = next };
	hs_runq_events(q, &ev, 1);
}

/* sched_wakeup or sched_waking of pid onto cpu, from the buffer of another CPU */
static void wake_kind(struct hs_runq *q, uint64_t ts, int pid, int cpu, enum hs_event_kind kind)
{
	struct hs_event ev = { .ts = ts, .cpu = cpu + 1, .tid = 1, .kind = (uint8_t)kind };

	ev.sched_wakeup = (struct hs_sched_wakeup){ .pid = pid, .target_cpu = cpu };
	hs_runq_events(q, &ev, 1);
}

static void wk(struct hs_runq *q, uint64_t ts, int pid, int cpu)
{
	wake_kind(q, ts, pid, cpu, HS_EV_SCHED_WAKEUP);
}

static void waking(struct hs_runq *q, uint64_t ts, int pid, int cpu)
{
	wake_kind(q, ts, pid, cpu, HS_EV_SCHED_WAKING);
}

static struct hs_runq_halt halt(struct hs_runq *q, int cpu, uint64_t start, uint64_t end)
{
	struct hs_runq_halt h;

	hs_runq_halt(q, cpu, VCPU, start, end, &h);
	return h;
}

static void test_alone_then_contended(void)
{
	struct hs_runq *q = hs_runq_alloc();
	struct hs_runq_halt h;

	h = halt(q, 0, 20, 100);
	CHECK(!h.known && h.cut_ns == UINT64_MAX, "runq_unknown_without_events");
	sw(q, 10, 0, 0, true, VCPU);		/* idle -> vCPU */
	h = halt(q, 0, 20, 40);
	CHECK(h.known && h.cut_ns == UINT64_MAX && h.busy_ns == 0 && h.slept_ns == UINT64_MAX,
	      "runq_alone_no_cut");
	wk(q, 50, 200, 0);			/* another task becomes runnable here */
	sw(q, 60, 0, VCPU, false, 200);		/* the vCPU sleeps, it runs */
	sw(q, 80, 0, 200, false, 0);		/* it sleeps too: idle */
	wk(q, 90, VCPU, 0);			/* the vCPU's own wake-up is no contention */
	sw(q, 91, 0, 0, true, VCPU);
	h = halt(q, 0, 20, 100);
	CHECK(h.known, "runq_known");
	CHECK_EQ_U64(h.cut_ns, 30, "runq_cut_at_first_other_runnable");
	CHECK_EQ_U64(h.busy_ns, 30, "runq_busy_time_within_halt");
	CHECK_EQ_U64(h.slept_ns, 40, "runq_vcpu_slept_at");
	h = halt(q, 0, 85, 120);
	CHECK(h.known && h.cut_ns == UINT64_MAX && h.busy_ns == 0, "runq_free_again_after_idle");
	h = halt(q, 1, 20, 100);
	CHECK(!h.known, "runq_other_cpu_unknown");
	hs_runq_free(q);
}

static void test_preempted_and_migration(void)
{
	struct hs_runq *q = hs_runq_alloc();
	struct hs_runq_halt h;

	sw(q, 10, 0, 0, true, 300);
	sw(q, 20, 0, 300, true, VCPU);		/* 300 preempted: still runnable on 0 */
	h = halt(q, 0, 30, 50);
	CHECK(h.known && h.cut_ns == 0 && h.busy_ns == 20, "runq_preempted_task_cuts_at_once");
	sw(q, 60, 1, 0, true, 300);		/* 300 runs on CPU 1 now */
	h = halt(q, 0, 70, 90);
	CHECK(h.known && h.cut_ns == UINT64_MAX, "runq_migrated_task_leaves_old_cpu");
	h = halt(q, 0, 55, 90);
	CHECK_EQ_U64(h.cut_ns, 0, "runq_migration_mid_halt_cut");
	CHECK_EQ_U64(h.busy_ns, 5, "runq_migration_mid_halt_busy");
	hs_runq_free(q);
}

static void test_bounds(void)
{
	struct hs_runq *q = hs_runq_alloc();
	struct hs_runq_halt h;
	uint64_t ts = 10;

	sw(q, ts, 0, 0, true, VCPU);
	for (int i = 0; i < HS_RUNQ_TASKS + 5; i++)
		wk(q, ++ts, 1000 + i, 0);
	h = halt(q, 0, ts + 1, ts + 10);
	CHECK(h.known && h.cut_ns == 0, "runq_many_tasks_stay_busy");
	sw(q, ts + 20, 0, VCPU, false, 0);	/* idle: every one of them has gone */
	h = halt(q, 0, ts + 21, ts + 30);
	CHECK(h.known && h.cut_ns == UINT64_MAX, "runq_idle_resets_overflow");

	/* more changes after a halt's start than the history holds */
	ts += 100;
	for (int i = 0; i < HS_RUNQ_HISTORY + 2; i++) {
		wk(q, ts + 2 * (uint64_t)i, 5000, 0);
		sw(q, ts + 2 * (uint64_t)i + 1, 0, 5000, false, 0);
	}
	h = halt(q, 0, ts, ts + 4 * HS_RUNQ_HISTORY);
	CHECK(!h.known, "runq_history_too_short_is_unknown");

	hs_runq_lost(q, 0);
	h = halt(q, 0, ts + 5 * HS_RUNQ_HISTORY, ts + 5 * HS_RUNQ_HISTORY + 10);
	CHECK(!h.known, "runq_loss_forgets_cpu");
	sw(q, ts + 6 * HS_RUNQ_HISTORY, 0, 0, true, VCPU);
	h = halt(q, 0, ts + 6 * HS_RUNQ_HISTORY + 1, ts + 6 * HS_RUNQ_HISTORY + 9);
	CHECK(h.known && h.cut_ns == UINT64_MAX, "runq_known_again_after_switch");
	sw(q, 1, HS_RUNQ_MAX_CPUS, 0, true, 7);	/* a CPU no machine has: ignored */
	wk(q, 1, 7, -1);
	h = halt(q, HS_RUNQ_MAX_CPUS, 0, 10);
	CHECK(!h.known, "runq_impossible_cpu_ignored");
	hs_runq_free(q);
}

/* A runqueue whose CPU 0 runs the vCPU alone from 1000 on. */
static struct hs_runq *vcpu_alone_from_1000(void)
{
	struct hs_runq *q = hs_runq_alloc();

	sw(q, 1000, 0, 0, true, VCPU);
	return q;
}

/* A wake-up counts from its sched_waking: the task joined the runqueue before sched_wakeup. */
static void test_from_waking(void)
{
	struct hs_runq *q = vcpu_alone_from_1000();
	struct hs_runq_halt h;

	waking(q, 1500, 200, 1);		/* woken from CPU 1's side onto CPU 0 */
	wk(q, 2000, 200, 0);
	h = halt(q, 0, 1200, 3000);
	CHECK_EQ_U64(h.cut_ns, 300, "runq_cut_at_sched_waking");
	sw(q, 3000, 0, VCPU, false, 200);
	sw(q, 3100, 0, 200, false, 0);
	sw(q, 3200, 0, 0, true, VCPU);
	wk(q, 5000, 200, 0);			/* its waking was used up: from sched_wakeup */
	h = halt(q, 0, 4000, 6000);
	CHECK_EQ_U64(h.cut_ns, 1000, "runq_cut_at_sched_wakeup_without_waking");
	hs_runq_free(q);

	q = vcpu_alone_from_1000();
	waking(q, 2000, 200, 0);
	wk(q, 2000 + 2000000, 200, 0);		/* over 1 ms apart: not the same wake-up */
	h = halt(q, 0, 1500, 3000000);
	CHECK_EQ_U64(h.cut_ns, 2000500, "runq_stale_waking_ignored");
	hs_runq_free(q);

	q = vcpu_alone_from_1000();
	waking(q, 1500, 200, 0);
	sw(q, 1800, 0, VCPU, false, 0);		/* changes on the CPU after the waking */
	wk(q, 1850, VCPU, 0);
	sw(q, 1860, 0, 0, true, VCPU);
	wk(q, 2000, 200, 0);			/* dated back no further than 1850 */
	h = halt(q, 0, 1900, 2500);
	CHECK_EQ_U64(h.cut_ns, 0, "runq_waking_before_halt_cuts_at_start");
	h = halt(q, 0, 1100, 1700);
	CHECK(h.known && h.cut_ns == UINT64_MAX, "runq_waking_not_dated_before_the_cpus_last_change");
	h = halt(q, 0, 1100, 1900);
	CHECK_EQ_U64(h.cut_ns, 750, "runq_waking_dated_to_the_cpus_last_change");
	hs_runq_free(q);
}

int main(void)
{
	test_from_waking();
	test_alone_then_contended();
	test_preempted_and_migration();
	test_bounds();
	return CHECK_DONE();
}
