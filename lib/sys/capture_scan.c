// SPDX-License-Identifier: GPL-2.0-only
/*
 * After a capture stops: one pass over the saved pages counts the events,
 * collects the thread ids that appear and replays the task events in time
 * order into the identity table, which then names every one of those
 * threads (tasks.h gives the order of the sources).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "capture_priv.h"
#include "../evdecode.h"
#include "../intmap.h"
#include "../ringbuf.h"
#include "tasks.h"

/* bytes read at a time: whole pages (sub-buffers may be larger) */
#define SCAN_CHUNK (1u << 20)

/* A task event kept for the replay once every CPU is read. */
struct scan_change {
	uint64_t ts;
	int kind;
	int parent;			/* the thread that emitted it */
	int pid;
	uint64_t clone_flags;
	char comm[HS_TASK_COMM];
};

struct scan_ctx {
	struct hs_capture *c;
	struct tep_handle *tep;
	struct hs_ev_layout lay;
	int ids[HS_CAPTURE_MAX_EVENTS];		/* per enabled event */
	int pid_off;
	struct hs_imap tid_set;
	unsigned int ntids, cap_tids;
	struct scan_change *changes;
	unsigned int nchanges, cap_changes;
	bool oom;
};

static int scan_format_number(const char *fmt, const char *key)
{
	const char *p = strstr(fmt, key);

	return p ? atoi(p + strlen(key)) : -1;
}

static char *scan_read_format(struct hs_capture *c, const char *sys, const char *ev, size_t *len)
{
	int n = 0;
	char *s = tracefs_event_file_read(c->inst, sys, ev, "format", &n);

	if (s && n > 0) {
		*len = (size_t)n;
		return s;
	}
	free(s);
	return NULL;
}

/* The formats of what was recorded, and a tep that knows them. */
static int scan_formats(struct scan_ctx *s, struct hs_error *err)
{
	struct hs_capture *c = s->c;
	size_t len;

	c->header_page = tracefs_instance_file_read(c->inst, "events/header_page", NULL);
	c->header_event = tracefs_instance_file_read(c->inst, "events/header_event", NULL);
	if (!c->header_page || !c->header_event)
		return hs_error_set(err, HS_ERR_TRACEFS, "cannot read the ring-buffer headers");
	s->tep = tep_alloc();
	if (!s->tep)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	s->pid_off = -1;
	for (unsigned int i = 0; i < c->nen; i++) {
		char *fmt = scan_read_format(c, c->en_sys[i], c->en_ev[i], &len);

		if (!fmt)
			return hs_error_set(err, HS_ERR_TRACEFS, "cannot read the format of %s",
					    c->en_names[i]);
		c->formats[i] = (struct hs_capture_format){ c->en_sys[i], fmt, len };
		s->ids[i] = scan_format_number(fmt, "\nID: ");
		if (s->pid_off < 0)
			s->pid_off = scan_format_number(fmt, "common_pid;\toffset:");
		hs_ev_tep_lock();
		tep_parse_event(s->tep, fmt, len, c->en_sys[i]);
		hs_ev_tep_unlock();
	}
	if (s->pid_off < 0 || s->pid_off > 60)
		return hs_error_set(err, HS_ERR_TRACEFS, "cannot find common_pid in the event formats");
	hs_ev_layout_init(&s->lay, s->tep, false, HS_EV_MASK_TASKS);
	/* the notes are ftrace:print events: their format goes with the file */
	c->print_format.system = "ftrace";
	c->print_format.text = scan_read_format(c, "ftrace", "print", &len);
	c->print_format.len = c->print_format.text ? len : 0;
	return 0;
}

static void scan_tid(struct scan_ctx *s, int tid)
{
	struct hs_capture *c = s->c;

	if (tid < 0 || hs_imap_get(&s->tid_set, tid) >= 0)
		return;
	if (hs_array_reserve((void **)&c->tids, &s->cap_tids, s->ntids, sizeof(*c->tids)) ||
	    hs_imap_put(&s->tid_set, tid, s->ntids)) {
		s->oom = true;
		return;
	}
	c->tids[s->ntids++] = tid;
}

static void scan_change(struct scan_ctx *s, uint64_t ts, const struct hs_event *ev)
{
	struct scan_change *ch;
	size_t n = ev->task.comm_len < HS_TASK_COMM ? ev->task.comm_len : HS_TASK_COMM - 1;

	if (hs_array_reserve((void **)&s->changes, &s->cap_changes, s->nchanges,
			     sizeof(*s->changes))) {
		s->oom = true;
		return;
	}
	ch = &s->changes[s->nchanges++];
	ch->ts = ts;
	ch->kind = ev->kind;
	ch->parent = ev->tid;
	ch->pid = ev->task.pid;
	ch->clone_flags = ev->task.clone_flags;
	memcpy(ch->comm, ev->task.comm, n);
	ch->comm[n] = '\0';
}

static void scan_record(struct scan_ctx *s, uint64_t ts, const unsigned char *p, size_t len)
{
	struct hs_capture *c = s->c;
	struct hs_event ev;
	unsigned short type;
	int pid;

	if (len < (size_t)s->pid_off + sizeof(pid))
		return;
	memcpy(&type, p, sizeof(type));
	memcpy(&pid, p + s->pid_off, sizeof(pid));
	for (unsigned int i = 0; i < c->nen; i++) {
		if (s->ids[i] == type) {
			c->en_count[i]++;
			break;
		}
	}
	scan_tid(s, pid);
	if (c->tasks && hs_ev_decode(&s->lay, p, len, &ev) == 0) {
		scan_tid(s, ev.task.pid);
		scan_change(s, ts, &ev);
	}
}

/*
 * Read, not mapped: a page fault per 64 KiB of a file costs more than the
 * copy in a virtual machine, and the pages are still in the page cache.
 */
static int scan_cpu(struct scan_ctx *s, unsigned char *chunk, size_t chunk_size, int fd,
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
			return HS_ERR_INPUT;
		}
		got -= got % (ssize_t)page_size;
		if (!got) {
			errno = EIO;
			return HS_ERR_INPUT;
		}
		for (size_t pg = 0; pg < (size_t)got; pg += page_size) {
			struct hs_rb_walk w;
			const unsigned char *rec;
			size_t len;

			if (!hs_rb_page_native(&w, chunk + pg, page_size))
				continue;
			while (hs_rb_next(&w, &rec, &len) == HS_RB_RECORD)
				scan_record(s, w.ts, rec, len);
		}
		off += (uint64_t)got;
	}
	return 0;
}

int hs_capture_sizes(struct hs_capture *c, struct hs_error *err)
{
	for (unsigned int i = 0; i < c->ncpus; i++) {
		off_t end = c->cpus[i].fd >= 0 ? lseek(c->cpus[i].fd, 0, SEEK_END) : 0;

		if (end < 0)
			return hs_error_set(err, HS_ERR_RUNTIME, "cannot read CPU %u data: %s", i,
					    strerror(errno));
		/* Only whole pages go into the file. */
		c->cpu_sizes[i] = (uint64_t)end / c->page_size * c->page_size;
		c->cpu_fds[i] = c->cpus[i].fd;
	}
	return 0;
}

static int scan_pages(struct scan_ctx *s, struct hs_error *err)
{
	struct hs_capture *c = s->c;
	size_t chunk_size = c->page_size > SCAN_CHUNK ? c->page_size : SCAN_CHUNK;
	unsigned char *chunk = malloc(chunk_size);
	int ret = 0;

	if (!chunk)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	ret = hs_capture_sizes(c, err);
	for (unsigned int i = 0; i < c->ncpus && !ret; i++)
		if (c->cpu_fds[i] >= 0 && scan_cpu(s, chunk, chunk_size, c->cpu_fds[i], c->cpu_sizes[i]))
			ret = hs_error_set(err, HS_ERR_RUNTIME, "cannot read CPU %u data: %s", i,
					   strerror(errno));
	free(chunk);
	if (!ret && s->oom)
		ret = hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	return ret;
}

static int scan_cmp_change(const void *a, const void *b)
{
	const struct scan_change *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
}

static int scan_cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * The traced command's own process runs the argv it was started with: its
 * VM name is known even when it lived too briefly (or the host was too busy)
 * for the /proc watcher to read its command line after the exec.
 */
static void scan_command_cmdline(struct hs_capture *c)
{
	char buf[16384];
	size_t len = 0;

	if (c->command_pid <= 0 || !c->command_argv)
		return;
	for (char *const *a = c->command_argv; *a; a++) {
		size_t n = strlen(*a) + 1;

		if (len + n > sizeof(buf))
			break;
		memcpy(buf + len, *a, n);
		len += n;
	}
	hs_tasks_note_cmdline(c->tasks, c->command_pid, buf, len);
}

/* The task events in time order, then /proc and saved_cmdlines for whoever is still unknown. */
static void scan_name_threads(struct scan_ctx *s)
{
	struct hs_capture *c = s->c;
	char *saved;

	qsort(s->changes, s->nchanges, sizeof(*s->changes), scan_cmp_change);
	for (unsigned int i = 0; i < s->nchanges; i++) {
		const struct scan_change *ch = &s->changes[i];

		if (ch->kind == HS_EV_TASK_NEW)
			hs_tasks_forked(c->tasks, ch->parent, ch->pid, ch->clone_flags, ch->comm);
		else if (ch->kind == HS_EV_TASK_RENAME)
			hs_tasks_renamed(c->tasks, ch->pid, ch->comm);
		else
			hs_tasks_exited(c->tasks, ch->pid, ch->comm);
	}
	for (unsigned int i = 0; i < c->ntids; i++) {
		const struct hs_task *t = hs_tasks_find(c->tasks, c->tids[i]);

		if (c->tids[i] > 0 && (!t || t->tgid < 0))
			hs_tasks_refresh(c->tasks, c->tids[i]);
	}
	saved = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
	if (saved)
		hs_tasks_fill_names(c->tasks, saved);
	free(saved);
	scan_command_cmdline(c);
}

static void scan_result(struct hs_capture *c)
{
	struct hs_capture_result *r = &c->result;

	memset(r, 0, sizeof(*r));
	r->page_size = c->page_size;
	r->ncpus = c->ncpus;
	r->cpu_fd = c->cpu_fds;
	r->cpu_size = c->cpu_sizes;
	r->header_page = c->header_page;
	r->header_event = c->header_event;
	r->formats = c->formats;
	r->nformats = c->nen;
	r->ftrace_formats = &c->print_format;
	r->nftrace_formats = c->print_format.text ? 1 : 0;
	r->clock = c->clock;
	r->seconds = (double)(c->t1.tv_sec - c->t0.tv_sec) + (c->t1.tv_nsec - c->t0.tv_nsec) / 1e9;
	r->lost = c->lost;
	hs_cpu_steal_init(&r->steal);
	if (c->steal_cpus)
		hs_sysinfo_steal_delta(c->cpu_t0, c->cpu_t1, NULL, c->steal_cpus, &r->steal);
	r->lost_total = c->lost_total;
	r->cpustat = (const char *const *)c->cpustat;
	r->event_names = c->en_names;
	r->event_counts = c->en_count;
	r->nevents = c->nen;
	for (unsigned int i = 0; i < c->nen; i++)
		r->total_events += c->en_count[i];
	r->tids = c->tids;
	r->ntids = c->ntids;
	r->tasks = c->tasks;
}

static void scan_clock(struct hs_capture *c)
{
	char *s = tracefs_instance_file_read(c->inst, "trace_clock", NULL);
	char *b = s ? strchr(s, '[') : NULL;

	snprintf(c->clock, sizeof(c->clock), "local");
	if (b && strchr(b, ']'))
		snprintf(c->clock, sizeof(c->clock), "%.*s", (int)(strchr(b, ']') - b - 1), b + 1);
	free(s);
}

int hs_capture_scan(struct hs_capture *c, struct hs_error *err)
{
	struct scan_ctx s = { .c = c };
	int ret;

	if (!c->dir[0] || c->scanned)
		return hs_error_set(err, HS_ERR_RUNTIME, "nothing to scan");
	c->cpu_fds = calloc(c->ncpus, sizeof(*c->cpu_fds));
	c->cpu_sizes = calloc(c->ncpus, sizeof(*c->cpu_sizes));
	if (!c->cpu_fds || !c->cpu_sizes)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	ret = scan_formats(&s, err);
	if (!ret)
		ret = scan_pages(&s, err);
	if (!ret) {
		c->ntids = s.ntids;
		qsort(c->tids, c->ntids, sizeof(*c->tids), scan_cmp_int);
		if (c->tasks)
			scan_name_threads(&s);
		scan_clock(c);
		scan_result(c);
		c->scanned = true;
	}
	hs_imap_free(&s.tid_set);
	free(s.changes);
	if (s.tep)
		tep_free(s.tep);
	return ret;
}

void hs_capture_scan_free(struct hs_capture *c)
{
	for (unsigned int i = 0; i < c->nen; i++)
		free((char *)c->formats[i].text);
	free((char *)c->print_format.text);
	free(c->header_page);
	free(c->header_event);
	free(c->cpu_fds);
	free(c->cpu_sizes);
	free(c->tids);
}
