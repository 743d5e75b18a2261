// SPDX-License-Identifier: GPL-2.0-only
/*
 * Comparison of two reports: vCPU matching and the per-metric deltas that
 * both diff writers render. No printing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

const char *const hs_diff_metric_names[HS_DIFF_NMETRICS] = {
	[HS_DIFF_HALTS_PER_S] = "halts_per_s",
	[HS_DIFF_HIT_RATE] = "hit_rate",
	[HS_DIFF_POLL_NS] = "poll_ns",
	[HS_DIFF_POLL_CPU_PCT] = "poll_cpu_pct",
	[HS_DIFF_P50_NS] = "p50_ns",
	[HS_DIFF_P99_NS] = "p99_ns",
	[HS_DIFF_WINDOW_MEAN_NS] = "window_mean_ns",
	[HS_DIFF_GROWS_PER_S] = "grows_per_s",
	[HS_DIFF_SHRINKS_PER_S] = "shrinks_per_s",
	[HS_DIFF_FLAPS_PER_S] = "flaps_per_s",
};

const char *const hs_diff_match_names[4] = {
	[HS_DIFF_BY_NAME] = "vm_vcpu", [HS_DIFF_BY_TID] = "tid",
	[HS_DIFF_BY_ORDER] = "order", [HS_DIFF_TOTAL] = "total",
};

static double diff_per_s(uint64_t n, double seconds)
{
	return seconds > 0 ? (double)n / seconds : 0;
}

/* One side's figures; known[] false where the recording cannot tell. */
static void diff_values(const struct hs_halt_stats *s, double sec, double *val, bool *known)
{
	bool halts = s->halts > 0;

	val[HS_DIFF_HALTS_PER_S] = diff_per_s(s->halts, sec);
	val[HS_DIFF_HIT_RATE] = s->hit_rate;
	val[HS_DIFF_POLL_NS] = (double)s->poll_ns;
	val[HS_DIFF_POLL_CPU_PCT] = sec > 0 ? (double)s->poll_ns / (sec * 1e9) * 100.0 : 0;
	val[HS_DIFF_P50_NS] = (double)s->p50_ns;
	val[HS_DIFF_P99_NS] = (double)s->p99_ns;
	val[HS_DIFF_WINDOW_MEAN_NS] = s->window_mean_ns;
	val[HS_DIFF_GROWS_PER_S] = diff_per_s(s->grows, sec);
	val[HS_DIFF_SHRINKS_PER_S] = diff_per_s(s->shrinks, sec);
	val[HS_DIFF_FLAPS_PER_S] = diff_per_s(s->flaps, sec);
	for (int m = 0; m < HS_DIFF_NMETRICS; m++)
		known[m] = true;
	known[HS_DIFF_HIT_RATE] = halts;
	known[HS_DIFF_P50_NS] = halts;
	known[HS_DIFF_P99_NS] = halts;
	known[HS_DIFF_WINDOW_MEAN_NS] = s->window_mean_ns >= 0;
}

static void diff_row_fill(struct hs_diff_row *r, const struct hs_halt_stats *a, double sec_a,
			  const struct hs_halt_stats *b, double sec_b)
{
	double va[HS_DIFF_NMETRICS], vb[HS_DIFF_NMETRICS];
	bool ka[HS_DIFF_NMETRICS], kb[HS_DIFF_NMETRICS];

	diff_values(a, sec_a, va, ka);
	diff_values(b, sec_b, vb, kb);
	r->halts_a = a->halts;
	r->halts_b = b->halts;
	for (int m = 0; m < HS_DIFF_NMETRICS; m++) {
		struct hs_diff_value *v = &r->v[m];

		v->a = va[m];
		v->b = vb[m];
		v->known_a = ka[m];
		v->known_b = kb[m];
		v->has_delta = ka[m] && kb[m];
		v->delta = v->has_delta ? vb[m] - va[m] : 0;
		v->has_rel = v->has_delta && va[m] != 0;
		v->rel = v->has_rel ? v->delta / va[m] : 0;
	}
}

/* A vCPU index of a VM whose process is known: the same name in two recordings is the same vCPU. */
static bool diff_named(const struct hs_report_vcpu *v)
{
	return v->vcpu_index >= 0 && v->tgid >= 0 && v->vm[0];
}

static bool diff_same_name(const struct hs_report_vcpu *x, const struct hs_report_vcpu *y)
{
	return !strncmp(x->vm, y->vm, sizeof(x->vm));
}

/* Whether a (from A) and b (from B) may be paired in this pass. */
static bool diff_pairs(const struct hs_report_vcpu *a, const struct hs_report_vcpu *b,
		       enum hs_diff_match pass)
{
	switch (pass) {
	case HS_DIFF_BY_NAME:
		return diff_named(a) && diff_named(b) && diff_same_name(a, b) &&
		       a->vcpu_index == b->vcpu_index;
	case HS_DIFF_BY_TID:
		/* a reused thread id does not make two different named vCPUs one */
		return a->tid == b->tid && !(diff_named(a) && diff_named(b));
	default:
		return diff_same_name(a, b) && (a->vcpu_index < 0 || b->vcpu_index < 0);
	}
}

/*
 * The order pass visits both sides in thread-id order, the order a VMM
 * creates its vCPU threads in: one side's vCPU indices (from window events)
 * must not reorder it against a side that has none.
 */
static void diff_tid_order(const struct hs_report *r, unsigned int *order)
{
	for (unsigned int i = 0; i < r->nvcpus; i++) {
		unsigned int k = i;

		for (; k > 0 && r->vcpus[order[k - 1]].tid > r->vcpus[i].tid; k--)
			order[k] = order[k - 1];
		order[k] = i;
	}
}

static void diff_match(const struct hs_report *a, const struct hs_report *b, int *pair,
		       enum hs_diff_match *how, bool *used_b, unsigned int *oa, unsigned int *ob)
{
	for (unsigned int i = 0; i < a->nvcpus; i++)
		pair[i] = -1;
	for (int pass = HS_DIFF_BY_NAME; pass <= HS_DIFF_BY_ORDER; pass++) {
		bool by_tid = pass == HS_DIFF_BY_ORDER;

		if (by_tid) {
			diff_tid_order(a, oa);
			diff_tid_order(b, ob);
		}
		for (unsigned int n = 0; n < a->nvcpus; n++) {
			unsigned int i = by_tid ? oa[n] : n;

			for (unsigned int m = 0; pair[i] < 0 && m < b->nvcpus; m++) {
				unsigned int j = by_tid ? ob[m] : m;

				if (used_b[j] || !diff_pairs(&a->vcpus[i], &b->vcpus[j], pass))
					continue;
				pair[i] = (int)j;
				how[i] = (enum hs_diff_match)pass;
				used_b[j] = true;
			}
		}
	}
}

static void diff_unmatched(struct hs_diff *d, char side, const struct hs_report_vcpu *v)
{
	struct hs_diff_unmatched *u = &d->unmatched[d->nunmatched++];

	u->side = side;
	memcpy(u->vm, v->vm, sizeof(u->vm));
	u->vm[sizeof(u->vm) - 1] = '\0';
	u->vcpu_index = v->vcpu_index;
	u->tid = v->tid;
	u->halts = v->stats.halts;
}

static void diff_side(struct hs_diff_side *s, const struct hs_report *r)
{
	memcpy(s->source, r->meta.source, sizeof(s->source));
	s->source[sizeof(s->source) - 1] = '\0';
	s->duration_s = r->duration_s;
	s->halt_poll_ns = r->meta.halt_poll_ns;
	s->vms_own_max = 0;
	s->vm_max_ns = -1;
	for (unsigned int i = 0; i < r->nvms; i++) {
		const struct hs_max_in_force *m = &r->vms[i].max;

		if (m->source != HS_MAX_CONTRADICTED || m->max_ns < 0)
			continue;
		s->vm_max_ns = !s->vms_own_max++ || s->vm_max_ns == m->max_ns ? m->max_ns : -2;
	}
	s->nvcpus = r->nvcpus;
	s->lost_events = r->meta.lost_events;
}

static void diff_rows(struct hs_diff *d, const struct hs_report *a, const struct hs_report *b,
		      const int *pair, const enum hs_diff_match *how, const bool *used_b)
{
	for (unsigned int i = 0; i < a->nvcpus; i++) {
		const struct hs_report_vcpu *va = &a->vcpus[i], *vb;
		struct hs_diff_row *r;

		if (pair[i] < 0) {
			diff_unmatched(d, 'a', va);
			continue;
		}
		vb = &b->vcpus[pair[i]];
		r = &d->rows[d->nrows++];
		memcpy(r->vm, va->vm, sizeof(r->vm));
		r->vm[sizeof(r->vm) - 1] = '\0';
		r->vcpu_index = va->vcpu_index >= 0 ? va->vcpu_index : vb->vcpu_index;
		r->tid_a = va->tid;
		r->tid_b = vb->tid;
		r->match = how[i];
		diff_row_fill(r, &va->stats, a->duration_s, &vb->stats, b->duration_s);
	}
	for (unsigned int j = 0; j < b->nvcpus; j++)
		if (!used_b[j])
			diff_unmatched(d, 'b', &b->vcpus[j]);
}

int hs_diff_build(struct hs_diff *d, const struct hs_report *a, const struct hs_report *b,
		  struct hs_error *err)
{
	int *pair = calloc(a->nvcpus + 1, sizeof(*pair));
	enum hs_diff_match *how = calloc(a->nvcpus + 1, sizeof(*how));
	bool *used_b = calloc(b->nvcpus + 1, sizeof(*used_b));
	unsigned int *oa = calloc(a->nvcpus + 1, sizeof(*oa));
	unsigned int *ob = calloc(b->nvcpus + 1, sizeof(*ob));
	int ret = 0;

	memset(d, 0, sizeof(*d));
	d->rows = calloc(a->nvcpus + 1, sizeof(*d->rows));
	d->unmatched = calloc((size_t)a->nvcpus + b->nvcpus + 1, sizeof(*d->unmatched));
	if (!pair || !how || !used_b || !oa || !ob || !d->rows || !d->unmatched) {
		ret = hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
		goto out;
	}
	diff_side(&d->a, a);
	diff_side(&d->b, b);
	snprintf(d->host.vm, sizeof(d->host.vm), "host");
	d->host.vcpu_index = -1;
	d->host.tid_a = d->host.tid_b = -1;
	d->host.match = HS_DIFF_TOTAL;
	diff_row_fill(&d->host, &a->host, a->duration_s, &b->host, b->duration_s);
	diff_match(a, b, pair, how, used_b, oa, ob);
	diff_rows(d, a, b, pair, how, used_b);
out:
	free(oa);
	free(ob);
	free(pair);
	free(how);
	free(used_b);
	return ret;
}

void hs_diff_free(struct hs_diff *d)
{
	free(d->rows);
	free(d->unmatched);
	memset(d, 0, sizeof(*d));
}
