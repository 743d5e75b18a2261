// SPDX-License-Identifier: GPL-2.0-only
/*
 * This host's wake-up overhead for haltstat replay (replay_overhead.h):
 * two short runs of the replay's own VMs, timed by their waker.
 */
#include <stdlib.h>

#include "replay_overhead.h"
#include "workload.h"

#define OVERHEAD_HIT_GAP_NS	50000ull	/* short enough to hit at ... */
#define OVERHEAD_HIT_WINDOW	1000000		/* ... this window, once grown */
#define OVERHEAD_HALTS	2000ull
#define OVERHEAD_WAIT_NS	500000000ull	/* of recorded gaps at window 0 */
#define OVERHEAD_MIN_WAITS	100

/* The q-quantile of a latency histogram (1 us bins), in ns at the bin's middle. */
static uint64_t lat_quantile(const uint32_t *h, uint64_t n, double q)
{
	uint64_t want = (uint64_t)(q * (double)n), seen = 0;

	for (unsigned int b = 0; b < HS_WORKLOAD_LAT_BINS; b++) {
		seen += h[b];
		if (seen > want)
			return b * 1000ull + 500;
	}
	return HS_WORKLOAD_LAT_BINS * 1000ull;
}

static uint64_t lat_count(const uint32_t *h)
{
	uint64_t n = 0;

	for (unsigned int b = 0; b < HS_WORKLOAD_LAT_BINS; b++)
		n += h[b];
	return n;
}

/* The first recorded gaps, up to OVERHEAD_HALTS of them or OVERHEAD_WAIT_NS in all. */
static uint64_t overhead_waits(const struct hs_gap_seq *g)
{
	uint64_t n = 0, sum = 0;

	while (n < g->n && n < OVERHEAD_HALTS && sum < OVERHEAD_WAIT_NS)
		sum += g->ns[n++];
	return n;
}

/* One run: every vCPU's recorded gaps at window 0, or (hit_gaps) short ones at a wide window. */
static int overhead_run(const struct hs_workload_params *p, const struct hs_gap_seq *recorded,
			struct hs_gap_seq *cs, int64_t *poll, const uint64_t *hit_gaps,
			struct hs_workload_vm *vms, struct hs_error *err)
{
	struct hs_workload_params cp = *p;
	uint64_t wall;

	for (unsigned int v = 0; v < p->nvms; v++) {
		cs[v].ns = hit_gaps ? hit_gaps : recorded[v].ns;
		cs[v].n = hit_gaps ? OVERHEAD_HALTS : overhead_waits(&recorded[v]);
		poll[v] = hit_gaps ? OVERHEAD_HIT_WINDOW : 0;
	}
	cp.seqs = cs;
	cp.halt_poll_ns = poll;
	return hs_workload_run(&cp, vms, &wall, err);
}

/* The wait latencies less the hit median: the guest's own part of the latency is in both. */
static void overhead_quantiles(const struct hs_workload_vm *vm, uint64_t hit_ns,
			       struct hs_host_overhead *o)
{
	uint64_t n = lat_count(vm->wake_lat_us);

	o->waits = 0;
	if (n < OVERHEAD_MIN_WAITS)
		return;
	o->waits = n;
	for (unsigned int k = 0; k < HS_OVERHEAD_Q; k++) {
		uint64_t w = lat_quantile(vm->wake_lat_us, n, (k + 0.5) / HS_OVERHEAD_Q);

		o->ns[k] = w > hit_ns ? w - hit_ns : 0;
	}
}

int hs_host_overhead_measure(const struct hs_workload_params *p,
			     const struct hs_gap_seq *recorded, int64_t *poll,
			     struct hs_workload_vm *vms, struct hs_host_overhead *out,
			     struct hs_error *err)
{
	struct hs_gap_seq *cs = calloc(p->nvms, sizeof(*cs));
	uint64_t *hit_gaps = malloc(OVERHEAD_HALTS * sizeof(*hit_gaps));
	uint64_t *hit_ns = calloc(p->nvms, sizeof(*hit_ns));
	int ret = 0;

	if (!cs || !hit_gaps || !hit_ns)
		ret = hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	for (uint64_t i = 0; !ret && i < OVERHEAD_HALTS; i++)
		hit_gaps[i] = OVERHEAD_HIT_GAP_NS;
	if (!ret)
		ret = overhead_run(p, recorded, cs, poll, hit_gaps, vms, err);
	for (unsigned int v = 0; !ret && v < p->nvms; v++)
		hit_ns[v] = lat_quantile(vms[v].wake_lat_us, lat_count(vms[v].wake_lat_us), 0.5);
	if (!ret)
		ret = overhead_run(p, recorded, cs, poll, NULL, vms, err);
	for (unsigned int v = 0; !ret && v < p->nvms; v++)
		overhead_quantiles(&vms[v], hit_ns[v], &out[v]);
	free(hit_ns);
	free(hit_gaps);
	free(cs);
	return ret;
}
