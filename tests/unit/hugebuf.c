// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/hugebuf.c: zeroed, writable memory of at least the size asked for,
 * on a huge page's boundary from HS_HUGEBUF_MIN on, nothing of the
 * alignment's slack left mapped, and sizes that cannot be mapped refused.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/hugebuf.h"
#include "check.h"

#define HUGE_PAGE (2u << 20)

/* The process's mapped memory in KiB (VmSize), -1 when unknown. */
static long vm_size_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmSize:", 7))
			kib = strtol(line + 7, NULL, 10);
	fclose(f);
	return kib;
}

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static void check_size(size_t len)
{
	struct hs_hugebuf b;
	unsigned char *p = hs_hugebuf_alloc(&b, len);
	char name[96];
	bool huge = len >= HS_HUGEBUF_MIN;

	snprintf(name, sizeof(name), "hugebuf-%zu", len);
	CHECK(p && p == b.at && b.len >= len, name);
	if (!p)
		return;
	snprintf(name, sizeof(name), "hugebuf-%zu-zeroed", len);
	CHECK(all_zero(p, len), name);
	memset(p, 0xab, len);
	snprintf(name, sizeof(name), "hugebuf-%zu-written", len);
	CHECK(p[0] == 0xab && p[len - 1] == 0xab, name);
	snprintf(name, sizeof(name), "hugebuf-%zu-aligned", len);
	CHECK(huge ? (uintptr_t)p % HUGE_PAGE == 0 && b.len % HUGE_PAGE == 0 :
		     (uintptr_t)p % 4096 == 0 && b.len % 4096 == 0 && b.len < len + 4096, name);
	hs_hugebuf_free(&b);
	snprintf(name, sizeof(name), "hugebuf-%zu-freed", len);
	CHECK(!b.at && !b.len, name);
}

int main(void)
{
	static const size_t sizes[] = { 1, 4096, 100000, HS_HUGEBUF_MIN - 1, HS_HUGEBUF_MIN,
					HUGE_PAGE, 3 * HUGE_PAGE + 5 };
	struct hs_hugebuf b;
	long before, after;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		check_size(sizes[i]);

	CHECK(!hs_hugebuf_alloc(&b, SIZE_MAX) && !b.at && !b.len, "hugebuf-too-large");
	CHECK(!hs_hugebuf_alloc(&b, SIZE_MAX - HUGE_PAGE) && !b.at, "hugebuf-too-large-slack");
	hs_hugebuf_free(&b);
	CHECK(!b.at && !b.len, "hugebuf-free-twice");

	/* the slack around the aligned part is unmapped: 500 rounds leave no more mapped */
	before = vm_size_kib();
	for (int i = 0; i < 500; i++) {
		if (!hs_hugebuf_alloc(&b, HUGE_PAGE + 4096))
			break;
		hs_hugebuf_free(&b);
	}
	after = vm_size_kib();
	CHECK(before > 0 && after > 0 && after - before < 8192, "hugebuf-no-slack-left");
	return CHECK_DONE();
}
