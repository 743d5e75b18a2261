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
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "tracedat_file.h"

struct td_inflater {
	int alg;
	ZSTD_DCtx *zctx;
	int fd;				/* the file, or -1: read from the mapping */
	unsigned char *in;		/* a compressed chunk read with pread */
	size_t in_cap;
	int code;			/* first chunk error */
	char msg[256];
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
	ZSTD_freeDCtx(z->zctx);
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

const unsigned char *hs_td_bytes(const struct td_file *f, uint64_t off, size_t n,
				     unsigned char *small)
{
	struct td_inflater *z = f->z;
	unsigned char *dst = small;
	size_t done = 0;

	if (z->fd < 0)
		return f->buf + off;
	if (!small) {
		if (!chunk_grow(&z->in, &z->in_cap, n))
			return NULL;
		dst = z->in;
	}
	while (done < n) {
		ssize_t got = pread(z->fd, dst + done, n - done, (off_t)(off + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return NULL;
		done += (size_t)got;
	}
	return dst;
}

static uint32_t chunk_u32(const struct td_file *f, const unsigned char *p)
{
	return (uint32_t)hs_td_get(f, p, 4);
}

int hs_td_chunk_next(const struct td_file *f, uint64_t *pos, uint32_t *left,
		     unsigned char **win, size_t *len, size_t *cap)
{
	struct td_inflater *z = f->z;
	unsigned char hdr[8];
	const unsigned char *h, *src;
	uint32_t c, u;

	if (!*left)
		return chunk_fail(z, HS_ERR_INPUT, "corrupt trace.dat: CPU data ends before its size, chunk", *pos);
	if (*pos > f->len || f->len - *pos < 8 || !(h = hs_td_bytes(f, *pos, 8, hdr)))
		return chunk_fail(z, HS_ERR_INPUT, "truncated trace.dat: compressed chunk", *pos);
	c = chunk_u32(f, h);
	u = chunk_u32(f, h + 4);
	if (c > f->len - *pos - 8 || c > TD_MAX_ZCHUNK || u > TD_MAX_CHUNK)
		return chunk_fail(z, HS_ERR_INPUT, "corrupt trace.dat: compressed chunk size", *pos);
	if (!chunk_grow(win, cap, *len + (u ? u : 1)))
		return chunk_fail(z, HS_ERR_RUNTIME, "out of memory inflating a chunk", *pos);
	src = hs_td_bytes(f, *pos + 8, c, NULL);
	if (!src)
		return chunk_fail(z, errno == ENOMEM ? HS_ERR_RUNTIME : HS_ERR_INPUT,
				"read error: compressed chunk", *pos);
	if (hs_td_inflate(z, *win + *len, u, src, c))
		return chunk_fail(z, HS_ERR_INPUT,
				"corrupt trace.dat: compressed chunk does not inflate", *pos);
	*len += u;
	*pos += 8 + (uint64_t)c;
	(*left)--;
	return 1;
}

struct td_inflater *hs_td_inflater_alloc(int fd)
{
	struct td_inflater *z = calloc(1, sizeof(*z));

	if (z)
		z->fd = fd;
	return z;
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
