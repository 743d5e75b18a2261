/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_WINSTATE_H
#define HS_WINSTATE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The window state a recording starts in (and resumes in after lost
 * events): what the kernel's rules tell of the window in force over halts
 * that came before it was known. Shared by the accounting (lib/account_vcpu.c)
 * and the what-if's self-check (lib/whatif.c); see winstate.c.
 */

/* Window in force as far as the trace tells. */
#define HS_WINDOW_UNKNOWN (-1)

/*
 * How the window of waits that came before it was known was told
 * afterwards (doc/INTERNALS.md, "The window a recording starts in").
 */
enum hs_window_source {
	HS_WSRC_NEXT_EVENT,	/* the next kvm_halt_poll_ns's old value */
	HS_WSRC_LONGER_THAN_MAX, /* 0: a halt above the maximum did not shrink */
	HS_WSRC_MAX_ZERO,	/* 0: the maximum in force is 0 */
	HS_WSRC_NO_POLLING,	/* 0: a zero window would have grown, polling is off */
	HS_WSRC_WITHIN_WINDOW,	/* > 0: no halt left the window (none grew it) */
	HS_WSRC_COUNT
};

/* Why a wait's window stays unknown. */
enum hs_unknown_reason {
	HS_UNK_AFTER_LOSS,	/* the halt right after lost events */
	HS_UNK_NO_RULE,		/* no event, and no rule decides */
	HS_UNK_MAX_UNKNOWN,	/* no event, and the maximum in force is unknown */
	HS_UNK_COUNT
};

/* The names the report uses for them (JSON keys). */
extern const char *const hs_window_source_names[HS_WSRC_COUNT];
extern const char *const hs_unknown_reason_names[HS_UNK_COUNT];

/*
 * The halts since the window was last known for certain: their waits were
 * counted under a provisional window (unknown, or the last event's new
 * value, which 6.1+ may still cut to the maximum) and are moved once the
 * window they ran under is told. Constant size: every halt of a segment ran
 * under one window.
 */
struct hs_window_seg {
	int64_t window;		/* provisional: HS_WINDOW_UNKNOWN or ns */
	uint64_t since_ts;	/* when it began */
	uint64_t halts, waits, hits;
	uint64_t invalid;	/* valid == 0 halts (always shrink when polling is allowed) */
	uint64_t max_ns;	/* longest valid halt */
	uint64_t min_pos_ns;	/* shortest valid halt with ns > 0, UINT64_MAX none */
};

void hs_winstate_open(struct hs_window_seg *s, int64_t window, uint64_t ts);
/* One halt of the segment (valid: 0 only when the kernel said so). */
void hs_winstate_add(struct hs_window_seg *s, uint64_t ns, bool waited, bool valid);
/*
 * The window an event-less segment ran under, given the maximum in force
 * (-1 unknown): HS_WINDOW_UNKNOWN with *why when no rule decides; *lower
 * when the result is only a lower bound.
 */
int64_t hs_winstate_decide(const struct hs_window_seg *s, int64_t max, enum hs_window_source *src,
			   enum hs_unknown_reason *why, bool *lower);

#endif
