// SPDX-License-Identifier: GPL-2.0-only
/*
 * The vCPU rows grouped into VMs and the host total, the busiest first;
 * what no CPU can have polled is scaled down to what it could.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "report_group.h"
#include "report_stats.h"

/* A VM or host total in the making. */
struct hs_agg {
	struct hs_halt_stats stats;
	struct hs_log2_hist log2;
	struct hs_hist *hist;
	struct hs_window_sum win;
	struct hs_whatif_row what_if[HS_WHATIF_MAX_CANDIDATES];
	unsigned int n_what_if;
	struct hs_max_in_force max;
};

static void agg_reset(struct hs_agg *g)
{
	struct hs_hist *h = g->hist;

	memset(g, 0, sizeof(*g));
	g->hist = h;
	hs_hist_init(h);
	g->win.last = HS_WINDOW_UNKNOWN;
	hs_max_in_force_init(&g->max);
}

static void agg_add(struct hs_agg *g, const struct hs_report_vcpu *r,
		    const struct hs_vcpu_acct *v, bool first)
{
	unsigned int n = r->n_what_if;

	hs_stats_counters(&g->stats, v);
	hs_stats_poll_add(&g->stats, &r->stats);
	if (v->whatif)
		hs_max_in_force_add(&g->max, &r->selfcheck);
	hs_hist_merge(g->hist, &v->all);
	hs_window_sum_add(&g->win, v);
	hs_log2_add(&g->log2, &r->log2);
	if (first) {
		memcpy(g->what_if, r->what_if, n * sizeof(r->what_if[0]));
		g->n_what_if = n;
		return;
	}
	/* every vCPU replays the same candidates; keep the common prefix if not */
	if (n < g->n_what_if)
		g->n_what_if = n;
	hs_whatif_rows_sum(g->what_if, r->what_if, g->n_what_if);
}

static void agg_stats(struct hs_agg *g)
{
	hs_stats_poll_bound(&g->stats);
	hs_stats_contention(&g->stats);
	hs_stats_hist(&g->stats, g->hist);
	hs_window_sum_put(&g->stats, &g->win);
}

static void vm_put(struct hs_report_vm *vm, struct hs_agg *g, const struct hs_sel *s,
		   unsigned int nvcpus)
{
	agg_stats(g);
	vm->tgid = s->tgid;
	memcpy(vm->name, s->vm, sizeof(vm->name));
	memcpy(vm->comm, s->vm_comm, sizeof(vm->comm));
	vm->nvcpus = nvcpus;
	vm->stats = g->stats;
	vm->log2 = g->log2;
	hs_max_in_force_decide(&g->max);
	vm->max = g->max;
	memcpy(vm->what_if, g->what_if, sizeof(vm->what_if));
	vm->n_what_if = g->n_what_if;
}

static unsigned int count_vms(const struct hs_sel *sel, unsigned int n)
{
	unsigned int i, k = n ? 1 : 0;

	for (i = 1; i < n; i++)
		k += sel[i].tgid != sel[i - 1].tgid;
	return k;
}

/* sel is sorted, so each VM's threads are consecutive. */
static void group_vcpus(struct hs_report *rep, const struct hs_sel *sel,
			struct hs_agg *vm, struct hs_agg *host)
{
	unsigned int i, start = 0;

	for (i = 0; i < rep->nvcpus; i++) {
		if (i > start && sel[i].tgid != sel[start].tgid) {
			vm_put(&rep->vms[rep->nvms++], vm, &sel[start], i - start);
			start = i;
		}
		if (i == start)
			agg_reset(vm);
		agg_add(vm, &rep->vcpus[i], sel[i].v, i == start);
		agg_add(host, &rep->vcpus[i], sel[i].v, i == 0);
	}
	if (rep->nvcpus)
		vm_put(&rep->vms[rep->nvms++], vm, &sel[start], i - start);
	agg_stats(host);
	rep->host = host->stats;
	rep->host_log2 = host->log2;
	memcpy(rep->host_what_if, host->what_if, sizeof(rep->host_what_if));
	rep->n_host_what_if = host->n_what_if;
}

int hs_report_vms(struct hs_report *rep, const struct hs_sel *sel)
{
	struct hs_agg *vm = calloc(1, sizeof(*vm)), *host = calloc(1, sizeof(*host));
	int ret = HS_ERR_RUNTIME;

	rep->vms = calloc(count_vms(sel, rep->nvcpus) + 1, sizeof(*rep->vms));
	if (!vm || !host || !rep->vms)
		goto out;
	vm->hist = malloc(sizeof(*vm->hist));
	host->hist = malloc(sizeof(*host->hist));
	if (!vm->hist || !host->hist)
		goto out;
	agg_reset(host);
	group_vcpus(rep, sel, vm, host);
	ret = 0;
out:
	if (vm)
		free(vm->hist);
	if (host)
		free(host->hist);
	free(vm);
	free(host);
	return ret;
}

/* A VM's linear table: the sum of its vCPUs' when they all have one of the same shape. */
int hs_vm_linear(const struct hs_report *rep, struct hs_report_vm *vm)
{
	const struct hs_linear_hist *ref = NULL;
	struct hs_linear_hist *sum = &vm->linear;

	for (unsigned int i = 0; i < rep->nvcpus; i++) {
		const struct hs_linear_hist *l = &rep->vcpus[i].linear;

		if (!hs_report_vcpu_in_vm(&rep->vcpus[i], vm))
			continue;
		if (!l->entries || !l->poll || !l->wait ||
		    (ref && (ref->entries != l->entries || ref->bucket_ns != l->bucket_ns)))
			return 0;
		ref = l;
	}
	if (!ref)
		return 0;
	sum->poll = calloc(ref->entries + 1, sizeof(uint64_t));
	sum->wait = calloc(ref->entries + 1, sizeof(uint64_t));
	if (!sum->poll || !sum->wait)
		return HS_ERR_RUNTIME;
	sum->bucket_ns = ref->bucket_ns;
	sum->entries = ref->entries;
	for (unsigned int i = 0; i < rep->nvcpus; i++) {
		if (!hs_report_vcpu_in_vm(&rep->vcpus[i], vm))
			continue;
		for (unsigned int k = 0; k <= sum->entries; k++) {
			sum->poll[k] += rep->vcpus[i].linear.poll[k];
			sum->wait[k] += rep->vcpus[i].linear.wait[k];
		}
	}
	return 0;
}

/* Busier first: more polling CPU, then more halts; 0 when alike. */
static int busier(const struct hs_halt_stats *a, const struct hs_halt_stats *b)
{
	if (a->poll_ns != b->poll_ns)
		return a->poll_ns > b->poll_ns ? -1 : 1;
	if (a->halts != b->halts)
		return a->halts > b->halts ? -1 : 1;
	return 0;
}

static int vm_busier(const void *pa, const void *pb, void *arg)
{
	const struct hs_report *rep = arg;
	unsigned int a = *(const unsigned int *)pa, b = *(const unsigned int *)pb;
	int c = busier(&rep->vms[a].stats, &rep->vms[b].stats);

	return c ? c : (a > b) - (a < b);
}

static int vcpu_busier(const void *pa, const void *pb, void *arg)
{
	const struct hs_report *rep = arg;
	unsigned int a = *(const unsigned int *)pa, b = *(const unsigned int *)pb;
	int c = busier(&rep->vcpus[a].stats, &rep->vcpus[b].stats);

	return c ? c : (a > b) - (a < b);
}

int hs_report_order(struct hs_report *rep)
{
	rep->vm_order = calloc(rep->nvms + 1, sizeof(*rep->vm_order));
	rep->vcpu_order = calloc(rep->nvcpus + 1, sizeof(*rep->vcpu_order));
	if (!rep->vm_order || !rep->vcpu_order)
		return HS_ERR_RUNTIME;
	for (unsigned int i = 0; i < rep->nvms; i++)
		rep->vm_order[i] = i;
	for (unsigned int i = 0; i < rep->nvcpus; i++)
		rep->vcpu_order[i] = i;
	qsort_r(rep->vm_order, rep->nvms, sizeof(*rep->vm_order), vm_busier, rep);
	qsort_r(rep->vcpu_order, rep->nvcpus, sizeof(*rep->vcpu_order), vcpu_busier, rep);
	return 0;
}

/*
 * The host's CPUs cannot poll more than all of their time: where the vCPUs'
 * sum says otherwise each is scaled down alike (and the report warns).
 */
void hs_report_poll_host_clamp(struct hs_report *rep)
{
	struct hs_halt_stats all = { 0 };
	uint64_t span, limit;
	double f;

	if (rep->meta.ncpus <= 0)
		return;
	for (unsigned int i = 0; i < rep->nvcpus; i++)
		hs_stats_poll_add(&all, &rep->vcpus[i].stats);
	span = all.last_ts > all.first_start_ts ? all.last_ts - all.first_start_ts : 0;
	limit = span > UINT64_MAX / (uint64_t)rep->meta.ncpus ? UINT64_MAX :
		span * (uint64_t)rep->meta.ncpus;
	if (all.poll_ns <= limit)
		return;
	f = (double)limit / (double)all.poll_ns;
	rep->poll_host_clamped = true;
	for (unsigned int i = 0; i < rep->nvcpus; i++) {
		struct hs_halt_stats *v = &rep->vcpus[i].stats;

		v->poll_ns = (uint64_t)((double)v->poll_ns * f);
		v->poll_bounded_ns = (uint64_t)((double)v->poll_bounded_ns * f);
		v->poll_clamped = true;
	}
}
