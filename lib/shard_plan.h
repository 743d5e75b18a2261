/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_SHARD_PLAN_H
#define HS_SHARD_PLAN_H

#include <stdint.h>

#include "intmap.h"

/* The halts a first look at a recording saw on one vCPU thread. */
struct hs_shard_load {
	int tid;
	uint64_t halts;
};

/* How many readers read one recording side by side, and how they share its vCPU threads. */
struct hs_shard_plan {
	unsigned int readers;	/* 2 or 3 */
	uint32_t salt;		/* struct hs_shard's */
};

#define HS_SHARD_READERS_MAX 3

/*
 * The plan for a recording of which a first look saw events events, and
 * load[n] the halts of each vCPU thread. Readers share the vCPU threads
 * (each decodes every event, and accounts the halts of its own threads);
 * max_readers is 2, or 3 where a third reader costs no more than its
 * decoding (not where compressed chunks are inflated between two).
 */
void hs_shard_plan_choose(const struct hs_shard_load *load, unsigned int n, uint64_t events,
			  unsigned int max_readers, struct hs_shard_plan *plan);

#endif
