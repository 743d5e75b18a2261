// SPDX-License-Identifier: GPL-2.0-only
/*
 * The human report: header, warnings, a per-VM / per-vCPU table, log2 or
 * linear histograms in the rtla/bcc style, the guest side, then the advice.
 * Everything shown comes from struct hs_report; this file only lays it out.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/error.h"
#include "duration.h"
#include "output.h"
#include "report_text.h"

#define C_RED		"\033[31m"
#define C_YELLOW	"\033[33m"
#define C_GREEN		"\033[32m"
#define C_BLUE		"\033[34m"
#define C_BOLD		"\033[1m"
#define C_RESET		"\033[0m"

#define BAR_WIDTH	40
/* Past this many VMs their histograms share one table, a row per VM. */
#define VM_BAR_HISTS	4

struct text_ctx {
	FILE *out;
	const struct hs_report *rep;
	const struct hs_text_opts *opts;
};

static const char *col(const struct text_ctx *c, const char *code)
{
	return c->opts->color ? code : "";
}

static const char *fmt_window(char *buf, size_t len, double ns)
{
	if (ns < 0) {
		snprintf(buf, len, "?");
		return buf;
	}
	if (ns == 0) {
		snprintf(buf, len, "0");
		return buf;
	}
	return hs_duration_format(buf, len, ns);
}

static const char *fmt_param(char *buf, size_t len, int64_t v)
{
	if (v < 0)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%" PRId64, v);
	return buf;
}

/*
 * Thread and VM names come from the trace: bounded copy, and no control
 * bytes that could drive the terminal.
 */
static const char *safe_name(char *dst, size_t len, const char *src, size_t max)
{
	size_t n = strnlen(src, max), k;

	if (n >= len)
		n = len - 1;
	for (k = 0; k < n; k++) {
		unsigned char ch = (unsigned char)src[k];

		dst[k] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
	}
	dst[k] = '\0';
	return dst;
}

#define SAFE(buf, field) safe_name(buf, sizeof(buf), field, sizeof(field))

/* ---- header ---- */

static void write_params(const struct text_ctx *c)
{
	const struct hs_meta *m = &c->rep->meta;
	char a[32], b[32], d[32], e[32];

	if (m->halt_poll_ns >= 0 || m->halt_poll_ns_grow >= 0 ||
	    m->halt_poll_ns_grow_start >= 0 || m->halt_poll_ns_shrink >= 0)
		fprintf(c->out, "host kvm: halt_poll_ns %s, grow %s, grow_start %s, shrink %s\n",
			fmt_param(a, sizeof(a), m->halt_poll_ns),
			fmt_param(b, sizeof(b), m->halt_poll_ns_grow),
			fmt_param(d, sizeof(d), m->halt_poll_ns_grow_start),
			fmt_param(e, sizeof(e), m->halt_poll_ns_shrink));
	else
		fprintf(c->out, "host kvm: halt_poll_ns unknown (not in the input)\n");
	if (m->guest_halt_poll_ns >= 0 || m->guest_halt_poll_grow >= 0 ||
	    m->guest_halt_poll_grow_start >= 0 || m->guest_halt_poll_shrink >= 0)
		fprintf(c->out, "guest haltpoll: guest_halt_poll_ns %s, grow %s, grow_start %s, "
			"shrink %s, allow_shrink %s\n",
			fmt_param(a, sizeof(a), m->guest_halt_poll_ns),
			fmt_param(b, sizeof(b), m->guest_halt_poll_grow),
			fmt_param(d, sizeof(d), m->guest_halt_poll_grow_start),
			fmt_param(e, sizeof(e), m->guest_halt_poll_shrink),
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

	fprintf(c->out, "%shaltstat report%s: %s", col(c, C_BOLD), col(c, C_RESET),
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
		colour = strstr(w, "lost") || strstr(w, "LOST") ? C_RED : C_YELLOW;
		fprintf(c->out, "%swarning: %s%s\n", col(c, colour), w, col(c, C_RESET));
	}
}

/* ---- the table ---- */

#define ROW_FMT "%-16.16s %5s %7s %-15.15s %9s %8s %6s %9s %8s %7s %8s %7s %7s %8s %8s %8s %9s %8s %8s %s\n"

static void write_table_head(const struct text_ctx *c)
{
	fprintf(c->out, "\n%s" ROW_FMT "%s", col(c, C_BOLD),
		"VM", "vCPU", "tid", "comm", "halts", "halts/s", "hit%", "poll hits",
		"misses", "cut", "no-poll", "unknown", "invalid", "p50", "p99", "max",
		"poll CPU", "win last", "win mean", "grow/shrink/flap", col(c, C_RESET));
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
	fmt_window(t[3], 16, (double)s->window_last_ns);
	fmt_window(t[4], 16, s->window_mean_ns);
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
	write_row(c, v->vm[0] ? SAFE(vm, v->vm) : "?", idx, tid, SAFE(comm, v->comm), &v->stats);
}

static bool vcpu_has_vm(const struct hs_report *r, const struct hs_report_vcpu *v)
{
	for (unsigned int j = 0; j < r->nvms; j++)
		if (hs_report_vcpu_in_vm(v, &r->vms[j]))
			return true;
	return false;
}

/* The k-th VM or vCPU to show: the model's order, busiest first, when it has one. */
static const struct hs_report_vm *vm_at(const struct hs_report *r, unsigned int k)
{
	return &r->vms[r->vm_order ? r->vm_order[k] : k];
}

static const struct hs_report_vcpu *vcpu_at(const struct hs_report *r, unsigned int k)
{
	return &r->vcpus[r->vcpu_order ? r->vcpu_order[k] : k];
}

static const char *vm_label(char *buf, size_t len, const struct hs_report_vm *vm)
{
	return vm->name[0] ? safe_name(buf, len, vm->name, sizeof(vm->name)) :
			     safe_name(buf, len, vm->comm, sizeof(vm->comm));
}

/* VMs busiest first, each with its vCPUs busiest first and its total. */
static void write_table(const struct text_ctx *c)
{
	const struct hs_report *r = c->rep;

	write_table_head(c);
	for (unsigned int j = 0; j < r->nvms; j++) {
		const struct hs_report_vm *vm = vm_at(r, j);
		unsigned int shown = 0;
		char name[128];

		for (unsigned int i = 0; i < r->nvcpus; i++) {
			if (!hs_report_vcpu_in_vm(vcpu_at(r, i), vm))
				continue;
			write_vcpu_row(c, vcpu_at(r, i));
			shown++;
		}
		if (shown > 1)
			write_row(c, vm_label(name, sizeof(name), vm), "all", "-", "(VM total)",
				  &vm->stats);
	}
	/* vCPUs the builder put in no VM are still shown. */
	for (unsigned int i = 0; i < r->nvcpus; i++)
		if (!vcpu_has_vm(r, vcpu_at(r, i)))
			write_vcpu_row(c, vcpu_at(r, i));
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
		const struct hs_report_vcpu *v = vcpu_at(r, i);

		if (!v->stats.halts)
			continue;
		snprintf(who, sizeof(who), "%s vCPU %d (tid %d)",
			 safe_name(name, sizeof(name), v->vm, sizeof(v->vm)), v->vcpu_index, v->tid);
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
		const struct hs_report_vm *vm = vm_at(r, j);
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
		vm_label(name, sizeof(name), vm);
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

/* ---- histograms ---- */

struct hist_view {
	const uint64_t *poll, *wait;
	unsigned int n;			/* buckets */
	bool linear;
	uint64_t bucket_ns;		/* linear only; the last bucket is the overflow */
};

static uint64_t log2_lo(unsigned int i)
{
	return i == 0 ? 0 : (uint64_t)1 << (i - 1);
}

static void range_label(char *buf, size_t len, const struct hist_view *h, unsigned int i)
{
	char lo[16], hi[16];
	double l, u;

	if (h->linear) {
		l = (double)h->bucket_ns * i;
		if (i == h->n - 1) {
			snprintf(buf, len, "over: >= %s", hs_duration_format(lo, sizeof(lo), l));
			return;
		}
		u = l + (double)h->bucket_ns;
	} else {
		l = (double)log2_lo(i);
		u = i + 1 < HS_LOG2_BUCKETS ? (double)log2_lo(i + 1) : 18446744073709551616.0;
	}
	hs_duration_format(lo, sizeof(lo), l);
	if (l == 0)
		snprintf(lo, sizeof(lo), "0");
	snprintf(buf, len, "%s -> %s", lo, hs_duration_format(hi, sizeof(hi), u));
}

static void write_bar(const struct text_ctx *c, uint64_t poll, uint64_t wait, uint64_t top)
{
	unsigned int np = 0, nw = 0;

	if (top) {
		unsigned int total = (unsigned int)((long double)(poll + wait) * BAR_WIDTH / top);

		np = (unsigned int)((long double)poll * BAR_WIDTH / top);
		nw = total > np ? total - np : 0;
	}
	/* Anything non-zero shows at least one mark of its kind. */
	if (poll && !np)
		np = 1;
	if (wait && !nw)
		nw = 1;
	if (np + nw > BAR_WIDTH)
		nw = BAR_WIDTH - np;
	fputc('|', c->out);
	fprintf(c->out, "%s", col(c, C_GREEN));
	for (unsigned int k = 0; k < np; k++)
		fputc('#', c->out);
	fprintf(c->out, "%s%s", col(c, C_RESET), col(c, C_BLUE));
	for (unsigned int k = 0; k < nw; k++)
		fputc('*', c->out);
	fprintf(c->out, "%s", col(c, C_RESET));
	for (unsigned int k = np + nw; k < BAR_WIDTH; k++)
		fputc(' ', c->out);
	fputs("|\n", c->out);
}

static void write_hist_footer(const struct text_ctx *c, const struct hs_halt_stats *s)
{
	char a[16], b[16], d[16];
	bool any = s->halts > 0;

	fprintf(c->out, "%-24s   %10" PRIu64 " %10" PRIu64 "  all %" PRIu64 "\n",
		"count:", s->poll_hits, s->waits, s->halts);
	fprintf(c->out, "%-24s   %10s %10s  all %s\n", "min:", "-", "-",
		hs_duration_format(a, sizeof(a), any ? (double)s->min_ns : -1));
	fprintf(c->out, "%-24s   %10s %10s  all %s\n", "avg:", "-", "-",
		hs_duration_format(b, sizeof(b), any ? s->mean_ns : -1));
	fprintf(c->out, "%-24s   %10s %10s  all %s\n", "max:", "-", "-",
		hs_duration_format(d, sizeof(d), any ? (double)s->max_ns : -1));
}

/* The length of the run of empty rows from i that is folded into one, 0 for none. */
static unsigned int empty_run(const struct text_ctx *c, const struct hist_view *h,
			      unsigned int i, unsigned int last)
{
	unsigned int n = 0;

	if (!c->opts->fold_empty_buckets || h->linear)
		return 0;
	while (i + n < last && !h->poll[i + n] && !h->wait[i + n])
		n++;
	return n >= 3 ? n : 0;
}

static void write_empty_run(const struct text_ctx *c, unsigned int i, unsigned int run)
{
	char lo[16], hi[16], label[40], note[32];

	hs_duration_format(lo, sizeof(lo), (double)log2_lo(i));
	snprintf(label, sizeof(label), "%s -> %s", i ? lo : "0",
		 hs_duration_format(hi, sizeof(hi), (double)log2_lo(i + run)));
	/* the note stays inside the bar's frame: the columns before it hold only counts */
	snprintf(note, sizeof(note), " (%u empty buckets)", run);
	fprintf(c->out, "%24s : %10d %10d  |%-*s|\n", label, 0, 0, BAR_WIDTH, note);
}

static void write_hist(const struct text_ctx *c, const char *title,
		       const struct hist_view *h, const struct hs_halt_stats *s)
{
	unsigned int first = h->n, last = 0;
	uint64_t top = 0;
	char label[64];

	for (unsigned int i = 0; i < h->n; i++) {
		uint64_t t = h->poll[i] + h->wait[i];

		if (!t)
			continue;
		if (first == h->n)
			first = i;
		last = i;
		if (t > top)
			top = t;
	}
	fprintf(c->out, "\n%s%s%s\n", col(c, C_BOLD), title, col(c, C_RESET));
	fprintf(c->out, "%24s : %10s %10s  distribution (# poll, * wait)\n",
		h->linear ? "ns range (linear)" : "ns range (log2)", "poll", "wait");
	if (first == h->n) {
		fprintf(c->out, "%24s : %10s %10s\n", "(no halts)", "0", "0");
	} else {
		/* Linear tables always show the overflow row, like rtla's "over:". */
		if (h->linear)
			last = h->n - 1;
		for (unsigned int i = first; i <= last; i++) {
			unsigned int run = empty_run(c, h, i, last);

			if (run) {
				write_empty_run(c, i, run);
				i += run - 1;
				continue;
			}
			range_label(label, sizeof(label), h, i);
			fprintf(c->out, "%24s : %10" PRIu64 " %10" PRIu64 "  ", label,
				h->poll[i], h->wait[i]);
			write_bar(c, h->poll[i], h->wait[i], top);
		}
	}
	write_hist_footer(c, s);
}

static void log2_view(struct hist_view *h, const struct hs_log2_hist *l)
{
	h->poll = l->poll;
	h->wait = l->wait;
	h->n = HS_LOG2_BUCKETS;
	h->linear = false;
	h->bucket_ns = 0;
}

static void linear_view(struct hist_view *h, const struct hs_linear_hist *l)
{
	h->poll = l->poll;
	h->wait = l->wait;
	h->n = l->entries + 1;
	h->linear = true;
	h->bucket_ns = l->bucket_ns;
}

static void write_vcpu_hist(const struct text_ctx *c, const struct hs_report_vcpu *v)
{
	struct hist_view h;
	char title[320], vm[128], comm[64];

	if (c->opts->linear && v->linear.entries && v->linear.poll && v->linear.wait)
		linear_view(&h, &v->linear);
	else
		log2_view(&h, &v->log2);
	if (v->vcpu_index >= 0)
		snprintf(title, sizeof(title), "vCPU %d of %s (tid %d, %s): halt duration",
			 v->vcpu_index, v->vm[0] ? SAFE(vm, v->vm) : "?", v->tid,
			 SAFE(comm, v->comm));
	else
		snprintf(title, sizeof(title), "thread %d (%s) of %s: halt duration",
			 v->tid, SAFE(comm, v->comm), v->vm[0] ? SAFE(vm, v->vm) : "?");
	write_hist(c, title, &h, &v->stats);
}

/* In the table's order: by VM, busiest first. */
static void write_vcpu_hists(const struct text_ctx *c)
{
	const struct hs_report *r = c->rep;

	for (unsigned int j = 0; j < r->nvms; j++)
		for (unsigned int i = 0; i < r->nvcpus; i++)
			if (hs_report_vcpu_in_vm(vcpu_at(r, i), vm_at(r, j)))
				write_vcpu_hist(c, vcpu_at(r, i));
	for (unsigned int i = 0; i < r->nvcpus; i++)
		if (!vcpu_has_vm(r, vcpu_at(r, i)))
			write_vcpu_hist(c, vcpu_at(r, i));
}

static void write_vm_hists(const struct text_ctx *c)
{
	const struct hs_report *r = c->rep;
	struct hist_view h;
	char title[320], name[128];

	for (unsigned int j = 0; j < r->nvms; j++) {
		const struct hs_report_vm *vm = vm_at(r, j);

		if (c->opts->linear && vm->linear.entries && vm->linear.poll && vm->linear.wait)
			linear_view(&h, &vm->linear);
		else
			log2_view(&h, &vm->log2);
		snprintf(title, sizeof(title), "VM %s (pid %d, %u vCPU%s): halt duration",
			 vm_label(name, sizeof(name), vm), vm->tgid, vm->nvcpus,
			 vm->nvcpus == 1 ? "" : "s");
		write_hist(c, title, &h, &vm->stats);
	}
}

/* The log2 buckets any VM has a halt in. */
static bool vm_buckets(const struct hs_report *r, unsigned int *first, unsigned int *last)
{
	*first = HS_LOG2_BUCKETS;
	*last = 0;
	for (unsigned int j = 0; j < r->nvms; j++)
		for (unsigned int b = 0; b < HS_LOG2_BUCKETS; b++)
			if (r->vms[j].log2.poll[b] || r->vms[j].log2.wait[b]) {
				if (b < *first)
					*first = b;
				if (b > *last)
					*last = b;
			}
	return *first < HS_LOG2_BUCKETS;
}

static int count_width(const struct hs_report *r, unsigned int first, unsigned int last)
{
	uint64_t top = 0;
	char buf[32];
	int w;

	for (unsigned int j = 0; j < r->nvms; j++) {
		if (r->vms[j].stats.halts > top)
			top = r->vms[j].stats.halts;
		for (unsigned int b = first; b <= last; b++) {
			if (r->vms[j].log2.poll[b] > top)
				top = r->vms[j].log2.poll[b];
			if (r->vms[j].log2.wait[b] > top)
				top = r->vms[j].log2.wait[b];
		}
	}
	w = snprintf(buf, sizeof(buf), "%" PRIu64, top);
	return w < 6 ? 6 : w;
}

static void write_vm_table_row(const struct text_ctx *c, const char *vm, const char *nv,
			       const char *what, const uint64_t *h, unsigned int first,
			       unsigned int last, uint64_t all, int w)
{
	fprintf(c->out, "%-16.16s %5s %-4s", vm, nv, what);
	for (unsigned int b = first; b <= last; b++)
		fprintf(c->out, " %*" PRIu64, w, h[b]);
	fprintf(c->out, " %*" PRIu64 "\n", w, all);
}

/*
 * Many VMs: one table, a VM a pair of rows (poll hits, waits) and a log2
 * bucket a column, the way rtla keeps many CPUs in one histogram.
 */
static void write_vm_table(const struct text_ctx *c)
{
	const struct hs_report *r = c->rep;
	unsigned int first, last;
	char name[128], nv[16], lo[16];
	int w;

	if (!vm_buckets(r, &first, &last))
		return;
	w = count_width(r, first, last);
	fprintf(c->out, "\n%shalt duration per VM%s: halts per log2 bucket (its lower bound), "
		"poll hits and waits\n%s%-16s %5s %-4s", col(c, C_BOLD), col(c, C_RESET),
		col(c, C_BOLD), "VM", "vCPUs", "");
	for (unsigned int b = first; b <= last; b++) {
		if (b == 0)
			snprintf(lo, sizeof(lo), "0");
		else
			hs_duration_format(lo, sizeof(lo), (double)log2_lo(b));
		fprintf(c->out, " %*s", w, lo);
	}
	fprintf(c->out, " %*s%s\n", w, "total", col(c, C_RESET));
	for (unsigned int j = 0; j < r->nvms; j++) {
		const struct hs_report_vm *vm = vm_at(r, j);

		snprintf(nv, sizeof(nv), "%u", vm->nvcpus);
		write_vm_table_row(c, vm_label(name, sizeof(name), vm), nv, "poll", vm->log2.poll,
				   first, last, vm->stats.poll_hits, w);
		write_vm_table_row(c, "", "", "wait", vm->log2.wait, first, last, vm->stats.waits, w);
	}
}

static void write_host_hist(const struct text_ctx *c)
{
	struct hist_view h;

	log2_view(&h, &c->rep->host_log2);
	write_hist(c, "ALL: every vCPU of the host: halt duration", &h, &c->rep->host);
}

/*
 * Per vCPU on request (or when a filter picked a few); else per VM, as bars
 * for a few VMs and as one table for many, after the host's own.
 */
static void write_hists(const struct text_ctx *c, bool with_host)
{
	const struct hs_report *r = c->rep;

	if (c->opts->per_vcpu_histograms) {
		write_vcpu_hists(c);
		if (with_host && r->nvcpus > 1 && !c->opts->linear)
			write_host_hist(c);
	} else if (c->opts->linear || r->nvms <= VM_BAR_HISTS) {
		write_vm_hists(c);
		if (with_host && r->nvms > 1 && !c->opts->linear)
			write_host_hist(c);
	} else {
		if (with_host)
			write_host_hist(c);
		write_vm_table(c);
	}
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
		col(c, C_BOLD), col(c, C_RESET),
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
	fprintf(c->out, "\n%sguest halt polling%s\n", col(c, C_BOLD), col(c, C_RESET));
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
			fmt_window(last, sizeof(last), (double)g->window_last_ns),
			fmt_window(mean, sizeof(mean), g->window_mean_ns), g->grows, g->shrinks);
	}
}

/* report --threads: who is who, vCPU threads marked. */
static void write_threads(const struct text_ctx *c)
{
	const struct hs_report *r = c->rep;
	char tgid[16], index[16];

	fprintf(c->out, "\n%sthreads of the recording%s (%u)\n", col(c, C_BOLD), col(c, C_RESET),
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

const char *hs_text_fmt_param(char *buf, size_t len, int64_t v)
{
	return fmt_param(buf, len, v);
}

const char *hs_text_fmt_window(char *buf, size_t len, double ns)
{
	return fmt_window(buf, len, ns);
}

int hs_report_write_text_hists(FILE *out, const struct hs_report *rep,
			       const struct hs_text_opts *opts, bool with_host)
{
	struct text_ctx c = { .out = out, .rep = rep, .opts = opts };

	if (rep->nvcpus)
		write_hists(&c, with_host);
	return ferror(out) ? HS_ERR_OUTPUT : HS_OK;
}

int hs_report_write_text_host_hist(FILE *out, const struct hs_report *rep,
				   const struct hs_text_opts *opts)
{
	struct text_ctx c = { .out = out, .rep = rep, .opts = opts };

	write_host_hist(&c);
	return ferror(out) ? HS_ERR_OUTPUT : HS_OK;
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
			write_hists(&c, true);
	} else if (rep->kvm_note) {
		fprintf(out, "\n%s%s%s\n", col(&c, C_YELLOW), rep->kvm_note, col(&c, C_RESET));
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
