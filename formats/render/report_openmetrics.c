// SPDX-License-Identifier: GPL-2.0-only
/*
 * OpenMetrics 1.0 and Prometheus text (0.0.4) exposition of a report. Series
 * are per vCPU thread only: sums per VM or host are left to PromQL so that
 * nothing is counted twice by sum().
 */
#include <inttypes.h>
#include <string.h>

#include "../../lib/error.h"
#include "escape.h"
#include "output.h"

struct om {
	FILE *out;
	bool openmetrics;	/* counter families named without _total, # EOF */
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static void om_family(const struct om *om, const char *name, const char *type,
		      const char *unit, const char *help)
{
	int len = (int)strlen(name);

	/* OpenMetrics names a counter family without the _total its samples
	 * carry; the Prometheus text format names it after the sample. */
	if (om->openmetrics && !strcmp(type, "counter") && ends_with(name, "_total"))
		len -= 6;
	fprintf(om->out, "# HELP %.*s %s\n", len, name, help);
	fprintf(om->out, "# TYPE %.*s %s\n", len, name, type);
	if (om->openmetrics && unit)
		fprintf(om->out, "# UNIT %.*s %s\n", len, name, unit);
}

/* An exact decimal: ns are integers, so seconds need no floating point. */
static void om_put_seconds(FILE *out, uint64_t ns)
{
	char frac[16];
	int n;

	n = snprintf(frac, sizeof(frac), "%09" PRIu64, ns % 1000000000u);
	while (n > 0 && frac[n - 1] == '0')
		frac[--n] = '\0';
	fprintf(out, "%" PRIu64 "%s%s", ns / 1000000000u, n ? "." : "", frac);
}

/* " VALUE\n" of a sample held in ns, in seconds (base units, as Prometheus asks). */
static void om_put_sample_s(FILE *out, uint64_t ns)
{
	fputc(' ', out);
	om_put_seconds(out, ns);
	fputc('\n', out);
}

static void om_labels(FILE *out, const struct hs_report_vcpu *v, const char *le_open)
{
	long long vcpu = v->vcpu_index >= 0 ? v->vcpu_index :
			 v->vcpu_id >= 0 ? (long long)v->vcpu_id : v->tid;

	fputs("{vm=\"", out);
	hs_esc_om_label(out, v->vm[0] ? v->vm : v->comm,
			v->vm[0] ? sizeof(v->vm) : sizeof(v->comm));
	fprintf(out, "\",vcpu=\"%lld\",tid=\"%d\"%s", vcpu, v->tid, le_open ? le_open : "}");
}

typedef uint64_t (*om_u64_fn)(const struct hs_report_vcpu *v);

static void om_u64_family(const struct om *om, const struct hs_report *rep, const char *name,
			  const char *type, const char *help, om_u64_fn get)
{
	om_family(om, name, type, NULL, help);
	for (unsigned int i = 0; i < rep->nvcpus; i++) {
		fputs(name, om->out);
		om_labels(om->out, &rep->vcpus[i], NULL);
		fprintf(om->out, " %" PRIu64 "\n", get(&rep->vcpus[i]));
	}
}

static uint64_t get_halts(const struct hs_report_vcpu *v) { return v->stats.halts; }
static uint64_t get_hits(const struct hs_report_vcpu *v) { return v->stats.poll_hits; }
static uint64_t get_waits(const struct hs_report_vcpu *v) { return v->stats.waits; }
static uint64_t get_misses(const struct hs_report_vcpu *v) { return v->stats.poll_misses; }
static uint64_t get_invalid(const struct hs_report_vcpu *v) { return v->stats.invalid; }
static uint64_t get_grows(const struct hs_report_vcpu *v) { return v->stats.grows; }
static uint64_t get_shrinks(const struct hs_report_vcpu *v) { return v->stats.shrinks; }
static uint64_t get_cut(const struct hs_report_vcpu *v) { return v->stats.polls_cut; }

static uint64_t get_sched_halts(const struct hs_report_vcpu *v) { return v->stats.sched_halts; }
static uint64_t get_contended(const struct hs_report_vcpu *v) { return v->stats.contended_halts; }

/* Contention is known only for the vCPUs the sched events covered: no series for the others. */
static void om_contention(const struct om *om, const struct hs_report *rep)
{
	static const struct {
		const char *name, *help;
		om_u64_fn get;
	} fam[] = {
		{ "haltstat_sched_tracked_halts_total",
		  "Halts whose CPU's runqueue the sched events covered (haltstat record, unless --no-sched).",
		  get_sched_halts },
		{ "haltstat_contended_halts_total",
		  "Tracked halts during which another task was runnable on the vCPU's CPU.",
		  get_contended },
	};

	if (!rep->host.sched_halts)
		return;
	for (size_t f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
		om_family(om, fam[f].name, "counter", NULL, fam[f].help);
		for (unsigned int i = 0; i < rep->nvcpus; i++) {
			if (!rep->vcpus[i].stats.sched_halts)
				continue;
			fputs(fam[f].name, om->out);
			om_labels(om->out, &rep->vcpus[i], NULL);
			fprintf(om->out, " %" PRIu64 "\n", fam[f].get(&rep->vcpus[i]));
		}
	}
}

/* One bucket range for every series, so that sum by (le) lines up. */
static void om_bucket_range(const struct hs_report *rep, unsigned int *first, unsigned int *last)
{
	*first = HS_LOG2_BUCKETS;
	*last = 0;
	for (unsigned int i = 0; i < rep->nvcpus; i++) {
		const struct hs_log2_hist *h = &rep->vcpus[i].log2;

		for (unsigned int b = 0; b < HS_LOG2_BUCKETS; b++) {
			if (!h->poll[b] && !h->wait[b])
				continue;
			if (b < *first)
				*first = b;
			if (b > *last)
				*last = b;
		}
	}
	/* the last log2 bucket has no finite bound: +Inf covers it */
	if (*last >= HS_LOG2_BUCKETS - 1)
		*last = HS_LOG2_BUCKETS - 2;
}

static void om_histogram(const struct om *om, const struct hs_report *rep)
{
	const char *name = "haltstat_halt_duration_seconds";
	unsigned int first, last;

	om_family(om, name, "histogram", "seconds",
		  "Halt durations (poll plus wait); le=2^k ns counts halts shorter than 2^k ns.");
	om_bucket_range(rep, &first, &last);
	for (unsigned int i = 0; i < rep->nvcpus; i++) {
		const struct hs_report_vcpu *v = &rep->vcpus[i];
		uint64_t cum = 0;
		unsigned int b = 0;

		for (; b <= last && b < HS_LOG2_BUCKETS; b++) {
			cum += v->log2.poll[b] + v->log2.wait[b];
			if (b < first)
				continue;
			fprintf(om->out, "%s_bucket", name);
			om_labels(om->out, v, ",le=\"");
			om_put_seconds(om->out, hs_log2_hi(b));
			fprintf(om->out, "\"} %" PRIu64 "\n", cum);
		}
		for (; b < HS_LOG2_BUCKETS; b++)
			cum += v->log2.poll[b] + v->log2.wait[b];
		fprintf(om->out, "%s_bucket", name);
		om_labels(om->out, v, ",le=\"+Inf\"}");
		fprintf(om->out, " %" PRIu64 "\n%s_sum", cum, name);
		om_labels(om->out, v, NULL);
		fputc(' ', om->out);
		om_put_seconds(om->out, v->stats.sum_ns);
		fprintf(om->out, "\n%s_count", name);
		om_labels(om->out, v, NULL);
		fprintf(om->out, " %" PRIu64 "\n", cum);
	}
}

typedef uint64_t (*om_ns_fn)(const struct hs_report_vcpu *v);

static void om_seconds_family(const struct om *om, const struct hs_report *rep, const char *name,
			      const char *help, om_ns_fn get)
{
	om_family(om, name, "counter", "seconds", help);
	for (unsigned int i = 0; i < rep->nvcpus; i++) {
		fputs(name, om->out);
		om_labels(om->out, &rep->vcpus[i], NULL);
		om_put_sample_s(om->out, get(&rep->vcpus[i]));
	}
}

static uint64_t get_poll_ns(const struct hs_report_vcpu *v) { return v->stats.poll_ns; }
static uint64_t get_bounded_ns(const struct hs_report_vcpu *v) { return v->stats.poll_bounded_ns; }

static void om_poll_cpu(const struct om *om, const struct hs_report *rep)
{
	om_seconds_family(om, rep, "haltstat_poll_cpu_seconds_total",
			  "CPU time spent polling, as KVM's halt_poll_success_ns + halt_poll_fail_ns: a "
			  "hit's duration, a miss's window or the moment its poll ended when sooner; "
			  "never above the time watched.", get_poll_ns);
	om_seconds_family(om, rep, "haltstat_poll_cpu_bounded_seconds_total",
			  "Of haltstat_poll_cpu_seconds_total, what misses were charged without a sched "
			  "event to show where their poll ended (their window or their length): an "
			  "upper bound.", get_bounded_ns);
}

static void om_window(const struct om *om, const struct hs_report *rep)
{
	const char *name = "haltstat_window_seconds";

	om_family(om, name, "gauge", "seconds",
		  "Halt-polling window in force at the end of the trace (absent when unknown).");
	for (unsigned int i = 0; i < rep->nvcpus; i++) {
		if (rep->vcpus[i].stats.window_last_ns < 0)
			continue;
		fputs(name, om->out);
		om_labels(om->out, &rep->vcpus[i], NULL);
		om_put_sample_s(om->out, (uint64_t)rep->vcpus[i].stats.window_last_ns);
	}
}

static void om_suggestion(const struct om *om, const struct hs_report *rep)
{
	const char *name = "haltstat_suggested_halt_poll_seconds";

	om_family(om, name, "gauge", "seconds",
		  "Suggested halt_poll_ns, in seconds: host-wide without labels, per VM with vm "
		  "and tgid.");
	if (rep->advice.valid) {
		fputs(name, om->out);
		om_put_sample_s(om->out, rep->advice.halt_poll_ns);
	}
	for (unsigned int i = 0; i < rep->nvms; i++) {
		const struct hs_report_vm *vm = &rep->vms[i];

		if (!vm->advice.valid)
			continue;
		fprintf(om->out, "%s{vm=\"", name);
		hs_esc_om_label(om->out, vm->name[0] ? vm->name : vm->comm,
				vm->name[0] ? sizeof(vm->name) : sizeof(vm->comm));
		fprintf(om->out, "\",tgid=\"%d\"}", vm->tgid);
		om_put_sample_s(om->out, vm->advice.halt_poll_ns);
	}
}

static void om_global(const struct om *om, const struct hs_report *rep)
{
	om_family(om, "haltstat_lost_events_total", "counter", NULL,
		  "Trace events lost by the ring buffer (absent when the source cannot tell).");
	if (rep->meta.lost_known)
		fprintf(om->out, "haltstat_lost_events_total %" PRIu64 "\n", rep->meta.lost_events);
	om_family(om, "haltstat_halt_poll_seconds", "gauge", "seconds",
		  "The kvm module's halt_poll_ns at record time, in seconds (absent when unknown).");
	if (rep->meta.halt_poll_ns >= 0) {
		fputs("haltstat_halt_poll_seconds", om->out);
		om_put_sample_s(om->out, (uint64_t)rep->meta.halt_poll_ns);
	}
	om_family(om, "haltstat_trace_duration_seconds", "gauge", "seconds",
		  "Time span covered by the analysed trace.");
	fputs("haltstat_trace_duration_seconds", om->out);
	om_put_sample_s(om->out, rep->last_ts > rep->first_ts ? rep->last_ts - rep->first_ts : 0);
}

/* The per-vCPU counters, in the order they are written. */
static const struct {
	const char *name, *help;
	om_u64_fn get;
} om_counts[] = {
	{ "haltstat_halts_total", "Halts (kvm_vcpu_wakeup events) per vCPU thread.", get_halts },
	{ "haltstat_poll_hits_total", "Halts that ended while polling, without a scheduler wake-up.",
	  get_hits },
	{ "haltstat_waits_total", "Halts that scheduled the vCPU out.", get_waits },
	{ "haltstat_poll_misses_total",
	  "Waits that polled first (a window > 0 was in force) and were not woken in time.",
	  get_misses },
	{ "haltstat_polls_cut_total",
	  "Poll misses whose poll ended before their window: another task was runnable on the "
	  "vCPU's CPU (KVM's single_task_running()).", get_cut },
	{ "haltstat_invalid_halts_total", "Halts the kernel flagged invalid (valid=0).", get_invalid },
	{ "haltstat_window_grows_total", "Halt-polling window grow events.", get_grows },
	{ "haltstat_window_shrinks_total", "Halt-polling window shrink events.", get_shrinks },
};

static int om_write(FILE *out, const struct hs_report *rep, bool openmetrics)
{
	const struct om om = { .out = out, .openmetrics = openmetrics };

	for (size_t i = 0; i < sizeof(om_counts) / sizeof(om_counts[0]); i++)
		om_u64_family(&om, rep, om_counts[i].name, "counter", om_counts[i].help,
			      om_counts[i].get);
	om_contention(&om, rep);
	om_histogram(&om, rep);
	om_poll_cpu(&om, rep);
	om_window(&om, rep);
	om_suggestion(&om, rep);
	om_global(&om, rep);
	if (openmetrics)
		fputs("# EOF\n", out);
	if (fflush(out) || ferror(out))
		return HS_ERR_OUTPUT;
	return 0;
}

int hs_report_write_openmetrics(FILE *out, const struct hs_report *rep)
{
	return om_write(out, rep, true);
}

int hs_report_write_prometheus(FILE *out, const struct hs_report *rep)
{
	return om_write(out, rep, false);
}
