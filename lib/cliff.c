// SPDX-License-Identifier: GPL-2.0-only
/* Cliffs in a what-if table (see cliff.h). */
#include "cliff.h"

static bool cliff_between(const struct hs_whatif_row *a, const struct hs_whatif_row *b)
{
	double jump = b->hit_rate - a->hit_rate;

	/* 0 is polling off, not a neighbour of a small window */
	if (!a->halt_poll_ns || (double)b->halt_poll_ns > HS_CLIFF_SPAN * (double)a->halt_poll_ns)
		return false;
	return jump >= HS_CLIFF_JUMP || -jump >= HS_CLIFF_JUMP;
}

/* The replays alone fork widely: the sampling spread of a short recording is not a cliff. */
static bool cliff_wide(const struct hs_whatif_row *r)
{
	return r->hit_rate_sim_high - r->hit_rate_sim_low >= HS_CLIFF_JUMP;
}

unsigned int hs_cliffs_find(const struct hs_whatif_row *rows, unsigned int n,
			    struct hs_cliff *out, unsigned int max)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < n && k < max; i++) {
		if (i + 1 < n && cliff_between(&rows[i], &rows[i + 1])) {
			out[k++] = (struct hs_cliff){ i, i + 1, rows[i].hit_rate, rows[i + 1].hit_rate };
		} else if (cliff_wide(&rows[i]) && !(i && cliff_between(&rows[i - 1], &rows[i]))) {
			out[k++] = (struct hs_cliff){ i, i, rows[i].hit_rate_sim_low,
						      rows[i].hit_rate_sim_high };
		}
	}
	return k;
}

bool hs_cliff_at(const struct hs_whatif_row *rows, unsigned int n, unsigned int i)
{
	if (i >= n)
		return false;
	return cliff_wide(&rows[i]) || (i && cliff_between(&rows[i - 1], &rows[i])) ||
	       (i + 1 < n && cliff_between(&rows[i], &rows[i + 1]));
}
