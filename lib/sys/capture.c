// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tracefs side of `haltstat record`: instance lifecycle, event enabling,
 * per-CPU splice readers, stop/flush, kernel stats and cleanup.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>

#include "capture_priv.h"
#include "../evdecode.h"
#include "sysinfo.h"
#include "tasks.h"

#define HS_TRACEFS	"/sys/kernel/tracing"
/* Wake the readers at 10% full: plenty of headroom, few wakeups. */
#define HS_BUFFER_PERCENT "10"

static int capture_check_tracefs(struct hs_error *err)
{
	struct stat st;

	if (stat(HS_TRACEFS "/instances", &st) == 0) {
		if (access(HS_TRACEFS "/instances", W_OK))
			return hs_error_set(err, HS_ERR_PERM,
					    "no permission on %s (run as root)", HS_TRACEFS);
		return 0;
	}
	if (errno == EACCES)
		return hs_error_set(err, HS_ERR_PERM, "no permission on %s (run as root)",
				    HS_TRACEFS);
	if (mount("nodev", HS_TRACEFS, "tracefs", 0, NULL)) {
		if (errno == EPERM || errno == EACCES)
			return hs_error_set(err, HS_ERR_PERM,
					    "cannot mount tracefs on %s: %s (run as root)",
					    HS_TRACEFS, strerror(errno));
		return hs_error_set(err, HS_ERR_TRACEFS, "tracefs unavailable: cannot mount it on %s: %s",
				    HS_TRACEFS, strerror(errno));
	}
	if (stat(HS_TRACEFS "/instances", &st))
		return hs_error_set(err, HS_ERR_TRACEFS,
				    "tracefs mounted on %s has no instances directory", HS_TRACEFS);
	return 0;
}

/* An instance haltstat_<pid> is stale when no haltstat process owns that pid. */
static bool capture_owner_dead(int pid)
{
	char path[64], comm[64];
	FILE *f;
	bool dead;

	if (pid == getpid())
		return true;
	if (kill(pid, 0) && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return true;
	dead = !fgets(comm, sizeof(comm), f) || strncmp(comm, "haltstat", 8);
	fclose(f);
	return dead;
}

static void capture_reap_stale(void)
{
	struct dirent *de;
	DIR *d = opendir(HS_TRACEFS "/instances");

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct tracefs_instance *inst;
		char tail;
		int pid;

		if (sscanf(de->d_name, "haltstat_%d%c", &pid, &tail) != 1 || pid <= 0 ||
		    !capture_owner_dead(pid))
			continue;
		inst = tracefs_instance_alloc(NULL, de->d_name);
		if (!inst)
			continue;
		tracefs_trace_off(inst);
		tracefs_event_disable(inst, NULL, NULL);
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
	}
	closedir(d);
}

/* An unlinked file in the output directory: nothing is left behind, whatever happens. */
static int capture_tmpfile(const char *dir, struct hs_error *err)
{
	char path[4200];
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0)
		return fd;
	if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL) {
		snprintf(path, sizeof(path), "%s/.haltstat-cpu-XXXXXX", dir);
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0) {
			unlink(path);
			return fd;
		}
	}
	return hs_error_set(err, HS_ERR_OUTPUT, "cannot write to %s: %s", dir, strerror(errno));
}

static int capture_alloc(struct hs_capture **cp, const struct hs_capture_opts *o,
			 struct hs_error *err)
{
	struct hs_capture *c;
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (o->dir && (!o->dir[0] || strlen(o->dir) >= sizeof(c->dir)))
		return hs_error_set(err, HS_ERR_OUTPUT, "bad output directory name");
	if (o->nevents > HS_CAPTURE_MAX_EVENTS - HS_CAPTURE_NTASK_EVENTS ||
	    o->npids > HS_CAPTURE_MAX_PIDS)
		return hs_error_set(err, HS_ERR_USAGE, "too many events or pids");
	c = calloc(1, sizeof(*c));
	if (!c)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	*cp = c;
	c->free_fd = -1;
	c->stop_fd = -1;
	c->ncpus = n > 0 ? (unsigned int)n : 1;
	if (o->dir)
		snprintf(c->dir, sizeof(c->dir), "%s", o->dir);
	snprintf(c->name, sizeof(c->name), "haltstat_%d", (int)getpid());
	c->cpus = calloc(c->ncpus, sizeof(*c->cpus));
	c->lost = calloc(c->ncpus, sizeof(*c->lost));
	c->cpustat = calloc(c->ncpus, sizeof(*c->cpustat));
	c->cpu_t0 = calloc(2 * (size_t)c->ncpus, sizeof(*c->cpu_t0));
	c->cpu_t1 = c->cpu_t0 ? c->cpu_t0 + c->ncpus : NULL;
	if (!c->cpus || !c->lost || !c->cpustat || !c->cpu_t0)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	for (unsigned int i = 0; i < c->ncpus; i++) {
		c->cpus[i].c = c;
		c->cpus[i].cpu = i;
		c->cpus[i].raw_fd = -1;
		c->cpus[i].fd = -1;
	}
	if (o->identity && !(c->tasks = hs_tasks_alloc()))
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	return 0;
}

static int capture_tmpfiles(struct hs_capture *c, struct hs_error *err)
{
	for (unsigned int i = 0; i < c->ncpus; i++) {
		c->cpus[i].fd = capture_tmpfile(c->dir, err);
		if (c->cpus[i].fd < 0)
			return HS_ERR_OUTPUT;
	}
	return 0;
}

static int capture_page_size(struct hs_capture *c, struct hs_error *err)
{
	struct tep_handle *tep = tep_alloc();
	char *hp;
	int len = 0, sz = -1;

	hp = tracefs_instance_file_read(NULL, "events/header_page", &len);
	if (tep && hp && tep_parse_header_page(tep, hp, len, sizeof(long)) == 0)
		sz = tep_get_sub_buffer_size(tep);
	free(hp);
	tep_free(tep);
	if (sz <= 0 || (sz & (sz - 1)))
		return hs_error_set(err, HS_ERR_TRACEFS, "cannot read the ring-buffer page size");
	c->page_size = (unsigned int)sz;
	return 0;
}

static int capture_instance(struct hs_capture *c, const struct hs_capture_opts *o,
			    struct hs_error *err)
{
	unsigned int kib = o->buffer_kib;
	char pct[16];

	c->inst = tracefs_instance_create(c->name);
	if (!c->inst)
		return hs_error_set(err, errno == EACCES || errno == EPERM ? HS_ERR_PERM : HS_ERR_TRACEFS,
				    "cannot create tracefs instance %s: %s", c->name, strerror(errno));
	if (!tracefs_instance_is_new(c->inst)) {
		/* Not ours: never destroy it. */
		tracefs_instance_free(c->inst);
		c->inst = NULL;
		return hs_error_set(err, HS_ERR_TRACEFS, "tracefs instance %s already exists", c->name);
	}
	if (tracefs_trace_off(c->inst))
		return hs_error_set(err, HS_ERR_TRACEFS, "cannot stop tracing in instance %s", c->name);
	if (tracefs_instance_set_buffer_size(c->inst, kib, -1))
		return hs_error_set(err, HS_ERR_RUNTIME, "cannot allocate a %u KiB ring buffer per CPU: %s",
				    kib, strerror(errno));
	snprintf(pct, sizeof(pct), "%u", o->buffer_percent);
	tracefs_instance_file_write(c->inst, "buffer_percent",
				    o->buffer_percent ? pct : HS_BUFFER_PERCENT);
	if (o->clock && tracefs_instance_file_write(c->inst, "trace_clock", o->clock) < 0)
		return hs_error_set(err, HS_ERR_TRACEFS, "cannot set trace clock %s in instance %s",
				    o->clock, c->name);
	/* If we die, closing free_buffer stops tracing and frees the buffer. */
	if (tracefs_option_enable(c->inst, TRACEFS_OPTION_DISABLE_ON_FREE) == 0)
		c->free_fd = tracefs_instance_file_open(c->inst, "free_buffer", O_WRONLY | O_CLOEXEC);
	return 0;
}

static int capture_pids(struct hs_capture *c, const struct hs_capture_opts *o, struct hs_error *err)
{
	char *list = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&list, &len);
	int tids[4096];
	int ret = 0;

	if (!f)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	for (unsigned int i = 0; i < o->npids && !ret; i++) {
		int n = hs_sysinfo_tasks(o->pids[i], tids, 4096);

		if (n <= 0) {
			ret = hs_error_set(err, HS_ERR_USAGE, "no such process: %d", o->pids[i]);
			break;
		}
		c->pids[c->npids++] = o->pids[i];
		for (int t = 0; t < n; t++)
			fprintf(f, "%d ", tids[t]);
	}
	if (fclose(f) && !ret)
		ret = hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	/* Threads created later (vCPU hotplug) follow their parent with event-fork. */
	if (!ret && (tracefs_option_enable(c->inst, TRACEFS_OPTION_EVENT_FORK) ||
		     tracefs_instance_file_write(c->inst, "set_event_pid", list) < 0))
		ret = hs_error_set(err, HS_ERR_TRACEFS, "cannot set the pid filter: %s",
				   strerror(errno));
	free(list);
	return ret;
}

static void capture_add_event(struct hs_capture *c, const char *sys, const char *ev,
			      const char *filter)
{
	c->en_filter[c->nen] = filter;
	snprintf(c->en_sys[c->nen], sizeof(c->en_sys[0]), "%s", sys);
	snprintf(c->en_ev[c->nen], sizeof(c->en_ev[0]), "%s", ev);
	snprintf(c->req[c->nreq], sizeof(c->req[0]), "%s:%s", sys, ev);
	c->en_names[c->nen++] = c->req[c->nreq++];
}

/* Which of the requested events exist; none is enabled yet. */
static int capture_resolve_events(struct hs_capture *c, const struct hs_capture_opts *o,
				  struct hs_error *err)
{
	for (unsigned int i = 0; i < o->nevents; i++) {
		char sys[64], ev[64];
		const char *colon = strchr(o->events[i], ':');

		if (!colon || colon == o->events[i] || (size_t)(colon - o->events[i]) >= sizeof(sys) ||
		    strlen(colon + 1) >= sizeof(ev) || !colon[1])
			return hs_error_set(err, HS_ERR_USAGE, "bad event name '%s' (want SYSTEM:EVENT)",
					    o->events[i]);
		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - o->events[i]), o->events[i]);
		snprintf(ev, sizeof(ev), "%s", colon + 1);
		if (!tracefs_event_file_exists(c->inst, sys, ev, "format")) {
			if (o->required && o->required[i])
				return hs_error_set(err, HS_ERR_NO_EVENTS, "event %s does not exist here",
						    o->events[i]);
			snprintf(c->req[c->nreq], sizeof(c->req[0]), "%s", o->events[i]);
			c->missing[c->nmissing++] = c->req[c->nreq++];
			continue;
		}
		capture_add_event(c, sys, ev, o->filters ? o->filters[i] : NULL);
	}
	if (!c->nen)
		return hs_error_set(err, HS_ERR_NO_EVENTS, "none of the requested events exist here%s",
				    c->nmissing && !strncmp(c->missing[0], "kvm:", 4) ?
				    " (is the kvm module loaded?)" : "");
	/* who the threads were: optional, /proc alone is the fallback */
	for (int k = HS_EV_TASK_NEW; o->identity && k <= HS_EV_TASK_EXIT; k++) {
		const char *sys = hs_ev_system(k), *ev = hs_ev_name(k);
		bool dup = false;

		for (unsigned int i = 0; i < c->nen; i++)
			dup |= !strcmp(c->en_sys[i], sys) && !strcmp(c->en_ev[i], ev);
		if (!dup && tracefs_event_file_exists(c->inst, sys, ev, "format"))
			capture_add_event(c, sys, ev, NULL);
	}
	return 0;
}

static int capture_enable_events(struct hs_capture *c, struct hs_error *err)
{
	for (unsigned int i = 0; i < c->nen; i++) {
		const char *f = c->en_filter[i];

		if (f && tracefs_event_file_write(c->inst, c->en_sys[i], c->en_ev[i], "filter",
						  f) < 0)
			return hs_error_set(err, HS_ERR_TRACEFS, "cannot set the filter of %s to "
					    "'%s': %s", c->en_names[i], f, strerror(errno));
		if (tracefs_event_enable(c->inst, c->en_sys[i], c->en_ev[i]))
			return hs_error_set(err, HS_ERR_TRACEFS, "cannot enable event %s: %s",
					    c->en_names[i], strerror(errno));
	}
	return 0;
}

/* One trace_marker write per line: each becomes one ftrace:print event. */
static int capture_note(struct hs_capture *c, const char *notes, struct hs_error *err)
{
	int fd = tracefs_instance_file_open(c->inst, "trace_marker", O_WRONLY | O_CLOEXEC);
	const char *s = notes;

	if (fd < 0)
		return hs_error_set(err, HS_ERR_TRACEFS, "cannot open trace_marker of %s: %s",
				    c->name, strerror(errno));
	while (*s) {
		size_t n = strcspn(s, "\n");

		if (n && write(fd, s, n) != (ssize_t)n) {
			int e = errno;

			close(fd);
			return hs_error_set(err, HS_ERR_TRACEFS, "cannot write trace_marker of %s: %s",
					    c->name, strerror(e));
		}
		s += n;
		s += *s == '\n';
	}
	close(fd);
	return 0;
}

static void *capture_reader(void *arg)
{
	struct hs_cpu_reader *rd = arg;
	struct hs_capture *c = rd->c;
	struct pollfd pfd[2] = {
		{ .fd = rd->raw_fd, .events = POLLIN },
		{ .fd = c->stop_fd, .events = POLLIN },
	};
	int r;

	for (;;) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		while ((r = tracefs_cpu_write(rd->tcpu, rd->fd, true)) > 0)
			;
		if (r < 0 && errno != EAGAIN && errno != EINTR)
			goto fail;
	}
	if (!atomic_load(&c->flush))
		return NULL;
	/* Tracing is off: take the remaining full pages, then the partial one. */
	while ((r = tracefs_cpu_write(rd->tcpu, rd->fd, true)) > 0)
		;
	if (r < 0 && errno != EAGAIN)
		goto fail;
	while ((r = tracefs_cpu_flush_write(rd->tcpu, rd->fd)) > 0)
		;
	if (r < 0 && errno != EAGAIN)
		goto fail;
	return NULL;
fail:
	rd->err = errno ? errno : EIO;
	atomic_store(&c->failed, 1);
	return NULL;
}

static int capture_start_readers(struct hs_capture *c, struct hs_error *err)
{
	sigset_t all, old;
	int ret = 0;

	c->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->stop_fd < 0)
		return hs_error_set(err, HS_ERR_RUNTIME, "eventfd: %s", strerror(errno));
	/* Readers never take signals: the caller's main thread handles them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (unsigned int i = 0; i < c->ncpus && !ret; i++) {
		struct hs_cpu_reader *rd = &c->cpus[i];
		char path[64];

		snprintf(path, sizeof(path), "per_cpu/cpu%u/trace_pipe_raw", i);
		rd->raw_fd = tracefs_instance_file_open(c->inst, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (rd->raw_fd < 0)
			continue;	/* CPU not present: its data stays empty */
		rd->tcpu = tracefs_cpu_alloc_fd(rd->raw_fd, (int)c->page_size, true);
		if (!rd->tcpu) {
			ret = hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
			break;
		}
		errno = pthread_create(&rd->thread, NULL, capture_reader, rd);
		if (errno)
			ret = hs_error_set(err, HS_ERR_RUNTIME, "cannot start a reader thread: %s",
					   strerror(errno));
		else
			rd->running = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/* CPUs read from /proc/stat (0 when unreadable): steal is then unknown. */
static unsigned int capture_cpu_times(struct hs_cpu_time *t, unsigned int n)
{
	int got = hs_sysinfo_cpu_times(t, n);

	return got > 0 ? (unsigned int)got : 0;
}

/*
 * Tracing starts with no event enabled, so that the notes come first in
 * the trace; the task events are enabled with the others, before /proc is
 * walked, so that no thread falls between the two.
 */
int hs_capture_start(struct hs_capture **cp, const struct hs_capture_opts *o,
		     struct hs_error *err)
{
	struct hs_capture *c;
	int ret;

	*cp = NULL;
	ret = capture_alloc(cp, o, err);
	c = *cp;
	if (!ret)
		ret = capture_check_tracefs(err);
	if (!ret && o->dir)
		ret = capture_tmpfiles(c, err);
	if (ret)
		return ret;
	capture_reap_stale();
	ret = capture_page_size(c, err);
	if (!ret)
		ret = capture_instance(c, o, err);
	if (!ret && o->npids)
		ret = capture_pids(c, o, err);
	if (!ret)
		ret = capture_resolve_events(c, o, err);
	if (!ret && o->dir)
		ret = capture_start_readers(c, err);
	if (ret)
		return ret;
	if (tracefs_trace_on(c->inst))
		return hs_error_set(err, HS_ERR_TRACEFS, "cannot start tracing: %s", strerror(errno));
	c->tracing = true;
	clock_gettime(CLOCK_MONOTONIC, &c->t0);
	c->steal_cpus = capture_cpu_times(c->cpu_t0, c->ncpus);
	if (o->notes && (ret = capture_note(c, o->notes, err)))
		return ret;
	ret = capture_enable_events(c, err);
	if (!ret && c->tasks && hs_tasks_watch_start(c->tasks, 0))
		ret = hs_error_set(err, HS_ERR_RUNTIME, "cannot start the thread watcher: %s",
				   strerror(errno));
	return ret;
}

unsigned int hs_capture_missing(const struct hs_capture *c, const char *const **names)
{
	*names = c->missing;
	return c->nmissing;
}

int hs_capture_failed(const struct hs_capture *c)
{
	return c && atomic_load(&c->failed);
}

static void capture_join(struct hs_capture *c)
{
	uint64_t one = 1;

	if (c->stop_fd >= 0 && write(c->stop_fd, &one, sizeof(one)) < 0) {
		/* eventfd writes only fail on overflow; the readers are woken anyway. */
	}
	for (unsigned int i = 0; i < c->ncpus; i++) {
		if (!c->cpus[i].running)
			continue;
		pthread_join(c->cpus[i].thread, NULL);
		c->cpus[i].running = false;
	}
}

static uint64_t stat_value(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

struct tracefs_instance *hs_capture_instance(const struct hs_capture *c)
{
	return c ? c->inst : NULL;
}

unsigned int hs_capture_ncpus(const struct hs_capture *c)
{
	return c->ncpus;
}

/* The kernel's per-CPU ring-buffer stats of the instance (malloc'd), or NULL. */
static char *capture_cpu_stats(const struct hs_capture *c, unsigned int cpu)
{
	char path[64];

	snprintf(path, sizeof(path), "per_cpu/cpu%u/stats", cpu);
	return c->inst ? tracefs_instance_file_read(c->inst, path, NULL) : NULL;
}

int hs_capture_lost_now(const struct hs_capture *c, unsigned int cpu, uint64_t *lost)
{
	char *s = capture_cpu_stats(c, cpu);

	if (!s)
		return HS_ERR_TRACEFS;
	*lost = stat_value(s, "\noverrun: ") + stat_value(s, "\ndropped events: ");
	free(s);
	return 0;
}

void hs_capture_set_command(struct hs_capture *c, int pid, char *const *argv)
{
	c->command_pid = pid;
	c->command_argv = argv;
}

int hs_capture_events_now(const struct hs_capture *c, unsigned int cpu, uint64_t *events)
{
	char *s = capture_cpu_stats(c, cpu);

	if (!s)
		return HS_ERR_TRACEFS;
	/* without a reader nothing leaves the buffer but what is overwritten or dropped */
	*events = stat_value(s, "entries: ") + stat_value(s, "\noverrun: ") +
		  stat_value(s, "\ndropped events: ");
	free(s);
	return 0;
}


static void capture_read_stats(struct hs_capture *c)
{
	for (unsigned int i = 0; i < c->ncpus; i++) {
		char *s = capture_cpu_stats(c, i);

		if (!s)
			continue;
		c->lost[i] = stat_value(s, "\noverrun: ") + stat_value(s, "\ndropped events: ");
		c->lost_total += c->lost[i];
		c->cpustat[i] = s;
	}
}

int hs_capture_stop(struct hs_capture *c, bool flush, struct hs_error *err)
{
	if (c->tracing) {
		tracefs_trace_off(c->inst);
		clock_gettime(CLOCK_MONOTONIC, &c->t1);
		if (c->steal_cpus && capture_cpu_times(c->cpu_t1, c->ncpus) < c->steal_cpus)
			c->steal_cpus = 0;
		c->tracing = false;
	}
	atomic_store(&c->flush, flush);
	capture_join(c);
	if (c->tasks)
		hs_tasks_watch_stop(c->tasks);
	capture_read_stats(c);
	for (unsigned int i = 0; i < c->ncpus; i++) {
		int e = c->cpus[i].err;

		if (!e)
			continue;
		if (e == ENOSPC || e == EDQUOT)
			return hs_error_set(err, HS_ERR_OUTPUT, "disk full writing to %s", c->dir);
		return hs_error_set(err, HS_ERR_OUTPUT, "cannot write CPU %u data to %s: %s", i,
				    c->dir, strerror(e));
	}
	return 0;
}

/* Takes what the stopped readers left in the buffers, in this thread. */
static int capture_drain(struct hs_capture *c, struct hs_error *err)
{
	for (unsigned int i = 0; i < c->ncpus; i++) {
		struct hs_cpu_reader *rd = &c->cpus[i];
		int r;

		if (!rd->tcpu)
			continue;
		while ((r = tracefs_cpu_flush_write(rd->tcpu, rd->fd)) > 0)
			;
		if (r < 0 && errno != EAGAIN)
			return hs_error_set(err, errno == ENOSPC || errno == EDQUOT ? HS_ERR_OUTPUT :
					    HS_ERR_RUNTIME, "cannot write CPU %u data to %s: %s", i,
					    c->dir, strerror(errno));
	}
	return 0;
}

/*
 * Tracing goes on again with every event off: nothing but the notes can
 * enter the buffers, and the losses counted at stop stay true.
 */
int hs_capture_note_end(struct hs_capture *c, const char *notes, struct hs_error *err)
{
	int ret;

	if (!c->scanned)
		return hs_error_set(err, HS_ERR_RUNTIME, "capture not scanned");
	if (tracefs_event_disable(c->inst, NULL, NULL) < 0 && errno != ENOENT)
		return hs_error_set(err, HS_ERR_TRACEFS, "cannot disable the events of %s: %s",
				    c->name, strerror(errno));
	if (tracefs_trace_on(c->inst))
		return hs_error_set(err, HS_ERR_TRACEFS, "cannot start tracing: %s", strerror(errno));
	ret = capture_note(c, notes, err);
	tracefs_trace_off(c->inst);
	if (!ret)
		ret = capture_drain(c, err);
	if (!ret)
		ret = hs_capture_sizes(c, err);
	return ret;
}

const struct hs_capture_result *hs_capture_result(const struct hs_capture *c)
{
	return c->scanned ? &c->result : NULL;
}

static void capture_remove_instance(struct hs_capture *c)
{
	if (!c->inst)
		return;
	tracefs_trace_off(c->inst);
	tracefs_event_disable(c->inst, NULL, NULL);
	if (c->free_fd >= 0)
		close(c->free_fd);
	c->free_fd = -1;
	/* rmdir fails with EBUSY while any of its files is still open somewhere. */
	for (int i = 0; i < 50 && tracefs_instance_destroy(c->inst); i++)
		usleep(20000);
	tracefs_instance_free(c->inst);
	c->inst = NULL;
}

void hs_capture_destroy(struct hs_capture *c)
{
	if (!c)
		return;
	atomic_store(&c->flush, false);
	capture_join(c);
	for (unsigned int i = 0; c->cpus && i < c->ncpus; i++) {
		struct hs_cpu_reader *rd = &c->cpus[i];

		if (rd->tcpu)
			tracefs_cpu_free_fd(rd->tcpu);
		if (rd->raw_fd >= 0)
			close(rd->raw_fd);
		if (rd->fd >= 0)
			close(rd->fd);
	}
	capture_remove_instance(c);
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	hs_tasks_free(c->tasks);
	hs_capture_scan_free(c);
	for (unsigned int i = 0; c->cpustat && i < c->ncpus; i++)
		free(c->cpustat[i]);
	free(c->cpustat);
	free(c->lost);
	free(c->cpu_t0);
	free(c->cpus);
	free(c);
}
