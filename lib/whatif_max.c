// SPDX-License-Identifier: GPL-2.0-only
/*
 * The maximum window M in force, as the self-check replays it
 * (whatif_priv.h). Every reliable, valid halt with a known window bounds M
 * by the kernel's rules, whatever the metadata says (a VMM may set its own
 * with KVM_CAP_HALT_POLL). When the recorded M is unknown or outside the
 * bounds, M is the roundest value they allow, or a likely one only a cut
 * to M explains; bounds that contradict each other keep the recorded
 * value, and a trace without any bound gives 0. The rules:
 * doc/INTERNALS.md, "The maximum in force".
 */
#include <string.h>

#include "whatif_priv.h"

uint64_t hs_whatif_max_pick(uint64_t lo, uint64_t hi)
{
	/* bounded on both sides, the roundest value between; else lo rounded up a little */
	static const uint64_t roundest[] = { 1000000, 500000, 100000, 50000, 10000, 1000 };
	static const uint64_t near[] = { 10000, 1000 };
	const uint64_t *steps = hi == UINT64_MAX ? near : roundest;
	unsigned int n = hi == UINT64_MAX ? 2 : 6;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t m = (lo + steps[i] - 1) / steps[i] * steps[i];

		if (m >= lo && m <= hi)
			return m;
	}
	return lo;
}

void hs_whatif_bound_lo(struct hs_whatif *w, uint64_t lo)
{
	if (lo > w->max_lo)
		w->max_lo = lo;
}

void hs_whatif_bound_hi(struct hs_whatif *w, uint64_t hi)
{
	if (hi < w->max_hi)
		w->max_hi = hi;
}

/*
 * A window the grow and shrink rules reach from grow_start alone; one they
 * do not was cut to M at some point (M itself, or M shrunk and grown back).
 */
static bool whatif_on_lattice(const struct hs_sim_params *p, uint64_t win)
{
	uint64_t up = p->grow_start;

	if (!win || !p->grow_start)
		return true;
	for (unsigned int k = 0; k < 40 && up <= HS_SIM_WINDOW_MAX; k++) {
		uint64_t down = up;

		for (unsigned int j = 0; j < 40 && down >= win; j++) {
			if (down == win)
				return true;
			if (p->shrink < 2)
				break;
			down /= p->shrink;
		}
		if (p->grow < 2)
			break;
		up *= p->grow;
	}
	return false;
}

/* What one halt tells of M, whatever M is taken to be (see the top). */
void hs_whatif_bound(struct hs_whatif *w, const struct hs_whatif_rec *r)
{
	bool cut = w->prev_new_known && r->reliable && r->has_change &&
		   r->chg_old < w->prev_new;

	if (r->has_change || !r->reliable) {
		w->prev_new = r->chg_new;
		w->prev_new_known = r->has_change && r->reliable;
	}
	if (!r->reliable || !r->valid)
		return;
	if (r->has_change) {
		/* 6.1+ cut the last event's value to M at this halt's entry: that is M */
		if (cut && w->check.rules & HS_RULE_MAX_LIVE)
			hs_whatif_bound_hi(w, r->chg_old);
		hs_whatif_bound_lo(w, r->chg_old);
		/* the largest window that only a cut explains is likely M itself */
		if (r->chg_old > w->max_soft && !whatif_on_lattice(&w->check.p, r->chg_old))
			w->max_soft = r->chg_old;
		if (r->grow) {
			hs_whatif_bound_lo(w, r->ns + 1);
			if (w->check.rules & HS_RULE_GROW_CLAMP)
				hs_whatif_bound_lo(w, r->chg_new);
		} else if (r->chg_old > 0 && r->ns > r->chg_old) {
			hs_whatif_bound_hi(w, r->ns - 1);
		}
		return;
	}
	if (r->window == 0 && r->ns)
		hs_whatif_bound_hi(w, r->ns);
	/*
	 * 6.1+: a window the account carried on from a grow may be above M
	 * until cut, so it bounds nothing; with nothing against it, it is still
	 * the likeliest M (only the pick uses it)
	 */
	else if (r->window > 0 && !(w->check.rules & HS_RULE_MAX_LIVE))
		hs_whatif_bound_lo(w, (uint64_t)r->window);
	else if (r->window > 0 && (uint64_t)r->window > w->max_soft)
		w->max_soft = (uint64_t)r->window;
}

/* M from the bounds: the likely value where they allow it, else the roundest between. */
static uint64_t whatif_pick(uint64_t lo, uint64_t hi, uint64_t soft)
{
	return soft >= lo && soft <= hi && soft ? soft : hs_whatif_max_pick(lo, hi);
}

/* The M the self-check replays, from the recorded one and the bounds. */
void hs_whatif_infer_max(struct hs_whatif *w)
{
	uint64_t lo = w->max_lo, hi = w->max_hi, rec = (uint64_t)w->opts.recorded_max_ns;
	bool bounded = lo > 0 || hi != UINT64_MAX;

	if (w->max_known && (!bounded || lo > hi || (lo <= rec && rec <= hi))) {
		w->max_source = HS_MAX_MODULE;
		w->check.p.max_ns = rec;
		return;
	}
	if (!bounded)
		return;
	w->max_source = w->max_known ? HS_MAX_CONTRADICTED : HS_MAX_INFERRED;
	w->check.p.max_ns = whatif_pick(lo, hi, w->max_soft);
}

/* Replays one halt through the recorded setting and compares. */
void hs_whatif_max_merge(struct hs_whatif *w, const struct hs_selfcheck *o)
{
	uint64_t lo = o->max_lo > w->max_lo ? o->max_lo : w->max_lo;
	uint64_t hi = o->max_hi < w->max_hi ? o->max_hi : w->max_hi;

	/* bounds that disagree (M changed, or not one VM after all) stay apart */
	if (lo > hi)
		return;
	w->max_lo = lo;
	w->max_hi = hi;
	if (o->max_soft > w->max_soft)
		w->max_soft = o->max_soft;
}

int64_t hs_whatif_max_ns(struct hs_whatif *w, enum hs_max_source *src)
{
	hs_whatif_infer_max(w);
	if (src)
		*src = w->max_source;
	return w->max_source == HS_MAX_NONE ? -1 : (int64_t)w->check.p.max_ns;
}

void hs_max_in_force_init(struct hs_max_in_force *m)
{
	memset(m, 0, sizeof(*m));
	m->max_ns = -1;
	m->module_ns = -1;
	m->source = HS_MAX_NONE;
	m->hi = UINT64_MAX;
}

void hs_max_in_force_add(struct hs_max_in_force *m, const struct hs_selfcheck *sc)
{
	if (sc->module_max_ns >= 0)
		m->module_ns = sc->module_max_ns;
	if (sc->max_lo == 0 && sc->max_hi == UINT64_MAX)
		return;
	m->nvcpus++;
	if (sc->max_lo > m->lo)
		m->lo = sc->max_lo;
	if (sc->max_hi < m->hi)
		m->hi = sc->max_hi;
	if (sc->max_soft > m->soft)
		m->soft = sc->max_soft;
}

/* As hs_whatif_infer_max(), over the VM's bounds. */
void hs_max_in_force_decide(struct hs_max_in_force *m)
{
	bool bounded = m->nvcpus > 0;
	uint64_t rec = (uint64_t)m->module_ns;

	if (m->module_ns >= 0 && (!bounded || m->lo > m->hi || (m->lo <= rec && rec <= m->hi))) {
		m->max_ns = m->module_ns;
		m->source = HS_MAX_MODULE;
	} else if (bounded) {
		m->max_ns = (int64_t)whatif_pick(m->lo, m->hi, m->soft);
		m->source = m->module_ns >= 0 ? HS_MAX_CONTRADICTED : HS_MAX_INFERRED;
	}
}

const char *hs_max_source_name(enum hs_max_source s)
{
	static const char *const names[] = { "module", "inferred", "inferred_contradicts_module",
					     "unknown" };

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}
