// SPDX-License-Identifier: GPL-2.0-only
/*
 * haltstat replay as text: a header saying what was replayed and how, then
 * one row per setting and vCPU (the "all" row first when there are several)
 * with the predicted figure next to the measured mean and its min..max
 * over the runs.
 */
#include <errno.h>
#include <stdio.h>

#include "../../lib/error.h"
#include "replay_out.h"

static void rt_header(FILE *out, const struct hs_replay *r, const char *src, const char *pre)
{
	fprintf(out, "%sreplay of %s: %u vCPU%s", pre, src, r->nvcpus, r->nvcpus == 1 ? "" : "s");
	if (r->vcpus_skipped)
		fprintf(out, " (%u more recorded vCPUs not replayed: one VM per CPU)",
			r->vcpus_skipped);
	fprintf(out, ", %u run%s per setting, %s\n", r->opts.runs, r->opts.runs == 1 ? "" : "s",
		r->pinned ? "pinned" : "not pinned");
	if (r->pinned)
		fprintf(out, "%swaker on CPU %d, vCPUs on other CPUs\n", pre, r->waker_cpu);
	fprintf(out, "%srecorded setting %llu ns (%s), kernel era %s\n", pre,
		(unsigned long long)r->recorded_ns,
		r->recorded_inferred ? "inferred from the trace" : "module parameter at record time",
		r->era);
	if (r->vcpus_capped)
		fprintf(out, "%scapped: %u vCPU%s had more halts than --max-halts; only the first "
			"ones are replayed and predicted\n", pre, r->vcpus_capped,
			r->vcpus_capped == 1 ? "" : "s");
	for (unsigned int v = 0; v < r->nvcpus; v++) {
		const struct hs_replay_vcpu *rv = &r->vcpus[v];

		fprintf(out, "%s  vCPU %u: %s tid %d, %llu of %llu halts, %.3f s of gaps, "
			"wake-up overhead %.1f us", pre, v, rv->comm[0] ? rv->comm : "?", rv->tid,
			(unsigned long long)rv->ngaps, (unsigned long long)rv->halts_recorded,
			rv->gaps_sum_ns / 1e9, rv->wake_overhead_ns / 1e3);
		if (rv->host.waits)
			fprintf(out, ", here %.1f us (%.1f-%.1f)",
				rv->host.ns[HS_OVERHEAD_Q / 2] / 1e3,
				rv->host.ns[HS_OVERHEAD_Q / 10] / 1e3,
				rv->host.ns[HS_OVERHEAD_Q * 9 / 10] / 1e3);
		if (rv->cpu >= 0)
			fprintf(out, ", CPU %d", rv->cpu);
		fputc('\n', out);
	}
}

static bool rt_overhead_here(const struct hs_replay *r)
{
	for (unsigned int v = 0; v < r->nvcpus; v++)
		if (r->vcpus[v].host.waits)
			return true;
	return false;
}

/* width 0: the last column, not padded */
static void rt_spread(FILE *out, const struct hs_replay_spread *s, double scale, int prec,
		      int width)
{
	char buf[96];

	snprintf(buf, sizeof(buf), "%.*f (%.*f..%.*f)", prec, s->mean * scale, prec,
		 s->min * scale, prec, s->max * scale);
	fprintf(out, "  %-*s", width, buf);
}

/* A share's mean over the runs in percent, ? when unknown. */
static void rt_share(FILE *out, bool known, const struct hs_replay_spread *s)
{
	if (known)
		fprintf(out, " %6.1f", 100 * s->mean);
	else
		fprintf(out, " %6s", "?");
}

static void rt_row(FILE *out, const struct hs_replay *r, unsigned int s, unsigned int v,
		   const char *pre)
{
	const struct hs_replay_figures *f = hs_replay_cell(r, s, v);
	char who[16];

	if (v < r->nvcpus)
		snprintf(who, sizeof(who), "%u", v);
	else
		snprintf(who, sizeof(who), "all");
	char iv[32];

	snprintf(iv, sizeof(iv), "%.1f-%.1f", 100 * f->pred_hit_rate_low,
		 100 * f->pred_hit_rate_high);
	fprintf(out, "%s%12llu  %-4s %9llu  %7.1f %11s", pre, (unsigned long long)r->settings[s],
		who, (unsigned long long)f->halts, 100 * f->pred_hit_rate, iv);
	if (r->ran && f->measured) {
		rt_spread(out, &f->hit_rate, 100, 1, 24);
		rt_share(out, f->handovers_known, &f->handover_share);
		rt_share(out, f->steal_known, &f->steal_share);
		fprintf(out, " %-6s", f->runs_inside == r->opts.runs ? "yes" : f->runs_inside ?
			"partly" : "no");
	} else if (r->ran) {
		fprintf(out, "  %-24s %6s %6s %-6s", "n/a", "", "", "");
	}
	fprintf(out, "  %9.4f", f->pred_poll_cpu_s);
	if (r->ran && f->measured)
		rt_spread(out, &f->poll_cpu_s, 1, 4, 24);
	else if (r->ran)
		fprintf(out, "  %-24s", "n/a");
	if (r->ran)
		rt_spread(out, &f->vcpu_cpu_s, 1, 4, 0);
	fputc('\n', out);
}

static void rt_table(FILE *out, const struct hs_replay *r, const char *pre)
{
	fprintf(out, "%s%12s  %-4s %9s  %7s %11s", pre, "halt_poll_ns", "vCPU", "halts", "hit% p",
		"(interval)");
	if (r->ran)
		fprintf(out, "  %-24s %6s %6s %-6s", "hit% measured (min..max)", "other%", "steal%",
			"inside");
	fprintf(out, "  %9s", "poll s p");
	if (r->ran)
		fprintf(out, "  %-24s  %s", "poll s measured", "vCPU thread CPU s");
	fputc('\n', out);
	for (unsigned int s = 0; s < r->nsettings; s++) {
		if (r->nvcpus > 1)
			rt_row(out, r, s, r->nvcpus, pre);
		for (unsigned int v = 0; v < r->nvcpus; v++)
			rt_row(out, r, s, v, pre);
	}
}

int hs_replay_write_text(FILE *out, const struct hs_replay *r, const char *source,
			 const char *prefix)
{
	const char *pre = prefix ? prefix : "";
	bool any_unmeasured = false;

	rt_header(out, r, source ? source : "-", pre);
	fprintf(out, "%s\n", pre);
	rt_table(out, r, pre);
	for (unsigned int s = 0; s < r->nsettings; s++)
		any_unmeasured |= !r->totals[s].measured;
	fprintf(out, "%s\n%sp: predicted by the what-if over the same times to wake; interval: "
		"replayed at the low and high end of the wake-up overhead and with perturbed times "
		"to wake, with the sampling spread.", pre, pre);
	if (rt_overhead_here(r))
		fprintf(out, " The wake-up overhead is this host's (\"here\": a wait's wake latency "
			"at window 0, over the first recorded gaps, less a poll hit's, measured "
			"before the runs), its range moved with it.");
	if (r->ran)
		fprintf(out, " Measured: KVM statistics (halt_successful_poll over the halts, "
			"halt_poll_success_ns + halt_poll_fail_ns), mean over %u runs; %.1f s in VMs. "
			"Other%%: halts in which the vCPU thread gave its CPU to another task "
			"(sched_switch, counted in a tracefs instance), at most the hits other tasks "
			"took away. Steal%%: of the vCPUs' CPUs' time, what the hypervisor above this "
			"machine ran instead (/proc/stat): it ends polls and delays wake-ups unseen, "
			"so measurements fall below the interval when it is more than a fraction of "
			"a percent. Inside: every run's hit rate within the interval, its low end "
			"lowered by that run's other%% (partly: some runs).",
			r->opts.runs, r->seconds);
	else
		fprintf(out, " Nothing was run (--predict-only).");
	fputc('\n', out);
	if (r->ran && r->settings_measured)
		fprintf(out, "%sinside the interval: %u of %u settings (all vCPUs together)\n", pre,
			r->settings_inside, r->settings_measured);
	if (r->ran && !r->handovers_counted)
		fprintf(out, "%s?: hand-overs not counted (%s): what other tasks took is unknown and "
			"inside is judged against the interval alone\n", pre,
			r->opts.no_handovers ? "--no-handovers" : r->handovers_why);
	if (r->ran && any_unmeasured)
		fprintf(out, "%sn/a: this kernel has no KVM binary statistics (KVM_GET_STATS_FD, "
			"Linux 5.14+)\n", pre);
	errno = 0;
	if (fflush(out) || ferror(out))
		return HS_ERR_OUTPUT;
	return 0;
}
