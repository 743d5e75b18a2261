/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_TRACEDAT_SHARE_H
#define HS_TRACEDAT_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Inflated chunks two readers of one compressed trace.dat share
 * (tracedat_share.c). A chunk is named by its offset in the file.
 */
struct hs_td_share;
struct td_share_slot;

struct hs_td_share *hs_td_share_new(void);
/* After every reader has left. */
void hs_td_share_free(struct hs_td_share *s);
/* A reader's index, or -1: two have joined already (read alone). */
int hs_td_share_join(struct hs_td_share *s);
/* The reader is done: nothing more is kept for it. */
void hs_td_share_leave(struct hs_td_share *s, int reader);

enum td_share_got {
	TD_SHARE_COPY,		/* there: copy the slot's len bytes, then hs_td_share_copied */
	TD_SHARE_MAKE,		/* inflate it, put a copy in the slot, hs_td_share_made */
	TD_SHARE_WAIT,		/* the other reader inflates it: ask again soon */
	TD_SHARE_FULL,		/* no slot free: ask again soon, or leave and read alone */
	TD_SHARE_ALONE,		/* inflate it for yourself */
};
/* What reader is to do for the chunk at pos, len bytes inflated. */
enum td_share_got hs_td_share_get(struct hs_td_share *s, int reader, uint64_t pos, size_t len,
				  struct td_share_slot **slot);
/* A slot to inflate the chunk at pos into ahead of need; NULL: there, or no room. */
struct td_share_slot *hs_td_share_claim(struct hs_td_share *s, uint64_t pos, size_t len);
unsigned char *hs_td_share_buf(struct td_share_slot *sl);
/*
 * The slot's chunk inflated (ok) or not (the slot is free again); reader:
 * the one that has it already, or -1 (inflated ahead, for both).
 */
void hs_td_share_made(struct hs_td_share *s, struct td_share_slot *sl, bool ok, int reader);
void hs_td_share_copied(struct hs_td_share *s, int reader, struct td_share_slot *sl);
/* A wait for the other reader, a short pause at a time; false: it has been too long. */
struct td_share_wait {
	unsigned int spins;
	uint64_t since_ns;
};
bool hs_td_share_pause(struct td_share_wait *w);

#endif
