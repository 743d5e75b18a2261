// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/winstate.c: what the kernel's rules tell of the window over halts
 * that had no kvm_halt_poll_ns, each case worked out by hand.
 */
#include <string.h>

#include "check.h"
#include "../../lib/winstate.h"

struct halt { uint64_t ns; bool waited, valid; };

static int64_t decide(const struct halt *h, unsigned int n, int64_t max,
		      enum hs_window_source *src, enum hs_unknown_reason *why, bool *lower)
{
	struct hs_window_seg s;

	hs_winstate_open(&s, HS_WINDOW_UNKNOWN, 0);
	for (unsigned int i = 0; i < n; i++)
		hs_winstate_add(&s, h[i].ns, h[i].waited, h[i].valid);
	*src = HS_WSRC_COUNT;
	*why = HS_UNK_COUNT;
	return hs_winstate_decide(&s, max, src, why, lower);
}

int main(void)
{
	/* the measured case: 300..2000 us gaps, M 200000: every halt above M, no shrink */
	static const struct halt longer[] = { { 300000, 1, 1 }, { 2000000, 1, 1 }, { 850000, 1, 1 } };
	/* a zero window would have grown on 40 us; any window > 0 shrunk on 800 us */
	static const struct halt both[] = { { 40000, 1, 1 }, { 800000, 1, 1 }, { 150000, 1, 1 } };
	/* mostly hits, all below M: a window of at least 150000 */
	static const struct halt hits[] = { { 40000, 0, 1 }, { 150000, 0, 1 }, { 90000, 1, 1 } };
	static const struct halt at_max[] = { { 200000, 1, 1 }, { 0, 0, 1 } };
	static const struct halt invalid[] = { { 5000, 1, 0 } };
	enum hs_window_source src;
	enum hs_unknown_reason why;
	bool lower;
	int64_t w;

	w = decide(longer, 3, 200000, &src, &why, &lower);
	CHECK(w == 0 && src == HS_WSRC_LONGER_THAN_MAX && !lower, "winstate_longer_than_max");
	w = decide(longer, 3, 0, &src, &why, &lower);
	CHECK(w == 0 && src == HS_WSRC_MAX_ZERO, "winstate_max_zero");
	w = decide(longer, 3, -1, &src, &why, &lower);
	CHECK(w == HS_WINDOW_UNKNOWN && why == HS_UNK_MAX_UNKNOWN, "winstate_max_unknown");
	/* with M 3 ms all three are below it: a zero window would have grown, so polling is off */
	w = decide(longer, 3, 3000000, &src, &why, &lower);
	CHECK(w == 0 && src == HS_WSRC_NO_POLLING, "winstate_below_max_waits");
	w = decide(both, 3, 200000, &src, &why, &lower);
	CHECK(w == 0 && src == HS_WSRC_NO_POLLING, "winstate_no_polling");
	w = decide(hits, 3, 200000, &src, &why, &lower);
	CHECK(w == 150000 && src == HS_WSRC_WITHIN_WINDOW && lower, "winstate_within_window");
	/* every halt exactly M: 0 when they are mostly waits, M when mostly hits */
	w = decide(at_max, 2, 200000, &src, &why, &lower);
	CHECK(w == 0 && src == HS_WSRC_NO_POLLING, "winstate_exactly_max_waits");
	w = decide(at_max + 1, 1, 200000, &src, &why, &lower);
	CHECK(w == HS_WINDOW_UNKNOWN && why == HS_UNK_NO_RULE, "winstate_only_zero_ns");
	{
		static const struct halt hm[] = { { 200000, 0, 1 }, { 200000, 0, 1 }, { 200000, 1, 1 } };

		w = decide(hm, 3, 200000, &src, &why, &lower);
		CHECK(w == 200000 && src == HS_WSRC_WITHIN_WINDOW && !lower, "winstate_exactly_max_hits");
	}
	/* an invalid halt always shrinks where polling is allowed */
	w = decide(invalid, 1, 200000, &src, &why, &lower);
	CHECK(w == 0 && src == HS_WSRC_NO_POLLING, "winstate_invalid_no_event");
	CHECK(!strcmp(hs_window_source_names[HS_WSRC_NEXT_EVENT], "next_event") &&
	      !strcmp(hs_unknown_reason_names[HS_UNK_AFTER_LOSS], "after_lost_events"),
	      "winstate_names");
	return CHECK_DONE();
}
