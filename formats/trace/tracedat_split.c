// SPDX-License-Identifier: GPL-2.0-only
/*
 * A large recording read in two halves of its time, one thread each
 * (tracedat_split.h). Where halts are few, most of a report is the merge
 * of the CPUs' records and the front behind it (the runqueues), which run
 * in time order on one thread; cutting the time in two halves that work.
 *
 * The second reader cannot know the first's state at the cut, so it
 * starts each CPU HS_TD_SPLIT_WARM_NS earlier and rebuilds it, and keeps
 * only what passes from the cut on. Its part is used only when the first
 * reader, once at the cut, finds the same: every cursor at the same
 * record with the same clamp and the same records decoded ahead, and a
 * front that gives each halt since the facts the second's gave
 * (hs_account_front_resumes). Otherwise the first reads on alone, as
 * without a split: the second's work is dropped, and with it any error it
 * met, which the first then meets itself. Output never depends on the split.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracedat_split.h"

/* Worth a second reader from this much trace data (HALTSTAT_SPLIT=1: always). */
#define HS_TD_SPLIT_MIN_BYTES (16u << 20)
/*
 * Not past this many CPUs, even when asked: the second reader's front and
 * its clone at the cut hold a runqueue history per CPU (12 KiB), and the
 * cut needs every CPU's cursor to agree. A generated recording of 256 CPUs
 * (62 MB, 640000 halts) peaked at 31 MiB split against 20 MiB read once,
 * and its second reader was turned down at the cut: 314 against 194 ms.
 */
#define HS_TD_SPLIT_MAX_CPUS 128
/* How far before the cut the second reader starts: its front's time to catch up. */
#define HS_TD_SPLIT_WARM_NS 100000000ull
/* Page headers read to place the cut: up to 64 a CPU, fewer where CPUs are many. */
#define HS_TD_SPLIT_SAMPLES 64
#define HS_TD_SPLIT_SAMPLES_ALL 1024

struct td_split {
	struct td_file *f;
	int fd;
	struct hs_sink *sink;		/* the first reader's */
	uint64_t *start;		/* the second's first page per CPU */
	/* the second reader */
	struct td_file f2;
	struct hs_error err2;
	struct hs_sink sink2;
	void *second;
	struct hs_td_half half2;
	struct hs_td_cut at_cut2;	/* where it stood at the cut */
	uint64_t clamped_ts, skipped_pages, skipped_events;	/* and at its end */
	int ret2;
	pthread_t thread;
	bool running;
	const char *outcome;		/* at the cut, for HALTSTAT_SPLIT_TRACE */
};

/* HALTSTAT_SPLIT=0 never splits, =1 whenever it can (the tests compare both). */
static int td_split_env(void)
{
	const char *e = getenv("HALTSTAT_SPLIT");

	return e ? atoi(e) != 0 : -1;
}

/* Where in the recording's time the cut goes: HALTSTAT_SPLIT_AT=0.3 for the tests. */
static double td_split_at(void)
{
	const char *e = getenv("HALTSTAT_SPLIT_AT");
	double at = e ? atof(e) : 0.5;

	return at > 0 && at < 1 ? at : 0.5;
}

static bool td_split_wanted(const struct td_file *f, int fd, const struct hs_sink *s)
{
	const struct td_buf *b = &f->bufs[0];
	int env = td_split_env();
	uint64_t bytes = 0;
	cpu_set_t set;

	if (!env || !s->second || s->keeps || f->nbufs != 1 || b->chunks || f->ncpus < 1 ||
	    f->ncpus > HS_TD_SPLIT_MAX_CPUS || fd < 0 ||
	    (s->sched_counted && s->sched_counted(s->priv)))
		return false;
	if (env > 0)
		return true;
	for (int c = 0; c < f->ncpus; c++)
		bytes += b->size[c];
	return bytes >= HS_TD_SPLIT_MIN_BYTES && !sched_getaffinity(0, sizeof(set), &set) &&
	       CPU_COUNT(&set) >= 2;
}

/* The time stamp in the header of one CPU's page k; false on a read error. */
static bool td_page_ts(const struct td_split *sp, int cpu, uint64_t k, uint64_t *ts)
{
	const struct td_buf *b = &sp->f->bufs[0];
	unsigned char h[8];

	if (pread(sp->fd, h, sizeof(h), (off_t)(b->off[cpu] + k * sp->f->page_size)) != 8)
		return false;
	*ts = hs_td_get(sp->f, h, 8);
	return true;
}

static uint64_t td_pages(const struct td_split *sp, int cpu)
{
	return sp->f->bufs[0].size[cpu] / sp->f->page_size;
}

struct td_sample {
	uint64_t ts, weight;
};

static int td_sample_order(const void *a, const void *b)
{
	const struct td_sample *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
}

/*
 * The time with the given share of the pages before it, from a few pages'
 * time stamps per CPU; 0 when there is nothing to cut.
 */
static uint64_t td_split_cut(const struct td_split *sp, double share)
{
	uint64_t per = HS_TD_SPLIT_SAMPLES_ALL / (uint64_t)sp->f->ncpus, total = 0, sum = 0, cut = 0;
	struct td_sample *s;
	size_t n = 0;

	per = per < 4 ? 4 : per > HS_TD_SPLIT_SAMPLES ? HS_TD_SPLIT_SAMPLES : per;
	s = malloc(sizeof(*s) * per * (size_t)sp->f->ncpus);
	if (!s)
		return 0;
	for (int c = 0; c < sp->f->ncpus; c++) {
		uint64_t pages = td_pages(sp, c);
		uint64_t k = pages < per ? pages : per;

		for (uint64_t j = 0; j < k; j++) {
			if (!td_page_ts(sp, c, j * pages / k, &s[n].ts))
				goto out;
			s[n++].weight = pages / k;
			total += pages / k;
		}
	}
	qsort(s, n, sizeof(*s), td_sample_order);
	for (size_t i = 0; i < n && !cut; i++) {
		sum += s[i].weight;
		if ((double)sum >= share * (double)total)
			cut = s[i].ts;
	}
out:
	free(s);
	return cut;
}

/* Each CPU's last page that starts by from, or its first: where the second reader starts. */
static bool td_split_starts(struct td_split *sp, uint64_t from)
{
	for (int c = 0; c < sp->f->ncpus; c++) {
		uint64_t lo = 0, hi = td_pages(sp, c), ts;

		/* the pages before lo start by from; those from hi on do not */
		while (hi - lo > 1) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (!td_page_ts(sp, c, mid, &ts))
				return false;
			if (ts <= from)
				lo = mid;
			else
				hi = mid;
		}
		sp->start[c] = lo * sp->f->page_size;
	}
	return true;
}

/* The second reader at the cut: where it stands, and its front keeps from here. */
static int td_second_at_cut(struct hs_td_half *half, const struct hs_td_cut *here)
{
	struct td_split *sp = half->priv;
	struct hs_td_cut *k = &sp->at_cut2;

	*k = *here;
	k->cpu = malloc(sizeof(*k->cpu) * (size_t)here->ncpus);
	if (!k->cpu) {
		k->valid = false;
		return -1;
	}
	memcpy(k->cpu, here->cpu, sizeof(*k->cpu) * (size_t)here->ncpus);
	if (sp->sink->second_cut(sp->second)) {
		k->valid = false;
		return -1;
	}
	return 0;
}

static void *td_second_main(void *arg)
{
	struct td_split *sp = arg;
	struct hs_td_stats none = { 0 };
	struct hs_meta *m = sp->sink2.meta;

	sp->ret2 = hs_td_decode(&sp->f2, sp->fd, &sp->sink2, &none, &sp->half2);
	sp->clamped_ts = m->clamped_ts;
	sp->skipped_pages = m->skipped_pages;
	sp->skipped_events = m->skipped_events;
	return NULL;
}

static void td_second_wait(struct td_split *sp)
{
	if (sp->running)
		pthread_join(sp->thread, NULL);
	sp->running = false;
}

static bool td_cut_cpu_same(const struct hs_td_cut_cpu *a, const struct hs_td_cut_cpu *b)
{
	if (a->present != b->present)
		return false;
	if (!a->present)
		return true;
	if (a->page != b->page || a->left != b->left || a->walk_ts != b->walk_ts ||
	    a->last_ts != b->last_ts || a->lost || a->lost_unknown || b->lost ||
	    b->lost_unknown || a->queued != b->queued)
		return false;
	for (unsigned int j = 0; j < a->queued; j++)
		if (a->key[j] != b->key[j] || a->ts[j] != b->ts[j])
			return false;
	return true;
}

/* Both readers' cursors at the same records, with the same clamps and the same decoded ahead. */
static bool td_cut_same(const struct hs_td_cut *a, const struct hs_td_cut *b)
{
	if (!a->valid || !b->valid || a->ncpus != b->ncpus)
		return false;
	for (int c = 0; c < a->ncpus; c++)
		if (!td_cut_cpu_same(&a->cpu[c], &b->cpu[c]))
			return false;
	return true;
}

/*
 * The first reader at the cut: once the second is done, its part follows
 * if they agree here, with the counts its reader made past the cut.
 */
static int td_first_at_cut(struct hs_td_half *half, const struct hs_td_cut *here)
{
	struct td_split *sp = half->priv;
	struct hs_meta *m = sp->sink->meta;

	td_second_wait(sp);
	sp->outcome = sp->ret2 ? "the second reader stopped" :
		      !td_cut_same(here, &sp->at_cut2) ? "the cursors differ at the cut" :
		      !sp->sink->second_join(sp->sink->priv, sp->second) ? "the fronts differ" :
		      NULL;
	if (sp->outcome)
		return 0;
	sp->outcome = "joined";
	m->clamped_ts += sp->clamped_ts - sp->at_cut2.clamped_ts;
	m->skipped_pages += sp->skipped_pages - sp->at_cut2.skipped_pages;
	m->skipped_events += sp->skipped_events - sp->at_cut2.skipped_events;
	return 1;
}

/*
 * How long before the cut the second reader starts: HALTSTAT_SPLIT_WARM=ns
 * for the tests, where a negative one starts it after the cut, which the
 * first reader must then find (its cursors stand elsewhere).
 */
static int64_t td_split_warm(void)
{
	const char *e = getenv("HALTSTAT_SPLIT_WARM");

	return e ? strtoll(e, NULL, 10) : (int64_t)HS_TD_SPLIT_WARM_NS;
}

/* The second reader under way, from each CPU's page before the cut's stretch. */
static bool td_second_start(struct td_split *sp, uint64_t cut)
{
	int64_t warm = td_split_warm();
	uint64_t from = warm < 0 ? cut + (uint64_t)-warm : cut > (uint64_t)warm ? cut - (uint64_t)warm : 0;

	sp->start = calloc((size_t)sp->f->ncpus, sizeof(*sp->start));
	if (!sp->start || !td_split_starts(sp, from))
		return false;
	sp->second = sp->sink->second(sp->sink->priv, &sp->sink2);
	if (!sp->second)
		return false;
	*sp->sink2.meta = *sp->sink->meta;
	sp->f2 = *sp->f;
	sp->f2.err = &sp->err2;
	sp->half2 = (struct hs_td_half){ .cut = cut, .start = sp->start,
					 .at_cut = td_second_at_cut, .priv = sp };
	sp->running = !pthread_create(&sp->thread, NULL, td_second_main, sp);
	return sp->running;
}

static void td_split_free(struct td_split *sp)
{
	td_second_wait(sp);
	if (sp->second)
		sp->sink->second_free(sp->second);
	free(sp->at_cut2.cpu);
	free(sp->start);
}

static int td_split_decode(struct td_file *f, int fd, struct hs_sink *s, struct hs_td_stats *tlost)
{
	struct td_split sp = { .f = f, .fd = fd, .sink = s };
	struct hs_td_half half = { .at_cut = td_first_at_cut, .priv = &sp };
	int ret;

	if (!td_split_wanted(f, fd, s))
		return hs_td_decode(f, fd, s, tlost, NULL);
	half.cut = td_split_cut(&sp, td_split_at());
	if (!half.cut || !td_second_start(&sp, half.cut)) {
		td_split_free(&sp);
		return hs_td_decode(f, fd, s, tlost, NULL);
	}
	ret = hs_td_decode(f, fd, s, tlost, &half);
	td_split_free(&sp);
	/* for the tests: that the split was tried, and how it ended */
	if (getenv("HALTSTAT_SPLIT_TRACE"))
		fprintf(stderr, "haltstat: split at %llu: %s\n", (unsigned long long)half.cut,
			sp.outcome ? sp.outcome : "the first reader did not reach the cut");
	return ret;
}

int hs_td_run(struct td_file *f, int fd, struct hs_sink *s)
{
	struct hs_td_stats tlost = { 0 };
	int ret;

	hs_td_prepare(f, s, &tlost);
	ret = td_split_decode(f, fd, s, &tlost);
	hs_td_stats_free(&tlost);
	return ret;
}
