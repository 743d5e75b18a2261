/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_RINGBUF_H
#define HS_RINGBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * The ring-buffer page format (kernel/trace/ring_buffer.c), walked the
 * way libtraceevent's kbuffer does, for every reader of raw pages: the
 * trace.dat decoders, the recorder's scan of what it saved and the live
 * view. Inline: the decoders call it for every record.
 *
 * A page: u64 time stamp, a long of commit bytes and flags, then records.
 * A record: a u32 with type_len in its low 5 bits and the time delta above
 * (the other way round on big-endian machines). type_len 1..28: payload of
 * type_len * 4 bytes; 0: the length in the next u32; 29: padding (delta
 * 0: rest of the page); 30: time extend; 31: absolute time stamp.
 */
#define HS_RB_COMMIT_MASK ((1ULL << 27) - 1)
#define HS_RB_MISSED_EVENTS (1ULL << 31)	/* events were lost before this page */
#define HS_RB_MISSED_STORED (1ULL << 30)	/* their count follows the commit */
/* An absolute stamp carries 59 bits: the top ones come from the page. */
#define HS_RB_TS_MSB (0xf8ULL << 56)

struct hs_rb_walk {
	const unsigned char *p, *end;	/* next record, end of the page's commit */
	uint64_t ts;			/* of the record just returned */
	bool swap;			/* the bytes are in the other order */
	bool big;			/* the writer was big-endian (bit layout) */
};

enum hs_rb_status {
	HS_RB_BAD = -1,		/* a record runs past the commit: the rest of the page is lost */
	HS_RB_END = 0,
	HS_RB_RECORD = 1,
};

static inline uint32_t hs_rb_u32(const struct hs_rb_walk *w, const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return w->swap ? __builtin_bswap32(v) : v;
}

/*
 * Starts a walk of the records at recs (commit bytes, already checked to
 * lie inside the page) from the page's time stamp.
 */
static inline void hs_rb_walk_init(struct hs_rb_walk *w, const unsigned char *recs,
				   uint64_t commit, uint64_t page_ts, bool swap, bool big)
{
	w->p = recs;
	w->end = recs + commit;
	w->ts = page_ts;
	w->swap = swap;
	w->big = big;
}

/* The next data record's payload and length; w->ts is its time stamp. */
static inline int hs_rb_next(struct hs_rb_walk *w, const unsigned char **payload, size_t *len)
{
	while (w->p < w->end) {
		size_t room = (size_t)(w->end - w->p), plen;
		uint32_t h = hs_rb_u32(w, w->p), tl, delta;
		const unsigned char *pl;

		tl = w->big ? h >> 27 : h & 31;
		delta = w->big ? h & ((1u << 27) - 1) : h >> 5;
		if (tl >= 29) {
			if (tl == 29 && delta == 0)
				break;		/* padding to the end of the page */
			if (room < 8)
				return HS_RB_BAD;
			if (tl == 29) {
				/* the padding's length counts its own length word */
				plen = hs_rb_u32(w, w->p + 4);
				if (plen > room - 4)
					return HS_RB_BAD;
				w->ts += delta;
				w->p += 4 + plen;
				continue;
			}
			uint64_t ext = ((uint64_t)hs_rb_u32(w, w->p + 4) << 27) + delta;

			w->ts = tl == 30 ? w->ts + ext : ext | (w->ts & HS_RB_TS_MSB);
			w->p += 8;
			continue;
		}
		if (tl == 0) {
			uint32_t l = room >= 8 ? hs_rb_u32(w, w->p + 4) : 0;

			if (l < 4)
				return HS_RB_BAD;
			/* the length counts itself; payloads are 4-byte aligned */
			plen = ((size_t)l - 4 + 3) & ~(size_t)3;
			pl = w->p + 8;
			if (plen > room - 8)
				return HS_RB_BAD;
		} else {
			plen = tl * 4;
			pl = w->p + 4;
			if (plen > room - 4)
				return HS_RB_BAD;
		}
		w->ts += delta;
		w->p = pl + plen;
		*payload = pl;
		*len = plen;
		return HS_RB_RECORD;
	}
	w->p = w->end;
	return HS_RB_END;
}

/*
 * A page of this host's own ring buffer (native order and long size):
 * false when its commit does not fit in page_size.
 */
static inline bool hs_rb_page_native(struct hs_rb_walk *w, const unsigned char *page,
				     size_t page_size)
{
	const size_t hdr = 8 + sizeof(long);
	unsigned long flags;
	uint64_t ts;

	if (page_size < hdr)
		return false;
	memcpy(&ts, page, 8);
	memcpy(&flags, page + 8, sizeof(flags));
	if ((flags & HS_RB_COMMIT_MASK) > page_size - hdr)
		return false;
	hs_rb_walk_init(w, page + hdr, flags & HS_RB_COMMIT_MASK, ts, false,
			__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	return true;
}

#endif
