/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_FUZZ_COMMON_H
#define HS_FUZZ_COMMON_H

/*
 * What every input harness does after its reader: the same steps as
 * `haltstat report` (finish, build, advice, render as text and JSON), so a
 * hostile value that a reader lets through is also fed to the engine and
 * the writers. Output goes to /dev/null.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../formats/trace/input.h"
#include "../../formats/render/output.h"
#include "../../lib/account.h"
#include "../../lib/advice.h"
#include "../../lib/report_build.h"
#include "../../lib/report.h"

static FILE *fuzz_null(void)
{
	static FILE *null;

	if (!null)
		null = fopen("/dev/null", "w");
	return null;
}

static struct hs_account *fuzz_account(void)
{
	struct hs_account_opts opts;

	memset(&opts, 0, sizeof(opts));
	opts.linear_bucket_ns = 10000;
	opts.linear_entries = 8;
	/* as cmd/report.c sets them, with fewer candidates for speed */
	for (unsigned int i = 0; i < hs_whatif_default_ncandidates && i < 4; i++)
		opts.whatif.candidates[opts.whatif.ncandidates++] = hs_whatif_default_candidates[i];
	opts.whatif.recorded_max_ns = -1;
	opts.whatif.grow = -1;
	opts.whatif.grow_start = -1;
	opts.whatif.shrink = -1;
	return hs_account_alloc(&opts);
}

/*
 * Building and rendering a report costs five times the reading: done for
 * one input length in 8 only, so the readers get most of the time while
 * the fuzzer can still steer into the engine and the writers.
 */
static void fuzz_report(struct hs_account *acct, size_t size)
{
	struct hs_report_filter filter = { .vcpu = -1 };
	struct hs_advice_opts adv = { .objective = "balanced", .enabled = true };
	struct hs_text_opts text = { .show_advice = true, .show_histograms = true };
	struct hs_report rep;
	FILE *out = fuzz_null();

	hs_account_finish(acct);
	if (size % 8)
		return;
	memset(&rep, 0, sizeof(rep));
	if (!hs_report_build(&rep, acct, &filter) && out) {
		hs_advice_build(&rep, &adv);
		hs_guest_advice_build(&rep, &adv);
		hs_report_write_text(out, &rep, &text);
		hs_report_write_json(out, &rep);
	}
	hs_report_free(&rep);
}

static char fuzz_path[64];

static inline void fuzz_path_remove(void)
{
	unlink(fuzz_path);
}

/* Through a file: hs_input_read maps it and the pages are read with pread. */
static inline int fuzz_read_file(const uint8_t *data, size_t size, struct hs_account *acct,
				 struct hs_error *err)
{
	FILE *f;

	if (!fuzz_path[0]) {
		snprintf(fuzz_path, sizeof(fuzz_path), "/dev/shm/hs-fuzz.%d", (int)getpid());
		atexit(fuzz_path_remove);
	}
	f = fopen(fuzz_path, "w");
	if (!f)
		return -1;
	fwrite(data, 1, size, f);
	if (fclose(f))
		return -1;
	return hs_input_read(fuzz_path, acct, err);
}

/*
 * A trace.dat harness's run: one input length in 8 through a file (mmap
 * and pread windows), the rest from the buffer, since a file per input
 * costs a page-table flush on every munmap; then the report.
 */
static inline void fuzz_tracedat_run(const uint8_t *data, size_t size)
{
	struct hs_account *acct = fuzz_account();
	struct hs_error err;

	if (!acct)
		return;
	hs_error_clear(&err);
	if (!(size % 8 == 1 ? fuzz_read_file(data, size, acct, &err) :
	      hs_tracedat_read("fuzz.dat", data, size, acct, &err)))
		fuzz_report(acct, size);
	hs_account_free(acct);
}

#endif
