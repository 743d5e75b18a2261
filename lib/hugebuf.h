/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_HUGEBUF_H
#define HS_HUGEBUF_H

#include <stddef.h>

/*
 * A large working buffer (pread windows, the accounting pipe's ring, the
 * second reader's items), in 2 MiB pages where the kernel gives them. A
 * report touches each such buffer once; in 4 KiB pages that is a fault a
 * page, and a fault costs 11 us on a PVM guest (5 us even populated):
 * 624 of them, filling the windows and the ring, were 7 ms of CPU in the
 * report of the bench's sparse v6. A huge page costs one fault (~230 us
 * there) for 512 pages' worth.
 *
 * Below HS_HUGEBUF_MIN a buffer is mapped in small pages as it is touched:
 * there a huge page would hold mostly nothing. Memory is zeroed, as from
 * mmap().
 */
#define HS_HUGEBUF_MIN (512u << 10)

struct hs_hugebuf {
	void *at;	/* the buffer, or NULL */
	size_t len;	/* of the mapping at at */
};

/* len bytes of zeroed memory at b->at; NULL when there is no memory. */
void *hs_hugebuf_alloc(struct hs_hugebuf *b, size_t len);
void hs_hugebuf_free(struct hs_hugebuf *b);

#endif
