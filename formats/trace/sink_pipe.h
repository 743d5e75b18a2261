/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_SINK_PIPE_H
#define HS_SINK_PIPE_H

#include <stddef.h>
#include <stdint.h>

#include "sink.h"

/* Inputs smaller than this are read on one thread (a second costs more than it saves). */
#define HS_SINK_PIPE_MIN_BYTES (4u << 20)

struct hs_sink_pipe;

/*
 * A sink into acct for a reader of an input of size bytes: through a second
 * thread when that pays (returns it), else straight into acct (NULL; sink
 * is then hs_sink_account's). HALTSTAT_PIPE=0/1 decides for the tests.
 */
struct hs_sink_pipe *hs_sink_pipe_open(struct hs_sink *sink, struct hs_account *acct,
				       uint64_t size);
/* Hands over what is left and waits for the account: HS_OK or its error. NULL: nothing to do. */
int hs_sink_pipe_close(struct hs_sink_pipe *p);

/*
 * For the second reader of a split in time (sink_second.c): the account
 * the pipe feeds, and n slots (sink_item.h) handed over after what the
 * reader handed over so far, as if it had.
 */
union pipe_slot;
struct hs_account *hs_sink_pipe_account(struct hs_sink_pipe *p);
void hs_sink_pipe_append(struct hs_sink_pipe *p, const union pipe_slot *slot, size_t n);

#endif
