/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_ACCOUNT_PRIV_H
#define HS_ACCOUNT_PRIV_H

/* Shared by account.c, account_names.c and account_merge.c only. */
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

/* Time-weighted window: the value held from *since until ts. */
void hs_window_advance(int64_t window, uint64_t *since, uint64_t ts, double *area,
		       uint64_t *time);
/* The state of a vCPU thread or guest CPU, made at ts if new; NULL past the limits or OOM. */
struct hs_vcpu_acct *hs_vcpu_get(struct hs_account *a, int tid, uint64_t ts);
struct hs_guest_cpu_acct *hs_guest_get(struct hs_account *a, int cpu, uint64_t ts);
/* Closes a vCPU's open window segment at end (the stream's or an interval's). */
void hs_vcpu_settle_end(struct hs_account *a, struct hs_vcpu_acct *v, uint64_t end);
/* The slot of an idle state in the per-state arrays. */
unsigned int hs_idle_slot(int64_t state);

#endif
