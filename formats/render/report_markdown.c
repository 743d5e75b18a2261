// SPDX-License-Identifier: GPL-2.0-only
/*
 * Markdown for a bug report: what pastes well into a GitHub or GitLab issue
 * (CommonMark with GitHub's tables). The recording's facts and the vCPU
 * table as tables, the histograms in a code block as the text report has
 * them (text_layout.c lays them out for both), the suggestion in words,
 * the what-if rows folded away, and the command that made it. Every name
 * from the trace is escaped; everything shown comes from struct hs_report.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/error.h"
#include "duration.h"
#include "escape.h"
#include "output.h"
#include "text_layout.h"

/* vCPU rows of the table at most: past that, a comment gets long. */
#define MD_MAX_ROWS	16

static bool md_alnum(uint32_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * Untrusted text inside a line (a list item, a table cell): what Markdown,
 * GitHub's extensions or HTML would read as syntax gets a backslash
 * (CommonMark escapes any ASCII punctuation), control characters become
 * spaces. What only means something at the start of a line (#, -, +, 1.)
 * is left alone: this text never starts one.
 */
static void md_esc(FILE *out, const char *s, size_t max)
{
	size_t n = strnlen(s, max), i = 0;
	uint32_t cp, prev = 0;

	for (; i < n; prev = cp) {
		i += hs_utf8_next(s + i, n - i, &cp);
		if (cp < 0x20 || cp == 0x7f)
			fputc(' ', out);
		else if (cp < 0x80 && strchr("\\`*[]<>|~&$", (int)cp))
			fprintf(out, "\\%c", (char)cp);
		/* an underscore inside a word starts no emphasis */
		else if (cp == '_' && !(md_alnum(prev) && i < n && md_alnum((unsigned char)s[i])))
			fputs("\\_", out);
		else
			hs_utf8_put(out, cp);
	}
}

#define MD_FIELD(out, field) md_esc(out, field, sizeof(field))

/* A fence longer than any run of backticks in s. */
static int md_fence(const char *s)
{
	int run = 0, longest = 0;

	for (; *s; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	return longest < 3 ? 3 : longest + 1;
}

static void md_code_block(FILE *out, const char *info, const char *body)
{
	int n = md_fence(body);
	size_t len = strlen(body);

	fprintf(out, "%.*s%s\n%s%s%.*s\n", n, "````````````````````````````````", info, body,
		len && body[len - 1] != '\n' ? "\n" : "", n, "````````````````````````````````");
}

/* ---- the recording ---- */

static void md_params(FILE *out, const struct hs_meta *m)
{
	char a[32], b[32], c[32], d[32];

	fprintf(out, "| host kvm | halt_poll_ns %s, grow %s, grow_start %s, shrink %s |\n",
		hs_layout_param_fmt(a, sizeof(a), m->halt_poll_ns),
		hs_layout_param_fmt(b, sizeof(b), m->halt_poll_ns_grow),
		hs_layout_param_fmt(c, sizeof(c), m->halt_poll_ns_grow_start),
		hs_layout_param_fmt(d, sizeof(d), m->halt_poll_ns_shrink));
	if (m->guest_halt_poll_ns >= 0 || m->guest_halt_poll_grow >= 0)
		fprintf(out, "| guest haltpoll | guest_halt_poll_ns %s, grow %s, grow_start %s, "
			"shrink %s |\n", hs_layout_param_fmt(a, sizeof(a), m->guest_halt_poll_ns),
			hs_layout_param_fmt(b, sizeof(b), m->guest_halt_poll_grow),
			hs_layout_param_fmt(c, sizeof(c), m->guest_halt_poll_grow_start),
			hs_layout_param_fmt(d, sizeof(d), m->guest_halt_poll_shrink));
	if (m->cpuidle_driver[0] || m->cpuidle_governor[0]) {
		fputs("| cpuidle | driver ", out);
		MD_FIELD(out, m->cpuidle_driver);
		fputs(", governor ", out);
		MD_FIELD(out, m->cpuidle_governor);
		fputs(" |\n", out);
	}
}

/*
 * Contention, and with it where the polling CPU is only an upper bound and
 * the polls the halts show cut short: one row, the report stays short.
 */
static void md_contention(FILE *out, const struct hs_report *r)
{
	const struct hs_halt_stats *h = &r->host;
	char all[16], bounded[16];

	if (!h->halts)
		return;
	if (!h->sched_halts || h->contended_share < 0) {
		fprintf(out, "| contention | unknown (no %s recorded)", hs_report_sched_missing(r));
	} else {
		fprintf(out, "| contention | another task runnable on the vCPU's CPU during %.1f%% "
			"of %" PRIu64 " halts", 100.0 * h->contended_share, h->sched_halts);
		if (h->contended_time_share >= 0)
			fprintf(out, " (%.1f%% of halt time)", 100.0 * h->contended_time_share);
	}
	if (h->poll_upper_bound)
		fprintf(out, "; poll CPU at most %s: %s charges misses their window or their "
			"length, no sched event showing where their poll ended",
			hs_duration_format(all, sizeof(all), (double)h->poll_ns),
			hs_duration_format(bounded, sizeof(bounded), (double)h->poll_bounded_ns));
	if (h->polls_cut)
		fprintf(out, "; %" PRIu64 " of %" PRIu64 " misses cut short (ended before their "
			"window)", h->polls_cut, h->poll_misses);
	fputs(" |\n", out);
}

static void md_facts(FILE *out, const struct hs_report *r)
{
	const struct hs_meta *m = &r->meta;

	fputs("### haltstat report\n\n| recording | |\n|---|---|\n| input | ", out);
	md_esc(out, m->source[0] ? m->source : "?", sizeof(m->source));
	if (m->format[0]) {
		fputs(" (", out);
		MD_FIELD(out, m->format);
		fputc(')', out);
	}
	fputs(" |\n| kernel | ", out);
	md_esc(out, m->kernel_release[0] ? m->kernel_release : "unknown", sizeof(m->kernel_release));
	fputs(", clock ", out);
	md_esc(out, m->clock[0] ? m->clock : "unknown", sizeof(m->clock));
	if (m->ncpus > 0)
		fprintf(out, ", %d CPUs", m->ncpus);
	fputs(" |\n", out);
	md_params(out, m);
	fprintf(out, "| span | %.3f s", r->duration_s > 0 ? r->duration_s : 0.0);
	if (m->record_seconds >= 0)
		fprintf(out, " (recorded for %.3f s)", m->record_seconds);
	fprintf(out, " |\n| events | %" PRIu64 ": kvm_vcpu_wakeup %" PRIu64 ", kvm_halt_poll_ns %"
		PRIu64 ", cpu_idle %" PRIu64 ", guest_halt_poll_ns %" PRIu64,
		r->events_total, r->events_wakeup, r->events_poll_ns, r->events_idle,
		r->events_guest_poll);
	if (r->events_sched_switch || r->events_sched_wakeup)
		fprintf(out, ", sched_switch %" PRIu64 ", sched_wakeup %" PRIu64,
			r->events_sched_switch, r->events_sched_wakeup);
	if (r->events_sched_waking)
		fprintf(out, ", sched_waking %" PRIu64, r->events_sched_waking);
	fputs(" |\n", out);
	if (!m->lost_known)
		fputs("| lost events | unknown (the input does not say) |\n", out);
	else if (m->lost_events || m->lost_unknown_places)
		fprintf(out, "| lost events | %" PRIu64 " (%.2f%%)%s |\n", m->lost_events,
			r->lost_pct > 0 ? r->lost_pct : 0.0,
			m->lost_unknown_places ? ", plus losses of unknown size" : "");
	else
		fputs("| lost events | 0 |\n", out);
	fprintf(out, "| vCPU threads | %u in %u VM%s |\n", r->nvcpus, r->nvms, r->nvms == 1 ? "" : "s");
	md_contention(out, r);
}

static void md_warnings(FILE *out, const struct hs_report *r)
{
	if (!r->nwarnings)
		return;
	fputs("\n**Warnings**\n\n", out);
	for (unsigned int i = 0; i < r->nwarnings; i++) {
		fputs("- ", out);
		md_esc(out, r->warnings[i] ? r->warnings[i] : "", SIZE_MAX);
		fputc('\n', out);
	}
}

/* ---- the table ---- */

static void md_row(FILE *out, const char *vm, size_t vm_max, const char *vcpu, const char *tid,
		   const struct hs_halt_stats *s, bool strong)
{
	char t[6][16];
	bool any = s->halts > 0;
	const char *b = strong ? "**" : "";

	fputs("| ", out);
	fputs(b, out);
	md_esc(out, vm[0] ? vm : "?", vm_max);
	fputs(b, out);
	fprintf(out, " | %s | %s | %" PRIu64 " | %.1f | %.1f | %" PRIu64 " | %" PRIu64 " | %s | %s | "
		"%s | %s | %s | %s |\n", vcpu, tid, s->halts,
		isfinite(s->halts_per_s) ? s->halts_per_s : 0.0,
		isfinite(s->hit_rate) ? s->hit_rate * 100 : 0.0, s->poll_misses, s->polls_cut,
		hs_duration_format(t[0], 16, (double)s->poll_ns),
		hs_duration_format(t[1], 16, any ? (double)s->p50_ns : -1),
		hs_duration_format(t[2], 16, any ? (double)s->p99_ns : -1),
		hs_duration_format(t[3], 16, any ? (double)s->max_ns : -1),
		hs_layout_window_fmt(t[4], 16, (double)s->window_last_ns),
		hs_layout_window_fmt(t[5], 16, s->window_mean_ns));
}

static void md_vcpu_row(FILE *out, const struct hs_report_vcpu *v)
{
	char idx[16], tid[16];

	if (v->vcpu_index >= 0)
		snprintf(idx, sizeof(idx), "%d", v->vcpu_index);
	else
		snprintf(idx, sizeof(idx), "?");
	snprintf(tid, sizeof(tid), "%d", v->tid);
	md_row(out, v->vm, sizeof(v->vm), idx, tid, &v->stats, false);
}

/* VMs busiest first, as the text: their vCPUs, then their total. */
static void md_table(FILE *out, const struct hs_report *r)
{
	unsigned int shown = 0, left = 0;

	fputs("\n#### vCPU threads, busiest first (polling CPU, then halts)\n\n"
	      "| VM | vCPU | tid | halts | halts/s | hit % | misses | cut | poll CPU | p50 | p99 | "
	      "max | window last | window mean |\n"
	      "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n", out);
	for (unsigned int j = 0; j < r->nvms; j++) {
		const struct hs_report_vm *vm = hs_layout_vm_at(r, j);
		unsigned int in_vm = 0;

		for (unsigned int i = 0; i < r->nvcpus; i++) {
			const struct hs_report_vcpu *v = hs_layout_vcpu_at(r, i);

			if (!hs_report_vcpu_in_vm(v, vm))
				continue;
			in_vm++;
			if (shown < MD_MAX_ROWS) {
				md_vcpu_row(out, v);
				shown++;
			} else {
				left++;
			}
		}
		if (in_vm > 1)
			md_row(out, vm->name[0] ? vm->name : vm->comm,
			       vm->name[0] ? sizeof(vm->name) : sizeof(vm->comm), "all", "-",
			       &vm->stats, true);
	}
	md_row(out, "ALL (host)", SIZE_MAX, "all", "-", &r->host, true);
	if (left)
		fprintf(out, "\n%u more vCPU threads are in the totals; `--format text` lists them "
			"all.\n", left);
}

/* ---- histograms ---- */

/*
 * One code block of the histograms. The block is laid out whole first: its
 * fence must be longer than any run of backticks in it, and the names in
 * its titles come from the trace.
 */
static int md_hist_block(FILE *out, const struct hs_report *r, const struct hs_text_opts *o,
			 enum hs_layout_hists which)
{
	char *body;
	int ret = hs_layout_hists_str(&body, r, o, which);

	if (ret)
		return ret;
	md_code_block(out, "text", body);
	free(body);
	return HS_OK;
}

/*
 * The host's histogram in sight, the VMs' or vCPUs' folded away when there
 * are several; one VM's alone is the host's, shown once.
 */
static int md_histograms(FILE *out, const struct hs_report *r, const struct hs_text_opts *opts)
{
	struct hs_text_opts o = *opts;
	bool several = o.per_vcpu_histograms ? r->nvcpus > 1 : r->nvms > 1;
	int ret;

	o.color = false;
	o.fold_empty_buckets = true;
	fputs("\n#### Halt duration (log2 buckets; # poll hit, * wait)\n\n", out);
	if (!several || o.linear)
		return md_hist_block(out, r, &o, HS_LAYOUT_HISTS_ALL);
	ret = md_hist_block(out, r, &o, HS_LAYOUT_HISTS_HOST);
	if (ret)
		return ret;
	fprintf(out, "\n<details><summary>Halt duration per %s</summary>\n\n",
		o.per_vcpu_histograms ? "vCPU thread" : "VM");
	ret = md_hist_block(out, r, &o, HS_LAYOUT_HISTS_BUT_HOST);
	fputs("\n</details>\n", out);
	return ret;
}

/* ---- advice ---- */

/* A line of the explanation; "Apply: COMMAND" gets the command as code. */
static void md_advice_line(FILE *out, const char *line, size_t len)
{
	static const char apply[] = "Apply: ";
	char *code;

	fputs("- ", out);
	if (len > sizeof(apply) - 1 && !strncmp(line, apply, sizeof(apply) - 1)) {
		code = strndup(line + sizeof(apply) - 1, len - (sizeof(apply) - 1));
		if (code && !strchr(code, '`')) {
			fprintf(out, "Apply: `%s`\n", code);
			free(code);
			return;
		}
		free(code);
	}
	md_esc(out, line, len);
	fputc('\n', out);
}

static void md_whatif(FILE *out, const struct hs_report *r)
{
	if (!r->n_host_what_if)
		return;
	fputs("\n<details><summary>What-if: each halt_poll_ns replayed over these halts</summary>\n\n"
	      "| halt_poll_ns | hits | hit % | hit % interval | poll CPU s | poll CPU s interval | miss CPU s | flaps/s |\n"
	      "|--:|--:|--:|--:|--:|--:|--:|--:|\n", out);
	for (unsigned int i = 0; i < r->n_host_what_if; i++) {
		const struct hs_whatif_row *w = &r->host_what_if[i];
		bool pick = r->advice.valid && w->halt_poll_ns == r->advice.halt_poll_ns;

		fprintf(out, "| %s%" PRIu64 "%s | %" PRIu64 " | %.1f | %.1f-%.1f | %.3f | %.3f-%.3f | %.3f | %.1f |\n",
			pick ? "**" : "", w->halt_poll_ns, pick ? "**" : "", w->hits,
			isfinite(w->hit_rate) ? w->hit_rate * 100 : 0.0,
			isfinite(w->hit_rate_low) ? w->hit_rate_low * 100 : 0.0,
			isfinite(w->hit_rate_high) ? w->hit_rate_high * 100 : 0.0,
			isfinite(w->poll_cpu_s) ? w->poll_cpu_s : 0.0,
			isfinite(w->poll_cpu_s_low) ? w->poll_cpu_s_low : 0.0,
			isfinite(w->poll_cpu_s_high) ? w->poll_cpu_s_high : 0.0,
			isfinite(w->miss_cpu_s) ? w->miss_cpu_s : 0.0,
			isfinite(w->flaps_per_s) ? w->flaps_per_s : 0.0);
	}
	fputs("\n</details>\n", out);
}

static void md_advice(FILE *out, const struct hs_report *r)
{
	const struct hs_advice *a = &r->advice;
	const char *p = a->text;

	if (!a->valid)
		return;
	fprintf(out, "\n#### Suggestion: `halt_poll_ns=%" PRIu64 "`\n\nobjective ", a->halt_poll_ns);
	MD_FIELD(out, a->objective);
	fputs(", confidence ", out);
	MD_FIELD(out, a->confidence);
	fputs("\n\n", out);
	while (p && *p) {
		size_t len = strcspn(p, "\n");

		if (len)
			md_advice_line(out, p, len);
		p += len + (p[len] == '\n');
	}
	if (a->nfindings) {
		fputs("\nfindings:", out);
		for (unsigned int i = 0; i < a->nfindings; i++) {
			fputs(i ? ", " : " ", out);
			md_esc(out, a->findings[i] ? a->findings[i] : "", SIZE_MAX);
		}
		fputc('\n', out);
	}
	for (unsigned int i = 0; i < r->nvms; i++) {
		const struct hs_report_vm *vm = &r->vms[i];

		if (!vm->advice.valid)
			continue;
		fputs("\nVM ", out);
		md_esc(out, vm->name[0] ? vm->name : vm->comm,
		       vm->name[0] ? sizeof(vm->name) : sizeof(vm->comm));
		fprintf(out, ": `halt_poll_ns=%" PRIu64 "` (confidence ", vm->advice.halt_poll_ns);
		MD_FIELD(out, vm->advice.confidence);
		fputs(")\n", out);
	}
	md_whatif(out, r);
}

/* ---- the guest layer: this machine's own idle toward its hypervisor ---- */

/*
 * Kept short for pasting: the verdict in sight, the reasons (one paragraph)
 * and the rows folded.
 */
/* The same as printed: counts equal, CPU seconds equal to the shown 3 decimals. */
static bool md_guest_same(const struct hs_guest_whatif_row *a, const struct hs_guest_whatif_row *b)
{
	return a->hits == b->hits && a->hits_low == b->hits_low && a->hits_high == b->hits_high &&
	       fabs(a->poll_cpu_s - b->poll_cpu_s) < 0.0005 &&
	       fabs(a->miss_cpu_s - b->miss_cpu_s) < 0.0005;
}

static void md_guest_whatif(FILE *out, const struct hs_report *r)
{
	const struct hs_advice *a = &r->guest_advice;

	if (!r->n_guest_what_if)
		return;
	fputs("\n| guest_halt_poll_ns | wakes | hits | hit % | hit % interval | poll CPU s | miss CPU s | CPU % per CPU |\n"
	      "|--:|--:|--:|--:|--:|--:|--:|--:|\n", out);
	for (unsigned int i = 0; i < r->n_guest_what_if; i++) {
		const struct hs_guest_whatif_row *w = &r->guest_what_if[i];
		bool pick = a->valid && w->guest_halt_poll_ns == a->halt_poll_ns;

		if (i && !pick && md_guest_same(w, w - 1))
			continue;
		fprintf(out, "| %s%" PRIu64 "%s | %" PRIu64 " | %" PRIu64 " | %.1f | %.1f-%.1f | %.3f | %.3f | %.1f |\n",
			pick ? "**" : "", w->guest_halt_poll_ns, pick ? "**" : "", w->wakes, w->hits,
			isfinite(w->hit_rate) ? w->hit_rate * 100 : 0.0,
			isfinite(w->hit_rate_low) ? w->hit_rate_low * 100 : 0.0,
			isfinite(w->hit_rate_high) ? w->hit_rate_high * 100 : 0.0,
			isfinite(w->poll_cpu_s) ? w->poll_cpu_s : 0.0,
			isfinite(w->miss_cpu_s) ? w->miss_cpu_s : 0.0,
			isfinite(w->poll_cpu_pct_per_cpu) ? w->poll_cpu_pct_per_cpu : 0.0);
	}
}

/* The reasons as one paragraph, sentences as the model has them. */
static void md_guest_reasons(FILE *out, const char *p)
{
	bool first = true;

	while (p && *p) {
		size_t len = strcspn(p, "\n");

		if (len) {
			fputs(first ? "" : " ", out);
			md_esc(out, p, len);
			first = false;
		}
		p += len + (p[len] == '\n');
	}
	if (!first)
		fputc('\n', out);
}

static void md_guest_advice(FILE *out, const struct hs_report *r)
{
	const struct hs_advice *a = &r->guest_advice;

	if (!a->valid && !a->text)
		return;
	fputs("\n#### Guest layer (this machine's own idle toward its hypervisor): ", out);
	if (a->valid)
		fprintf(out, "`guest_halt_poll_ns=%" PRIu64 "`\n\nobjective ", a->halt_poll_ns);
	else
		fputs("no suggestion\n\nobjective ", out);
	MD_FIELD(out, a->objective);
	fputs(", confidence ", out);
	MD_FIELD(out, a->confidence);
	for (unsigned int i = 0; i < a->nfindings; i++) {
		fputs(i ? ", " : "; findings (guest layer): ", out);
		md_esc(out, a->findings[i] ? a->findings[i] : "", SIZE_MAX);
	}
	fputs("\n\n<details><summary>Why, and the guest what-if (the haltpoll governor replayed at each guest_halt_poll_ns; a value that replays as the one above is left out)</summary>\n\n", out);
	md_guest_reasons(out, a->text);
	md_guest_whatif(out, r);
	fputs("\n</details>\n", out);
}

int hs_report_write_markdown(FILE *out, const struct hs_report *rep,
			     const struct hs_text_opts *opts)
{
	int ret = 0;

	md_facts(out, rep);
	md_warnings(out, rep);
	if (rep->nvcpus) {
		md_table(out, rep);
		if (opts->show_histograms)
			ret = md_histograms(out, rep, opts);
	}
	if (!ret && opts->show_advice) {
		md_advice(out, rep);
		md_guest_advice(out, rep);
	}
	if (!ret && opts->command) {
		fputs("\n---\nMade by haltstat " HS_VERSION " with:\n\n", out);
		md_code_block(out, "sh", opts->command);
	}
	if (ret)
		return ret;
	if (fflush(out) || ferror(out))
		return HS_ERR_OUTPUT;
	return HS_OK;
}
