// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "meta.h"

void hs_meta_init(struct hs_meta *meta)
{
	memset(meta, 0, sizeof(*meta));
	meta->halt_poll_ns = -1;
	meta->halt_poll_ns_grow = -1;
	meta->halt_poll_ns_grow_start = -1;
	meta->halt_poll_ns_shrink = -1;
	meta->guest_halt_poll_ns = -1;
	meta->guest_halt_poll_grow = -1;
	meta->guest_halt_poll_grow_start = -1;
	meta->guest_halt_poll_shrink = -1;
	meta->guest_halt_poll_allow_shrink = -1;
	meta->kvm_formats = -1;
	meta->ncpus = -1;
	meta->hypervisor = -1;
	meta->record_seconds = -1;
	hs_cpu_steal_init(&meta->steal);
	meta->lost_known = true;
}

bool hs_meta_nested(const struct hs_meta *meta)
{
	return meta->hypervisor == 1 || !strcmp(meta->cpuidle_driver, "haltpoll");
}
