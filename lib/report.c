// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "vmm.h"

/*
 * Builds the report model from a finished accounting: picks the vCPU threads
 * the filter asks for, names and groups them by VM, and computes every
 * number the writers print so that they compute nothing themselves.
 */

/* One selected vCPU thread while the report is built. */
struct hs_sel {
	const struct hs_vcpu_acct *v;
	int tgid;
	int vcpu_index;
	char comm[64];
	char vm[128];
	char vm_comm[64];
};

void hs_report_warn(struct hs_report *rep, const char *fmt, ...)
{
	char **w;
	char *s;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	/* a warning that does not fit in memory is dropped, not fatal */
	if (n < 0)
		return;
	w = realloc(rep->warnings, (rep->nwarnings + 1) * sizeof(*w));
	if (!w) {
		free(s);
		return;
	}
	rep->warnings = w;
	rep->warnings[rep->nwarnings++] = s;
}

/* Name, process, VM and vCPU index of a thread, from what the recording told. */
static void hs_identify(const struct hs_account *acct, int tid, int64_t vcpu_id, int *tgid,
			char *comm, size_t comm_len, char *vm, size_t vm_len, char *vm_comm,
			size_t vm_comm_len, int *vcpu_index)
{
	const struct hs_thread_info *t = hs_account_thread_info(acct, tid);
	const struct hs_process_info *p;

	*tgid = t ? t->tgid : -1;
	snprintf(comm, comm_len, "%s", t ? t->comm : "");
	vm_comm[0] = '\0';
	/* the name's index (lib/vmm.h), else the id KVM itself prints in kvm_halt_poll_ns */
	*vcpu_index = hs_vmm_vcpu_index(comm);
	if (*vcpu_index < 0 && vcpu_id >= 0 && vcpu_id <= INT_MAX)
		*vcpu_index = (int)vcpu_id;
	if (*tgid < 0) {
		snprintf(vm, vm_len, "unknown");
		return;
	}
	p = hs_account_process_info(acct, *tgid);
	if (p)
		snprintf(vm_comm, vm_comm_len, "%s", p->comm);
	if (p && p->vm_name[0])
		snprintf(vm, vm_len, "%s", p->vm_name);
	else if (p && p->comm[0])
		snprintf(vm, vm_len, "%s", p->comm);
	else
		snprintf(vm, vm_len, "pid %d", *tgid);
}

static void hs_sel_identify(struct hs_sel *s, const struct hs_account *acct,
			    const struct hs_vcpu_acct *v)
{
	memset(s, 0, sizeof(*s));
	s->v = v;
	hs_identify(acct, v->tid, v->vcpu_id, &s->tgid, s->comm, sizeof(s->comm), s->vm,
		    sizeof(s->vm), s->vm_comm, sizeof(s->vm_comm), &s->vcpu_index);
}

/* Every named thread: who is who in the recording, vCPU or not. */
static int hs_report_threads(struct hs_report *rep, const struct hs_account *acct)
{
	unsigned int n = hs_account_nthreads(acct);
	char vm_comm[64];

	rep->threads = calloc(n + 1, sizeof(*rep->threads));
	if (!rep->threads)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++) {
		const struct hs_thread_info *t = hs_account_thread_at(acct, i);
		const struct hs_vcpu_acct *v = hs_account_vcpu_of(acct, t->tid);
		struct hs_report_thread *r = &rep->threads[rep->nthreads++];

		r->tid = t->tid;
		r->vcpu = v != NULL;
		hs_identify(acct, t->tid, v ? v->vcpu_id : -1, &r->tgid, r->comm, sizeof(r->comm),
			    r->vm, sizeof(r->vm), vm_comm, sizeof(vm_comm), &r->vcpu_index);
	}
	return 0;
}

static bool hs_filter_pids(const struct hs_report_filter *f, int tid, int tgid)
{
	unsigned int i;

	for (i = 0; i < f->npids; i++)
		if (f->pids[i] == tid || (tgid >= 0 && f->pids[i] == tgid))
			return true;
	return false;
}

static bool hs_filter_match(const struct hs_report_filter *f, const struct hs_sel *s)
{
	char pid[16];

	if (!f)
		return true;
	if (f->npids && !hs_filter_pids(f, s->v->tid, s->tgid))
		return false;
	if (f->vm && f->vm[0] && strcmp(f->vm, s->vm)) {
		snprintf(pid, sizeof(pid), "%d", s->tgid);
		if (s->tgid < 0 || strcmp(f->vm, pid))
			return false;
	}
	return f->vcpu < 0 || s->vcpu_index == f->vcpu;
}

static bool hs_filter_active(const struct hs_report_filter *f)
{
	return f && (f->npids || (f->vm && f->vm[0]) || f->vcpu >= 0);
}

/* Order: known VMs by name then pid, the unknown VM last; vCPU index, unknown last; tid. */
static int hs_sel_cmp(const void *pa, const void *pb)
{
	const struct hs_sel *a = pa, *b = pb;
	int c;

	if ((a->tgid < 0) != (b->tgid < 0))
		return a->tgid < 0 ? 1 : -1;
	c = strcmp(a->vm, b->vm);
	if (c)
		return c;
	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	if ((a->vcpu_index < 0) != (b->vcpu_index < 0))
		return a->vcpu_index < 0 ? 1 : -1;
	if (a->vcpu_index != b->vcpu_index)
		return a->vcpu_index < b->vcpu_index ? -1 : 1;
	return (a->v->tid > b->v->tid) - (a->v->tid < b->v->tid);
}

/* Returns the number selected, or -ENOMEM. */
static int hs_report_select(const struct hs_account *acct, const struct hs_report_filter *f,
			    struct hs_sel **out)
{
	unsigned int i, n = hs_account_nvcpus(acct), k = 0;
	struct hs_sel *sel = calloc(n ? n : 1, sizeof(*sel));

	if (!sel)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct hs_vcpu_acct *v = hs_account_vcpu(acct, i);

		if (!v->halts && !v->grows && !v->shrinks)
			continue;
		hs_sel_identify(&sel[k], acct, v);
		if (hs_filter_match(f, &sel[k]))
			k++;
	}
	qsort(sel, k, sizeof(*sel), hs_sel_cmp);
	*out = sel;
	return (int)k;
}

static void hs_stats_counters(struct hs_halt_stats *s, const struct hs_vcpu_acct *v)
{
	s->halts += v->halts;
	s->poll_hits += v->poll_hits;
	s->waits += v->waits;
	s->poll_misses += v->poll_misses;
	s->nopoll_waits += v->nopoll_waits;
	s->unknown_waits += v->unknown_waits;
	s->invalid += v->invalid;
	s->grows += v->grows;
	s->shrinks += v->shrinks;
	s->flaps += v->flaps;
	s->sched_halts += v->sched_halts;
	s->contended_halts += v->contended_halts;
	s->sched_halt_ns += v->sched_halt_ns;
	s->contended_ns += v->contended_ns;
	for (unsigned int k = 0; k < HS_WSRC_COUNT; k++)
		s->inferred_waits[k] += v->inferred_waits[k];
	for (unsigned int k = 0; k < HS_UNK_COUNT; k++)
		s->unknown_why[k] += v->unknown_why[k];
}

static uint64_t hs_u64_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* A vCPU's polling CPU, which nothing may show above its own span. */
static void hs_stats_poll(struct hs_halt_stats *s, const struct hs_vcpu_acct *v)
{
	uint64_t span;

	s->poll_ns = v->poll_ns;
	s->poll_bounded_ns = v->poll_bounded_ns;
	s->polls_cut = v->polls_cut;
	s->first_start_ts = v->first_start_ts ? v->first_start_ts : v->first_ts;
	s->last_ts = v->last_ts;
	span = s->last_ts > s->first_start_ts ? s->last_ts - s->first_start_ts : 0;
	if (s->poll_ns <= span)
		return;
	s->poll_clamped = true;
	s->poll_ns = span;
	if (s->poll_bounded_ns > span)
		s->poll_bounded_ns = span;
}

/* A figure mostly exact is not called an upper bound for the few halts before the sched events reach back. */
static void hs_stats_poll_bound(struct hs_halt_stats *s)
{
	s->poll_upper_bound = (double)s->poll_bounded_ns > 0.01 * (double)s->poll_ns;
}

/* Sums of the vCPUs' (clamped) polling CPU, and the span they cover. */
static void hs_stats_poll_add(struct hs_halt_stats *into, const struct hs_halt_stats *from)
{
	into->poll_ns = hs_u64_add_sat(into->poll_ns, from->poll_ns);
	into->poll_bounded_ns = hs_u64_add_sat(into->poll_bounded_ns, from->poll_bounded_ns);
	into->polls_cut += from->polls_cut;
	into->poll_clamped |= from->poll_clamped;
	if (!into->first_start_ts || from->first_start_ts < into->first_start_ts)
		into->first_start_ts = from->first_start_ts;
	if (from->last_ts > into->last_ts)
		into->last_ts = from->last_ts;
}

/* The shares of the summed contention counters: unknown without a tracked halt. */
static void hs_stats_contention(struct hs_halt_stats *s)
{
	s->contended_share = s->sched_halts ? (double)s->contended_halts / s->sched_halts : -1;
	s->contended_time_share = s->sched_halt_ns ?
				  (double)s->contended_ns / (double)s->sched_halt_ns : -1;
}

static void hs_stats_hist(struct hs_halt_stats *s, const struct hs_hist *h)
{
	s->sum_ns = h->sum;
	s->min_ns = h->min;
	s->max_ns = h->max;
	s->mean_ns = h->count ? (double)h->sum / (double)h->count : 0;
	s->p50_ns = hs_hist_quantile(h, 0.5);
	s->p90_ns = hs_hist_quantile(h, 0.9);
	s->p99_ns = hs_hist_quantile(h, 0.99);
	s->p999_ns = hs_hist_quantile(h, 0.999);
	s->hit_rate = s->halts ? (double)s->poll_hits / (double)s->halts : 0;
}

/* Window figures summed over several threads: time-weighted mean, largest last value. */
struct hs_window_sum {
	double area;
	uint64_t time;
	int64_t last;
};

static void hs_window_sum_add(struct hs_window_sum *w, const struct hs_vcpu_acct *v)
{
	w->area += v->window_area;
	w->time += v->window_time;
	if (v->window > w->last)
		w->last = v->window;
}

static void hs_window_sum_put(struct hs_halt_stats *s, const struct hs_window_sum *w)
{
	s->window_last_ns = w->last;
	if (w->time)
		s->window_mean_ns = w->area / (double)w->time;
	else
		s->window_mean_ns = w->last >= 0 ? (double)w->last : -1;
}

static void hs_log2_add(struct hs_log2_hist *into, const struct hs_log2_hist *from)
{
	unsigned int i;

	for (i = 0; i < HS_LOG2_BUCKETS; i++) {
		into->poll[i] += from->poll[i];
		into->wait[i] += from->wait[i];
	}
}

static uint64_t *hs_u64_dup(const uint64_t *src, size_t n)
{
	uint64_t *p = malloc(n * sizeof(*p));

	if (p)
		memcpy(p, src, n * sizeof(*p));
	return p;
}

static int hs_vcpu_linear(struct hs_report_vcpu *r, const struct hs_vcpu_acct *v,
			  const struct hs_account_opts *o)
{
	size_t n = (size_t)o->linear_entries + 1;

	if (!v->linear_poll || !v->linear_wait)
		return 0;
	r->linear.bucket_ns = o->linear_bucket_ns;
	r->linear.entries = o->linear_entries;
	r->linear.poll = hs_u64_dup(v->linear_poll, n);
	r->linear.wait = hs_u64_dup(v->linear_wait, n);
	return r->linear.poll && r->linear.wait ? 0 : -ENOMEM;
}

static void hs_vcpu_whatif(struct hs_report_vcpu *r, const struct hs_vcpu_acct *v)
{
	r->selfcheck.agree_pct = -1;
	hs_max_in_force_init(&r->max);
	if (!v->whatif)
		return;
	r->n_what_if = hs_whatif_rows(v->whatif, r->what_if);
	if (r->n_what_if > HS_WHATIF_MAX_CANDIDATES)
		r->n_what_if = HS_WHATIF_MAX_CANDIDATES;
	hs_whatif_selfcheck(v->whatif, &r->selfcheck);
	r->max.module_ns = r->selfcheck.module_max_ns;
	r->max.lo = r->selfcheck.max_lo;
	r->max.hi = r->selfcheck.max_hi;
	r->max.soft = r->selfcheck.max_soft;
	r->max.source = r->selfcheck.max_source;
	r->max.max_ns = r->max.source == HS_MAX_NONE ? -1 : (int64_t)r->selfcheck.replayed_max_ns;
	r->max.nvcpus = r->max.lo > 0 || r->max.hi != UINT64_MAX;
	r->wake_overhead_ns = hs_whatif_wake_overhead_ns(v->whatif);
	hs_whatif_wake_overhead_range(v->whatif, &r->wake_overhead_lo_ns, &r->wake_overhead_hi_ns);
	hs_whatif_wake_overhead_measured(v->whatif, &r->wake_measured);
	hs_whatif_wake_model(v->whatif, &r->wake);
}

static int hs_vcpu_fill(struct hs_report_vcpu *r, const struct hs_sel *s,
			const struct hs_account *acct)
{
	const struct hs_vcpu_acct *v = s->v;
	struct hs_window_sum w = { .last = HS_WINDOW_UNKNOWN };

	r->tid = v->tid;
	r->tgid = s->tgid;
	memcpy(r->comm, s->comm, sizeof(r->comm));
	r->vcpu_index = s->vcpu_index;
	r->vcpu_id = v->vcpu_id;
	memcpy(r->vm, s->vm, sizeof(r->vm));
	hs_stats_counters(&r->stats, v);
	hs_stats_poll(&r->stats, v);
	hs_stats_poll_bound(&r->stats);
	hs_stats_contention(&r->stats);
	hs_stats_hist(&r->stats, &v->all);
	hs_window_sum_add(&w, v);
	hs_window_sum_put(&r->stats, &w);
	memcpy(r->log2.poll, v->log2_poll, sizeof(r->log2.poll));
	memcpy(r->log2.wait, v->log2_wait, sizeof(r->log2.wait));
	hs_vcpu_whatif(r, v);
	r->timed_waits = v->timed_waits;
	r->suggested_row = -1;
	r->hist = malloc(sizeof(*r->hist));
	if (!r->hist)
		return -ENOMEM;
	*r->hist = v->all;
	return hs_vcpu_linear(r, v, hs_account_options(acct));
}

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

static void hs_agg_reset(struct hs_agg *g)
{
	struct hs_hist *h = g->hist;

	memset(g, 0, sizeof(*g));
	g->hist = h;
	hs_hist_init(h);
	g->win.last = HS_WINDOW_UNKNOWN;
	hs_max_in_force_init(&g->max);
}

static void hs_agg_add(struct hs_agg *g, const struct hs_report_vcpu *r,
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

static void hs_agg_stats(struct hs_agg *g)
{
	hs_stats_poll_bound(&g->stats);
	hs_stats_contention(&g->stats);
	hs_stats_hist(&g->stats, g->hist);
	hs_window_sum_put(&g->stats, &g->win);
}

static void hs_vm_put(struct hs_report_vm *vm, struct hs_agg *g, const struct hs_sel *s,
		      unsigned int nvcpus)
{
	hs_agg_stats(g);
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

static unsigned int hs_count_vms(const struct hs_sel *sel, unsigned int n)
{
	unsigned int i, k = n ? 1 : 0;

	for (i = 1; i < n; i++)
		k += sel[i].tgid != sel[i - 1].tgid;
	return k;
}

/* sel is sorted, so each VM's threads are consecutive. */
static void hs_report_group(struct hs_report *rep, const struct hs_sel *sel,
			    struct hs_agg *vm, struct hs_agg *host)
{
	unsigned int i, start = 0;

	for (i = 0; i < rep->nvcpus; i++) {
		if (i > start && sel[i].tgid != sel[start].tgid) {
			hs_vm_put(&rep->vms[rep->nvms++], vm, &sel[start], i - start);
			start = i;
		}
		if (i == start)
			hs_agg_reset(vm);
		hs_agg_add(vm, &rep->vcpus[i], sel[i].v, i == start);
		hs_agg_add(host, &rep->vcpus[i], sel[i].v, i == 0);
	}
	if (rep->nvcpus)
		hs_vm_put(&rep->vms[rep->nvms++], vm, &sel[start], i - start);
	hs_agg_stats(host);
	rep->host = host->stats;
	rep->host_log2 = host->log2;
	memcpy(rep->host_what_if, host->what_if, sizeof(rep->host_what_if));
	rep->n_host_what_if = host->n_what_if;
}

static int hs_report_vms(struct hs_report *rep, const struct hs_sel *sel)
{
	struct hs_agg *vm = calloc(1, sizeof(*vm)), *host = calloc(1, sizeof(*host));
	int ret = -ENOMEM;

	rep->vms = calloc(hs_count_vms(sel, rep->nvcpus) + 1, sizeof(*rep->vms));
	if (!vm || !host || !rep->vms)
		goto out;
	vm->hist = malloc(sizeof(*vm->hist));
	host->hist = malloc(sizeof(*host->hist));
	if (!vm->hist || !host->hist)
		goto out;
	hs_agg_reset(host);
	hs_report_group(rep, sel, vm, host);
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
static int hs_vm_linear(const struct hs_report *rep, struct hs_report_vm *vm)
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
		return -ENOMEM;
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
static int hs_busier(const struct hs_halt_stats *a, const struct hs_halt_stats *b)
{
	if (a->poll_ns != b->poll_ns)
		return a->poll_ns > b->poll_ns ? -1 : 1;
	if (a->halts != b->halts)
		return a->halts > b->halts ? -1 : 1;
	return 0;
}

static int hs_vm_busier(const void *pa, const void *pb, void *arg)
{
	const struct hs_report *rep = arg;
	unsigned int a = *(const unsigned int *)pa, b = *(const unsigned int *)pb;
	int c = hs_busier(&rep->vms[a].stats, &rep->vms[b].stats);

	return c ? c : (a > b) - (a < b);
}

static int hs_vcpu_busier(const void *pa, const void *pb, void *arg)
{
	const struct hs_report *rep = arg;
	unsigned int a = *(const unsigned int *)pa, b = *(const unsigned int *)pb;
	int c = hs_busier(&rep->vcpus[a].stats, &rep->vcpus[b].stats);

	return c ? c : (a > b) - (a < b);
}

static int hs_report_order(struct hs_report *rep)
{
	rep->vm_order = calloc(rep->nvms + 1, sizeof(*rep->vm_order));
	rep->vcpu_order = calloc(rep->nvcpus + 1, sizeof(*rep->vcpu_order));
	if (!rep->vm_order || !rep->vcpu_order)
		return -ENOMEM;
	for (unsigned int i = 0; i < rep->nvms; i++)
		rep->vm_order[i] = i;
	for (unsigned int i = 0; i < rep->nvcpus; i++)
		rep->vcpu_order[i] = i;
	qsort_r(rep->vm_order, rep->nvms, sizeof(*rep->vm_order), hs_vm_busier, rep);
	qsort_r(rep->vcpu_order, rep->nvcpus, sizeof(*rep->vcpu_order), hs_vcpu_busier, rep);
	return 0;
}

/*
 * The host's CPUs cannot poll more than all of their time: where the vCPUs'
 * sum says otherwise each is scaled down alike (and the report warns).
 */
static void hs_report_poll_host_clamp(struct hs_report *rep)
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

static void hs_report_warn_poll_clamp(struct hs_report *rep)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < rep->nvcpus; i++)
		n += rep->vcpus[i].stats.poll_clamped;
	if (rep->poll_host_clamped)
		hs_report_warn(rep, "the vCPUs' polling CPU came out above all the time of the "
			       "host's %d CPUs and was scaled down to it: a bug, or a bad input",
			       rep->meta.ncpus);
	else if (n)
		hs_report_warn(rep, "the polling CPU of %u vCPU%s came out above %s own span and "
			       "was cut down to it: a bug, or a bad input", n, n == 1 ? "" : "s",
			       n == 1 ? "its" : "their");
}

static int hs_report_vcpus(struct hs_report *rep, const struct hs_account *acct,
			   const struct hs_report_filter *filter, bool *filtered_out)
{
	struct hs_sel *sel;
	int n = hs_report_select(acct, filter, &sel);
	unsigned int i;
	int ret = -ENOMEM;

	if (n < 0)
		return n;
	*filtered_out = n == 0 && hs_filter_active(filter) && hs_account_nvcpus(acct);
	rep->vcpus = calloc((size_t)n + 1, sizeof(*rep->vcpus));
	if (!rep->vcpus)
		goto out;
	for (i = 0; i < (unsigned int)n; i++) {
		rep->nvcpus++;
		if (hs_vcpu_fill(&rep->vcpus[i], &sel[i], acct))
			goto out;
	}
	hs_report_poll_host_clamp(rep);
	ret = hs_report_vms(rep, sel);
	for (i = 0; !ret && i < rep->nvms; i++)
		ret = hs_vm_linear(rep, &rep->vms[i]);
	if (!ret)
		ret = hs_report_order(rep);
out:
	free(sel);
	return ret;
}

/*
 * The recorded names of the idle states; a recording without them (older
 * files, pasted text) still knows the haltpoll driver's two.
 */
static void hs_report_idle_names(struct hs_report *rep)
{
	bool haltpoll = !strcmp(rep->meta.cpuidle_driver, "haltpoll");

	for (unsigned int s = 0; s < HS_IDLE_STATES; s++) {
		const char *name = rep->meta.idle_state_name[s];

		if (!name[0] && haltpoll && s <= 1)
			name = s == 0 ? "POLL" : "haltpoll idle";
		snprintf(rep->idle_state_name[s], sizeof(rep->idle_state_name[s]), "%s", name);
	}
}

static void hs_report_header(struct hs_report *rep, const struct hs_account *acct)
{
	uint64_t lost;

	/* hs_account_meta() only hands out a pointer; the copy leaves acct untouched */
	rep->meta = *hs_account_meta((struct hs_account *)acct);
	rep->first_ts = hs_account_first_ts(acct);
	rep->last_ts = hs_account_last_ts(acct);
	rep->duration_s = (double)(rep->last_ts - rep->first_ts) / 1e9;
	rep->events_wakeup = hs_account_events(acct, HS_EV_VCPU_WAKEUP);
	rep->events_poll_ns = hs_account_events(acct, HS_EV_HALT_POLL_NS);
	rep->events_idle = hs_account_events(acct, HS_EV_CPU_IDLE);
	rep->events_guest_poll = hs_account_events(acct, HS_EV_GUEST_HALT_POLL_NS);
	rep->events_sched_switch = hs_account_events(acct, HS_EV_SCHED_SWITCH);
	rep->events_sched_wakeup = hs_account_events(acct, HS_EV_SCHED_WAKEUP);
	rep->events_sched_waking = hs_account_events(acct, HS_EV_SCHED_WAKING);
	rep->events_total = rep->events_wakeup + rep->events_poll_ns + rep->events_idle +
			    rep->events_guest_poll + rep->events_sched_switch +
			    rep->events_sched_wakeup + rep->events_sched_waking;
	hs_report_idle_names(rep);
	lost = rep->meta.lost_events;
	if (!rep->meta.lost_known)
		rep->lost_pct = -1;
	else if (lost)
		rep->lost_pct = (double)lost / ((double)rep->events_total + (double)lost) * 100;
}

/* A guest CPU's replay of the haltpoll governor, and its sum into the guest layer's totals. */
static void hs_report_guest_whatif(struct hs_report *rep, struct hs_report_guest_cpu *r,
				   const struct hs_guest_whatif *w)
{
	if (!w)
		return;
	r->n_what_if = hs_guest_whatif_rows(w, r->what_if);
	hs_guest_whatif_selfcheck(w, &r->selfcheck);
	r->halt_extra_ns = hs_guest_whatif_halt_extra_ns(w, &r->halt_extra_samples);
	rep->guest_replayed = *hs_guest_whatif_params(w);
	if (!r->n_what_if || !r->what_if[0].wakes)
		return;
	/* the metadata is the same for every CPU, and so are the candidates */
	if (rep->n_guest_what_if && rep->n_guest_what_if != r->n_what_if)
		return;
	rep->n_guest_what_if = r->n_what_if;
	hs_guest_whatif_rows_sum(rep->guest_what_if, r->what_if, r->n_what_if);
	rep->active_guest_cpus++;
}

static void hs_report_guest_extra(struct hs_report *rep)
{
	double sum = 0, w = 0;

	for (unsigned int i = 0; i < rep->nguest; i++) {
		const struct hs_report_guest_cpu *g = &rep->guest[i];
		double wakes = g->n_what_if ? (double)g->what_if[0].wakes : 0;

		sum += (double)g->halt_extra_ns * wakes;
		w += wakes;
	}
	rep->guest_halt_extra_ns = w ? (uint64_t)(sum / w + 0.5) : 0;
	for (unsigned int j = 0; j < rep->n_guest_what_if; j++)
		rep->guest_what_if[j].poll_cpu_pct_per_cpu = rep->guest_what_if[j].poll_cpu_pct /
			(rep->active_guest_cpus ? rep->active_guest_cpus : 1);
}

static int hs_report_guest(struct hs_report *rep, const struct hs_account *acct)
{
	unsigned int i, n = hs_account_nguest(acct);

	rep->guest = calloc(n + 1, sizeof(*rep->guest));
	if (!rep->guest)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct hs_guest_cpu_acct *g = hs_account_guest(acct, i);
		struct hs_report_guest_cpu *r = &rep->guest[i];

		r->cpu = g->cpu;
		memcpy(r->entries, g->entries, sizeof(r->entries));
		memcpy(r->residency_ns, g->residency_ns, sizeof(r->residency_ns));
		r->poll_hits = g->poll_hits;
		r->poll_misses = g->poll_misses;
		r->grows = g->grows;
		r->shrinks = g->shrinks;
		r->window_last_ns = g->window;
		if (g->window_time)
			r->window_mean_ns = g->window_area / (double)g->window_time;
		else
			r->window_mean_ns = g->window >= 0 ? (double)g->window : -1;
		hs_report_guest_whatif(rep, r, g->whatif);
	}
	rep->nguest = n;
	hs_report_guest_extra(rep);
	return 0;
}

static void hs_report_warn_losses(struct hs_report *rep)
{
	const struct hs_meta *m = &rep->meta;

	if (m->lost_events && rep->lost_pct >= 0)
		hs_report_warn(rep, "lost %llu events (%.2f%%): results may be inaccurate",
			       (unsigned long long)m->lost_events, rep->lost_pct);
	else if (m->lost_events)
		hs_report_warn(rep, "lost %llu events: results may be inaccurate",
			       (unsigned long long)m->lost_events);
	if (m->lost_unknown_places)
		hs_report_warn(rep, "events were lost in %llu places (count unknown): "
			       "results may be inaccurate",
			       (unsigned long long)m->lost_unknown_places);
	if (m->skipped_lines)
		hs_report_warn(rep, "skipped %llu unreadable input lines",
			       (unsigned long long)m->skipped_lines);
	if (m->skipped_pages)
		hs_report_warn(rep, "skipped %llu damaged pages of the trace",
			       (unsigned long long)m->skipped_pages);
	if (m->skipped_events)
		hs_report_warn(rep, "skipped %llu malformed events",
			       (unsigned long long)m->skipped_events);
	if (m->clamped_ts)
		hs_report_warn(rep, "%llu events had a time stamp earlier than the one before "
			       "on their CPU: taken as simultaneous",
			       (unsigned long long)m->clamped_ts);
	_Static_assert(HS_ACCOUNT_MAX_VCPUS == HS_ACCOUNT_MAX_GUEST_CPUS,
		       "the warning names one limit for both");
	if (m->over_limit_events)
		hs_report_warn(rep, "%llu events of vCPU threads or guest CPUs past the first "
			       "%d of each were not analysed",
			       (unsigned long long)m->over_limit_events, HS_ACCOUNT_MAX_VCPUS);
}

static void hs_report_warn_filter(struct hs_report *rep, const struct hs_report_filter *f)
{
	char what[256] = "";
	size_t len = 0;
	unsigned int i;

	if (f->vm && f->vm[0])
		len += (size_t)snprintf(what + len, sizeof(what) - len, " VM \"%.64s\"", f->vm);
	if (f->vcpu >= 0 && len < sizeof(what))
		len += (size_t)snprintf(what + len, sizeof(what) - len, " vCPU %d", f->vcpu);
	for (i = 0; i < f->npids && len < sizeof(what); i++)
		len += (size_t)snprintf(what + len, sizeof(what) - len, "%s%d",
					i ? "," : " pid ", f->pids[i]);
	hs_report_warn(rep, "no vCPU thread matches the filter:%s", what);
}

static enum hs_kvm_seen hs_report_kvm_seen(const struct hs_report *rep)
{
	if (rep->events_wakeup)
		return HS_KVM_HALTING;
	if (rep->meta.kvm_formats > 0 || rep->events_poll_ns)
		return HS_KVM_IDLE;
	return rep->meta.kvm_formats == 0 ? HS_KVM_ABSENT : HS_KVM_UNKNOWN;
}

/* Words for a report without halts that fit what the input shows; true when added. */
static bool hs_report_warn_kvm(struct hs_report *rep)
{
	unsigned int n = rep->nwarnings;

	if (rep->kvm == HS_KVM_IDLE)
		hs_report_warn(rep, "kvm was loaded (the input has its event formats or events) "
			       "but no vCPU halted: no VM ran, or none went idle");
	else if (rep->kvm == HS_KVM_ABSENT)
		hs_report_warn(rep, "no kvm event formats in the input: kvm was not loaded where "
			       "it was recorded, or that is not a KVM host");
	else
		hs_report_warn(rep, "no kvm_vcpu_wakeup events, and the input does not tell "
			       "whether kvm was loaded (pasted text keeps no event formats)");
	return rep->nwarnings > n;
}

static void hs_report_warnings(struct hs_report *rep, const struct hs_account *acct,
			       const struct hs_report_filter *f, bool filtered_out)
{
	const struct hs_account_opts *o = hs_account_options(acct);

	hs_report_warn_losses(rep);
	hs_report_warn_poll_clamp(rep);
	rep->kvm = hs_report_kvm_seen(rep);
	if (!rep->events_total && (o->start_ns || o->end_ns))
		hs_report_warn(rep, "no events in the selected time range");
	else if (rep->kvm != HS_KVM_HALTING && hs_report_warn_kvm(rep))
		rep->kvm_note = rep->warnings[rep->nwarnings - 1];
	if (filtered_out)
		hs_report_warn_filter(rep, f);
}

static void hs_stats_rates(struct hs_halt_stats *s, double seconds)
{
	s->halts_per_s = seconds > 0 ? (double)s->halts / seconds : 0;
	s->poll_cpu_pct = seconds > 0 ? (double)s->poll_ns / (seconds * 1e9) * 100 : 0;
}

static void hs_whatif_per_vcpu(struct hs_whatif_row *rows, unsigned int n, unsigned int nvcpus)
{
	for (unsigned int i = 0; i < n; i++)
		rows[i].poll_cpu_pct_per_vcpu = rows[i].poll_cpu_pct / (nvcpus ? nvcpus : 1);
}

static void hs_guest_rates(struct hs_report_guest_cpu *g, double seconds)
{
	uint64_t polls = g->poll_hits + g->poll_misses;

	g->entries_total = g->residency_total_ns = 0;
	for (unsigned int s = 0; s < HS_IDLE_STATES; s++) {
		g->entries_total += g->entries[s];
		g->residency_total_ns += g->residency_ns[s];
		g->residency_pct[s] = seconds > 0 ? (double)g->residency_ns[s] / (seconds * 1e9) * 100
						  : -1;
	}
	g->entries_per_s = seconds > 0 ? (double)g->entries_total / seconds : -1;
	g->poll_entries_per_s = seconds > 0 ? (double)g->entries[0] / seconds : -1;
	g->idle_pct = seconds > 0 ? (double)g->residency_total_ns / (seconds * 1e9) * 100 : -1;
	g->poll_cpu_pct = g->residency_pct[0];
	g->poll_hit_rate = polls ? (double)g->poll_hits / (double)polls : -1;
}

void hs_report_rates(struct hs_report *rep, double seconds)
{
	unsigned int vm_active;

	rep->span_s = seconds;
	rep->active_vcpus = 0;
	hs_stats_rates(&rep->host, seconds);
	for (unsigned int i = 0; i < rep->nvcpus; i++) {
		struct hs_report_vcpu *v = &rep->vcpus[i];

		hs_stats_rates(&v->stats, seconds);
		hs_whatif_per_vcpu(v->what_if, v->n_what_if, 1);
		rep->active_vcpus += v->stats.halts > 0;
	}
	for (unsigned int i = 0; i < rep->nvms; i++) {
		struct hs_report_vm *m = &rep->vms[i];

		hs_stats_rates(&m->stats, seconds);
		vm_active = 0;
		for (unsigned int k = 0; k < rep->nvcpus; k++)
			vm_active += hs_report_vcpu_in_vm(&rep->vcpus[k], m) &&
				     rep->vcpus[k].stats.halts > 0;
		hs_whatif_per_vcpu(m->what_if, m->n_what_if, vm_active);
	}
	hs_whatif_per_vcpu(rep->host_what_if, rep->n_host_what_if, rep->active_vcpus);
	for (unsigned int i = 0; i < rep->nguest; i++)
		hs_guest_rates(&rep->guest[i], seconds);
}

/* Returns 0 or -ENOMEM (rep is then freed and empty). acct must be finished. */
int hs_report_build(struct hs_report *rep, const struct hs_account *acct,
		    const struct hs_report_filter *filter)
{
	bool filtered_out = false;

	memset(rep, 0, sizeof(*rep));
	hs_report_header(rep, acct);
	if (hs_report_vcpus(rep, acct, filter, &filtered_out) || hs_report_guest(rep, acct) ||
	    (filter && filter->threads && hs_report_threads(rep, acct))) {
		hs_report_free(rep);
		return -ENOMEM;
	}
	hs_report_rates(rep, rep->duration_s);
	hs_report_warnings(rep, acct, filter, filtered_out);
	return 0;
}

void hs_report_free(struct hs_report *rep)
{
	unsigned int i;

	for (i = 0; i < rep->nvcpus; i++) {
		free(rep->vcpus[i].hist);
		free(rep->vcpus[i].linear.poll);
		free(rep->vcpus[i].linear.wait);
	}
	free(rep->vcpus);
	for (i = 0; i < rep->nvms; i++) {
		hs_advice_free(&rep->vms[i].advice);
		free(rep->vms[i].linear.poll);
		free(rep->vms[i].linear.wait);
	}
	free(rep->vms);
	free(rep->vm_order);
	free(rep->vcpu_order);
	hs_advice_free(&rep->advice);
	hs_advice_free(&rep->guest_advice);
	free(rep->guest);
	free(rep->threads);
	for (i = 0; i < rep->nwarnings; i++)
		free(rep->warnings[i]);
	free(rep->warnings);
	memset(rep, 0, sizeof(*rep));
}
