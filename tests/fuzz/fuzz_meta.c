// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness: the text parts of a trace.dat that are parsed by hand:
 * the haltstat metadata trailer, CPUSTAT blocks, saved cmdlines and uname.
 * The first byte picks the parser, the rest is its input.
 */
#include "fuzz_common.h"
#include "../../formats/trace/recmeta.h"
#include "../../formats/trace/tracedat_internal.h"

static void fuzz_trailer(const uint8_t *data, size_t size, struct hs_sink *sink)
{
	struct hs_td_stats lost = { 0 };
	uint64_t start, len;

	/* data_end: how much of the input the trailer must not overlap */
	if (hs_td_trailer_find(data, size, size / 4, &start, &len) > 0)
		hs_recmeta_apply((const char *)data + start, len, sink, &lost);
	hs_recmeta_apply((const char *)data, size, sink, &lost);
	hs_td_stats_free(&lost);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hs_account *acct;
	struct hs_td_stats st = { 0 };
	struct hs_sink sink;

	if (size < 1)
		return 0;
	acct = fuzz_account();
	if (!acct)
		return 0;
	hs_sink_account(&sink, acct);
	switch (data[0] & 3) {
	case 0:
		fuzz_trailer(data + 1, size - 1, &sink);
		break;
	case 1:
		hs_td_stats_parse((const char *)data + 1, size - 1, "", &st);
		hs_td_stats_free(&st);
		hs_td_stats_parse((const char *)data + 1, size - 1, "hs", &st);
		hs_td_stats_free(&st);
		break;
	case 2:
		hs_td_cmdlines_apply((const char *)data + 1, size - 1, &sink);
		break;
	default:
		hs_td_uname_release((const char *)data + 1, size - 1, sink.meta);
		break;
	}
	fuzz_report(acct, size);
	hs_account_free(acct);
	return 0;
}
