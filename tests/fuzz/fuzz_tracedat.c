// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness: trace.dat from a buffer (header, event formats,
 * options, flyrecord, pages, haltstat trailer). Version 7 is turned away:
 * fuzz_tracedat_v7 covers it. One length in 8 goes through a file and
 * hs_input_read (mmap and pread windows), the rest through the buffer
 * reader: a file per input costs a page-table flush on every munmap.
 */
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_common.h"

static char fuzz_path[64];

static void fuzz_cleanup(void)
{
	unlink(fuzz_path);
}

/* Through a file: hs_input_read maps it and the pages are read with pread. */
static int fuzz_file(const uint8_t *data, size_t size, struct hs_account *acct,
		     struct hs_error *err)
{
	FILE *f;

	if (!fuzz_path[0]) {
		snprintf(fuzz_path, sizeof(fuzz_path), "/dev/shm/hs-fuzz-dat.%d", (int)getpid());
		atexit(fuzz_cleanup);
	}
	f = fopen(fuzz_path, "w");
	if (!f)
		return -1;
	fwrite(data, 1, size, f);
	if (fclose(f))
		return -1;
	return hs_input_read(fuzz_path, acct, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hs_account *acct;
	struct hs_error err;

	if (size >= 12 && data[10] == '7' && data[11] == '\0')
		return 0;
	if (hs_input_detect(data, size) != HS_INPUT_TRACEDAT)
		return 0;
	acct = fuzz_account();
	if (!acct)
		return 0;
	hs_error_clear(&err);
	if (!(size % 8 == 1 ? fuzz_file(data, size, acct, &err) :
	      hs_tracedat_read("fuzz.dat", data, size, acct, &err)))
		fuzz_report(acct, size);
	hs_account_free(acct);
	return 0;
}
