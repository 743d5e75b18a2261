// SPDX-License-Identifier: GPL-2.0-only
/*
 * A sink that hands what a reader decodes to a second thread, which puts it
 * into the accounting: decoding and merging the CPUs' pages on one core,
 * the per-event accounting (runqueues, halts, the what-if) on the other.
 * Items keep the reader's order, so the account sees what one thread would
 * have shown it. The reader runs the accounting's front (hs_account_front:
 * the sched events and the runqueues stay on its thread; a hand-over to
 * another core costs more than following them) and hands over the rest,
 * each halt with its facts (sink_item.h). The reader writes its own copy
 * of the metadata; the copy goes over with the items wherever it changed.
 * A recording read in two halves of its time hands the second reader's
 * part over after the first's (sink_second.c, hs_sink_pipe_append).
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/account.h"
#include "../../lib/hugebuf.h"
#include "sink_item.h"
#include "sink_pipe.h"

#define PIPE_ITEMS 4096		/* a batch */
#define PIPE_BATCHES 8		/* batches in flight */
/*
 * A reader that found the ring full sleeps until half of it is free: one
 * wake-up per half a ring, not one per batch (the two threads took turns
 * at every batch, 1900 context switches in a 3 M-event report). The
 * account's thread, asleep on an empty ring, is woken by half a ring or
 * the last batch.
 */
#define PIPE_RESUME (PIPE_BATCHES / 2)
#define PIPE_NAMES (PIPE_ITEMS * 16)

struct pipe_batch {
	union pipe_slot slot[PIPE_ITEMS];
	unsigned int n;
	char names[PIPE_NAMES];
	size_t names_len;
	bool last;
};

struct hs_sink_pipe {
	struct hs_account *acct;
	struct hs_meta meta;		/* the reader's */
	struct hs_meta applied;		/* the reader's as last handed over */
	bool meta_dirty;
	struct pipe_batch *batch[PIPE_BATCHES];	/* in ring */
	struct hs_hugebuf ring;
	unsigned int head, tail, full;	/* ring of batches: filled at head, taken at tail */
	bool reader_asleep, account_asleep;
	struct pipe_batch *cur;		/* being filled */
	pthread_mutex_t lock;
	pthread_cond_t put, took;
	pthread_t thread;
	int status;			/* the account's first error; read by the reader */
	bool oom;
	struct hs_event_tally tally;	/* counted by the reader, for the account at the end */
};

/* The reader's metadata into the account's: the losses both add to go by difference. */
static void pipe_meta_apply(struct hs_sink_pipe *p, const struct hs_meta *m)
{
	struct hs_meta *a = hs_account_meta(p->acct);
	uint64_t lost = a->lost_events, unknown = a->lost_unknown_places;
	uint64_t over = a->over_limit_events;

	lost += m->lost_events - p->applied.lost_events;
	unknown += m->lost_unknown_places - p->applied.lost_unknown_places;
	*a = *m;
	a->lost_events = lost;
	a->lost_unknown_places = unknown;
	a->over_limit_events = over;
	p->applied = *m;
}

static struct hs_event pipe_unpack(const struct pipe_item *it)
{
	struct hs_event ev = { .ts = it->ts, .cpu = it->cpu, .tid = it->tid, .kind = it->ev_kind };

	switch (ev.kind) {
	case HS_EV_VCPU_WAKEUP:
		ev.wakeup = (struct hs_wakeup){ .ns = it->b, .waited = it->flag, .valid = it->valid };
		break;
	case HS_EV_HALT_POLL_NS:
		ev.poll = (struct hs_poll_change){ .vcpu_id = it->a, .new_ns = (uint32_t)it->b,
						   .old_ns = (uint32_t)(it->b >> 32), .grow = it->flag };
		break;
	case HS_EV_CPU_IDLE:
		ev.idle = (struct hs_idle){ .state = it->a, .cpu_id = (uint32_t)it->b };
		break;
	case HS_EV_GUEST_HALT_POLL_NS:
		ev.guest_poll = (struct hs_guest_poll){ .new_ns = it->a, .old_ns = (uint32_t)it->b,
							.grow = it->flag };
		break;
	case HS_EV_SCHED_SWITCH:
		ev.sched_switch = (struct hs_sched_switch){ .prev_pid = (int32_t)it->a,
							    .next_pid = (int32_t)(uint32_t)it->b,
							    .prev_runnable = it->flag };
		break;
	default:	/* sched_wakeup, sched_waking */
		ev.sched_wakeup = (struct hs_sched_wakeup){ .pid = (int32_t)it->a,
							    .target_cpu = (int32_t)(uint32_t)it->b };
		break;
	}
	return ev;
}

static struct hs_halt_facts pipe_unpack_facts(const struct pipe_item *it,
					      const struct pipe_facts *f)
{
	return (struct hs_halt_facts){
		.tracked = it->a & PIPE_FACT_TRACKED,
		.runq = { .known = it->a & PIPE_FACT_KNOWN, .cut_ns = f->cut_ns,
			  .busy_ns = f->busy_ns, .slept_ns = f->slept_ns },
		.woken_ns = f->woken_ns,
	};
}

static const char *pipe_name(const struct pipe_batch *b, int32_t off)
{
	return off < 0 ? NULL : b->names + off;
}

/* One event into the account: a wakeup with the facts in the slot after it. */
static int pipe_apply_event(struct hs_sink_pipe *p, const union pipe_slot *s)
{
	struct hs_event ev = pipe_unpack(&s->item);
	struct hs_halt_facts facts;

	if (ev.kind == HS_EV_VCPU_WAKEUP)
		facts = pipe_unpack_facts(&s[0].item, &s[1].facts);
	return hs_account_back(p->acct, &ev, ev.kind == HS_EV_VCPU_WAKEUP ? &facts : NULL);
}

static int pipe_apply(struct hs_sink_pipe *p, struct pipe_batch *b)
{
	int ret = 0;

	for (unsigned int i = 0; i < b->n; i++) {
		struct pipe_item *it = &b->slot[i].item;

		switch (it->kind) {
		case PIPE_EVENT:
			if (!ret)
				ret = pipe_apply_event(p, &b->slot[i]);
			i += pipe_slots(it->ev_kind) - 1;
			break;
		case PIPE_LOST:
			hs_account_back_lost(p->acct, it->cpu, it->b, it->flag);
			break;
		case PIPE_THREAD:
			hs_account_thread(p->acct, it->tid, it->cpu, pipe_name(b, (int32_t)it->a));
			break;
		case PIPE_PROCESS:
			hs_account_process(p->acct, it->tid, pipe_name(b, (int32_t)it->a),
					   pipe_name(b, (int32_t)it->b));
			break;
		case PIPE_META:
			pipe_meta_apply(p, (struct hs_meta *)(uintptr_t)it->b);
			free((void *)(uintptr_t)it->b);
			break;
		}
	}
	return ret;
}

static void *pipe_main(void *arg)
{
	struct hs_sink_pipe *p = arg;
	bool last = false;

	while (!last) {
		struct pipe_batch *b;
		int ret;

		pthread_mutex_lock(&p->lock);
		while (!p->full) {
			p->account_asleep = true;
			pthread_cond_wait(&p->put, &p->lock);
		}
		p->account_asleep = false;
		b = p->batch[p->tail];
		pthread_mutex_unlock(&p->lock);
		ret = pipe_apply(p, b);
		last = b->last;
		pthread_mutex_lock(&p->lock);
		if (ret && !p->status)
			__atomic_store_n(&p->status, ret, __ATOMIC_RELAXED);
		p->tail = (p->tail + 1) % PIPE_BATCHES;
		p->full--;
		if (p->reader_asleep && p->full <= PIPE_RESUME)
			pthread_cond_signal(&p->took);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

/* The batch being filled goes to the account's thread; the next free one is taken. */
static void pipe_send(struct hs_sink_pipe *p, bool last)
{
	p->cur->last = last;
	pthread_mutex_lock(&p->lock);
	p->full++;
	p->head = (p->head + 1) % PIPE_BATCHES;
	if (p->account_asleep && (last || p->full >= PIPE_RESUME))
		pthread_cond_signal(&p->put);
	if (!last && p->full == PIPE_BATCHES) {
		p->reader_asleep = true;
		while (p->full > PIPE_RESUME)
			pthread_cond_wait(&p->took, &p->lock);
		p->reader_asleep = false;
	}
	pthread_mutex_unlock(&p->lock);
	/* after the last the slot may still be the account's to read */
	if (last)
		return;
	p->cur = p->batch[p->head];
	p->cur->n = 0;
	p->cur->names_len = 0;
}

/* n slots of the batch, and room for names bytes of names. */
static union pipe_slot *pipe_take(struct hs_sink_pipe *p, unsigned int n, size_t names)
{
	union pipe_slot *s;

	if (p->cur->n + n > PIPE_ITEMS || p->cur->names_len + names > PIPE_NAMES)
		pipe_send(p, false);
	s = &p->cur->slot[p->cur->n];
	p->cur->n += n;
	return s;
}

static struct pipe_item *pipe_next(struct hs_sink_pipe *p, size_t names)
{
	return &pipe_take(p, 1, names)->item;
}

static int32_t pipe_keep_name(struct hs_sink_pipe *p, const char *s)
{
	size_t n;
	int32_t off;

	if (!s)
		return -1;
	n = strnlen(s, 255);
	off = (int32_t)p->cur->names_len;
	memcpy(p->cur->names + off, s, n);
	p->cur->names[off + n] = '\0';
	p->cur->names_len += n + 1;
	return off;
}

/* A copy of the reader's metadata ahead of what it decodes next, when it changed. */
static void pipe_meta_sync(struct hs_sink_pipe *p)
{
	struct pipe_item *it;
	struct hs_meta *m;

	if (!p->meta_dirty)
		return;
	m = malloc(sizeof(*m));
	if (!m) {
		p->oom = true;
		return;
	}
	*m = p->meta;
	it = pipe_next(p, 0);
	it->kind = PIPE_META;
	it->b = (uintptr_t)m;
	p->meta_dirty = false;
}

static int pipe_event(void *priv, const struct hs_event *ev)
{
	struct hs_sink_pipe *p = priv;
	struct pipe_batch *b = p->cur;
	unsigned int n = pipe_slots(ev->kind);
	struct hs_halt_facts facts;
	union pipe_slot *s;
	bool pass;
	int ret = hs_account_front(p->acct, ev, &facts, &pass);

	if (ret || !pass)
		return ret;
	if (p->meta_dirty || b->n + n > PIPE_ITEMS) {
		pipe_meta_sync(p);
		s = pipe_take(p, n, 0);
		/* an error of the account's stops the reader, a batch or so later */
		if (__atomic_load_n(&p->status, __ATOMIC_RELAXED) || p->oom)
			return HS_ERR_RUNTIME;
	} else {
		s = &b->slot[b->n];
		b->n += n;
	}
	/* only the analysed kinds reach a sink */
	return pipe_pack_event(s, ev, &facts) ? 0 : HS_ERR_RUNTIME;
}

/* the sched events stay here: a run of them in one call */
static int pipe_events(void *priv, const struct hs_event *ev, size_t n)
{
	return hs_account_front_batch(((struct hs_sink_pipe *)priv)->acct, ev, n, pipe_event, priv);
}

static bool pipe_sched_counted(void *priv)
{
	struct hs_sink_pipe *p = priv;

	return hs_account_sched_counted(p->acct);
}

/* Events the reader counted: they join the account's once its thread is done. */
static void pipe_count(void *priv, const struct hs_event_tally *t)
{
	struct hs_event_tally *sum = &((struct hs_sink_pipe *)priv)->tally;

	for (int k = 0; k <= HS_EV_ANALYSED_LAST; k++)
		sum->count[k] += t->count[k];
	sum->first_ts = t->first_ts < sum->first_ts ? t->first_ts : sum->first_ts;
	sum->last_ts = t->last_ts > sum->last_ts ? t->last_ts : sum->last_ts;
}

static void pipe_lost(void *priv, int cpu, uint64_t count, bool known)
{
	struct hs_sink_pipe *p = priv;
	struct pipe_item *it;

	hs_account_front_lost(p->acct, cpu, count, known);
	pipe_meta_sync(p);
	it = pipe_next(p, 0);
	it->kind = PIPE_LOST;
	it->cpu = cpu;
	it->b = count;
	it->flag = known;
}

static void pipe_names(struct hs_sink_pipe *p, enum pipe_kind kind, int id, int tgid,
		       const char *comm, const char *vm)
{
	struct pipe_item *it = pipe_next(p, 2 * 256);

	it->kind = (uint8_t)kind;
	it->tid = id;
	it->cpu = tgid;
	it->a = (uint32_t)pipe_keep_name(p, comm);
	it->b = (uint64_t)(uint32_t)pipe_keep_name(p, vm);
}

static void pipe_thread(void *priv, int tid, int tgid, const char *comm)
{
	pipe_names(priv, PIPE_THREAD, tid, tgid, comm, NULL);
}

static void pipe_process(void *priv, int tgid, const char *comm, const char *vm)
{
	pipe_names(priv, PIPE_PROCESS, tgid, -1, comm, vm);
}

static void pipe_meta_changed(void *priv)
{
	((struct hs_sink_pipe *)priv)->meta_dirty = true;
}

static void pipe_free(struct hs_sink_pipe *p)
{
	hs_hugebuf_free(&p->ring);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->put);
	pthread_cond_destroy(&p->took);
	free(p);
}

/*
 * Worth a second thread: a large input, a second CPU, and neither one
 * reader asked for (HALTSTAT_THREADS=1) nor the accounting split in shards.
 */
static bool pipe_wanted(const struct hs_account *acct, uint64_t size)
{
	const char *env = getenv("HALTSTAT_THREADS"), *pipe = getenv("HALTSTAT_PIPE");
	cpu_set_t set;

	if (pipe)
		return atoi(pipe) != 0 && !hs_account_sharded(acct);
	if ((env && atoi(env) == 1) || hs_account_sharded(acct) || size < HS_SINK_PIPE_MIN_BYTES)
		return false;
	return !sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) >= 2;
}

struct hs_sink_pipe *hs_sink_pipe_open(struct hs_sink *sink, struct hs_account *acct,
				       uint64_t size)
{
	struct hs_sink_pipe *p;
	struct pipe_batch *ring;

	hs_sink_account(sink, acct);
	if (!pipe_wanted(acct, size) || !(p = calloc(1, sizeof(*p))))
		return NULL;
	ring = hs_hugebuf_alloc(&p->ring, PIPE_BATCHES * sizeof(*ring));
	if (!ring) {
		pipe_free(p);
		return NULL;
	}
	for (unsigned int i = 0; i < PIPE_BATCHES; i++)
		p->batch[i] = ring + i;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->put, NULL);
	pthread_cond_init(&p->took, NULL);
	p->acct = acct;
	p->meta = p->applied = *hs_account_meta(acct);
	p->meta_dirty = true;
	p->cur = p->batch[0];
	p->cur->n = 0;
	p->cur->names_len = 0;
	p->tally.first_ts = UINT64_MAX;
	if (pthread_create(&p->thread, NULL, pipe_main, p)) {
		pipe_free(p);
		return NULL;
	}
	hs_account_front_meta(acct, &p->meta);
	*sink = (struct hs_sink){
		.event = pipe_event, .events = pipe_events, .lost = pipe_lost, .thread = pipe_thread,
		.process = pipe_process, .meta_changed = pipe_meta_changed,
		.sched_counted = pipe_sched_counted, .count = pipe_count,
		.priv = p, .meta = &p->meta,
	};
	return p;
}

int hs_sink_pipe_close(struct hs_sink_pipe *p)
{
	int ret;

	if (!p)
		return 0;
	p->meta_dirty = true;
	pipe_meta_sync(p);
	pipe_send(p, true);
	pthread_join(p->thread, NULL);
	hs_account_front_meta(p->acct, NULL);
	hs_account_tally(p->acct, &p->tally);
	ret = p->status ? p->status : p->oom ? HS_ERR_RUNTIME : 0;
	pipe_free(p);
	return ret;
}

struct hs_account *hs_sink_pipe_account(struct hs_sink_pipe *p)
{
	return p->acct;
}

void hs_sink_pipe_append(struct hs_sink_pipe *p, const union pipe_slot *slot, size_t n)
{
	pipe_meta_sync(p);
	for (size_t i = 0; i < n;) {
		size_t room = PIPE_ITEMS - p->cur->n, k = 0;

		/* as many as the batch holds, a halt's two slots together */
		while (i + k < n) {
			size_t m = pipe_slots(slot[i + k].item.ev_kind);

			if (k + m > room)
				break;
			k += m;
		}
		if (!k) {
			pipe_send(p, false);
			continue;
		}
		memcpy(&p->cur->slot[p->cur->n], &slot[i], k * sizeof(*slot));
		p->cur->n += (unsigned int)k;
		i += k;
	}
}
