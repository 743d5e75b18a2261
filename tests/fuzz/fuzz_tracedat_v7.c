// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness: the whole front door (hs_input_read on a file: mmap,
 * format detection, then the v6 parser or libtracecmd for v7). Inputs that
 * do not claim version 7 are made to, so the time goes to the v7 path.
 */
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_common.h"

static char fuzz_path[64];

static void fuzz_cleanup(void)
{
	unlink(fuzz_path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned char head[12] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g', '7', 0 };
	struct hs_account *acct;
	struct hs_error err;
	FILE *f;

	if (!fuzz_path[0]) {
		snprintf(fuzz_path, sizeof(fuzz_path), "/dev/shm/hs-fuzz-v7.%d", (int)getpid());
		atexit(fuzz_cleanup);
	}
	f = fopen(fuzz_path, "w");
	if (!f)
		return 0;
	if (size < 12 || memcmp(data, head, 12))
		fwrite(head, 1, 12, f);
	fwrite(data, 1, size, f);
	if (fclose(f))
		return 0;
	acct = fuzz_account();
	if (!acct)
		return 0;
	if (!hs_input_read(fuzz_path, acct, &err))
		fuzz_report(acct, size);
	hs_account_free(acct);
	return 0;
}
