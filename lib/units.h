/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_UNITS_H
#define HS_UNITS_H

#include <stdint.h>

#include "error.h"

/*
 * Command-line values. A value parser returns HS_OK, or HS_ERR_USAGE on
 * anything but a clean number; a list parser the count, -1 on a bad list.
 */

/* "10" (seconds), "500ms", "250us", "100ns", "1.5s", "2m", "1h" -> ns */
int hs_parse_duration_ns(const char *s, uint64_t *ns);
/* A plain unsigned decimal integer that fits in 64 bits. */
int hs_parse_u64(const char *s, uint64_t *v);
/* "1234,5678" -> up to max pids; returns how many, or -1. */
int hs_parse_pid_list(const char *s, int *pids, int max);
/* "0,10000,200000" -> ascending unique values; returns how many, or -1. */
int hs_parse_u64_list(const char *s, uint64_t *vals, int max);

#endif
