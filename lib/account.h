/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_ACCOUNT_H
#define HS_ACCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "contention.h"
#include "error.h"
#include "event.h"
#include "guest_whatif.h"
#include "hist.h"
#include "meta.h"
#include "pollend.h"
#include "whatif.h"
#include "winstate.h"

/*
 * Per-vCPU-thread and per-guest-CPU accounting. Readers push events in time
 * order per thread (and per CPU for guest idle events); state is bounded per
 * thread, never per event.
 */
struct hs_account_opts {
	uint64_t start_ns;	/* from the first event; 0 = from the start */
	uint64_t end_ns;	/* from the first event; 0 = to the end */
	uint64_t linear_bucket_ns; /* 0: no linear histogram */
	unsigned int linear_entries;
	struct hs_whatif_opts whatif;
	bool no_whatif;		/* skip the simulator (faster) */
};


#define HS_SLEEP_LAGS 63
#define HS_SLEEP_LAG_MIN 8

struct hs_vcpu_acct {
	int tid;
	uint64_t halts, poll_hits, waits;
	uint64_t poll_misses;	/* waits with a window > 0 in force */
	uint64_t nopoll_waits;	/* waits with window 0 */
	uint64_t unknown_waits;	/* waits with the window not yet known */
	uint64_t invalid;	/* valid == 0 */
	uint64_t poll_ns;	/* as KVM counts it (pollend.h) */
	uint64_t poll_bounded_ns;	/* of poll_ns, charged by an upper bound */
	uint64_t polls_cut;	/* misses whose poll ended before their window */
	uint64_t first_start_ts;	/* when the earliest halt began (its wakeup less its ns) */
	uint64_t log2_poll[HS_LOG2_BUCKETS];
	uint64_t log2_wait[HS_LOG2_BUCKETS];
	uint64_t *linear_poll;	/* linear_entries + 1 (last = overflow), or NULL */
	uint64_t *linear_wait;

	/* window timeline from kvm_halt_poll_ns */
	int64_t window;		/* HS_WINDOW_UNKNOWN or ns */
	int64_t vcpu_id;	/* from kvm_halt_poll_ns, -1 unknown */
	uint64_t grows, shrinks, flaps;
	int last_change;	/* +1, -1, 0 */
	uint64_t window_since_ts; /* when the current known window began */
	double window_area;	/* sum of window * time, for the time-weighted mean */
	uint64_t window_time;	/* time with a known window */
	struct hs_window_seg seg;	/* halts since the window was last certain */
	struct hs_poll_cost seg_cost;	/* what seg's waits were charged under seg.window */
	uint64_t seg_hit_ns;		/* seg's halts that beat their block: polled unless its window is 0 */
	uint64_t inferred_waits[HS_WSRC_COUNT];	/* waits moved out of "unknown" */
	uint64_t unknown_why[HS_UNK_COUNT];	/* unknown_waits by reason, at finish */
	struct hs_poll_change pending;	/* kvm_halt_poll_ns waiting for its wakeup */
	bool has_pending;
	bool unreliable;	/* lost events touched this thread since its last halt */

	/* contention (runq.h): halts whose CPU's runqueue the sched events tracked */
	uint64_t sched_halts;
	uint64_t contended_halts;	/* of those, with another task runnable at some time */
	uint64_t sched_halt_ns;		/* their summed duration */
	uint64_t contended_ns;		/* of which another task was runnable */
	uint64_t timed_waits;		/* waits with a sched_waking inside them */
	/*
	 * From a poll's end to its thread asleep, as the first waits that
	 * polled their whole window show it (sorted); their median once there
	 * are HS_SLEEP_LAG_MIN, else 0.
	 */
	uint32_t sleep_lag[HS_SLEEP_LAGS];
	unsigned int nsleep_lag;
	uint64_t sleep_lag_ns;

	uint64_t first_ts, last_ts;
	struct hs_whatif *whatif;	/* NULL when opts.no_whatif */
	/* last: what would otherwise push the hot counters apart */
	struct hs_poll_ends seg_ends;	/* seg's waits, for the window told afterwards */
	struct hs_hist all;	/* halt durations, every halt */
};

struct hs_guest_cpu_acct {
	int cpu;
	uint64_t entries[HS_IDLE_STATES];
	uint64_t residency_ns[HS_IDLE_STATES];
	int64_t cur_state;	/* -1: not idle / unknown */
	uint64_t cur_since;
	int64_t last_exit_state; /* state of the idle period that just ended */
	uint64_t poll_hits, poll_misses; /* POLL (state 0) periods */
	bool poll_pending;	/* a POLL ended; a state-1 entry next makes it a miss */
	int64_t window;		/* guest_halt_poll_ns, -1 unknown */
	uint64_t grows, shrinks;
	uint64_t window_since_ts;
	double window_area;
	uint64_t window_time;
	uint64_t first_ts, last_ts;
	struct hs_guest_whatif *whatif;	/* NULL when opts.no_whatif */
};

struct hs_thread_info {
	int tid;
	int tgid;		/* -1 unknown */
	char comm[64];
};

struct hs_process_info {
	int tgid;
	char comm[64];
	char vm_name[128];	/* QEMU -name guest=..., else "" */
};

struct hs_account;

struct hs_account *hs_account_alloc(const struct hs_account_opts *opts);
void hs_account_free(struct hs_account *acct);

/*
 * A vCPU thread's state and its report rows take about 100 KiB: past these
 * many, a paste with a new thread id on every line would take the machine
 * down. The events of the ones past the limit are counted, not analysed
 * (meta.over_limit_events).
 */
#define HS_ACCOUNT_MAX_VCPUS 4096
#define HS_ACCOUNT_MAX_GUEST_CPUS 4096

/* Metadata the reader fills in (source, kernel, parameters, losses). */
struct hs_meta *hs_account_meta(struct hs_account *acct);

int hs_account_event(struct hs_account *acct, const struct hs_event *ev);
/* n events in order, as hs_account_event() takes them one by one. */
int hs_account_event_batch(struct hs_account *acct, const struct hs_event *ev, size_t n);
/*
 * hs_account_event() in two halves, for a reader that keeps the first on
 * its own thread while a second thread runs the other (sink_pipe.c): the
 * front takes the start/end filter and the sched events, whose runqueues
 * then never leave the reader's thread (they are most of a recording), and
 * gives each kvm_vcpu_wakeup the facts of its halt (contention.h); *pass
 * says that ev goes on to the back, with those facts. The back must see
 * what passes in the front's order. Both return as hs_account_event().
 */
int hs_account_front(struct hs_account *acct, const struct hs_event *ev,
		     struct hs_halt_facts *facts, bool *pass);
int hs_account_back(struct hs_account *acct, const struct hs_event *ev,
		    const struct hs_halt_facts *facts);
/*
 * The front of the sched events that lead ev[0..n), *taken of them (0 when
 * ev[0] is not one): sched events never pass, and in a run they cost one
 * call, not one each.
 */
int hs_account_front_sched(struct hs_account *acct, const struct hs_event *ev, size_t n,
			   size_t *taken);
/*
 * n events through the front a batch at a time: each run of sched events
 * in one hs_account_front_sched() call, every other event through
 * other(priv, ev). The loop of every sink that takes batches; inline, so
 * that other is a direct call where the caller names it.
 */
static inline int hs_account_front_batch(struct hs_account *acct, const struct hs_event *ev,
					 size_t n,
					 int (*other)(void *priv, const struct hs_event *ev),
					 void *priv)
{
	size_t i = 0, k;
	int ret = 0;

	while (i < n && !ret) {
		ret = hs_account_front_sched(acct, ev + i, n - i, &k);
		i += k;
		if (!ret && !k)
			ret = other(priv, &ev[i++]);
	}
	return ret;
}
/*
 * The metadata the reader fills in on the front's thread: the account's
 * own (NULL, the default) or a copy of the reader's (sink_pipe.c), until
 * the reading ends. From it the front learns that a recording has no kvm
 * event formats: no halt can then ask for the runqueues, and its sched
 * events are only counted.
 */
void hs_account_front_meta(struct hs_account *acct, const struct hs_meta *meta);
/*
 * The front would only count the sched events from now on (the front's
 * metadata says no kvm event can come, and no start/end needs every event
 * seen): a reader may count them itself, for hs_account_tally().
 */
bool hs_account_sched_counted(const struct hs_account *acct);
/*
 * A recording read in two halves of its time, side by side: the second
 * reader's own account runs the front from a little before the cut
 * (hs_account_front_cut() when it gets there) and keeps what passes after
 * it; the one reader's account, once its front is at the cut, takes that
 * if its front's state there gives what the second's gave
 * (hs_account_front_resumes()), and then the second's counts
 * (hs_account_front_take()). Only for an account that is neither a shard
 * nor limited to a start/end (hs_account_front_splits()).
 */
bool hs_account_front_splits(const struct hs_account *acct);
int hs_account_front_cut(struct hs_account *second);
bool hs_account_front_resumes(const struct hs_account *acct, const struct hs_account *second);
void hs_account_front_take(struct hs_account *acct, const struct hs_account *second);
void hs_account_thread(struct hs_account *acct, int tid, int tgid, const char *comm);
/* comm or vm_name NULL: keep what is known of it. */
void hs_account_process(struct hs_account *acct, int tgid, const char *comm,
			const char *vm_name);
/* count_known false: events were lost on cpu but the count is unknown. */
void hs_account_lost(struct hs_account *acct, int cpu, uint64_t count, bool count_known);
/* The same in the halves of hs_account_front() and hs_account_back(). */
void hs_account_front_lost(struct hs_account *acct, int cpu, uint64_t count, bool count_known);
void hs_account_back_lost(struct hs_account *acct, int cpu, uint64_t count, bool count_known);
/* Ends the stream: closes open idle periods and window timelines. */
void hs_account_finish(struct hs_account *acct);
/*
 * Threads can read one recording side by side, each into its own
 * account: hs_account_shard() makes acct keep only the vCPU threads and
 * guest CPUs whose key falls in share s (hs_shard_owns: the per-vCPU work
 * is the expensive part and no vCPU depends on another). Every shard still
 * counts every event, loss and name, so shard 0 holds the totals.
 * hs_account_absorb() then moves the per-vCPU and per-guest-CPU states of
 * another shard into shard 0, in the order one reader would have made,
 * and makes it whole again; call hs_account_finish() after.
 */
void hs_account_shard(struct hs_account *acct, struct hs_shard s);
bool hs_account_sharded(const struct hs_account *acct);
int hs_account_absorb(struct hs_account *acct, struct hs_account *from);
/*
 * For a reader that can drop events early: false when acct, being a shard,
 * would only count ev (another shard keeps its vCPU). The reader then
 * tallies such events and hands the tally over with hs_account_tally().
 */
bool hs_account_keeps(const struct hs_account *acct, const struct hs_event *ev);
/*
 * The same for the kvm events, told from their thread alone: true, and
 * the share in *shard, when acct keeps those whose tid
 * hs_shard_owns(*shard, tid) names and, with a negative tid, all.
 */
bool hs_account_kvm_shard(const struct hs_account *acct, struct hs_shard *shard);
void hs_account_tally(struct hs_account *acct, const struct hs_event_tally *t);

/*
 * Live views cut one stream into intervals. hs_account_carry() starts an
 * empty next at ts with what prev knows then: windows, a window change
 * waiting for its wakeup, open idle periods, names and the recording's
 * metadata (losses reset); prev NULL only starts the span at ts. Then
 * hs_account_cut() ends prev at ts instead of hs_account_finish(): the
 * span, windows and residencies close at ts, and whatever is still open is
 * left to next, so nothing is counted twice.
 */
int hs_account_carry(struct hs_account *next, const struct hs_account *prev, uint64_t ts);
void hs_account_cut(struct hs_account *acct, uint64_t ts);

/* Read access for the report builder. */
unsigned int hs_account_nvcpus(const struct hs_account *acct);
const struct hs_vcpu_acct *hs_account_vcpu(const struct hs_account *acct, unsigned int i);
unsigned int hs_account_nguest(const struct hs_account *acct);
const struct hs_guest_cpu_acct *hs_account_guest(const struct hs_account *acct, unsigned int i);
const struct hs_thread_info *hs_account_thread_info(const struct hs_account *acct, int tid);
/* Every named thread, in the order the names came. */
unsigned int hs_account_nthreads(const struct hs_account *acct);
const struct hs_thread_info *hs_account_thread_at(const struct hs_account *acct, unsigned int i);
/* The vCPU state of a thread with kvm events, or NULL. */
const struct hs_vcpu_acct *hs_account_vcpu_of(const struct hs_account *acct, int tid);
const struct hs_process_info *hs_account_process_info(const struct hs_account *acct, int tgid);
const struct hs_account_opts *hs_account_options(const struct hs_account *acct);
uint64_t hs_account_first_ts(const struct hs_account *acct);
uint64_t hs_account_last_ts(const struct hs_account *acct);
uint64_t hs_account_events(const struct hs_account *acct, enum hs_event_kind kind);

#endif
