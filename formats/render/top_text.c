// SPDX-License-Identifier: GPL-2.0-only
/*
 * The `haltstat top` screen: a header, the host and per-VM lines, one line
 * per vCPU in the order given, and the guest side per CPU. Redraws in place
 * (cursor home, each line cleared to its end) so the screen never flickers.
 */
#include <stdio.h>
#include <string.h>

#include "../../lib/error.h"
#include "duration.h"
#include "top_output.h"

#define EOL "\033[K\n"

struct top_out {
	FILE *out;
	unsigned int left;		/* lines still free on the screen */
	bool limited;
};

static const char *top_pct(char *buf, size_t n, double frac, bool known)
{
	if (known)
		snprintf(buf, n, "%.1f", frac * 100.0);
	else
		snprintf(buf, n, "-");
	return buf;
}

static bool top_line_ok(struct top_out *t)
{
	if (!t->limited)
		return true;
	if (!t->left)
		return false;
	t->left--;
	return true;
}

/* halts/s hit% poll-CPU% p50 p99 window: the columns every row shares. */
static void top_cols(struct top_out *t, const struct hs_halt_stats *s)
{
	char hit[16], p50[16], p99[16], win[16];

	fprintf(t->out, " %9.1f %6s %8.2f %8s %8s %8s" EOL, s->halts_per_s,
		top_pct(hit, sizeof(hit), s->hit_rate, s->halts > 0),
		s->poll_cpu_pct,
		hs_duration_format(p50, sizeof(p50), s->halts > 0 ? (double)s->p50_ns : -1),
		hs_duration_format(p99, sizeof(p99), s->halts > 0 ? (double)s->p99_ns : -1),
		hs_duration_format(win, sizeof(win), s->window_last_ns >= 0 ? (double)s->window_last_ns : -1));
}

static void top_header(struct top_out *t, const struct hs_top_view *v)
{
	const struct hs_report *r = v->rep;

	if (top_line_ok(t))
		fprintf(t->out, "%shaltstat top%s  interval %lu (%.2f s)  sort: %s  events %llu  "
			"lost %llu (total %llu)   q: quit  s: next sort" EOL,
			v->color ? "\033[1m" : "", v->color ? "\033[0m" : "", v->interval,
			v->seconds, v->sort, (unsigned long long)r->events_total,
			(unsigned long long)v->lost_events, (unsigned long long)v->lost_total);
	for (unsigned int i = 0; i < v->nmissing && top_line_ok(t); i++)
		fprintf(t->out, "  event %s does not exist here" EOL, v->missing[i]);
	if (top_line_ok(t))
		fprintf(t->out, EOL);
}

static void top_host(struct top_out *t, const struct hs_top_view *v)
{
	const struct hs_report *r = v->rep;

	if (top_line_ok(t))
		fprintf(t->out, "%-24s %6s %9s %6s %8s %8s %8s %8s" EOL, "HOST / VM", "vCPUs",
			"halts/s", "hit%", "pollCPU%", "p50", "p99", "window");
	if (top_line_ok(t)) {
		fprintf(t->out, "%-24s %6u", "host", r->nvcpus);
		top_cols(t, &r->host);
	}
	for (unsigned int i = 0; i < r->nvms && top_line_ok(t); i++) {
		const struct hs_report_vm *m = &r->vms[v->vm_order[i]];

		fprintf(t->out, "%-24.24s %6u", m->name, m->nvcpus);
		top_cols(t, &m->stats);
	}
	if (top_line_ok(t))
		fprintf(t->out, EOL);
}

static void top_vcpus(struct top_out *t, const struct hs_top_view *v)
{
	const struct hs_report *r = v->rep;

	if (top_line_ok(t))
		fprintf(t->out, "%-16s %4s %7s %9s %6s %8s %8s %8s %8s" EOL, "VM", "vCPU", "TID",
			"halts/s", "hit%", "pollCPU%", "p50", "p99", "window");
	if (!r->nvcpus && top_line_ok(t))
		fprintf(t->out, "  no vCPU: no halts from KVM in this interval (no VM running, "
			"or the kvm events are unavailable)" EOL);
	for (unsigned int i = 0; i < r->nvcpus && top_line_ok(t); i++) {
		const struct hs_report_vcpu *c = &r->vcpus[v->order[i]];
		char idx[16];

		if (c->vcpu_index >= 0)
			snprintf(idx, sizeof(idx), "%d", c->vcpu_index);
		else
			snprintf(idx, sizeof(idx), "-");
		fprintf(t->out, "%-16.16s %4s %7d", c->vm, idx, c->tid);
		top_cols(t, &c->stats);
	}
	if (top_line_ok(t))
		fprintf(t->out, EOL);
}

static void top_guest_row(struct top_out *t, const struct hs_report_guest_cpu *g)
{
	char hit[16], win[16];

	fprintf(t->out, "%-9d %10.1f %10.1f %9s %9.2f %7.1f %8s" EOL, g->cpu,
		g->entries_per_s, g->poll_entries_per_s,
		top_pct(hit, sizeof(hit), g->poll_hit_rate, g->poll_hit_rate >= 0),
		g->poll_cpu_pct, g->idle_pct,
		hs_duration_format(win, sizeof(win), g->window_last_ns >= 0 ? (double)g->window_last_ns : -1));
}

static void top_guest(struct top_out *t, const struct hs_top_view *v)
{
	const struct hs_report *r = v->rep;

	if (top_line_ok(t))
		fprintf(t->out, "%-9s %10s %10s %9s %9s %7s %8s" EOL, "guest CPU", "idle/s",
			"poll/s", "poll hit%", "pollCPU%", "idle%", "window");
	if (!r->nguest && top_line_ok(t))
		fprintf(t->out, "  no guest idle events in this interval" EOL);
	for (unsigned int i = 0; i < r->nguest && top_line_ok(t); i++)
		top_guest_row(t, &r->guest[i]);
}

int hs_top_write_text(FILE *out, const struct hs_top_view *v)
{
	struct top_out t = { .out = out, .left = v->rows, .limited = v->rows > 0 };

	fputs("\033[H", out);
	top_header(&t, v);
	top_host(&t, v);
	top_vcpus(&t, v);
	top_guest(&t, v);
	fputs("\033[J", out);
	if (ferror(out) || fflush(out))
		return HS_ERR_OUTPUT;
	return 0;
}
