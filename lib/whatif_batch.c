// SPDX-License-Identifier: GPL-2.0-only
/*
 * The candidates' replay, one halt at a time over all of them (see
 * whatif_batch.h), in two forms of the same rules: scalar, for any module
 * setting; vector, four candidates per step with AVX2 or eight with
 * AVX-512, masks instead of branches, for valid halts when grow and shrink
 * are 0 or powers of two. All are compiled once per kernel era (era.h).
 * The vector form (whatif_batch_vector.h) is written apart and tested
 * against hs_sim_halt
 * (tests/unit/whatif.c, tests/t-fastpath.sh); doc/INTERNALS.md, "The
 * batched replay".
 */
#include <stdlib.h>
#include <string.h>

#include "whatif_batch.h"

/* ---- scalar ---- */

/* rules: the era's (era.h), a constant after inlining. */
static inline __attribute__((always_inline)) void
batch_halt_scalar(struct hs_whatif_batch *s, unsigned int n, const struct hs_sim_params *p,
		  unsigned int rules, uint64_t d, bool valid, uint64_t cut)
{
	const uint64_t ovh = p->wake_overhead_ns;
	const int shift = p->shrink && !(p->shrink & (p->shrink - 1)) ?
			  __builtin_ctz(p->shrink) : -1;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t max = s->max[i], win = s->window[i], halt_ns, polled;
		int change;

		if (rules & HS_RULE_MAX_LIVE && win > max)
			win = max;
		polled = win < cut ? win : cut;
		if (win && d < polled) {
			halt_ns = d;
			s->hits[i]++;
			s->poll_ns[i] += d;
		} else {
			halt_ns = d + ovh;
			s->poll_ns[i] += polled;
			s->miss_poll_ns[i] += polled;
		}
		change = hs_sim_rule_decide(halt_ns, win, max, valid);
		if (change > 0) {
			win = hs_sim_rule_grow(rules, p, win, max);
			s->grows[i]++;
		} else if (change < 0) {
			win = hs_sim_rule_shrink(rules, p, win, shift);
			s->shrinks[i]++;
		} else if (!max && valid) {
			win = 0;
		}
		if (change) {
			s->flaps[i] += s->last_change[i] == -change;
			s->last_change[i] = change;
		}
		s->window[i] = win;
	}
}

/* ---- vector ---- */

/* One step's lanes: four candidates with AVX2, eight with AVX-512. */
typedef uint64_t v4u __attribute__((vector_size(32)));
typedef uint64_t v8u __attribute__((vector_size(64)));

_Static_assert(HS_WHATIF_MAX_CANDIDATES % HS_WHATIF_LANES_MAX == 0,
	       "the vector loops read whole steps");
_Static_assert(sizeof(v8u) == HS_WHATIF_LANES_MAX * sizeof(uint64_t), "the widest step");

struct batch_shifts {
	uint64_t grow_start;
	int grow;	/* log2(grow), or -1: grow is 0 */
	int shrink;	/* log2(shrink), or -1: shrink is 0 */
};

/*
 * The vector loop, once per width (whatif_batch_vector.h): the same rules
 * for four lanes and for eight, from one text.
 */
#define BV_T v4u
#define BV(name) v4_##name
#include "whatif_batch_vector.h"
#undef BV_T
#undef BV
#define BV_T v8u
#define BV(name) v8_##name
#include "whatif_batch_vector.h"
#undef BV_T
#undef BV

/* log2 of a power of two, -1 for 0, -2 for anything else */
static int batch_log2(uint32_t v)
{
	if (!v)
		return -1;
	return v & (v - 1) ? -2 : __builtin_ctz(v);
}

/*
 * The whole step by the rules of one era; inlined into one function per
 * era and instruction set. lanes: a vector step's, or 0 for the scalar
 * loop.
 */
static inline __attribute__((always_inline)) void
batch_halt(struct hs_whatif_batch *b, unsigned int n, const struct hs_sim_params *p,
	   unsigned int rules, uint64_t d, bool valid, uint64_t cut, unsigned int lanes)
{
	const struct batch_shifts k = { p->grow_start, batch_log2(p->grow), batch_log2(p->shrink) };

	b->halts++;
	valid = valid || !(rules & HS_RULE_VALID_FIELD);
	if (lanes && valid && k.grow >= -1 && k.shrink >= -1) {
		/* n up to whole steps: the lanes past the last candidate hold M = 0 */
		unsigned int padded = (n + lanes - 1) / lanes * lanes;

		if (lanes == 8)
			v8_halt(b, padded, &k, rules, d, p->wake_overhead_ns, cut);
		else
			v4_halt(b, padded, &k, rules, d, p->wake_overhead_ns, cut);
		return;
	}
	batch_halt_scalar(b, n, p, rules, d, valid, cut);
}

/*
 * The loops of each row of era.h, rules constant, for each instruction set.
 * Without AVX2 the 256-bit vectors become pairs of SSE2 operations, and
 * unsigned 64-bit compares a sequence each: slower than the branches.
 * AVX-512 has eight lanes and compares unsigned 64-bit lanes itself.
 */
#define BATCH_FN(isa, attrs, lanes, id, rules)						\
attrs static void batch_##isa##_##id(struct hs_whatif_batch *b, unsigned int n,		\
				     const struct hs_sim_params *p, uint64_t d, bool valid,	\
				     uint64_t cut)						\
{											\
	batch_halt(b, n, p, rules, d, valid, cut, lanes);				\
}
#if defined(__x86_64__)
#define BATCH_FN_X86(id, rules)									\
	BATCH_FN(avx2, __attribute__((target("avx2"))), 4, id, rules)				\
	BATCH_FN(avx512, __attribute__((target("avx512f"))), 8, id, rules)
#else
#define BATCH_FN_X86(id, rules)
#endif
#define BATCH_FNS(id, name, major, minor, rules, ...) \
	BATCH_FN(base, , 0, id, rules) BATCH_FN_X86(id, rules)
HS_ERA_TABLE(BATCH_FNS)

/* by era */
#define BATCH_BASE_ROW(id, ...) [HS_ERA_##id] = batch_base_##id,
static hs_whatif_batch_fn *const batch_base[HS_ERA_COUNT] = { HS_ERA_TABLE(BATCH_BASE_ROW) };
#if defined(__x86_64__)
#define BATCH_AVX2_ROW(id, ...) [HS_ERA_##id] = batch_avx2_##id,
static hs_whatif_batch_fn *const batch_avx2[HS_ERA_COUNT] = { HS_ERA_TABLE(BATCH_AVX2_ROW) };
#define BATCH_AVX512_ROW(id, ...) [HS_ERA_##id] = batch_avx512_##id,
static hs_whatif_batch_fn *const batch_avx512[HS_ERA_COUNT] = { HS_ERA_TABLE(BATCH_AVX512_ROW) };
#endif

struct batch_variant {
	const char *name;
	hs_whatif_batch_fn *const *halt;	/* by era */
	bool (*usable)(void);
};

static bool batch_always(void)
{
	return true;
}

#if defined(__x86_64__)
static bool batch_has_avx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}

static bool batch_has_avx512(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f");
}
#endif

/* best first */
static const struct batch_variant batch_variants[] = {
#if defined(__x86_64__)
	{ "avx512", batch_avx512, batch_has_avx512 },
	{ "avx2", batch_avx2, batch_has_avx2 },
#endif
	{ "none", batch_base, batch_always },
};

/*
 * The best variant this CPU runs; HALTSTAT_VECTOR=none|avx2|avx512 asks for one
 * (the tests replay each), or the next lesser one when the CPU lacks it.
 */
static const struct batch_variant *batch_variant_pick(void)
{
	const char *want = getenv("HALTSTAT_VECTOR");
	const size_t count = sizeof(batch_variants) / sizeof(batch_variants[0]);
	size_t i = 0;

	if (want)
		while (i + 1 < count && strcmp(batch_variants[i].name, want))
			i++;
	while (i + 1 < count && !batch_variants[i].usable())
		i++;
	return &batch_variants[i];
}

void hs_whatif_batch_init(struct hs_whatif_batch *b, enum hs_kernel_era era)
{
	memset(b, 0, sizeof(*b));
	b->halt = batch_variant_pick()->halt[hs_kernel_era_get(era) - hs_kernel_eras];
}

const char *hs_whatif_batch_variant(void)
{
	return batch_variant_pick()->name;
}
