// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness: trace.dat from a buffer (header, event formats,
 * options, flyrecord, pages, haltstat trailer). Version 7 is turned away:
 * fuzz_tracedat_v7 covers it. fuzz_tracedat_run picks the file or the
 * buffer path.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 12 && data[10] == '7' && data[11] == '\0')
		return 0;
	if (hs_input_detect(data, size) == HS_INPUT_TRACEDAT)
		fuzz_tracedat_run(data, size);
	return 0;
}
