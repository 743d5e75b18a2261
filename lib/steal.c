// SPDX-License-Identifier: GPL-2.0-only
#include "steal.h"
#include "whatif_types.h"

void hs_cpu_steal_init(struct hs_cpu_steal *s)
{
	s->steal_ns = s->busy_ns = -1;
	s->cpus = -1;
}

bool hs_cpu_steal_known(const struct hs_cpu_steal *s)
{
	return s->steal_ns >= 0 && s->busy_ns >= 0 && s->cpus > 0;
}

double hs_cpu_steal_wall_share(const struct hs_cpu_steal *s, double wall_s)
{
	double x;

	if (!hs_cpu_steal_known(s) || !(wall_s > 0))
		return -1;
	x = (double)s->steal_ns / (wall_s * 1e9 * s->cpus);
	return x < 1 ? x : 1;
}

double hs_cpu_steal_runnable_share(const struct hs_cpu_steal *s)
{
	if (!hs_cpu_steal_known(s))
		return -1;
	if (!s->steal_ns)
		return 0;
	return (double)s->steal_ns / ((double)s->steal_ns + (double)s->busy_ns);
}

double hs_steal_widen(double q, double hit_rate, double halts, uint64_t window_ns,
		      double *hit_low, double *poll_cpu_s_high)
{
	double lost, off;

	if (!(q > 0))
		return 0;
	lost = (q < 1 ? q : 1) * hit_rate;
	off = *hit_low > lost ? lost : *hit_low;
	*hit_low -= off;
	*poll_cpu_s_high += lost * halts * (double)window_ns / 1e9;
	return off;
}

void hs_whatif_rows_steal(struct hs_whatif_row *rows, unsigned int n, double q)
{
	for (unsigned int i = 0; i < n; i++) {
		struct hs_whatif_row *r = &rows[i];

		hs_steal_widen(q, r->hit_rate, (double)r->halts, r->halt_poll_ns,
			       &r->hit_rate_low, &r->poll_cpu_s_high);
	}
}
