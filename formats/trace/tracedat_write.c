// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.dat version 6 writer (layout: trace-cmd's trace-cmd.dat.v6(5)).
 *
 * The whole header, up to and including the flyrecord CPU table, is built in
 * memory first: it is small, and building it first lets the page-aligned CPU
 * data offsets be known before anything reaches the file. The CPU data then
 * follows, and after the last CPU comes the haltstat metadata trailer of
 * formats/trace/recmeta.h, which trace-cmd's v6 reader never looks at.
 *
 * Numbers are written in host byte order with the endianness flag to match:
 * the raw ring-buffer pages are in the recording host's order anyway.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracedat_write.h"

#define TDW_COPY_CHUNK	(1u << 20)
#define TDW_META_MAGIC	"HSMETA01"

/* TRACECMD_OPTION_* ids (trace-cmd.h); these values are part of the format. */
enum {
	TDW_OPT_DONE = 0,
	TDW_OPT_CPUSTAT = 2,
	TDW_OPT_TRACECLOCK = 4,
	TDW_OPT_UNAME = 5,
};

struct tdw_buf {
	char *data;
	size_t len;
	size_t cap;
	bool oom;
};

static void tdw_put(struct tdw_buf *b, const void *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		char *d;

		while (cap < b->len + n)
			cap *= 2;
		d = realloc(b->data, cap);
		if (!d) {
			b->oom = true;
			return;
		}
		b->data = d;
		b->cap = cap;
	}
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void tdw_u16(struct tdw_buf *b, uint16_t v) { tdw_put(b, &v, sizeof(v)); }
static void tdw_u32(struct tdw_buf *b, uint32_t v) { tdw_put(b, &v, sizeof(v)); }
static void tdw_u64(struct tdw_buf *b, uint64_t v) { tdw_put(b, &v, sizeof(v)); }
static void tdw_str0(struct tdw_buf *b, const char *s) { tdw_put(b, s, strlen(s) + 1); }

static int tdw_host_bigendian(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 0;
}

static int tdw_write_all(int fd, const void *p, size_t n, struct hs_error *err)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return hs_error_set(err, HS_ERR_OUTPUT, "cannot write trace.dat: %s",
					    w < 0 ? strerror(errno) : "short write");
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static void tdw_put_systems(struct tdw_buf *b, const struct hs_tracedat_desc *d)
{
	uint32_t nsys = 0;

	/* Formats arrive flat; the file groups them by system, in first-seen order. */
	for (unsigned int i = 0; i < d->nformats; i++) {
		unsigned int j;

		for (j = 0; j < i && strcmp(d->formats[j].system, d->formats[i].system); j++)
			;
		if (j == i)
			nsys++;
	}
	tdw_u32(b, nsys);
	for (unsigned int i = 0; i < d->nformats; i++) {
		const char *sys = d->formats[i].system;
		unsigned int j, count = 0;

		for (j = 0; j < i && strcmp(d->formats[j].system, sys); j++)
			;
		if (j < i)
			continue;
		for (j = i; j < d->nformats; j++)
			count += !strcmp(d->formats[j].system, sys);
		tdw_str0(b, sys);
		tdw_u32(b, count);
		for (j = i; j < d->nformats; j++) {
			if (strcmp(d->formats[j].system, sys))
				continue;
			tdw_u64(b, d->formats[j].len);
			tdw_put(b, d->formats[j].text, d->formats[j].len);
		}
	}
}

/* trace-cmd's reader looks for the "[name]" form that tracefs' trace_clock file uses. */
static void tdw_clock_text(const char *clock, char *out, size_t n)
{
	if (strchr(clock, '['))
		snprintf(out, n, "%s", clock);
	else
		snprintf(out, n, "[%s]", clock);
}

static void tdw_put_options(struct tdw_buf *b, const struct hs_tracedat_desc *d,
			    const char *clock)
{
	tdw_put(b, "options  ", 10);
	if (d->uname) {
		tdw_u16(b, TDW_OPT_UNAME);
		tdw_u32(b, (uint32_t)strlen(d->uname) + 1);
		tdw_str0(b, d->uname);
	}
	if (clock) {
		tdw_u16(b, TDW_OPT_TRACECLOCK);
		tdw_u32(b, (uint32_t)strlen(clock) + 1);
		tdw_str0(b, clock);
	}
	for (unsigned int cpu = 0; d->cpustat && cpu < d->ncpus; cpu++) {
		char head[32];
		const char *s = d->cpustat[cpu] ? d->cpustat[cpu] : "";
		int hl = snprintf(head, sizeof(head), "CPU: %u\n", cpu);

		/* The reader turns the final NUL into a newline. */
		tdw_u16(b, TDW_OPT_CPUSTAT);
		tdw_u32(b, (uint32_t)(hl + strlen(s) + 1));
		tdw_put(b, head, (size_t)hl);
		tdw_str0(b, s);
	}
	tdw_u16(b, TDW_OPT_DONE);
}

static int tdw_build_header(struct tdw_buf *b, const struct hs_tracedat_desc *d,
			    uint64_t *data_start)
{
	char clock[256];
	const char *clk = NULL;
	unsigned char flag;
	uint64_t off;

	if (d->clock && d->clock[0]) {
		tdw_clock_text(d->clock, clock, sizeof(clock));
		clk = clock;
	}
	tdw_put(b, "\x17\x08\x44" "tracing" "6", 12);
	flag = (unsigned char)tdw_host_bigendian();
	tdw_put(b, &flag, 1);
	flag = (unsigned char)sizeof(long);
	tdw_put(b, &flag, 1);
	tdw_u32(b, d->page_size);
	tdw_put(b, "header_page", 12);
	tdw_u64(b, d->header_page_len);
	tdw_put(b, d->header_page, d->header_page_len);
	tdw_put(b, "header_event", 13);
	tdw_u64(b, d->header_event_len);
	tdw_put(b, d->header_event, d->header_event_len);
	tdw_u32(b, d->nftrace_formats);	/* ftrace formats */
	for (unsigned int i = 0; i < d->nftrace_formats; i++) {
		tdw_u64(b, d->ftrace_formats[i].len);
		tdw_put(b, d->ftrace_formats[i].text, d->ftrace_formats[i].len);
	}
	tdw_put_systems(b, d);
	tdw_u32(b, 0);			/* kallsyms */
	tdw_u32(b, 0);			/* printk formats */
	tdw_u64(b, d->cmdlines_len);
	tdw_put(b, d->cmdlines, d->cmdlines_len);
	tdw_u32(b, d->ncpus);
	tdw_put_options(b, d, clk);
	tdw_put(b, "flyrecord", 10);

	/* With a TRACECLOCK option the v6 reader expects the clock again after the CPU table. */
	off = b->len + 16ull * d->ncpus + (clk ? 8 + strlen(clk) : 0);
	off = (off + d->page_size - 1) / d->page_size * d->page_size;
	*data_start = off;
	for (unsigned int cpu = 0; cpu < d->ncpus; cpu++) {
		tdw_u64(b, off);
		tdw_u64(b, d->cpus[cpu].size);
		off += d->cpus[cpu].size;
	}
	if (clk) {
		tdw_u64(b, strlen(clk));
		tdw_put(b, clk, strlen(clk));
	}
	while (!b->oom && b->len < *data_start)
		tdw_put(b, "", 1);
	return b->oom ? -1 : 0;
}

/*
 * Copies inside the kernel (or shares the blocks, on file systems that
 * reflink): no trip through user space. Returns the bytes copied before a
 * file system said it cannot, or -1 with errno for a real error.
 */
static int64_t tdw_copy_in_kernel(int out, const struct hs_tracedat_cpu *c)
{
	loff_t in_off = 0;

	while ((uint64_t)in_off < c->size) {
		ssize_t r = copy_file_range(c->fd, &in_off, out, NULL, c->size - (uint64_t)in_off, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
			      errno == EOPNOTSUPP || errno == EBADF))
			break;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
	}
	return in_off;
}

static int tdw_copy_fd(int out, const struct hs_tracedat_cpu *c, unsigned int cpu,
		       char *chunk, struct hs_error *err)
{
	int64_t copied = tdw_copy_in_kernel(out, c);
	uint64_t done = (uint64_t)copied;

	if (copied < 0)
		return hs_error_set(err, HS_ERR_OUTPUT, "cannot copy CPU %u data: %s", cpu,
				    strerror(errno));
	while (done < c->size) {
		size_t want = c->size - done < TDW_COPY_CHUNK ? (size_t)(c->size - done)
							       : TDW_COPY_CHUNK;
		ssize_t r = pread(c->fd, chunk, want, (off_t)done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return hs_error_set(err, HS_ERR_RUNTIME, "cannot read CPU %u data: %s",
					    cpu, r < 0 ? strerror(errno) : "file shorter than expected");
		if (tdw_write_all(out, chunk, (size_t)r, err))
			return err ? err->code : HS_ERR_OUTPUT;
		done += (uint64_t)r;
	}
	return 0;
}

/* CPUs [from, to)'s data, one after the other from the file's position. */
static int tdw_write_cpus(int fd, const struct hs_tracedat_desc *d, unsigned int from,
			  unsigned int to, struct hs_error *err)
{
	char *chunk = NULL;
	int ret = 0;

	for (unsigned int cpu = from; cpu < to && !ret; cpu++) {
		const struct hs_tracedat_cpu *c = &d->cpus[cpu];

		if (!c->size)
			continue;
		if (c->buf) {
			ret = tdw_write_all(fd, c->buf, (size_t)c->size, err);
			continue;
		}
		if (!chunk && !(chunk = malloc(TDW_COPY_CHUNK)))
			return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
		ret = tdw_copy_fd(fd, c, cpu, chunk, err);
	}
	free(chunk);
	return ret;
}

static int tdw_check(const struct hs_tracedat_desc *d, struct hs_error *err)
{
	if (!d || !d->page_size || (d->page_size & (d->page_size - 1)))
		return hs_error_set(err, HS_ERR_RUNTIME, "trace.dat: bad page size");
	if (!d->header_page || !d->header_event || (d->ncpus && !d->cpus) ||
	    (d->nformats && !d->formats) || (d->cmdlines_len && !d->cmdlines) ||
	    (d->nftrace_formats && !d->ftrace_formats))
		return hs_error_set(err, HS_ERR_RUNTIME, "trace.dat: incomplete description");
	for (unsigned int i = 0; i < d->ncpus; i++)
		if (d->cpus[i].size % d->page_size)
			return hs_error_set(err, HS_ERR_RUNTIME,
					    "trace.dat: CPU %u data is not whole pages", i);
	for (unsigned int i = 0; i < d->nformats; i++)
		if (!d->formats[i].system || !d->formats[i].text)
			return hs_error_set(err, HS_ERR_RUNTIME, "trace.dat: format %u is empty", i);
	return 0;
}

static int tdw_write_trailer(int fd, const struct hs_tracedat_desc *desc, struct hs_error *err)
{
	uint64_t len = desc->meta_len;
	unsigned char le[8];
	int ret;

	if (!desc->meta)
		return 0;
	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(len >> (8 * i));
	ret = tdw_write_all(fd, desc->meta, desc->meta_len, err);
	if (!ret)
		ret = tdw_write_all(fd, le, sizeof(le), err);
	if (!ret)
		ret = tdw_write_all(fd, TDW_META_MAGIC, 8, err);
	return ret;
}

/* The checked header in b; *data_start: where the first CPU's data goes. */
static int tdw_header(struct tdw_buf *b, const struct hs_tracedat_desc *desc,
		      uint64_t *data_start, struct hs_error *err)
{
	int ret = tdw_check(desc, err);

	if (ret)
		return ret;
	if (tdw_build_header(b, desc, data_start)) {
		free(b->data);
		b->data = NULL;
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	}
	return 0;
}

int hs_tracedat_write(int fd, const struct hs_tracedat_desc *desc, struct hs_error *err)
{
	struct tdw_buf b = { 0 };
	uint64_t data_start;
	int ret;

	ret = tdw_header(&b, desc, &data_start, err);
	if (ret)
		return ret;
	ret = tdw_write_all(fd, b.data, b.len, err);
	free(b.data);
	if (!ret)
		ret = tdw_write_cpus(fd, desc, 0, desc->ncpus, err);
	if (!ret)
		ret = tdw_write_trailer(fd, desc, err);
	return ret;
}

int hs_tracedat_write_around(const struct hs_tracedat_desc *desc, unsigned int k,
			     struct hs_error *err)
{
	struct tdw_buf b = { 0 };
	uint64_t data_start, before, after;
	int fd, ret;

	if (k >= desc->ncpus || desc->cpus[k].buf || !desc->cpus[k].size)
		return 1;
	ret = tdw_header(&b, desc, &data_start, err);
	if (ret)
		return ret;
	fd = desc->cpus[k].fd;
	before = data_start;
	for (unsigned int i = 0; i < k; i++)
		before += desc->cpus[i].size;
	after = before + desc->cpus[k].size;
	/* page multiples, so block multiples where blocks are no larger than pages */
	if (before > INT64_MAX || fallocate(fd, FALLOC_FL_INSERT_RANGE, 0, (off_t)before)) {
		free(b.data);
		return 1;
	}
	if (lseek(fd, 0, SEEK_SET) < 0)
		ret = hs_error_set(err, HS_ERR_OUTPUT, "cannot write trace.dat: %s", strerror(errno));
	if (!ret)
		ret = tdw_write_all(fd, b.data, b.len, err);
	free(b.data);
	if (!ret)
		ret = tdw_write_cpus(fd, desc, 0, k, err);
	if (!ret && lseek(fd, (off_t)after, SEEK_SET) < 0)
		ret = hs_error_set(err, HS_ERR_OUTPUT, "cannot write trace.dat: %s", strerror(errno));
	if (!ret)
		ret = tdw_write_cpus(fd, desc, k + 1, desc->ncpus, err);
	if (!ret)
		ret = tdw_write_trailer(fd, desc, err);
	return ret;
}
