// SPDX-License-Identifier: GPL-2.0-only
/*
 * Input front door: tells the format from the first bytes and hands the
 * input to the matching reader, in bounded memory (see input_fd).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"
#include "sink_pipe.h"
#include "text_internal.h"
#include "tracedat_internal.h"
#include "tracedat_share.h"

#define HS_SLURP_MIN (1u << 20)
#define HS_SLURP_STEP (256u << 20)	/* grow by doubling up to this, then linearly */

static const unsigned char hs_td_magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

/*
 * Text is what the kernel, trace-cmd report or perf script print: printable
 * bytes, tabs and newlines (UTF-8 comm names pass too). A NUL or a control
 * byte in the first 4 KiB means binary.
 */
enum hs_input_format hs_input_detect(const unsigned char *head, size_t len)
{
	size_t n = len < 4096 ? len : 4096, printable = 0;

	if (len >= sizeof(hs_td_magic) && !memcmp(head, hs_td_magic, sizeof(hs_td_magic)))
		return HS_INPUT_TRACEDAT;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = head[i];

		if (c == '\n' || c == '\t' || c == '\r' || c >= 0x80 || (c >= 0x20 && c != 0x7f))
			printable += c > ' ' && c < 0x7f;
		else
			return HS_INPUT_UNKNOWN;
	}
	return printable ? HS_INPUT_TEXT : HS_INPUT_UNKNOWN;
}

/* Pipes and terminals: read to EOF, doubling the buffer up to a step. */
static int slurp(int fd, const char *name, unsigned char **out, size_t *len,
		 struct hs_error *err)
{
	size_t cap = 0, used = 0;
	unsigned char *buf = NULL;

	for (;;) {
		ssize_t n;

		if (used == cap) {
			size_t grow = cap < HS_SLURP_MIN ? HS_SLURP_MIN : cap < HS_SLURP_STEP ? cap : HS_SLURP_STEP;
			unsigned char *nb = cap > SIZE_MAX - grow ? NULL : realloc(buf, cap + grow);

			if (!nb) {
				free(buf);
				return hs_error_set(err, HS_ERR_RUNTIME, "%s: out of memory reading input", name);
			}
			buf = nb;
			cap += grow;
		}
		n = read(fd, buf + used, cap - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			return hs_error_set(err, HS_ERR_INPUT, "%s: read error: %s", name, strerror(e));
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	*out = buf;
	*len = used;
	return HS_OK;
}

/* Up to cap bytes from the start of fd (a pipe may need several reads). */
static int read_head(int fd, unsigned char *buf, size_t cap, size_t *len)
{
	*len = 0;
	while (*len < cap) {
		ssize_t n = read(fd, buf + *len, cap - *len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		*len += (size_t)n;
	}
	return 0;
}

/*
 * A trace.dat from a pipe: its CPUs' pages have to be read side by side,
 * so it is copied to an unlinked temporary file first (bounded memory),
 * or slurped when no temporary file can be made. Returns the fd or -1.
 */
static int spool(int in, const unsigned char *head, size_t hlen)
{
	const char *dir = getenv("TMPDIR");
	char path[4096], *buf = malloc(HS_SLURP_MIN);
	size_t n = hlen;
	int fd;

	if (!buf)
		return -1;
	snprintf(path, sizeof(path), "%s/haltstat-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	memcpy(buf, head, hlen);
	while (fd >= 0) {
		ssize_t r;

		for (size_t off = 0; off < n; off += (size_t)r) {
			r = write(fd, buf + off, n - off);
			if (r < 0 && errno == EINTR)
				r = 0;
			else if (r <= 0)
				goto fail;
		}
		do
			r = read(in, buf, HS_SLURP_MIN);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		n = (size_t)r;
	}
	free(buf);
	return fd;
fail:
	free(buf);
	close(fd);
	return -1;
}

static int input_tracedat(const char *name, int fd, struct hs_account *acct,
			  struct hs_td_share *share, struct hs_error *err)
{
	struct stat st;
	void *map;
	int ret;

	if (fstat(fd, &st) || st.st_size <= 0)
		return hs_error_set(err, HS_ERR_INPUT, "%s: cannot stat the input", name);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return hs_error_set(err, HS_ERR_INPUT, "%s: cannot map the input: %s", name,
				    strerror(errno));
	/* only the header and the trailer are read through the mapping */
	madvise(map, (size_t)st.st_size, MADV_RANDOM);
	ret = hs_tracedat_read_fd(name, fd, map, (size_t)st.st_size, acct, share, err);
	munmap(map, (size_t)st.st_size);
	return ret;
}

/* The old way, for a pipe when no temporary file could be made. */
static int input_slurp(const char *name, int fd, const unsigned char *head, size_t hlen,
		       struct hs_account *acct, struct hs_error *err)
{
	unsigned char *buf = NULL, *all;
	size_t len = 0;
	int ret = slurp(fd, name, &buf, &len, err);

	if (ret)
		return ret;
	all = malloc(hlen + len + 1);
	if (!all) {
		free(buf);
		return hs_error_set(err, HS_ERR_RUNTIME, "%s: out of memory reading input", name);
	}
	memcpy(all, head, hlen);
	if (len)
		memcpy(all + hlen, buf, len);
	free(buf);
	ret = hs_tracedat_read(name, all, hlen + len, acct, err);
	free(all);
	return ret;
}

/* Text: through a second thread, which puts it into acct, when it is large. */
static int input_text(int fd, bool regular, const unsigned char *head, size_t hlen,
		      struct hs_account *acct, struct hs_error *err)
{
	struct stat st;
	struct hs_sink sink;
	struct hs_sink_pipe *pipe;
	int ret, done;

	pipe = hs_sink_pipe_open(&sink, acct, regular && !fstat(fd, &st) ? (uint64_t)st.st_size : 0);
	ret = hs_text_read_fd(fd, (const char *)head, hlen, &sink, err);
	done = hs_sink_pipe_close(pipe);
	if (!ret && done)
		ret = hs_error_set(err, done, "accounting rejected an event (out of memory)");
	return ret;
}

/*
 * Tells the format from the first 4 KiB. Text streams through a bounded
 * buffer; a trace.dat is mapped for its header and its pages are pread
 * (tracedat_decode.c), so memory stays bounded whatever the input size.
 */
static int input_fd(const char *name, int fd, bool regular, struct hs_account *acct,
		    struct hs_td_share *share, struct hs_error *err)
{
	struct hs_meta *meta = hs_account_meta(acct);
	unsigned char head[4096];
	size_t hlen;
	int ret, sp;

	snprintf(meta->source, sizeof(meta->source), "%s", name);
	ret = read_head(fd, head, sizeof(head), &hlen);
	if (ret)
		return hs_error_set(err, HS_ERR_INPUT, "%s: read error: %s", name, strerror(-ret));
	if (hlen == 0)
		return hs_error_set(err, HS_ERR_INPUT, "%s: empty input", name);
	switch (hs_input_detect(head, hlen)) {
	case HS_INPUT_TRACEDAT:
		if (regular)
			return input_tracedat(name, fd, acct, share, err);
		sp = spool(fd, head, hlen);
		if (sp < 0)
			return input_slurp(name, fd, head, hlen, acct, err);
		ret = input_tracedat(name, sp, acct, NULL, err);
		close(sp);
		return ret;
	case HS_INPUT_TEXT:
		return input_text(fd, regular, head, hlen, acct, err);
	default:
		return hs_error_set(err, HS_ERR_INPUT,
				    "%s: neither a trace.dat nor a text trace (binary data)", name);
	}
}

static int input_read(const char *path, struct hs_td_share *share, struct hs_account *acct,
		      struct hs_error *err)
{
	bool std = !strcmp(path, "-");
	int fd = std ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	int ret;

	hs_error_clear(err);
	if (fd < 0)
		return hs_error_set(err, HS_ERR_INPUT, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		ret = hs_error_set(err, HS_ERR_INPUT, "%s: is a directory", path);
	} else {
		ret = input_fd(std ? "-" : path, fd, fstat(fd, &st) == 0 &&
				  S_ISREG(st.st_mode), acct, share, err);
	}
	if (!std)
		close(fd);
	return ret;
}

int hs_input_read(const char *path, struct hs_account *acct, struct hs_error *err)
{
	return input_read(path, NULL, acct, err);
}

/*
 * Readers side by side (lib/pipeline.c), each keeping a share of the
 * vCPUs: all decode every event and follow every runqueue, so they pay
 * only where the per-vCPU work (the what-if, most of it) is a large part of
 * the report, as when halts are a tenth of the events or more (measured
 * here: 2000000 halts in 3983352 events, 418 ms on one thread, 298 ms on
 * two; 80000 in 3147941, 161 against 177), and where the halts fall on
 * more than one vCPU (hs_shard_plan_choose). Elsewhere a large input is
 * read on one thread and accounted on another (sink_pipe.c). Asked for
 * (HALTSTAT_THREADS=2 or 3), at any share. Only a regular trace.dat file
 * that haltstat's own readers decode can be read more than once.
 */
#define INPUT_SPLIT_HALT_SHARE 0.10

/* The plan from a first look at a file with head h; false: read it once. */
static bool input_plan(const char *path, int fd, const unsigned char *map, size_t len,
		       const struct hs_td_head *h, struct hs_shard_plan *plan)
{
	struct hs_td_look look;

	hs_td_first_look(path, fd, map, len, h, &look);
	if (!look.events || (double)look.halts < INPUT_SPLIT_HALT_SHARE * (double)look.events)
		return false;
	if (look.many) {
		*plan = (struct hs_shard_plan){ .readers = 2 };
		return true;
	}
	/* two readers of a compressed file inflate each chunk once between them, a third alone */
	hs_shard_plan_choose(look.load, look.ntids, look.events, h->version[0] == '7' ? 2 : 3,
			     plan);
	/* for the tests: what the first look chose */
	if (getenv("HALTSTAT_SPLIT_TRACE"))
		fprintf(stderr, "haltstat: %u readers, salt %u (%u vCPU threads)\n", plan->readers,
			(unsigned int)plan->salt, look.ntids);
	return true;
}

static bool input_splittable(const char *path, bool forced, struct hs_shard_plan *plan)
{
	const char *rd = getenv("HALTSTAT_READER");
	struct stat st;
	bool split = false;
	void *map;
	int fd;

	if (!strcmp(path, "-") || (rd && !strcmp(rd, "libtracecmd")))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (!forced && (uint64_t)st.st_size < HS_SINK_PIPE_MIN_BYTES)) {
		close(fd);
		return false;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map != MAP_FAILED) {
		struct hs_td_head h;

		madvise(map, (size_t)st.st_size, MADV_RANDOM);
		if (!hs_td_head_parse(map, (size_t)st.st_size, &h, NULL) && hs_td_head_own_reader(&h))
			split = forced || input_plan(path, fd, map, (size_t)st.st_size, &h, plan);
		munmap(map, (size_t)st.st_size);
	}
	close(fd);
	return split;
}

static void *input_share_new(void)
{
	return hs_td_share_new();
}

static void input_share_free(void *share)
{
	hs_td_share_free(share);
}

static int input_read_shared(const char *path, void *share, struct hs_account *acct,
			     struct hs_error *err)
{
	return input_read(path, share, acct, err);
}

const struct hs_source hs_input_source = {
	.read = hs_input_read,
	.splittable = input_splittable,
	.share_new = input_share_new,
	.share_free = input_share_free,
	.read_shared = input_read_shared,
};
