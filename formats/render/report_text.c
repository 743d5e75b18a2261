// SPDX-License-Identifier: GPL-2.0-only
/*
 * The human report: header, warnings, a per-VM / per-vCPU table and its
 * notes, the histograms (text_layout.c draws them, for Markdown too), the
 * guest side, the threads, then the advice. Everything shown comes from
 * struct hs_report; this file only lays it out.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/error.h"
#include "duration.h"
#include "output.h"
#include "text_layout.h"

struct text_ctx {
	FILE *out;
	const struct hs_report *rep;
	const struct hs_text_opts *opts;
};

static const char *col(const struct text_ctx *c, const char *code)
{
	return c->opts->color ? code : "";
}

/* ---- header ---- */

/* Only when recorded: most inputs cannot say, and a line per report saying so is noise. */
static void write_steal(const struct text_ctx *c)
{
	const struct hs_report *r = c->rep;

	if (r->steal_runnable_share < 0)
		return;
	fprintf(c->out, "steal: %.2f%% of the CPUs' time, %.2f%% of their "
		"runnable time", r->steal_share >= 0 ? 100 * r->steal_share : 0.0,
		100 * r->steal_runnable_share);
	if (r->steal_runnable_share > 0)
		fprintf(c->out, " (the what-if's low ends take that share of the hits off)");
	fputc('\n', c->out);
}

static void write_params(const struct text_ctx *c)
{
	const struct hs_meta *m = &c->rep->meta;
	char a[32], b[32], d[32], e[32];

	if (m->halt_poll_ns >= 0 || m->halt_poll_ns_grow >= 0 ||
	    m->halt_poll_ns_grow_start >= 0 || m->halt_poll_ns_shrink >= 0)
		fprintf(c->out, "host kvm: halt_poll_ns %s, grow %s, grow_start %s, shrink %s\n",
			hs_layout_param_fmt(a, sizeof(a), m->halt_poll_ns),
			hs_layout_param_fmt(b, sizeof(b), m->halt_poll_ns_grow),
			hs_layout_param_fmt(d, sizeof(d), m->halt_poll_ns_grow_start),
			hs_layout_param_fmt(e, sizeof(e), m->halt_poll_ns_shrink));
	else
		fprintf(c->out, "host kvm: halt_poll_ns unknown (not in the input)\n");
	if (m->guest_halt_poll_ns >= 0 || m->guest_halt_poll_grow >= 0 ||
	    m->guest_halt_poll_grow_start >= 0 || m->guest_halt_poll_shrink >= 0)
		fprintf(c->out, "guest haltpoll: guest_halt_poll_ns %s, grow %s, grow_start %s, "
			"shrink %s, allow_shrink %s\n",
			hs_layout_param_fmt(a, sizeof(a), m->guest_halt_poll_ns),
			hs_layout_param_fmt(b, sizeof(b), m->guest_halt_poll_grow),
			hs_layout_param_fmt(d, sizeof(d), m->guest_halt_poll_grow_start),
			hs_layout_param_fmt(e, sizeof(e), m->guest_halt_poll_shrink),
			m->guest_halt_poll_allow_shrink < 0 ? "?" :
			m->guest_halt_poll_allow_shrink ? "Y" : "N");
	if (m->cpuidle_driver[0] || m->cpuidle_governor[0])
		fprintf(c->out, "cpuidle: driver %s, governor %s\n",
			m->cpuidle_driver[0] ? m->cpuidle_driver : "?",
			m->cpuidle_governor[0] ? m->cpuidle_governor : "?");
}

static void write_header(const struct text_ctx *c)
{
	const struct hs_report *r = c->rep;
	const struct hs_meta *m = &r->meta;

	fprintf(c->out, "%shaltstat report%s: %s", col(c, HS_SGR_BOLD), col(c, HS_SGR_RESET),
		m->source[0] ? m->source : "?");
	if (m->format[0])
		fprintf(c->out, " (%s)", m->format);
	if (m->buffer_instance[0])
		fprintf(c->out, ", buffer %s", m->buffer_instance);
	fprintf(c->out, "\nkernel %s, clock %s", m->kernel_release[0] ? m->kernel_release : "unknown",
		m->clock[0] ? m->clock : "unknown");
	if (m->ncpus > 0)
		fprintf(c->out, ", %d CPUs", m->ncpus);
	fprintf(c->out, "\n");
	write_params(c);
	fprintf(c->out, "duration %.3f s", r->duration_s);
	if (m->record_seconds >= 0)
		fprintf(c->out, " (recorded for %.3f s)", m->record_seconds);
	fprintf(c->out, ", %" PRIu64 " events: kvm_vcpu_wakeup %" PRIu64
		", kvm_halt_poll_ns %" PRIu64 ", cpu_idle %" PRIu64
		", guest_halt_poll_ns %" PRIu64,
		r->events_total, r->events_wakeup, r->events_poll_ns,
		r->events_idle, r->events_guest_poll);
	if (r->events_sched_switch || r->events_sched_wakeup)
		fprintf(c->out, ", sched_switch %" PRIu64 ", sched_wakeup %" PRIu64,
			r->events_sched_switch, r->events_sched_wakeup);
	if (r->events_sched_waking)
		fprintf(c->out, ", sched_waking %" PRIu64, r->events_sched_waking);
	fputc('\n', c->out);
	if (!m->lost_known)
		fprintf(c->out, "lost events: unknown (the input does not say)\n");
	else if (m->lost_events || m->lost_unknown_places)
		fprintf(c->out, "lost events: %" PRIu64 " (%.2f%%)%s\n", m->lost_events,
			r->lost_pct >= 0 ? r->lost_pct : 0.0,
			m->lost_unknown_places ? ", plus losses of unknown size" : "");
	else
		fprintf(c->out, "lost events: 0\n");
	write_steal(c);
}

static void write_warnings(const struct text_ctx *c)
{
	const struct hs_report *r = c->rep;

	for (unsigned int i = 0; i < r->nwarnings; i++) {
		const char *w = r->warnings[i];
		const char *colour;

		/* without vCPUs it stands in for the table, below */
		if (!w || (w == r->kvm_note && !r->nvcpus))
			continue;
		/* Lost data makes numbers wrong; everything else is a caveat. */
		colour = strstr(w, "lost") || strstr(w, "LOST") ? HS_SGR_RED : HS_SGR_YELLOW;
		fprintf(c->out, "%swarning: %s%s\n", col(c, colour), w, col(c, HS_SGR_RESET));
	}
}

/* ---- the table ---- */

#define ROW_FMT "%-16.16s %5s %7s %-15.15s %9s %8s %6s %9s %8s %7s %8s %7s %7s %8s %8s %8s %9s %8s %8s %s\n"

static void write_table_head(const struct text_ctx *c)
{
	fprintf(c->out, "\n%s" ROW_FMT "%s", col(c, HS_SGR_BOLD),
		"VM", "vCPU", "tid", "comm", "halts", "halts/s", "hit%", "poll hits",
		"misses", "cut", "no-poll", "unknown", "invalid", "p50", "p99", "max",
		"poll CPU", "win last", "win mean", "grow/shrink/flap", col(c, HS_SGR_RESET));
}

static void write_row(const struct text_ctx *c, const char *vm, const char *vcpu,
		      const char *tid, const char *comm, const struct hs_halt_stats *s)
{
	char n[8][32], t[5][16], gsf[64], rate[16], hit[16];
	bool any = s->halts > 0;

	snprintf(n[0], 32, "%" PRIu64, s->halts);
	snprintf(n[1], 32, "%" PRIu64, s->poll_hits);
	snprintf(n[2], 32, "%" PRIu64, s->poll_misses);
	snprintf(n[3], 32, "%" PRIu64, s->nopoll_waits);
	snprintf(n[4], 32, "%" PRIu64, s->unknown_waits);
	snprintf(n[5], 32, "%" PRIu64, s->invalid);
	hs_duration_format(n[6], 32, (double)s->poll_ns);
	snprintf(n[7], 32, "%" PRIu64, s->polls_cut);
	snprintf(rate, sizeof(rate), "%.1f", isfinite(s->halts_per_s) ? s->halts_per_s : 0.0);
	snprintf(hit, sizeof(hit), "%.1f", isfinite(s->hit_rate) ? s->hit_rate * 100 : 0.0);
	snprintf(gsf, sizeof(gsf), "%" PRIu64 "/%" PRIu64 "/%" PRIu64,
		 s->grows, s->shrinks, s->flaps);
	hs_duration_format(t[0], 16, any ? (double)s->p50_ns : -1);
	hs_duration_format(t[1], 16, any ? (double)s->p99_ns : -1);
	hs_duration_format(t[2], 16, any ? (double)s->max_ns : -1);
	hs_layout_window_fmt(t[3], 16, (double)s->window_last_ns);
	hs_layout_window_fmt(t[4], 16, s->window_mean_ns);
	fprintf(c->out, ROW_FMT, vm, vcpu, tid, comm, n[0], rate, hit, n[1], n[2], n[7], n[3],
		n[4], n[5], t[0], t[1], t[2], n[6], t[3], t[4], gsf);
}

static void write_vcpu_row(const struct text_ctx *c, const struct hs_report_vcpu *v)
{
	char idx[16], tid[16], vm[128], comm[64];

	if (v->vcpu_index >= 0)
		snprintf(idx, sizeof(idx), "%d", v->vcpu_index);
	else
		snprintf(idx, sizeof(idx), "?");
	snprintf(tid, sizeof(tid), "%d", v->tid);
	write_row(c, v->vm[0] ? HS_LAYOUT_NAME(vm, v->vm) : "?", idx, tid,
		  HS_LAYOUT_NAME(comm, v->comm), &v->stats);
}

/* VMs busiest first, each with its vCPUs busiest first and its total. */
static void write_table(const struct text_ctx *c)
{
	const struct hs_report *r = c->rep;

	write_table_head(c);
	for (unsigned int j = 0; j < r->nvms; j++) {
		const struct hs_report_vm *vm = hs_layout_vm_at(r, j);
		unsigned int shown = 0;
		char name[128];

		for (unsigned int i = 0; i < r->nvcpus; i++) {
			const struct hs_report_vcpu *v = hs_layout_vcpu_at(r, i);

			if (!hs_report_vcpu_in_vm(v, vm))
				continue;
			write_vcpu_row(c, v);
			shown++;
		}
		if (shown > 1)
			write_row(c, hs_layout_vm_label_fmt(name, sizeof(name), vm), "all", "-",
				  "(VM total)", &vm->stats);
	}
	/* vCPUs the builder put in no VM are still shown. */
	for (unsigned int i = 0; i < r->nvcpus; i++) {
		const struct hs_report_vcpu *v = hs_layout_vcpu_at(r, i);

		if (!hs_layout_vcpu_in_any_vm(r, v))
			write_vcpu_row(c, v);
	}
	write_row(c, "ALL", "all", "-", "(host total)", &r->host);
}

/* ---- contention ---- */

/*
 * What "poll CPU" counts where the recording cannot tell it exactly, and
 * how many polls the halts' own lengths show cut short.
 */
static void write_poll_notes(const struct text_ctx *c)
{
	const struct hs_halt_stats *h = &c->rep->host;
	char all[32], bounded[32];

	if (h->poll_upper_bound)
		fprintf(c->out, "\npoll CPU: at most %s: misses whose poll no sched event shows "
			"ending are charged their window or their length (%s), which a poll that "
			"another task cut short did not use up\n",
			hs_duration_format(all, sizeof(all), (double)h->poll_ns),
			hs_duration_format(bounded, sizeof(bounded), (double)h->poll_bounded_ns));
	if (h->polls_cut)
		fprintf(c->out, "polls cut: %" PRIu64 " of %" PRIu64 " misses ended before their "
			"window: KVM stops polling once another task is runnable on the CPU\n",
			h->polls_cut, h->poll_misses);
}

static void write_contention_row(const struct text_ctx *c, const char *who,
				 const struct hs_halt_stats *s)
{
	fprintf(c->out, "  %-40s %8" PRIu64 " of %8" PRIu64 " halts  %5.1f%%", who,
		s->contended_halts, s->sched_halts, 100.0 * s->contended_share);
	if (s->contended_time_share >= 0)
		fprintf(c->out, "  %5.1f%% of halt time", 100.0 * s->contended_time_share);
	fputc('\n', c->out);
}

/* How often another task was runnable on a vCPU's CPU while it halted, or that it is unknown. */
static void write_contention(const struct text_ctx *c)
{
	const struct hs_report *r = c->rep;
	char who[160], name[64];

	if (!r->host.halts)
		return;
	write_poll_notes(c);
	if (!r->host.sched_halts || r->host.contended_share < 0) {
		fprintf(c->out, "\ncontention: unknown (no %s recorded; "
			"'haltstat record' records them unless given --no-sched)\n",
			hs_report_sched_missing(r));
		return;
	}
	fprintf(c->out, "\ncontention: halts during which another task was runnable on the "
		"vCPU's CPU (KVM stops polling then)\n");
	for (unsigned int i = 0; i < r->nvcpus; i++) {
		const struct hs_report_vcpu *v = hs_layout_vcpu_at(r, i);

		if (!v->stats.halts)
			continue;
		snprintf(who, sizeof(who), "%s vCPU %d (tid %d)", HS_LAYOUT_NAME(name, v->vm),
			 v->vcpu_index, v->tid);
		if (v->stats.sched_halts)
			write_contention_row(c, who, &v->stats);
		else
			fprintf(c->out, "  %-40s unknown (no sched events of its CPU)\n", who);
	}
	write_contention_row(c, "ALL (host total)", &r->host);
}

/* "name n, name n" of the non-zero counters, with _ read as spaces. */
static void write_counts(const struct text_ctx *c, const uint64_t *n, const char *const *names,
			 unsigned int count)
{
	bool first = true;

	for (unsigned int i = 0; i < count; i++) {
		if (!n[i])
			continue;
		fprintf(c->out, "%s", first ? "" : ", ");
		for (const char *p = names[i]; *p; p++)
			fputc(*p == '_' ? ' ' : *p, c->out);
		fprintf(c->out, " %" PRIu64, n[i]);
		first = false;
	}
}

/* Waits that came before their window was known, and what became of them. */
static void write_window_told(const struct text_ctx *c)
{
	const struct hs_halt_stats *h = &c->rep->host;
	uint64_t told = 0;

	for (unsigned int i = 0; i < HS_WSRC_COUNT; i++)
		told += h->inferred_waits[i];
	if (!told && !h->unknown_waits)
		return;
	fprintf(c->out, "\nwaits before the window was known: %" PRIu64 " told afterwards (", told);
	if (told)
		write_counts(c, h->inferred_waits, hs_window_source_names, HS_WSRC_COUNT);
	else
		fprintf(c->out, "none");
	fprintf(c->out, "), %" PRIu64 " still unknown", h->unknown_waits);
	if (h->unknown_waits) {
		fprintf(c->out, " (");
		write_counts(c, h->unknown_why, hs_unknown_reason_names, HS_UNK_COUNT);
		fprintf(c->out, ")");
	}
	fprintf(c->out, "\n");
}

/* The VMs whose maximum in force is not the module's, or was not recorded: the busiest few. */
#define TEXT_VM_MAX_LINES 3

static void write_vm_max(const struct text_ctx *c)
{
	const struct hs_report *r = c->rep;
	unsigned int shown = 0, more = 0;

	for (unsigned int j = 0; j < r->nvms; j++) {
		const struct hs_report_vm *vm = hs_layout_vm_at(r, j);
		const struct hs_max_in_force *m = &vm->max;
		char name[128], hi[48];

		if (m->source != HS_MAX_CONTRADICTED && m->source != HS_MAX_INFERRED)
			continue;
		if (shown == TEXT_VM_MAX_LINES) {
			more++;
			continue;
		}
		shown++;
		if (m->hi == UINT64_MAX)
			snprintf(hi, sizeof(hi), "at least %" PRIu64, m->lo);
		else if (m->hi == m->lo)
			snprintf(hi, sizeof(hi), "only that value");
		else
			snprintf(hi, sizeof(hi), "%" PRIu64 " to %" PRIu64, m->lo, m->hi);
		hs_layout_vm_label_fmt(name, sizeof(name), vm);
		if (m->max_ns == 0)
			fprintf(c->out, "VM %s: no polling in force (maximum 0, or host polling off for its vCPUs), inferred from its halts",
				name);
		else
			fprintf(c->out, "VM %s: maximum %" PRId64 " inferred from its window events (they allow %s)",
				name, m->max_ns, hi);
		if (m->source == HS_MAX_CONTRADICTED)
			fprintf(c->out, "; the module's halt_poll_ns is %" PRId64 ", so the VMM sets its own (KVM_CAP_HALT_POLL)%s\n",
				m->module_ns, m->max_ns == 0 ? " or the guest turned host polling off" : "");
		else
			fprintf(c->out, "; halt_poll_ns was not recorded\n");
	}
	if (more)
		fprintf(c->out, "and %u more VMs with a maximum of their own (JSON: max_in_force)\n", more);
}

/* ---- guest ---- */

static const char *idle_state_name(const struct hs_report *r, unsigned int s,
				   char *buf, size_t len)
{
	if (r->idle_state_name[s][0])
		return r->idle_state_name[s];
	snprintf(buf, len, "state %u", s);
	return buf;
}

static void write_guest_idle(const struct text_ctx *c)
{
	const struct hs_report *r = c->rep;
	char name[32], t[16];

	fprintf(c->out, "\n%sguest idle residency%s (cpuidle driver %s, governor %s)\n",
		col(c, HS_SGR_BOLD), col(c, HS_SGR_RESET),
		r->meta.cpuidle_driver[0] ? r->meta.cpuidle_driver : "unknown",
		r->meta.cpuidle_governor[0] ? r->meta.cpuidle_governor : "unknown");
	fprintf(c->out, "%5s  %-16s %10s %10s %7s\n", "CPU", "state", "entries", "residency",
		"share");
	for (unsigned int i = 0; i < r->nguest; i++) {
		const struct hs_report_guest_cpu *g = &r->guest[i];

		for (unsigned int s = 0; s < HS_IDLE_STATES; s++) {
			if (!g->entries[s] && !g->residency_ns[s])
				continue;
			fprintf(c->out, "%5d  %-16s %10" PRIu64 " %10s", g->cpu,
				idle_state_name(r, s, name, sizeof(name)), g->entries[s],
				hs_duration_format(t, sizeof(t), (double)g->residency_ns[s]));
			if (g->residency_pct[s] >= 0)
				fprintf(c->out, " %6.1f%%\n", g->residency_pct[s]);
			else
				fprintf(c->out, " %7s\n", "-");
		}
	}
}

static bool guest_polls(const struct hs_report *r)
{
	for (unsigned int i = 0; i < r->nguest; i++) {
		const struct hs_report_guest_cpu *g = &r->guest[i];

		if (g->poll_hits || g->poll_misses || g->grows || g->shrinks ||
		    g->window_last_ns >= 0)
			return true;
	}
	return false;
}

static void write_guest_poll(const struct text_ctx *c)
{
	const struct hs_report *r = c->rep;
	char last[16], mean[16], hit[16];

	if (!guest_polls(r))
		return;
	fprintf(c->out, "\n%sguest halt polling%s\n", col(c, HS_SGR_BOLD), col(c, HS_SGR_RESET));
	fprintf(c->out, "%5s %10s %10s %6s %9s %9s %7s %7s\n", "CPU", "poll hits", "misses",
		"hit%", "win last", "win mean", "grows", "shrinks");
	for (unsigned int i = 0; i < r->nguest; i++) {
		const struct hs_report_guest_cpu *g = &r->guest[i];
		uint64_t n = g->poll_hits + g->poll_misses;

		if (n)
			snprintf(hit, sizeof(hit), "%.1f", (double)g->poll_hits * 100 / n);
		else
			snprintf(hit, sizeof(hit), "-");
		fprintf(c->out, "%5d %10" PRIu64 " %10" PRIu64 " %6s %9s %9s %7" PRIu64
			" %7" PRIu64 "\n", g->cpu, g->poll_hits, g->poll_misses, hit,
			hs_layout_window_fmt(last, sizeof(last), (double)g->window_last_ns),
			hs_layout_window_fmt(mean, sizeof(mean), g->window_mean_ns), g->grows, g->shrinks);
	}
}

/* report --threads: who is who, vCPU threads marked. */
static void write_threads(const struct text_ctx *c)
{
	const struct hs_report *r = c->rep;
	char tgid[16], index[16];

	fprintf(c->out, "\n%sthreads of the recording%s (%u)\n", col(c, HS_SGR_BOLD), col(c, HS_SGR_RESET),
		r->nthreads);
	fprintf(c->out, "%8s %8s %-16s %-20s %5s %s\n", "tid", "tgid", "comm", "VM", "vCPU",
		"kvm events");
	for (unsigned int i = 0; i < r->nthreads; i++) {
		const struct hs_report_thread *t = &r->threads[i];

		snprintf(tgid, sizeof(tgid), t->tgid < 0 ? "?" : "%d", t->tgid);
		snprintf(index, sizeof(index), t->vcpu_index < 0 ? "-" : "%d", t->vcpu_index);
		fprintf(c->out, "%8d %8s %-16s %-20s %5s %s\n", t->tid, tgid, t->comm, t->vm, index,
			t->vcpu ? "yes" : "no");
	}
}

int hs_report_write_text(FILE *out, const struct hs_report *rep, const struct hs_text_opts *opts)
{
	struct text_ctx c = { .out = out, .rep = rep, .opts = opts };

	write_header(&c);
	write_warnings(&c);
	if (rep->nvcpus) {
		write_table(&c);
		write_window_told(&c);
		write_vm_max(&c);
		write_contention(&c);
		if (opts->show_histograms)
			hs_layout_hists_write(out, rep, opts, HS_LAYOUT_HISTS_ALL);
	} else if (rep->kvm_note) {
		fprintf(out, "\n%s%s%s\n", col(&c, HS_SGR_YELLOW), rep->kvm_note, col(&c, HS_SGR_RESET));
	} else {
		fprintf(out, "\nno vCPU thread to show\n");
	}
	if (rep->nguest) {
		write_guest_idle(&c);
		write_guest_poll(&c);
	}
	if (rep->threads)
		write_threads(&c);
	if (opts->show_advice && rep->advice.valid) {
		fputc('\n', out);
		if (hs_advice_write_text(out, rep, opts))
			return HS_ERR_OUTPUT;
	} else if (opts->show_advice && hs_advice_has_guest(rep)) {
		/* no halts of VMs to advise on: the guest layer alone */
		if (hs_guest_advice_write_text(out, rep, opts))
			return HS_ERR_OUTPUT;
	}
	if (fflush(out) || ferror(out))
		return HS_ERR_OUTPUT;
	return HS_OK;
}
