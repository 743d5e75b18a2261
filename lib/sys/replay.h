/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_REPLAY_H
#define HS_REPLAY_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "../account.h"
#include "../error.h"
#include "replay_overhead.h"

struct hs_cpu_time;

/*
 * haltstat replay: the times to wake the what-if derived from a recording
 * (lib/whatif.c keeps them when opts.whatif.keep_gaps is set) are replayed
 * in throwaway VMs (lib/sys/workload*.c), one per recorded vCPU, at each setting
 * through KVM_CAP_HALT_POLL, and the real poll hits and polling time are
 * read from each vCPU's KVM statistics, next to the what-if's prediction
 * for the very same sequence of times to wake.
 */
#define HS_REPLAY_MAX_SETTINGS		16
#define HS_REPLAY_MAX_VCPUS		64
#define HS_REPLAY_MAX_RUNS		100
#define HS_REPLAY_DEFAULT_RUNS		3
#define HS_REPLAY_DEFAULT_MAX_HALTS	20000
#define HS_REPLAY_MAX_HALTS		10000000ull

extern const uint64_t hs_replay_default_settings[];
extern const unsigned int hs_replay_default_nsettings;

struct hs_replay_opts {
	uint64_t settings[HS_REPLAY_MAX_SETTINGS];
	unsigned int nsettings;		/* 0: the recorded one plus the defaults */
	unsigned int runs;		/* 0: HS_REPLAY_DEFAULT_RUNS */
	unsigned int max_vcpus;		/* 0: one per CPU (the waker's left out when pinned) */
	int pin;			/* -1: when there are >= 2 CPUs, 0 no, 1 yes */
	bool no_handovers;		/* do not count hand-overs (no tracefs needed) */
	/* set by a signal handler: the run ends early with an error; or NULL */
	const volatile sig_atomic_t *interrupted;
};

struct hs_replay_spread {
	double mean, min, max, stddev;	/* over the runs; stddev 0 with one run */
};

struct hs_replay_figures {
	uint64_t halts;			/* times to wake replayed */
	/* predicted by the what-if over the same times to wake */
	uint64_t pred_hits;
	double pred_hit_rate;
	double pred_poll_cpu_s;
	/* the prediction interval (lib/whatif_iv.c): Δ range, perturbed times to wake, sampling */
	double pred_hit_rate_low, pred_hit_rate_high;
	/* of which the low end lost to the recording's steal (hs_whatif_rows_steal) */
	double pred_hit_rate_stolen;
	double pred_poll_cpu_s_low, pred_poll_cpu_s_high;
	/* measured, one sample per run; measured false without KVM statistics */
	bool measured;
	uint64_t halts_measured;	/* halts the guests counted, last run */
	struct hs_replay_spread hit_rate;
	struct hs_replay_spread poll_cpu_s;
	struct hs_replay_spread vcpu_cpu_s;	/* always measured */
	/*
	 * Hand-overs (lib/sys/handover.h) per halt, one sample per run: the share
	 * of halts in which the vCPU thread gave its CPU to another task, an
	 * upper bound on the poll hits other tasks took away. Known when
	 * counted and attributable (for a vCPU: pinned alone on its CPU).
	 */
	bool handovers_known;
	struct hs_replay_spread handover_share;
	/*
	 * Steal time of the vCPUs' CPUs over the run's wall time, one sample
	 * per run (/proc/stat): a machine that is itself a guest loses its CPU
	 * to the hypervisor above, which ends polls and delays wake-ups that
	 * no hand-over shows. Known when /proc/stat was read.
	 */
	bool steal_known;
	struct hs_replay_spread steal_share;
	/*
	 * The same steal as a share of the time those CPUs wanted to run:
	 * the chance a wake lands in stolen time, which lowers the judged
	 * interval's low end by that share of the predicted hits.
	 */
	struct hs_replay_spread stolen_share;
	/*
	 * Runs whose measured hit rate fell inside the predicted interval,
	 * its low end lowered by the run's hand-over share and its stolen
	 * share of the predicted hits when known: the prediction assumes no
	 * other task and the recording's steal, the run's host had its own.
	 */
	unsigned int runs_inside;
	bool mean_inside;		/* the mean over the runs did */
	double judged_hit_rate_low;	/* the low end the mean was judged against */
};

struct hs_replay_vcpu {
	int tid;			/* in the recording */
	char comm[64];
	uint64_t halts_recorded;
	uint64_t ngaps;			/* the first ngaps halts are replayed */
	const uint64_t *gaps;		/* owned by the accounting */
	const struct hs_whatif *whatif;	/* the same */
	uint64_t gaps_sum_ns;
	uint64_t wake_overhead_ns;	/* the what-if's estimate */
	int cpu;			/* pinned to, -1 not pinned */
	/*
	 * This host's wake-up overhead, measured before the runs (waits 0:
	 * not measured). The recording's host may have woken faster or
	 * slower (a nested host wakes an idle vCPU through its hypervisor),
	 * and KVM's grow/shrink decision sees each wait's whole length, so
	 * the runs here are predicted with its median in place of the
	 * recording's estimate, the interval's overhead range moved with it.
	 * (Drawn per wait, independently, the tail shrinks the window far
	 * more often than the runs do: the slow wakes come in bursts.)
	 */
	struct hs_host_overhead host;
};

struct hs_replay {
	struct hs_replay_opts opts;
	uint64_t settings[HS_REPLAY_MAX_SETTINGS];	/* ascending, unique */
	unsigned int nsettings;
	uint64_t recorded_ns;		/* the setting replayed by the self-check */
	bool recorded_inferred;		/* taken from the trace, not the metadata */
	char era[16];
	double recorded_stolen;		/* the recording's stolen share of runnable time, -1 unknown */
	struct hs_replay_vcpu *vcpus;
	unsigned int nvcpus;
	unsigned int vcpus_skipped;	/* recorded vCPUs past the limit */
	unsigned int vcpus_capped;	/* vCPUs with more halts than were kept */
	bool pinned;
	int waker_cpu;			/* -1 not pinned */
	/* hand-overs counted in every run; else why not ("" when not asked) */
	bool handovers_counted;
	char handovers_why[512];
	bool handovers_alone;		/* every vCPU pinned alone on its CPU */
	uint64_t *cpu_handovers;	/* the last run's, per CPU */
	unsigned int ncpu_handovers;
	struct hs_cpu_time *cpu_before, *cpu_after;	/* per CPU; nsteal of each */
	bool *steal_mask;			/* nsteal: the CPUs one share sums */
	unsigned int nsteal;
	struct hs_replay_figures *cells;	/* [setting * nvcpus + vcpu] */
	struct hs_replay_figures *totals;	/* [setting]: the vCPUs together */
	double seconds;			/* wall time of every run */
	/* settings (totals row) whose every run fell inside the interval, of those measured */
	unsigned int settings_inside, settings_measured;
	bool ran;			/* hs_replay_run succeeded: measured figures are set */
};

/*
 * From an accounting that read a recording with keep_gaps set: picks the
 * vCPUs and settings, pins, and predicts. acct must outlive r.
 */
int hs_replay_prepare(struct hs_replay *r, const struct hs_account *acct,
		      const struct hs_replay_opts *opts, struct hs_error *err);
/* Every setting, opts.runs times: needs /dev/kvm (HS_ERR_KVM otherwise). */
int hs_replay_run(struct hs_replay *r, struct hs_error *err);
void hs_replay_free(struct hs_replay *r);

/* The figures of setting s, vCPU v (v == nvcpus: the totals). */
static inline const struct hs_replay_figures *hs_replay_cell(const struct hs_replay *r,
							      unsigned int s, unsigned int v)
{
	return v >= r->nvcpus ? &r->totals[s] : &r->cells[s * r->nvcpus + v];
}

#endif
