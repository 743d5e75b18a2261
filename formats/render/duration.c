// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdio.h>

#include "duration.h"

static const char *duration_put(char *buf, size_t len, const char *sign, double ns)
{
	static const struct { const char *unit; double div; } units[] = {
		{ "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 },
	};

	/* 999.96 ms prints as 1.00s, not 1000ms */
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (ns >= units[i].div * 0.9995) {
			double v = ns / units[i].div;

			snprintf(buf, len, v >= 100 ? "%s%.0f%s" : v >= 10 ? "%s%.1f%s" : "%s%.2f%s",
				 sign, v, units[i].unit);
			return buf;
		}
	}
	snprintf(buf, len, "%s%.0fns", sign, ns);
	return buf;
}

const char *hs_duration_format(char *buf, size_t len, double ns)
{
	if (!isfinite(ns) || ns < 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	return duration_put(buf, len, "", ns);
}

const char *hs_duration_format_delta(char *buf, size_t len, double ns)
{
	if (!isfinite(ns)) {
		snprintf(buf, len, "-");
		return buf;
	}
	return duration_put(buf, len, ns < 0 ? "-" : "+", fabs(ns));
}
