// SPDX-License-Identifier: GPL-2.0-only
/*
 * Checks of a trace.dat v7 before libtracecmd sees it. libtracecmd 1.3
 * trusts the sizes in the file: a section or a compressed chunk that claims
 * gigabytes is allocated as claimed (found by tests/fuzz/fuzz_tracedat_v7).
 * Here every section that the options point to, and every compressed chunk
 * of the per-CPU data, is checked against the file size and a ceiling on
 * what it may inflate to, from the mapped bytes, before any allocation.
 *
 * Layout (trace-cmd.dat.v7(5)): after the fixed header, the offset of the
 * first options section. A section: id (2), flags (2, bit 0 compressed),
 * string id (4), size (8); a compressed section starts with its compressed
 * and uncompressed sizes (4 + 4). Options: id (2), size (4), data; DONE
 * (id 0) holds the offset of the next options section.
 */
#include <stdio.h>
#include <string.h>

#include "tracedat_internal.h"

#define TC_SEC_HDR 16
#define TC_FL_COMPRESS 1
#define TC_MAX_SECTIONS 256
#define TC_MAX_INFLATE (256ull << 20)	/* one section or chunk, uncompressed */

enum {
	TC_OPT_DONE = 0, TC_OPT_BUFFER = 3, TC_OPT_HEADER_INFO = 16, TC_OPT_CMDLINES = 21,
	TC_OPT_BUFFER_TEXT = 22,
};

struct tc_file {
	const unsigned char *buf;
	size_t len;
	bool big, compressed;
	unsigned int long_size;
	uint64_t page_size;
	unsigned int nsections;
	struct hs_error *err;
};

static uint64_t tc_get(const struct tc_file *f, size_t off, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = (v << 8) | f->buf[off + (f->big ? i : n - 1 - i)];
	return v;
}

static int tc_bad(const struct tc_file *f, const char *what, uint64_t off)
{
	return hs_error_set(f->err, HS_ERR_INPUT,
			    "corrupt or truncated trace.dat v7: %s at offset %llu (file of %zu bytes)",
			    what, (unsigned long long)off, f->len);
}

static bool tc_fits(const struct tc_file *f, uint64_t off, uint64_t n)
{
	return off <= f->len && n <= f->len - off;
}

/* A section header at off; *data, *size: its payload in the file. */
static int tc_section(struct tc_file *f, uint64_t off, uint64_t *data, uint64_t *size,
		      bool *comp)
{
	if (++f->nsections > TC_MAX_SECTIONS)
		return tc_bad(f, "too many sections", off);
	if (!tc_fits(f, off, TC_SEC_HDR))
		return tc_bad(f, "section header", off);
	*size = tc_get(f, off + 8, 8);
	*data = off + TC_SEC_HDR;
	*comp = tc_get(f, off + 2, 2) & TC_FL_COMPRESS;
	if (!tc_fits(f, *data, *size))
		return tc_bad(f, "section size", off);
	if (*comp && !f->compressed)
		return tc_bad(f, "compressed section in an uncompressed file", off);
	return 0;
}

/* A compressed block: compressed size (4), uncompressed size (4), data. */
static int tc_block(struct tc_file *f, uint64_t off, uint64_t room, uint64_t *used)
{
	uint64_t c, u;

	if (room < 8)
		return tc_bad(f, "compression header", off);
	c = tc_get(f, off, 4);
	u = tc_get(f, off + 4, 4);
	if (c > room - 8 || u > TC_MAX_INFLATE)
		return tc_bad(f, "compressed block size", off);
	*used = 8 + c;
	return 0;
}

static int tc_plain_section(struct tc_file *f, uint64_t off)
{
	uint64_t data, size, used;
	bool comp;
	int ret = tc_section(f, off, &data, &size, &comp);

	if (!ret && comp)
		ret = tc_block(f, data, size, &used);
	return ret;
}

/*
 * Uncompressed ring-buffer pages: kbuffer (libtraceevent) reads as many
 * bytes as a page header's commit says (a segfault past the page with a
 * hostile one, found by tests/fuzz/fuzz_tracedat_v7). The pages of a
 * compressed file are only seen inflated, inside libtracecmd.
 */
static int tc_pages(struct tc_file *f, uint64_t off, uint64_t size)
{
	uint64_t hdr = 8 + f->long_size;

	for (uint64_t p = 0; p < size; p += f->page_size) {
		uint64_t avail = size - p < f->page_size ? size - p : f->page_size;

		if (avail < hdr ||
		    (tc_get(f, off + p + 8, f->long_size) & ((1ull << 27) - 1)) > avail - hdr)
			return tc_bad(f, "ring-buffer page", off + p);
	}
	return 0;
}

/*
 * One CPU's flyrecord data. Compressed: a chunk count (4), then the chunks;
 * the size in the BUFFER option does not count the chunk count.
 */
static int tc_cpu_data(struct tc_file *f, uint64_t off, uint64_t size)
{
	uint64_t n, used, pos, end;

	if (!f->compressed) {
		if (!tc_fits(f, off, size))
			return tc_bad(f, "CPU data", off);
		return tc_pages(f, off, size);
	}
	if (!size)
		return 0;
	if (size > f->len || !tc_fits(f, off, 4 + size))
		return tc_bad(f, "CPU data", off);
	n = tc_get(f, off, 4);
	if (n > size / 8)
		return tc_bad(f, "CPU data chunk count", off);
	end = off + 4 + size;
	for (pos = off + 4; n--; pos += used)
		if (tc_block(f, pos, end - pos, &used))
			return -1;
	return 0;
}

/* BUFFER: section offset (8), name, clock, [page size (4)], CPU count (4), per CPU id, offset, size. */
static int tc_buffer(struct tc_file *f, uint64_t p, uint64_t end)
{
	uint64_t sec = tc_get(f, p, 8), data, size, ncpu;
	const unsigned char *nul;
	bool comp;

	if (tc_section(f, sec, &data, &size, &comp))
		return -1;
	p += 8;
	for (int s = 0; s < 2; s++) {
		nul = p < end ? memchr(f->buf + p, '\0', end - p) : NULL;
		if (!nul)
			return tc_bad(f, "BUFFER option", p);
		p = (uint64_t)(nul - f->buf) + 1;
	}
	/* trace-cmd 3.1 writes the page size (4) before the CPU count */
	if (end - p >= 4 && (ncpu = tc_get(f, p, 4)) <= HS_TD_MAXCPUS &&
	    ncpu * 20 == end - p - 4)
		p += 4;
	else if (end - p >= 8 && (ncpu = tc_get(f, p + 4, 4)) <= HS_TD_MAXCPUS &&
		 ncpu * 20 == end - p - 8)
		p += 8;
	else
		return tc_bad(f, "BUFFER option CPU count", p);
	for (uint64_t c = 0; c < ncpu; c++, p += 20)
		if (tc_cpu_data(f, tc_get(f, p + 4, 8), tc_get(f, p + 12, 8)))
			return -1;
	return 0;
}

static int tc_option(struct tc_file *f, unsigned int id, uint64_t p, uint64_t n,
		     uint64_t *next)
{
	if (id == TC_OPT_DONE) {
		if (n < 8)
			return tc_bad(f, "DONE option", p);
		*next = tc_get(f, p, 8);
		return 0;
	}
	if (id == TC_OPT_BUFFER)
		return n < 8 ? tc_bad(f, "BUFFER option", p) : tc_buffer(f, p, p + n);
	if (id == TC_OPT_BUFFER_TEXT)
		return n < 8 ? tc_bad(f, "BUFFER_TEXT option", p) :
			       tc_plain_section(f, tc_get(f, p, 8));
	if (id >= TC_OPT_HEADER_INFO && id <= TC_OPT_CMDLINES)
		return n < 8 ? tc_bad(f, "section option", p) :
			       tc_plain_section(f, tc_get(f, p, 8));
	return 0;
}

/* One options section; *next: the following one, 0 at the end. */
static int tc_options(struct tc_file *f, uint64_t off, uint64_t *next)
{
	uint64_t data, size, p, end, used;
	bool comp;

	*next = 0;
	if (tc_section(f, off, &data, &size, &comp))
		return -1;
	if (comp)	/* its content cannot be seen without inflating it */
		return tc_block(f, data, size, &used);
	for (p = data, end = data + size; p < end;) {
		unsigned int id;
		uint64_t n;

		if (end - p < 6)
			return tc_bad(f, "option header", p);
		id = (unsigned int)tc_get(f, p, 2);
		n = tc_get(f, p + 2, 4);
		p += 6;
		if (n > end - p)
			return tc_bad(f, "option size", p - 6);
		if (tc_option(f, id, p, n, next))
			return -1;
		p += n;
		if (id == TC_OPT_DONE)
			break;
	}
	return 0;
}

int hs_tc_check_sections(const unsigned char *buf, size_t len, struct hs_error *err)
{
	struct tc_file f = { .buf = buf, .len = len, .err = err };
	struct hs_td_head h;
	uint64_t off;

	if (hs_td_head_parse(buf, len, &h, err))
		return err ? err->code : HS_ERR_INPUT;
	f.big = h.big;
	f.long_size = (unsigned int)h.long_size;
	f.page_size = h.page_size;
	f.compressed = h.comp[0] && strcmp(h.comp, "none") != 0;
	for (off = h.first_options; off;)
		if (tc_options(&f, off, &off))
			return f.err ? f.err->code : HS_ERR_INPUT;
	return 0;
}
