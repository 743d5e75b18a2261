/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_REPORT_H
#define HS_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "account.h"
#include "advice_model.h"
#include "guest_whatif.h"
#include "hist.h"
#include "meta.h"
#include "whatif.h"

/*
 * The report model: one struct that every writer (text, JSON, CSV, SVG,
 * OpenMetrics) renders. Built once from the accounting; writers compute
 * nothing of their own.
 */
struct hs_halt_stats {
	uint64_t halts, poll_hits, waits;
	uint64_t poll_misses, nopoll_waits, unknown_waits, invalid;
	uint64_t sum_ns, min_ns, max_ns;
	double mean_ns;
	uint64_t p50_ns, p90_ns, p99_ns, p999_ns;
	double hit_rate;		/* poll_hits / halts, 0 when no halts */
	/*
	 * Time spent polling as KVM counts it (lib/pollend.h): a hit's ns, a
	 * miss's window or, when shorter, the moment its poll ended. Where no
	 * sched event shows that moment, a miss is charged its window or its
	 * length: poll_bounded_ns of it is such an upper bound.
	 */
	uint64_t poll_ns;
	uint64_t poll_bounded_ns;
	uint64_t polls_cut;		/* misses whose poll ended before their window */
	/* from the first halt's start to the last event: what poll_ns cannot exceed */
	uint64_t first_start_ts, last_ts;
	bool poll_clamped;		/* poll_ns was more than that allows, and cut down */
	bool poll_upper_bound;		/* over 1% of poll_ns is poll_bounded_ns */
	double halts_per_s;		/* per second of the report's span */
	double poll_cpu_pct;		/* poll_ns over the span, percent of one CPU */
	/* window timeline */
	uint64_t grows, shrinks, flaps;
	double window_mean_ns;		/* time-weighted; -1 unknown */
	int64_t window_last_ns;		/* -1 unknown */
	/*
	 * Contention, from sched events (lib/runq.h): halts whose CPU's
	 * runqueue was tracked, and of those the ones during which another task
	 * was runnable there (KVM stops polling then).
	 */
	uint64_t sched_halts, contended_halts;
	uint64_t sched_halt_ns, contended_ns;
	double contended_share;		/* contended_halts / sched_halts; -1 unknown: no sched events */
	double contended_time_share;	/* contended_ns / sched_halt_ns; -1 unknown */
	/* waits whose window was told afterwards, by how (lib/winstate.h) */
	uint64_t inferred_waits[HS_WSRC_COUNT];
	uint64_t unknown_why[HS_UNK_COUNT];	/* unknown_waits by reason */
};

struct hs_log2_hist {
	uint64_t poll[HS_LOG2_BUCKETS];
	uint64_t wait[HS_LOG2_BUCKETS];
};

struct hs_linear_hist {
	uint64_t bucket_ns;
	unsigned int entries;		/* plus one overflow bucket at [entries] */
	uint64_t *poll;
	uint64_t *wait;
};

struct hs_report_vcpu {
	int tid, tgid;
	char comm[64];
	int vcpu_index;			/* from the thread name (lib/vmm.h), else vcpu_id; -1 unknown */
	int64_t vcpu_id;		/* from kvm_halt_poll_ns, -1 unknown */
	char vm[128];			/* VM name or process comm */
	struct hs_halt_stats stats;
	struct hs_log2_hist log2;
	struct hs_linear_hist linear;	/* entries 0 when not asked for */
	struct hs_whatif_row what_if[HS_WHATIF_MAX_CANDIDATES];
	unsigned int n_what_if;
	struct hs_selfcheck selfcheck;
	struct hs_max_in_force max;	/* the maximum its self-check replays, and whence */
	uint64_t wake_overhead_ns;
	uint64_t wake_overhead_lo_ns, wake_overhead_hi_ns;	/* the range the intervals replay */
	struct hs_wake_overhead_measured wake_measured;	/* waits 0: Δ was estimated */
	uint64_t timed_waits;		/* waits sched_waking timed, over the whole recording */
	struct hs_wake_choice wake;
	int suggested_row;		/* what_if index at the host's suggestion, -1 none */
	struct hs_hist *hist;		/* fine histogram (for plots), owned */
};

struct hs_report_vm {
	int tgid;			/* -1 when unknown: all threads without a known process */
	char name[128];
	char comm[64];
	unsigned int nvcpus;
	struct hs_halt_stats stats;
	struct hs_log2_hist log2;
	struct hs_whatif_row what_if[HS_WHATIF_MAX_CANDIDATES];
	unsigned int n_what_if;
	struct hs_advice advice;	/* per-VM suggestion when it differs a lot */
	struct hs_max_in_force max;	/* from its vCPUs' window events together */
	struct hs_linear_hist linear;	/* its vCPUs' tables summed; entries 0 when none */
};

/* What the input shows of kvm: the words for "no halts" depend on it. */
enum hs_kvm_seen {
	HS_KVM_UNKNOWN,		/* no halts, and the input cannot tell (pasted text) */
	HS_KVM_ABSENT,		/* no kvm event formats: kvm not loaded, or not a KVM host */
	HS_KVM_IDLE,		/* kvm loaded (its formats or events are there), no vCPU halted */
	HS_KVM_HALTING,		/* kvm_vcpu_wakeup events were seen */
};

struct hs_report_guest_cpu {
	int cpu;
	uint64_t entries[HS_IDLE_STATES];
	uint64_t residency_ns[HS_IDLE_STATES];
	uint64_t entries_total, residency_total_ns;
	/* over the report's span: per second, and percent of the span; -1 without a span */
	double entries_per_s, poll_entries_per_s;
	double residency_pct[HS_IDLE_STATES];
	double idle_pct;
	double poll_cpu_pct;		/* state 0 (POLL) residency: the CPU the guest spent polling */
	uint64_t poll_hits, poll_misses;
	double poll_hit_rate;		/* hits / (hits + misses), -1 without a POLL */
	uint64_t grows, shrinks;
	double window_mean_ns;		/* -1 unknown */
	int64_t window_last_ns;
	/* the haltpoll governor replayed at each candidate guest_halt_poll_ns */
	struct hs_guest_whatif_row what_if[HS_GUEST_WHATIF_MAX_CANDIDATES];
	unsigned int n_what_if;
	struct hs_selfcheck selfcheck;	/* replayed_max_ns: the recorded guest_halt_poll_ns */
	uint64_t halt_extra_ns;		/* what a halt costs past its wake: what a poll hit saves */
	uint64_t halt_extra_samples;	/* halts after a timed-out poll it was estimated from */
};

/* Who a thread of the recording was (report --threads). */
struct hs_report_thread {
	int tid, tgid;			/* tgid -1 unknown */
	char comm[64];
	char vm[128];			/* VM name, process name, "pid N" or "unknown" */
	int vcpu_index;			/* as for a vCPU row, -1 unknown */
	bool vcpu;			/* it has kvm events: it is a vCPU thread */
};

struct hs_report {
	struct hs_meta meta;
	uint64_t first_ts, last_ts;	/* trace clock ns */
	double duration_s;
	uint64_t events_total;
	uint64_t events_wakeup, events_poll_ns, events_idle, events_guest_poll;
	uint64_t events_sched_switch, events_sched_wakeup;	/* haltstat record, unless --no-sched */
	uint64_t events_sched_waking;
	double lost_pct;		/* lost / (recorded + lost) * 100, -1 unknown */
	/*
	 * What the hypervisor above took of this machine's CPUs while tracing
	 * (lib/steal.h): of their wall time and of the time they wanted to
	 * run, -1 unknown (a recording without the figure: not haltstat's,
	 * or older). The what-if's pessimistic ends carry the second.
	 */
	double steal_share, steal_runnable_share;

	double span_s;			/* what the per-second figures are per (hs_report_rates) */
	struct hs_report_vcpu *vcpus;
	unsigned int nvcpus;
	unsigned int active_vcpus;	/* with at least one halt */
	struct hs_report_vm *vms;
	unsigned int nvms;
	struct hs_halt_stats host;
	struct hs_log2_hist host_log2;
	struct hs_whatif_row host_what_if[HS_WHATIF_MAX_CANDIDATES];
	unsigned int n_host_what_if;
	struct hs_advice advice;

	struct hs_report_guest_cpu *guest;
	unsigned int nguest;
	char idle_state_name[HS_IDLE_STATES][32];	/* "" unknown */
	/* the guest layer: this machine's own idle, all its CPUs together */
	struct hs_guest_whatif_row guest_what_if[HS_GUEST_WHATIF_MAX_CANDIDATES];
	unsigned int n_guest_what_if;
	unsigned int active_guest_cpus;	/* with at least one replayed wake */
	struct hs_haltpoll_params guest_simulated; /* the governor parameters replayed */
	uint64_t guest_halt_extra_ns;	/* wakes-weighted over the CPUs */
	struct hs_advice guest_advice;	/* layer guest: guest_halt_poll_ns */

	/*
	 * Display order, busiest first: most polling CPU, then most halts, then
	 * the order above. Indices into vms and vcpus; NULL in a report built by
	 * hand, which is then shown in its own order.
	 */
	unsigned int *vm_order;
	unsigned int *vcpu_order;

	enum hs_kvm_seen kvm;
	bool poll_host_clamped;		/* the vCPUs' polling was scaled to the host's CPUs' time */
	const char *kvm_note;		/* the warning that says so when no vCPU halted, else NULL */

	char **warnings;		/* one-line warnings for every writer */
	unsigned int nwarnings;

	struct hs_report_thread *threads;	/* only when the filter asks for them */
	unsigned int nthreads;
};

struct hs_report_filter {
	int *pids;			/* VMM process ids (tgid) or thread ids */
	unsigned int npids;
	const char *vm;			/* name or pid */
	int vcpu;			/* vCPU index, -1 all */
	bool threads;			/* also list every named thread (hs_report.threads) */
};


/* A vCPU thread of that VM: the same process, or both of none known. */
static inline bool hs_report_vcpu_in_vm(const struct hs_report_vcpu *v,
					const struct hs_report_vm *vm)
{
	return v->tgid == vm->tgid || (vm->tgid < 0 && v->tgid < 0);
}

/*
 * The events a recording lacks to tell contention, in words: one with
 * sched_waking alone has sched events, just not the two that are needed.
 */
static inline const char *hs_report_sched_missing(const struct hs_report *rep)
{
	return rep->events_sched_waking ? "sched_switch and sched_wakeup events" : "sched events";
}

void hs_report_free(struct hs_report *rep);
void hs_report_warn(struct hs_report *rep, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
