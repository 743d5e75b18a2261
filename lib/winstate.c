// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "winstate.h"

const char *const hs_window_source_names[HS_WSRC_COUNT] = {
	[HS_WSRC_NEXT_EVENT] = "next_event",
	[HS_WSRC_LONGER_THAN_MAX] = "longer_than_max",
	[HS_WSRC_MAX_ZERO] = "max_zero",
	[HS_WSRC_NO_POLLING] = "no_polling",
	[HS_WSRC_WITHIN_WINDOW] = "within_window",
};

const char *const hs_unknown_reason_names[HS_UNK_COUNT] = {
	[HS_UNK_AFTER_LOSS] = "after_lost_events",
	[HS_UNK_NO_RULE] = "no_rule_decides",
	[HS_UNK_MAX_UNKNOWN] = "max_unknown",
};

/*
 * The window a recording starts in, and resumes in after lost events. The
 * halts until the vCPU's next kvm_halt_poll_ns all ran under one window, so
 * they are one segment of counts, moved once the window is told: by the
 * next event's old value, else at the end (or the next loss) by the
 * kernel's rules from the segment's longest and shortest halt and the
 * maximum M in force; otherwise the waits stay unknown, with the reason
 * counted. The halt right after lost events stays unknown. Nothing here
 * grows with the halts. The rules: doc/INTERNALS.md, "The window a
 * recording starts in".
 */
void hs_winstate_open(struct hs_window_seg *s, int64_t window, uint64_t ts)
{
	memset(s, 0, sizeof(*s));
	s->window = window;
	s->since_ts = ts;
	s->min_pos_ns = UINT64_MAX;
}

void hs_winstate_add(struct hs_window_seg *s, uint64_t ns, bool waited, bool valid)
{
	s->halts++;
	if (waited)
		s->waits++;
	else
		s->hits++;
	if (!valid) {
		s->invalid++;
		return;
	}
	if (ns > s->max_ns)
		s->max_ns = ns;
	if (ns && ns < s->min_pos_ns)
		s->min_pos_ns = ns;
}

/* By the rules at the top. */
int64_t hs_winstate_decide(const struct hs_window_seg *s, int64_t max, enum hs_window_source *src,
			   enum hs_unknown_reason *why, bool *lower)
{
	*lower = false;
	if (s->invalid) {
		*src = HS_WSRC_NO_POLLING;
		return 0;
	}
	if (!s->max_ns) {
		*why = HS_UNK_NO_RULE;
		return HS_WINDOW_UNKNOWN;
	}
	if (max < 0) {
		*why = HS_UNK_MAX_UNKNOWN;
		return HS_WINDOW_UNKNOWN;
	}
	if (max == 0) {
		*src = HS_WSRC_MAX_ZERO;
		return 0;
	}
	if (s->min_pos_ns >= (uint64_t)max) {
		if (s->max_ns > (uint64_t)max) {
			*src = HS_WSRC_LONGER_THAN_MAX;
			return 0;
		}
		/* every halt exactly M: a window of 0 or of M, told by what they mostly were */
		if (s->waits >= s->hits) {
			*src = HS_WSRC_NO_POLLING;
			return 0;
		}
		*src = HS_WSRC_WITHIN_WINDOW;
		return max;
	}
	if (s->waits >= s->hits) {
		*src = HS_WSRC_NO_POLLING;
		return 0;
	}
	*src = HS_WSRC_WITHIN_WINDOW;
	*lower = true;
	return s->max_ns > INT64_MAX ? INT64_MAX : (int64_t)s->max_ns;
}

