// SPDX-License-Identifier: GPL-2.0-only
/* Large working buffers in huge pages where there are some (hugebuf.h). */
#include <stdint.h>
#include <sys/mman.h>

#include "hugebuf.h"

#define HS_HUGE_PAGE (2u << 20)

static size_t hugebuf_round(size_t len, size_t to)
{
	return (len + to - 1) / to * to;
}

void *hs_hugebuf_alloc(struct hs_hugebuf *b, size_t len)
{
	size_t align = len >= HS_HUGEBUF_MIN ? HS_HUGE_PAGE : 4096;
	size_t want = hugebuf_round(len ? len : 1, align);
	/* room to place want on a huge page's boundary, trimmed off below */
	size_t map_len = want + (align > 4096 ? align : 0);
	unsigned char *map, *at;

	b->at = NULL;
	b->len = 0;
	if (want < len || map_len < want)
		return NULL;
	map = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	at = (unsigned char *)hugebuf_round((uintptr_t)map, align);
	if (at > map)
		munmap(map, (size_t)(at - map));
	if (map + map_len > at + want)
		munmap(at + want, (size_t)(map + map_len - (at + want)));
	/* advice only: without huge pages the buffer fills a small page at a time */
	if (align > 4096)
		madvise(at, want, MADV_HUGEPAGE);
	b->at = at;
	b->len = want;
	return at;
}

void hs_hugebuf_free(struct hs_hugebuf *b)
{
	if (b->at)
		munmap(b->at, b->len);
	b->at = NULL;
	b->len = 0;
}
