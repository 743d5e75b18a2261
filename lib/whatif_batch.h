/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_WHATIF_BATCH_H
#define HS_WHATIF_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "sim.h"
#include "whatif_types.h"

/* Lanes of the widest vector loop (AVX-512): arrays are padded to a multiple of this. */
#define HS_WHATIF_LANES_MAX 8

struct hs_whatif_batch;

typedef void hs_whatif_batch_fn(struct hs_whatif_batch *b, unsigned int n,
				const struct hs_sim_params *p, uint64_t d, bool valid,
				uint64_t cut);

/*
 * Every candidate's replay state, one array per field: the per-halt loop
 * over the candidates is the hot spot of a report. It follows hs_sim_halt
 * exactly (tests/unit/whatif.c replays both side by side). Lanes past the
 * last candidate hold M = 0 and are never read back.
 */
struct hs_whatif_batch {
	uint64_t max[HS_WHATIF_MAX_CANDIDATES];
	uint64_t window[HS_WHATIF_MAX_CANDIDATES];
	uint64_t hits[HS_WHATIF_MAX_CANDIDATES];
	uint64_t poll_ns[HS_WHATIF_MAX_CANDIDATES];
	uint64_t miss_poll_ns[HS_WHATIF_MAX_CANDIDATES];
	uint64_t grows[HS_WHATIF_MAX_CANDIDATES];
	uint64_t shrinks[HS_WHATIF_MAX_CANDIDATES];
	uint64_t flaps[HS_WHATIF_MAX_CANDIDATES];
	int64_t last_change[HS_WHATIF_MAX_CANDIDATES];	/* +1 grow, -1 shrink, 0 none */
	uint64_t halts;
	hs_whatif_batch_fn *halt;	/* the loop for the era and this CPU's instruction set */
};

/* Zeroes b and picks its loop for the era (see hs_whatif_batch_variant). */
void hs_whatif_batch_init(struct hs_whatif_batch *b, enum hs_kernel_era era);

/*
 * One halt of time to wake d for the first n candidates; p: their shared
 * parameters, of b's era; cut: the poll ends there at the latest
 * (hs_sim_halt_cut's poll_cut_ns).
 */
static inline void hs_whatif_batch_halt(struct hs_whatif_batch *b, unsigned int n,
					const struct hs_sim_params *p, uint64_t d, bool valid,
					uint64_t cut)
{
	b->halt(b, n, p, d, valid, cut);
}

/*
 * "avx512", "avx2" or "none" (the scalar loop): the loop hs_whatif_batch_init picks,
 * the best this CPU runs unless HALTSTAT_VECTOR names a lesser one.
 */
const char *hs_whatif_batch_variant(void);

#endif
