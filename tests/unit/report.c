// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/report.c: grouping, ordering, filters, merged percentiles and warnings,
 * checked against numbers this test computes from the events it feeds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/advice.h"
#include "../../lib/report_build.h"
#include "../../lib/report.h"
#include "check.h"

#define NVALS 20000

static uint64_t vals[NVALS];	/* every halt duration fed, for exact quantiles */
static unsigned int nvals;
static uint64_t clock_ns = 1000000000;
static void wake(struct hs_account *a, int tid, uint64_t ns, bool waited)
{
	struct hs_event ev = { .ts = clock_ns, .tid = tid, .kind = HS_EV_VCPU_WAKEUP };

	clock_ns += 1000;
	ev.wakeup.ns = ns;
	ev.wakeup.waited = waited;
	ev.wakeup.valid = 1;
	if (hs_account_event(a, &ev))
		printf("# feed error\n");
}

static void pollns(struct hs_account *a, int tid, uint32_t new_ns, uint32_t old_ns)
{
	struct hs_event ev = { .ts = clock_ns, .tid = tid, .kind = HS_EV_HALT_POLL_NS };

	ev.poll.new_ns = new_ns;
	ev.poll.old_ns = old_ns;
	ev.poll.grow = new_ns > old_ns;
	if (hs_account_event(a, &ev))
		printf("# feed error\n");
}

/* tid halts n times; returns its hits. Values go to vals[] for exact quantiles. */
static uint64_t halts(struct hs_account *a, int tid, unsigned int n)
{
	uint64_t hits = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint64_t ns = 100 + check_rng() % (check_rng() % 2 ? 20000 : 2000000);
		bool waited = ns > 15000;

		wake(a, tid, ns, waited);
		hits += !waited;
		if (nvals < NVALS)
			vals[nvals++] = ns;
	}
	return hits;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t exact_q(double q)
{
	size_t rank = (size_t)ceil(q * nvals);

	return vals[(rank ? rank : 1) - 1];
}

static int close_to(uint64_t got, uint64_t want)
{
	return fabs((double)got - (double)want) <= 0.01 * (double)want;
}

static const int tids[] = { 1001, 1002, 1003, 1004, 2001, 3001, 4001 };
static const unsigned int nhalts[] = { 1000, 2000, 500, 10, 3000, 700, 40 };
static uint64_t hits_of[7];

static struct hs_account *build_account(void)
{
	struct hs_account_opts o;
	struct hs_account *a;
	unsigned int i;

	memset(&o, 0, sizeof(o));
	o.linear_bucket_ns = 10000;
	o.linear_entries = 20;
	o.whatif.recorded_max_ns = 200000;
	o.whatif.grow = o.whatif.grow_start = o.whatif.shrink = -1;
	a = hs_account_alloc(&o);
	if (!a)
		return NULL;
	hs_account_process(a, 1000, "qemu-system-x86", "web");
	hs_account_process(a, 2000, "qemu-kvm", "");
	hs_account_thread(a, 1001, 1000, "CPU 1/KVM");
	hs_account_thread(a, 1002, 1000, "CPU 0/KVM");
	hs_account_thread(a, 1003, 1000, "CPU 10/KVM");
	hs_account_thread(a, 1004, 1000, "worker");
	hs_account_thread(a, 2001, 2000, "CPU 0/KVM");
	hs_account_thread(a, 4001, 4000, "CPU 3/KVM");
	/* 3001 has no thread info at all */
	pollns(a, 1002, 10000, 0);
	for (i = 0; i < 7; i++)
		hits_of[i] = halts(a, tids[i], nhalts[i]);
	hs_account_lost(a, 0, 10, true);
	hs_account_meta(a)->skipped_lines = 3;
	hs_account_finish(a);
	return a;
}

static const struct hs_report_vm *vm_named(const struct hs_report *r, const char *name)
{
	unsigned int i;

	for (i = 0; i < r->nvms; i++)
		if (!strcmp(r->vms[i].name, name))
			return &r->vms[i];
	return NULL;
}

static bool has_warning(const struct hs_report *r, const char *part)
{
	unsigned int i;

	for (i = 0; i < r->nwarnings; i++)
		if (strstr(r->warnings[i], part))
			return true;
	return false;
}

static void test_grouping(const struct hs_account *a)
{
	static const int order[] = { 4001, 2001, 1002, 1001, 1003, 1004, 3001 };
	struct hs_report r;
	const struct hs_report_vm *web, *unk;
	unsigned int i, bad = 0;

	if (hs_report_build(&r, a, NULL)) {
		CHECK(0, "report_build");
		return;
	}
	CHECK_EQ_U64(r.nvcpus, 7, "report_nvcpus");
	CHECK_EQ_U64(r.nvms, 4, "report_nvms");
	for (i = 0; i < r.nvcpus && i < 7; i++)
		bad += r.vcpus[i].tid != order[i];
	CHECK_EQ_U64(bad, 0, "report_vcpu_order");
	CHECK(!strcmp(r.vms[0].name, "pid 4000") && !strcmp(r.vms[1].name, "qemu-kvm") &&
	      !strcmp(r.vms[2].name, "web") && !strcmp(r.vms[3].name, "unknown"),
	      "report_vm_names_order");
	web = vm_named(&r, "web");
	unk = vm_named(&r, "unknown");
	CHECK(web && web->nvcpus == 4 && web->tgid == 1000 &&
	      !strcmp(web->comm, "qemu-system-x86"), "report_vm_web");
	CHECK(unk && unk->tgid == -1 && unk->nvcpus == 1, "report_vm_unknown");
	if (web)
		CHECK_EQ_U64(web->stats.halts, 1000 + 2000 + 500 + 10, "report_vm_halts_sum");
	if (web)
		CHECK_EQ_U64(web->stats.poll_hits, hits_of[0] + hits_of[1] + hits_of[2] + hits_of[3],
			     "report_vm_hits_sum");
	CHECK(r.nvcpus >= 6 && r.vcpus[2].vcpu_index == 0 && r.vcpus[4].vcpu_index == 10 &&
	      r.vcpus[5].vcpu_index == -1, "report_vcpu_index");
	/*
	 * 1002 knew 10000 until the loss made it unknown again; 1001 had no
	 * event, and its halts below and above M = 200000, mostly waits, say
	 * polling was off (0) until the loss
	 */
	CHECK(r.nvcpus >= 3 && r.vcpus[2].stats.window_mean_ns == 10000 &&
	      r.vcpus[2].stats.window_last_ns == -1 &&
	      r.vcpus[3].stats.window_last_ns == -1 && r.vcpus[3].stats.window_mean_ns == 0,
	      "report_window");
	hs_report_free(&r);
}

static void test_stats(const struct hs_account *a)
{
	struct hs_report r;
	uint64_t total = 0, wsum = 0, lsum = 0;
	unsigned int i, hist_ok = 0;

	if (hs_report_build(&r, a, NULL)) {
		CHECK(0, "report_build_stats");
		return;
	}
	for (i = 0; i < 7; i++)
		total += nhalts[i];
	qsort(vals, nvals, sizeof(vals[0]), cmp_u64);
	CHECK_EQ_U64(r.host.halts, total, "report_host_halts");
	CHECK_EQ_U64(r.host.min_ns, vals[0], "report_host_min");
	CHECK_EQ_U64(r.host.max_ns, vals[nvals - 1], "report_host_max");
	CHECK(close_to(r.host.p50_ns, exact_q(0.5)), "report_host_p50");
	CHECK(close_to(r.host.p90_ns, exact_q(0.9)), "report_host_p90");
	CHECK(close_to(r.host.p99_ns, exact_q(0.99)), "report_host_p99");
	CHECK(close_to(r.host.p999_ns, exact_q(0.999)), "report_host_p999");
	CHECK(fabs(r.duration_s - (double)(r.last_ts - r.first_ts) / 1e9) < 1e-12 &&
	      r.duration_s > 0, "report_duration");
	CHECK(fabs(r.host.halts_per_s - (double)total / r.duration_s) < 1e-6, "report_rate");
	CHECK_EQ_U64(r.events_total, total + 1, "report_events_total");
	CHECK(fabs(r.lost_pct - 10.0 / (double)(total + 11) * 100) < 1e-9, "report_lost_pct");
	CHECK(has_warning(&r, "lost 10 events ("), "report_warn_lost");
	CHECK(has_warning(&r, "skipped 3"), "report_warn_skipped");
	CHECK(r.kvm == HS_KVM_HALTING && !r.kvm_note && !has_warning(&r, "kvm was"),
	      "report_no_kvm_warning_when_wakeups");
	for (i = 0; i < r.nvcpus; i++) {
		const struct hs_report_vcpu *v = &r.vcpus[i];
		unsigned int k;

		hist_ok += v->hist && v->hist->count == v->stats.halts;
		for (k = 0; k <= v->linear.entries && v->linear.poll; k++)
			lsum += v->linear.poll[k] + v->linear.wait[k];
		for (k = 0; k < HS_LOG2_BUCKETS; k++)
			wsum += v->log2.poll[k] + v->log2.wait[k];
	}
	CHECK_EQ_U64(hist_ok, r.nvcpus, "report_vcpu_hist_copies");
	CHECK_EQ_U64(lsum, total, "report_linear_copies");
	CHECK_EQ_U64(wsum, total, "report_log2");
	if (r.n_host_what_if)
		CHECK_EQ_U64(r.host_what_if[0].halts, total, "report_host_what_if_sum");
	else
		CHECK(0, "report_host_what_if_rows");
	CHECK(r.nvms >= 3 && r.vms[2].n_what_if &&
	      r.vms[2].what_if[0].halts == r.vms[2].stats.halts, "report_vm_what_if_sum");
	hs_report_free(&r);
}

static unsigned int count_with(const struct hs_account *a, struct hs_report_filter *f,
			       bool *warned)
{
	struct hs_report r;
	unsigned int n;

	if (hs_report_build(&r, a, f))
		return 999;
	n = r.nvcpus;
	*warned = has_warning(&r, "matches the filter");
	if (n && r.nvms == 0)
		n = 998;
	hs_report_free(&r);
	return n;
}

static void test_filters(const struct hs_account *a)
{
	struct hs_report_filter f = { .vcpu = -1 };
	int pids[2];
	bool w;

	pids[0] = 2001;
	f.pids = pids;
	f.npids = 1;
	CHECK_EQ_U64(count_with(a, &f, &w), 1, "report_filter_tid");
	pids[0] = 1000;
	CHECK_EQ_U64(count_with(a, &f, &w), 4, "report_filter_tgid");
	pids[1] = 3001;
	f.npids = 2;
	CHECK_EQ_U64(count_with(a, &f, &w), 5, "report_filter_two_pids");
	f.npids = 0;
	f.vm = "web";
	CHECK_EQ_U64(count_with(a, &f, &w), 4, "report_filter_vm_name");
	f.vm = "2000";
	CHECK_EQ_U64(count_with(a, &f, &w), 1, "report_filter_vm_pid");
	f.vm = "qemu-kvm";
	CHECK_EQ_U64(count_with(a, &f, &w), 1, "report_filter_vm_comm");
	f.vm = NULL;
	f.vcpu = 0;
	CHECK_EQ_U64(count_with(a, &f, &w), 2, "report_filter_vcpu");
	f.vm = "web";
	f.vcpu = 10;
	CHECK_EQ_U64(count_with(a, &f, &w), 1, "report_filter_vm_and_vcpu");
	CHECK(!w, "report_filter_no_warning_when_matched");
	f.vm = "nope";
	CHECK_EQ_U64(count_with(a, &f, &w), 0, "report_filter_nothing");
	CHECK(w, "report_filter_warning");
}

/* Busier first: polling CPU, then halts; ties keep the builder's order. */
static unsigned int order_faults(const unsigned int *order, unsigned int n,
				 const struct hs_halt_stats *(*at)(const struct hs_report *, unsigned int),
				 const struct hs_report *r)
{
	unsigned int bad = 0, seen[64] = { 0 };

	for (unsigned int k = 0; k < n; k++) {
		bad += order[k] >= n || order[k] >= 64 || seen[order[k]]++;
		if (k == 0 || bad)
			continue;
		const struct hs_halt_stats *a = at(r, order[k - 1]), *b = at(r, order[k]);

		bad += a->poll_ns < b->poll_ns ||
		       (a->poll_ns == b->poll_ns && (a->halts < b->halts ||
		       (a->halts == b->halts && order[k - 1] > order[k])));
	}
	return bad;
}

static const struct hs_halt_stats *vm_stats(const struct hs_report *r, unsigned int i)
{
	return &r->vms[i].stats;
}

static const struct hs_halt_stats *vcpu_stats(const struct hs_report *r, unsigned int i)
{
	return &r->vcpus[i].stats;
}

static void test_order_and_vm_linear(const struct hs_account *a)
{
	const struct hs_report_vm *web;
	uint64_t sum = 0, want = 0;
	struct hs_report r;
	bool same = true;

	if (hs_report_build(&r, a, NULL)) {
		CHECK(0, "report_build_order");
		return;
	}
	CHECK(r.vm_order && r.vcpu_order, "report_orders_built");
	if (r.vm_order && r.vcpu_order) {
		CHECK_EQ_U64(order_faults(r.vm_order, r.nvms, vm_stats, &r), 0, "report_vm_order");
		CHECK_EQ_U64(order_faults(r.vcpu_order, r.nvcpus, vcpu_stats, &r), 0,
			     "report_vcpu_busiest_first");
		/* the halts make the polling CPU differ: the order is not the natural one */
		CHECK(r.vcpu_order[0] != 0 || r.vcpu_order[1] != 1, "report_order_sorts");
	}
	web = vm_named(&r, "web");
	CHECK(web && web->linear.entries == 20 && web->linear.bucket_ns == 10000 &&
	      web->linear.poll && web->linear.wait, "report_vm_linear_built");
	for (unsigned int i = 0; web && web->linear.poll && i < r.nvcpus; i++) {
		const struct hs_report_vcpu *v = &r.vcpus[i];

		if (v->tgid != 1000)
			continue;
		for (unsigned int k = 0; k <= 20; k++)
			want += v->linear.poll[k] + v->linear.wait[k];
	}
	for (unsigned int k = 0; web && web->linear.poll && k <= 20; k++) {
		uint64_t p = 0;

		for (unsigned int i = 0; i < r.nvcpus; i++)
			if (r.vcpus[i].tgid == 1000)
				p += r.vcpus[i].linear.poll[k];
		same &= p == web->linear.poll[k];
		sum += web->linear.poll[k] + web->linear.wait[k];
	}
	CHECK(same && web && sum == want && sum == web->stats.halts, "report_vm_linear_sum");
	hs_report_free(&r);
}

/* The words for a report without halts follow what the input shows of kvm. */
static void test_kvm_seen(void)
{
	static const struct {
		int formats;
		enum hs_kvm_seen want;
		const char *words;
	} cases[] = {
		{ -1, HS_KVM_UNKNOWN, "does not tell whether kvm was loaded" },
		{ 0, HS_KVM_ABSENT, "no kvm event formats in the input" },
		{ 1, HS_KVM_IDLE, "kvm was loaded" },
	};
	struct hs_account_opts o = { .no_whatif = true };
	char name[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hs_account *a = hs_account_alloc(&o);
		struct hs_report r;

		if (!a)
			continue;
		hs_account_meta(a)->kvm_formats = cases[i].formats;
		hs_account_finish(a);
		snprintf(name, sizeof(name), "report_kvm_seen_%d", cases[i].formats);
		if (hs_report_build(&r, a, NULL) == 0) {
			CHECK(r.kvm == cases[i].want && r.kvm_note &&
			      strstr(r.kvm_note, cases[i].words) &&
			      has_warning(&r, cases[i].words), name);
			hs_report_free(&r);
		} else {
			CHECK(0, name);
		}
		hs_account_free(a);
	}
}

static void test_guest_only(void)
{
	struct hs_account_opts o = { .no_whatif = true };
	struct hs_account *a = hs_account_alloc(&o);
	struct hs_event ev = { .ts = 100, .cpu = 1, .kind = HS_EV_CPU_IDLE };
	struct hs_report r;

	ev.idle.cpu_id = 1;
	ev.idle.state = 0;
	hs_account_event(a, &ev);
	ev.ts = 250;
	ev.idle.state = HS_IDLE_EXIT;
	hs_account_event(a, &ev);
	hs_account_meta(a)->lost_known = false;
	hs_account_lost(a, 5, 0, false);
	hs_account_finish(a);
	if (hs_report_build(&r, a, NULL)) {
		CHECK(0, "report_guest_build");
		hs_account_free(a);
		return;
	}
	CHECK(has_warning(&r, "no kvm_vcpu_wakeup events"), "report_warn_no_wakeups");
	CHECK(has_warning(&r, "count unknown"), "report_warn_unknown_loss");
	CHECK(r.lost_pct == -1, "report_lost_pct_unknown");
	CHECK(r.nguest == 1 && r.guest[0].cpu == 1 && r.guest[0].residency_ns[0] == 150 &&
	      r.guest[0].poll_hits == 1 && r.guest[0].window_mean_ns == -1, "report_guest_copied");
	CHECK(r.nvcpus == 0 && r.nvms == 0 && r.host.halts == 0, "report_guest_no_vcpus");
	hs_report_free(&r);
	hs_account_free(a);
}

static void test_advice_runs(const struct hs_account *a)
{
	struct hs_advice_opts ao = { .objective = "balanced", .enabled = true };
	struct hs_report r;

	/* the numbers are lib/advice.c's to test; here: it runs and frees cleanly */
	CHECK(hs_report_build(&r, a, NULL) == 0, "report_with_advice");
	hs_advice_build(&r, &ao);
	hs_guest_advice_build(&r, &ao);
	hs_report_free(&r);
	CHECK(r.vcpus == NULL && r.nwarnings == 0, "report_free_resets");
}

int main(void)
{
	check_rng_state = 0x2545f4914f6cdd1dull;
	struct hs_account *a = build_account();

	if (!a) {
		CHECK(0, "report_account");
		return 1;
	}
	test_grouping(a);
	test_stats(a);
	test_filters(a);
	test_advice_runs(a);
	test_order_and_vm_linear(a);
	test_kvm_seen();
	test_guest_only();
	hs_account_free(a);
	return CHECK_DONE();
}
