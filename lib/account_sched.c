// SPDX-License-Identifier: GPL-2.0-only
/* The sched events: runqueues, and when each vCPU thread was woken and went to sleep. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "account_state.h"

/*
 * The shard of a vCPU thread notes when it is woken; a thread not known as
 * one yet may be a vCPU thread in its first halt, so its wake is kept aside.
 */
static void account_waking(struct hs_account *a, const struct hs_event *ev)
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
static void account_slept(struct hs_account *a, const struct hs_event *ev)
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
int hs_account_sched(struct hs_account *a, const struct hs_event *ev)
{
	if (!a->runq) {
		a->runq = hs_runq_alloc();
		if (!a->runq)
			return HS_ERR_RUNTIME;
	}
	if (ev->kind == HS_EV_SCHED_WAKING) {
		account_waking(a, ev);
		hs_runq_waking(a->runq, ev->ts, &ev->sched_wakeup);
		return 0;
	}
	if (ev->kind == HS_EV_SCHED_SWITCH)
		account_slept(a, ev);
	if (ev->kind == HS_EV_SCHED_SWITCH)
		hs_runq_switch(a->runq, ev->ts, ev->cpu, &ev->sched_switch);
	else
		hs_runq_wakeup(a->runq, ev->ts, &ev->sched_wakeup);
	return 0;
}
