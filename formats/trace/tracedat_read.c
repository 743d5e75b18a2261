// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which trace.dat reader reads a file: version 6 and version 7 compressed
 * with zstd, zlib or nothing through the own parsers and page decoder
 * (tracedat_parse.c, tracedat_v7.c, tracedat_decode.c); a v7 file
 * compressed otherwise, or any file when HALTSTAT_READER=libtracecmd asks,
 * through libtracecmd in a child process (tracecmd_read.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "input.h"
#include "sink_pipe.h"
#include "sink_second.h"
#include "tracedat_file.h"

int hs_td_v6_decode(const unsigned char *buf, size_t len, struct hs_sink *sink,
		    struct hs_error *err)
{
	return hs_td_v6_decode_fd(buf, len, -1, sink, err);
}

int hs_td_v6_decode_fd(const unsigned char *buf, size_t len, int fd, struct hs_sink *sink,
		       struct hs_error *err)
{
	struct td_file f = { .buf = buf, .len = len, .err = err, .version = 6 };
	int ret;

	f.tep = tep_alloc();
	if (!f.tep)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	ret = hs_td_v6_parse(&f);
	if (!ret)
		ret = hs_td_run(&f, fd, sink);
	hs_td_file_free(&f);
	return ret;
}

int hs_tracedat_read(const char *path, const unsigned char *buf, size_t len,
		     struct hs_account *acct, struct hs_error *err)
{
	return hs_tracedat_read_fd(path, -1, buf, len, acct, NULL, err);
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
		    struct hs_sink *sink, struct hs_td_share *share, struct hs_error *err)
{
	int ret = HS_TD_V7_FALLBACK;

	if (!td_force_libtracecmd())
		ret = v7 ? hs_td_v7_read(buf, len, fd, sink, share, err) :
			   hs_td_v6_decode_fd(buf, len, fd, sink, err);
	if (ret == HS_TD_V7_FALLBACK)
		ret = hs_td_v7_decode(path, buf, len, sink, err);
	return ret;
}

/* The first events of a file, counted until there are HS_TD_LOOK_EVENTS. */
#define HS_TD_LOOK_EVENTS 16384

static void td_look_halt(struct hs_td_look *t, int tid)
{
	unsigned int i = 0;

	while (i < t->ntids && t->load[i].tid != tid)
		i++;
	if (i == t->ntids) {
		if (i == HS_TD_LOOK_TIDS) {
			t->many = true;
			return;
		}
		t->load[t->ntids++] = (struct hs_shard_load){ .tid = tid };
	}
	t->load[i].halts++;
}

static int td_look_events(void *priv, const struct hs_event *ev, size_t n)
{
	struct hs_td_look *t = priv;

	for (size_t i = 0; i < n; i++)
		if (ev[i].kind == HS_EV_VCPU_WAKEUP) {
			t->halts++;
			td_look_halt(t, ev[i].tid);
		}
	t->events += n;
	/* enough: stop the reader (not an error of the file's) */
	return t->events >= HS_TD_LOOK_EVENTS ? HS_ERR_RUNTIME : 0;
}

static int td_look_event(void *priv, const struct hs_event *ev)
{
	return td_look_events(priv, ev, 1);
}

static void td_look_lost(void *priv, int cpu, uint64_t count, bool known)
{
	(void)priv, (void)cpu, (void)count, (void)known;
}

static void td_look_thread(void *priv, int tid, int tgid, const char *comm)
{
	(void)priv, (void)tid, (void)tgid, (void)comm;
}

static void td_look_process(void *priv, int tgid, const char *comm, const char *vm)
{
	(void)priv, (void)tgid, (void)comm, (void)vm;
}

void hs_td_first_look(const char *path, int fd, const unsigned char *buf, size_t len,
		      const struct hs_td_head *h, struct hs_td_look *look)
{
	struct hs_meta meta;
	struct hs_sink sink = {
		.event = td_look_event, .events = td_look_events, .lost = td_look_lost,
		.thread = td_look_thread, .process = td_look_process, .priv = look,
		.meta = &meta,
	};

	memset(look, 0, sizeof(*look));
	hs_meta_init(&meta);
	hs_td_read_sink(path, fd, buf, len, h->version[0] == '7', &sink, NULL, NULL);
}

int hs_tracedat_read_fd(const char *path, int fd, const unsigned char *buf, size_t len,
			struct hs_account *acct, struct hs_td_share *share, struct hs_error *err)
{
	struct hs_td_head h;
	struct hs_sink sink;
	int ret;

	ret = hs_td_head_parse(buf, len, &h, err);
	if (!ret && strcmp(h.version, "6") && strcmp(h.version, "7"))
		ret = hs_error_set(err, HS_ERR_INPUT,
				   "unsupported trace.dat version \"%s\" (haltstat reads 6 and 7)",
				   h.version);
	if (!ret) {
		struct hs_sink_pipe *pipe = NULL;
		int done;

		/*
		 * libtracecmd reads in a forked child, and a thread running at
		 * the fork may hold a lock the child then waits for (ASan's
		 * allocator did): no accounting thread on that path.
		 */
		if (td_force_libtracecmd() || !hs_td_head_own_reader(&h))
			hs_sink_account(&sink, acct);
		else
			pipe = hs_sink_pipe_open(&sink, acct, len);
		if (pipe)
			hs_sink_second_attach(&sink, pipe);

		snprintf(sink.meta->source, sizeof(sink.meta->source), "%s", path);
		ret = hs_td_read_sink(path, fd, buf, len, h.version[0] == '7', &sink, share, err);
		done = hs_sink_pipe_close(pipe);
		if (!ret && done)
			ret = hs_error_set(err, done, "accounting rejected an event (out of memory)");
	}
	if (ret && err) {
		char msg[sizeof(err->msg)];

		snprintf(msg, sizeof(msg), "%s", err->msg);
		hs_error_set(err, ret, "%s: %s", path, msg);
	}
	return ret;
}
