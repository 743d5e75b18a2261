// SPDX-License-Identifier: GPL-2.0-only
/*
 * Input front door: maps or slurps the whole input, tells the format from
 * the first bytes and hands the bytes to the matching reader.
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
static int hs_slurp(int fd, const char *name, unsigned char **out, size_t *len,
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

static int hs_input_dispatch(const char *name, const unsigned char *buf, size_t len,
			     struct hs_account *acct, struct hs_error *err)
{
	struct hs_meta *meta = hs_account_meta(acct);

	snprintf(meta->source, sizeof(meta->source), "%s", name);
	if (len == 0)
		return hs_error_set(err, HS_ERR_INPUT, "%s: empty input", name);
	switch (hs_input_detect(buf, len)) {
	case HS_INPUT_TRACEDAT:
		return hs_tracedat_read(name, buf, len, acct, err);
	case HS_INPUT_TEXT:
		return hs_text_read((const char *)buf, len, acct, err);
	default:
		return hs_error_set(err, HS_ERR_INPUT,
				    "%s: neither a trace.dat nor a text trace (binary data)", name);
	}
}

int hs_input_read(const char *path, struct hs_account *acct, struct hs_error *err)
{
	bool std = !strcmp(path, "-");
	int fd = std ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	unsigned char *buf = NULL;
	struct stat st;
	size_t len = 0;
	int ret;

	hs_error_clear(err);
	if (fd < 0)
		return hs_error_set(err, HS_ERR_INPUT, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		len = (size_t)st.st_size;
		void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);

		if (map != MAP_FAILED) {
			if (!std)
				close(fd);
			madvise(map, len, MADV_SEQUENTIAL);
			ret = hs_input_dispatch(path, map, len, acct, err);
			munmap(map, len);
			return ret;
		}
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
		ret = hs_error_set(err, HS_ERR_INPUT, "%s: is a directory", path);
	else
		ret = hs_slurp(fd, std ? "-" : path, &buf, &len, err);
	if (!std)
		close(fd);
	if (!ret)
		ret = hs_input_dispatch(std ? "-" : path, buf, len, acct, err);
	free(buf);
	return ret;
}
