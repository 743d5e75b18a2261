// SPDX-License-Identifier: GPL-2.0-only
/*
 * Replay of KVM's per-vCPU adaptive halt-polling window, following the
 * decision in virt/kvm/kvm_main.c per kernel era (see
 * shared/reference/halt-polling.md section 1). The host is assumed to allow
 * polling (no arch_no_poll) and to find the pCPU otherwise idle, so a poll
 * runs for the whole window unless the wake comes first.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sim.h"

/* The kernel keeps the window in an unsigned int. */
#define HS_SIM_WINDOW_MAX 0xffffffffull

void hs_sim_params_default(struct hs_sim_params *p, enum hs_kernel_era era)
{
	memset(p, 0, sizeof(*p));
	p->era = era;
	/* Ubuntu's 4.4 shipped 400000 on x86 (the setting of bug 1724614). */
	p->max_ns = era == HS_ERA_4_4 ? 400000 : 200000;
	p->grow = 2;
	p->grow_start = 10000;
	p->shrink = era == HS_ERA_6_11 ? 2 : 0;
	p->wake_overhead_ns = 0;
}

void hs_sim_init(struct hs_sim *sim, const struct hs_sim_params *p)
{
	memset(sim, 0, sizeof(*sim));
	sim->p = *p;
}

static uint64_t hs_sim_grow_value(const struct hs_sim *sim)
{
	const struct hs_sim_params *p = &sim->p;
	uint64_t old = sim->window, val;

	if (p->era == HS_ERA_4_4) {
		/* 4.4: fixed 10 us base (grow_start did not exist yet), clamped to M */
		if (old == 0 && p->grow)
			val = p->grow_start;
		else
			val = old * p->grow;
		return val > p->max_ns ? p->max_ns : val;
	}
	if (!p->grow)
		return old;	/* the event still fires, with new == old */
	val = old * p->grow;
	if (val < p->grow_start)
		val = p->grow_start;
	/* Before 6.1 the window never exceeded M; since then the clamp is at entry. */
	if (p->era == HS_ERA_5_X && val > p->max_ns)
		val = p->max_ns;
	return val > HS_SIM_WINDOW_MAX ? HS_SIM_WINDOW_MAX : val;
}

static uint64_t hs_sim_shrink_value(const struct hs_sim *sim)
{
	const struct hs_sim_params *p = &sim->p;
	uint64_t val = p->shrink ? sim->window / p->shrink : 0;

	/* 4.4 had no floor: a shrink could leave a window below 10 us. */
	if (p->era != HS_ERA_4_4 && val < p->grow_start)
		val = 0;
	return val;
}

/* The grow/shrink decision taken after every halt; returns +1, -1 or 0. */
static int hs_sim_decide(const struct hs_sim *sim, uint64_t halt_ns, bool valid)
{
	uint64_t max = sim->p.max_ns, win = sim->window;

	if (!valid && sim->p.era != HS_ERA_4_4)
		return -1;
	if (!max)
		return 0;
	if (halt_ns <= win)
		return 0;
	if (win && halt_ns > max)
		return -1;
	if (win < max && halt_ns < max)
		return 1;
	return 0;
}

int hs_sim_halt(struct hs_sim *sim, uint64_t time_to_wake_ns, bool valid, bool *hit)
{
	uint64_t halt_ns;
	bool is_hit;
	int change;

	if (sim->p.era >= HS_ERA_6_1 && sim->window > sim->p.max_ns)
		sim->window = sim->p.max_ns;
	/*
	 * A hit is seen by a check made before the poll deadline: the kernel's
	 * halt_ns for a hit is the last timestamp taken while still inside the
	 * window, hence strictly below it.
	 */
	is_hit = sim->window && time_to_wake_ns < sim->window;
	if (is_hit) {
		halt_ns = time_to_wake_ns;
		sim->hits++;
		sim->poll_ns += time_to_wake_ns;
	} else {
		halt_ns = time_to_wake_ns + sim->p.wake_overhead_ns;
		sim->poll_ns += sim->window;
		sim->miss_poll_ns += sim->window;
	}
	sim->halts++;
	if (hit)
		*hit = is_hit;

	change = hs_sim_decide(sim, halt_ns, valid);
	if (change > 0) {
		sim->window = hs_sim_grow_value(sim);
		sim->grows++;
	} else if (change < 0) {
		sim->window = hs_sim_shrink_value(sim);
		sim->shrinks++;
	} else if (!sim->p.max_ns && (valid || sim->p.era == HS_ERA_4_4)) {
		sim->window = 0;
	}
	if (change) {
		if (sim->last_change == -change)
			sim->flaps++;
		sim->last_change = change;
	}
	return change;
}

enum hs_kernel_era hs_kernel_era_from_release(const char *release)
{
	unsigned int major, minor;

	/* Unknown or unparsable: assume a current kernel. */
	if (!release || sscanf(release, "%u.%u", &major, &minor) != 2)
		return HS_ERA_6_11;
	if (major < 5)
		return HS_ERA_4_4;
	if (major == 5 || (major == 6 && minor == 0))
		return HS_ERA_5_X;
	if (major == 6 && minor < 11)
		return HS_ERA_6_1;
	return HS_ERA_6_11;
}

static const char *const hs_era_names[] = {
	[HS_ERA_4_4] = "4.4",
	[HS_ERA_5_X] = "5.x",
	[HS_ERA_6_1] = "6.1",
	[HS_ERA_6_11] = "6.11",
};

const char *hs_kernel_era_name(enum hs_kernel_era era)
{
	if ((unsigned int)era >= sizeof(hs_era_names) / sizeof(hs_era_names[0]))
		return "?";
	return hs_era_names[era];
}

int hs_kernel_era_parse(const char *name, enum hs_kernel_era *era)
{
	unsigned int a, b;

	if (!name)
		return -1;
	for (unsigned int i = 0; i < sizeof(hs_era_names) / sizeof(hs_era_names[0]); i++) {
		if (!strcasecmp(name, hs_era_names[i])) {
			*era = (enum hs_kernel_era)i;
			return 0;
		}
	}
	/* Also accept a release string such as 5.15.0-91-generic. */
	if (sscanf(name, "%u.%u", &a, &b) == 2) {
		*era = hs_kernel_era_from_release(name);
		return 0;
	}
	return -1;
}
