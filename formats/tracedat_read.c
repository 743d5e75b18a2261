// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.dat reader. Version 6 (haltstat's own files, trace-cmd --file-version 6)
 * is parsed here from the mapped bytes: every length and offset is checked
 * against the file size before use, libtraceevent only parses the header
 * page and the formats of the 4 events haltstat uses, and the ring-buffer
 * pages are decoded here (no per-event allocation). Version 7 is parsed in
 * tracedat_v7.c into the same struct td_file and decoded here too; a v7 file
 * compressed with an algorithm we do not link goes through libtracecmd
 * (tracecmd_read.c). Compressed per-CPU data is inflated one chunk at a
 * time into the CPU's window (td_at), never whole.
 *
 * Losses: every page's missed-events flag is reported where it happened
 * (a stored count, or "unknown"). The per-CPU kernel stats (haltstat
 * trailer lost.cpuN, else CPUSTAT overrun + dropped) may count more than
 * the pages carry (overwritten pages leave no mark); per CPU the total
 * reported is max(sum of page counts, stats count): the difference is
 * reported before the first event, where overwrite losses happen.
 *
 * Given the file descriptor, the ring-buffer pages are read with pread()
 * into one bounded window per CPU instead of through the mapping: the
 * memory used stays the same whatever the file size, and the pages are
 * copied from the page cache without a page fault per 64 KiB (expensive
 * in virtual machines). Only the header and the trailer are read mapped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "input.h"
#include "tracedat_file.h"

#define TD_MISSED_EVENTS (1ULL << 31)
#define TD_MISSED_STORED (1ULL << 30)
#define TD_COMMIT_MASK ((1ULL << 27) - 1)
#define TD_TS_MSB (0xf8ULL << 56)

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

uint64_t hs_td_get(const struct td_file *f, const unsigned char *p, int n)
{
	uint64_t v = 0;

	if (f->big)
		for (int i = 0; i < n; i++)
			v = (v << 8) | p[i];
	else
		for (int i = n - 1; i >= 0; i--)
			v = (v << 8) | p[i];
	return v;
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
	uint64_t n;
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

static bool td_wanted(const char *sys, const unsigned char *fmt, size_t len)
{
	static const char *const names[] = {
		"kvm_vcpu_wakeup", "kvm_halt_poll_ns", "cpu_idle", "guest_halt_poll_ns",
	};
	const unsigned char *nl;
	size_t n;

	if (strcmp(sys, "kvm") && strcmp(sys, "power"))
		return false;
	if (len < 6 || memcmp(fmt, "name: ", 6))
		return false;
	nl = memchr(fmt, '\n', len);
	n = (nl ? (size_t)(nl - fmt) : len) - 6;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (n == strlen(names[i]) && !memcmp(fmt + 6, names[i], n))
			return true;
	return false;
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

static int td_ftrace_formats(struct td_file *f)
{
	uint64_t n;
	size_t off, len;
	int ret;

	ret = hs_td_num(f, 4, &n, "ftrace format count");
	for (uint64_t i = 0; !ret && i < n; i++)
		ret = hs_td_blob(f, 8, &off, &len, "ftrace event format");
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

int hs_td_fixed_header(struct td_file *f)
{
	uint64_t v;
	int ret;

	/* magic (10) and the version were checked by the caller */
	f->pos = 12;
	if (!hs_td_has(f, 6))
		return hs_td_trunc(f, "file header");
	if (f->buf[12] > 1 || (f->buf[13] != 4 && f->buf[13] != 8))
		return hs_error_set(f->err, HS_ERR_INPUT,
				    "corrupt trace.dat: endianness %u, long size %u",
				    f->buf[12], f->buf[13]);
	f->big = f->buf[12] == 1;
	f->swap = f->big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	f->long_size = f->buf[13];
	f->pos = 14;
	ret = hs_td_num(f, 4, &v, "page size");
	if (ret)
		return ret;
	if (v < 64 || v > (64u << 20) || (v & (v - 1)))
		return hs_error_set(f->err, HS_ERR_INPUT,
				    "corrupt trace.dat: page size %llu", (unsigned long long)v);
	f->page_size = (uint32_t)v;
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
		ret = td_ftrace_formats(f);
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

/* ---- ring-buffer pages ---- */

struct td_cur {
	const unsigned char *data;	/* this CPU's pages, when in memory */
	uint64_t foff;			/* their offset in the file */
	const struct td_chunks *ch;	/* or their compressed chunks */
	uint64_t zpos;			/* file offset of the next chunk header */
	uint32_t zleft;			/* chunks not inflated yet */
	unsigned char *win;		/* pread window (fd >= 0), win_len bytes */
	uint64_t win_off;		/* CPU-relative offset of win[0] */
	size_t win_len, win_cap;
	uint64_t size, page;		/* bytes, offset of the next page */
	const unsigned char *p, *end;	/* next record, end of the page's commit */
	uint64_t ts, last_ts;
	uint64_t lost;			/* known losses not reported yet */
	uint64_t lost_unknown;		/* pages that lost an unknown count */
	int cpu;
	struct hs_event ev;
};

struct td_dec {
	const struct td_file *f;
	struct hs_meta *meta;
	unsigned int hdr;		/* page header size */
	int fd;				/* pread the pages, or -1: they are in f->buf */
	size_t win_cap;			/* bytes per pread window */
	int io_err;			/* errno of a failed pread */
	bool z_err;			/* a chunk did not inflate */
	const struct hs_td_sink *drop;	/* sink that tells events to drop, or NULL */
	struct hs_event_tally tally;	/* the events dropped */
};

static inline uint32_t td_u32(const struct td_dec *d, const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return d->f->swap ? __builtin_bswap32(v) : v;
}

static uint64_t td_long(const struct td_dec *d, const unsigned char *p)
{
	return hs_td_get(d->f, p, d->f->long_size);
}

/*
 * The same from compressed chunks: inflates the following chunks into the
 * window, keeping the part from off on of what it held. A read from before
 * the window starts the CPU's chunks again.
 */
static const unsigned char *td_chunk_at(struct td_dec *d, struct td_cur *c, uint64_t off,
					size_t n)
{
	uint64_t end = c->win_off + c->win_len;
	int r;

	if (off < c->win_off || !c->win) {
		c->zpos = c->ch->start;
		c->zleft = c->ch->count;
		c->win_off = c->win_len = 0;
		end = 0;
	}
	while (off + n > end) {
		if (off >= end) {
			c->win_off = end;
			c->win_len = 0;
		} else if (off > c->win_off) {
			memmove(c->win, c->win + (off - c->win_off), end - off);
			c->win_len = end - off;
			c->win_off = off;
		}
		r = hs_td_chunk_next(d->f, &c->zpos, &c->zleft, &c->win, &c->win_len, &c->win_cap);
		if (r <= 0) {
			d->z_err = true;
			return NULL;
		}
		end = c->win_off + c->win_len;
	}
	return c->win + (off - c->win_off);
}

/*
 * n bytes at CPU-relative offset off (n <= one page), or NULL on a read
 * error. Pages are used one at a time, so refilling the window moves
 * nothing that is still pointed to.
 */
static const unsigned char *td_at(struct td_dec *d, struct td_cur *c, uint64_t off, size_t n)
{
	size_t want;
	ssize_t got;

	if (c->ch)
		return td_chunk_at(d, c, off, n);
	if (d->fd < 0)
		return c->data + off;
	if (off >= c->win_off && off - c->win_off + n <= c->win_len)
		return c->win + (off - c->win_off);
	if (!c->win) {
		c->win = malloc(d->win_cap);
		if (!c->win) {
			d->io_err = ENOMEM;
			return NULL;
		}
	}
	want = c->size - off < d->win_cap ? (size_t)(c->size - off) : d->win_cap;
	c->win_off = off;
	c->win_len = 0;
	while (c->win_len < want) {
		got = pread(d->fd, c->win + c->win_len, want - c->win_len,
			    (off_t)(c->foff + off + c->win_len));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			d->io_err = got < 0 ? errno : EIO;
			return NULL;
		}
		c->win_len += (size_t)got;
	}
	return c->win;
}

/* Loads the next page with a plausible commit; false at the end. */
static bool td_page(struct td_dec *d, struct td_cur *c)
{
	uint64_t ps = d->f->page_size;

	while (c->page < c->size) {
		uint64_t avail = c->size - c->page < ps ? c->size - c->page : ps;
		const unsigned char *pg = td_at(d, c, c->page, avail);
		uint64_t flags, commit;

		if (!pg)
			return false;

		c->page += avail;
		if (avail < d->hdr) {
			d->meta->skipped_pages++;
			continue;
		}
		flags = td_long(d, pg + 8);
		commit = flags & TD_COMMIT_MASK;
		if (commit > avail - d->hdr) {
			d->meta->skipped_pages++;
			continue;
		}
		if (flags & TD_MISSED_EVENTS) {
			if ((flags & TD_MISSED_STORED) &&
			    commit + d->f->long_size <= avail - d->hdr)
				c->lost += td_long(d, pg + d->hdr + commit);
			else
				c->lost_unknown++;
		}
		c->ts = hs_td_get(d->f, pg, 8);
		c->p = pg + d->hdr;
		c->end = c->p + commit;
		return true;
	}
	return false;
}

/*
 * An event the sink only counts (another thread keeps its vCPU) is
 * counted here instead of going through the merge. It is clamped as the
 * merge would have, so the next kept event of this CPU is clamped the same.
 */
static bool td_dropped(struct td_dec *d, struct td_cur *c)
{
	struct hs_event_tally *t = &d->tally;
	uint64_t ts = c->ts;

	c->ev.cpu = c->cpu;
	if (d->drop->keeps(d->drop->priv, &c->ev))
		return false;
	if (ts < c->last_ts) {
		ts = c->last_ts;
		d->meta->clamped_ts++;
	}
	c->last_ts = ts;
	/* first_ts starts at UINT64_MAX, last_ts at 0 */
	t->first_ts = ts < t->first_ts ? ts : t->first_ts;
	t->last_ts = ts > t->last_ts ? ts : t->last_ts;
	t->count[c->ev.kind]++;
	return true;
}

/*
 * Advances to the next relevant event of this CPU (kbuffer-parse.c
 * semantics for record lengths and time stamps). 1: c->ev is set, 0: end.
 */
static int td_next(struct td_dec *d, struct td_cur *c)
{
	const bool big = d->f->big;

	for (;;) {
		while (c->p < c->end) {
			size_t room = c->end - c->p, plen;
			uint32_t h = td_u32(d, c->p), tl, delta;
			const unsigned char *pl;

			tl = big ? h >> 27 : h & 31;
			delta = big ? h & ((1u << 27) - 1) : h >> 5;
			if (tl >= 29) {
				if (tl == 29 && delta == 0)
					break;		/* padding to the end of the page */
				if (room < 8)
					goto bad;
				if (tl == 29) {
					plen = td_u32(d, c->p + 4);
					if (plen > room - 4)
						goto bad;
					c->ts += delta;
					c->p += 4 + plen;
					continue;
				}
				uint64_t ext = ((uint64_t)td_u32(d, c->p + 4) << 27) + delta;

				c->ts = tl == 30 ? c->ts + ext : ext | (c->ts & TD_TS_MSB);
				c->p += 8;
				continue;
			}
			if (tl == 0) {
				uint32_t l = room >= 8 ? td_u32(d, c->p + 4) : 0;

				if (l < 4)
					goto bad;
				plen = ((size_t)l - 4 + 3) & ~(size_t)3;
				pl = c->p + 8;
				if (plen > room - 8)
					goto bad;
			} else {
				plen = tl * 4;
				pl = c->p + 4;
				if (plen > room - 4)
					goto bad;
			}
			c->ts += delta;
			c->p = pl + plen;
			int r = hs_td_decode(&d->f->lay, pl, plen, &c->ev);

			if (r == -2)
				d->meta->skipped_events++;
			if (r == 0 && d->drop && td_dropped(d, c))
				r = -1;
			/*
			 * A page that lost events reports them at its first
			 * record, relevant or not (as libtracecmd does): kind 0
			 * marks a loss-only stop for the merge.
			 */
			if (r != 0 && (c->lost || c->lost_unknown))
				c->ev.kind = 0;
			if (r == 0 || c->lost || c->lost_unknown) {
				c->ev.ts = c->ts;
				c->ev.cpu = c->cpu;
				return 1;
			}
		}
		if (!td_page(d, c))
			return 0;
		continue;
bad:
		d->meta->skipped_pages++;
		c->p = c->end;
	}
}

/* ---- merge across CPUs ---- */

static bool td_before(const struct td_cur *a, const struct td_cur *b)
{
	return a->ev.ts < b->ev.ts || (a->ev.ts == b->ev.ts && a->cpu < b->cpu);
}

static void td_sift(struct td_cur **h, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, m = i;

		if (l < n && td_before(h[l], h[m]))
			m = l;
		if (l + 1 < n && td_before(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct td_cur *t = h[i];

		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void td_flush_lost(struct hs_td_sink *s, struct td_cur *c)
{
	if (c->lost)
		s->lost(s->priv, c->cpu, c->lost, true);
	for (; c->lost_unknown; c->lost_unknown--)
		s->lost(s->priv, c->cpu, 0, false);
	c->lost = 0;
}

static int td_merge(struct td_dec *d, struct td_cur **h, int n, struct hs_td_sink *s)
{
	for (int i = n / 2 - 1; i >= 0; i--)
		td_sift(h, n, i);
	while (n > 0) {
		struct td_cur *c = h[0];

		if (c->lost || c->lost_unknown)
			td_flush_lost(s, c);
		if (!c->ev.kind)
			goto next;
		if (c->ev.ts < c->last_ts) {
			c->ev.ts = c->last_ts;
			d->meta->clamped_ts++;
		}
		c->last_ts = c->ev.ts;
		if (s->event(s->priv, &c->ev))
			return -1;
next:
		if (!td_next(d, c)) {
			td_flush_lost(s, c);
			h[0] = h[--n];
			td_sift(h, n, 0);
		} else if (n > 1) {
			/* mostly the same CPU goes on: one compare with the next in line */
			struct td_cur *m = n > 2 && td_before(h[2], h[1]) ? h[2] : h[1];

			if (td_before(m, c))
				td_sift(h, n, 0);
		}
	}
	return 0;
}

/* ---- putting it together ---- */

/* Sum of the known counts the pages of one CPU carry (headers only). */
static uint64_t td_page_losses(struct td_dec *d, const struct td_cur *cur)
{
	uint64_t sum = 0, ps = d->f->page_size;
	struct td_cur tmp = { .data = cur->data, .foff = cur->foff, .size = cur->size,
			      .ch = cur->ch };
	struct td_cur *c = &tmp;

	for (uint64_t off = 0; off + d->hdr <= c->size; off += ps) {
		uint64_t avail = c->size - off < ps ? c->size - off : ps;
		const unsigned char *pg = td_at(d, c, off, avail);
		uint64_t flags, commit;

		if (!pg)
			break;
		flags = td_long(d, pg + 8);
		commit = flags & TD_COMMIT_MASK;

		if ((flags & TD_MISSED_EVENTS) && (flags & TD_MISSED_STORED) &&
		    commit + d->f->long_size <= avail - d->hdr)
			sum += td_long(d, pg + d->hdr + commit);
	}
	free(tmp.win);
	return sum;
}

/* Cursors of one buffer positioned on their first relevant event. */
static int td_buf_open(struct td_dec *d, const struct td_buf *b, struct td_cur *cur,
		       struct td_cur **heap, int *n)
{
	int found = 0;

	for (int c = 0; c < d->f->ncpus; c++) {
		struct td_cur *k = &cur[c];

		memset(k, 0, sizeof(*k));
		k->data = d->f->buf + b->off[c];
		k->foff = b->off[c];
		k->size = b->size[c];
		k->ch = b->chunks ? &b->chunks[c] : NULL;
		k->cpu = c;
		if (td_next(d, k)) {
			heap[(*n)++] = k;
			found++;
		}
	}
	return found;
}

/* The stats rule (see the top of the file) for one buffer's CPUs. */
static void td_stats_losses(struct td_dec *d, struct td_cur *cur, const struct hs_td_stats *st,
			    struct hs_td_sink *s)
{
	for (int c = 0; c < d->f->ncpus && c < st->ncpus; c++) {
		uint64_t pages;

		/* the page scan touches the whole CPU's data: only when it matters */
		if (st->lost[c] <= 0)
			continue;
		pages = td_page_losses(d, &cur[c]);
		if ((uint64_t)st->lost[c] > pages)
			s->lost(s->priv, c, (uint64_t)st->lost[c] - pages, true);
	}
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

static void td_meta(struct td_file *f, struct hs_td_sink *s, struct hs_td_stats *tlost)
{
	struct hs_meta *m = s->meta;
	uint64_t start, tlen;
	int t;

	m->ncpus = f->ncpus;
	snprintf(m->clock, sizeof(m->clock), "%s", f->clock);
	if (f->cmd)
		hs_td_cmdlines_apply(f->cmd, f->cmd_len, s);
	t = hs_td_trailer_find(f->buf, f->len, f->data_end, &start, &tlen);
	if (t > 0)
		hs_td_trailer_apply((const char *)f->buf + start, tlen, s, tlost);
	if (f->version == 7)
		snprintf(m->format, sizeof(m->format), "%strace.dat v7 (%s)",
			 t > 0 ? "haltstat, " : "", f->comp);
	else
		snprintf(m->format, sizeof(m->format), "%s", t > 0 ? "haltstat" : "trace.dat v6");
	if (f->uname)
		hs_td_uname_release(f->uname, f->uname_len, m);
}

static int td_use_buf(struct td_dec *d, int i, struct td_cur *bc, struct td_cur **heap,
		      int *n, struct hs_td_sink *s, const struct hs_td_stats *tlost)
{
	const struct td_file *f = d->f;
	struct hs_td_stats st = { 0 };
	struct hs_meta *m = s->meta;

	if (!td_buf_open(d, &f->bufs[i], bc, heap, n))
		return 0;
	if (i > 0) {
		size_t l = strlen(m->buffer_instance);

		snprintf(m->buffer_instance + l, HS_META_STR - l, "%s%s",
			 l ? "," : "", f->bufs[i].name);
	}
	/* haltstat's own per-CPU counts describe its (top) buffer */
	if (i == 0 && tlost->ncpus) {
		td_stats_losses(d, bc, tlost, s);
		return 0;
	}
	if (f->cpustat && hs_td_stats_parse(f->cpustat, f->cpustat_len, f->bufs[i].name, &st))
		return hs_error_set(f->err, HS_ERR_RUNTIME, "out of memory");
	td_stats_losses(d, bc, &st, s);
	hs_td_stats_free(&st);
	return 0;
}

/* pread windows: 128 KiB per CPU (copied, then parsed from the L2 cache), 16 MiB in all. */
#define TD_WIN_MAX (128u << 10)
#define TD_WIN_TOTAL (16u << 20)

static size_t td_win_cap(const struct td_file *f, size_t ncur)
{
	size_t cap = TD_WIN_TOTAL / (ncur ? ncur : 1);

	if (cap > TD_WIN_MAX)
		cap = TD_WIN_MAX;
	cap -= cap % f->page_size;
	return cap < f->page_size ? f->page_size : cap;
}

static int td_decode(struct td_file *f, int fd, struct hs_td_sink *s, struct hs_td_stats *tlost)
{
	size_t ncur = (size_t)f->nbufs * (f->ncpus ? f->ncpus : 1);
	struct td_dec d = { .f = f, .meta = s->meta, .hdr = 8 + f->long_size, .fd = fd,
			    .win_cap = td_win_cap(f, ncur),
			    .drop = s->keeps && s->count ? s : NULL,
			    .tally = { .first_ts = UINT64_MAX } };
	struct td_cur *cur = calloc(ncur, sizeof(*cur));
	struct td_cur **heap = calloc(ncur, sizeof(*heap));
	int n = 0, ret = 0;

	if (!cur || !heap) {
		free(cur);
		free(heap);
		return hs_error_set(f->err, HS_ERR_RUNTIME, "out of memory");
	}
	/* the top buffer, or else every instance that holds relevant events */
	for (int i = 0; i < f->nbufs && !ret; i++) {
		if (i == 1 && n > 0)
			break;
		ret = td_use_buf(&d, i, cur + (size_t)i * f->ncpus, heap, &n, s, tlost);
	}
	if (!ret && td_merge(&d, heap, n, s))
		ret = hs_error_set(f->err, HS_ERR_RUNTIME, "accounting rejected an event");
	if (!ret && d.drop)
		s->count(s->priv, &d.tally);
	if (!ret && d.io_err)
		ret = hs_error_set(f->err, d.io_err == ENOMEM ? HS_ERR_RUNTIME : HS_ERR_INPUT,
				   "read error: %s", strerror(d.io_err));
	if (!ret && d.z_err)
		ret = hs_td_chunk_error(f);
	for (size_t i = 0; i < ncur; i++)
		free(cur[i].win);
	free(cur);
	free(heap);
	return ret;
}

int hs_td_v6_decode(const unsigned char *buf, size_t len, struct hs_td_sink *sink,
		    struct hs_error *err)
{
	return hs_td_v6_decode_fd(buf, len, -1, sink, err);
}

int hs_td_v6_decode_fd(const unsigned char *buf, size_t len, int fd, struct hs_td_sink *sink,
		       struct hs_error *err)
{
	struct td_file f = { .buf = buf, .len = len, .err = err, .version = 6 };
	int ret;

	f.tep = tep_alloc();
	if (!f.tep)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	hs_td_tep_lock();
	ret = td_header(&f);
	hs_td_tep_unlock();
	if (!ret)
		ret = td_buffers(&f);
	if (!ret) {
		td_data_end(&f);
		ret = hs_td_run(&f, fd, sink);
	}
	hs_td_file_free(&f);
	return ret;
}

int hs_td_run(struct td_file *f, int fd, struct hs_td_sink *s)
{
	struct hs_td_stats tlost = { 0 };
	int ret;

	hs_td_layout_init(&f->lay, f->tep, f->swap);
	s->meta->kvm_formats = hs_td_has_kvm(&f->lay);
	td_meta(f, s, &tlost);
	ret = td_decode(f, fd, s, &tlost);
	hs_td_stats_free(&tlost);
	return ret;
}

static const char td_magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

int hs_tracedat_read(const char *path, const unsigned char *buf, size_t len,
		     struct hs_account *acct, struct hs_error *err)
{
	return hs_tracedat_read_fd(path, -1, buf, len, acct, err);
}

/*
 * HALTSTAT_READER=libtracecmd sends a v6 file through libtracecmd as well:
 * the straightforward path, which tests/t-fastpath.sh compares the own
 * decoder against. Not a user option.
 */
static bool td_force_libtracecmd(void)
{
	const char *e = getenv("HALTSTAT_READER");

	return e && !strcmp(e, "libtracecmd");
}

int hs_td_read_sink(const char *path, int fd, const unsigned char *buf, size_t len, bool v7,
		    struct hs_td_sink *sink, struct hs_error *err)
{
	int ret = HS_TD_V7_FALLBACK;

	if (!td_force_libtracecmd())
		ret = v7 ? hs_td_v7_read(buf, len, fd, sink, err) :
			   hs_td_v6_decode_fd(buf, len, fd, sink, err);
	if (ret == HS_TD_V7_FALLBACK)
		ret = hs_td_v7_decode(path, buf, len, sink, err);
	return ret;
}

int hs_tracedat_read_fd(const char *path, int fd, const unsigned char *buf, size_t len,
			struct hs_account *acct, struct hs_error *err)
{
	struct hs_td_sink sink;
	char ver[8];
	size_t i;

	if (len < sizeof(td_magic) || memcmp(buf, td_magic, sizeof(td_magic)))
		return hs_error_set(err, HS_ERR_INPUT, "%s: not a trace.dat file", path);
	for (i = 0; i + 10 < len && i < sizeof(ver) - 1 && buf[10 + i]; i++)
		ver[i] = (char)buf[10 + i];
	ver[i] = '\0';
	if (i + 10 >= len)
		return hs_error_set(err, HS_ERR_INPUT,
				    "%s: truncated trace.dat: file header at offset 10 runs past the end of the file (%zu bytes)",
				    path, len);
	hs_td_sink_account(&sink, acct);
	snprintf(sink.meta->source, sizeof(sink.meta->source), "%s", path);
	if (!strcmp(ver, "6") || !strcmp(ver, "7")) {
		int ret = hs_td_read_sink(path, fd, buf, len, ver[0] == '7', &sink, err);

		if (ret && err) {
			char msg[sizeof(err->msg)];

			snprintf(msg, sizeof(msg), "%s", err->msg);
			hs_error_set(err, ret, "%s: %s", path, msg);
		}
		return ret;
	}
	for (char *p = ver; *p; p++)
		if (*p < ' ' || *p > '~')
			*p = '?';
	return hs_error_set(err, HS_ERR_INPUT,
			    "%s: unsupported trace.dat version \"%s\" (haltstat reads 6 and 7)",
			    path, ver);
}
