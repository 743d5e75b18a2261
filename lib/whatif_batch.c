// SPDX-License-Identifier: GPL-2.0-only
/*
 * The candidates' replay, one halt at a time over all of them (see
 * whatif_batch.h). Two forms of the same rules:
 *
 * - scalar: any module setting; a branch per candidate, and the branches
 *   go whichever way each candidate's window makes them, so they are
 *   mispredicted often.
 * - vector: four candidates per step with masks instead of branches, for
 *   valid halts (every halt on a kernel with the valid field, all on 4.4)
 *   when grow and shrink are 0 or powers of two (multiply and divide become
 *   shifts; the module defaults are 2 and 0 or 2), on CPUs with AVX2
 *   (chosen when a vCPU's replay is set up).
 *
 * hs_sim_halt (sim.c) is the reference both are tested against.
 */
#include <stdlib.h>
#include <string.h>

#include "whatif_batch.h"

/* ---- scalar ---- */

/* hs_sim_grow_value for one candidate; era is a constant after inlining. */
static inline __attribute__((always_inline)) uint64_t
batch_grow(const struct hs_sim_params *p, enum hs_kernel_era era, uint64_t old, uint64_t max)
{
	uint64_t val;

	if (era == HS_ERA_4_4) {
		val = old == 0 && p->grow ? p->grow_start : old * p->grow;
		return val > max ? max : val;
	}
	if (!p->grow)
		return old;
	val = old * p->grow;
	if (val < p->grow_start)
		val = p->grow_start;
	if (era == HS_ERA_5_X && val > max)
		val = max;
	return val > 0xffffffffull ? 0xffffffffull : val;
}

/* hs_sim_shrink_value; shift >= 0 when shrink is a power of two. */
static inline __attribute__((always_inline)) uint64_t
batch_shrink(const struct hs_sim_params *p, enum hs_kernel_era era, uint64_t win, int shift)
{
	uint64_t val = !p->shrink ? 0 : shift >= 0 ? win >> shift : win / p->shrink;

	if (era != HS_ERA_4_4 && val < p->grow_start)
		val = 0;
	return val;
}

static inline __attribute__((always_inline)) void
batch_halt_scalar(struct hs_whatif_batch *s, unsigned int n, const struct hs_sim_params *p,
		  enum hs_kernel_era era, uint64_t d, bool valid)
{
	const uint64_t ovh = p->wake_overhead_ns;
	const int shift = p->shrink && !(p->shrink & (p->shrink - 1)) ?
			  __builtin_ctz(p->shrink) : -1;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t max = s->max[i], win = s->window[i], halt_ns;
		int change = 0;

		if (era >= HS_ERA_6_1 && win > max)
			win = max;
		if (win && d < win) {
			halt_ns = d;
			s->hits[i]++;
			s->poll_ns[i] += d;
		} else {
			halt_ns = d + ovh;
			s->poll_ns[i] += win;
			s->miss_poll_ns[i] += win;
		}
		/* hs_sim_decide */
		if (!valid && era != HS_ERA_4_4)
			change = -1;
		else if (max && halt_ns > win)
			change = win && halt_ns > max ? -1 : win < max && halt_ns < max;
		if (change > 0) {
			win = batch_grow(p, era, win, max);
			s->grows[i]++;
		} else if (change < 0) {
			win = batch_shrink(p, era, win, shift);
			s->shrinks[i]++;
		} else if (!max && (valid || era == HS_ERA_4_4)) {
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

/* batch_grow on four windows, in place */
static inline __attribute__((always_inline)) void
v4_grow(const struct batch_shifts *k, enum hs_kernel_era era, v4u *win, const v4u *max)
{
	const v4u zero = { 0 }, start = zero + k->grow_start, old = *win;
	v4u val;

	if (era == HS_ERA_4_4) {
		val = k->grow < 0 ? zero : V4_SEL((v4u)(old == zero), start, old << k->grow);
		*win = V4_MIN(val, *max);
		return;
	}
	if (k->grow < 0)
		return;
	val = old << k->grow;
	val = V4_SEL((v4u)(val < start), start, val);
	if (era == HS_ERA_5_X)
		val = V4_MIN(val, *max);
	*win = V4_MIN(val, zero + 0xffffffffull);
}

/* batch_shrink on four windows, in place */
static inline __attribute__((always_inline)) void
v4_shrink(const struct batch_shifts *k, enum hs_kernel_era era, v4u *win)
{
	const v4u zero = { 0 };
	v4u val = k->shrink < 0 ? zero : *win >> k->shrink;

	if (era != HS_ERA_4_4)
		val = V4_SEL((v4u)(val < zero + k->grow_start), zero, val);
	*win = val;
}

/* batch_halt_scalar with valid == true, four candidates per step. */
static inline __attribute__((always_inline)) void
batch_halt_vector(struct hs_whatif_batch *s, unsigned int n, const struct batch_shifts *k,
		  enum hs_kernel_era era, uint64_t d, uint64_t ovh)
{
	const v4u zero = { 0 }, one = zero + 1, dv = zero + d, ovhv = zero + ovh;

	for (unsigned int i = 0; i < n; i += HS_WHATIF_LANES) {
		v4u max, win, hit, halt, decide, shrink, grow, change, last, moved, grown, shrunk;

		V4_LOAD(max, &s->max[i]);
		V4_LOAD(win, &s->window[i]);
		if (era >= HS_ERA_6_1)
			win = V4_MIN(win, max);
		hit = (v4u)(win != zero) & (v4u)(dv < win);
		halt = dv + (~hit & ovhv);
		V4_ADD_TO(&s->hits[i], hit & one);
		V4_ADD_TO(&s->poll_ns[i], V4_SEL(hit, dv, win));
		V4_ADD_TO(&s->miss_poll_ns[i], ~hit & win);

		/* hs_sim_decide for a valid halt */
		decide = (v4u)(max != zero) & (v4u)(halt > win);
		shrink = decide & (v4u)(win != zero) & (v4u)(halt > max);
		grow = decide & ~shrink & (v4u)(win < max) & (v4u)(halt < max);
		moved = grow | shrink;
		grown = shrunk = win;
		v4_grow(k, era, &grown, &max);
		v4_shrink(k, era, &shrunk);
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

#define BATCH_ERAS(call)                                                        \
	do {                                                                    \
		switch (p->era) {                                               \
		case HS_ERA_4_4: call(HS_ERA_4_4); break;                       \
		case HS_ERA_5_X: call(HS_ERA_5_X); break;                       \
		case HS_ERA_6_1: call(HS_ERA_6_1); break;                       \
		default: call(HS_ERA_6_11); break;                              \
		}                                                               \
	} while (0)

/* The whole step; inlined into one function per instruction set below. */
static inline __attribute__((always_inline)) void
batch_halt(struct hs_whatif_batch *b, unsigned int n, const struct hs_sim_params *p, uint64_t d,
	   bool valid, bool vector)
{
	const struct batch_shifts k = { p->grow_start, batch_log2(p->grow), batch_log2(p->shrink) };

	b->halts++;
	if (vector && (valid || p->era == HS_ERA_4_4) && k.grow >= -1 && k.shrink >= -1) {
		unsigned int lanes = (n + HS_WHATIF_LANES - 1) / HS_WHATIF_LANES * HS_WHATIF_LANES;
#define VECTOR(era) batch_halt_vector(b, lanes, &k, era, d, p->wake_overhead_ns)
		BATCH_ERAS(VECTOR);
#undef VECTOR
		return;
	}
#define SCALAR(era) batch_halt_scalar(b, n, p, era, d, valid)
	BATCH_ERAS(SCALAR);
#undef SCALAR
}

/*
 * Without AVX2 the 256-bit vectors become pairs of SSE2 operations, and
 * unsigned 64-bit compares a sequence each: slower than the branches.
 */
static void batch_halt_base(struct hs_whatif_batch *b, unsigned int n,
			    const struct hs_sim_params *p, uint64_t d, bool valid)
{
	batch_halt(b, n, p, d, valid, false);
}

#if defined(__x86_64__)
__attribute__((target("avx2")))
static void batch_halt_avx2(struct hs_whatif_batch *b, unsigned int n,
			    const struct hs_sim_params *p, uint64_t d, bool valid)
{
	batch_halt(b, n, p, d, valid, true);
}
#endif

struct batch_variant {
	const char *name;
	hs_whatif_batch_fn *halt;
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
	{ "avx2", batch_halt_avx2, batch_has_avx2 },
#endif
	{ "none", batch_halt_base, batch_always },
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

void hs_whatif_batch_init(struct hs_whatif_batch *b)
{
	memset(b, 0, sizeof(*b));
	b->halt = batch_variant_pick()->halt;
}

const char *hs_whatif_batch_variant(void)
{
	return batch_variant_pick()->name;
}
