// SPDX-License-Identifier: GPL-2.0-only
/*
 * The plain-text layout both the text and the Markdown report use: value
 * formats, the model's order, and the halt-duration histograms in the
 * rtla/bcc style. Here so that each writer renders a report once, neither
 * borrowing the other's insides; it calls neither writer.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/error.h"
#include "duration.h"
#include "text_layout.h"

#define BAR_WIDTH	40
/* Past this many VMs their histograms share one table, a row per VM. */
#define VM_BAR_HISTS	4

/* What every histogram is drawn with: where, of which report, how. */
struct layout_ctx {
	FILE *out;
	const struct hs_report *rep;
	const struct hs_text_opts *opts;
};

static const char *col(const struct layout_ctx *c, const char *code)
{
	return c->opts->color ? code : "";
}

/* ---- values and order ---- */

const char *hs_layout_window_fmt(char *buf, size_t len, double ns)
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

const char *hs_layout_param_fmt(char *buf, size_t len, int64_t v)
{
	if (v < 0)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%" PRId64, v);
	return buf;
}

const char *hs_layout_name_fmt(char *dst, size_t len, const char *src, size_t max)
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

const char *hs_layout_vm_label_fmt(char *buf, size_t len, const struct hs_report_vm *vm)
{
	return vm->name[0] ? hs_layout_name_fmt(buf, len, vm->name, sizeof(vm->name)) :
			     hs_layout_name_fmt(buf, len, vm->comm, sizeof(vm->comm));
}

const struct hs_report_vm *hs_layout_vm_at(const struct hs_report *r, unsigned int k)
{
	return &r->vms[r->vm_order ? r->vm_order[k] : k];
}

const struct hs_report_vcpu *hs_layout_vcpu_at(const struct hs_report *r, unsigned int k)
{
	return &r->vcpus[r->vcpu_order ? r->vcpu_order[k] : k];
}

bool hs_layout_vcpu_in_any_vm(const struct hs_report *r, const struct hs_report_vcpu *v)
{
	for (unsigned int j = 0; j < r->nvms; j++)
		if (hs_report_vcpu_in_vm(v, &r->vms[j]))
			return true;
	return false;
}

/* ---- one histogram ---- */

/* A log2 or linear table, as one shape. */
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

static void write_bar(const struct layout_ctx *c, uint64_t poll, uint64_t wait, uint64_t top)
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
	fprintf(c->out, "%s", col(c, HS_SGR_GREEN));
	for (unsigned int k = 0; k < np; k++)
		fputc('#', c->out);
	fprintf(c->out, "%s%s", col(c, HS_SGR_RESET), col(c, HS_SGR_BLUE));
	for (unsigned int k = 0; k < nw; k++)
		fputc('*', c->out);
	fprintf(c->out, "%s", col(c, HS_SGR_RESET));
	for (unsigned int k = np + nw; k < BAR_WIDTH; k++)
		fputc(' ', c->out);
	fputs("|\n", c->out);
}

static void write_hist_footer(const struct layout_ctx *c, const struct hs_halt_stats *s)
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
static unsigned int empty_run(const struct layout_ctx *c, const struct hist_view *h,
			      unsigned int i, unsigned int last)
{
	unsigned int n = 0;

	if (!c->opts->fold_empty_buckets || h->linear)
		return 0;
	while (i + n < last && !h->poll[i + n] && !h->wait[i + n])
		n++;
	return n >= 3 ? n : 0;
}

static void write_empty_run(const struct layout_ctx *c, unsigned int i, unsigned int run)
{
	char lo[16], hi[16], label[40], note[32];

	hs_duration_format(lo, sizeof(lo), (double)log2_lo(i));
	snprintf(label, sizeof(label), "%s -> %s", i ? lo : "0",
		 hs_duration_format(hi, sizeof(hi), (double)log2_lo(i + run)));
	/* the note stays inside the bar's frame: the columns before it hold only counts */
	snprintf(note, sizeof(note), " (%u empty buckets)", run);
	fprintf(c->out, "%24s : %10d %10d  |%-*s|\n", label, 0, 0, BAR_WIDTH, note);
}

static void write_hist(const struct layout_ctx *c, const char *title,
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
	fprintf(c->out, "\n%s%s%s\n", col(c, HS_SGR_BOLD), title, col(c, HS_SGR_RESET));
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

/* ---- the report's histograms ---- */

static void write_vcpu_hist(const struct layout_ctx *c, const struct hs_report_vcpu *v)
{
	struct hist_view h;
	char title[320], vm[128], comm[64];

	if (c->opts->linear && v->linear.entries && v->linear.poll && v->linear.wait)
		linear_view(&h, &v->linear);
	else
		log2_view(&h, &v->log2);
	if (v->vcpu_index >= 0)
		snprintf(title, sizeof(title), "vCPU %d of %s (tid %d, %s): halt duration",
			 v->vcpu_index, v->vm[0] ? HS_LAYOUT_NAME(vm, v->vm) : "?", v->tid,
			 HS_LAYOUT_NAME(comm, v->comm));
	else
		snprintf(title, sizeof(title), "thread %d (%s) of %s: halt duration",
			 v->tid, HS_LAYOUT_NAME(comm, v->comm),
			 v->vm[0] ? HS_LAYOUT_NAME(vm, v->vm) : "?");
	write_hist(c, title, &h, &v->stats);
}

/* In the table's order: by VM, busiest first. */
static void write_vcpu_hists(const struct layout_ctx *c)
{
	const struct hs_report *r = c->rep;

	for (unsigned int j = 0; j < r->nvms; j++)
		for (unsigned int i = 0; i < r->nvcpus; i++) {
			const struct hs_report_vcpu *v = hs_layout_vcpu_at(r, i);

			if (hs_report_vcpu_in_vm(v, hs_layout_vm_at(r, j)))
				write_vcpu_hist(c, v);
		}
	for (unsigned int i = 0; i < r->nvcpus; i++) {
		const struct hs_report_vcpu *v = hs_layout_vcpu_at(r, i);

		if (!hs_layout_vcpu_in_any_vm(r, v))
			write_vcpu_hist(c, v);
	}
}

static void write_vm_hists(const struct layout_ctx *c)
{
	const struct hs_report *r = c->rep;
	struct hist_view h;
	char title[320], name[128];

	for (unsigned int j = 0; j < r->nvms; j++) {
		const struct hs_report_vm *vm = hs_layout_vm_at(r, j);

		if (c->opts->linear && vm->linear.entries && vm->linear.poll && vm->linear.wait)
			linear_view(&h, &vm->linear);
		else
			log2_view(&h, &vm->log2);
		snprintf(title, sizeof(title), "VM %s (pid %d, %u vCPU%s): halt duration",
			 hs_layout_vm_label_fmt(name, sizeof(name), vm), vm->tgid, vm->nvcpus,
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

static void write_vm_table_row(const struct layout_ctx *c, const char *vm, const char *nv,
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
static void write_vm_table(const struct layout_ctx *c)
{
	const struct hs_report *r = c->rep;
	unsigned int first, last;
	char name[128], nv[16], lo[16];
	int w;

	if (!vm_buckets(r, &first, &last))
		return;
	w = count_width(r, first, last);
	fprintf(c->out, "\n%shalt duration per VM%s: halts per log2 bucket (its lower bound), "
		"poll hits and waits\n%s%-16s %5s %-4s", col(c, HS_SGR_BOLD), col(c, HS_SGR_RESET),
		col(c, HS_SGR_BOLD), "VM", "vCPUs", "");
	for (unsigned int b = first; b <= last; b++) {
		if (b == 0)
			snprintf(lo, sizeof(lo), "0");
		else
			hs_duration_format(lo, sizeof(lo), (double)log2_lo(b));
		fprintf(c->out, " %*s", w, lo);
	}
	fprintf(c->out, " %*s%s\n", w, "total", col(c, HS_SGR_RESET));
	for (unsigned int j = 0; j < r->nvms; j++) {
		const struct hs_report_vm *vm = hs_layout_vm_at(r, j);

		snprintf(nv, sizeof(nv), "%u", vm->nvcpus);
		write_vm_table_row(c, hs_layout_vm_label_fmt(name, sizeof(name), vm), nv, "poll",
				   vm->log2.poll, first, last, vm->stats.poll_hits, w);
		write_vm_table_row(c, "", "", "wait", vm->log2.wait, first, last, vm->stats.waits, w);
	}
}

static void write_host_hist(const struct layout_ctx *c)
{
	struct hist_view h;

	log2_view(&h, &c->rep->host_log2);
	write_hist(c, "ALL: every vCPU of the host: halt duration", &h, &c->rep->host);
}

/*
 * Per vCPU on request (or when a filter picked a few); else per VM, as bars
 * for a few VMs and as one table for many, after the host's own.
 */
static void write_hists(const struct layout_ctx *c, bool with_host)
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

void hs_layout_hists_write(FILE *out, const struct hs_report *rep,
			   const struct hs_text_opts *opts, enum hs_layout_hists which)
{
	struct layout_ctx c = { .out = out, .rep = rep, .opts = opts };

	if (which == HS_LAYOUT_HISTS_HOST)
		write_host_hist(&c);
	else if (rep->nvcpus)
		write_hists(&c, which == HS_LAYOUT_HISTS_ALL);
}

/* Written whole before it is handed on: the frame around it depends on what it holds. */
int hs_layout_hists_str(char **body, const struct hs_report *rep,
			const struct hs_text_opts *opts, enum hs_layout_hists which)
{
	size_t len = 0, skip = 0;
	FILE *mem;
	int ret;

	*body = NULL;
	mem = open_memstream(body, &len);
	if (!mem)
		return HS_ERR_RUNTIME;
	hs_layout_hists_write(mem, rep, opts, which);
	ret = ferror(mem) ? HS_ERR_OUTPUT : HS_OK;
	if (fclose(mem) || !*body)
		ret = HS_ERR_RUNTIME;
	if (ret) {
		free(*body);
		*body = NULL;
		return ret;
	}
	/* each histogram starts with an empty line: the first needs none */
	while ((*body)[skip] == '\n')
		skip++;
	memmove(*body, *body + skip, len - skip + 1);
	return HS_OK;
}
