/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_RINGPAGE_H
#define HS_RINGPAGE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Walks the events of one ring-buffer page as the kernel wrote it on this
 * host (native byte order and long size): what `haltstat record` needs to
 * count its events and collect their pids without libtraceevent's kbuffer,
 * which costs several times more per event. Time stamps are not kept.
 */
struct hs_ringpage {
	const unsigned char *p, *end;	/* next record, end of the committed data */
};

/* false when the page's commit does not fit in page_size (nothing to walk) */
bool hs_ringpage_open(struct hs_ringpage *it, const void *page, size_t page_size);

/* The next event's payload (common_type at offset 0), or NULL at the end. */
const unsigned char *hs_ringpage_next(struct hs_ringpage *it, size_t *len);

#endif
