// SPDX-License-Identifier: GPL-2.0-only
/*
 * The structure of a trace.dat: bounded reads from the mapped bytes (every
 * length and offset checked against the file size before use), the fixed
 * header, header page, event formats (libtraceevent parses only the ones
 * lib/evdecode.h decodes, from a checked copy), options, and the v6 layout
 * (flyrecord per-CPU offsets and sizes, buffer instances). The v7 parser
 * (tracedat_v7.c) uses the same pieces for its sections.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "recmeta.h"
#include "tracedat_file.h"

/* ---- bounded reads ---- */

int hs_td_trunc(struct td_file *f, const char *what)
{
	/* sections were checked against the file: this one contradicts itself */
	if (f->sect)
		return hs_error_set(f->err, HS_ERR_INPUT,
				    "corrupt trace.dat: %s at offset %zu of the %s section runs past its end (%zu bytes)",
				    what, f->pos, f->sect, f->len);
	return hs_error_set(f->err, HS_ERR_INPUT,
			    "truncated trace.dat: %s at offset %zu runs past the end of the file (%zu bytes)",
			    what, f->pos, f->len);
}

bool hs_td_has(const struct td_file *f, uint64_t n)
{
	return f->pos <= f->len && n <= f->len - f->pos;
}

int hs_td_num(struct td_file *f, int n, uint64_t *v, const char *what)
{
	if (!hs_td_has(f, n))
		return hs_td_trunc(f, what);
	*v = hs_td_get(f, f->buf + f->pos, n);
	f->pos += n;
	return 0;
}

/* A length-prefixed blob: sets *off to where it starts and skips it. */
int hs_td_blob(struct td_file *f, int nlen, size_t *off, size_t *len, const char *what)
{
	uint64_t n = 0;
	int ret = hs_td_num(f, nlen, &n, what);

	if (ret)
		return ret;
	if (!hs_td_has(f, n))
		return hs_td_trunc(f, what);
	*off = f->pos;
	*len = n;
	f->pos += n;
	return 0;
}

static int td_str(struct td_file *f, const char **s, const char *what)
{
	const unsigned char *nul;

	if (f->pos >= f->len || !(nul = memchr(f->buf + f->pos, '\0', f->len - f->pos)))
		return hs_td_trunc(f, what);
	*s = (const char *)f->buf + f->pos;
	f->pos = nul - f->buf + 1;
	return 0;
}

static int td_tag(struct td_file *f, const char *tag, size_t n, const char *what)
{
	if (!hs_td_has(f, n))
		return hs_td_trunc(f, what);
	if (memcmp(f->buf + f->pos, tag, n))
		return hs_error_set(f->err, HS_ERR_INPUT,
				    "corrupt trace.dat: expected \"%s\" at offset %zu", what, f->pos);
	f->pos += n;
	return 0;
}

/* ---- header ---- */

int hs_td_header_page(struct td_file *f)
{
	size_t off, len;
	char *copy;
	int ret;

	ret = td_tag(f, "header_page", 12, "header_page");
	if (!ret)
		ret = hs_td_blob(f, 8, &off, &len, "header_page");
	if (ret)
		return ret;
	copy = malloc(len + 1);
	if (!copy)
		return hs_error_set(f->err, HS_ERR_RUNTIME, "out of memory");
	memcpy(copy, f->buf + off, len);
	copy[len] = '\0';
	ret = tep_parse_header_page(f->tep, copy, len, f->long_size);
	free(copy);
	if (ret)
		return hs_error_set(f->err, HS_ERR_INPUT,
				    "corrupt trace.dat: unreadable header_page at offset %zu", off);
	ret = td_tag(f, "header_event", 13, "header_event");
	if (!ret)
		ret = hs_td_blob(f, 8, &off, &len, "header_event");
	return ret;
}

/* The formats the readers decode (lib/evdecode.h): the rest is never parsed. */
static bool td_wanted(const char *sys, const unsigned char *fmt, size_t len)
{
	const unsigned char *nl;
	int kind;

	if (len < 6 || memcmp(fmt, "name: ", 6))
		return false;
	nl = memchr(fmt, '\n', len);
	kind = hs_ev_kind_of(sys, (const char *)fmt + 6, (nl ? (size_t)(nl - fmt) : len) - 6);
	return kind && HS_TD_READ_KINDS & HS_EV_MASK(kind);
}

/* libtraceevent gets a checked copy (hs_td_format_clean), never the file's bytes. */
static int td_parse_event(struct td_file *f, size_t off, size_t len, const char *sys)
{
	size_t cap = len + 64, n;
	char *copy = malloc(cap);
	int ret = -1;

	if (!copy)
		return -1;
	n = hs_td_format_clean((const char *)f->buf + off, len, copy, cap);
	if (n)
		ret = tep_parse_event(f->tep, copy, n, sys) ? -1 : 0;
	free(copy);
	return ret;
}

int hs_td_ftrace_formats(struct td_file *f)
{
	uint64_t n = 0;
	size_t off = 0, len = 0;
	int ret;

	ret = hs_td_num(f, 4, &n, "ftrace format count");
	for (uint64_t i = 0; !ret && i < n; i++) {
		ret = hs_td_blob(f, 8, &off, &len, "ftrace event format");
		/* an unreadable print format only costs the notes */
		if (!ret && td_wanted("ftrace", f->buf + off, len))
			td_parse_event(f, off, len, "ftrace");
	}
	return ret;
}

int hs_td_event_formats(struct td_file *f)
{
	uint64_t nsys, nev;
	size_t off, len;
	int ret;

	ret = hs_td_num(f, 4, &nsys, "event system count");
	for (uint64_t s = 0; !ret && s < nsys; s++) {
		const char *sys = "";

		ret = td_str(f, &sys, "event system name");
		if (!ret)
			ret = hs_td_num(f, 4, &nev, "event count");
		for (uint64_t e = 0; !ret && e < nev; e++) {
			ret = hs_td_blob(f, 8, &off, &len, "event format");
			if (ret || !td_wanted(sys, f->buf + off, len))
				continue;
			if (td_parse_event(f, off, len, sys))
				return hs_error_set(f->err, HS_ERR_INPUT,
						    "corrupt trace.dat: unreadable %s event format at offset %zu",
						    sys, off);
		}
	}
	return ret;
}

static int td_cpustat_add(struct td_file *f, const unsigned char *p, size_t n)
{
	char *c = realloc(f->cpustat, f->cpustat_len + n + 1);

	if (!c)
		return hs_error_set(f->err, HS_ERR_RUNTIME, "out of memory");
	memcpy(c + f->cpustat_len, p, n);
	f->cpustat_len += n;
	c[f->cpustat_len++] = '\n';
	f->cpustat = c;
	return 0;
}

/* "[local] global counter" -> "local"; a bare name is taken as is */
void hs_td_clock(char *dst, size_t size, const unsigned char *p, size_t n)
{
	const unsigned char *b = memchr(p, '[', n), *e;
	size_t len;

	if (b && (e = memchr(b, ']', n - (b - p)))) {
		p = b + 1;
		n = e - p;
	}
	for (len = 0; len < n && p[len] > ' ' && p[len] < 0x7f; len++)
		;
	if (!len || len >= size)
		return;
	memcpy(dst, p, len);
	dst[len] = '\0';
}

enum { TD_OPT_DONE, TD_OPT_DATE, TD_OPT_CPUSTAT, TD_OPT_BUFFER, TD_OPT_TRACECLOCK,
       TD_OPT_UNAME };

int hs_td_option(struct td_file *f, unsigned int id, size_t off, size_t len)
{
	const unsigned char *p = f->buf + off;

	switch (id) {
	case TD_OPT_CPUSTAT:
		return td_cpustat_add(f, p, len);
	case TD_OPT_TRACECLOCK:
		hs_td_clock(f->clock, sizeof(f->clock), p, len);
		return 0;
	case TD_OPT_UNAME:
		f->uname = (const char *)p;
		f->uname_len = len;
		return 0;
	}
	return 0;
}

static int td_option(struct td_file *f, unsigned int id, size_t off, size_t len)
{
	const unsigned char *p = f->buf + off;

	switch (id) {
	case TD_OPT_BUFFER:
		if (len < 9 || !memchr(p + 8, '\0', len - 8))
			return hs_error_set(f->err, HS_ERR_INPUT,
					    "corrupt trace.dat: bad BUFFER option at offset %zu", off);
		if (f->nbufs >= TD_MAXBUFS)
			return 0;
		f->buf_opt[f->nbufs] = hs_td_get(f, p, 8);
		snprintf(f->bufs[f->nbufs].name, HS_META_STR, "%s", (const char *)p + 8);
		f->nbufs++;
		return 0;
	}
	return hs_td_option(f, id, off, len);
}

static int td_options(struct td_file *f)
{
	for (;;) {
		uint64_t id;
		size_t off, len;
		int ret = hs_td_num(f, 2, &id, "option id");

		if (ret || id == TD_OPT_DONE)
			return ret;
		ret = hs_td_blob(f, 4, &off, &len, "option");
		if (!ret)
			ret = td_option(f, (unsigned int)id, off, len);
		if (ret)
			return ret;
	}
}

/* Two CPUs reading the same pages would count every event twice. */
int hs_td_overlap(struct td_file *f, const struct td_buf *b)
{
	for (int c = 1; c < f->ncpus; c++)
		for (int o = 0; o < c && b->size[c]; o++)
			if (b->size[o] && b->off[c] < b->off[o] + b->size[o] &&
			    b->off[o] < b->off[c] + b->size[c])
				return hs_error_set(f->err, HS_ERR_INPUT,
						    "corrupt trace.dat: CPU %d data (offset %llu) overlaps CPU %d data (offset %llu)",
						    c, (unsigned long long)b->off[c], o,
						    (unsigned long long)b->off[o]);
	return 0;
}

int hs_td_buf_alloc(struct td_file *f, struct td_buf *b)
{
	b->off = calloc(f->ncpus ? f->ncpus : 1, sizeof(uint64_t));
	b->size = calloc(f->ncpus ? f->ncpus : 1, sizeof(uint64_t));
	if (!b->off || !b->size)
		return hs_error_set(f->err, HS_ERR_RUNTIME, "out of memory");
	return 0;
}

/* "flyrecord\0", per CPU offset and size, then (trace-cmd) the clock */
static int td_flyrecord(struct td_file *f, struct td_buf *b)
{
	int ret = hs_td_buf_alloc(f, b);

	if (!ret)
		ret = td_tag(f, "flyrecord", 10, "flyrecord");
	for (int c = 0; !ret && c < f->ncpus; c++) {
		ret = hs_td_num(f, 8, &b->off[c], "CPU data offset");
		if (!ret)
			ret = hs_td_num(f, 8, &b->size[c], "CPU data size");
		if (!ret && (b->off[c] > f->len || b->size[c] > f->len - b->off[c]))
			return hs_error_set(f->err, HS_ERR_INPUT,
					    "truncated trace.dat: CPU %d data (offset %llu, %llu bytes) runs past the end of the file (%zu bytes)",
					    c, (unsigned long long)b->off[c],
					    (unsigned long long)b->size[c], f->len);
	}
	if (!ret)
		ret = hs_td_overlap(f, b);
	if (!ret && !f->clock[0] && hs_td_has(f, 8)) {
		uint64_t n = hs_td_get(f, f->buf + f->pos, 8);

		if (n > 0 && n < 64 && hs_td_has(f, 8 + n))
			hs_td_clock(f->clock, sizeof(f->clock), f->buf + f->pos + 8, n);
	}
	return ret;
}

static int td_rest(struct td_file *f)
{
	size_t off = 0, len;
	uint64_t n;
	int ret;

	ret = hs_td_blob(f, 4, &off, &len, "kallsyms");
	if (!ret)
		ret = hs_td_blob(f, 4, &off, &len, "printk formats");
	if (!ret)
		ret = hs_td_blob(f, 8, &off, &f->cmd_len, "saved cmdlines");
	if (!ret) {
		f->cmd = (const char *)f->buf + off;
		ret = hs_td_num(f, 4, &n, "CPU count");
	}
	if (ret)
		return ret;
	if (n > HS_TD_MAXCPUS)
		return hs_error_set(f->err, HS_ERR_INPUT,
				    "corrupt trace.dat: %llu CPUs", (unsigned long long)n);
	f->ncpus = (int)n;
	if (hs_td_has(f, 10) && !memcmp(f->buf + f->pos, "options  ", 10)) {
		f->pos += 10;
		ret = td_options(f);
		if (ret)
			return ret;
	}
	if (hs_td_has(f, 10) && !memcmp(f->buf + f->pos, "latency  ", 10))
		return hs_error_set(f->err, HS_ERR_INPUT,
				    "unsupported trace.dat: latency-tracer data, not per-CPU event buffers");
	return 0;
}

static const unsigned char td_magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

static int td_head_trunc(struct hs_error *err, const char *what, size_t pos, size_t len)
{
	return hs_error_set(err, HS_ERR_INPUT,
			    "truncated trace.dat: %s at offset %zu runs past the end of the file (%zu bytes)",
			    what, pos, len);
}

static uint64_t td_head_num(const unsigned char *p, int n, bool big)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = (v << 8) | p[big ? i : n - 1 - i];
	return v;
}

/* v7: the compression's name and version, NUL-terminated strings, then the first options offset. */
static int td_head_v7(const unsigned char *buf, size_t len, struct hs_td_head *h,
		      struct hs_error *err)
{
	size_t pos = 18;

	for (int s = 0; s < 2; s++) {
		const unsigned char *nul = pos < len ? memchr(buf + pos, '\0', len - pos) : NULL;

		if (!nul)
			return td_head_trunc(err, s ? "compression version" : "compression name", pos,
					     len);
		if (s == 0)
			snprintf(h->comp, sizeof(h->comp), "%.*s", (int)(nul - (buf + pos)),
				 (const char *)buf + pos);
		pos = (size_t)(nul - buf) + 1;
	}
	if (len - pos < 8)
		return td_head_trunc(err, "first options offset", pos, len);
	h->first_options = td_head_num(buf + pos, 8, h->big);
	h->end = pos + 8;
	return 0;
}

int hs_td_head_parse(const unsigned char *buf, size_t len, struct hs_td_head *h,
		     struct hs_error *err)
{
	size_t i;

	memset(h, 0, sizeof(*h));
	if (len < sizeof(td_magic) || memcmp(buf, td_magic, sizeof(td_magic)))
		return hs_error_set(err, HS_ERR_INPUT, "not a trace.dat file");
	for (i = 0; i + 10 < len && i < sizeof(h->version) - 1 && buf[10 + i]; i++)
		h->version[i] = buf[10 + i] < ' ' || buf[10 + i] > '~' ? '?' : (char)buf[10 + i];
	if (i + 10 >= len)
		return td_head_trunc(err, "file header", 10, len);
	if (strcmp(h->version, "6") && strcmp(h->version, "7"))
		return 0;
	if (len < 18)
		return td_head_trunc(err, "file header", 12, len);
	if (buf[12] > 1 || (buf[13] != 4 && buf[13] != 8))
		return hs_error_set(err, HS_ERR_INPUT,
				    "corrupt trace.dat: endianness %u, long size %u", buf[12], buf[13]);
	h->big = buf[12] == 1;
	h->long_size = buf[13];
	h->page_size = (uint32_t)td_head_num(buf + 14, 4, h->big);
	if (h->page_size < 64 || h->page_size > (64u << 20) || (h->page_size & (h->page_size - 1)))
		return hs_error_set(err, HS_ERR_INPUT, "corrupt trace.dat: page size %u",
				    h->page_size);
	h->end = 18;
	return h->version[0] == '7' ? td_head_v7(buf, len, h, err) : 0;
}

bool hs_td_head_own_reader(const struct hs_td_head *h)
{
	const char *c = h->comp;

	return !strcmp(h->version, "6") ||
	       (!strcmp(h->version, "7") &&
		(!c[0] || !strcmp(c, "none") || !strcmp(c, "zstd") || !strcmp(c, "zlib")));
}

int hs_td_fixed_header(struct td_file *f)
{
	struct hs_td_head h;
	int ret = hs_td_head_parse(f->buf, f->len, &h, f->err);

	if (ret)
		return ret;
	f->big = h.big;
	f->swap = f->big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	f->long_size = h.long_size;
	f->page_size = h.page_size;
	f->pos = h.end;
	snprintf(f->comp, sizeof(f->comp), "%s", h.comp);
	f->first_options = h.first_options;
	tep_set_file_bigendian(f->tep, f->big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(f->tep, f->long_size);
	tep_set_page_size(f->tep, f->page_size);
	return 0;
}

static int td_header(struct td_file *f)
{
	int ret = hs_td_fixed_header(f);

	if (!ret)
		ret = hs_td_header_page(f);
	if (!ret)
		ret = hs_td_ftrace_formats(f);
	if (!ret)
		ret = hs_td_event_formats(f);
	if (!ret)
		ret = td_rest(f);
	return ret;
}

/* Top buffer after the options, instances where their BUFFER option points. */
static int td_buffers(struct td_file *f)
{
	int ninst = f->nbufs, ret;

	/* make room for the top buffer at [0] */
	memmove(&f->bufs[1], &f->bufs[0], sizeof(f->bufs[0]) * (TD_MAXBUFS - 1));
	memmove(&f->buf_opt[1], &f->buf_opt[0], sizeof(f->buf_opt[0]) * (TD_MAXBUFS - 1));
	ninst = ninst > TD_MAXBUFS - 1 ? TD_MAXBUFS - 1 : ninst;
	memset(&f->bufs[0], 0, sizeof(f->bufs[0]));
	f->nbufs = 1 + ninst;
	ret = td_flyrecord(f, &f->bufs[0]);
	for (int i = 1; !ret && i < f->nbufs; i++) {
		if (f->buf_opt[i] > f->len) {
			f->pos = f->len;
			return hs_error_set(f->err, HS_ERR_INPUT,
					    "truncated trace.dat: buffer \"%s\" at offset %llu is past the end of the file (%zu bytes)",
					    f->bufs[i].name, (unsigned long long)f->buf_opt[i], f->len);
		}
		f->pos = f->buf_opt[i];
		ret = td_flyrecord(f, &f->bufs[i]);
	}
	return ret;
}

void hs_td_file_free(struct td_file *f)
{
	for (int i = 0; i < TD_MAXBUFS; i++) {
		free(f->bufs[i].off);
		free(f->bufs[i].size);
		free(f->bufs[i].chunks);
	}
	free(f->cpustat);
	hs_td_inflater_free(f->z);
	if (f->tep)
		tep_free(f->tep);
}

/* v6: the end of the last CPU's pages (v7 sets f->data_end as it parses). */
static void td_data_end(struct td_file *f)
{
	f->data_end = f->pos;
	for (int i = 0; i < f->nbufs; i++)
		for (int c = 0; c < f->ncpus; c++)
			if (f->bufs[i].size[c] && f->bufs[i].off[c] + f->bufs[i].size[c] > f->data_end)
				f->data_end = f->bufs[i].off[c] + f->bufs[i].size[c];
}

int hs_td_v6_parse(struct td_file *f)
{
	int ret;

	hs_ev_tep_lock();
	ret = td_header(f);
	hs_ev_tep_unlock();
	if (!ret)
		ret = td_buffers(f);
	if (!ret)
		td_data_end(f);
	return ret;
}
