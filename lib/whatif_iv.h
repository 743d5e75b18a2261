/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_WHATIF_IV_H
#define HS_WHATIF_IV_H

#include <stdbool.h>
#include <stdint.h>

#include "sim.h"
#include "whatif_types.h"
#include "whatif_batch.h"

/*
 * The what-if's prediction intervals and its open-loop replay (private to
 * lib/whatif*.c; whatif.c explains the models).
 */

/* Halts the interval's replays cover, per vCPU: the cost stays bounded. */
#define HS_WHATIF_IV_HALTS 8192

/*
 * Open loop: wakes stay where they were in absolute time. A halt that the
 * recording ended with a wait (wake-up overhead Δ) and the replay with a
 * hit (none) leaves the guest back in HLT Δ earlier, so the next time to
 * wake is Δ longer; the reverse makes it Δ shorter (never below 0). Δ is
 * that halt's own overhead (a timed wait's, else the estimate). A halt
 * whose wake was already pending (a time to wake under
 * HS_WHATIF_PENDING_NS) does not sleep even when it does not poll:
 * kvm_vcpu_block() finds the wake before it schedules, so it moves nothing.
 */
#define HS_WHATIF_PENDING_NS 1000

struct hs_whatif_open {
	struct hs_sim sim[HS_WHATIF_MAX_CANDIDATES];
	bool prev_hit[HS_WHATIF_MAX_CANDIDATES];
	bool prev_rec_waited;
	bool prev_pending;
	bool started;
	uint64_t prev_overhead;
};

void hs_whatif_open_init(struct hs_whatif_open *o, const struct hs_sim_params *base,
			 const uint64_t *cands, unsigned int n);
/*
 * d: the recorded time to wake; overhead: what a miss of this halt costs
 * (its Δ); cut: the poll ends there at the latest (hs_sim_halt_cut), taken
 * from the recorded halt's start although the replayed one may start up to
 * Δ apart.
 */
void hs_whatif_open_halt(struct hs_whatif_open *o, unsigned int n, uint64_t d, uint64_t overhead,
			 bool rec_waited, bool valid, uint64_t cut);

struct hs_whatif_iv;

struct hs_whatif_iv *hs_whatif_iv_alloc(const struct hs_sim_params *base, enum hs_kernel_era era,
					const uint64_t *cands, unsigned int n);
void hs_whatif_iv_free(struct hs_whatif_iv *iv);
/*
 * Before the first halt: the Δ of the point and its range, and the wake
 * model the point replay uses; other_model: a variant replays the other
 * one too (unless the trace refuted it); idle_waits: the waits were timed
 * with polling off, and a variant replays them shorter, as they come with
 * polling on.
 */
void hs_whatif_iv_start(struct hs_whatif_iv *iv, uint64_t delta, uint64_t delta_lo,
			uint64_t delta_hi, bool point_open, bool other_model, bool idle_waits);
/*
 * One recorded halt, replayed by every variant while within HS_WHATIF_IV_HALTS
 * (a timed wait with its own time to wake and overhead in each).
 */
struct hs_whatif_rec;
void hs_whatif_iv_halt(struct hs_whatif_iv *iv, const struct hs_whatif_rec *r);
/* True when the point's counts are wanted now (hs_whatif_iv_counts, after the point's halt). */
bool hs_whatif_iv_tick(struct hs_whatif_iv *iv);
void hs_whatif_iv_counts(struct hs_whatif_iv *iv, const uint64_t *hits, const uint64_t *poll_ns,
			 bool final);
/* Fills row's low/high from its point figures (set before). */
void hs_whatif_iv_row(const struct hs_whatif_iv *iv, unsigned int i, struct hs_whatif_row *row);

/* A replay over given times to wake: its point and its interval. */
struct hs_whatif_gaps_iv {
	uint64_t hits, poll_ns;			/* the point, at p as given */
	double hit_lo, hit_hi, poll_lo, poll_hi;	/* hit rate, polling CPU seconds */
};

/*
 * The point and interval of a replay over given times to wake (haltstat
 * replay, closed loop since its workload arms each wake when the guest
 * halts): Δ range, perturbed times to wake and the sampling spread.
 */
void hs_whatif_iv_gaps(const struct hs_sim_params *p, uint64_t delta_lo, uint64_t delta_hi,
		       const uint64_t *gaps, uint64_t n, struct hs_whatif_gaps_iv *out);

#endif
