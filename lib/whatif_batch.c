// SPDX-License-Identifier: GPL-2.0-only
/*
 * The candidates' replay, one halt at a time over all of them (see
 * whatif_batch.h), in two forms of the same rules: scalar, for any module
 * setting; vector, four candidates per step with masks instead of
 * branches, on CPUs with AVX2, for valid halts when grow and shrink are 0
 * or powers of two. Both are compiled once per kernel era (era.h). The
 * vector form is written apart and tested against hs_sim_halt
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

typedef uint64_t v4u __attribute__((vector_size(32)));

_Static_assert(HS_WHATIF_MAX_CANDIDATES % HS_WHATIF_LANES == 0, "the vector loop reads whole lanes");
_Static_assert(sizeof(v4u) == HS_WHATIF_LANES * sizeof(uint64_t), "one v4u per step");

/*
 * Macros and pointer arguments rather than functions taking v4u: passing a
 * 32-byte vector by value has a different ABI with and without AVX, which
 * compilers warn about even when the call is always inlined.
 */
#define V4_LOAD(v, p) memcpy(&(v), (p), sizeof(v4u))
#define V4_ADD_TO(p, x) do { v4u a_; V4_LOAD(a_, p); a_ += (x); memcpy((p), &a_, sizeof(v4u)); } while (0)
/* m ? a : b, lane by lane; m lanes are all ones or all zeros */
#define V4_SEL(m, a, b) (((m) & (a)) | (~(m) & (b)))
#define V4_MIN(a, b) V4_SEL((v4u)((a) < (b)), (a), (b))

struct batch_shifts {
	uint64_t grow_start;
	int grow;	/* log2(grow), or -1: grow is 0 */
	int shrink;	/* log2(shrink), or -1: shrink is 0 */
};

/* hs_sim_rule_grow on four windows, in place */
static inline __attribute__((always_inline)) void
v4_grow(const struct batch_shifts *k, unsigned int rules, v4u *win, const v4u *max)
{
	const v4u zero = { 0 }, start = zero + k->grow_start, old = *win;
	v4u val;

	if (!(rules & HS_RULE_GROW_START)) {
		val = k->grow < 0 ? zero : V4_SEL((v4u)(old == zero), start, old << k->grow);
		*win = rules & HS_RULE_GROW_CLAMP ? V4_MIN(val, *max) : val;
		return;
	}
	if (k->grow < 0)
		return;
	val = old << k->grow;
	val = V4_SEL((v4u)(val < start), start, val);
	if (rules & HS_RULE_GROW_CLAMP)
		val = V4_MIN(val, *max);
	*win = V4_MIN(val, zero + HS_SIM_WINDOW_MAX);
}

/* hs_sim_rule_shrink on four windows, in place */
static inline __attribute__((always_inline)) void
v4_shrink(const struct batch_shifts *k, unsigned int rules, v4u *win)
{
	const v4u zero = { 0 };
	v4u val = k->shrink < 0 ? zero : *win >> k->shrink;

	if (rules & HS_RULE_SHRINK_FLOOR)
		val = V4_SEL((v4u)(val < zero + k->grow_start), zero, val);
	*win = val;
}

/* batch_halt_scalar with valid == true, four candidates per step. */
static inline __attribute__((always_inline)) void
batch_halt_vector(struct hs_whatif_batch *s, unsigned int n, const struct batch_shifts *k,
		  unsigned int rules, uint64_t d, uint64_t ovh, uint64_t cut)
{
	const v4u zero = { 0 }, one = zero + 1, dv = zero + d, ovhv = zero + ovh, cutv = zero + cut;

	for (unsigned int i = 0; i < n; i += HS_WHATIF_LANES) {
		v4u max, win, polled, hit, halt, decide, shrink, grow, change, last, moved, grown, shrunk;

		V4_LOAD(max, &s->max[i]);
		V4_LOAD(win, &s->window[i]);
		if (rules & HS_RULE_MAX_LIVE)
			win = V4_MIN(win, max);
		polled = V4_MIN(win, cutv);
		hit = (v4u)(win != zero) & (v4u)(dv < polled);
		halt = dv + (~hit & ovhv);
		V4_ADD_TO(&s->hits[i], hit & one);
		V4_ADD_TO(&s->poll_ns[i], V4_SEL(hit, dv, polled));
		V4_ADD_TO(&s->miss_poll_ns[i], ~hit & polled);

		/* hs_sim_decide for a valid halt */
		decide = (v4u)(max != zero) & (v4u)(halt > win);
		shrink = decide & (v4u)(win != zero) & (v4u)(halt > max);
		grow = decide & ~shrink & (v4u)(win < max) & (v4u)(halt < max);
		moved = grow | shrink;
		grown = shrunk = win;
		v4_grow(k, rules, &grown, &max);
		v4_shrink(k, rules, &shrunk);
		win = V4_SEL(grow, grown, V4_SEL(shrink, shrunk, V4_SEL((v4u)(max == zero), zero, win)));
		memcpy(&s->window[i], &win, sizeof(win));
		V4_ADD_TO(&s->grows[i], grow & one);
		V4_ADD_TO(&s->shrinks[i], shrink & one);

		/* change is +1 or -1 (all ones) where moved; a flap is last == -change */
		change = V4_SEL(shrink, shrink, grow & one);
		V4_LOAD(last, &s->last_change[i]);
		V4_ADD_TO(&s->flaps[i], moved & (v4u)(last == -change) & one);
		last = V4_SEL(moved, change, last);
		memcpy(&s->last_change[i], &last, sizeof(last));
	}
}

/* log2 of a power of two, -1 for 0, -2 for anything else */
static int batch_log2(uint32_t v)
{
	if (!v)
		return -1;
	return v & (v - 1) ? -2 : __builtin_ctz(v);
}

/* The whole step by the rules of one era; inlined into one function per era and instruction set. */
static inline __attribute__((always_inline)) void
batch_halt(struct hs_whatif_batch *b, unsigned int n, const struct hs_sim_params *p,
	   unsigned int rules, uint64_t d, bool valid, uint64_t cut, bool vector)
{
	const struct batch_shifts k = { p->grow_start, batch_log2(p->grow), batch_log2(p->shrink) };

	b->halts++;
	valid = valid || !(rules & HS_RULE_VALID_FIELD);
	if (vector && valid && k.grow >= -1 && k.shrink >= -1) {
		unsigned int lanes = (n + HS_WHATIF_LANES - 1) / HS_WHATIF_LANES * HS_WHATIF_LANES;

		batch_halt_vector(b, lanes, &k, rules, d, p->wake_overhead_ns, cut);
		return;
	}
	batch_halt_scalar(b, n, p, rules, d, valid, cut);
}

/*
 * The loops of each row of era.h, rules constant, for each instruction set.
 * Without AVX2 the 256-bit vectors become pairs of SSE2 operations, and
 * unsigned 64-bit compares a sequence each: slower than the branches.
 */
#define BATCH_FN(isa, attrs, vector, id, rules)						\
attrs static void batch_##isa##_##id(struct hs_whatif_batch *b, unsigned int n,		\
				     const struct hs_sim_params *p, uint64_t d, bool valid,	\
				     uint64_t cut)						\
{											\
	batch_halt(b, n, p, rules, d, valid, cut, vector);				\
}
#if defined(__x86_64__)
#define BATCH_FN_AVX2(id, rules) BATCH_FN(avx2, __attribute__((target("avx2"))), true, id, rules)
#else
#define BATCH_FN_AVX2(id, rules)
#endif
#define BATCH_FNS(id, name, major, minor, rules, ...) \
	BATCH_FN(base, , false, id, rules) BATCH_FN_AVX2(id, rules)
HS_ERA_TABLE(BATCH_FNS)

/* by era */
#define BATCH_BASE_ROW(id, ...) [HS_ERA_##id] = batch_base_##id,
static hs_whatif_batch_fn *const batch_base[HS_ERA_COUNT] = { HS_ERA_TABLE(BATCH_BASE_ROW) };
#if defined(__x86_64__)
#define BATCH_AVX2_ROW(id, ...) [HS_ERA_##id] = batch_avx2_##id,
static hs_whatif_batch_fn *const batch_avx2[HS_ERA_COUNT] = { HS_ERA_TABLE(BATCH_AVX2_ROW) };
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
#endif

/* best first */
static const struct batch_variant batch_variants[] = {
#if defined(__x86_64__)
	{ "avx2", batch_avx2, batch_has_avx2 },
#endif
	{ "none", batch_base, batch_always },
};

/*
 * The best variant this CPU runs; HALTSTAT_VECTOR=none|avx2 asks for one
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
