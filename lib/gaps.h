/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_GAPS_H
#define HS_GAPS_H

#include <stdint.h>

#include "error.h"

/*
 * Times between wakes: the patterns the KVM workload (lib/sys/workload.h),
 * the synthetic traces and the replay of a recording draw their gaps from.
 * The same pattern and seed give the same sequence everywhere.
 */
enum hs_gap_kind {
	HS_GAP_LIST,		/* ns[0..n) cycled; a period is a list of one */
	HS_GAP_EXP,		/* exponential with mean ns[0], seeded */
};

#define HS_GAP_MAX 64

struct hs_gap_pattern {
	enum hs_gap_kind kind;
	unsigned int n;
	uint64_t ns[HS_GAP_MAX];
	uint64_t seed;
};

struct hs_gap_gen {
	const struct hs_gap_pattern *p;
	uint64_t i;
	uint64_t rng;
	const uint64_t *seq;		/* a recorded sequence replayed instead of p */
	uint64_t nseq;
};

/* A recorded gap sequence for one VM (haltstat replay). */
struct hs_gap_seq {
	const uint64_t *ns;
	uint64_t n;
};

/* "30us,100us,600us" (cycled), "period:250us", "exp:200us" (seed set apart). */
int hs_gap_pattern_parse(const char *spec, struct hs_gap_pattern *p, struct hs_error *err);
/* stream: one independent sequence per vCPU (exponential patterns). */
void hs_gap_gen_init(struct hs_gap_gen *g, const struct hs_gap_pattern *p, unsigned int stream);
/* Replays seq[0..n) (cycled past the end); seq must outlive g. */
void hs_gap_gen_init_seq(struct hs_gap_gen *g, const uint64_t *seq, uint64_t n);
uint64_t hs_gap_gen_next(struct hs_gap_gen *g);

#endif
