// SPDX-License-Identifier: GPL-2.0-only
/*
 * The suggestion on reports assembled from generated traces: the Ubuntu
 * 1724614 scenario, objectives, confidence, the guest-side findings, and the
 * per-VM suggestion.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../lib/advice.h"
#include "../../lib/report.h"
#include "simgen.h"

#define MAXV 8

struct fixture {
	struct hs_report rep;
	struct hs_report_vcpu vcpus[MAXV];
	struct hs_report_vm vms[MAXV];
};

static void fx_init(struct fixture *f, const char *release, int64_t max)
{
	memset(f, 0, sizeof(*f));
	hs_meta_init(&f->rep.meta);
	snprintf(f->rep.meta.kernel_release, sizeof(f->rep.meta.kernel_release), "%s", release);
	f->rep.meta.halt_poll_ns = max;
	f->rep.meta.lost_known = true;
	f->rep.duration_s = 10;
	f->rep.lost_pct = 0;
	f->rep.vcpus = f->vcpus;
	f->rep.vms = f->vms;
}

static struct hs_report_vm *fx_vm(struct fixture *f, int tgid)
{
	struct hs_report_vm *vm;

	for (unsigned int i = 0; i < f->rep.nvms; i++)
		if (f->vms[i].tgid == tgid)
			return &f->vms[i];
	vm = &f->vms[f->rep.nvms++];
	vm->tgid = tgid;
	snprintf(vm->name, sizeof(vm->name), "vm%d", tgid);
	return vm;
}

static void fx_stats_add(struct hs_halt_stats *s, const struct gen *g)
{
	s->halts += g->halts;
	s->poll_hits += g->hits;
	s->waits += g->halts - g->hits;
	s->hit_rate = s->halts ? (double)s->poll_hits / s->halts : 0;
	s->grows += g->grows;
	s->shrinks += g->shrinks;
	s->flaps += g->flaps;
}

/* One vCPU: generate, replay, and add it to its VM and the host. */
static void fx_vcpu(struct fixture *f, int tgid, enum gen_mode mode, enum hs_kernel_era era,
		    uint64_t m, uint32_t shrink, int n)
{
	struct hs_report_vcpu *v = &f->vcpus[f->rep.nvcpus];
	struct hs_report_vm *vm = fx_vm(f, tgid);
	struct hs_whatif_opts o;
	struct hs_whatif *w;
	struct gen g;

	gen_init(&g, m, shrink, hs_kernel_era_has(era, HS_RULE_MAX_LIVE));
	g.mode = mode;
	g.rng += f->rep.nvcpus * 7919;
	opts_init(&o, era, f->rep.meta.halt_poll_ns);
	w = run(&g, &o, 0, n, 0);
	if (!w)
		return;
	v->tid = 1000 + (int)f->rep.nvcpus;
	v->tgid = tgid;
	v->n_what_if = hs_whatif_rows(w, v->what_if);
	hs_whatif_selfcheck(w, &v->selfcheck);
	v->wake_overhead_ns = hs_whatif_wake_overhead_ns(w);
	fx_stats_add(&v->stats, &g);
	fx_stats_add(&vm->stats, &g);
	fx_stats_add(&f->rep.host, &g);
	for (unsigned int i = 0; i < HS_LOG2_BUCKETS; i++) {
		f->rep.host_log2.poll[i] += g.log2_poll[i];
		f->rep.host_log2.wait[i] += g.log2_wait[i];
	}
	hs_whatif_rows_sum(vm->what_if, v->what_if, v->n_what_if);
	vm->n_what_if = v->n_what_if;
	vm->nvcpus++;
	hs_whatif_rows_sum(f->rep.host_what_if, v->what_if, v->n_what_if);
	f->rep.n_host_what_if = v->n_what_if;
	f->rep.events_poll_ns += g.grows + g.shrinks;
	f->rep.events_wakeup += g.halts;
	f->rep.nvcpus++;
	hs_whatif_free(w);
}

static bool has_finding(const struct hs_advice *a, const char *code)
{
	for (unsigned int i = 0; i < a->nfindings; i++)
		if (!strcmp(a->findings[i], code))
			return true;
	return false;
}

static void advise(struct fixture *f, const char *objective, double budget)
{
	struct hs_advice_opts o = { .enabled = true, .max_poll_cpu_pct = budget };

	snprintf(o.objective, sizeof(o.objective), "%s", objective);
	hs_advice_build(&f->rep, &o);
	hs_guest_advice_build(&f->rep, &o);
}

static void fx_free(struct fixture *f)
{
	hs_advice_free(&f->rep.advice);
	hs_advice_free(&f->rep.guest_advice);
	for (unsigned int i = 0; i < f->rep.nvms; i++)
		hs_advice_free(&f->vms[i].advice);
}

/* Ubuntu 1724614: 4.4, halt_poll_ns 400000, guest timer every ~250 us. */
static void test_1724614(void)
{
	static const char *const objectives[] = { "latency", "balanced", "cpu" };
	struct fixture f;
	const struct hs_advice *a = &f.rep.advice;

	fx_init(&f, "4.4.0-97-generic", 400000);
	fx_vcpu(&f, 1, GEN_PERIODIC_250US, HS_ERA_4_4, 400000, 0, 30000);
	fx_vcpu(&f, 1, GEN_PERIODIC_250US, HS_ERA_4_4, 400000, 0, 30000);
	CHECK(f.vcpus[0].selfcheck.agree_pct == 100, "advice_1724614_selfcheck_100");
	CHECK(f.rep.host_what_if[8].halt_poll_ns == 400000 &&
	      f.rep.host_what_if[8].hit_rate > 0.9 && f.vcpus[0].what_if[8].poll_cpu_pct > 50,
	      "advice_1724614_recorded_polls_most_of_the_time");
	for (int i = 0; i < 3; i++) {
		advise(&f, objectives[i], 0);
		CHECK(a->valid && a->halt_poll_ns < 250000, "advice_1724614_suggestion_below_250us");
		CHECK(has_finding(a, "periodic_under_window"), "advice_1724614_flagged");
		CHECK(a->text && strstr(a->text, "1724614") &&
		      strstr(a->text, "> /sys/module/kvm/parameters/halt_poll_ns"),
		      "advice_1724614_text");
		CHECK(!strcmp(a->confidence, "high"), "advice_1724614_confidence_high");
	}
	/* an explicit budget large enough lets latency poll through them */
	advise(&f, "latency", 100);
	CHECK(a->halt_poll_ns >= 250000, "advice_budget_option_applies");
	fx_free(&f);
}

static void test_objectives(void)
{
	uint64_t lat, bal, cpu;
	struct fixture f;

	fx_init(&f, "6.18.44-fc", 200000);
	for (int i = 0; i < 4; i++)
		fx_vcpu(&f, 1, i % 2 ? GEN_MIX : GEN_SHORT, HS_ERA_6_11, 200000, 2, 20000);
	advise(&f, "latency", 0);
	lat = f.rep.advice.halt_poll_ns;
	CHECK(f.rep.advice.max_poll_cpu_pct == 50, "advice_latency_default_budget");
	advise(&f, "balanced", 0);
	bal = f.rep.advice.halt_poll_ns;
	advise(&f, "cpu", 0);
	cpu = f.rep.advice.halt_poll_ns;
	CHECK(cpu <= bal && bal <= lat && cpu < lat, "advice_objectives_ordered");
	CHECK(bal > 0, "advice_short_wakes_want_polling");
	CHECK(!has_finding(&f.rep.advice, "restart_needed"), "advice_no_restart_note_6_18");
	fx_free(&f);
}

static void test_confidence(void)
{
	struct fixture f;

	fx_init(&f, "6.18.44-fc", 200000);
	fx_vcpu(&f, 1, GEN_MIX, HS_ERA_6_11, 200000, 2, 100);
	advise(&f, "balanced", 0);
	CHECK(!strcmp(f.rep.advice.confidence, "low") && has_finding(&f.rep.advice, "few_halts"),
	      "advice_few_halts_low_confidence");
	fx_free(&f);

	fx_init(&f, "5.10.0-28-amd64", 200000);
	fx_vcpu(&f, 1, GEN_MIX, HS_ERA_5_X, 200000, 0, 20000);
	f.rep.lost_pct = 1.5;
	advise(&f, "balanced", 0);
	CHECK(!strcmp(f.rep.advice.confidence, "medium") && has_finding(&f.rep.advice, "lost_events"),
	      "advice_lost_events_medium");
	CHECK(has_finding(&f.rep.advice, "restart_needed") &&
	      strstr(f.rep.advice.text, "restart"), "advice_restart_note_5_10");
	fx_free(&f);

	/* a trace replayed with the wrong era's rules: the self-check lowers confidence */
	fx_init(&f, "6.18.44-fc", 200000);
	fx_vcpu(&f, 1, GEN_MIX, HS_ERA_6_11, 200000, 2, 20000);
	f.vcpus[0].selfcheck.halts_agreeing = f.vcpus[0].selfcheck.halts_compared * 9 / 10;
	advise(&f, "balanced", 0);
	CHECK(strcmp(f.rep.advice.confidence, "high") && has_finding(&f.rep.advice, "selfcheck_low"),
	      "advice_selfcheck_lowers_confidence");
	fx_free(&f);

	fx_init(&f, "", -1);
	advise(&f, "balanced", 0);
	CHECK(!f.rep.advice.valid && !strcmp(f.rep.advice.confidence, "low") &&
	      has_finding(&f.rep.advice, "no_halts"), "advice_no_halts");
	fx_free(&f);
}

static void test_guest_findings(void)
{
	struct fixture f;

	fx_init(&f, "6.18.44-fc", 200000);
	fx_vcpu(&f, 1, GEN_MIX, HS_ERA_6_11, 200000, 2, 5000);
	snprintf(f.rep.meta.cpuidle_governor, sizeof(f.rep.meta.cpuidle_governor), "haltpoll");
	snprintf(f.rep.meta.cpuidle_driver, sizeof(f.rep.meta.cpuidle_driver), "intel_idle");
	advise(&f, "balanced", 0);
	/* the recording machine's own cpuidle is the guest layer's, never the host's */
	CHECK(has_finding(&f.rep.guest_advice, "haltpoll_governor_mismatch") &&
	      !has_finding(&f.rep.advice, "haltpoll_governor_mismatch") &&
	      !has_finding(&f.rep.guest_advice, "self_haltpoll"), "advice_governor_mismatch");
	snprintf(f.rep.meta.cpuidle_driver, sizeof(f.rep.meta.cpuidle_driver), "haltpoll");
	advise(&f, "balanced", 0);
	CHECK(has_finding(&f.rep.guest_advice, "self_haltpoll") &&
	      !has_finding(&f.rep.advice, "guest_haltpoll") &&
	      !has_finding(&f.rep.guest_advice, "haltpoll_governor_mismatch"),
	      "advice_self_haltpoll_driver");
	CHECK(f.rep.advice.layer == HS_LAYER_HOST && f.rep.guest_advice.layer == HS_LAYER_GUEST &&
	      !f.rep.guest_advice.valid && f.rep.guest_advice.text &&
	      strstr(f.rep.guest_advice.text, "record with --guest") &&
	      strstr(f.rep.guest_advice.text, "Its halt_poll_ns still applies to the VMs it runs"),
	      "advice_self_haltpoll_layers_apart");
	fx_free(&f);

	/* halt_poll_ns 200000 but the kernel never polled: host polling was turned off */
	fx_init(&f, "6.18.44-fc", 200000);
	fx_vcpu(&f, 1, GEN_SHORT, HS_ERA_6_11, 0, 2, 5000);
	advise(&f, "balanced", 0);
	CHECK(has_finding(&f.rep.advice, "guest_haltpoll"), "advice_guest_haltpoll_from_data");
	fx_free(&f);

	/* polling working normally: no such finding */
	fx_init(&f, "6.18.44-fc", 200000);
	fx_vcpu(&f, 1, GEN_SHORT, HS_ERA_6_11, 200000, 2, 5000);
	advise(&f, "balanced", 0);
	CHECK(!has_finding(&f.rep.advice, "guest_haltpoll") &&
	      !has_finding(&f.rep.advice, "host_polling_off"), "advice_polling_on_no_finding");
	fx_free(&f);
}

static void test_flapping(void)
{
	struct fixture f;

	fx_init(&f, "6.5.0", 200000);
	fx_vcpu(&f, 1, GEN_ALTERNATE, HS_ERA_6_1, 200000, 0, 5000);
	advise(&f, "balanced", 0);
	CHECK(f.rep.host.flaps >= 4990, "advice_flapping_generated");
	CHECK(has_finding(&f.rep.advice, "window_flapping"), "advice_flapping_flagged");
	fx_free(&f);
}

/* VM 2's busy vCPU blows the per-vCPU budget at >= 200000; VM 1 alone does not. */
static void test_per_vm(void)
{
	struct fixture f;

	fx_init(&f, "6.18.44-fc", 200000);
	fx_vcpu(&f, 1, GEN_MID, HS_ERA_6_11, 200000, 2, 20000);
	fx_vcpu(&f, 2, GEN_MID, HS_ERA_6_11, 200000, 2, 60000);
	advise(&f, "latency", 0);
	CHECK(f.rep.advice.halt_poll_ns < 200000, "advice_per_vm_global_limited");
	CHECK(f.vms[0].advice.valid && f.vms[0].advice.halt_poll_ns >= 200000 &&
	      strstr(f.vms[0].advice.text, "KVM_CAP_HALT_POLL"), "advice_per_vm_suggestion");
	CHECK(!f.vms[1].advice.valid, "advice_per_vm_only_where_it_differs");
	CHECK(has_finding(&f.rep.advice, "per_vm_differs"), "advice_per_vm_finding");
	fx_free(&f);
}

static void guest_row(struct hs_guest_whatif_row *r, uint64_t g, uint64_t hits, double poll_s)
{
	memset(r, 0, sizeof(*r));
	r->guest_halt_poll_ns = g;
	r->wakes = 10000;
	r->hits = r->hits_low = r->hits_high = hits;
	r->halts = r->wakes - hits;
	r->hit_rate = r->hit_rate_low = r->hit_rate_high = hits / 10000.0;
	r->poll_cpu_s = r->poll_cpu_s_low = r->poll_cpu_s_high = poll_s;
	r->poll_cpu_pct = r->poll_cpu_pct_per_cpu = poll_s / 10 * 100;
}

/*
 * The guest layer's pick, by hand: halt extra cost 20 us, over 10 s. At
 * 50000, 9000 hits for 0.1 CPU-s (1% of a CPU); at 200000, 9500 hits for
 * 5 CPU-s (50%). balanced (lambda 0.2): U = 20000*9000 - 0.2*1e8 = 1.6e8
 * against 20000*9500 - 0.2*5e9 < 0, so 50000; a 0.5% budget leaves only 0.
 */
static void test_guest_suggestion(void)
{
	static struct hs_report_guest_cpu cpu;
	struct fixture f;

	fx_init(&f, "6.18.44-fc", 200000);
	snprintf(f.rep.meta.cpuidle_driver, sizeof(f.rep.meta.cpuidle_driver), "haltpoll");
	f.rep.meta.guest_halt_poll_ns = 200000;
	memset(&cpu, 0, sizeof(cpu));
	guest_row(&f.rep.guest_what_if[0], 0, 0, 0);
	guest_row(&f.rep.guest_what_if[1], 50000, 9000, 0.1);
	guest_row(&f.rep.guest_what_if[2], 200000, 9500, 5);
	memcpy(cpu.what_if, f.rep.guest_what_if, sizeof(cpu.what_if));
	cpu.n_what_if = 3;
	cpu.halt_extra_ns = 20000;
	cpu.selfcheck.halts_compared = cpu.selfcheck.halts_agreeing = 9000;
	f.rep.guest = &cpu;
	f.rep.nguest = 1;
	f.rep.n_guest_what_if = 3;
	f.rep.active_guest_cpus = 1;
	f.rep.guest_halt_extra_ns = 20000;
	hs_haltpoll_defaults(&f.rep.guest_simulated);
	advise(&f, "balanced", 0);
	CHECK(f.rep.guest_advice.valid && f.rep.guest_advice.halt_poll_ns == 50000 &&
	      !strcmp(f.rep.guest_advice.confidence, "high") &&
	      strstr(f.rep.guest_advice.text, "Apply: echo 50000 > /sys/module/haltpoll/parameters/guest_halt_poll_ns"),
	      "guest_advice_balanced");
	CHECK(!has_finding(&f.rep.advice, "self_haltpoll") && has_finding(&f.rep.guest_advice, "self_haltpoll"),
	      "guest_advice_finding_layer");
	advise(&f, "balanced", 0.5);
	CHECK(f.rep.guest_advice.valid && f.rep.guest_advice.halt_poll_ns == 0, "guest_advice_budget");
	/* a wide interval at the pick is said */
	f.rep.guest_what_if[1].hits_low = 6000;
	f.rep.guest_what_if[1].hit_rate_low = 0.6;
	advise(&f, "balanced", 0);
	CHECK(has_finding(&f.rep.guest_advice, "guest_cliff"), "guest_advice_cliff");
	/* another cpuidle driver: the governor does not run there, no suggestion */
	snprintf(f.rep.meta.cpuidle_driver, sizeof(f.rep.meta.cpuidle_driver), "intel_idle");
	advise(&f, "balanced", 0);
	CHECK(!f.rep.guest_advice.valid && has_finding(&f.rep.guest_advice, "self_not_haltpoll"),
	      "guest_advice_other_driver");
	fx_free(&f);
}

int main(void)
{
	test_1724614();
	test_objectives();
	test_confidence();
	test_guest_findings();
	test_guest_suggestion();
	test_flapping();
	test_per_vm();
	return CHECK_DONE();
}
