// SPDX-License-Identifier: GPL-2.0-only
/*
 * The haltpoll governor (drivers/cpuidle/governors/haltpoll.c) as Linux
 * runs it: poll up to the limit unless it is 0 or the last poll timed out;
 * after a halt longer than the limit and at most guest_halt_poll_ns grow
 * the limit, after a longer one shrink it if allow_shrink (6.9+: below
 * grow_start to 0). The limit starts at 0; the kernel computes in unsigned
 * int, and so does this. The rules in full: doc/INTERNALS.md, "The
 * haltpoll governor".
 */
#include <stdio.h>

#include "haltpoll.h"

void hs_haltpoll_defaults(struct hs_haltpoll_params *p)
{
	p->max_ns = HS_HALTPOLL_DEFAULT_MAX;
	p->grow = 2;
	p->grow_start = 50000;
	p->shrink = 2;
	p->allow_shrink = true;
	p->shrink_floor = true;
}

static uint32_t haltpoll_u32(int64_t v, uint32_t dflt)
{
	return v < 0 || v > UINT32_MAX ? dflt : (uint32_t)v;
}

void hs_haltpoll_from_meta(struct hs_haltpoll_params *p, const struct hs_meta *m)
{
	unsigned int major, minor;

	hs_haltpoll_defaults(p);
	p->max_ns = haltpoll_u32(m->guest_halt_poll_ns, p->max_ns);
	p->grow = haltpoll_u32(m->guest_halt_poll_grow, p->grow);
	p->grow_start = haltpoll_u32(m->guest_halt_poll_grow_start, p->grow_start);
	p->shrink = haltpoll_u32(m->guest_halt_poll_shrink, p->shrink);
	if (m->guest_halt_poll_allow_shrink >= 0)
		p->allow_shrink = m->guest_halt_poll_allow_shrink;
	/* unknown release: a current kernel */
	if (sscanf(m->kernel_release, "%u.%u", &major, &minor) == 2)
		p->shrink_floor = major > 6 || (major == 6 && minor >= 9);
}

uint32_t hs_haltpoll_adjust(const struct hs_haltpoll_params *p, uint32_t limit,
			    uint64_t block_ns, int *branch)
{
	uint32_t val;

	*branch = 0;
	if (block_ns > limit && block_ns <= p->max_ns) {
		val = limit * p->grow;
		if (val < p->grow_start)
			val = p->grow_start;
		if (val > p->max_ns)
			val = p->max_ns;
		*branch = 1;
		return val;
	}
	if (block_ns > p->max_ns && p->allow_shrink) {
		val = p->shrink ? limit / p->shrink : 0;
		if (p->shrink_floor && val < p->grow_start)
			val = 0;
		*branch = -1;
		return val;
	}
	return limit;
}

void hs_haltpoll_wake(const struct hs_haltpoll_params *p, uint32_t *limit, uint64_t d_ns,
		      uint64_t halt_extra_ns, struct hs_haltpoll_wake *out)
{
	out->polled = *limit > 0;
	out->hit = out->polled && d_ns <= *limit;
	out->branch = 0;
	if (out->hit) {
		out->poll_ns = d_ns;
		out->block_ns = 0;
		return;
	}
	out->poll_ns = *limit;
	out->block_ns = d_ns - *limit + halt_extra_ns;
	*limit = hs_haltpoll_adjust(p, *limit, out->block_ns, &out->branch);
}
