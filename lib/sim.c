// SPDX-License-Identifier: GPL-2.0-only
/*
 * Replay of KVM's per-vCPU adaptive halt-polling window, following the
 * decision in virt/kvm/kvm_main.c by the rules of each kernel era (era.h,
 * shared/reference/halt-polling.md section 1). The host is assumed to allow
 * polling (no arch_no_poll); a poll runs for the whole window unless the
 * wake comes first or another task becomes runnable on the pCPU (the cut).
 */
#include <string.h>

#include "sim.h"

void hs_sim_params_default(struct hs_sim_params *p, enum hs_kernel_era era)
{
	const struct hs_era *e = hs_kernel_era_get(era);

	memset(p, 0, sizeof(*p));
	p->era = era;
	p->max_ns = e->default_max_ns;
	p->grow = 2;
	p->grow_start = 10000;
	p->shrink = e->default_shrink;
	p->wake_overhead_ns = 0;
}

void hs_sim_init(struct hs_sim *sim, const struct hs_sim_params *p)
{
	memset(sim, 0, sizeof(*sim));
	sim->p = *p;
	sim->rules = hs_kernel_era_get(p->era)->rules;
}

int hs_sim_halt_cut(struct hs_sim *sim, uint64_t time_to_wake_ns, bool valid,
		    uint64_t poll_cut_ns, bool *hit)
{
	const unsigned int rules = sim->rules;
	uint64_t halt_ns, polled;
	bool is_hit;
	int change;

	valid = valid || !(rules & HS_RULE_VALID_FIELD);
	if (rules & HS_RULE_MAX_LIVE && sim->window > sim->p.max_ns)
		sim->window = sim->p.max_ns;
	/*
	 * A hit is seen by a check made before the poll deadline: the kernel's
	 * halt_ns for a hit is the last timestamp taken while still inside the
	 * window, hence strictly below it.
	 */
	polled = sim->window < poll_cut_ns ? sim->window : poll_cut_ns;
	is_hit = sim->window && time_to_wake_ns < polled;
	if (is_hit) {
		halt_ns = time_to_wake_ns;
		sim->hits++;
		sim->poll_ns += time_to_wake_ns;
	} else {
		halt_ns = time_to_wake_ns + sim->p.wake_overhead_ns;
		sim->poll_ns += polled;
		sim->miss_poll_ns += polled;
	}
	sim->halts++;
	if (hit)
		*hit = is_hit;

	change = hs_sim_rule_decide(halt_ns, sim->window, sim->p.max_ns, valid);
	if (change > 0) {
		sim->window = hs_sim_rule_grow(rules, &sim->p, sim->window, sim->p.max_ns);
		sim->grows++;
	} else if (change < 0) {
		sim->window = hs_sim_rule_shrink(rules, &sim->p, sim->window, -1);
		sim->shrinks++;
	} else if (!sim->p.max_ns && valid) {
		sim->window = 0;
	}
	if (change) {
		if (sim->last_change == -change)
			sim->flaps++;
		sim->last_change = change;
	}
	return change;
}
