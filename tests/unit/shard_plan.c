// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/shard_plan.c: how many readers share a recording's vCPU threads, and
 * with which salt, from the halts a first look saw on each thread.
 */
#include <stdlib.h>

#include "../../lib/shard_plan.h"
#include "check.h"

/* The halts of the busiest of count readers under salt. */
static uint64_t busiest(const struct hs_shard_load *load, unsigned int n, unsigned int count,
			uint32_t salt)
{
	uint64_t per[HS_SHARD_READERS_MAX] = { 0 }, most = 0;

	for (unsigned int i = 0; i < n; i++) {
		unsigned int owners = 0;

		for (unsigned int s = 0; s < count; s++)
			if (hs_shard_owns((struct hs_shard){ s, count, salt }, load[i].tid)) {
				per[s] += load[i].halts;
				owners++;
			}
		if (owners != 1)
			return UINT64_MAX;	/* every thread in exactly one share */
	}
	for (unsigned int s = 0; s < count; s++)
		most = per[s] > most ? per[s] : most;
	return most;
}

static void three_vms(void)
{
	/* the bench's dense recording: 3 VMs of one vCPU, halts nearly every event */
	const struct hs_shard_load load[] = { { 5001, 2700 }, { 5101, 2700 }, { 5201, 2700 } };
	struct hs_shard_plan p;

	/* the plain hash puts two of these three on one reader of two, and of three */
	CHECK(busiest(load, 3, 2, 0) == 5400 && busiest(load, 3, 3, 0) == 5400,
	      "plan-3vm-plain-hash-uneven");
	hs_shard_plan_choose(load, 3, 8400, 3, &p);
	CHECK(p.readers == 3 && busiest(load, 3, 3, p.salt) == 2700, "plan-3vm-three-readers");
	hs_shard_plan_choose(load, 3, 8400, 2, &p);
	CHECK(p.readers == 2 && busiest(load, 3, 2, p.salt) == 5400, "plan-3vm-compressed-two");
	/* the same halts among ten times the sched events: a third decoding costs too much */
	hs_shard_plan_choose(load, 3, 84000, 3, &p);
	CHECK(p.readers == 2, "plan-3vm-noisy-two");
}

static void few_and_many(void)
{
	const struct hs_shard_load one[] = { { 4242, 5000 } };
	const struct hs_shard_load skew[] = { { 7001, 9100 }, { 7002, 900 } };
	const struct hs_shard_load fair[] = { { 7001, 8400 }, { 7002, 1600 } };
	struct hs_shard_load eight[8];
	struct hs_shard_plan p;

	hs_shard_plan_choose(one, 1, 10000, 3, &p);
	CHECK(p.readers == 2 && p.salt == 0, "plan-one-vcpu-as-before");
	hs_shard_plan_choose(skew, 2, 20000, 3, &p);
	CHECK(p.readers == 2 && busiest(skew, 2, 2, p.salt) == 9100, "plan-one-busy-vcpu-two");
	hs_shard_plan_choose(fair, 2, 20000, 3, &p);
	CHECK(p.readers == 2 && busiest(fair, 2, 2, p.salt) == 8400, "plan-two-vcpus-split");
	hs_shard_plan_choose(one, 0, 10000, 3, &p);
	CHECK(p.readers == 2 && p.salt == 0, "plan-no-halts-as-before");

	/* big.dat's 8 vCPUs: the plain hash already splits them 4:4, and is kept */
	for (int i = 0; i < 8; i++)
		eight[i] = (struct hs_shard_load){ (i < 4 ? 5001 : 5097) + i, 1000 };
	hs_shard_plan_choose(eight, 8, 16384, 3, &p);
	CHECK(p.readers == 2 && p.salt == 0 && busiest(eight, 8, 2, 0) == 4000,
	      "plan-eight-plain-hash-kept");
}

/* Random threads and loads: never a busier reader than the plain hash gives. */
static void never_worse(void)
{
	unsigned int worse = 0, better = 0;

	for (int round = 0; round < 500; round++) {
		struct hs_shard_load load[12];
		unsigned int n = 2 + (unsigned int)(check_rng() % 11);
		struct hs_shard_plan p;
		uint64_t total = 0;

		for (unsigned int i = 0; i < n; i++) {
			load[i] = (struct hs_shard_load){ (int)(1000 + check_rng() % 100000),
							  1 + check_rng() % 1000 };
			total += load[i].halts;
		}
		hs_shard_plan_choose(load, n, total + check_rng() % (4 * total), 3, &p);
		if (busiest(load, n, p.readers, p.salt) > busiest(load, n, p.readers, 0))
			worse++;
		better += busiest(load, n, p.readers, p.salt) < busiest(load, n, p.readers, 0);
	}
	CHECK(worse == 0, "plan-never-busier-than-plain");
	CHECK(better > 50, "plan-often-better-than-plain");
}

int main(void)
{
	three_vms();
	few_and_many();
	never_worse();
	return CHECK_DONE();
}
