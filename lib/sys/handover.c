// SPDX-License-Identifier: GPL-2.0-only
/* Hand-over counting (see handover.h). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "capture.h"
#include "handover.h"

/* Each logged switch is about 64 bytes: a small buffer still counts all (overruns are added). */
#define HS_HANDOVER_BUFFER_KIB 256

struct hs_handover {
	struct hs_capture *cap;
	char filter[160];
};

int hs_handover_start(struct hs_handover **hp, const char *vcpu_comm, struct hs_error *err)
{
	static const char *const events[] = { "sched:sched_switch" };
	static const bool required[] = { true };
	struct hs_handover *h = calloc(1, sizeof(*h));
	const char *filters[1];
	int pid = getpid(), ret;

	*hp = NULL;
	if (!h)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	snprintf(h->filter, sizeof(h->filter), "prev_comm ~ \"%s\" && next_pid != 0", vcpu_comm);
	filters[0] = h->filter;
	struct hs_capture_opts o = {
		.events = events, .required = required, .filters = filters, .nevents = 1,
		.pids = &pid, .npids = 1, .buffer_kib = HS_HANDOVER_BUFFER_KIB,
	};
	ret = hs_capture_start(&h->cap, &o, err);
	if (ret) {
		hs_handover_stop(h);
		return ret;
	}
	*hp = h;
	return 0;
}

unsigned int hs_handover_ncpus(const struct hs_handover *h)
{
	return hs_capture_ncpus(h->cap);
}

int hs_handover_counts(const struct hs_handover *h, uint64_t *out, unsigned int n)
{
	for (unsigned int c = 0; c < n; c++)
		if (hs_capture_events_now(h->cap, c, &out[c]))
			return HS_ERR_TRACEFS;
	return 0;
}

void hs_handover_stop(struct hs_handover *h)
{
	if (!h)
		return;
	hs_capture_destroy(h->cap);
	free(h);
}
