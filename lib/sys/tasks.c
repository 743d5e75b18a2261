// SPDX-License-Identifier: GPL-2.0-only
/*
 * The thread identity table of a recording (tasks.h): what /proc shows
 * while threads live, what the recording's task events say about the
 * others, and the watcher thread that keeps up with new processes.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../intmap.h"
#include "sysinfo.h"
#include "../error.h"
#include "tasks.h"
#include "../vmm.h"

#define TASKS_CLONE_THREAD 0x00010000ull
/* A process is re-read for this many watcher ticks after it is found: it may not have exec'd yet. */
#define TASKS_YOUNG_TICKS 5
/* Every this many ticks the watcher lists every thread again (kernels without task events). */
#define TASKS_FULL_SCAN_TICKS 25

struct tasks_thread {
	struct hs_task pub;
	bool exited;			/* its tid may belong to someone else by now */
};

struct tasks_process {
	struct hs_task_process pub;
	unsigned int young;		/* watcher ticks left to re-read the command line */
};

struct hs_tasks {
	struct tasks_thread *threads;
	unsigned int nthreads, cap_threads;
	struct hs_imap thread_map;
	struct tasks_process *procs;
	unsigned int nprocs, cap_procs;
	struct hs_imap proc_map;

	pthread_t watcher;
	bool watching;
	atomic_bool stop;
	unsigned int interval_ms;
	int oom;			/* sticky: a name could not be stored */
};

struct hs_tasks *hs_tasks_alloc(void)
{
	return calloc(1, sizeof(struct hs_tasks));
}

void hs_tasks_free(struct hs_tasks *t)
{
	if (!t)
		return;
	hs_tasks_watch_stop(t);
	hs_imap_free(&t->thread_map);
	hs_imap_free(&t->proc_map);
	free(t->threads);
	free(t->procs);
	free(t);
}

/* Names go into one-line metadata: no control characters. */
static void tasks_copy_comm(char *dst, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i < HS_TASK_COMM - 1; i++)
		dst[i] = (unsigned char)src[i] < 0x20 || src[i] == 0x7f ? ' ' : src[i];
	dst[i] = '\0';
}

static struct tasks_thread *tasks_thread(struct hs_tasks *t, int tid, bool create)
{
	long i = hs_imap_get(&t->thread_map, tid);
	bool added;

	if (i >= 0)
		return &t->threads[i];
	if (!create || tid <= 0)
		return NULL;
	i = hs_itable_slot(&t->thread_map, (void **)&t->threads, &t->nthreads, &t->cap_threads,
			   sizeof(*t->threads), tid, UINT_MAX, &added);
	if (i < 0) {
		t->oom = 1;
		return NULL;
	}
	t->threads[i].pub.tid = tid;
	t->threads[i].pub.tgid = -1;
	return &t->threads[i];
}

static struct tasks_process *tasks_process(struct hs_tasks *t, int tgid, bool create)
{
	long i = hs_imap_get(&t->proc_map, tgid);
	bool added;

	if (i >= 0)
		return &t->procs[i];
	if (!create || tgid <= 0)
		return NULL;
	i = hs_itable_slot(&t->proc_map, (void **)&t->procs, &t->nprocs, &t->cap_procs,
			   sizeof(*t->procs), tgid, UINT_MAX, &added);
	if (i < 0) {
		t->oom = 1;
		return NULL;
	}
	t->procs[i].pub.tgid = tgid;
	return &t->procs[i];
}

/* A thread's name; the main thread's is its process's too. */
static void tasks_name(struct hs_tasks *t, struct tasks_thread *th, const char *comm)
{
	struct tasks_process *p;

	tasks_copy_comm(th->pub.comm, comm);
	if (th->pub.tgid == th->pub.tid && (p = tasks_process(t, th->pub.tgid, true)))
		tasks_copy_comm(p->pub.comm, comm);
}

/* ---- /proc ---- */

static bool tasks_read_comm(const char *path, char *comm, size_t n)
{
	ssize_t r = hs_sysinfo_read(path, comm, n);

	if (r <= 0)
		return false;
	if (comm[r - 1] == '\n')
		comm[r - 1] = '\0';
	return true;
}

static void tasks_learn_cmdline(struct tasks_process *p)
{
	char path[64], buf[16384];
	ssize_t r;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", p->pub.tgid);
	r = hs_sysinfo_read(path, buf, sizeof(buf));
	if (r > 0)
		hs_vmm_vm_name(buf, (size_t)r, p->pub.vm_name, sizeof(p->pub.vm_name));
}

static void tasks_learn_threads(struct hs_tasks *t, int tgid)
{
	char path[96], comm[HS_TASK_COMM];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct tasks_thread *th;
		int tid = atoi(de->d_name);

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", tgid, tid);
		if (!tasks_read_comm(path, comm, sizeof(comm)) || !(th = tasks_thread(t, tid, true)))
			continue;
		th->pub.tgid = tgid;
		th->exited = false;
		tasks_name(t, th, comm);
	}
	closedir(d);
}

/* A process and its threads as /proc shows them now; false when it is gone. */
static bool tasks_learn_process(struct hs_tasks *t, int tgid, unsigned int young)
{
	struct tasks_process *p;
	char path[64], comm[HS_TASK_COMM];

	snprintf(path, sizeof(path), "/proc/%d/comm", tgid);
	if (!tasks_read_comm(path, comm, sizeof(comm)))
		return false;
	p = tasks_process(t, tgid, true);
	if (!p)
		return false;
	tasks_copy_comm(p->pub.comm, comm);
	p->young = young;
	tasks_learn_cmdline(p);
	tasks_learn_threads(t, tgid);
	return true;
}

/* full: every process; otherwise only those not seen before, and the young ones again. */
static int tasks_walk_proc(struct hs_tasks *t, bool full)
{
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d)
		return HS_ERR_RUNTIME;
	while ((de = readdir(d)) && !t->oom) {
		struct tasks_process *p;
		int tgid = isdigit((unsigned char)de->d_name[0]) ? atoi(de->d_name) : 0;

		if (tgid <= 0)
			continue;
		p = tasks_process(t, tgid, false);
		if (!p || full)
			tasks_learn_process(t, tgid, p ? p->young : TASKS_YOUNG_TICKS);
		else if (p->young)
			tasks_learn_process(t, tgid, p->young - 1);
	}
	closedir(d);
	return 0;
}

int hs_tasks_scan_proc(struct hs_tasks *t)
{
	/* processes that exist before the recording are not young: they have exec'd */
	int ret = tasks_walk_proc(t, true);

	for (unsigned int i = 0; i < t->nprocs; i++)
		t->procs[i].young = 0;
	return ret;
}

static void *tasks_watch_main(void *arg)
{
	struct hs_tasks *t = arg;
	struct timespec ts = { t->interval_ms / 1000, (long)(t->interval_ms % 1000) * 1000000L };

	hs_tasks_scan_proc(t);
	for (unsigned int tick = 1; !atomic_load(&t->stop); tick++) {
		nanosleep(&ts, NULL);
		if (!atomic_load(&t->stop))
			tasks_walk_proc(t, tick % TASKS_FULL_SCAN_TICKS == 0);
	}
	return NULL;
}

int hs_tasks_watch_start(struct hs_tasks *t, unsigned int interval_ms)
{
	t->interval_ms = interval_ms ? interval_ms : 200;
	atomic_store(&t->stop, false);
	errno = pthread_create(&t->watcher, NULL, tasks_watch_main, t);
	if (errno)
		return HS_ERR_RUNTIME;
	t->watching = true;
	return 0;
}

void hs_tasks_watch_stop(struct hs_tasks *t)
{
	if (!t->watching)
		return;
	atomic_store(&t->stop, true);
	pthread_join(t->watcher, NULL);
	t->watching = false;
}

/* ---- the recording's task events ---- */

void hs_tasks_forked(struct hs_tasks *t, int parent, int child, uint64_t clone_flags,
		     const char *comm)
{
	struct tasks_thread *th = tasks_thread(t, child, true), *pt;

	if (!th)
		return;
	th->exited = false;
	if (!(clone_flags & TASKS_CLONE_THREAD)) {
		th->pub.tgid = child;
	} else {
		pt = tasks_thread(t, parent, false);
		th->pub.tgid = pt ? pt->pub.tgid : -1;
	}
	tasks_name(t, th, comm);
}

void hs_tasks_renamed(struct hs_tasks *t, int tid, const char *comm)
{
	struct tasks_thread *th = tasks_thread(t, tid, true);

	if (th)
		tasks_name(t, th, comm);
}

void hs_tasks_exited(struct hs_tasks *t, int tid, const char *comm)
{
	struct tasks_thread *th = tasks_thread(t, tid, true);

	if (!th)
		return;
	tasks_name(t, th, comm);
	th->exited = true;
}

void hs_tasks_fill_names(struct hs_tasks *t, const char *text)
{
	const char *s = text;

	while (s && *s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		char line[128], *sp;
		int tid;

		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), s);
		s = nl ? nl + 1 : NULL;
		tid = atoi(line);
		sp = strchr(line, ' ');
		if (tid <= 0 || !sp || !sp[1] || !strcmp(sp + 1, "<...>") || tasks_thread(t, tid, false))
			continue;
		struct tasks_thread *th = tasks_thread(t, tid, true);

		if (th)
			tasks_copy_comm(th->pub.comm, sp + 1);
	}
}

void hs_tasks_refresh(struct hs_tasks *t, int tid)
{
	struct tasks_thread *th = tasks_thread(t, tid, false);
	char path[96], status[512], comm[HS_TASK_COMM];
	const char *g;
	int tgid;

	if (th && th->exited)
		return;
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	if (hs_sysinfo_read(path, status, sizeof(status)) <= 0 || !(g = strstr(status, "\nTgid:")))
		return;
	tgid = atoi(g + 6);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", tgid, tid);
	if (tgid <= 0 || !tasks_read_comm(path, comm, sizeof(comm)))
		return;
	th = tasks_thread(t, tid, true);
	if (!th)
		return;
	th->pub.tgid = tgid;
	tasks_name(t, th, comm);
	if (!tasks_process(t, tgid, false))
		tasks_learn_process(t, tgid, 0);
}

const struct hs_task *hs_tasks_find(const struct hs_tasks *t, int tid)
{
	long i = hs_imap_get(&t->thread_map, tid);

	return i >= 0 ? &t->threads[i].pub : NULL;
}

const struct hs_task_process *hs_tasks_process(const struct hs_tasks *t, int tgid)
{
	long i = hs_imap_get(&t->proc_map, tgid);

	return i >= 0 ? &t->procs[i].pub : NULL;
}

void hs_tasks_note_cmdline(struct hs_tasks *t, int tgid, const char *cmdline, size_t len)
{
	struct tasks_process *p = t ? tasks_process(t, tgid, false) : NULL;

	if (p && !p->pub.vm_name[0])
		hs_vmm_vm_name(cmdline, len, p->pub.vm_name, sizeof(p->pub.vm_name));
}
