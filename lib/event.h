/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_EVENT_H
#define HS_EVENT_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The one event model every reader produces and the accounting consumes.
 * Readers decode bytes or text into these; nothing downstream knows where
 * an event came from.
 */
enum hs_event_kind {
	HS_EV_VCPU_WAKEUP = 1,		/* kvm:kvm_vcpu_wakeup */
	HS_EV_HALT_POLL_NS,		/* kvm:kvm_halt_poll_ns */
	HS_EV_CPU_IDLE,			/* power:cpu_idle */
	HS_EV_GUEST_HALT_POLL_NS,	/* power:guest_halt_poll_ns */
	/* recorded on request (haltstat record, unless --no-sched): who else is runnable on a vCPU's CPU */
	HS_EV_SCHED_SWITCH,		/* sched:sched_switch */
	HS_EV_SCHED_WAKEUP,		/* sched:sched_wakeup */
	HS_EV_SCHED_WAKING,		/* sched:sched_waking: when a vCPU's wake came */
	/* not analysed: the recording's notes and who its threads were */
	HS_EV_MARKER,			/* ftrace:print (trace_marker) */
	HS_EV_TASK_NEW,			/* task:task_newtask */
	HS_EV_TASK_RENAME,		/* task:task_rename */
	HS_EV_TASK_EXIT,		/* sched:sched_process_exit */
};
#define HS_EV_ANALYSED_LAST HS_EV_SCHED_WAKING
#define HS_EV_KIND_LAST HS_EV_TASK_EXIT

#define HS_IDLE_EXIT 4294967295u	/* power:cpu_idle state on idle exit */

struct hs_wakeup {
	uint64_t ns;		/* whole halt: polling plus waiting */
	bool waited;		/* false: never scheduled out (a poll hit) */
	int8_t valid;		/* 1, 0, or -1 when the kernel predates the field */
};

struct hs_poll_change {
	uint32_t vcpu_id;
	uint32_t new_ns;
	uint32_t old_ns;
	bool grow;
};

struct hs_idle {
	uint32_t state;		/* HS_IDLE_EXIT on exit */
	uint32_t cpu_id;
};

struct hs_guest_poll {
	uint32_t new_ns;
	uint32_t old_ns;
	bool grow;
};

/* Text of a trace_marker write, inside the record: not NUL-terminated, valid while it lasts. */
struct hs_marker {
	const char *text;
	uint32_t len;
};

/* sched_switch on the CPU of the event: prev leaves, next runs there. */
struct hs_sched_switch {
	int32_t prev_pid;
	int32_t next_pid;
	bool prev_runnable;	/* preempted (state R or R+): prev stays on the runqueue */
};

/*
 * sched_wakeup: pid becomes runnable on target_cpu (the event may sit on the
 * waker's CPU). sched_waking: pid is being woken, logged by the waker at
 * once; sched_wakeup may come only after the target CPU took an IPI.
 */
struct hs_sched_wakeup {
	int32_t pid;
	int32_t target_cpu;
};

/* task_newtask (pid: the child), task_rename and sched_process_exit (pid: the task). */
struct hs_task_change {
	int32_t pid;
	uint64_t clone_flags;		/* task_newtask only */
	const char *comm;		/* inside the record: comm_len bytes, not NUL-terminated */
	uint32_t comm_len;
};

struct hs_event {
	uint64_t ts;		/* ns in the trace clock */
	int32_t cpu;		/* CPU whose buffer held the event */
	int32_t tid;		/* common_pid: the vCPU thread for kvm events */
	uint8_t kind;		/* enum hs_event_kind */
	union {
		struct hs_wakeup wakeup;
		struct hs_poll_change poll;
		struct hs_idle idle;
		struct hs_guest_poll guest_poll;
		struct hs_marker marker;
		struct hs_task_change task;
		struct hs_sched_switch sched_switch;
		struct hs_sched_wakeup sched_wakeup;
	};
};

/* Events counted but not looked at (hs_account_keeps), per kind. */
struct hs_event_tally {
	uint64_t count[HS_EV_ANALYSED_LAST + 1];
	uint64_t first_ts, last_ts;	/* valid when a count is not 0 */
};

#endif
