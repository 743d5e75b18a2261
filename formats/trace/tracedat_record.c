// SPDX-License-Identifier: GPL-2.0-only
/*
 * The file of a recording: created first (so that a bad output path fails
 * before any event is enabled), written from the scanned capture by the
 * v6 writer, then named.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/sbuf.h"
#include "../../lib/sys/sysinfo.h"
#include "../../lib/sys/tasks.h"
#include "tracedat_record.h"
#include "tracedat_write.h"

/* Room asked for at once: a disk without it is full for any recording. */
#define RECORD_ROOM (1u << 20)

struct hs_record_file {
	char path[4096];
	char dir[4096];
	char tmp[4200];			/* named temp file when O_TMPFILE is not there */
	int fd;
	bool published;
};

static int record_file_fail(struct hs_record_file *f, struct hs_error *err, int e)
{
	hs_error_set(err, HS_ERR_OUTPUT, "cannot create %s: %s", f->path, strerror(e));
	hs_record_file_free(f);
	return HS_ERR_OUTPUT;
}

/* A full disk or quota says so now rather than after the recording. */
static int record_file_room(int fd)
{
	static const char zeros[4096];

	if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, RECORD_ROOM) == 0)
		return ftruncate(fd, 0) ? errno : 0;
	if (errno != EOPNOTSUPP && errno != ENOSYS)
		return errno;
	for (off_t off = 0; off < (off_t)RECORD_ROOM; off += (off_t)sizeof(zeros))
		if (pwrite(fd, zeros, sizeof(zeros), off) != (ssize_t)sizeof(zeros))
			return errno ? errno : ENOSPC;
	return ftruncate(fd, 0) ? errno : 0;
}

struct hs_record_file *hs_record_file_create(const char *path, struct hs_error *err)
{
	struct hs_record_file *f = calloc(1, sizeof(*f));
	char tmp[4096];
	struct stat st;
	int e;

	if (!f) {
		hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
		return NULL;
	}
	f->fd = -1;
	if (!path[0] || strlen(path) >= sizeof(f->path)) {
		hs_error_set(err, HS_ERR_OUTPUT, "bad output file name");
		hs_record_file_free(f);
		return NULL;
	}
	snprintf(f->path, sizeof(f->path), "%s", path);
	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(f->dir, sizeof(f->dir), "%s", dirname(tmp));
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return record_file_fail(f, err, EISDIR), NULL;
	f->fd = open(f->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (f->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		snprintf(f->tmp, sizeof(f->tmp), "%s.XXXXXX", path);
		f->fd = mkostemp(f->tmp, O_CLOEXEC);
		if (f->fd < 0)
			f->tmp[0] = '\0';
		else if (fchmod(f->fd, 0644)) {
			/* mkstemp's 0600 is still a valid file */
		}
	}
	if (f->fd < 0)
		return record_file_fail(f, err, errno), NULL;
	e = record_file_room(f->fd);
	if (e)
		return record_file_fail(f, err, e), NULL;
	return f;
}

const char *hs_record_file_dir(const struct hs_record_file *f)
{
	return f->dir;
}

/* fd's file, linked under the temporary name f->tmp beside the output; -1: errno. */
static int record_file_link(struct hs_record_file *f, int fd)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	snprintf(f->tmp, sizeof(f->tmp), "%s.%d.tmp", f->path, (int)getpid());
	unlink(f->tmp);
	if (!linkat(AT_FDCWD, proc, AT_FDCWD, f->tmp, AT_SYMLINK_FOLLOW))
		return 0;
	f->tmp[0] = '\0';
	return -1;
}

/* The temporary name becomes the output's. */
static int record_file_rename(struct hs_record_file *f, struct hs_error *err)
{
	if (rename(f->tmp, f->path))
		return hs_error_set(err, HS_ERR_OUTPUT, "cannot rename to %s: %s", f->path,
				    strerror(errno));
	f->tmp[0] = '\0';
	f->published = true;
	return 0;
}

static int record_file_publish(struct hs_record_file *f, struct hs_error *err)
{
	if (!f->tmp[0] && record_file_link(f, f->fd))
		return hs_error_set(err, HS_ERR_OUTPUT, "cannot create %s: %s", f->path,
				    strerror(errno));
	return record_file_rename(f, err);
}

/* "PID COMM" per thread that appears, as trace-cmd's cmdlines section wants them. */
static void record_file_cmdlines(struct hs_sbuf *sb, const struct hs_capture_result *r)
{
	for (unsigned int i = 0; i < r->ntids; i++) {
		const struct hs_task *t = r->tasks ? hs_tasks_find(r->tasks, r->tids[i]) : NULL;

		if (r->tids[i] == 0)
			hs_sbuf_printf(sb, "0 <idle>\n");
		else if (t && t->comm[0])
			hs_sbuf_printf(sb, "%d %s\n", t->tid, t->comm);
	}
}

static int record_file_desc(struct hs_tracedat_desc *d, const struct hs_capture_result *r,
			    struct hs_tracedat_format *fm, struct hs_tracedat_cpu *cpus)
{
	for (unsigned int i = 0; i < r->nformats; i++)
		fm[i] = (struct hs_tracedat_format){ r->formats[i].system, r->formats[i].text,
						     r->formats[i].len };
	for (unsigned int i = 0; i < r->nftrace_formats; i++)
		fm[r->nformats + i] = (struct hs_tracedat_format){ r->ftrace_formats[i].system,
								   r->ftrace_formats[i].text,
								   r->ftrace_formats[i].len };
	for (unsigned int i = 0; i < r->ncpus; i++)
		cpus[i] = (struct hs_tracedat_cpu){ NULL, r->cpu_fd[i], r->cpu_size[i] };
	d->page_size = r->page_size;
	d->header_page = r->header_page;
	d->header_page_len = strlen(r->header_page);
	d->header_event = r->header_event;
	d->header_event_len = strlen(r->header_event);
	d->formats = fm;
	d->nformats = r->nformats;
	d->ftrace_formats = fm + r->nformats;
	d->nftrace_formats = r->nftrace_formats;
	d->ncpus = r->ncpus;
	d->cpus = cpus;
	d->clock = r->clock;
	d->cpustat = r->cpustat;
	return 0;
}

/*
 * The file made around the CPU with the most data, in its temporary file:
 * no copy of those pages (a tenth of the recorder's CPU at 200000 events a
 * second went to copying its data into the output). That file is linked
 * under a temporary name first, so that a file system that cannot link it
 * or insert into it changes nothing: 1, write a copy instead.
 */
static int record_file_write_around(struct hs_record_file *f, const struct hs_tracedat_desc *d,
				    struct hs_error *err)
{
	const char *copy = getenv("HALTSTAT_RECORD_COPY");
	unsigned int k = 0;
	struct stat st;
	int ret, fd;

	if ((copy && atoi(copy)) || f->tmp[0] || !d->ncpus || fstat(f->fd, &st))
		return 1;
	for (unsigned int i = 1; i < d->ncpus; i++)
		if (d->cpus[i].size > d->cpus[k].size)
			k = i;
	fd = d->cpus[k].fd;
	if (fd < 0 || record_file_link(f, fd))
		return 1;
	ret = hs_tracedat_write_around(d, k, err);
	if (!ret && fchmod(fd, st.st_mode & 07777))
		ret = hs_error_set(err, HS_ERR_OUTPUT, "cannot write %s: %s", f->path, strerror(errno));
	if (!ret)
		ret = record_file_rename(f, err);
	if (ret) {
		/* the copy, if there is to be one, is f->fd's to link */
		unlink(f->tmp);
		f->tmp[0] = '\0';
	}
	return ret;
}

int hs_record_file_write(struct hs_record_file *f, const struct hs_capture_result *r,
			 const char *meta, size_t meta_len, struct hs_error *err)
{
	struct hs_tracedat_format *fm = calloc(r->nformats + r->nftrace_formats + 1, sizeof(*fm));
	struct hs_tracedat_cpu *cpus = calloc(r->ncpus + 1, sizeof(*cpus));
	struct hs_tracedat_desc d = { 0 };
	struct hs_sbuf cmdlines = { 0 };
	char uname_full[512], release[128];
	int ret;

	record_file_cmdlines(&cmdlines, r);
	if (!fm || !cpus || cmdlines.oom) {
		ret = hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
		goto out;
	}
	record_file_desc(&d, r, fm, cpus);
	d.cmdlines = cmdlines.s ? cmdlines.s : "";
	d.cmdlines_len = cmdlines.len;
	if (hs_sysinfo_uname(uname_full, sizeof(uname_full), release, sizeof(release)) == 0)
		d.uname = uname_full;
	d.meta = meta;
	d.meta_len = meta_len;
	ret = record_file_write_around(f, &d, err);
	if (ret == 1) {
		ret = hs_tracedat_write(f->fd, &d, err);
		if (!ret)
			ret = record_file_publish(f, err);
	}
	if (!ret && close(f->fd))
		ret = hs_error_set(err, HS_ERR_OUTPUT, "cannot write %s: %s", f->path,
				   strerror(errno));
	if (f->published)
		f->fd = -1;
out:
	hs_sbuf_free(&cmdlines);
	free(fm);
	free(cpus);
	return ret;
}

void hs_record_file_free(struct hs_record_file *f)
{
	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	if (f->tmp[0] && !f->published)
		unlink(f->tmp);
	free(f);
}
