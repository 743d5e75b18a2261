// SPDX-License-Identifier: GPL-2.0-only
/*
 * Inflating a trace.dat v7: the sections, and the per-CPU data that
 * trace-cmd writes as compressed chunks (a count, then per chunk its
 * compressed and inflated sizes and the data), one chunk at a time into a
 * CPU's window. Every size is checked against the file and a ceiling first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#include <zstd.h>

#include "../../lib/hugebuf.h"
#include "tracedat_file.h"
#include "tracedat_share.h"

/*
 * Compressed bytes are read a block at a time and served from there: a
 * chunk's header and data were a pread each, and each open read every
 * header once more (the bench's v7: 40000 preads of 8 bytes to 10 KiB,
 * ~2 us each on a PVM guest). A block per CPU being read, since the CPUs'
 * chunks are read in turns, each CPU's in order: 8 of 128 KiB, or more and
 * smaller for many CPUs, 1 MiB in all (hs_td_inflater_streams). Fewer
 * blocks than CPUs would read a whole block for each chunk.
 */
#define TD_ZREAD_TOTAL ((size_t)1 << 20)
#define TD_ZREAD_BLOCKS_MIN 8
#define TD_ZREAD_BLOCKS_MAX 64

struct td_zblock {
	uint64_t off;
	size_t len;
	uint64_t used;		/* when last served from, for the least recent */
};

struct td_inflater {
	int alg;
	ZSTD_DCtx *zctx;
	int fd;				/* the file, or -1: read from the mapping */
	unsigned char *in;		/* a compressed chunk larger than a block */
	size_t in_cap;
	int code;			/* first chunk error */
	char msg[256];
	struct hs_td_share *share;	/* chunks inflated once for two readers, or NULL */
	int reader;			/* this one's index there */
	struct hs_hugebuf zread;	/* nblk blocks of blk_len, TD_ZREAD_TOTAL */
	struct td_zblock blk[TD_ZREAD_BLOCKS_MAX];
	unsigned int nblk;
	size_t blk_len;
	uint64_t tick;
	uint64_t win_bytes;		/* the CPUs' windows, all told: within TD_MAX_CHUNKS_TOTAL */
};


int hs_td_inflate(struct td_inflater *z, unsigned char *dst, size_t dlen,
		  const unsigned char *src, size_t slen)
{
	if (z->alg == HS_TD_Z_ZSTD) {
		size_t r = ZSTD_decompressDCtx(z->zctx, dst, dlen, src, slen);

		return !ZSTD_isError(r) && r == dlen ? 0 : -1;
	}
	uLongf n = dlen;

	return uncompress(dst, &n, src, (uLong)slen) == Z_OK && n == dlen ? 0 : -1;
}

void hs_td_inflater_free(struct td_inflater *z)
{
	if (!z)
		return;
	if (z->share)
		hs_td_share_leave(z->share, z->reader);
	ZSTD_freeDCtx(z->zctx);
	hs_hugebuf_free(&z->zread);
	free(z->in);
	free(z);
}

static int chunk_fail(struct td_inflater *z, int code, const char *what, uint64_t off)
{
	if (!z->code) {
		z->code = code;
		snprintf(z->msg, sizeof(z->msg), "%s at offset %llu", what,
			 (unsigned long long)off);
	}
	return -1;
}

int hs_td_chunk_error(const struct td_file *f)
{
	const struct td_inflater *z = f->z;

	if (!z || !z->code)
		return hs_error_set(f->err, HS_ERR_INPUT, "corrupt trace.dat: bad compressed chunk");
	return hs_error_set(f->err, z->code, "%s", z->msg);
}

static bool chunk_grow(unsigned char **win, size_t *cap, size_t need)
{
	unsigned char *p;

	if (need <= *cap)
		return true;
	p = realloc(*win, need);
	if (!p)
		return false;
	*win = p;
	*cap = need;
	return true;
}

void hs_td_inflater_streams(struct td_inflater *z, unsigned int streams)
{
	unsigned int n = streams + 1 < TD_ZREAD_BLOCKS_MIN ? TD_ZREAD_BLOCKS_MIN :
			 streams + 1 > TD_ZREAD_BLOCKS_MAX ? TD_ZREAD_BLOCKS_MAX : streams + 1;

	memset(z->blk, 0, sizeof(z->blk));
	z->nblk = n;
	z->blk_len = TD_ZREAD_TOTAL / n / 4096 * 4096;
}

/* n <= blk_len bytes at off from a block, read there if no block holds them. */
static const unsigned char *zread_block(struct td_inflater *z, uint64_t off, size_t n)
{
	unsigned char *base = z->zread.at;
	unsigned int pick = 0;
	size_t got;

	if (!base && !(base = hs_hugebuf_alloc(&z->zread, TD_ZREAD_TOTAL)))
		return NULL;
	z->tick++;
	for (unsigned int i = 0; i < z->nblk; i++) {
		struct td_zblock *b = &z->blk[i];

		if (b->len && off >= b->off && off + n <= b->off + b->len) {
			b->used = z->tick;
			return base + i * z->blk_len + (off - b->off);
		}
		if (b->used < z->blk[pick].used)
			pick = i;
	}
	z->blk[pick] = (struct td_zblock){ 0 };
	if (!hs_td_pread_full(z->fd, base + pick * z->blk_len, z->blk_len, off, &got) || got < n)
		return NULL;
	z->blk[pick] = (struct td_zblock){ .off = off, .len = got, .used = z->tick };
	return base + pick * z->blk_len;
}

const unsigned char *hs_td_bytes(const struct td_file *f, uint64_t off, size_t n,
				     unsigned char *small)
{
	struct td_inflater *z = f->z;
	const unsigned char *p;
	size_t got;

	if (z->fd < 0)
		return f->buf + off;
	if (n <= z->blk_len) {
		if (!(p = zread_block(z, off, n)))
			return NULL;
		if (!small)
			return p;
		memcpy(small, p, n);
		return small;
	}
	if (!small) {
		if (!chunk_grow(&z->in, &z->in_cap, n))
			return NULL;
		small = z->in;
	}
	return hs_td_pread_full(z->fd, small, n, off, &got) && got == n ? small : NULL;
}

static uint32_t chunk_u32(const struct td_file *f, const unsigned char *p)
{
	return (uint32_t)hs_td_get(f, p, 4);
}

/* How many of a CPU's next chunks a reader inflates while it waits for one */
#define TD_AHEAD 4

int hs_td_chunk_head(const struct td_file *f, uint64_t pos, uint64_t end, uint32_t *c,
		     uint32_t *u)
{
	unsigned char hdr[8];
	const unsigned char *h;

	if (end < pos || end - pos < 8)
		return chunk_fail(f->z, HS_ERR_INPUT, "corrupt trace.dat: compressed chunk header", pos);
	if (pos > f->len || f->len - pos < 8 || !(h = hs_td_bytes(f, pos, 8, hdr)))
		return chunk_fail(f->z, HS_ERR_INPUT, "truncated trace.dat: compressed chunk", pos);
	*c = chunk_u32(f, h);
	*u = chunk_u32(f, h + 4);
	if (*c > f->len - pos - 8 || *c > end - pos - 8 || *c > TD_MAX_ZCHUNK || *u > TD_MAX_CHUNK)
		return chunk_fail(f->z, HS_ERR_INPUT, "corrupt trace.dat: compressed chunk size", pos);
	return 0;
}

/* The chunk at pos (c bytes compressed) inflated into dst, u bytes. */
static int chunk_inflate(const struct td_file *f, uint64_t pos, uint32_t c, unsigned char *dst,
			 uint32_t u)
{
	const unsigned char *src = hs_td_bytes(f, pos + 8, c, NULL);

	if (!src)
		return chunk_fail(f->z, errno == ENOMEM ? HS_ERR_RUNTIME : HS_ERR_INPUT,
				  "read error: compressed chunk", pos);
	if (hs_td_inflate(f->z, dst, u, src, c))
		return chunk_fail(f->z, HS_ERR_INPUT,
				  "corrupt trace.dat: compressed chunk does not inflate", pos);
	return 0;
}

/*
 * While the other reader inflates this CPU's chunk, the next of the CPU's
 * chunks not yet there (from *pos, *left of them), for both: false when
 * there is none to take. A failure is left for when the chunk is needed.
 */
static bool chunk_ahead(const struct td_file *f, uint64_t end, uint64_t *pos, uint32_t *left)
{
	struct td_inflater *z = f->z;
	struct td_share_slot *sl = NULL;
	int code = z->code;
	uint64_t at = 0;
	uint32_t c, u;

	while (*left && !sl) {
		if (hs_td_chunk_head(f, *pos, end, &c, &u)) {
			*left = 0;
			break;
		}
		at = *pos;
		sl = hs_td_share_claim(z->share, at, u);
		*pos += 8 + (uint64_t)c;
		(*left)--;
	}
	if (sl)
		hs_td_share_made(z->share, sl, !chunk_inflate(f, at, c, hs_td_share_buf(sl), u), -1);
	z->code = code;
	return sl;
}

/*
 * The chunk at pos into dst through the share: copied if the other reader
 * inflated it, else inflated here and copied for the other.
 */
static int chunk_shared(const struct td_file *f, uint64_t end, uint64_t pos, uint32_t c,
			uint32_t u, uint32_t left, unsigned char *dst)
{
	struct td_inflater *z = f->z;
	struct td_share_slot *sl;
	uint64_t apos = pos + 8 + (uint64_t)c;
	uint32_t aleft = left - 1 < TD_AHEAD ? left - 1 : TD_AHEAD;
	struct td_share_wait wait = { 0 };
	int r;

	for (;;) {
		switch (hs_td_share_get(z->share, z->reader, pos, u, &sl)) {
		case TD_SHARE_COPY:
			memcpy(dst, hs_td_share_buf(sl), u);
			hs_td_share_copied(z->share, z->reader, sl);
			return 0;
		case TD_SHARE_MAKE:
			r = chunk_inflate(f, pos, c, dst, u);
			if (!r)
				memcpy(hs_td_share_buf(sl), dst, u);
			hs_td_share_made(z->share, sl, !r, z->reader);
			return r;
		case TD_SHARE_WAIT:
			if (!chunk_ahead(f, end, &apos, &aleft))
				hs_td_share_pause(&wait);
			break;
		case TD_SHARE_FULL:
			if (hs_td_share_pause(&wait))
				break;
			/* the other reader copies nothing (it ended, say): both go on alone */
			hs_td_share_leave(z->share, z->reader);
			z->share = NULL;
			return chunk_inflate(f, pos, c, dst, u);
		case TD_SHARE_ALONE:
			return chunk_inflate(f, pos, c, dst, u);
		}
	}
}

/*
 * A CPU's window grown to need bytes; all of a reader's windows together
 * within TD_MAX_CHUNKS_TOTAL, as the chunk headers of a file with many
 * CPUs could otherwise ask for gigabytes.
 */
static int chunk_window_grow(struct td_inflater *z, unsigned char **win, size_t *cap,
			     size_t need, uint64_t pos)
{
	size_t old = *cap;

	if (need <= old)
		return 0;
	if (z->win_bytes - old + need > TD_MAX_CHUNKS_TOTAL)
		return chunk_fail(z, HS_ERR_INPUT,
				  "corrupt trace.dat: compressed chunks larger than haltstat reads", pos);
	if (!chunk_grow(win, cap, need))
		return chunk_fail(z, HS_ERR_RUNTIME, "out of memory inflating a chunk", pos);
	z->win_bytes += *cap - old;
	return 0;
}

void hs_td_chunk_window_free(const struct td_file *f, unsigned char *win, size_t cap)
{
	f->z->win_bytes -= cap < f->z->win_bytes ? cap : f->z->win_bytes;
	free(win);
}

int hs_td_chunk_next(const struct td_file *f, const struct td_chunks *ch, uint64_t *pos,
		     uint32_t *left, unsigned char **win, size_t *len, size_t *cap)
{
	struct td_inflater *z = f->z;
	uint32_t c, u;
	int r;

	if (!*left)
		return chunk_fail(z, HS_ERR_INPUT, "corrupt trace.dat: CPU data ends before its size, chunk", *pos);
	if (hs_td_chunk_head(f, *pos, ch->end, &c, &u) ||
	    chunk_window_grow(z, win, cap, *len + (u ? u : 1), *pos))
		return -1;
	r = z->share ? chunk_shared(f, ch->end, *pos, c, u, *left, *win + *len) :
		       chunk_inflate(f, *pos, c, *win + *len, u);
	if (r)
		return -1;
	*len += u;
	*pos += 8 + (uint64_t)c;
	(*left)--;
	return 1;
}

struct td_inflater *hs_td_inflater_alloc(int fd)
{
	struct td_inflater *z = calloc(1, sizeof(*z));

	if (z) {
		z->fd = fd;
		hs_td_inflater_streams(z, 0);
	}
	return z;
}

void hs_td_inflater_share(struct td_inflater *z, struct hs_td_share *share)
{
	if (share && (z->reader = hs_td_share_join(share)) >= 0)
		z->share = share;
}

int hs_td_inflater_set(struct td_inflater *z, int alg)
{
	z->alg = alg;
	if (alg == HS_TD_Z_ZSTD && !(z->zctx = ZSTD_createDCtx()))
		return -1;
	return 0;
}

int hs_td_inflater_alg(const struct td_inflater *z)
{
	return z->alg;
}
