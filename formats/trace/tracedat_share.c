// SPDX-License-Identifier: GPL-2.0-only
/*
 * The inflated chunks of a compressed trace.dat, shared by the two readers
 * lib/pipeline.c runs side by side on one file (each keeps half of the
 * vCPUs). Both decode every page, so without this each inflated every
 * chunk: a third of a v7 report's CPU, done twice.
 *
 * Both readers ask for the same chunks in the same order. Whichever gets
 * to a chunk first inflates it into a slot here; the other copies it out,
 * which costs a tenth of inflating it. A reader whose chunk is being
 * inflated by the other inflates that CPU's next chunk meanwhile
 * (tracedat_chunks.c), so two readers in step split the work rather than
 * wait for each other.
 *
 * Nothing waits long and nothing can be lost:
 * - a slot is "being inflated" only while a reader inflates it;
 * - with no slot free, the reader ahead waits for the other to copy one
 *   (it would wait for the other at the end anyway); if none is freed
 *   within TD_SHARE_WAIT_NS (the other ended early, say), it leaves, and
 *   both go on alone;
 * - a chunk larger than the budget is inflated by each reader alone;
 * - a chunk that fails to inflate leaves no slot, so the other reader
 *   tries it itself and fails the same way;
 * - a slot is freed once every reader still reading has copied it. A
 *   chunk only one reader asks for (a CPU read again from its start) keeps
 *   its slot until the other reader leaves: slower, never wrong.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "tracedat_share.h"

#define TD_SHARE_SLOTS 64
#define TD_SHARE_READERS 2
#define TD_SHARE_BYTES (8u << 20)	/* slot buffers, all told */
/*
 * How long a reader with no free slot waits for the other to copy one
 * before both read alone: a chunk takes well under a millisecond, a
 * reader's thread put off by the scheduler a few.
 */
#define TD_SHARE_WAIT_NS 20000000u

enum { SLOT_FREE, SLOT_BUSY, SLOT_READY };

struct td_share_slot {
	uint64_t pos;		/* the chunk's offset in the file */
	int state;
	unsigned int need;	/* readers yet to copy it, a bit each */
	unsigned char *buf;
	size_t len, cap;
};

struct hs_td_share {
	pthread_mutex_t lock;
	unsigned int joined;	/* readers handed an index */
	unsigned int reading;	/* a bit per reader not yet gone */
	size_t bytes;		/* held by slot buffers */
	struct td_share_slot slot[TD_SHARE_SLOTS];
};

struct hs_td_share *hs_td_share_new(void)
{
	struct hs_td_share *s = calloc(1, sizeof(*s));

	if (s && pthread_mutex_init(&s->lock, NULL)) {
		free(s);
		return NULL;
	}
	if (s)
		s->reading = (1u << TD_SHARE_READERS) - 1;
	return s;
}

void hs_td_share_free(struct hs_td_share *s)
{
	if (!s)
		return;
	for (int i = 0; i < TD_SHARE_SLOTS; i++)
		free(s->slot[i].buf);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

int hs_td_share_join(struct hs_td_share *s)
{
	int reader = -1;

	pthread_mutex_lock(&s->lock);
	if (s->joined < TD_SHARE_READERS)
		reader = (int)s->joined++;
	pthread_mutex_unlock(&s->lock);
	return reader;
}

static void slot_release(struct td_share_slot *sl, unsigned int bit)
{
	sl->need &= ~bit;
	if (!sl->need && sl->state == SLOT_READY)
		sl->state = SLOT_FREE;
}

void hs_td_share_leave(struct hs_td_share *s, int reader)
{
	unsigned int bit = 1u << reader;

	pthread_mutex_lock(&s->lock);
	s->reading &= ~bit;
	for (int i = 0; i < TD_SHARE_SLOTS; i++)
		slot_release(&s->slot[i], bit);
	pthread_mutex_unlock(&s->lock);
}

static struct td_share_slot *slot_find(struct hs_td_share *s, uint64_t pos)
{
	for (int i = 0; i < TD_SHARE_SLOTS; i++)
		if (s->slot[i].state != SLOT_FREE && s->slot[i].pos == pos)
			return &s->slot[i];
	return NULL;
}

/* The buffers of free slots other than keep, given back until need bytes more fit. */
static void slot_reclaim(struct hs_td_share *s, const struct td_share_slot *keep, size_t need)
{
	for (int i = 0; i < TD_SHARE_SLOTS && need > TD_SHARE_BYTES - s->bytes; i++) {
		struct td_share_slot *sl = &s->slot[i];

		if (sl == keep || sl->state != SLOT_FREE || !sl->cap)
			continue;
		free(sl->buf);
		s->bytes -= sl->cap;
		*sl = (struct td_share_slot){ 0 };
	}
}

/*
 * A free slot with room for len bytes, marked being inflated; NULL with
 * *got TD_SHARE_FULL (none free now) or TD_SHARE_ALONE (none ever will be).
 */
static struct td_share_slot *slot_claim(struct hs_td_share *s, uint64_t pos, size_t len,
					enum td_share_got *got)
{
	struct td_share_slot *sl = NULL;
	unsigned char *buf;

	*got = TD_SHARE_ALONE;
	if (len > TD_SHARE_BYTES)
		return NULL;
	*got = TD_SHARE_FULL;
	for (int i = 0; i < TD_SHARE_SLOTS; i++) {
		if (s->slot[i].state != SLOT_FREE)
			continue;
		if (!sl || (sl->cap < len && s->slot[i].cap >= len))
			sl = &s->slot[i];
	}
	if (!sl)
		return NULL;
	if (sl->cap < len) {
		slot_reclaim(s, sl, len - sl->cap);
		if (len - sl->cap > TD_SHARE_BYTES - s->bytes)
			return NULL;
		if (!(buf = realloc(sl->buf, len))) {
			*got = TD_SHARE_ALONE;
			return NULL;
		}
		s->bytes += len - sl->cap;
		sl->buf = buf;
		sl->cap = len;
	}
	sl->pos = pos;
	sl->state = SLOT_BUSY;
	sl->need = s->reading;
	sl->len = len;
	*got = TD_SHARE_MAKE;
	return sl;
}

enum td_share_got hs_td_share_get(struct hs_td_share *s, int reader, uint64_t pos, size_t len,
				  struct td_share_slot **slot)
{
	struct td_share_slot *sl;
	enum td_share_got got;

	pthread_mutex_lock(&s->lock);
	sl = slot_find(s, pos);
	if (sl && sl->len != len)
		got = TD_SHARE_ALONE;	/* not the same chunk after all: a file read two ways */
	else if (sl && !(sl->need & (1u << reader)))
		got = TD_SHARE_ALONE;	/* copied before: this reader started a CPU again */
	else if (sl)
		got = sl->state == SLOT_READY ? TD_SHARE_COPY : TD_SHARE_WAIT;
	else
		sl = slot_claim(s, pos, len, &got);
	pthread_mutex_unlock(&s->lock);
	*slot = sl;
	return got;
}

struct td_share_slot *hs_td_share_claim(struct hs_td_share *s, uint64_t pos, size_t len)
{
	struct td_share_slot *sl = NULL;
	enum td_share_got got;

	pthread_mutex_lock(&s->lock);
	if (!slot_find(s, pos))
		sl = slot_claim(s, pos, len, &got);
	pthread_mutex_unlock(&s->lock);
	return sl;
}

unsigned char *hs_td_share_buf(struct td_share_slot *sl)
{
	return sl->buf;
}

void hs_td_share_made(struct hs_td_share *s, struct td_share_slot *sl, bool ok, int reader)
{
	pthread_mutex_lock(&s->lock);
	if (reader >= 0)
		sl->need &= ~(1u << reader);
	sl->state = ok && sl->need ? SLOT_READY : SLOT_FREE;
	pthread_mutex_unlock(&s->lock);
}

void hs_td_share_copied(struct hs_td_share *s, int reader, struct td_share_slot *sl)
{
	pthread_mutex_lock(&s->lock);
	slot_release(sl, 1u << reader);
	pthread_mutex_unlock(&s->lock);
}

bool hs_td_share_pause(struct td_share_wait *w)
{
	struct timespec ts;
	uint64_t now;

	if (w->spins++ % 64) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
		return true;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (!w->since_ns)
		w->since_ns = now;
	else if (now - w->since_ns > TD_SHARE_WAIT_NS)
		return false;
	sched_yield();
	return true;
}
