/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_DURATION_H
#define HS_DURATION_H

#include <stddef.h>

/*
 * Durations for people, the same in every writer: three significant digits
 * in the largest unit that keeps the value at least 1 ("850ns", "150us",
 * "1.20ms", "2.50s"); "-" when the value is unknown (negative, not finite).
 */
const char *hs_duration_format(char *buf, size_t len, double ns);
/* A change in duration: the same with its sign, "+" included ("+12.0us", "-1.50ms"). */
const char *hs_duration_format_delta(char *buf, size_t len, double ns);

#endif
