/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_INPUT_H
#define HS_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "../../lib/account.h"
#include "../../lib/error.h"
#include "../../lib/pipeline.h"
#include "../../lib/report.h"
#include "sink.h"

/*
 * Readers: turn a file or a stream into hs_events pushed into an accounting,
 * plus the metadata they carry. The format is told from the content, never
 * from the name.
 */
enum hs_input_format {
	HS_INPUT_UNKNOWN = 0,
	HS_INPUT_TRACEDAT,	/* trace.dat any version (haltstat's own files are v6) */
	HS_INPUT_TEXT,		/* kernel trace/trace_pipe, trace-cmd report, perf script */
};

enum hs_input_format hs_input_detect(const unsigned char *head, size_t len);

/* path "-" reads standard input. Returns HS_OK or an hs_status with err set. */
int hs_input_read(const char *path, struct hs_account *acct, struct hs_error *err);

/* The readers as lib/pipeline.c takes them: hs_report_load(&hs_input_source, ...). */
extern const struct hs_source hs_input_source;

/* The readers behind it. buf/len is the whole input (mapped or slurped). */
int hs_tracedat_read(const char *path, const unsigned char *buf, size_t len,
		     struct hs_account *acct, struct hs_error *err);
int hs_text_read(const char *buf, size_t len, struct hs_sink *sink, struct hs_error *err);

#endif
