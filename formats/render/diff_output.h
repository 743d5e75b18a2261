/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_DIFF_OUTPUT_H
#define HS_DIFF_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "../../lib/diff.h"

/* Writers of `haltstat diff`: layout only, the numbers come from lib/diff.c. */
int hs_diff_write_text(FILE *out, const struct hs_diff *d, bool color);
/* One JSON document, schema "haltstat.diff/1" (formats/render/diff.schema.json). */
int hs_diff_write_json(FILE *out, const struct hs_diff *d);

#endif
