// SPDX-License-Identifier: GPL-2.0-only
/*
 * haltstat replay (see replay.h). The prediction runs lib/sim.c over
 * exactly the times to wake replayed, with the what-if's own parameters,
 * from a zero window as a fresh VM starts, so predicted and measured cover
 * the same halts, and with this host's wake-up overhead, measured before
 * the runs (a nested host may wake a vCPU three times slower than the
 * recording's did, which moves a cliff). Measured hits and polling CPU
 * come from the vCPU's binary statistics (halt_successful_poll, halt_poll_success_ns +
 * halt_poll_fail_ns), so no tracing is needed (doc/INTERNALS.md,
 * "haltstat replay: predicted against measured").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handover.h"
#include "workload.h"
#include "replay.h"
#include "../sim.h"
#include "../steal.h"
#include "sysinfo.h"
#include "../vmm.h"
#include "../whatif.h"
#include "../whatif_iv.h"

const uint64_t hs_replay_default_settings[] = { 50000, 200000, 400000 };
const unsigned int hs_replay_default_nsettings =
	sizeof(hs_replay_default_settings) / sizeof(hs_replay_default_settings[0]);

/* The replay's vCPU threads are named as this VMM names them (the hand-over filter matches them). */
#define HS_REPLAY_VMM HS_VMM_QEMU

/* Below this a stalled guest is told from a long recorded gap. */
#define HS_REPLAY_STALL_NS 10000000000ull

static int replay_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void replay_settings(struct hs_replay *r)
{
	unsigned int n = 0, u = 0;

	if (r->opts.nsettings) {
		n = r->opts.nsettings > HS_REPLAY_MAX_SETTINGS ? HS_REPLAY_MAX_SETTINGS :
			r->opts.nsettings;
		memcpy(r->settings, r->opts.settings, n * sizeof(r->settings[0]));
	} else {
		r->settings[n++] = r->recorded_ns;
		for (unsigned int i = 0; i < hs_replay_default_nsettings; i++)
			r->settings[n++] = hs_replay_default_settings[i];
	}
	qsort(r->settings, n, sizeof(r->settings[0]), replay_u64_cmp);
	for (unsigned int i = 0; i < n; i++)
		if (!u || r->settings[u - 1] != r->settings[i])
			r->settings[u++] = r->settings[i];
	r->nsettings = u;
}

/*
 * The waker gets the last allowed CPU and the vCPUs the others, one each
 * as far as they go: a waker or a second vCPU on a polling vCPU's CPU
 * ends its polls early (single_task_running()).
 */
static int replay_pinning(struct hs_replay *r, unsigned int *limit, struct hs_error *err)
{
	int cpus[HS_REPLAY_MAX_VCPUS + 1];
	unsigned int n = hs_workload_allowed_cpus(cpus, HS_REPLAY_MAX_VCPUS + 1);

	if (r->opts.pin == 1 && n < 2)
		return hs_error_set(err, HS_ERR_USAGE,
				    "--pin needs at least 2 CPUs (one for the waker), %u allowed", n);
	r->pinned = r->opts.pin == 1 || (r->opts.pin < 0 && n >= 2);
	r->waker_cpu = r->pinned ? cpus[n - 1] : -1;
	*limit = r->pinned ? n - 1 : (n ? n : 1);
	if (r->opts.max_vcpus)
		*limit = r->opts.max_vcpus;
	if (*limit > HS_REPLAY_MAX_VCPUS)
		*limit = HS_REPLAY_MAX_VCPUS;
	for (unsigned int i = 0; i < r->nvcpus; i++)
		r->vcpus[i].cpu = r->pinned ? cpus[i % (n - 1)] : -1;
	return 0;
}

static bool replay_cpus_distinct(const struct hs_replay *r)
{
	if (!r->pinned)
		return false;
	for (unsigned int i = 0; i < r->nvcpus; i++)
		for (unsigned int j = 0; j < i; j++)
			if (r->vcpus[i].cpu == r->vcpus[j].cpu)
				return false;
	return true;
}

static void replay_vcpu_fill(struct hs_replay_vcpu *rv, const struct hs_account *acct,
			     const struct hs_vcpu_acct *v)
{
	const struct hs_thread_info *ti = hs_account_thread_info(acct, v->tid);
	uint64_t total;

	memset(rv, 0, sizeof(*rv));
	rv->tid = v->tid;
	snprintf(rv->comm, sizeof(rv->comm), "%s", ti ? ti->comm : "");
	rv->gaps = hs_whatif_gaps(v->whatif, &rv->ngaps, &total);
	rv->halts_recorded = total;
	for (uint64_t i = 0; i < rv->ngaps; i++)
		rv->gaps_sum_ns += rv->gaps[i];
	rv->wake_overhead_ns = hs_whatif_wake_overhead_ns(v->whatif);
	rv->whatif = v->whatif;
	rv->cpu = -1;
}

/* The recorded setting as the self-check of the busiest vCPU replayed it. */
static void replay_recorded(struct hs_replay *r, const struct hs_vcpu_acct *busiest)
{
	struct hs_sim_params p;
	struct hs_selfcheck sc;

	hs_whatif_selfcheck(busiest->whatif, &sc);
	r->recorded_ns = sc.replayed_max_ns;
	r->recorded_inferred = sc.max_inferred;
	hs_whatif_sim_params(busiest->whatif, 0, &p);
	snprintf(r->era, sizeof(r->era), "%s", hs_kernel_era_name(p.era));
}

static int replay_pick_vcpus(struct hs_replay *r, const struct hs_account *acct,
			     struct hs_error *err)
{
	unsigned int n = hs_account_nvcpus(acct);
	const struct hs_vcpu_acct *busiest = NULL;

	r->vcpus = calloc(n ? n : 1, sizeof(*r->vcpus));
	if (!r->vcpus)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	for (unsigned int i = 0; i < n; i++) {
		const struct hs_vcpu_acct *v = hs_account_vcpu(acct, i);
		struct hs_replay_vcpu *rv = &r->vcpus[r->nvcpus];

		if (!v->whatif)
			continue;
		replay_vcpu_fill(rv, acct, v);
		if (!rv->ngaps)
			continue;
		if (!busiest || v->halts > busiest->halts)
			busiest = v;
		r->nvcpus++;
	}
	if (!busiest)
		return hs_error_set(err, HS_ERR_INPUT,
				    "no vCPU halts (kvm:kvm_vcpu_wakeup) to replay in the recording");
	replay_recorded(r, busiest);
	return 0;
}

/*
 * Measured here: this host's median overhead in place of the recording's,
 * and the interval's overhead range moved with it.
 */
static void replay_host_overhead(const struct hs_replay_vcpu *rv, struct hs_sim_params *p,
				 uint64_t *lo, uint64_t *hi)
{
	uint64_t here = rv->host.ns[HS_OVERHEAD_Q / 2];
	int64_t d = (int64_t)here - (int64_t)p->wake_overhead_ns;

	p->wake_overhead_ns = here;
	*lo = (int64_t)*lo + d > 0 ? (uint64_t)((int64_t)*lo + d) : 0;
	*hi = (int64_t)*hi + d > 0 ? (uint64_t)((int64_t)*hi + d) : 0;
}

static void replay_predict_one(struct hs_replay_figures *f, const struct hs_replay_vcpu *rv,
			       uint64_t setting, double stolen)
{
	struct hs_whatif_gaps_iv iv;
	struct hs_sim_params p;
	uint64_t lo, hi;

	hs_whatif_sim_params(rv->whatif, setting, &p);
	hs_whatif_wake_overhead_range(rv->whatif, &lo, &hi);
	if (rv->host.waits)
		replay_host_overhead(rv, &p, &lo, &hi);
	hs_whatif_iv_gaps(&p, lo, hi, rv->gaps, rv->ngaps, &iv);
	f->halts = rv->ngaps;
	f->pred_hits = iv.hits;
	f->pred_hit_rate = rv->ngaps ? (double)iv.hits / rv->ngaps : 0;
	f->pred_poll_cpu_s = iv.poll_ns / 1e9;
	f->pred_hit_rate_low = iv.hit_lo;
	f->pred_hit_rate_high = iv.hit_hi;
	f->pred_poll_cpu_s_low = iv.poll_lo;
	f->pred_poll_cpu_s_high = iv.poll_hi;
	f->pred_hit_rate_stolen = hs_steal_widen(stolen, f->pred_hit_rate, (double)f->halts,
						 setting, &f->pred_hit_rate_low,
						 &f->pred_poll_cpu_s_high);
}

static void replay_predict(struct hs_replay *r)
{
	memset(r->cells, 0, (size_t)r->nsettings * r->nvcpus * sizeof(*r->cells));
	memset(r->totals, 0, r->nsettings * sizeof(*r->totals));
	for (unsigned int s = 0; s < r->nsettings; s++) {
		struct hs_replay_figures *t = &r->totals[s];

		for (unsigned int v = 0; v < r->nvcpus; v++) {
			struct hs_replay_figures *f = &r->cells[s * r->nvcpus + v];

			replay_predict_one(f, &r->vcpus[v], r->settings[s], r->recorded_stolen);
			t->halts += f->halts;
			t->pred_hits += f->pred_hits;
			t->pred_poll_cpu_s += f->pred_poll_cpu_s;
			/* the vCPUs' bounds add up, as the what-if's VM and host rows do */
			t->pred_hit_rate_low += f->pred_hit_rate_low * f->halts;
			t->pred_hit_rate_high += f->pred_hit_rate_high * f->halts;
			t->pred_hit_rate_stolen += f->pred_hit_rate_stolen * f->halts;
			t->pred_poll_cpu_s_low += f->pred_poll_cpu_s_low;
			t->pred_poll_cpu_s_high += f->pred_poll_cpu_s_high;
		}
		t->pred_hit_rate = t->halts ? (double)t->pred_hits / t->halts : 0;
		t->pred_hit_rate_low = t->halts ? t->pred_hit_rate_low / t->halts : 0;
		t->pred_hit_rate_high = t->halts ? t->pred_hit_rate_high / t->halts : 0;
		t->pred_hit_rate_stolen = t->halts ? t->pred_hit_rate_stolen / t->halts : 0;
	}
}

int hs_replay_prepare(struct hs_replay *r, const struct hs_account *acct,
		      const struct hs_replay_opts *opts, struct hs_error *err)
{
	unsigned int limit;
	int ret;

	memset(r, 0, sizeof(*r));
	r->opts = *opts;
	if (!r->opts.runs)
		r->opts.runs = HS_REPLAY_DEFAULT_RUNS;
	if (r->opts.runs > HS_REPLAY_MAX_RUNS)
		return hs_error_set(err, HS_ERR_USAGE, "at most %d runs", HS_REPLAY_MAX_RUNS);
	/* hs_account_meta() only hands out a pointer; acct stays untouched */
	r->recorded_stolen =
		hs_cpu_steal_runnable_share(&hs_account_meta((struct hs_account *)acct)->steal);
	ret = replay_pick_vcpus(r, acct, err);
	if (!ret)
		ret = replay_pinning(r, &limit, err);
	if (ret)
		return ret;
	if (r->nvcpus > limit) {
		r->vcpus_skipped = r->nvcpus - limit;
		r->nvcpus = limit;
	}
	for (unsigned int i = 0; i < r->nvcpus; i++)
		r->vcpus_capped += r->vcpus[i].ngaps < r->vcpus[i].halts_recorded;
	r->handovers_alone = replay_cpus_distinct(r);
	replay_settings(r);
	r->cells = calloc((size_t)r->nsettings * r->nvcpus, sizeof(*r->cells));
	r->totals = calloc(r->nsettings, sizeof(*r->totals));
	if (!r->cells || !r->totals)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	replay_predict(r);
	return 0;
}

/* ---- running ---- */

/* One run's samples: [vcpu] per vCPU, [nvcpus] the totals. */
struct replay_samples {
	/* [(nvcpus + 1) * runs]; steal of the wall time, stolen of the runnable time */
	double *hit, *poll, *cpu, *handover, *steal, *stolen;
	bool measured;
	bool steal_read;		/* the run's cpu_before/after are set */
	uint64_t wall_ns;
	/* the run's hand-overs per CPU, or NULL when not counted */
	const uint64_t *cpu_handovers;
	unsigned int ncpus;
};

static void replay_spread(struct hs_replay_spread *sp, const double *x, unsigned int n)
{
	double sum = 0, sq = 0;

	memset(sp, 0, sizeof(*sp));
	if (!n)
		return;
	sp->min = sp->max = x[0];
	for (unsigned int i = 0; i < n; i++) {
		sum += x[i];
		sp->min = x[i] < sp->min ? x[i] : sp->min;
		sp->max = x[i] > sp->max ? x[i] : sp->max;
	}
	sp->mean = sum / n;
	for (unsigned int i = 0; i < n; i++)
		sq += (x[i] - sp->mean) * (x[i] - sp->mean);
	sp->stddev = n > 1 ? sqrt(sq / (n - 1)) : 0;
}

/* The hand-overs of vCPU v, when its CPU had no other vCPU; -1 unknown. */
static double replay_vcpu_handovers(const struct hs_replay *r, const struct replay_samples *sm,
				    unsigned int v)
{
	int c = r->vcpus[v].cpu;

	if (!sm->cpu_handovers || !r->handovers_alone || c < 0 || (unsigned int)c >= sm->ncpus)
		return -1;
	return (double)sm->cpu_handovers[c];
}

/* A guest preempted while it runs hands over too: more than one per halt says "every halt". */
static double replay_share(double handovers, double halts)
{
	return handovers < halts ? handovers / halts : 1;
}

static void replay_sample_handovers(struct hs_replay *r, struct replay_samples *sm,
				    unsigned int run, const struct hs_workload_vm *vms)
{
	unsigned int runs = r->opts.runs, t = r->nvcpus;
	uint64_t halts = 0, all = 0;

	for (unsigned int v = 0; v < r->nvcpus; v++) {
		double n = replay_vcpu_handovers(r, sm, v);

		sm->handover[v * runs + run] = n < 0 || !vms[v].halts ? -1 :
			replay_share(n, (double)vms[v].halts);
		halts += vms[v].halts;
	}
	for (unsigned int c = 0; sm->cpu_handovers && c < sm->ncpus; c++)
		all += sm->cpu_handovers[c];
	sm->handover[t * runs + run] = !sm->cpu_handovers || !halts ? -1 :
		replay_share((double)all, (double)halts);
}

/* The CPUs the vCPUs ran on (every CPU when not pinned), or vCPU v's alone. */
static void replay_steal_mask(const struct hs_replay *r, int v, bool *mask)
{
	for (unsigned int c = 0; c < r->nsteal; c++)
		mask[c] = v >= 0 ? r->vcpus[v].cpu == (int)c : !r->pinned;
	for (unsigned int i = 0; v < 0 && r->pinned && i < r->nvcpus; i++)
		if (r->vcpus[i].cpu >= 0 && (unsigned int)r->vcpus[i].cpu < r->nsteal)
			mask[r->vcpus[i].cpu] = true;
}

/* Steal of the masked CPUs over the run: of their wall time and of their runnable time. */
static void replay_steal_shares(const struct hs_replay *r, const struct replay_samples *sm,
				const bool *mask, double *wall_share, double *runnable_share)
{
	struct hs_cpu_steal st;

	*wall_share = *runnable_share = -1;
	if (!sm->steal_read || !sm->wall_ns)
		return;
	hs_sysinfo_steal_delta(r->cpu_before, r->cpu_after, mask, r->nsteal, &st);
	*wall_share = hs_cpu_steal_wall_share(&st, sm->wall_ns / 1e9);
	*runnable_share = hs_cpu_steal_runnable_share(&st);
}

static void replay_sample_steal(struct hs_replay *r, struct replay_samples *sm, unsigned int run)
{
	unsigned int runs = r->opts.runs;

	for (int v = -1; v < (int)r->nvcpus; v++) {
		unsigned int at = (v < 0 ? r->nvcpus : (unsigned int)v) * runs + run;

		replay_steal_mask(r, v, r->steal_mask);
		replay_steal_shares(r, sm, r->steal_mask, &sm->steal[at], &sm->stolen[at]);
	}
}

static void replay_sample(struct hs_replay *r, struct replay_samples *sm, unsigned int run,
			  const struct hs_workload_vm *vms)
{
	unsigned int runs = r->opts.runs, t = r->nvcpus;
	uint64_t halts = 0, hits = 0, poll = 0, cpu = 0;

	for (unsigned int v = 0; v < r->nvcpus; v++) {
		const struct hs_workload_vm *m = &vms[v];
		uint64_t p = m->halt_poll_success_ns + m->halt_poll_fail_ns;

		sm->measured &= m->kvm_stats;
		sm->hit[v * runs + run] = m->halts ? (double)m->halt_successful_poll / m->halts : 0;
		sm->poll[v * runs + run] = p / 1e9;
		sm->cpu[v * runs + run] = m->vcpu_cpu_ns / 1e9;
		halts += m->halts;
		hits += m->halt_successful_poll;
		poll += p;
		cpu += m->vcpu_cpu_ns;
	}
	sm->hit[t * runs + run] = halts ? (double)hits / halts : 0;
	sm->poll[t * runs + run] = poll / 1e9;
	sm->cpu[t * runs + run] = cpu / 1e9;
	replay_sample_handovers(r, sm, run, vms);
	replay_sample_steal(r, sm, run);
}

/*
 * Inside: within the interval, give or take the 0.05 points the text rounds
 * to, the low end lowered by what the run's host took that the recording
 * cannot foresee: the share of halts other tasks may have cut, and the
 * hits whose wakes its hypervisor may have stolen (hs_whatif_rows_steal),
 * measured in the run in place of the recording's estimate. stolen < 0:
 * unknown, the estimate stands.
 */
static double replay_judged_low(const struct hs_replay_figures *f, double cut, double stolen)
{
	double low = f->pred_hit_rate_low - cut;

	if (stolen >= 0)
		low += f->pred_hit_rate_stolen - stolen * f->pred_hit_rate;
	return low > 0 ? low : 0;
}

static bool replay_in(const struct hs_replay_figures *f, double x, double cut, double stolen)
{
	const double slack = 0.0005;

	return x >= replay_judged_low(f, cut, stolen) - slack &&
	       x <= f->pred_hit_rate_high + slack;
}

static void replay_inside(struct hs_replay_figures *f, const struct replay_samples *sm,
			  size_t at, unsigned int n)
{
	const double *x = sm->hit + at, *cut = sm->handover + at, *stolen = sm->stolen + at;

	f->runs_inside = 0;
	for (unsigned int i = 0; i < n; i++)
		f->runs_inside += replay_in(f, x[i], f->handovers_known ? cut[i] : 0,
					    f->steal_known ? stolen[i] : -1);
	f->judged_hit_rate_low = replay_judged_low(f, f->handovers_known ?
						     f->handover_share.mean : 0,
						     f->steal_known ? f->stolen_share.mean : -1);
	f->mean_inside = f->measured &&
		replay_in(f, f->hit_rate.mean, f->handovers_known ? f->handover_share.mean : 0,
			  f->steal_known ? f->stolen_share.mean : -1);
}

/* The spread of n samples when none is unknown (< 0); returns whether. */
static bool replay_known_spread(struct hs_replay_spread *sp, const double *x, unsigned int n)
{
	bool known = n > 0;

	for (unsigned int i = 0; i < n; i++)
		known &= x[i] >= 0;
	if (known)
		replay_spread(sp, x, n);
	else
		memset(sp, 0, sizeof(*sp));
	return known;
}

static void replay_summarise(struct hs_replay *r, unsigned int s, const struct replay_samples *sm,
			     const struct hs_workload_vm *vms)
{
	unsigned int runs = r->opts.runs;
	uint64_t total = 0;

	for (unsigned int v = 0; v <= r->nvcpus; v++) {
		struct hs_replay_figures *f = v < r->nvcpus ? &r->cells[s * r->nvcpus + v] :
			&r->totals[s];

		f->measured = sm->measured;
		replay_spread(&f->hit_rate, sm->hit + v * runs, runs);
		f->handovers_known = replay_known_spread(&f->handover_share, sm->handover + v * runs,
							 runs);
		f->steal_known = replay_known_spread(&f->steal_share, sm->steal + v * runs, runs) &&
				 replay_known_spread(&f->stolen_share, sm->stolen + v * runs, runs);
		replay_inside(f, sm, v * runs, runs);
		replay_spread(&f->poll_cpu_s, sm->poll + v * runs, runs);
		replay_spread(&f->vcpu_cpu_s, sm->cpu + v * runs, runs);
		if (v < r->nvcpus) {
			f->halts_measured = vms[v].halts;
			total += vms[v].halts;
		} else {
			f->halts_measured = total;
		}
	}
	if (sm->measured) {
		r->settings_measured++;
		r->settings_inside += r->totals[s].runs_inside == runs;
	}
}

static void replay_params(const struct hs_replay *r, struct hs_workload_params *p,
			  struct hs_gap_seq *seqs, int64_t *poll, int *cpus)
{
	uint64_t longest = 0;

	memset(p, 0, sizeof(*p));
	for (unsigned int v = 0; v < r->nvcpus; v++) {
		seqs[v].ns = r->vcpus[v].gaps;
		seqs[v].n = r->vcpus[v].ngaps;
		cpus[v] = r->vcpus[v].cpu;
		for (uint64_t i = 0; i < seqs[v].n; i++)
			longest = seqs[v].ns[i] > longest ? seqs[v].ns[i] : longest;
	}
	p->nvms = r->nvcpus;
	p->seqs = seqs;
	p->halt_poll_ns = poll;
	p->vcpu_names = HS_REPLAY_VMM;
	p->interrupted = r->opts.interrupted;
	p->waker_cpu = r->waker_cpu;
	p->vcpu_cpus = r->pinned ? cpus : NULL;
	/* a recorded idle stretch is not a stall */
	p->stall_ns = longest > UINT64_MAX - HS_REPLAY_STALL_NS ? UINT64_MAX :
		longest + HS_REPLAY_STALL_NS;
}

/* A counter for one run, or NULL (and hand-overs not counted from now on). */
static struct hs_handover *replay_handover_start(struct hs_replay *r)
{
	struct hs_handover *h = NULL;
	struct hs_error err;
	char glob[64];

	if (!r->handovers_counted)
		return NULL;
	hs_error_clear(&err);
	hs_vmm_vcpu_thread_glob(HS_REPLAY_VMM, glob, sizeof(glob));
	if (hs_handover_start(&h, glob, &err)) {
		r->handovers_counted = false;
		snprintf(r->handovers_why, sizeof(r->handovers_why), "%s", err.msg);
	}
	return h;
}

static int replay_handover_read(struct hs_replay *r, struct hs_handover *h,
				struct replay_samples *sm)
{
	sm->ncpus = hs_handover_ncpus(h);
	if (sm->ncpus > r->ncpu_handovers) {
		uint64_t *v = realloc(r->cpu_handovers, sm->ncpus * sizeof(*v));

		if (!v) {
			r->handovers_counted = false;
			snprintf(r->handovers_why, sizeof(r->handovers_why), "out of memory");
			return -1;
		}
		r->cpu_handovers = v;
		r->ncpu_handovers = sm->ncpus;
	}
	if (!hs_handover_counts(h, r->cpu_handovers, sm->ncpus))
		return 0;
	r->handovers_counted = false;
	snprintf(r->handovers_why, sizeof(r->handovers_why),
		 "cannot read the counting instance's per-CPU stats");
	return -1;
}

static int replay_setting(struct hs_replay *r, unsigned int s, struct hs_workload_params *p,
			  int64_t *poll, struct replay_samples *sm, struct hs_workload_vm *vms,
			  struct hs_error *err)
{
	for (unsigned int v = 0; v < r->nvcpus; v++)
		poll[v] = (int64_t)r->settings[s];
	sm->measured = true;
	for (unsigned int run = 0; run < r->opts.runs; run++) {
		struct hs_handover *h = replay_handover_start(r);
		bool steal = r->nsteal && hs_sysinfo_cpu_times(r->cpu_before, r->nsteal) > 0;
		uint64_t wall = 0;
		int ret = hs_workload_run(p, vms, &wall, err);

		sm->steal_read = steal && hs_sysinfo_cpu_times(r->cpu_after, r->nsteal) > 0;
		sm->wall_ns = wall;
		r->seconds += wall / 1e9;
		sm->cpu_handovers = h && !replay_handover_read(r, h, sm) ? r->cpu_handovers : NULL;
		hs_handover_stop(h);
		if (ret)
			return ret;
		replay_sample(r, sm, run, vms);
	}
	replay_summarise(r, s, sm, vms);
	return 0;
}

/* This host's wake-up overhead per vCPU, then the predictions made again with it. */
static int replay_host_overhead_measure(struct hs_replay *r, const struct hs_workload_params *p,
					const struct hs_gap_seq *seqs, int64_t *poll,
					struct hs_workload_vm *vms, struct hs_error *err)
{
	struct hs_host_overhead *o = calloc(r->nvcpus, sizeof(*o));
	int ret;

	if (!o)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	ret = hs_host_overhead_measure(p, seqs, poll, vms, o, err);
	for (unsigned int v = 0; !ret && v < r->nvcpus; v++)
		r->vcpus[v].host = o[v];
	free(o);
	if (!ret)
		replay_predict(r);
	return ret;
}

/* Room for every CPU's times; without it (or /proc/stat) steal stays unknown. */
static void replay_steal_alloc(struct hs_replay *r)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int got;

	r->nsteal = 0;
	if (n <= 0 || n > 65536)
		return;
	free(r->cpu_before);
	free(r->steal_mask);
	r->cpu_before = calloc(2 * (size_t)n, sizeof(*r->cpu_before));
	r->steal_mask = calloc((size_t)n, sizeof(*r->steal_mask));
	if (!r->cpu_before || !r->steal_mask)
		return;
	r->cpu_after = r->cpu_before + n;
	/* /proc/stat lists the online CPUs: the highest of them bounds what is read */
	got = hs_sysinfo_cpu_times(r->cpu_before, (unsigned int)n);
	r->nsteal = got > 0 ? (unsigned int)got : 0;
}

int hs_replay_run(struct hs_replay *r, struct hs_error *err)
{
	size_t nsamp = (size_t)(r->nvcpus + 1) * r->opts.runs;
	struct hs_workload_params p;
	struct replay_samples sm;
	struct hs_gap_seq *seqs;
	struct hs_workload_vm *vms;
	int64_t *poll;
	int *cpus, ret;

	ret = hs_workload_check(err);
	if (ret)
		return ret;
	seqs = calloc(r->nvcpus, sizeof(*seqs));
	vms = calloc(r->nvcpus, sizeof(*vms));
	poll = calloc(r->nvcpus, sizeof(*poll));
	cpus = calloc(r->nvcpus, sizeof(*cpus));
	sm.hit = calloc(nsamp * 6, sizeof(double));
	sm.poll = sm.hit ? sm.hit + nsamp : NULL;
	sm.cpu = sm.hit ? sm.hit + 2 * nsamp : NULL;
	sm.handover = sm.hit ? sm.hit + 3 * nsamp : NULL;
	sm.steal = sm.hit ? sm.hit + 4 * nsamp : NULL;
	sm.stolen = sm.hit ? sm.hit + 5 * nsamp : NULL;
	sm.steal_read = false;
	sm.wall_ns = 0;
	replay_steal_alloc(r);
	sm.cpu_handovers = NULL;
	sm.ncpus = 0;
	r->handovers_counted = !r->opts.no_handovers;
	if (!seqs || !vms || !poll || !cpus || !sm.hit) {
		ret = hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	} else {
		replay_params(r, &p, seqs, poll, cpus);
		ret = replay_host_overhead_measure(r, &p, seqs, poll, vms, err);
		for (unsigned int s = 0; !ret && s < r->nsettings; s++)
			ret = replay_setting(r, s, &p, poll, &sm, vms, err);
		r->ran = !ret;
	}
	free(sm.hit);
	free(cpus);
	free(poll);
	free(vms);
	free(seqs);
	return ret;
}

void hs_replay_free(struct hs_replay *r)
{
	free(r->vcpus);
	free(r->cpu_handovers);
	free(r->cpu_before);
	free(r->steal_mask);
	free(r->cells);
	free(r->totals);
	r->vcpus = NULL;
	r->cpu_handovers = NULL;
	r->cpu_before = r->cpu_after = NULL;
	r->steal_mask = NULL;
	r->nsteal = 0;
	r->cells = r->totals = NULL;
}
