// SPDX-License-Identifier: GPL-2.0-only
/*
 * The second reader of a recording read in two halves of its time
 * (tracedat_split.c): a sink with an account of its own, which runs the
 * front (the runqueues, the vCPU threads' sleeps and wakes) from a stretch
 * before the cut, and from the cut on keeps what passes, the halts with
 * their facts, in the accounting thread's own slots (sink_item.h). Once
 * the first reader is at the cut, its front decides whether these follow
 * its part (second_join).
 */
#include <stdlib.h>

#include "../../lib/account.h"
#include "../../lib/hugebuf.h"
#include "sink_item.h"
#include "sink_second.h"

/*
 * What passes after the cut waits here for the first reader's join.
 * Anything but events after the first (a loss, a name, a note) breaks
 * the split.
 */
#define SECOND_SLOTS (1u << 17)	/* 4 MiB */

struct sink_second {
	struct hs_account *acct;
	struct hs_meta meta;	/* its reader's */
	bool keeping;		/* past the cut */
	bool started;		/* an event came */
	bool broken;
	/*
	 * Reserved whole and touched as it fills (hugebuf.h): a fault a 4 KiB
	 * page, in a growing array, was 2.5% of the report of the bench's
	 * sparse v6 on this kind of host.
	 */
	struct hs_hugebuf map;
	union pipe_slot *slot;
	size_t n;
};

static int second_map(struct sink_second *q)
{
	q->slot = hs_hugebuf_alloc(&q->map, SECOND_SLOTS * sizeof(union pipe_slot));
	return q->slot ? 0 : -1;
}

static int second_keep(struct sink_second *q, const struct hs_event *ev,
		       const struct hs_halt_facts *facts)
{
	unsigned int n = pipe_slots(ev->kind);
	union pipe_slot *s;

	if (q->n + n > SECOND_SLOTS || (!q->slot && second_map(q))) {
		q->broken = true;
		return HS_ERR_RUNTIME;
	}
	/* zeroed, as mapped, and each slot written once */
	s = &q->slot[q->n];
	q->n += n;
	return pipe_pack_event(s, ev, facts) ? 0 : HS_ERR_RUNTIME;
}

static int second_event(void *priv, const struct hs_event *ev)
{
	struct sink_second *q = priv;
	struct hs_halt_facts facts;
	bool pass;
	int ret = hs_account_front(q->acct, ev, &facts, &pass);

	q->started = true;
	if (ret || !pass || !q->keeping)
		return ret;
	return second_keep(q, ev, &facts);
}

static int second_events(void *priv, const struct hs_event *ev, size_t n)
{
	struct sink_second *q = priv;

	q->started = true;
	return hs_account_front_batch(q->acct, ev, n, second_event, priv);
}

/* A loss anywhere in the second's part breaks the split: the first reads on. */
static void second_lost(void *priv, int cpu, uint64_t count, bool known)
{
	(void)cpu, (void)count, (void)known;
	((struct sink_second *)priv)->broken = true;
}

/*
 * The names ahead of the events (the header's) are the first reader's too;
 * one later (a note's) breaks the split, as a note's change of the metadata does.
 */
static void second_named(struct sink_second *q)
{
	q->broken |= q->started;
}

static void second_thread(void *priv, int tid, int tgid, const char *comm)
{
	(void)tid, (void)tgid, (void)comm;
	second_named(priv);
}

static void second_process(void *priv, int tgid, const char *comm, const char *vm)
{
	(void)tgid, (void)comm, (void)vm;
	second_named(priv);
}

static void second_meta_changed(void *priv)
{
	second_named(priv);
}

static void second_count(void *priv, const struct hs_event_tally *t)
{
	for (int k = 0; k <= HS_EV_ANALYSED_LAST; k++)
		((struct sink_second *)priv)->broken |= t->count[k] != 0;
}

static bool second_sched_counted(void *priv)
{
	return hs_account_sched_counted(((struct sink_second *)priv)->acct);
}

static void *second_open(void *first, struct hs_sink *sink)
{
	const struct hs_account *acct = hs_sink_pipe_account(first);
	struct sink_second *q;

	if (!hs_account_front_splits(acct) || !(q = calloc(1, sizeof(*q))))
		return NULL;
	q->acct = hs_account_alloc(hs_account_options(acct));
	if (!q->acct) {
		free(q);
		return NULL;
	}
	q->meta = *hs_account_meta(q->acct);
	hs_account_front_meta(q->acct, &q->meta);
	*sink = (struct hs_sink){
		.event = second_event, .events = second_events, .lost = second_lost,
		.thread = second_thread, .process = second_process,
		.meta_changed = second_meta_changed, .sched_counted = second_sched_counted,
		.count = second_count, .priv = q, .meta = &q->meta,
	};
	return q;
}

static int second_cut(void *second)
{
	struct sink_second *q = second;

	q->keeping = true;
	return hs_account_front_cut(q->acct);
}

static bool second_join(void *first, void *second)
{
	struct sink_second *q = second;
	struct hs_account *acct = hs_sink_pipe_account(first);

	if (q->broken || !hs_account_front_resumes(acct, q->acct))
		return false;
	hs_sink_pipe_append(first, q->slot, q->n);
	hs_account_front_take(acct, q->acct);
	return true;
}

static void second_free(void *second)
{
	struct sink_second *q = second;

	if (!q)
		return;
	hs_account_free(q->acct);
	hs_hugebuf_free(&q->map);
	free(q);
}

void hs_sink_second_attach(struct hs_sink *sink, struct hs_sink_pipe *first)
{
	if (sink->priv != first)
		return;
	sink->second = second_open;
	sink->second_cut = second_cut;
	sink->second_join = second_join;
	sink->second_free = second_free;
}
