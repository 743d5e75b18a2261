/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_SINK_ITEM_H
#define HS_SINK_ITEM_H

/*
 * What goes over to the accounting thread (sink_pipe.c), and what the
 * second reader of a split in time keeps for it (sink_second.c): an
 * event a slot, a halt two, its facts in the second.
 */
#include <stdbool.h>
#include <stdint.h>

#include "../../lib/contention.h"
#include "../../lib/event.h"

enum pipe_kind { PIPE_EVENT, PIPE_LOST, PIPE_THREAD, PIPE_PROCESS, PIPE_META };

/*
 * 32 bytes, not a 64-byte copy of struct hs_event: the reader's stores
 * into the ring, which the cache does not hold, were a third of its time.
 * An event carries its kind's fields in a, b and flag.
 */
struct pipe_item {
	uint64_t ts;
	int32_t cpu, tid;	/* lost: cpu; names: tgid, id */
	uint8_t kind, ev_kind;
	bool flag;		/* waited, grow, prev_runnable; lost: known */
	int8_t valid;
	uint32_t a;		/* names: the offset of comm */
	uint64_t b;		/* lost: count; names: of vm; meta: the pointer */
};
_Static_assert(sizeof(struct pipe_item) == 32, "a pipe item is 32 bytes");

/* The facts of a halt (contention.h), in the slot after its kvm_vcpu_wakeup. */
struct pipe_facts {
	uint64_t cut_ns, busy_ns, slept_ns, woken_ns;
};
/* In the wakeup's item, a: */
#define PIPE_FACT_TRACKED 1u
#define PIPE_FACT_KNOWN 2u

union pipe_slot {
	struct pipe_item item;
	struct pipe_facts facts;
};
_Static_assert(sizeof(union pipe_slot) == 32, "a pipe slot is 32 bytes");

/* The slots an event of kind takes: a halt two, its facts in the second. */
static inline unsigned int pipe_slots(int kind)
{
	return kind == HS_EV_VCPU_WAKEUP ? 2 : 1;
}

/* An analysed event into an item: false for a kind that has no place in one. */
static inline bool pipe_pack(struct pipe_item *it, const struct hs_event *ev)
{
	it->ts = ev->ts;
	it->cpu = ev->cpu;
	it->tid = ev->tid;
	it->ev_kind = ev->kind;
	switch (ev->kind) {
	case HS_EV_VCPU_WAKEUP:
		it->b = ev->wakeup.ns;
		it->flag = ev->wakeup.waited;
		it->valid = ev->wakeup.valid;
		return true;
	case HS_EV_HALT_POLL_NS:
		it->a = ev->poll.vcpu_id;
		it->b = ev->poll.new_ns | (uint64_t)ev->poll.old_ns << 32;
		it->flag = ev->poll.grow;
		return true;
	case HS_EV_CPU_IDLE:
		it->a = ev->idle.state;
		it->b = ev->idle.cpu_id;
		return true;
	case HS_EV_GUEST_HALT_POLL_NS:
		it->a = ev->guest_poll.new_ns;
		it->b = ev->guest_poll.old_ns;
		it->flag = ev->guest_poll.grow;
		return true;
	case HS_EV_SCHED_SWITCH:
		it->a = (uint32_t)ev->sched_switch.prev_pid;
		it->b = (uint32_t)ev->sched_switch.next_pid;
		it->flag = ev->sched_switch.prev_runnable;
		return true;
	case HS_EV_SCHED_WAKEUP:
	case HS_EV_SCHED_WAKING:
		it->a = (uint32_t)ev->sched_wakeup.pid;
		it->b = (uint32_t)ev->sched_wakeup.target_cpu;
		return true;
	}
	return false;
}

static inline void pipe_pack_facts(struct pipe_item *it, struct pipe_facts *f,
				   const struct hs_halt_facts *facts)
{
	it->a = (facts->tracked ? PIPE_FACT_TRACKED : 0) | (facts->runq.known ? PIPE_FACT_KNOWN : 0);
	*f = (struct pipe_facts){ facts->runq.cut_ns, facts->runq.busy_ns, facts->runq.slept_ns,
				  facts->woken_ns };
}

/* An event the front passed, a halt with its facts, into its pipe_slots() slots at s. */
static inline bool pipe_pack_event(union pipe_slot *s, const struct hs_event *ev,
				   const struct hs_halt_facts *facts)
{
	s->item.kind = PIPE_EVENT;
	if (!pipe_pack(&s->item, ev))
		return false;
	if (ev->kind == HS_EV_VCPU_WAKEUP)
		pipe_pack_facts(&s[0].item, &s[1].facts, facts);
	return true;
}

#endif
