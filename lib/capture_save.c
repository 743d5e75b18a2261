// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trace.dat side of `haltstat record`: one pass over the recorded pages
 * (event counts and the pids that appear), names for those threads, the
 * metadata trailer, and the v6 file written under a temp name then renamed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>

#include "../formats/tracedat_write.h"
#include "capture_priv.h"
#include "ringpage.h"
#include "sysinfo.h"

/* bytes read at a time by the scan: whole pages (sub-buffers may be larger) */
#define SAVE_SCAN_CHUNK (1u << 20)

struct save_ctx {
	struct hs_capture *c;
	int ids[HS_CAPTURE_MAX_EVENTS];		/* event ids, from the formats */
	int pid_off;				/* offset of common_pid */
	char *formats[HS_CAPTURE_MAX_EVENTS];
	int format_len[HS_CAPTURE_MAX_EVENTS];
	int *pids;				/* open-addressing set; -1 = empty */
	size_t pid_cap;
	size_t npids;
	struct hs_thread_name *threads;
	unsigned int nthreads;
};

static int pidset_add(struct save_ctx *s, int pid)
{
	size_t i;

	if ((s->npids + 1) * 2 > s->pid_cap) {
		size_t cap = s->pid_cap ? s->pid_cap * 2 : 1024;
		int *n = malloc(cap * sizeof(*n));
		int *old = s->pids;
		size_t oldcap = s->pid_cap;

		if (!n)
			return -1;
		memset(n, 0xff, cap * sizeof(*n));
		s->pids = n;
		s->pid_cap = cap;
		s->npids = 0;
		for (i = 0; i < oldcap; i++)
			if (old[i] >= 0)
				pidset_add(s, old[i]);
		free(old);
	}
	for (i = (size_t)pid * 2654435761u % s->pid_cap; s->pids[i] >= 0; i = (i + 1) % s->pid_cap)
		if (s->pids[i] == pid)
			return 0;
	s->pids[i] = pid;
	s->npids++;
	return 0;
}

static int format_number(const char *fmt, const char *key)
{
	const char *p = strstr(fmt, key);

	return p ? atoi(p + strlen(key)) : -1;
}

static int save_formats(struct save_ctx *s, struct hs_error *err)
{
	struct hs_capture *c = s->c;

	s->pid_off = -1;
	for (unsigned int i = 0; i < c->nen; i++) {
		s->formats[i] = tracefs_event_file_read(c->inst, c->en_sys[i], c->en_ev[i], "format",
							&s->format_len[i]);
		if (!s->formats[i] || s->format_len[i] <= 0)
			return hs_error_set(err, HS_ERR_TRACEFS, "cannot read the format of %s",
					    c->en_names[i]);
		s->ids[i] = format_number(s->formats[i], "\nID: ");
		if (s->pid_off < 0)
			s->pid_off = format_number(s->formats[i], "common_pid;\toffset:");
	}
	if (s->pid_off < 0 || s->pid_off > 60)
		return hs_error_set(err, HS_ERR_TRACEFS, "cannot find common_pid in the event formats");
	return 0;
}

static void save_event(struct save_ctx *s, const unsigned char *data, size_t len)
{
	struct hs_capture *c = s->c;
	unsigned short type;
	int pid;

	if (len < (size_t)s->pid_off + sizeof(pid))
		return;
	memcpy(&type, data, sizeof(type));
	memcpy(&pid, data + s->pid_off, sizeof(pid));
	for (unsigned int i = 0; i < c->nen; i++) {
		if (s->ids[i] == type) {
			c->en_count[i]++;
			break;
		}
	}
	if (pid >= 0 && pidset_add(s, pid))
		atomic_store(&c->failed, 2);
}

/*
 * Read, not mapped: a page fault per 64 KiB of a file costs more than the
 * copy in a virtual machine, and the pages are still in the page cache.
 */
static int save_scan_cpu(struct save_ctx *s, unsigned char *chunk, size_t chunk_size, int fd,
			 uint64_t size)
{
	const size_t page_size = s->c->page_size;

	for (uint64_t off = 0; off < size;) {
		size_t want = size - off < chunk_size ? (size_t)(size - off) : chunk_size;
		ssize_t got = pread(fd, chunk, want, (off_t)off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got == 0)
				errno = EIO;
			return -1;
		}
		got -= got % (ssize_t)page_size;
		if (!got) {
			errno = EIO;
			return -1;
		}
		for (size_t pg = 0; pg < (size_t)got; pg += page_size) {
			struct hs_ringpage it;
			const unsigned char *ev;
			size_t len;

			if (!hs_ringpage_open(&it, chunk + pg, page_size))
				continue;
			while ((ev = hs_ringpage_next(&it, &len)))
				save_event(s, ev, len);
		}
		off += (uint64_t)got;
	}
	return 0;
}

static int save_scan(struct save_ctx *s, uint64_t *sizes, struct hs_error *err)
{
	struct hs_capture *c = s->c;
	size_t chunk_size = c->page_size > SAVE_SCAN_CHUNK ? c->page_size : SAVE_SCAN_CHUNK;
	unsigned char *chunk = malloc(chunk_size);
	int ret = 0;

	if (!chunk)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	for (unsigned int i = 0; i < c->ncpus && !ret; i++) {
		off_t end = lseek(c->cpus[i].fd, 0, SEEK_END);

		/* Only whole pages go into the file. */
		sizes[i] = end > 0 ? (uint64_t)end / c->page_size * c->page_size : 0;
		if (save_scan_cpu(s, chunk, chunk_size, c->cpus[i].fd, sizes[i]))
			ret = hs_error_set(err, HS_ERR_RUNTIME, "cannot read CPU %u data: %s", i,
					   strerror(errno));
	}
	free(chunk);
	if (!ret && atomic_load(&c->failed) == 2)
		ret = hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	return ret;
}

static const struct hs_thread_name *snap_find(const struct hs_capture *c, int tid)
{
	for (unsigned int i = 0; i < c->nsnap; i++)
		if (c->snap[i].tid == tid)
			return &c->snap[i];
	return NULL;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct hs_thread_name *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Names of the threads that appear: live ones from /proc, gone ones from the start snapshot. */
static int save_threads(struct save_ctx *s)
{
	s->threads = calloc(s->npids + 1, sizeof(*s->threads));
	if (!s->threads)
		return -1;
	for (size_t i = 0; i < s->pid_cap; i++) {
		struct hs_thread_name *t = &s->threads[s->nthreads];
		const struct hs_thread_name *old;
		int pid = s->pids[i];

		if (pid < 0)
			continue;
		t->tid = pid;
		if (pid == 0) {
			t->tgid = 0;
			snprintf(t->comm, sizeof(t->comm), "<idle>");
		} else if (hs_sysinfo_thread(pid, t->comm, sizeof(t->comm), &t->tgid)) {
			old = snap_find(s->c, pid);
			if (!old)
				continue;
			*t = *old;
		}
		s->nthreads++;
	}
	qsort(s->threads, s->nthreads, sizeof(*s->threads), cmp_thread);
	return 0;
}

static void meta_processes(struct save_ctx *s, struct hs_sbuf *sb)
{
	for (unsigned int i = 0; i < s->nthreads; i++) {
		int tgid = s->threads[i].tgid;
		char vm[256] = "", comm[64] = "";
		bool dup = false;
		int g;

		for (unsigned int j = 0; j < i && !dup; j++)
			dup = s->threads[j].tgid == tgid;
		if (dup || tgid <= 0)
			continue;
		hs_sysinfo_vm_name(tgid, vm, sizeof(vm));
		if (hs_sysinfo_thread(tgid, comm, sizeof(comm), &g)) {
			const struct hs_thread_name *old = snap_find(s->c, tgid);

			snprintf(comm, sizeof(comm), "%s", old ? old->comm : "");
		}
		hs_sbuf_printf(sb, "process=%d %s\t%s\n", tgid, vm, comm);
	}
}

static void save_meta(struct save_ctx *s, const char *release, const char *clock,
		      struct hs_sbuf *sb)
{
	struct hs_capture *c = s->c;
	double secs = (double)(c->t1.tv_sec - c->t0.tv_sec) + (c->t1.tv_nsec - c->t0.tv_nsec) / 1e9;

	hs_sbuf_printf(sb, "haltstat_version=%s\nkernel_release=%s\nclock=%s\n",
		       HS_VERSION, release, clock);
	hs_sbuf_printf(sb, "record_seconds=%.3f\nncpus=%u\nevents=", secs, c->ncpus);
	for (unsigned int i = 0; i < c->nen; i++)
		hs_sbuf_printf(sb, "%s%s", i ? "," : "", c->en_names[i]);
	hs_sbuf_printf(sb, "\n");
	hs_sysinfo_params_append(sb);
	for (unsigned int i = 0; i < c->ncpus; i++)
		hs_sbuf_printf(sb, "lost.cpu%u=%llu\n", i, (unsigned long long)c->lost[i]);
	for (unsigned int i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid > 0)
			hs_sbuf_printf(sb, "thread=%d %d %s\n", s->threads[i].tid, s->threads[i].tgid,
				       s->threads[i].comm);
	meta_processes(s, sb);
}

static void save_clock(struct hs_capture *c, char *clock, size_t n)
{
	char *s = tracefs_instance_file_read(c->inst, "trace_clock", NULL);
	char *b = s ? strchr(s, '[') : NULL;

	snprintf(clock, n, "local");
	if (b && strchr(b, ']'))
		snprintf(clock, n, "%.*s", (int)(strchr(b, ']') - b - 1), b + 1);
	free(s);
}

/* The output is born unlinked and only gets a name once complete. */
static int save_open(struct hs_capture *c, struct hs_error *err)
{
	int fd = open(c->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		goto out;
	snprintf(c->tmp_output, sizeof(c->tmp_output), "%s.XXXXXX", c->output);
	fd = mkostemp(c->tmp_output, O_CLOEXEC);
	if (fd < 0)
		c->tmp_output[0] = '\0';
	else if (fchmod(fd, 0644)) {
		/* Keeps mkstemp's 0600: still a valid file. */
	}
out:
	if (fd < 0)
		return hs_error_set(err, HS_ERR_OUTPUT, "cannot create %s: %s", c->output,
				    strerror(errno));
	return fd;
}

static int save_publish(struct hs_capture *c, int fd, struct hs_error *err)
{
	char proc[64];

	if (!c->tmp_output[0]) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		snprintf(c->tmp_output, sizeof(c->tmp_output), "%s.%d.tmp", c->output, (int)getpid());
		unlink(c->tmp_output);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, c->tmp_output, AT_SYMLINK_FOLLOW)) {
			c->tmp_output[0] = '\0';
			return hs_error_set(err, HS_ERR_OUTPUT, "cannot create %s: %s", c->output,
					    strerror(errno));
		}
	}
	if (rename(c->tmp_output, c->output))
		return hs_error_set(err, HS_ERR_OUTPUT, "cannot rename to %s: %s", c->output,
				    strerror(errno));
	c->tmp_output[0] = '\0';
	return 0;
}

static int save_write(struct save_ctx *s, const uint64_t *sizes, struct hs_sbuf *meta,
		      struct hs_sbuf *cmdlines, const char *uname_full, const char *clock,
		      struct hs_error *err)
{
	struct hs_capture *c = s->c;
	struct hs_tracedat_format fm[HS_CAPTURE_MAX_EVENTS];
	struct hs_tracedat_cpu *cpus = calloc(c->ncpus, sizeof(*cpus));
	struct hs_tracedat_desc d = { 0 };
	int fd, ret;

	if (!cpus)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	d.page_size = c->page_size;
	d.header_page = tracefs_instance_file_read(NULL, "events/header_page", NULL);
	d.header_event = tracefs_instance_file_read(NULL, "events/header_event", NULL);
	for (unsigned int i = 0; i < c->nen; i++)
		fm[i] = (struct hs_tracedat_format){ c->en_sys[i], s->formats[i],
						     (size_t)s->format_len[i] };
	for (unsigned int i = 0; i < c->ncpus; i++)
		cpus[i] = (struct hs_tracedat_cpu){ NULL, c->cpus[i].fd, sizes[i] };
	d.header_page_len = d.header_page ? strlen(d.header_page) : 0;
	d.header_event_len = d.header_event ? strlen(d.header_event) : 0;
	d.formats = fm;
	d.nformats = c->nen;
	d.cmdlines = cmdlines->s ? cmdlines->s : "";
	d.cmdlines_len = cmdlines->len;
	d.ncpus = c->ncpus;
	d.cpus = cpus;
	d.uname = uname_full;
	d.clock = clock;
	d.cpustat = (const char *const *)c->cpustat;
	d.meta = meta->s;
	d.meta_len = meta->len;
	fd = save_open(c, err);
	ret = fd < 0 ? HS_ERR_OUTPUT : hs_tracedat_write(fd, &d, err);
	if (!ret)
		ret = save_publish(c, fd, err);
	if (fd >= 0 && close(fd) && !ret)
		ret = hs_error_set(err, HS_ERR_OUTPUT, "cannot write %s: %s", c->output,
				   strerror(errno));
	free((char *)d.header_page);
	free((char *)d.header_event);
	free(cpus);
	return ret;
}

static void save_summary(struct save_ctx *s, struct hs_capture_summary *sum)
{
	struct hs_capture *c = s->c;
	struct stat st;

	memset(sum, 0, sizeof(*sum));
	sum->seconds = (double)(c->t1.tv_sec - c->t0.tv_sec) + (c->t1.tv_nsec - c->t0.tv_nsec) / 1e9;
	sum->ncpus = c->ncpus;
	sum->lost = c->lost;
	sum->lost_total = c->lost_total;
	sum->nevents = c->nen;
	sum->event_names = c->en_names;
	sum->event_counts = c->en_count;
	for (unsigned int i = 0; i < c->nen; i++)
		sum->total_events += c->en_count[i];
	sum->nthreads = (unsigned int)s->npids;
	if (stat(c->output, &st) == 0)
		sum->file_size = (uint64_t)st.st_size;
}

int hs_capture_save(struct hs_capture *c, struct hs_capture_summary *sum, struct hs_error *err)
{
	struct save_ctx s = { .c = c };
	struct hs_sbuf meta = { 0 }, cmdlines = { 0 };
	char uname_full[512], release[128], clock[64];
	uint64_t *sizes;
	int ret;

	if (!c->output[0])
		return hs_error_set(err, HS_ERR_RUNTIME, "nothing to save: capture without output");
	sizes = calloc(c->ncpus, sizeof(*sizes));
	if (!sizes)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	ret = save_formats(&s, err);
	if (!ret)
		ret = save_scan(&s, sizes, err);
	if (!ret && save_threads(&s))
		ret = hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	if (!ret) {
		if (hs_sysinfo_uname(uname_full, sizeof(uname_full), release, sizeof(release)))
			uname_full[0] = release[0] = '\0';
		save_clock(c, clock, sizeof(clock));
		save_meta(&s, release, clock, &meta);
		for (unsigned int i = 0; i < s.nthreads; i++)
			hs_sbuf_printf(&cmdlines, "%d %s\n", s.threads[i].tid, s.threads[i].comm);
		if (meta.oom || cmdlines.oom)
			ret = hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	}
	if (!ret)
		ret = save_write(&s, sizes, &meta, &cmdlines, uname_full[0] ? uname_full : NULL,
				 clock, err);
	if (!ret)
		save_summary(&s, sum);
	hs_sbuf_free(&meta);
	hs_sbuf_free(&cmdlines);
	for (unsigned int i = 0; i < c->nen; i++)
		free(s.formats[i]);
	free(s.pids);
	free(s.threads);
	free(sizes);
	return ret;
}
