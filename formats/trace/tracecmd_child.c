// SPDX-License-Identifier: GPL-2.0-only
/*
 * libtracecmd 1.3 / libtraceevent 1.7 crash or loop forever on some
 * hostile v7 files that no check of ours can see before they are inflated
 * (tests/fuzz/fuzz_tracedat_v7 found a NULL dereference in the format
 * parser and an endless loop in tracecmd_iterate_events). So the v7 path
 * runs in a child process: it decodes as before and sends what it finds
 * through a pipe; this side hands it to the caller's sink. A child killed
 * by a signal, or past its time limit, is a clean input error here.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracedat_internal.h"

/* Time limit for the child: generous for real files, bounded for hostile ones. */
#define TCC_SECONDS_BASE 10
#define TCC_SECONDS_PER_MIB 5

enum { TCC_META = 'M', TCC_EVENT = 'E', TCC_LOST = 'L', TCC_THREAD = 'T', TCC_PROCESS = 'P',
       TCC_END = 'Z' };

struct tcc_lost { int cpu; uint8_t known; uint64_t count; };
struct tcc_thread { int tid, tgid; char comm[64]; };
struct tcc_process { int tgid; bool has_comm, has_vm; char comm[64], vm[128]; };
struct tcc_end { int ret; struct hs_error err; struct hs_meta meta; };

struct tcc_out {
	int fd;
	const struct hs_meta *meta;	/* sent once before the first event */
	bool meta_sent;
	size_t used;
	unsigned char buf[1 << 16];
};

static void tcc_flush(struct tcc_out *o)
{
	for (size_t done = 0; done < o->used;) {
		ssize_t n = write(o->fd, o->buf + done, o->used - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(1);	/* the reader is gone: nothing left to do */
		done += (size_t)n;
	}
	o->used = 0;
}

static void tcc_put(struct tcc_out *o, unsigned char type, const void *p, size_t n);

/* The accounting reads the recorded parameters as events arrive: meta first. */
static void tcc_meta(struct tcc_out *o)
{
	if (!o->meta_sent) {
		o->meta_sent = true;
		tcc_put(o, TCC_META, o->meta, sizeof(*o->meta));
	}
}

static void tcc_put(struct tcc_out *o, unsigned char type, const void *p, size_t n)
{
	if (type != TCC_META && type != TCC_END)
		tcc_meta(o);
	if (o->used + 1 + n > sizeof(o->buf))
		tcc_flush(o);
	o->buf[o->used++] = type;
	memcpy(o->buf + o->used, p, n);
	o->used += n;
}

static int tcc_event(void *priv, const struct hs_event *ev)
{
	tcc_put(priv, TCC_EVENT, ev, sizeof(*ev));
	return 0;
}

static void tcc_lost(void *priv, int cpu, uint64_t count, bool known)
{
	struct tcc_lost m = { .cpu = cpu, .known = known, .count = count };

	tcc_put(priv, TCC_LOST, &m, sizeof(m));
}

static void tcc_thread(void *priv, int tid, int tgid, const char *comm)
{
	struct tcc_thread m = { .tid = tid, .tgid = tgid };

	snprintf(m.comm, sizeof(m.comm), "%s", comm ? comm : "");
	tcc_put(priv, TCC_THREAD, &m, sizeof(m));
}

static void tcc_process(void *priv, int tgid, const char *comm, const char *vm)
{
	struct tcc_process m = { .tgid = tgid, .has_comm = comm != NULL, .has_vm = vm != NULL };

	snprintf(m.comm, sizeof(m.comm), "%s", comm ? comm : "");
	snprintf(m.vm, sizeof(m.vm), "%s", vm ? vm : "");
	tcc_put(priv, TCC_PROCESS, &m, sizeof(m));
}

static void __attribute__((noreturn))
tcc_child(int fd, const char *path, const unsigned char *buf, size_t len, struct hs_meta *meta)
{
	static struct tcc_out out;
	static struct tcc_end end;
	struct hs_sink sink = {
		.event = tcc_event, .lost = tcc_lost, .thread = tcc_thread,
		.process = tcc_process, .priv = &out, .meta = meta,
	};
	int null;

	out.fd = fd;
	/*
	 * Its only channel is the pipe: what the libraries (or a sanitizer)
	 * print while failing would be a second, confusing error line.
	 */
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0 && null != STDERR_FILENO) {
		dup2(null, STDERR_FILENO);
		close(null);
	}
	signal(SIGALRM, SIG_DFL);	/* a handler of the parent's (libFuzzer) would not end it */
	out.meta = meta;
	alarm(TCC_SECONDS_BASE + TCC_SECONDS_PER_MIB * (unsigned int)(len >> 20));
	end.ret = hs_td_v7_decode_direct(path, buf, len, &sink, &end.err);
	end.meta = *meta;
	tcc_put(&out, TCC_END, &end, sizeof(end));
	tcc_flush(&out);
	_exit(0);
}

static bool tcc_read(FILE *in, void *p, size_t n)
{
	return fread(p, 1, n, in) == n;
}

/* The reader's facts from the child; the loss totals are the sink's own. */
static void tcc_meta_set(struct hs_meta *dst, const struct hs_meta *src)
{
	uint64_t lost = dst->lost_events, places = dst->lost_unknown_places;

	*dst = *src;
	dst->lost_events = lost;
	dst->lost_unknown_places = places;
}

/* Hands the child's messages to sink; 1 after TCC_END, 0 at a short read, -1 rejected. */
static int tcc_relay(FILE *in, struct hs_sink *sink, struct tcc_end *end)
{
	union {
		struct hs_meta meta;
		struct hs_event ev;
		struct tcc_lost l;
		struct tcc_thread t;
		struct tcc_process p;
	} m;
	int type;

	while ((type = getc(in)) != EOF) {
		switch (type) {
		case TCC_META:
			if (!tcc_read(in, &m.meta, sizeof(m.meta)))
				return 0;
			tcc_meta_set(sink->meta, &m.meta);
			break;
		case TCC_EVENT:
			if (!tcc_read(in, &m.ev, sizeof(m.ev)))
				return 0;
			if (sink->event(sink->priv, &m.ev))
				return -1;
			break;
		case TCC_LOST:
			if (!tcc_read(in, &m.l, sizeof(m.l)))
				return 0;
			sink->lost(sink->priv, m.l.cpu, m.l.count, m.l.known);
			break;
		case TCC_THREAD:
			if (!tcc_read(in, &m.t, sizeof(m.t)))
				return 0;
			sink->thread(sink->priv, m.t.tid, m.t.tgid, m.t.comm);
			break;
		case TCC_PROCESS:
			if (!tcc_read(in, &m.p, sizeof(m.p)))
				return 0;
			m.p.comm[sizeof(m.p.comm) - 1] = m.p.vm[sizeof(m.p.vm) - 1] = '\0';
			sink->process(sink->priv, m.p.tgid, m.p.has_comm ? m.p.comm : NULL,
				      m.p.has_vm ? m.p.vm : NULL);
			break;
		case TCC_END:
			return tcc_read(in, end, sizeof(*end)) ? 1 : 0;
		default:
			return 0;
		}
	}
	return 0;
}

static int tcc_status(int status, size_t len, struct hs_error *err)
{
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		return hs_error_set(err, HS_ERR_INPUT,
				    "libtracecmd did not finish reading this trace.dat v7 in %zu s (corrupt file?)",
				    TCC_SECONDS_BASE + TCC_SECONDS_PER_MIB * (len >> 20));
	if (WIFSIGNALED(status))
		return hs_error_set(err, HS_ERR_INPUT,
				    "libtracecmd failed on this trace.dat v7 (%s): the file is corrupt",
				    strsignal(WTERMSIG(status)));
	return hs_error_set(err, HS_ERR_INPUT,
			    "libtracecmd failed on this trace.dat v7 (exit status %d): the file is corrupt",
			    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int hs_td_v7_decode(const char *path, const unsigned char *buf, size_t len,
		    struct hs_sink *sink, struct hs_error *err)
{
	struct tcc_end *end = calloc(1, sizeof(*end));
	int fds[2], status, r = 0, ret;
	FILE *in = NULL;
	pid_t pid = -1;

	if (!end || pipe(fds)) {
		free(end);
		return hs_error_set(err, HS_ERR_RUNTIME, "cannot start a reader process: %s",
				    strerror(errno));
	}
	fflush(NULL);	/* nothing buffered may be written twice */
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		tcc_child(fds[1], path, buf, len, sink->meta);
	}
	close(fds[1]);
	if (pid > 0 && (in = fdopen(fds[0], "r")))
		r = tcc_relay(in, sink, end);
	if (in)
		fclose(in);
	else
		close(fds[0]);
	if (pid < 0) {
		free(end);
		return hs_error_set(err, HS_ERR_RUNTIME, "cannot start a reader process: %s",
				    strerror(errno));
	}
	if (r < 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (r < 0)
		ret = hs_error_set(err, HS_ERR_RUNTIME, "accounting rejected an event");
	else if (r == 0)
		ret = tcc_status(status, len, err);
	else {
		tcc_meta_set(sink->meta, &end->meta);
		ret = end->ret;
		if (ret && err)
			*err = end->err;
	}
	free(end);
	return ret;
}
