// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: pasted ftrace / trace-cmd report / perf script text. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hs_account *acct = fuzz_account();
	struct hs_error err;
	struct hs_sink sink;

	if (!acct)
		return 0;
	hs_error_clear(&err);
	hs_sink_account(&sink, acct);
	(void)hs_input_detect(data, size);
	if (!hs_text_read((const char *)data, size, &sink, &err))
		fuzz_report(acct, size);
	hs_account_free(acct);
	return 0;
}
