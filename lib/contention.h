/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_CONTENTION_H
#define HS_CONTENTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "intmap.h"
#include "runq.h"

/*
 * What the scheduler's events tell of each halt of a vCPU thread: who else
 * was runnable on the CPU it polled on (runq.h), where and when its thread
 * went to sleep, and when it was woken (sched_waking). The accounting's
 * first stage: it takes every sched event and every kvm event in order and
 * answers each kvm_vcpu_wakeup with the facts of its halt, so that the sched
 * events, most of a recording's, go no further than the thread that decodes
 * them (formats/trace/sink_pipe.c hands the rest to a second one).
 */
struct hs_halt_facts {
	bool tracked;			/* a sched event came before: the runqueues are followed */
	struct hs_runq_halt runq;	/* the CPU the halt polled on, over the halt (when tracked) */
	uint64_t woken_ns;		/* from its start to its thread's sched_waking; HS_WOKEN_UNKNOWN */
};

struct hs_contention;

struct hs_contention *hs_contention_alloc(void);
void hs_contention_free(struct hs_contention *c);
/*
 * Keeps the sleeps and wakes of the threads in share s only
 * (hs_account_shard); every runqueue is followed whatever the share.
 */
void hs_contention_shard(struct hs_contention *c, struct hs_shard s);

/* n sched events (hs_ev_sched) in order: HS_OK, HS_ERR_RUNTIME out of memory. */
int hs_contention_sched(struct hs_contention *c, const struct hs_event *ev, size_t n);
/*
 * A kvm event of a thread of the share: the thread is a vCPU thread from
 * now on, and a kvm_vcpu_wakeup gets its halt's facts. HS_ERR_RUNTIME out
 * of memory.
 */
int hs_contention_kvm(struct hs_contention *c, const struct hs_event *ev,
		      struct hs_halt_facts *facts);
/* Events were lost on cpu (-1: somewhere): what was known of its runqueue is gone. */
void hs_contention_lost(struct hs_contention *c, int cpu);

/*
 * A second reader from a cut in time on (runq.h, hs_runq_resumes): the
 * state it rebuilt is kept at the cut, and from then on it notes what its
 * halts take from it; the one reader's state at the cut, seq, then gives
 * the same facts for every halt since when hs_contention_resumes() says so.
 */
struct hs_contention *hs_contention_clone(const struct hs_contention *c);
int hs_contention_watch(struct hs_contention *c);
bool hs_contention_resumes(const struct hs_contention *seq, const struct hs_contention *snap,
			   const struct hs_contention *after);

#endif
