// SPDX-License-Identifier: GPL-2.0-only
/*
 * How readers that read one recording side by side share its vCPU threads
 * (shard_plan.h). Each reader decodes every event and follows every
 * runqueue, and accounts only the halts of its own threads; the threads
 * fall to readers by their tid's hash (hs_shard_owns). With few threads
 * the hash can fall badly: three vCPUs are split 2:1 at best and 3:0 one
 * time in four, where the second reader decodes for nothing. From the
 * halts per thread of a first look, the plan tries other salts for the
 * hash, and a third reader where the two CPUs are better used by three.
 * (One busy vCPU thread is still read by two: measured on a generated
 * recording of one, two readers took 32.4 ms, the accounting thread of
 * sink_pipe.c 34.5 ms, and one thread alone 26.5 ms; a plan cannot ask a
 * source for the last yet.)
 */
#include "shard_plan.h"

/* Salts tried: the first is the plain hash, kept unless one is better by a 20th of the halts. */
#define HS_SHARD_SALTS 32
#define HS_SHARD_SALT_GAIN 20
/*
 * A halt's accounting (the what-if most of it) against one event's
 * decoding and runqueues: on one thread, a generated recording of 3
 * vCPUs (201000 halts in 206084 events) spent 9% of 36 ms of CPU in
 * these and about 70% in the halts', 15 ns an event against 125 ns a halt.
 */
#define HS_SHARD_HALT_COST 8
/* A third reader only for a clear gain: it decodes everything once more. */
#define HS_SHARD_THIRD_GAIN 0.9

static uint32_t plan_salt(unsigned int i)
{
	return i * 0x9e3779b9u;
}

/* The halts of the busiest of count readers sharing load with salt. */
static uint64_t plan_busiest(const struct hs_shard_load *load, unsigned int n,
			     unsigned int count, uint32_t salt)
{
	uint64_t per[HS_SHARD_READERS_MAX] = { 0 }, most = 0;

	for (unsigned int i = 0; i < n; i++)
		per[hs_shard_of(count, salt, load[i].tid)] += load[i].halts;
	for (unsigned int s = 0; s < count; s++)
		most = per[s] > most ? per[s] : most;
	return most;
}

/*
 * The salt that leaves the busiest of count readers least, and those
 * halts; the plain hash unless another does clearly better than it (a
 * first look's counts differ a little where the threads' loads do not).
 */
static uint64_t plan_best_salt(const struct hs_shard_load *load, unsigned int n,
			       unsigned int count, uint64_t halts, uint32_t *salt)
{
	uint64_t plain = plan_busiest(load, n, count, 0), best = plain;

	*salt = 0;
	for (unsigned int i = 1; i < HS_SHARD_SALTS; i++) {
		uint64_t most = plan_busiest(load, n, count, plan_salt(i));

		if (most < best) {
			best = most;
			*salt = plan_salt(i);
		}
	}
	if (plain - best <= halts / HS_SHARD_SALT_GAIN) {
		*salt = 0;
		return plain;
	}
	return best;
}

/* Time for count readers on two CPUs, in events' worth: the busiest, or the CPUs' share. */
static double plan_time(unsigned int count, uint64_t busiest, uint64_t halts, uint64_t events)
{
	double one = (double)events + HS_SHARD_HALT_COST * (double)busiest;
	double all = ((double)count * (double)events + HS_SHARD_HALT_COST * (double)halts) / 2;

	return one > all ? one : all;
}

void hs_shard_plan_choose(const struct hs_shard_load *load, unsigned int n, uint64_t events,
			  unsigned int max_readers, struct hs_shard_plan *plan)
{
	uint64_t halts = 0, busiest2, busiest3;
	uint32_t salt2 = 0, salt3 = 0;

	for (unsigned int i = 0; i < n; i++)
		halts += load[i].halts;
	*plan = (struct hs_shard_plan){ .readers = 2 };
	if (!halts)
		return;
	busiest2 = plan_best_salt(load, n, 2, halts, &salt2);
	plan->salt = salt2;
	if (max_readers < 3)
		return;
	busiest3 = plan_best_salt(load, n, 3, halts, &salt3);
	if (plan_time(3, busiest3, halts, events) <
	    HS_SHARD_THIRD_GAIN * plan_time(2, busiest2, halts, events))
		*plan = (struct hs_shard_plan){ .readers = 3, .salt = salt3 };
}
