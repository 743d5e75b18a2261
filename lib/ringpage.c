// SPDX-License-Identifier: GPL-2.0-only
/*
 * Record layout (kernel/trace/ring_buffer.c, struct ring_buffer_event): a
 * u32 with type_len in its low 5 bits and the time delta above. type_len
 * 1..28: payload of type_len * 4 bytes; 0: the length in the next u32;
 * 29: padding (delta 0: rest of the page); 30, 31: time extend and
 * absolute stamp, 8 bytes. A record that would run past the commit ends
 * the walk of the page rather than being trusted.
 */
#include <stdint.h>
#include <string.h>

#include "ringpage.h"

#define RINGPAGE_COMMIT_MASK ((1UL << 27) - 1)

bool hs_ringpage_open(struct hs_ringpage *it, const void *page, size_t page_size)
{
	const size_t hdr = 8 + sizeof(long);
	unsigned long commit;

	it->p = it->end = NULL;
	if (page_size < hdr)
		return false;
	memcpy(&commit, (const unsigned char *)page + 8, sizeof(commit));
	commit &= RINGPAGE_COMMIT_MASK;
	if (commit > page_size - hdr)
		return false;
	it->p = (const unsigned char *)page + hdr;
	it->end = it->p + commit;
	return true;
}

static uint32_t ringpage_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

const unsigned char *hs_ringpage_next(struct hs_ringpage *it, size_t *len)
{
	while (it->p && it->end - it->p >= 4) {
		size_t room = (size_t)(it->end - it->p), plen;
		uint32_t h = ringpage_u32(it->p), type_len = h & 31;
		const unsigned char *payload = it->p + 4;

		if (type_len == 29 && (h >> 5) == 0)
			break;
		if (type_len >= 29 && room < 8)
			break;
		if (type_len >= 30) {
			it->p += 8;
			continue;
		}
		if (type_len == 29) {
			/* the padding's length counts its own length word */
			plen = ringpage_u32(it->p + 4);
			if (plen > room - 4)
				break;
			it->p += 4 + plen;
			continue;
		}
		if (type_len == 0) {
			if (room < 8 || ringpage_u32(it->p + 4) < 4)
				break;
			/* the length counts itself; payloads are 4-byte aligned */
			plen = ((size_t)ringpage_u32(it->p + 4) - 4 + 3) & ~(size_t)3;
			payload = it->p + 8;
		} else {
			plen = (size_t)type_len * 4;
		}
		if (plen > (size_t)(it->end - payload))
			break;
		it->p = payload + plen;
		*len = plen;
		return payload;
	}
	it->p = it->end = NULL;
	return NULL;
}
