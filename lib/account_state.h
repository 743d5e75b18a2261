/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_ACCOUNT_STATE_H
#define HS_ACCOUNT_STATE_H

#include <errno.h>

/* What the account*.c files share; not a public interface. */
#include "error.h"
#include "account.h"
#include "intmap.h"
#include "contention.h"

/*
 * What hs_account_front() writes: the reader's thread while another runs
 * hs_account_back() (sink_pipe.c), so on cache lines of its own. Its
 * counts and span join the account's at the end (hs_account_finish, _cut).
 * Aligned, and last in struct hs_account, whose size then ends its line.
 */
struct hs_account_front {
	_Alignas(64) struct hs_contention *ctn;	/* from the first sched or kvm event on */
	bool have_base, have_ts;
	uint64_t base_ts;		/* first event seen: origin of start/end */
	uint64_t first_ts, last_ts;	/* span of the sched events */
	uint64_t events[HS_EV_ANALYSED_LAST + 1];	/* the sched events */
	const struct hs_meta *meta;	/* the reader's (hs_account_front_meta), NULL: the account's */
	/* a second reader's at its cut in time (hs_account_front_cut) */
	bool cut;
	struct hs_contention *at_cut;
};

/*
 * With an accounting thread (sink_pipe.c) the reader runs the front and
 * reads opts and the shard for every event, while the other thread runs
 * the back and writes the counters below on every event: the two sit in
 * cache lines of their own, or each event moves a line between the cores.
 */
struct hs_account {
	struct hs_account_opts opts;
	/* hs_account_shard(): the vCPU threads and guest CPUs kept here */
	struct hs_shard shard;
	struct hs_meta meta;

	struct hs_vcpu_acct **vcpus;
	unsigned int nvcpus, cap_vcpus;
	struct hs_imap vcpu_map;

	struct hs_guest_cpu_acct *guest;
	unsigned int nguest, cap_guest;
	struct hs_imap guest_map;

	struct hs_thread_info *threads;
	unsigned int nthreads, cap_threads;
	struct hs_imap thread_map;

	struct hs_process_info *procs;
	unsigned int nprocs, cap_procs;
	struct hs_imap proc_map;

	_Alignas(64) uint64_t events[HS_EV_ANALYSED_LAST + 1];
	bool have_ts, finished;
	uint64_t first_ts, last_ts;	/* span of the events kept */

	struct hs_account_front front;
};

/* Thread and process names: past these the report shows the bare ids. */
#define HS_ACCOUNT_MAX_NAMES 65536

static inline uint64_t hs_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Time-weighted window: the value held from *since until ts. */
static inline void hs_window_advance(int64_t window, uint64_t *since, uint64_t ts,
				     double *area, uint64_t *time)
{
	if (ts <= *since)
		return;
	if (window >= 0) {
		*area += (double)window * (double)(ts - *since);
		*time += ts - *since;
	}
	*since = ts;
}

/* A shard keeps its share of the limit, so that two readers stay within it too. */
static inline bool hs_account_full(const struct hs_account *a, unsigned int n, unsigned int max)
{
	return n >= max / (a->shard.count > 1 ? a->shard.count : 1);
}

/* After a failed lookup: 0 and counted when the limit was the cause. */
static inline int hs_account_over(struct hs_account *a, unsigned int n, unsigned int max)
{
	if (!hs_account_full(a, n, max))
		return HS_ERR_RUNTIME;
	a->meta.over_limit_events++;
	return 0;
}

/* The front's counts and span into the account's, when the reading is over. */
void hs_account_front_fold(struct hs_account *a);

/* A share of the keys (hs_shard_owns). */
static inline bool hs_account_owns(const struct hs_account *a, int key)
{
	return hs_shard_owns(a->shard, key);
}

/* The key hs_account_kvm or hs_account_guest_event files ev under; -1: none. */
static inline int64_t hs_account_key(const struct hs_event *ev)
{
	if (ev->kind == HS_EV_VCPU_WAKEUP || ev->kind == HS_EV_HALT_POLL_NS)
		return ev->tid;
	return ev->kind == HS_EV_CPU_IDLE ? (int64_t)ev->idle.cpu_id : ev->cpu;
}

/* account_vcpu.c: one vCPU thread's halts and window changes */
/* NULL: out of memory, or a new thread past HS_ACCOUNT_MAX_VCPUS. */
struct hs_vcpu_acct *hs_vcpu_get(struct hs_account *a, int tid, uint64_t ts);
void hs_vcpu_free(struct hs_vcpu_acct *v);
void hs_vcpu_wakeup(struct hs_account *a, struct hs_vcpu_acct *v, const struct hs_event *ev,
		    const struct hs_halt_facts *facts);
void hs_vcpu_poll_ns(struct hs_vcpu_acct *v, const struct hs_event *ev);
/* The end of the stream, or of a live view's interval, at end. */
void hs_vcpu_settle_end(struct hs_account *a, struct hs_vcpu_acct *v, uint64_t end);
/* After a loss: the window and a pending change can no longer be trusted. */
void hs_vcpu_forget(struct hs_account *a, struct hs_vcpu_acct *v);

/* account_guest.c: one guest CPU's idle periods */
/* The state of a guest CPU, made at ts if new; NULL past the limits or OOM. */
struct hs_guest_cpu_acct *hs_guest_get(struct hs_account *a, int cpu, uint64_t ts);
int hs_account_guest_event(struct hs_account *a, const struct hs_event *ev);
void hs_guest_forget(struct hs_guest_cpu_acct *g);
/* Closes what is open at end (idle period, window timeline). */
void hs_guest_finish(struct hs_guest_cpu_acct *g, uint64_t end);
/* The slot of an idle state in the per-state arrays. */
unsigned int hs_idle_slot(int64_t state);

#endif
