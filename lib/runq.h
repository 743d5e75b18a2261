/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_RUNQ_H
#define HS_RUNQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

/*
 * Who is runnable on each CPU, from sched_switch and sched_wakeup, and when
 * that changed. KVM polls only while the vCPU thread is the one task
 * runnable on its CPU (single_task_running(), need_resched()), so a halt's
 * poll ends at the first moment another task is runnable there.
 *
 * A halt is known only at its end (kvm_vcpu_wakeup comes after it), so each
 * CPU keeps a bounded history of its changes: whether one task or more are
 * runnable, and which one when it is one. The tracking is of runqueues as
 * the events show them: a task that migrates while waiting stays counted on
 * its old CPU until it runs elsewhere or that CPU goes idle (an idle CPU
 * has an empty runqueue, which resets it).
 */
#define HS_RUNQ_MAX_CPUS 4096
#define HS_RUNQ_TASKS 32	/* runnable tasks tracked per CPU; past that "many" */
#define HS_RUNQ_HISTORY 512	/* changes kept per CPU */

struct hs_runq;

struct hs_runq *hs_runq_alloc(void);
void hs_runq_free(struct hs_runq *q);

/*
 * n sched events (hs_ev_sched) in order, a run at a time: they are most of
 * a recording. A switch is the CPU's whose buffer held it (ev->cpu).
 *
 * A task joins its new runqueue inside try_to_wake_up, after sched_waking
 * and before sched_wakeup, which comes only after the reschedule IPI has
 * been sent: on a nested host that send is an exit to the hypervisor, and
 * polls ended there about 500 ns before sched_wakeup (three VMs on one
 * CPU, against KVM's stats fd). So a wake-up counts from the task's
 * sched_waking where the trace has it (within 1 ms), else from its
 * sched_wakeup.
 */
void hs_runq_events(struct hs_runq *q, const struct hs_event *ev, size_t n);
/* Events were lost on cpu (-1: somewhere): what it knew of that CPU is gone. */
void hs_runq_lost(struct hs_runq *q, int cpu);

/* What the history says of one halt of thread tid on cpu, [start, end]. */
struct hs_runq_halt {
	bool known;		/* the CPU's runqueue was tracked over the whole halt */
	uint64_t cut_ns;	/* from start to another task runnable; UINT64_MAX none */
	uint64_t busy_ns;	/* time within the halt with another task runnable */
	uint64_t slept_ns;	/* from start to tid going to sleep there; UINT64_MAX none */
};

void hs_runq_halt(struct hs_runq *q, int cpu, int tid, uint64_t start, uint64_t end,
		  struct hs_runq_halt *out);

/*
 * A second reader that starts at a cut in time, with a state rebuilt from
 * a stretch before it (formats/trace/tracedat_split.c), gives the answers
 * one reader would only where that state agrees with the one reader's at
 * the cut, as far as its answers looked. The rebuilt state is kept at the
 * cut (clone) and its reader watches from there on what it reads of it.
 */
struct hs_runq *hs_runq_clone(const struct hs_runq *q);
/* From now on q notes what its answers take from the state it has now: 0, -1 out of memory. */
int hs_runq_watch(struct hs_runq *q);
/*
 * Whether seq, the one reader's state at the cut, gives every answer that
 * after (watched from snap, its state at the cut) gave since.
 */
bool hs_runq_resumes(const struct hs_runq *seq, const struct hs_runq *snap,
		     const struct hs_runq *after);

#endif
