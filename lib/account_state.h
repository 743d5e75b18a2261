/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_ACCOUNT_STATE_H
#define HS_ACCOUNT_STATE_H

#include <errno.h>

/* What the account*.c files share; not a public interface. */
#include "error.h"
#include "account.h"
#include "intmap.h"
#include "runq.h"

/* Slots of hs_account.waking_early (a power of two). */
#define HS_ACCOUNT_WAKING_EARLY 256

struct hs_account {
	struct hs_account_opts opts;
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

	struct hs_runq *runq;		/* from the first sched event on; NULL before */
	/*
	 * sched_waking of threads not (yet) known as vCPU threads: a thread is
	 * known from its first kvm event, which ends a wait its waking came
	 * inside. Direct-mapped by tid; a collision only leaves that first
	 * wait untimed.
	 */
	struct { int tid; uint64_t ts; } waking_early[HS_ACCOUNT_WAKING_EARLY];
	uint64_t events[HS_EV_ANALYSED_LAST + 1];
	bool have_base, have_ts, finished;
	uint64_t base_ts;		/* first event seen: origin of start/end */
	uint64_t first_ts, last_ts;	/* span of the events kept */

	/* hs_account_shard(): the vCPU threads and guest CPUs kept here */
	unsigned int shard, nshards;
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
	return n >= max / (a->nshards > 1 ? a->nshards : 1);
}

/* After a failed lookup: 0 and counted when the limit was the cause. */
static inline int hs_account_over(struct hs_account *a, unsigned int n, unsigned int max)
{
	if (!hs_account_full(a, n, max))
		return HS_ERR_RUNTIME;
	a->meta.over_limit_events++;
	return 0;
}

/*
 * A share of the keys by a hash: vCPU threads of one VM have consecutive
 * tids, which a plain modulo would hand out just as well, but tids picked
 * from a sparse set might not.
 */
static inline bool hs_account_owns(const struct hs_account *a, int key)
{
	/* the hash scaled to [0, nshards): its high bits, and no division */
	return a->nshards <= 1 ||
	       (unsigned int)(((uint64_t)hs_imap_hash(key) * a->nshards) >> 32) == a->shard;
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
void hs_vcpu_wakeup(struct hs_account *a, struct hs_vcpu_acct *v, const struct hs_event *ev);
void hs_vcpu_poll_ns(struct hs_vcpu_acct *v, const struct hs_event *ev);
/* The end of the stream, or of a live view's interval, at end. */
void hs_vcpu_settle_end(struct hs_account *a, struct hs_vcpu_acct *v, uint64_t end);
/* After a loss: the window and a pending change can no longer be trusted. */
void hs_vcpu_forget(struct hs_account *a, struct hs_vcpu_acct *v);
/* The slot of hs_account.waking_early a thread's early sched_waking goes to. */
unsigned int hs_waking_slot(int tid);

/* account_guest.c: one guest CPU's idle periods */
/* The state of a guest CPU, made at ts if new; NULL past the limits or OOM. */
struct hs_guest_cpu_acct *hs_guest_get(struct hs_account *a, int cpu, uint64_t ts);
int hs_account_guest_event(struct hs_account *a, const struct hs_event *ev);
void hs_guest_forget(struct hs_guest_cpu_acct *g);
/* Closes what is open at end (idle period, window timeline). */
void hs_guest_finish(struct hs_guest_cpu_acct *g, uint64_t end);
/* The slot of an idle state in the per-state arrays. */
unsigned int hs_idle_slot(int64_t state);

/* account_sched.c: runqueues, and each vCPU thread's wakes and sleeps */
int hs_account_sched(struct hs_account *a, const struct hs_event *ev);

#endif
