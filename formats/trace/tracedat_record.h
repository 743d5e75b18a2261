/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_TRACEDAT_RECORD_H
#define HS_TRACEDAT_RECORD_H

#include "../../lib/sys/capture.h"
#include "../../lib/error.h"

/*
 * The trace.dat of `haltstat record`. The output is created (unlinked,
 * with room checked) before anything is recorded, so that a path that
 * cannot be written is reported at once; it gets its name only once
 * complete, so a failed or interrupted recording leaves nothing behind.
 */
struct hs_record_file;

/* Creates the unnamed output in path's directory: one line in err naming path and the reason. */
struct hs_record_file *hs_record_file_create(const char *path, struct hs_error *err);
/* The directory the output goes to (temp files belong there: same file system). */
const char *hs_record_file_dir(const struct hs_record_file *f);
/* Writes the scanned capture, its metadata lines (recmeta.h) as the trailer, and names the file. */
int hs_record_file_write(struct hs_record_file *f, const struct hs_capture_result *r,
			 const char *meta, size_t meta_len, struct hs_error *err);
/* Closes; the file disappears unless written. Safe on NULL. */
void hs_record_file_free(struct hs_record_file *f);

#endif
