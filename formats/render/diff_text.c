// SPDX-License-Identifier: GPL-2.0-only
/*
 * `haltstat diff` as text: the two recordings, then one small table per
 * matched vCPU (host totals first) with A, B, the change and the relative
 * change, then the vCPUs found on one side only.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/error.h"
#include "diff_output.h"
#include "duration.h"

enum diff_unit { DU_RATE, DU_FRAC, DU_PCT, DU_NS };

static const struct {
	const char *label;
	enum diff_unit unit;
} diff_rows_fmt[HS_DIFF_NMETRICS] = {
	[HS_DIFF_HALTS_PER_S] = { "halts/s", DU_RATE },
	[HS_DIFF_HIT_RATE] = { "poll hit rate", DU_FRAC },
	[HS_DIFF_POLL_NS] = { "polling time", DU_NS },
	[HS_DIFF_POLL_CPU_PCT] = { "polling CPU (% of one CPU)", DU_PCT },
	[HS_DIFF_P50_NS] = { "p50 halt", DU_NS },
	[HS_DIFF_P99_NS] = { "p99 halt", DU_NS },
	[HS_DIFF_WINDOW_MEAN_NS] = { "mean window", DU_NS },
	[HS_DIFF_GROWS_PER_S] = { "window grows/s", DU_RATE },
	[HS_DIFF_SHRINKS_PER_S] = { "window shrinks/s", DU_RATE },
	[HS_DIFF_FLAPS_PER_S] = { "window flaps/s", DU_RATE },
};

static void diff_fmt(char *buf, size_t n, enum diff_unit u, double v, bool known, bool sign)
{
	if (!known) {
		snprintf(buf, n, "-");
		return;
	}
	switch (u) {
	case DU_FRAC:
		snprintf(buf, n, sign ? "%+.1f pt" : "%.1f%%", v * 100.0);
		break;
	case DU_PCT:
		snprintf(buf, n, sign ? "%+.2f" : "%.2f", v);
		break;
	case DU_NS:
		if (sign)
			hs_duration_format_delta(buf, n, v);
		else
			hs_duration_format(buf, n, v);
		break;
	default:
		snprintf(buf, n, sign ? "%+.1f" : "%.1f", v);
		break;
	}
}

static void diff_table(FILE *out, const struct hs_diff_row *r, bool color)
{
	for (int m = 0; m < HS_DIFF_NMETRICS; m++) {
		const struct hs_diff_value *v = &r->v[m];
		enum diff_unit u = diff_rows_fmt[m].unit;
		char a[32], b[32], d[32], rel[32];
		bool hi = color && v->has_delta && v->delta != 0;

		diff_fmt(a, sizeof(a), u, v->a, v->known_a, false);
		diff_fmt(b, sizeof(b), u, v->b, v->known_b, false);
		diff_fmt(d, sizeof(d), u, v->delta, v->has_delta, true);
		if (v->has_rel)
			snprintf(rel, sizeof(rel), "%+.1f%%", v->rel * 100.0);
		else
			snprintf(rel, sizeof(rel), "-");
		fprintf(out, "  %-28s %12s %12s %s%12s %9s%s\n", diff_rows_fmt[m].label, a, b,
			hi ? "\033[1m" : "", d, rel, hi ? "\033[0m" : "");
	}
}

static void diff_side_line(FILE *out, char name, const struct hs_diff_side *s)
{
	char hp[96];

	if (s->halt_poll_ns >= 0)
		snprintf(hp, sizeof(hp), "%lld", (long long)s->halt_poll_ns);
	else
		snprintf(hp, sizeof(hp), "unknown");
	if (s->vms_own_max && s->vm_max_ns >= 0)
		snprintf(hp + strlen(hp), sizeof(hp) - strlen(hp), " (module; %u VM%s set%s its own: %lld)",
			 s->vms_own_max, s->vms_own_max == 1 ? "" : "s", s->vms_own_max == 1 ? "s" : "",
			 (long long)s->vm_max_ns);
	else if (s->vms_own_max)
		snprintf(hp + strlen(hp), sizeof(hp) - strlen(hp), " (module; %u VMs set their own)",
			 s->vms_own_max);
	fprintf(out, "%c: %s  (%.3f s, %u vCPUs, halt_poll_ns %s, lost events %llu)\n", name,
		s->source, s->duration_s, s->nvcpus, hp, (unsigned long long)s->lost_events);
}

static void diff_row_head(FILE *out, const struct hs_diff_row *r)
{
	char idx[16] = "?";

	if (r->vcpu_index >= 0)
		snprintf(idx, sizeof(idx), "%d", r->vcpu_index);
	fprintf(out, "%.64s vCPU %s  (tid %d -> %d, matched by %s)\n", r->vm, idx, r->tid_a,
		r->tid_b, hs_diff_match_names[r->match]);
}

static void diff_unmatched_text(FILE *out, const struct hs_diff *d)
{
	if (!d->nunmatched)
		return;
	fprintf(out, "unmatched vCPUs:\n");
	for (unsigned int i = 0; i < d->nunmatched; i++) {
		const struct hs_diff_unmatched *u = &d->unmatched[i];
		char idx[16] = "?";

		if (u->vcpu_index >= 0)
			snprintf(idx, sizeof(idx), "%d", u->vcpu_index);
		fprintf(out, "  only in %c: %.64s vCPU %s (tid %d), %llu halts\n",
			u->side == 'a' ? 'A' : 'B', u->vm, idx, u->tid,
			(unsigned long long)u->halts);
	}
}

int hs_diff_write_text(FILE *out, const struct hs_diff *d, bool color)
{
	diff_side_line(out, 'A', &d->a);
	diff_side_line(out, 'B', &d->b);
	fprintf(out, "\n%-30s %12s %12s %12s %9s\n", "", "A", "B", "change", "relative");
	fprintf(out, "host (all vCPUs)\n");
	diff_table(out, &d->host, color);
	for (unsigned int i = 0; i < d->nrows; i++) {
		fputc('\n', out);
		diff_row_head(out, &d->rows[i]);
		diff_table(out, &d->rows[i], color);
	}
	if (!d->nrows && !d->nunmatched)
		fprintf(out, "\nno vCPU halts in either recording\n");
	if (d->nunmatched)
		fputc('\n', out);
	diff_unmatched_text(out, d);
	return ferror(out) ? HS_ERR_OUTPUT : 0;
}
