// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.dat version 7 (trace-cmd.dat.v7(5)) parsed from the mapped bytes into
 * the struct td_file that the page decoder of tracedat_decode.c runs on.
 * Every offset and size is checked against the file (or the inflated
 * section) before use, and every inflation against a ceiling. Chunks are
 * only walked here, by their headers (read with pread when there is a
 * file); the decoder inflates them one at a time (hs_td_chunk_next). The
 * layout: doc/INTERNALS.md, "trace.dat v7".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "../../lib/ringbuf.h"
#include "tracedat_file.h"

#define V7_SEC_HDR 16
#define V7_FL_COMPRESS 1
#define V7_MAX_SECTIONS 1024		/* sections read per file: ends a chain that loops */
#define V7_MAX_SECTION (64u << 20)	/* one section, inflated */
#define V7_MAX_SECTIONS_TOTAL (256u << 20)	/* all of them, kept until the end */

enum { V7_OPT_DONE = 0, V7_OPT_BUFFER = 3, V7_OPT_CPUCOUNT = 8, V7_OPT_HEADER_INFO = 16,
       V7_OPT_FTRACE_EVENTS = 17, V7_OPT_EVENT_FORMATS = 18, V7_OPT_CMDLINES = 21,
       V7_OPT_BUFFER_TEXT = 22 };

/* Tests and fuzzing turn the libtracecmd fallback off (it forks). */
bool hs_td_v7_fallback = true;

struct v7_bopt {
	const unsigned char *p;		/* a BUFFER option's data */
	size_t n;
};

struct v7 {
	struct td_file *f;
	const unsigned char *file;
	size_t flen;
	uint64_t sec_header, sec_ftrace, sec_events, sec_cmdlines;	/* section offsets, 0 = none */
	uint64_t cpucount;
	uint64_t next;			/* the options section after this one, 0 = none */
	struct v7_bopt bopt[TD_MAXBUFS];
	int nbopt;
	unsigned int nsections;
	bool walk_chunks;		/* every chunk header read and checked at the start */
	uint64_t chunk_mem;		/* windows the chunks need, all CPUs, once walked */
	uint64_t inflated;		/* bytes of inflated sections */
	void **owned;			/* inflated sections, freed at the end */
	int nowned;
};

static uint32_t v7_u32(const struct td_file *f, const unsigned char *p)
{
	return (uint32_t)hs_td_get(f, p, 4);
}

/* ---- sections ---- */

static int v7_corrupt(struct v7 *v, const char *what, uint64_t off)
{
	return hs_error_set(v->f->err, HS_ERR_INPUT, "corrupt trace.dat: %s at offset %llu",
			    what, (unsigned long long)off);
}

static int v7_past_end(struct v7 *v, const char *what, uint64_t off)
{
	return hs_error_set(v->f->err, HS_ERR_INPUT,
			    "truncated trace.dat: %s at offset %llu runs past the end of the file (%zu bytes)",
			    what, (unsigned long long)off, v->flen);
}

static bool v7_fits(const struct v7 *v, uint64_t off, uint64_t n)
{
	return off <= v->flen && n <= v->flen - off;
}

static void v7_end(struct v7 *v, uint64_t end)
{
	if (end > v->f->data_end)
		v->f->data_end = end;
}

static int v7_own(struct v7 *v, void *p)
{
	void **o = realloc(v->owned, (v->nowned + 1) * sizeof(*o));

	if (!o) {
		free(p);
		return hs_error_set(v->f->err, HS_ERR_RUNTIME, "out of memory");
	}
	v->owned = o;
	o[v->nowned++] = p;
	return 0;
}

static int v7_unpack(struct v7 *v, const char *what, uint64_t data, uint64_t size,
		     const unsigned char **p, size_t *n)
{
	struct td_file *f = v->f;
	uint32_t c, u;
	unsigned char *out;

	if (size < 8)
		return v7_corrupt(v, "compressed section too short", data);
	c = v7_u32(f, v->file + data);
	u = v7_u32(f, v->file + data + 4);
	if (c > size - 8 || u > V7_MAX_SECTION)
		return v7_corrupt(v, "compressed section sizes", data);
	v->inflated += u;
	if (v->inflated > V7_MAX_SECTIONS_TOTAL)
		return v7_corrupt(v, "sections inflating to more than haltstat reads", data);
	out = malloc(u ? u : 1);
	if (!out)
		return hs_error_set(f->err, HS_ERR_RUNTIME, "out of memory");
	if (hs_td_inflate(f->z, out, u, v->file + data + 8, c)) {
		free(out);
		return hs_error_set(f->err, HS_ERR_INPUT,
				    "corrupt trace.dat: %s section at offset %llu does not inflate",
				    what, (unsigned long long)data - V7_SEC_HDR);
	}
	*p = out;
	*n = u;
	return v7_own(v, out);
}

/*
 * The section at off, which must have the id want: its payload (*p, *n),
 * inflated when compressed unless raw is set. *flags: the section's flags.
 */
static int v7_section(struct v7 *v, uint64_t off, unsigned int want, const char *what,
		      bool raw, const unsigned char **p, size_t *n, unsigned int *flags)
{
	struct td_file *f = v->f;
	uint64_t size, data = off + V7_SEC_HDR;
	unsigned int id;
	char name[64];

	snprintf(name, sizeof(name), "%s section header", what);
	if (++v->nsections > V7_MAX_SECTIONS)
		return v7_corrupt(v, "too many sections", off);
	if (!v7_fits(v, off, V7_SEC_HDR))
		return v7_past_end(v, name, off);
	id = (unsigned int)hs_td_get(f, v->file + off, 2);
	*flags = (unsigned int)hs_td_get(f, v->file + off + 2, 2);
	size = hs_td_get(f, v->file + off + 8, 8);
	if (id != want)
		return hs_error_set(f->err, HS_ERR_INPUT,
				    "corrupt trace.dat: expected %s section (id %u) at offset %llu, found id %u",
				    what, want, (unsigned long long)off, id);
	snprintf(name, sizeof(name), "%s section", what);
	if (!v7_fits(v, data, size))
		return v7_past_end(v, name, off);
	v7_end(v, data + size);
	if ((*flags & V7_FL_COMPRESS) && hs_td_inflater_alg(f->z) == HS_TD_Z_NONE)
		return v7_corrupt(v, "compressed section in an uncompressed file", off);
	if ((*flags & V7_FL_COMPRESS) && !raw)
		return v7_unpack(v, what, data, size, p, n);
	*p = v->file + data;
	*n = (size_t)size;
	return 0;
}

/* Parses (p, n) with the td_file readers, then puts the file back. */
static int v7_in(struct v7 *v, const unsigned char *p, size_t n, const char *sect,
		 int (*fn)(struct v7 *v))
{
	struct td_file *f = v->f;
	const unsigned char *buf = f->buf;
	size_t len = f->len, pos = f->pos;
	const char *old = f->sect;
	int ret;

	f->buf = p;
	f->len = n;
	f->pos = 0;
	f->sect = sect;
	ret = fn(v);
	f->buf = buf;
	f->len = len;
	f->pos = pos;
	f->sect = old;
	return ret;
}

/* ---- options ---- */

static int v7_option(struct v7 *v, unsigned int id, size_t off, size_t len)
{
	struct td_file *f = v->f;
	const unsigned char *p = f->buf + off;
	uint64_t *sec = id == V7_OPT_HEADER_INFO ? &v->sec_header :
			id == V7_OPT_FTRACE_EVENTS ? &v->sec_ftrace :
			id == V7_OPT_EVENT_FORMATS ? &v->sec_events :
			id == V7_OPT_CMDLINES ? &v->sec_cmdlines : NULL;

	if (sec) {
		if (len < 8)
			return hs_error_set(f->err, HS_ERR_INPUT,
					    "corrupt trace.dat: option %u too short", id);
		*sec = hs_td_get(f, p, 8);
		return 0;
	}
	switch (id) {
	case V7_OPT_BUFFER:
		if (v->nbopt < TD_MAXBUFS)
			v->bopt[v->nbopt++] = (struct v7_bopt){ p, len };
		return 0;
	case V7_OPT_BUFFER_TEXT:
		return hs_error_set(f->err, HS_ERR_INPUT,
				    "unsupported trace.dat: latency-tracer data, not per-CPU event buffers");
	case V7_OPT_CPUCOUNT:
		if (len >= 4)
			v->cpucount = hs_td_get(f, p, 4);
		return 0;
	}
	return hs_td_option(f, id, off, len);
}

/* One options section's options, up to DONE. */
static int v7_options_in(struct v7 *v)
{
	struct td_file *f = v->f;
	uint64_t id;
	size_t off, len;
	int ret;

	while (f->pos < f->len) {
		ret = hs_td_num(f, 2, &id, "option id");
		/*
		 * trace-cmd 3.1 writes the size of DONE in its own byte order in
		 * big-endian files: like libtracecmd, read the offset after it.
		 */
		if (!ret && id == V7_OPT_DONE) {
			ret = hs_td_num(f, 4, &v->next, "DONE option");
			if (!ret)
				ret = hs_td_num(f, 8, &v->next, "DONE option");
			return ret;
		}
		if (!ret)
			ret = hs_td_blob(f, 4, &off, &len, "option");
		if (ret)
			return ret;
		ret = v7_option(v, (unsigned int)id, off, len);
		if (ret)
			return ret;
	}
	return 0;
}

static int v7_options(struct v7 *v, uint64_t off)
{
	while (off) {
		const unsigned char *p;
		size_t n;
		unsigned int flags;
		int ret = v7_section(v, off, 0, "options", false, &p, &n, &flags);

		v->next = 0;
		if (!ret)
			ret = v7_in(v, p, n, "options", v7_options_in);
		if (ret)
			return ret;
		/* trace-cmd writes them in file order: this also ends a loop */
		if (v->next && v->next <= off)
			return v7_corrupt(v, "options section chain goes backwards", off);
		off = v->next;
	}
	return 0;
}

/* ---- buffers ---- */

struct v7_bhdr {
	uint64_t sec;			/* flyrecord section */
	const char *name;
	const unsigned char *clock;
	size_t clock_len;
	uint32_t ncpu;
	const unsigned char *ent;	/* per CPU: id (4), offset (8), size (8) */
};

static int v7_bad_bopt(struct v7 *v, const char *what)
{
	return hs_error_set(v->f->err, HS_ERR_INPUT, "corrupt trace.dat: bad BUFFER option (%s)",
			    what);
}

/* BUFFER: section offset (8), name, clock, [page size (4)], CPU count (4), entries. */
static int v7_bparse(struct v7 *v, const struct v7_bopt *o, struct v7_bhdr *h)
{
	struct td_file *f = v->f;
	const unsigned char *p = o->p, *nul;
	size_t pos = 8, rest;
	uint32_t nc;

	if (o->n < 8)
		return v7_bad_bopt(v, "too short");
	h->sec = hs_td_get(f, p, 8);
	for (int s = 0; s < 2; s++) {
		nul = pos < o->n ? memchr(p + pos, '\0', o->n - pos) : NULL;
		if (!nul)
			return v7_bad_bopt(v, s ? "clock" : "name");
		if (s == 0)
			h->name = (const char *)p + pos;
		h->clock = p + pos;
		h->clock_len = (size_t)(nul - (p + pos));
		pos = (size_t)(nul - p) + 1;
	}
	rest = o->n - pos;
	/* trace-cmd 3.1 writes the page size (4) before the CPU count */
	if (rest >= 4 && (nc = v7_u32(f, p + pos)) <= HS_TD_MAXCPUS && nc * 20ull == rest - 4) {
		pos += 4;
	} else if (rest >= 8 && (nc = v7_u32(f, p + pos + 4)) <= HS_TD_MAXCPUS &&
		   nc * 20ull == rest - 8) {
		if (v7_u32(f, p + pos) != f->page_size)
			return hs_error_set(f->err, HS_ERR_INPUT,
					    "unsupported trace.dat: buffer \"%.40s\" has page size %u, the file %u",
					    h->name, v7_u32(f, p + pos), f->page_size);
		pos += 8;
	} else {
		return v7_bad_bopt(v, "CPU count");
	}
	h->ncpu = nc;
	h->ent = p + pos;
	return 0;
}

/*
 * One CPU's chunk count; with walk_chunks, its chunk headers walked too:
 * the inflated size, the largest chunk. A reader does not walk them: that
 * read every compressed byte before the first was inflated (on the bench's
 * v7, half of the 6 ms before its readers started), and the decoder checks
 * each header as it comes (hs_td_chunk_next) and learns the size at the end.
 */
static int v7_chunks_scan(struct v7 *v, uint64_t off, uint64_t size, struct td_chunks *ch,
			  uint64_t *total)
{
	struct td_file *f = v->f;
	unsigned char tmp[8];
	const unsigned char *h = hs_td_bytes(f, off, 4, tmp);
	uint64_t pos;

	if (!h)
		return hs_error_set(f->err, HS_ERR_INPUT, "read error at offset %llu",
				    (unsigned long long)off);
	ch->start = off + 4;
	ch->end = off + 4 + size;
	ch->count = v7_u32(f, h);
	if (ch->count > size / 8)
		return v7_corrupt(v, "CPU data chunk count", off);
	*total = TD_SIZE_UNKNOWN;
	if (!v->walk_chunks)
		return 0;
	*total = 0;
	pos = ch->start;
	for (uint32_t i = 0; i < ch->count; i++) {
		uint32_t c, u;

		if (hs_td_chunk_head(f, pos, ch->end, &c, &u))
			return hs_td_chunk_error(f);
		*total += u;
		ch->max = u > ch->max ? u : ch->max;
		pos += 8 + (uint64_t)c;
	}
	v->chunk_mem += ch->max + f->page_size;
	if (v->chunk_mem > TD_MAX_CHUNKS_TOTAL)
		return v7_corrupt(v, "compressed chunks larger than haltstat reads", off);
	return 0;
}

/* One CPU's entry of a buffer: where its pages are, inflated or not. */
static int v7_cpu(struct v7 *v, struct td_buf *b, int cpu, uint64_t off, uint64_t size,
		  uint64_t *span)
{
	struct td_file *f = v->f;
	uint64_t room = b->chunks ? 4 : 0;

	if (!size)
		return 0;
	if (!v7_fits(v, off, room) || size > v->flen - off - room)
		return hs_error_set(f->err, HS_ERR_INPUT,
				    "truncated trace.dat: CPU %d data (offset %llu, %llu bytes) runs past the end of the file (%zu bytes)",
				    cpu, (unsigned long long)off, (unsigned long long)size, v->flen);
	b->off[cpu] = off;
	b->size[cpu] = size;
	*span = room + size;
	v7_end(v, off + room + size);
	return b->chunks ? v7_chunks_scan(v, off, size, &b->chunks[cpu], &b->size[cpu]) : 0;
}

static int v7_buffer(struct v7 *v, struct td_buf *b, const struct v7_bhdr *h)
{
	struct td_file *f = v->f;
	const unsigned char *p;
	unsigned int flags;
	size_t n;
	uint64_t *span = calloc(f->ncpus ? f->ncpus : 1, sizeof(*span));
	int ret = span ? v7_section(v, h->sec, V7_OPT_BUFFER, "flyrecord", true, &p, &n, &flags) :
			 hs_error_set(f->err, HS_ERR_RUNTIME, "out of memory");

	if (!ret && (flags & V7_FL_COMPRESS) &&
	    !(b->chunks = calloc(f->ncpus ? f->ncpus : 1, sizeof(*b->chunks))))
		ret = hs_error_set(f->err, HS_ERR_RUNTIME, "out of memory");
	for (uint32_t i = 0; !ret && i < h->ncpu; i++) {
		const unsigned char *e = h->ent + 20 * (size_t)i;
		uint32_t cpu = v7_u32(f, e);

		if (b->size[cpu] || (b->chunks && b->chunks[cpu].count))
			ret = v7_corrupt(v, "CPU listed twice in a BUFFER option", h->sec);
		else
			ret = v7_cpu(v, b, (int)cpu, hs_td_get(f, e + 4, 8), hs_td_get(f, e + 12, 8),
				     &span[cpu]);
	}
	if (!ret) {
		/* two CPUs reading the same bytes would count every event twice */
		struct td_buf tmp = { .off = b->off, .size = span };

		ret = hs_td_overlap(f, &tmp);
	}
	free(span);
	return ret;
}

/* CPU count: the CPUCOUNT option, or past the highest CPU id of any buffer. */
static int v7_ncpus(struct v7 *v, struct v7_bhdr *h)
{
	struct td_file *f = v->f;
	uint64_t n = v->cpucount;
	int ret;

	for (int i = 0; i < v->nbopt; i++) {
		ret = v7_bparse(v, &v->bopt[i], &h[i]);
		if (ret)
			return ret;
		for (uint32_t c = 0; c < h[i].ncpu; c++) {
			uint64_t id = v7_u32(f, h[i].ent + 20 * (size_t)c);

			n = id + 1 > n ? id + 1 : n;
		}
	}
	if (n > HS_TD_MAXCPUS)
		return hs_error_set(f->err, HS_ERR_INPUT, "corrupt trace.dat: %llu CPUs",
				    (unsigned long long)n);
	f->ncpus = (int)n;
	return 0;
}

/* The top buffer (name "") at [0], even when the file has none, instances after it. */
static int v7_buffers(struct v7 *v)
{
	struct td_file *f = v->f;
	struct v7_bhdr h[TD_MAXBUFS];
	int top = -1, ret;

	if (!v->nbopt)
		return hs_error_set(f->err, HS_ERR_INPUT,
				    "corrupt trace.dat: no BUFFER option, no CPU data");
	ret = v7_ncpus(v, h);
	f->nbufs = 1;
	for (int i = 0; !ret && i < v->nbopt; i++) {
		int slot = !h[i].name[0] && top < 0 ? 0 : f->nbufs;
		struct td_buf *b = &f->bufs[slot];

		if (slot >= TD_MAXBUFS)
			break;
		if (slot)
			f->nbufs++;
		if (slot == 0)
			top = i;
		snprintf(b->name, sizeof(b->name), "%s", h[i].name);
		ret = hs_td_buf_alloc(f, b);
		if (!ret)
			ret = v7_buffer(v, b, &h[i]);
	}
	if (!ret && top >= 0 && !f->clock[0])
		hs_td_clock(f->clock, sizeof(f->clock), h[top].clock, h[top].clock_len);
	if (!ret && top < 0)
		ret = hs_td_buf_alloc(f, &f->bufs[0]);
	return ret;
}

/* ---- header and metadata sections ---- */

static int v7_header_in(struct v7 *v)
{
	return hs_td_header_page(v->f);
}

static int v7_ftrace_in(struct v7 *v)
{
	return hs_td_ftrace_formats(v->f);
}

static int v7_events_in(struct v7 *v)
{
	return hs_td_event_formats(v->f);
}

static int v7_cmdlines_in(struct v7 *v)
{
	struct td_file *f = v->f;
	size_t off, len;
	int ret = hs_td_blob(f, 8, &off, &len, "saved cmdlines");

	if (!ret) {
		f->cmd = (const char *)f->buf + off;
		f->cmd_len = len;
	}
	return ret;
}

static int v7_meta_sections(struct v7 *v)
{
	const unsigned char *p;
	unsigned int flags;
	size_t n;
	int ret;

	if (!v->sec_header)
		return hs_error_set(v->f->err, HS_ERR_INPUT,
				    "corrupt trace.dat: no header info section");
	ret = v7_section(v, v->sec_header, V7_OPT_HEADER_INFO, "header info", false, &p, &n, &flags);
	if (!ret)
		ret = v7_in(v, p, n, "header info", v7_header_in);
	/* haltstat's notes are ftrace:print events */
	if (!ret && v->sec_ftrace) {
		ret = v7_section(v, v->sec_ftrace, V7_OPT_FTRACE_EVENTS, "ftrace formats", false,
				 &p, &n, &flags);
		if (!ret)
			ret = v7_in(v, p, n, "ftrace formats", v7_ftrace_in);
	}
	if (!ret && v->sec_events) {
		ret = v7_section(v, v->sec_events, V7_OPT_EVENT_FORMATS, "event formats", false,
				 &p, &n, &flags);
		if (!ret)
			ret = v7_in(v, p, n, "event formats", v7_events_in);
	}
	if (!ret && v->sec_cmdlines) {
		ret = v7_section(v, v->sec_cmdlines, V7_OPT_CMDLINES, "cmdlines", false, &p, &n, &flags);
		if (!ret)
			ret = v7_in(v, p, n, "cmdlines", v7_cmdlines_in);
	}
	return ret;
}

/* Compression name and version after the fixed header, then the first options offset. */
/* The compression named in the fixed header: one the own reader inflates? */
static int v7_compression(struct v7 *v, uint64_t *first)
{
	struct td_file *f = v->f;
	const char *name = f->comp;
	int alg;

	alg = !strcmp(name, "none") || !name[0] ? HS_TD_Z_NONE :
	      !strcmp(name, "zstd") ? HS_TD_Z_ZSTD : !strcmp(name, "zlib") ? HS_TD_Z_ZLIB : -1;
	if (alg < 0 && hs_td_v7_fallback)
		return HS_TD_V7_FALLBACK;
	if (alg < 0)
		return hs_error_set(f->err, HS_ERR_INPUT,
				    "unsupported trace.dat compression \"%.20s\"", name);
	if (!name[0])
		snprintf(f->comp, sizeof(f->comp), "none");
	if (hs_td_inflater_set(f->z, alg))
		return hs_error_set(f->err, HS_ERR_RUNTIME, "out of memory");
	*first = f->first_options;
	v7_end(v, f->pos);
	return 0;
}

/* Everything up to the CPU data: header, options, the metadata sections, the buffers. */
static int v7_parse(struct v7 *v)
{
	uint64_t first = 0;
	int ret = hs_td_fixed_header(v->f);

	if (!ret)
		ret = v7_compression(v, &first);
	if (!ret)
		ret = v7_options(v, first);
	if (!ret) {
		hs_ev_tep_lock();
		ret = v7_meta_sections(v);
		hs_ev_tep_unlock();
	}
	if (!ret)
		ret = v7_buffers(v);
	return ret;
}

/* kbuffer (libtracecmd) reads as far as an uncompressed page's commit says. */
static int v7_check_pages(struct v7 *v)
{
	const struct td_file *f = v->f;
	uint64_t hdr = 8 + (uint64_t)f->long_size;

	for (int i = 0; i < f->nbufs; i++) {
		const struct td_buf *b = &f->bufs[i];

		for (int c = 0; c < f->ncpus && !b->chunks; c++) {
			for (uint64_t p = 0; p < b->size[c]; p += f->page_size) {
				uint64_t avail = b->size[c] - p < f->page_size ? b->size[c] - p :
										f->page_size;
				const unsigned char *pg = f->buf + b->off[c] + p;

				if (avail < hdr || (hs_td_get(f, pg + 8, f->long_size) &
						    HS_RB_COMMIT_MASK) > avail - hdr)
					return v7_corrupt(v, "ring-buffer page", b->off[c] + p);
			}
		}
	}
	return 0;
}

static void v7_free(struct v7 *v)
{
	hs_td_file_free(v->f);
	for (int i = 0; i < v->nowned; i++)
		free(v->owned[i]);
	free(v->owned);
}

int hs_td_v7_read(const unsigned char *buf, size_t len, int fd, struct hs_sink *sink,
		  struct hs_td_share *share, struct hs_error *err)
{
	struct td_file f = { .buf = buf, .len = len, .err = err, .version = 7 };
	struct v7 v = { .f = &f, .file = buf, .flen = len };
	int ret;

	f.tep = tep_alloc();
	f.z = hs_td_inflater_alloc(fd);
	if (!f.tep || !f.z)
		ret = hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	else
		ret = v7_parse(&v);
	if (!ret) {
		hs_td_inflater_share(f.z, share);
		hs_td_inflater_streams(f.z, (unsigned int)(f.ncpus * f.nbufs));
		ret = hs_td_run(&f, fd, sink);
	}
	v7_free(&v);
	return ret;
}

int hs_td_v7_check(const unsigned char *buf, size_t len, struct hs_error *err)
{
	struct td_file f = { .buf = buf, .len = len, .err = err, .version = 7 };
	struct v7 v = { .f = &f, .file = buf, .flen = len, .walk_chunks = true };
	int ret;

	f.tep = tep_alloc();
	f.z = hs_td_inflater_alloc(-1);
	if (!f.tep || !f.z)
		ret = hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	else
		ret = v7_parse(&v);
	if (!ret)
		ret = v7_check_pages(&v);
	v7_free(&v);
	return ret;
}
