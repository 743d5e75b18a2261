// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.dat version 7 through libtracecmd: for a compression algorithm the
 * own reader (tracedat_v7.c) does not link, and when HALTSTAT_READER=
 * libtracecmd forces it (tests compare the two). libtracecmd trusts the
 * file, so the fixed part of the header is checked here first; it also
 * reads by path, so standard input goes through a temporary file.
 *
 * Losses: page counts are reported as records carry them; the stats rule of
 * tracedat_decode.c (per CPU max of page counts and CPUSTAT counts) is applied
 * at the end here, since the page counts are only known after the pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "input.h"
#include "recmeta.h"
#include "tracedat_file.h"

/* Exported by libtracecmd 1.3 (trace-cmd 3.1) but missing from its public header. */
const char *tracecmd_get_cpustats(struct tracecmd_input *handle);
const char *tracecmd_get_uname(struct tracecmd_input *handle);
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
int tracecmd_cpus(struct tracecmd_input *handle);

#define TC_MAXINST 64

struct tc_ctx {
	struct hs_ev_layout lay;
	struct hs_sink *sink;
	int ncpus;
	uint64_t *last_ts;	/* per CPU */
	uint64_t *page_lost;	/* per CPU, known counts seen on pages */
	int *tids;		/* open-addressing set of common_pids, 0 = empty slot */
	size_t ntids, tids_cap;
	bool seen_zero;
	uint64_t nevents;
	struct tracecmd_input **inst;	/* instance handles being read, or NULL */
	int ninst;
	uint64_t inst_hit;	/* bit i: instance i held relevant events */
	struct hs_td_stats notes_lost;	/* losses haltstat's notes give */
	int failed;
};

/* The fixed header as the own readers see it; libtracecmd trusts its offsets. */
static int tc_check_header(const unsigned char *buf, size_t len, char *comp, size_t csize,
			   struct hs_error *err)
{
	struct hs_td_head h;
	int ret = hs_td_head_parse(buf, len, &h, err);

	if (ret)
		return ret;
	snprintf(comp, csize, "%s", h.comp);
	if (strcmp(comp, "zstd") && strcmp(comp, "zlib") && strcmp(comp, "none"))
		return hs_error_set(err, HS_ERR_INPUT, "unsupported trace.dat compression \"%.20s\"",
				    comp);
	if (h.first_options > len)
		return hs_error_set(err, HS_ERR_INPUT,
				    "truncated trace.dat: first section at offset %llu is past the end of the file (%zu bytes)",
				    (unsigned long long)h.first_options, len);
	return 0;
}

static int tc_tid_add(struct tc_ctx *x, int tid)
{
	size_t i;

	if (tid == 0) {
		x->seen_zero = true;
		return 0;
	}
	if (2 * (x->ntids + 1) > x->tids_cap) {
		size_t cap = x->tids_cap ? 2 * x->tids_cap : 256;
		int *n = calloc(cap, sizeof(*n)), *o = x->tids;

		if (!n)
			return -1;
		x->tids = n;
		x->tids_cap = cap;
		x->ntids = 0;
		for (i = 0; o && i < cap / 2; i++)
			if (o[i])
				tc_tid_add(x, o[i]);
		free(o);
	}
	for (i = (unsigned int)tid * 2654435761u % x->tids_cap; x->tids[i]; i = (i + 1) % x->tids_cap)
		if (x->tids[i] == tid)
			return 0;
	x->tids[i] = tid;
	x->ntids++;
	return 0;
}

static int tc_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct tc_ctx *x = data;
	struct hs_sink *s = x->sink;
	struct hs_event ev;
	int r;

	if (cpu < 0 || cpu >= x->ncpus || !rec->data || rec->size < 0)
		return 0;
	if (rec->missed_events > 0) {
		x->page_lost[cpu] += (uint64_t)rec->missed_events;
		s->lost(s->priv, cpu, (uint64_t)rec->missed_events, true);
	} else if (rec->missed_events < 0) {
		s->lost(s->priv, cpu, 0, false);
	}
	r = hs_ev_decode(&x->lay, rec->data, (size_t)rec->size, &ev);
	if (r == -2)
		s->meta->skipped_events++;
	if (r)
		return 0;
	if (ev.kind == HS_EV_MARKER) {
		hs_recmeta_note(ev.marker.text, ev.marker.len, s, &x->notes_lost);
		return 0;
	}
	ev.ts = rec->ts;
	ev.cpu = cpu;
	if (ev.ts < x->last_ts[cpu]) {
		ev.ts = x->last_ts[cpu];
		s->meta->clamped_ts++;
	}
	x->last_ts[cpu] = ev.ts;
	x->nevents++;
	for (int i = 0; x->inst && i < x->ninst; i++)
		if (x->inst[i] == h)
			x->inst_hit |= 1ull << i;
	if (tc_tid_add(x, ev.tid) || s->event(s->priv, &ev)) {
		x->failed = 1;
		return -1;
	}
	return 0;
}

static void tc_threads(struct tc_ctx *x, struct tep_handle *tep)
{
	for (size_t i = 0; i < x->tids_cap; i++) {
		const char *comm;

		if (!x->tids[i])
			continue;
		comm = tep_data_comm_from_pid(tep, x->tids[i]);
		if (comm && strcmp(comm, "<...>"))
			x->sink->thread(x->sink->priv, x->tids[i], -1, comm);
	}
}

static void tc_stats(struct tc_ctx *x, struct tracecmd_input *top, const char *name,
		     const struct hs_td_stats *tlost)
{
	const char *text = tracecmd_get_cpustats(top);
	struct hs_td_stats st = { 0 };
	const struct hs_td_stats *use = tlost->ncpus && !name[0] ? tlost : &st;

	if (use == &st && text && hs_td_stats_parse(text, strlen(text), name, &st))
		x->failed = 1;
	/* a copy without the trailer or CPUSTAT: the notes' counts */
	if (use == &st && !st.ncpus && !name[0])
		use = &x->notes_lost;
	for (int c = 0; c < use->ncpus && c < x->ncpus; c++)
		if (use->lost[c] > 0 && (uint64_t)use->lost[c] > x->page_lost[c])
			x->sink->lost(x->sink->priv, c, (uint64_t)use->lost[c] - x->page_lost[c], true);
	hs_td_stats_free(&st);
}

static int tc_tempfile(const unsigned char *buf, size_t len, char *path, size_t psize,
		       struct hs_error *err)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(path, psize, "%s/haltstat-v7.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return hs_error_set(err, HS_ERR_RUNTIME, "cannot create a temporary file in %s for a v7 trace.dat from standard input", dir && *dir ? dir : "/tmp");
	for (size_t done = 0; done < len;) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n <= 0) {
			close(fd);
			unlink(path);
			return hs_error_set(err, HS_ERR_RUNTIME, "cannot write temporary file %s", path);
		}
		done += (size_t)n;
	}
	close(fd);
	return 0;
}

static void tc_meta(struct tracecmd_input *h, const char *comp, const unsigned char *buf,
		    size_t len, struct hs_sink *s, struct hs_td_stats *tlost)
{
	struct hs_meta *m = s->meta;
	const char *clock = tracecmd_get_trace_clock(h), *uname = tracecmd_get_uname(h);
	uint64_t start, tlen;
	int t;

	m->ncpus = tracecmd_cpus(h);
	if (clock)
		snprintf(m->clock, sizeof(m->clock), "%s", clock);
	/* haltstat's trailer survives only if someone appends it to a v7 file */
	t = hs_td_trailer_find(buf, len, 0, &start, &tlen);
	if (t > 0)
		hs_recmeta_apply((const char *)buf + start, tlen, s, tlost);
	snprintf(m->format, sizeof(m->format), "%strace.dat v%c (%s)", t > 0 ? "haltstat, " : "",
		 buf[10], comp);
	if (uname)
		hs_td_uname_release(uname, strlen(uname), m);
}

static int tc_run(struct tracecmd_input *top, struct tc_ctx *x, struct hs_td_stats *tlost)
{
	struct tracecmd_input *inst[TC_MAXINST];
	const char *names[TC_MAXINST];
	int ninst = 0, n = tracecmd_buffer_instances(top);
	struct hs_meta *m = x->sink->meta;

	tracecmd_iterate_events(top, NULL, 0, tc_record, x);
	if (x->nevents || x->failed) {
		tc_stats(x, top, "", tlost);
		return x->failed;
	}
	/*
	 * Every instance in one time-ordered pass; the ones that held relevant
	 * events are named afterwards. (Probing first and stopping early leaks
	 * peeked records inside libtracecmd 1.3.)
	 */
	for (int i = 0; i < n && ninst < TC_MAXINST; i++) {
		struct tracecmd_input *b = tracecmd_buffer_instance_handle(top, i);

		if (!b)
			continue;
		names[ninst] = tracecmd_buffer_instance_name(top, i);
		inst[ninst++] = b;
	}
	x->inst = inst;
	x->ninst = ninst;
	if (ninst)
		tracecmd_iterate_events_multi(inst, ninst, tc_record, x);
	x->inst = NULL;
	for (int i = 0; i < ninst; i++) {
		size_t l = strlen(m->buffer_instance);

		if (x->inst_hit & (1ull << i)) {
			snprintf(m->buffer_instance + l, sizeof(m->buffer_instance) - l, "%s%s",
				 l ? "," : "", names[i] ? names[i] : "?");
			tc_stats(x, top, names[i] ? names[i] : "", tlost);
		}
		tracecmd_close(inst[i]);
	}
	return x->failed;
}

int hs_td_v7_decode_direct(const char *path, const unsigned char *buf, size_t len,
		    struct hs_sink *sink, struct hs_error *err)
{
	struct tc_ctx x = { .sink = sink };
	struct hs_td_stats tlost = { 0 };
	struct tracecmd_input *h;
	char comp[64], tmp[4096] = "";
	int ret;

	/* a v6 file comes here only when HALTSTAT_READER=libtracecmd forces it */
	if (len > 10 && buf[10] == '6')
		snprintf(comp, sizeof(comp), "libtracecmd");
	else if ((ret = tc_check_header(buf, len, comp, sizeof(comp), err)) ||
		 (ret = hs_td_v7_check(buf, len, err)))
		return ret;
	if (!strcmp(path, "-")) {
		ret = tc_tempfile(buf, len, tmp, sizeof(tmp), err);
		if (ret)
			return ret;
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(tmp[0] ? tmp : path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (tmp[0])
		unlink(tmp);
	if (!h)
		return hs_error_set(err, HS_ERR_INPUT,
				    "libtracecmd cannot read this trace.dat v7 (corrupt or truncated)");
	x.ncpus = tracecmd_cpus(h);
	if (x.ncpus < 0 || x.ncpus > HS_TD_MAXCPUS) {
		tracecmd_close(h);
		return hs_error_set(err, HS_ERR_INPUT, "corrupt trace.dat: %d CPUs", x.ncpus);
	}
	x.last_ts = calloc(x.ncpus + 1, sizeof(*x.last_ts));
	x.page_lost = calloc(x.ncpus + 1, sizeof(*x.page_lost));
	if (!x.last_ts || !x.page_lost) {
		ret = hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	} else {
		struct tep_handle *tep = tracecmd_get_tep(h);

		hs_ev_layout_init(&x.lay, tep, tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep),
				  HS_TD_READ_KINDS);
		sink->meta->kvm_formats = hs_ev_has_kvm(&x.lay);
		tc_meta(h, comp, buf, len, sink, &tlost);
		if (tc_run(h, &x, &tlost))
			ret = hs_error_set(err, HS_ERR_RUNTIME, "accounting rejected an event");
		tc_threads(&x, tep);
	}
	free(x.last_ts);
	free(x.page_lost);
	free(x.tids);
	hs_td_stats_free(&tlost);
	hs_td_stats_free(&x.notes_lost);
	tracecmd_close(h);
	return ret;
}
