// SPDX-License-Identifier: GPL-2.0-only
/*
 * CSV: one header row and one row per vCPU thread (RFC 4180: CRLF is not
 * required by spreadsheets, so rows end in \n; fields holding a comma, quote,
 * CR or LF are quoted and inner quotes doubled). Unknown values are empty.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/error.h"
#include "output.h"

static const char *const csv_columns[] = {
	"vm", "vcpu_index", "tid", "tgid", "comm", "halts", "poll_hits", "waits",
	"poll_misses", "nopoll_waits", "unknown_waits", "invalid", "hit_rate",
	"halts_per_s", "sum_ns", "min_ns", "max_ns", "mean_ns", "p50_ns", "p90_ns",
	"p99_ns", "p999_ns", "poll_cpu_s", "window_last_ns", "window_mean_ns",
	"grows", "shrinks", "flaps", "contention_halts_tracked", "contention_halts",
	"contention_halt_share", "contention_time_share",
	/* the vCPU's what-if at the suggested halt_poll_ns, with its prediction interval */
	"whatif_halt_poll_ns", "whatif_hit_rate", "whatif_hit_rate_low", "whatif_hit_rate_high",
	"whatif_poll_cpu_s", "whatif_poll_cpu_s_low", "whatif_poll_cpu_s_high",
	/* of poll_cpu_s, what misses were charged by an upper bound; polls cut short */
	"poll_cpu_bounded_s", "polls_cut",
};

/* Names sit in fixed arrays that may lack their NUL: never read past max. */
static void csv_str(FILE *out, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	if (!memchr(s, ',', n) && !memchr(s, '"', n) && !memchr(s, '\r', n) &&
	    !memchr(s, '\n', n)) {
		fwrite(s, 1, n, out);
		return;
	}
	fputc('"', out);
	for (size_t k = 0; k < n; k++) {
		if (s[k] == '"')
			fputc('"', out);
		fputc(s[k], out);
	}
	fputc('"', out);
}

static void csv_u64(FILE *out, uint64_t v)
{
	fprintf(out, ",%" PRIu64, v);
}

static void csv_num(FILE *out, double v, const char *fmt)
{
	fputc(',', out);
	if (isfinite(v) && v >= 0)
		fprintf(out, fmt, v);
}

static void csv_row(FILE *out, const struct hs_report_vcpu *v)
{
	const struct hs_halt_stats *s = &v->stats;
	bool any = s->halts > 0;

	csv_str(out, v->vm, sizeof(v->vm));
	fputc(',', out);
	if (v->vcpu_index >= 0)
		fprintf(out, "%d", v->vcpu_index);
	fprintf(out, ",%d,", v->tid);
	if (v->tgid >= 0)
		fprintf(out, "%d", v->tgid);
	fputc(',', out);
	csv_str(out, v->comm, sizeof(v->comm));
	csv_u64(out, s->halts);
	csv_u64(out, s->poll_hits);
	csv_u64(out, s->waits);
	csv_u64(out, s->poll_misses);
	csv_u64(out, s->nopoll_waits);
	csv_u64(out, s->unknown_waits);
	csv_u64(out, s->invalid);
	csv_num(out, s->hit_rate, "%.6f");
	csv_num(out, s->halts_per_s, "%.3f");
	csv_u64(out, s->sum_ns);
	csv_u64(out, any ? s->min_ns : 0);
	csv_u64(out, any ? s->max_ns : 0);
	csv_num(out, any ? s->mean_ns : 0, "%.1f");
	csv_u64(out, any ? s->p50_ns : 0);
	csv_u64(out, any ? s->p90_ns : 0);
	csv_u64(out, any ? s->p99_ns : 0);
	csv_u64(out, any ? s->p999_ns : 0);
	csv_num(out, (double)s->poll_ns / 1e9, "%.9f");
	fputc(',', out);
	if (s->window_last_ns >= 0)
		fprintf(out, "%" PRId64, s->window_last_ns);
	csv_num(out, s->window_mean_ns, "%.1f");
	csv_u64(out, s->grows);
	csv_u64(out, s->shrinks);
	csv_u64(out, s->flaps);
	/* contention: empty when the recording has no sched events */
	if (s->sched_halts) {
		csv_u64(out, s->sched_halts);
		csv_u64(out, s->contended_halts);
		csv_num(out, s->contended_share, "%.6f");
		csv_num(out, s->contended_time_share, "%.6f");
	} else {
		fputs(",,,,", out);
	}
	if (v->suggested_row >= 0) {
		const struct hs_whatif_row *w = &v->what_if[v->suggested_row];

		csv_u64(out, w->halt_poll_ns);
		csv_num(out, w->hit_rate, "%.6f");
		csv_num(out, w->hit_rate_low, "%.6f");
		csv_num(out, w->hit_rate_high, "%.6f");
		csv_num(out, w->poll_cpu_s, "%.9f");
		csv_num(out, w->poll_cpu_s_low, "%.9f");
		csv_num(out, w->poll_cpu_s_high, "%.9f");
	} else {
		fputs(",,,,,,,", out);
	}
	csv_num(out, (double)s->poll_bounded_ns / 1e9, "%.9f");
	csv_u64(out, s->polls_cut);
	fputc('\n', out);
}

int hs_report_write_csv(FILE *out, const struct hs_report *rep)
{
	for (size_t i = 0; i < sizeof(csv_columns) / sizeof(csv_columns[0]); i++)
		fprintf(out, "%s%s", i ? "," : "", csv_columns[i]);
	fputc('\n', out);
	for (unsigned int i = 0; i < rep->nvcpus; i++)
		csv_row(out, &rep->vcpus[i]);
	if (fflush(out) || ferror(out))
		return HS_ERR_OUTPUT;
	return HS_OK;
}
