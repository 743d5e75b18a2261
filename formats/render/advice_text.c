// SPDX-License-Identifier: GPL-2.0-only
/*
 * Text rendering of the what-if table and the suggestion (rtla auto-analysis
 * style: the verdict first, then the reasons in words). Numbers come from
 * the report; this only lays them out.
 */
#include <stdio.h>
#include <string.h>

#include "../../lib/error.h"
#include "output.h"

#define ADV_BOLD  "\033[1m"
#define ADV_RESET "\033[0m"

static void adv_table(FILE *out, const struct hs_report *rep, const struct hs_text_opts *o)
{
	unsigned int nv = rep->active_vcpus;

	fprintf(out, "what-if: the adaptive window replayed per vCPU at each halt_poll_ns (%u vCPU%s, wake-up overhead %.1f us)\n",
		nv, nv == 1 ? "" : "s", rep->advice.wake_overhead_ns / 1e3);
	fprintf(out, "  %12s %10s %7s %13s %11s %15s %11s %10s %8s\n", "halt_poll_ns", "hits",
		"hit%", "(interval)", "poll CPU-s", "(interval)", "miss CPU-s", "CPU%/vCPU", "flaps/s");
	for (unsigned int i = 0; i < rep->n_host_what_if; i++) {
		const struct hs_whatif_row *r = &rep->host_what_if[i];
		bool pick = rep->advice.valid && r->halt_poll_ns == rep->advice.halt_poll_ns;

		char hit_iv[32], poll_iv[40];

		snprintf(hit_iv, sizeof(hit_iv), "%.1f-%.1f", 100 * r->hit_rate_low,
			 100 * r->hit_rate_high);
		snprintf(poll_iv, sizeof(poll_iv), "%.3f-%.3f", r->poll_cpu_s_low, r->poll_cpu_s_high);
		fprintf(out, "%s%c %12llu %10llu %7.1f %13s %11.3f %15s %11.3f %10.1f %8.1f%s\n",
			pick && o && o->color ? ADV_BOLD : "", pick ? '*' : ' ',
			(unsigned long long)r->halt_poll_ns, (unsigned long long)r->hits,
			100 * r->hit_rate, hit_iv, r->poll_cpu_s, poll_iv, r->miss_cpu_s,
			r->poll_cpu_pct_per_vcpu, r->flaps_per_s, pick && o && o->color ? ADV_RESET : "");
	}
}

/* The explanation, one indented line per sentence group. */
static void adv_lines(FILE *out, const char *text, const char *indent)
{
	const char *p = text, *nl;

	while (p && *p) {
		nl = strchr(p, '\n');
		fprintf(out, "%s%.*s\n", indent, nl ? (int)(nl - p) : (int)strlen(p), p);
		p = nl ? nl + 1 : NULL;
	}
}

static void adv_findings(FILE *out, const struct hs_advice *a, const char *indent)
{
	if (!a->nfindings)
		return;
	fprintf(out, "%sfindings:", indent);
	for (unsigned int i = 0; i < a->nfindings; i++)
		fprintf(out, "%s%s", i ? ", " : " ", a->findings[i]);
	fputc('\n', out);
}

static void adv_guest_table(FILE *out, const struct hs_report *rep, const struct hs_text_opts *o)
{
	const struct hs_advice *a = &rep->guest_advice;
	unsigned int n = rep->active_guest_cpus;

	fprintf(out, "guest what-if: the haltpoll governor replayed per CPU at each guest_halt_poll_ns (%u CPU%s, halt cost %.1f us)\n",
		n, n == 1 ? "" : "s", rep->guest_halt_extra_ns / 1e3);
	fprintf(out, "  %18s %10s %10s %7s %13s %11s %11s %9s\n", "guest_halt_poll_ns", "wakes",
		"hits", "hit%", "(interval)", "poll CPU-s", "miss CPU-s", "CPU%/CPU");
	for (unsigned int i = 0; i < rep->n_guest_what_if; i++) {
		const struct hs_guest_whatif_row *r = &rep->guest_what_if[i];
		bool pick = a->valid && r->guest_halt_poll_ns == a->halt_poll_ns;

		char range[32];

		snprintf(range, sizeof(range), "%.1f-%.1f", 100 * r->hit_rate_low,
			 100 * r->hit_rate_high);
		fprintf(out, "%s%c %18llu %10llu %10llu %7.1f %13s %11.3f %11.3f %9.1f%s\n",
			pick && o && o->color ? ADV_BOLD : "", pick ? '*' : ' ',
			(unsigned long long)r->guest_halt_poll_ns, (unsigned long long)r->wakes,
			(unsigned long long)r->hits, 100 * r->hit_rate, range, r->poll_cpu_s, r->miss_cpu_s,
			r->poll_cpu_pct_per_cpu, pick && o && o->color ? ADV_RESET : "");
	}
}

/* One layer's suggestion of param, its reasons and its findings. */
static void adv_suggestion(FILE *out, const struct hs_advice *a, const char *param, bool color)
{
	if (a->valid)
		fprintf(out, "%ssuggestion: %s=%llu%s (objective %s, confidence %s)\n",
			color ? ADV_BOLD : "", param, (unsigned long long)a->halt_poll_ns,
			color ? ADV_RESET : "", a->objective, a->confidence);
	else
		fprintf(out, "suggestion: none for %s (confidence %s)\n", param,
			a->confidence[0] ? a->confidence : "low");
	adv_lines(out, a->text, "  ");
	adv_findings(out, a, "  ");
}

/* The guest layer: this machine's own idle, apart from the VMs it runs. */
int hs_guest_advice_write_text(FILE *out, const struct hs_report *rep,
			       const struct hs_text_opts *o)
{
	const struct hs_advice *a = &rep->guest_advice;
	bool color = o && o->color;

	fprintf(out, "\nguest layer: guest_halt_poll_ns, this machine's own idle toward its hypervisor (power events)\n");
	if (rep->n_guest_what_if) {
		adv_guest_table(out, rep, o);
		fputc('\n', out);
	}
	adv_suggestion(out, a, "guest_halt_poll_ns", color);
	return ferror(out) ? HS_ERR_OUTPUT : HS_OK;
}

bool hs_advice_has_guest(const struct hs_report *rep)
{
	return rep->n_guest_what_if || rep->guest_advice.text || rep->guest_advice.nfindings;
}

int hs_advice_write_text(FILE *out, const struct hs_report *rep, const struct hs_text_opts *opts)
{
	const struct hs_advice *a = &rep->advice;
	bool color = opts && opts->color;

	if (hs_advice_has_guest(rep))
		fprintf(out, "host layer: halt_poll_ns, this machine's KVM polling for the VMs it runs (kvm events)\n");
	if (rep->n_host_what_if) {
		adv_table(out, rep, opts);
		fputc('\n', out);
	}
	adv_suggestion(out, a, "halt_poll_ns", color);
	for (unsigned int i = 0; i < rep->nvms; i++) {
		const struct hs_advice *v = &rep->vms[i].advice;

		if (!v->valid)
			continue;
		fprintf(out, "\nVM %s: halt_poll_ns=%llu (confidence %s)\n",
			rep->vms[i].name[0] ? rep->vms[i].name : rep->vms[i].comm,
			(unsigned long long)v->halt_poll_ns, v->confidence);
		adv_lines(out, v->text, "  ");
	}
	if (hs_advice_has_guest(rep))
		hs_guest_advice_write_text(out, rep, opts);
	if (fflush(out) || ferror(out))
		return HS_ERR_OUTPUT;
	return HS_OK;
}
