/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_SINK_SECOND_H
#define HS_SINK_SECOND_H

#include "sink.h"
#include "sink_pipe.h"

/*
 * sink, the pipe first's (hs_sink_pipe_open), can take the part of a
 * second reader of the recording, from a cut in time on (hs_sink.second
 * and the rest, tracedat_split.c): that reader gets a sink with an account
 * of its own, for the front only, and its part follows the first's when
 * the first's front at the cut gives what the second's gave.
 */
void hs_sink_second_attach(struct hs_sink *sink, struct hs_sink_pipe *first);

#endif
