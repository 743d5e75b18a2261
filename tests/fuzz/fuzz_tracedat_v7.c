// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness: trace.dat v7 through haltstat's own reader
 * (formats/tracedat_v7.c: sections, options, inflation, chunked CPU data,
 * then the page decoder), from a buffer as fuzz_tracedat does for v6.
 * Inputs that do not claim version 7 are made to. One length in 8 goes
 * through a file and hs_input_read, so chunks are read with pread. An
 * unknown compression is an error here, not the forked libtracecmd reader.
 */
#include "fuzz_common.h"
#include "../../formats/trace/tracedat_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned char head[12] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g', '7', 0 };
	static unsigned char buf[65536 + 12];
	const uint8_t *in = data;

	hs_td_v7_fallback = false;
	if (size < 12 || memcmp(data, head, 12)) {
		if (size > sizeof(buf) - 12)
			return 0;
		memcpy(buf, head, 12);
		memcpy(buf + 12, data, size);
		in = buf;
		size += 12;
	}
	fuzz_tracedat_run(in, size);
	return 0;
}
