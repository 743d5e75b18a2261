// SPDX-License-Identifier: GPL-2.0-only
/*
 * hs-render: builds hs_report structs by hand and runs the SVG and
 * OpenMetrics writers on them, so their tests depend on no reader.
 *
 *   hs-render svg|openmetrics|prometheus [SCENARIO] [--per-vm] [--no-advice]
 *   hs-render expect [SCENARIO]    the inputs, one "key value" a line
 *
 * SCENARIO: basic (one VM, 2 vCPUs), nasty (hostile names, NaN doubles,
 * extreme buckets), empty (nothing at all), many (12 vCPUs in 2 VMs).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../formats/render/output.h"

#define MAX_VCPUS 12

static struct hs_report_vcpu vcpus[MAX_VCPUS];
static struct hs_report_vm vms[2];
static char *warnings[2];

/* Bucket index k+1 holds [2^k, 2^(k+1)) ns. */
static void fill_vcpu(struct hs_report_vcpu *v, int tid, int idx, const char *vm, unsigned int seed)
{
	memset(v, 0, sizeof(*v));
	v->tid = tid;
	v->tgid = 1000;
	v->vcpu_index = idx;
	v->vcpu_id = idx;
	snprintf(v->comm, sizeof(v->comm), "CPU %d/KVM", idx);
	snprintf(v->vm, sizeof(v->vm), "%s", vm);
	/* poll hits between 1us and 64us, waits from 256us to 16ms */
	for (unsigned int b = 11; b <= 17; b++)
		v->log2.poll[b] = 100 * (b - 10) + seed;
	for (unsigned int b = 19; b <= 25; b++)
		v->log2.wait[b] = 40 * (26 - b) + seed;
	v->log2.wait[15] = 7 + seed;	/* a miss inside the window */
	for (unsigned int b = 0; b < HS_LOG2_BUCKETS; b++) {
		v->stats.poll_hits += v->log2.poll[b];
		v->stats.waits += v->log2.wait[b];
	}
	v->stats.halts = v->stats.poll_hits + v->stats.waits;
	v->stats.poll_misses = 7 + seed;
	v->stats.invalid = seed;
	v->stats.sum_ns = 123456789012ull + seed;
	v->stats.poll_ns = 2500000001ull + seed;
	v->stats.hit_rate = (double)v->stats.poll_hits / (double)v->stats.halts;
	v->stats.p50_ns = 30000;
	v->stats.p99_ns = 9000000;
	v->stats.grows = 11 + seed;
	v->stats.shrinks = 5 + seed;
	v->stats.window_last_ns = 200000;
	v->stats.window_mean_ns = 150000.5;
}

static void fill_whatif(struct hs_report *rep)
{
	static const uint64_t cand[] = { 0, 10000, 50000, 100000, 200000, 400000 };
	static const double rate[] = { 0, 0.31, 0.52, 0.58, 0.61, 0.62 };

	for (unsigned int i = 0; i < 6; i++) {
		struct hs_whatif_row *r = &rep->host_what_if[i];

		r->halt_poll_ns = cand[i];
		r->halts = 10000;
		r->hit_rate = rate[i];
		r->hits = (uint64_t)(rate[i] * 10000);
		r->poll_cpu_s = 0.8 * (double)i * (double)i;
	}
	rep->n_host_what_if = 6;
}

static void fill_vm(struct hs_report_vm *vm, int tgid, const char *name, unsigned int nv)
{
	memset(vm, 0, sizeof(*vm));
	vm->tgid = tgid;
	snprintf(vm->name, sizeof(vm->name), "%s", name);
	snprintf(vm->comm, sizeof(vm->comm), "qemu-system-x86");
	vm->nvcpus = nv;
	for (unsigned int i = 0; i < nv; i++)
		for (unsigned int b = 0; b < HS_LOG2_BUCKETS; b++) {
			vm->log2.poll[b] += vcpus[i].log2.poll[b];
			vm->log2.wait[b] += vcpus[i].log2.wait[b];
		}
	vm->stats = vcpus[0].stats;
	vm->stats.window_last_ns = -1;
	vm->stats.window_mean_ns = -1;
}

static void basic(struct hs_report *rep, unsigned int n)
{
	hs_meta_init(&rep->meta);
	snprintf(rep->meta.source, sizeof(rep->meta.source), "haltstat.dat");
	snprintf(rep->meta.format, sizeof(rep->meta.format), "haltstat");
	rep->meta.halt_poll_ns = 200000;
	rep->meta.lost_known = true;
	rep->meta.lost_events = 42;
	rep->first_ts = 1000;
	rep->last_ts = 1000 + 10500000000ull;
	rep->duration_s = 10.5;
	rep->lost_pct = 0.01;
	for (unsigned int i = 0; i < n; i++)
		fill_vcpu(&vcpus[i], 1001 + (int)i, (int)i % 6, i < 6 ? "web-01" : "db-02", i);
	rep->vcpus = vcpus;
	rep->nvcpus = n;
	fill_vm(&vms[0], 1000, "web-01", n < 6 ? n : 6);
	rep->vms = vms;
	rep->nvms = 1;
	if (n > 6) {
		fill_vm(&vms[1], 2000, "db-02", n - 6);
		rep->nvms = 2;
	}
	rep->host = vcpus[0].stats;
	fill_whatif(rep);
	rep->advice.valid = true;
	rep->advice.halt_poll_ns = 200000;
	rep->advice.text = "Keep halt_poll_ns=200000: 61% of halts end while polling.\n"
			   "Larger windows buy 1% more hits for twice the CPU.";
	vms[0].advice.valid = true;
	vms[0].advice.halt_poll_ns = 100000;
}

/* Hostile names, non-finite doubles and the extreme buckets. */
static void nasty(struct hs_report *rep)
{
	static const char evil[] = "<script>alert(\"x\")</script> & 'q' \\ \n\x01\x7f\xff\xc3(\xed\xa0\x80";

	basic(rep, 2);
	memset(vcpus[0].vm, 'A', sizeof(vcpus[0].vm));	/* not NUL-terminated */
	memcpy(vcpus[1].vm, evil, sizeof(evil));
	memcpy(vms[0].name, evil, sizeof(evil));
	memcpy(rep->meta.source, evil, sizeof(evil));
	warnings[0] = "lost events <&> \"here\"";
	rep->warnings = warnings;
	rep->nwarnings = 1;
	vcpus[1].log2.poll[0] = 3;
	vcpus[1].log2.wait[HS_LOG2_BUCKETS - 1] = 2;
	vcpus[1].stats.halts += 5;
	vcpus[1].stats.window_last_ns = 0;
	vcpus[1].stats.window_mean_ns = NAN;
	vcpus[1].stats.hit_rate = NAN;
	vcpus[1].stats.sum_ns = UINT64_MAX;
	rep->host_what_if[2].hit_rate = NAN;
	rep->host_what_if[3].poll_cpu_s = INFINITY;
	rep->host_what_if[4].poll_cpu_s = -1;
	rep->duration_s = NAN;
	rep->advice.text = "line with <tags> & \"quotes\"\n\n";
}

static int setup(struct hs_report *rep, const char *scenario)
{
	memset(rep, 0, sizeof(*rep));
	if (!strcmp(scenario, "basic"))
		basic(rep, 2);
	else if (!strcmp(scenario, "many"))
		basic(rep, MAX_VCPUS);
	else if (!strcmp(scenario, "nasty"))
		nasty(rep);
	else if (!strcmp(scenario, "empty"))
		hs_meta_init(&rep->meta);
	else
		return -1;
	return 0;
}

/* What the writers were given, for the tests to compare against. */
static void expect(const struct hs_report *rep)
{
	printf("nvcpus %u\nnvms %u\n", rep->nvcpus, rep->nvms);
	for (unsigned int i = 0; i < rep->nvcpus; i++) {
		const struct hs_report_vcpu *v = &rep->vcpus[i];
		unsigned int nb = 0;

		printf("vcpu %u tid %d halts %" PRIu64 " hits %" PRIu64 " waits %" PRIu64
		       " misses %" PRIu64 " invalid %" PRIu64 " sum_ns %" PRIu64 " poll_ns %" PRIu64
		       " window %" PRId64, i, v->tid, v->stats.halts, v->stats.poll_hits,
		       v->stats.waits, v->stats.poll_misses, v->stats.invalid, v->stats.sum_ns,
		       v->stats.poll_ns, v->stats.window_last_ns);
		for (unsigned int b = 0; b < HS_LOG2_BUCKETS; b++)
			nb += (v->log2.poll[b] != 0) + (v->log2.wait[b] != 0);
		printf(" bars %u\n", nb);
	}
	for (unsigned int i = 0; i < rep->nvms; i++) {
		unsigned int nb = 0;

		for (unsigned int b = 0; b < HS_LOG2_BUCKETS; b++)
			nb += (rep->vms[i].log2.poll[b] != 0) + (rep->vms[i].log2.wait[b] != 0);
		printf("vm %u bars %u\n", i, nb);
	}
	printf("candidates %u\n", rep->n_host_what_if);
	if (rep->advice.valid)
		printf("suggested %" PRIu64 "\n", rep->advice.halt_poll_ns);
	if (rep->meta.lost_known)
		printf("lost %" PRIu64 "\n", rep->meta.lost_events);
}

int main(int argc, char **argv)
{
	struct hs_text_opts opts = { .show_advice = true, .show_histograms = true };
	const char *scenario = "basic";
	struct hs_report rep;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: hs-render svg|openmetrics|prometheus|expect [SCENARIO] [--per-vm] [--no-advice]\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--per-vm"))
			opts.per_vm_histograms = true;
		else if (!strcmp(argv[i], "--no-advice"))
			opts.show_advice = false;
		else
			scenario = argv[i];
	}
	if (setup(&rep, scenario)) {
		fprintf(stderr, "hs-render: unknown scenario '%s'\n", scenario);
		return 2;
	}
	if (!strcmp(argv[1], "svg"))
		rc = hs_report_write_svg(stdout, &rep, &opts);
	else if (!strcmp(argv[1], "openmetrics"))
		rc = hs_report_write_openmetrics(stdout, &rep);
	else if (!strcmp(argv[1], "prometheus"))
		rc = hs_report_write_prometheus(stdout, &rep);
	else if (!strcmp(argv[1], "expect"))
		rc = (expect(&rep), 0);
	else
		rc = 2;
	return rc;
}
