// SPDX-License-Identifier: GPL-2.0-only
/*
 * The live engine: per-CPU nonblocking reads of a private instance's ring
 * buffers, pages walked (ringbuf.h) and decoded (evdecode.h) as the
 * trace.dat readers do, events fed in time order into one accounting per
 * interval.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event-parse.h>
#include <tracefs.h>

#include "../error.h"
#include "../account.h"
#include "../advice.h"
#include "../report_build.h"
#include "../report_stats.h"
#include "../evdecode.h"
#include "capture.h"
#include "live.h"
#include "../ringbuf.h"
#include "sysinfo.h"

#define LIVE_DEFAULT_KIB	4096
/* Wake a blocked reader at 1% full: top reads every 100 ms anyway. */
#define LIVE_BUFFER_PERCENT	1

struct live_ev {
	struct hs_event ev;
	uint64_t seq;		/* keeps one CPU's order among equal timestamps */
};

struct live_evs {
	struct live_ev *v;
	size_t n, cap;
};

struct hs_live {
	struct hs_capture *cap;
	struct tep_handle *tep;
	struct hs_ev_layout lay;
	unsigned int ncpus;
	struct tracefs_cpu **tcpu;
	void *page;
	uint64_t *lost_seen;		/* per CPU, from the instance stats */
	struct hs_account *cur;
	struct hs_account *total;	/* since start, for counters that must only grow */
	struct hs_account_opts aopts;
	struct hs_account_opts topts;	/* the totals': with the what-if, for a suggestion */
	struct live_evs batch, held;	/* held: read early, belong to the next interval */
	uint64_t start_ns, seq, events_total, lost_total;
	uint64_t last_end;		/* end of the last interval */
	unsigned long index;
};

uint64_t hs_live_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int live_push(struct live_evs *e, const struct live_ev *ev)
{
	if (e->n == e->cap) {
		size_t ncap = e->cap ? e->cap * 2 : 4096;
		struct live_ev *v = realloc(e->v, ncap * sizeof(*v));

		if (!v)
			return HS_ERR_RUNTIME;
		e->v = v;
		e->cap = ncap;
	}
	e->v[e->n++] = *ev;
	return 0;
}

static unsigned int live_events(const struct hs_live_opts *o, const char **ev, bool *req)
{
	bool both = !o->host && !o->guest;
	unsigned int n = 0;

	for (int k = HS_EV_VCPU_WAKEUP; k <= HS_EV_ANALYSED_LAST; k++) {
		if (hs_ev_sched(k) || (!both && (hs_ev_host_side(k) ? !o->host : !o->guest)))
			continue;
		req[n] = false;
		ev[n++] = hs_ev_full_name(k);
	}
	return n;
}

/* A kvm module parameter as it is now, -1 when unreadable. */
static int64_t live_kvm_param(const char *name)
{
	char path[128], buf[32];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/kvm/parameters/%s", name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%lld", &v) != 1 || v < 0)
		v = -1;
	fclose(f);
	return v;
}

static void live_meta(struct hs_account *acct, unsigned int ncpus)
{
	struct hs_meta *m = hs_account_meta(acct);
	char full[512];

	/* the setting in force: the what-if replays it, the textfile shows it */
	m->halt_poll_ns = live_kvm_param("halt_poll_ns");
	m->halt_poll_ns_grow = live_kvm_param("halt_poll_ns_grow");
	m->halt_poll_ns_grow_start = live_kvm_param("halt_poll_ns_grow_start");
	m->halt_poll_ns_shrink = live_kvm_param("halt_poll_ns_shrink");
	snprintf(m->source, sizeof(m->source), "live");
	snprintf(m->format, sizeof(m->format), "tracefs instance");
	snprintf(m->clock, sizeof(m->clock), "mono");
	hs_sysinfo_uname(full, sizeof(full), m->kernel_release, sizeof(m->kernel_release));
	m->ncpus = (int)ncpus;
	m->lost_known = true;
}

static int live_open_cpus(struct hs_live *l, struct hs_error *err)
{
	struct tracefs_instance *inst = hs_capture_instance(l->cap);
	int size = 0;

	l->ncpus = hs_capture_ncpus(l->cap);
	l->tcpu = calloc(l->ncpus, sizeof(*l->tcpu));
	l->lost_seen = calloc(l->ncpus, sizeof(*l->lost_seen));
	if (!l->tcpu || !l->lost_seen)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	for (unsigned int i = 0; i < l->ncpus; i++) {
		/* a CPU that is not present has no buffer: leave it out */
		l->tcpu[i] = tracefs_cpu_open(inst, (int)i, true);
		if (l->tcpu[i] && tracefs_cpu_read_size(l->tcpu[i]) > size)
			size = tracefs_cpu_read_size(l->tcpu[i]);
	}
	if (size <= 0)
		return hs_error_set(err, HS_ERR_TRACEFS, "cannot open the instance's ring buffers");
	l->page = malloc((size_t)size);
	if (!l->page)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	return 0;
}

/*
 * Only the four formats, parsed one by one: tracefs_local_events_system()
 * would also load kallsyms and printk formats, megabytes we never use.
 */
static int live_decoder(struct hs_live *l, struct hs_error *err)
{
	l->tep = tep_alloc();
	if (!l->tep)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	for (int k = HS_EV_VCPU_WAKEUP; k <= HS_EV_ANALYSED_LAST; k++) {
		int len = 0;
		char *fmt = hs_ev_sched(k) ? NULL :
			    tracefs_event_file_read(NULL, hs_ev_system(k), hs_ev_name(k), "format",
						    &len);

		if (fmt && len > 0)
			tep_parse_event(l->tep, fmt, (unsigned long)len, hs_ev_system(k));
		free(fmt);
	}
	if (hs_ev_layout_init(&l->lay, l->tep, false, HS_EV_MASK_ANALYSED) <= 0)
		return hs_error_set(err, HS_ERR_NO_EVENTS, "none of the events exist here");
	return 0;
}

static int live_new_account(struct hs_live *l, const struct hs_account_opts *o,
			    struct hs_account **ap, const struct hs_account *prev, uint64_t ts)
{
	struct hs_account *a = hs_account_alloc(o);

	*ap = a;
	if (!a)
		return HS_ERR_RUNTIME;
	if (!prev)
		live_meta(a, l->ncpus);
	return hs_account_carry(a, prev, ts);
}

int hs_live_start(struct hs_live **lp, const struct hs_live_opts *o, struct hs_error *err)
{
	const char *ev[8];
	bool req[8];
	struct hs_capture_opts co = {
		.events = ev, .required = req, .nevents = live_events(o, ev, req),
		.buffer_kib = o->buffer_kib ? o->buffer_kib : LIVE_DEFAULT_KIB,
		.buffer_percent = LIVE_BUFFER_PERCENT, .clock = "mono",
	};
	struct hs_live *l = calloc(1, sizeof(*l));
	int ret;

	*lp = l;
	if (!l)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	l->aopts.no_whatif = true;
	/* the default candidates, the recorded setting and era from the meta */
	l->topts.whatif.recorded_max_ns = -1;
	l->topts.whatif.grow = l->topts.whatif.grow_start = l->topts.whatif.shrink = -1;
	ret = hs_capture_start(&l->cap, &co, err);
	if (!ret)
		ret = live_decoder(l, err);
	if (!ret)
		ret = live_open_cpus(l, err);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < l->ncpus; i++)
		hs_capture_lost_now(l->cap, i, &l->lost_seen[i]);
	l->start_ns = hs_live_now_ns();
	if (live_new_account(l, &l->aopts, &l->cur, NULL, l->start_ns) ||
	    (o->cumulative && live_new_account(l, &l->topts, &l->total, NULL, l->start_ns)))
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	return 0;
}

unsigned int hs_live_missing(const struct hs_live *l, const char *const **names)
{
	return hs_capture_missing(l->cap, names);
}

/* Decodes one page (size bytes read) of CPU cpu into the batch. */
static int live_page(struct hs_live *l, unsigned int cpu, size_t size)
{
	struct hs_rb_walk w;
	const unsigned char *data;
	size_t len;

	if (!hs_rb_page_native(&w, l->page, size))
		return 0;	/* a damaged page: nothing to take from it */
	while (hs_rb_next(&w, &data, &len) == HS_RB_RECORD) {
		struct live_ev e = { .seq = l->seq++ };

		if (hs_ev_decode(&l->lay, data, len, &e.ev))
			continue;
		e.ev.ts = w.ts;
		e.ev.cpu = (int32_t)cpu;
		if (live_push(&l->batch, &e))
			return HS_ERR_RUNTIME;
	}
	return 0;
}

static int live_drain_cpu(struct hs_live *l, unsigned int cpu, bool flush)
{
	int r;

	while ((r = tracefs_cpu_read(l->tcpu[cpu], l->page, true)) > 0)
		if (live_page(l, cpu, (size_t)r))
			return HS_ERR_RUNTIME;
	/* read() already hands out partial pages; flush picks up what a reader left */
	while (flush && (r = tracefs_cpu_flush(l->tcpu[cpu], l->page)) > 0)
		if (live_page(l, cpu, (size_t)r))
			return HS_ERR_RUNTIME;
	return 0;
}

static int live_ev_cmp(const void *a, const void *b)
{
	const struct live_ev *x = a, *y = b;

	if (x->ev.ts != y->ev.ts)
		return x->ev.ts < y->ev.ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* vCPU threads are named from /proc the first time they show up. */
static void live_name(struct hs_account *a, int tid)
{
	char comm[64], vm[128];
	int tgid = -1;

	if (hs_account_thread_info(a, tid))
		return;
	if (hs_sysinfo_thread(tid, comm, sizeof(comm), &tgid)) {
		hs_account_thread(a, tid, -1, NULL);
		return;
	}
	hs_account_thread(a, tid, tgid, comm);
	if (tgid < 0 || hs_account_process_info(a, tgid))
		return;
	vm[0] = '\0';
	hs_sysinfo_vm_name(tgid, vm, sizeof(vm));
	if (hs_sysinfo_thread(tgid, comm, sizeof(comm), &tgid) == 0)
		hs_account_process(a, tgid, comm, vm);
}

static int live_feed(struct hs_live *l, const struct hs_event *ev)
{
	bool kvm = ev->kind == HS_EV_VCPU_WAKEUP || ev->kind == HS_EV_HALT_POLL_NS;

	if (kvm)
		live_name(l->cur, ev->tid);
	l->events_total++;
	if (hs_account_event(l->cur, ev) == HS_ERR_RUNTIME)
		return HS_ERR_RUNTIME;
	if (!l->total)
		return 0;
	if (kvm)
		live_name(l->total, ev->tid);
	return hs_account_event(l->total, ev) == HS_ERR_RUNTIME ? HS_ERR_RUNTIME : 0;
}

/* Reads every CPU; events at or after cut go to held for the next interval. */
static int live_collect(struct hs_live *l, uint64_t cut, bool flush)
{
	l->batch.n = 0;
	for (unsigned int i = 0; i < l->ncpus; i++)
		if (l->tcpu[i] && live_drain_cpu(l, i, flush))
			return HS_ERR_RUNTIME;
	if (l->batch.n > 1)
		qsort(l->batch.v, l->batch.n, sizeof(*l->batch.v), live_ev_cmp);
	for (size_t i = 0; i < l->batch.n; i++) {
		const struct live_ev *e = &l->batch.v[i];

		/* what the buffers held before the first interval began is not shown */
		if (e->ev.ts < l->start_ns)
			continue;
		if (e->ev.ts >= cut) {
			if (live_push(&l->held, e))
				return HS_ERR_RUNTIME;
		} else if (live_feed(l, &e->ev)) {
			return HS_ERR_RUNTIME;
		}
	}
	return 0;
}

int hs_live_read(struct hs_live *l, struct hs_error *err)
{
	if (live_collect(l, UINT64_MAX, false))
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	return 0;
}

static uint64_t live_losses(struct hs_live *l)
{
	uint64_t sum = 0, now;

	for (unsigned int i = 0; i < l->ncpus; i++) {
		if (!l->tcpu[i] || hs_capture_lost_now(l->cap, i, &now) || now <= l->lost_seen[i])
			continue;
		hs_account_lost(l->cur, (int)i, now - l->lost_seen[i], true);
		if (l->total)
			hs_account_lost(l->total, (int)i, now - l->lost_seen[i], true);
		sum += now - l->lost_seen[i];
		l->lost_seen[i] = now;
	}
	return sum;
}

/* An interval's figures are per second of the interval, not of its events' span. */
static void live_rates(struct hs_report *rep, double seconds)
{
	rep->duration_s = seconds;
	hs_report_rates(rep, seconds);
}

/* Starts the next accounting at end and feeds it what was read early. */
static int live_switch(struct hs_live *l, uint64_t end, struct hs_account **done)
{
	struct hs_account *next;

	if (live_new_account(l, &l->aopts, &next, l->cur, end)) {
		hs_account_free(next);
		return HS_ERR_RUNTIME;
	}
	hs_account_cut(l->cur, end);
	*done = l->cur;
	l->cur = next;
	for (size_t i = 0; i < l->held.n; i++)
		if (live_feed(l, &l->held.v[i].ev))
			return HS_ERR_RUNTIME;
	l->held.n = 0;
	return 0;
}

int hs_live_interval(struct hs_live *l, const struct hs_report_filter *filter,
		     struct hs_report *rep, struct hs_live_interval *info, struct hs_error *err)
{
	struct hs_account *done = NULL;
	uint64_t end = hs_live_now_ns();
	int ret;

	memset(info, 0, sizeof(*info));
	info->start_ns = hs_account_first_ts(l->cur);
	if (live_collect(l, end, true))
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	info->lost_events = live_losses(l);
	l->lost_total += info->lost_events;
	if (live_switch(l, end, &done)) {
		hs_account_free(done);
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	}
	info->index = ++l->index;
	info->end_ns = end;
	l->last_end = end;
	info->seconds = end > info->start_ns ? (double)(end - info->start_ns) / 1e9 : 1e-9;
	info->lost_total = l->lost_total;
	info->events_total = l->events_total;
	ret = hs_report_build(rep, done, filter);
	hs_account_free(done);
	if (ret)
		return hs_error_set(err, HS_ERR_RUNTIME, "cannot build the report: out of memory");
	live_rates(rep, info->seconds);
	return 0;
}

int hs_live_total(struct hs_live *l, const struct hs_report_filter *filter,
		  struct hs_report *rep, struct hs_error *err)
{
	struct hs_advice_opts advice = { .objective = "balanced", .enabled = true };

	if (!l->total)
		return hs_error_set(err, HS_ERR_RUNTIME, "live totals were not asked for");
	if (hs_report_build(rep, l->total, filter))
		return hs_error_set(err, HS_ERR_RUNTIME, "cannot build the report: out of memory");
	hs_advice_build(rep, &advice);
	hs_guest_advice_build(rep, &advice);
	/* the span is the time watched, not the time between the first and last event */
	rep->first_ts = l->start_ns;
	rep->last_ts = l->last_end > l->start_ns ? l->last_end : l->start_ns + 1;
	live_rates(rep, (double)(rep->last_ts - rep->first_ts) / 1e9);
	return 0;
}

void hs_live_destroy(struct hs_live *l)
{
	if (!l)
		return;
	/* the instance cannot be removed while one of its trace_pipe_raw is open */
	for (unsigned int i = 0; l->tcpu && i < l->ncpus; i++)
		if (l->tcpu[i])
			tracefs_cpu_close(l->tcpu[i]);
	hs_capture_destroy(l->cap);
	tep_free(l->tep);
	hs_account_free(l->cur);
	hs_account_free(l->total);
	free(l->tcpu);
	free(l->lost_seen);
	free(l->page);
	free(l->batch.v);
	free(l->held.v);
	free(l);
}
