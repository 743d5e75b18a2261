/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_REPLAY_OUT_H
#define HS_REPLAY_OUT_H

#include <stdio.h>

#include "../../lib/sys/replay.h"

/*
 * Writers of haltstat replay's predicted-vs-measured table. source names
 * the recording. Measured columns are shown only once r->ran; the text
 * writer prefixes every line with prefix (e.g. "# "), or nothing when NULL.
 */
int hs_replay_write_text(FILE *out, const struct hs_replay *r, const char *source,
			 const char *prefix);
/* "haltstat.replay/1": units in key names, rates 0..1, unknown is null. */
int hs_replay_write_json(FILE *out, const struct hs_replay *r, const char *source);

#endif
