// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: command-line value parsers of lib/units.c. */
#include <stdlib.h>
#include <string.h>

#include "../../lib/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	uint64_t v, vals[16];
	int pids[16], n;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (!hs_parse_duration_ns(s, &v) && v >= 18000000000000000000ull)
		abort();	/* documented bound */
	(void)hs_parse_u64(s, &v);
	n = hs_parse_pid_list(s, pids, 16);
	for (int i = 0; i < n; i++)
		if (pids[i] <= 0)
			abort();
	n = hs_parse_u64_list(s, vals, 16);
	for (int i = 1; i < n; i++)
		if (vals[i] <= vals[i - 1])
			abort();	/* ascending and unique */
	free(s);
	return 0;
}
