/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The vector form of the candidates' replay, included by whatif_batch.c
 * once per step width: BV_T is the step's vector of uint64_t lanes, BV(x)
 * names this width's functions. No include guard, on purpose.
 *
 * Macros and pointer arguments rather than functions taking vectors:
 * passing a 32- or 64-byte vector by value has a different ABI with and
 * without AVX, which compilers warn about even when the call is always
 * inlined.
 */
#ifndef BV_LOAD
#define BV_LOAD(v, p) memcpy(&(v), (p), sizeof(v))
#define BV_STORE(p, v) memcpy((p), &(v), sizeof(v))
#define BV_ADD_TO(p, x) do { __typeof__(x) a_; BV_LOAD(a_, p); a_ += (x); BV_STORE(p, a_); } while (0)
/* m ? a : b, lane by lane; m lanes are all ones or all zeros */
#define BV_SEL(m, a, b) (((m) & (a)) | (~(m) & (b)))
#define BV_MIN(a, b) BV_SEL((__typeof__(a))((a) < (b)), (a), (b))
#endif

/* hs_sim_rule_grow on a step's windows, in place */
static inline __attribute__((always_inline)) void
BV(grow)(const struct batch_shifts *k, unsigned int rules, BV_T *win, const BV_T *max)
{
	const BV_T zero = { 0 }, start = zero + k->grow_start, old = *win;
	BV_T val;

	if (!(rules & HS_RULE_GROW_START)) {
		val = k->grow < 0 ? zero : BV_SEL((BV_T)(old == zero), start, old << k->grow);
		*win = rules & HS_RULE_GROW_CLAMP ? BV_MIN(val, *max) : val;
		return;
	}
	if (k->grow < 0)
		return;
	val = old << k->grow;
	val = BV_SEL((BV_T)(val < start), start, val);
	if (rules & HS_RULE_GROW_CLAMP)
		val = BV_MIN(val, *max);
	*win = BV_MIN(val, zero + HS_SIM_WINDOW_MAX);
}

/* hs_sim_rule_shrink on a step's windows, in place */
static inline __attribute__((always_inline)) void
BV(shrink)(const struct batch_shifts *k, unsigned int rules, BV_T *win)
{
	const BV_T zero = { 0 };
	BV_T val = k->shrink < 0 ? zero : *win >> k->shrink;

	if (rules & HS_RULE_SHRINK_FLOOR)
		val = BV_SEL((BV_T)(val < zero + k->grow_start), zero, val);
	*win = val;
}

/* batch_halt_scalar with valid == true, a step's candidates at a time (n: whole steps). */
static inline __attribute__((always_inline)) void
BV(halt)(struct hs_whatif_batch *s, unsigned int n, const struct batch_shifts *k,
	 unsigned int rules, uint64_t d, uint64_t ovh, uint64_t cut)
{
	const BV_T zero = { 0 }, one = zero + 1, dv = zero + d, ovhv = zero + ovh, cutv = zero + cut;

	for (unsigned int i = 0; i < n; i += sizeof(BV_T) / sizeof(uint64_t)) {
		BV_T max, win, polled, hit, halt, decide, shrink, grow, change, last, moved, grown, shrunk;

		BV_LOAD(max, &s->max[i]);
		BV_LOAD(win, &s->window[i]);
		if (rules & HS_RULE_MAX_LIVE)
			win = BV_MIN(win, max);
		polled = BV_MIN(win, cutv);
		hit = (BV_T)(win != zero) & (BV_T)(dv < polled);
		halt = dv + (~hit & ovhv);
		BV_ADD_TO(&s->hits[i], hit & one);
		BV_ADD_TO(&s->poll_ns[i], BV_SEL(hit, dv, polled));
		BV_ADD_TO(&s->miss_poll_ns[i], ~hit & polled);

		/* hs_sim_decide for a valid halt */
		decide = (BV_T)(max != zero) & (BV_T)(halt > win);
		shrink = decide & (BV_T)(win != zero) & (BV_T)(halt > max);
		grow = decide & ~shrink & (BV_T)(win < max) & (BV_T)(halt < max);
		moved = grow | shrink;
		grown = shrunk = win;
		BV(grow)(k, rules, &grown, &max);
		BV(shrink)(k, rules, &shrunk);
		win = BV_SEL(grow, grown, BV_SEL(shrink, shrunk, BV_SEL((BV_T)(max == zero), zero, win)));
		BV_STORE(&s->window[i], win);
		BV_ADD_TO(&s->grows[i], grow & one);
		BV_ADD_TO(&s->shrinks[i], shrink & one);

		/* change is +1 or -1 (all ones) where moved; a flap is last == -change */
		change = BV_SEL(shrink, shrink, grow & one);
		BV_LOAD(last, &s->last_change[i]);
		BV_ADD_TO(&s->flaps[i], moved & (BV_T)(last == -change) & one);
		last = BV_SEL(moved, change, last);
		BV_STORE(&s->last_change[i], last);
	}
}
