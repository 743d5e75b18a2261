// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page decoder behind both trace.dat versions: per CPU a cursor over
 * its ring-buffer pages, a time-ordered merge across CPUs into the sink,
 * the losses, and the metadata the file carries. Per CPU the losses
 * reported are the larger of the pages' counts and the kernel's stats, the
 * difference before the first event. Given a file descriptor, pages are
 * read with pread() into one bounded window per CPU (v7 chunks inflated
 * into it one at a time, td_at), so memory does not grow with the file.
 * Why: doc/INTERNALS.md, "The page decoder: losses and bounded reads".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "../../lib/hugebuf.h"
#include "../../lib/intmap.h"
#include "../../lib/ringbuf.h"
#include "recmeta.h"
#include "tracedat_file.h"
#include "tracedat_split.h"


/* ---- ring-buffer pages ---- */

/*
 * Events a CPU's cursor decodes at once: in a loop of its own, a page's
 * records are decoded with the layout in registers, not one call each.
 * Fewer when the cursors are many, to hold all queues in TD_QUEUE_TOTAL.
 */
#define TD_QUEUE 32
#define TD_QUEUE_TOTAL (2u << 20)

struct td_cur {
	const unsigned char *data;	/* this CPU's pages, when in memory */
	uint64_t foff;			/* their offset in the file */
	const struct td_chunks *ch;	/* or their compressed chunks */
	uint64_t zpos;			/* file offset of the next chunk header */
	uint32_t zleft;			/* chunks not inflated yet */
	unsigned char *win;		/* pread window (fd >= 0: in td_dec.wins), win_len bytes */
	uint64_t win_off;		/* CPU-relative offset of win[0] */
	size_t win_len, win_cap;
	uint64_t size, page;		/* bytes, offset of the next page */
	struct hs_rb_walk w;		/* the records of the current page */
	uint64_t last_ts;		/* the clamp's, in this CPU's order */
	uint64_t lost;			/* known losses not reported yet */
	uint64_t lost_unknown;		/* pages that lost an unknown count */
	int cpu;
	/*
	 * Decoded ahead, from one page only: a marker's text points into
	 * it, and the next page may overwrite the window. q[qi] is next.
	 */
	unsigned int qi, qn, qcap;
	uint64_t *key;			/* the raw time stamps: the merge's order */
	struct hs_event *q;		/* time stamps clamped */
};

struct td_dec {
	const struct td_file *f;
	struct hs_meta *meta;
	unsigned int hdr;		/* page header size */
	int fd;				/* pread the pages, or -1: they are in f->buf */
	size_t win_cap;			/* bytes per pread window */
	struct hs_hugebuf wins;		/* the cursors' pread windows, in one block */
	size_t wins_used;		/* by the cursors opened so far */
	int io_err;			/* errno of a failed pread */
	bool z_err;			/* a chunk did not inflate */
	const struct hs_sink *drop;	/* sink that tells events to drop, or NULL */
	struct hs_shard kvm_shard;	/* kvm events drop keeps, count 0: ask */
	bool count_sched;		/* the sink only counts sched events (hs_sink.sched_counted) */
	struct hs_event_tally tally;	/* the events dropped or counted here */
	bool stats_used;		/* losses came from the trailer or CPUSTAT */
	struct hs_td_stats notes_lost;	/* losses the notes in the trace give */
	struct hs_td_half *half;	/* a half of a split in time, or NULL */
	uint64_t cut;			/* the half's cut while not reached, else UINT64_MAX */
};

static uint64_t td_long(const struct td_dec *d, const unsigned char *p)
{
	return hs_td_get(d->f, p, d->f->long_size);
}

/*
 * The same from compressed chunks: inflates the following chunks into the
 * window, keeping the part from off on of what it held. A read from before
 * the window starts the CPU's chunks again. Past the last chunk of a CPU
 * whose size was not known, NULL with no error: the size is known now.
 */
static const unsigned char *td_chunk_at(struct td_dec *d, struct td_cur *c, uint64_t off,
					size_t n)
{
	uint64_t end = c->win_off + c->win_len;
	int r;

	if (off < c->win_off || !c->win) {
		c->zpos = c->ch->start;
		c->zleft = c->ch->count;
		c->win_off = c->win_len = 0;
		end = 0;
	}
	while (off + n > end) {
		if (!c->zleft && c->size == TD_SIZE_UNKNOWN) {
			c->size = end;
			return NULL;
		}
		if (off >= end) {
			c->win_off = end;
			c->win_len = 0;
		} else if (off > c->win_off) {
			memmove(c->win, c->win + (off - c->win_off), end - off);
			c->win_len = end - off;
			c->win_off = off;
		}
		r = hs_td_chunk_next(d->f, c->ch, &c->zpos, &c->zleft, &c->win, &c->win_len,
				     &c->win_cap);
		if (r <= 0) {
			d->z_err = true;
			return NULL;
		}
		end = c->win_off + c->win_len;
	}
	return c->win + (off - c->win_off);
}

/* A cursor's pread window: win_cap, or less where its CPU has less data. */
static size_t td_win_len(const struct td_dec *d, uint64_t size)
{
	return size < d->win_cap ? (size_t)size : d->win_cap;
}

/*
 * n bytes at CPU-relative offset off (n <= one page), or NULL on a read
 * error. Pages are used one at a time, so refilling the window moves
 * nothing that is still pointed to.
 */
static const unsigned char *td_at(struct td_dec *d, struct td_cur *c, uint64_t off, size_t n)
{
	size_t want;

	if (c->ch)
		return td_chunk_at(d, c, off, n);
	if (d->fd < 0)
		return c->data + off;
	if (off >= c->win_off && off - c->win_off + n <= c->win_len)
		return c->win + (off - c->win_off);
	/* the page scan's cursor (td_page_losses()) has a window of its own */
	if (!c->win) {
		c->win = malloc(d->win_cap);
		if (!c->win) {
			d->io_err = ENOMEM;
			return NULL;
		}
	}
	want = c->size - off < d->win_cap ? (size_t)(c->size - off) : d->win_cap;
	c->win_off = off;
	if (!hs_td_pread_full(d->fd, c->win, want, c->foff + off, &c->win_len)) {
		d->io_err = errno;
		return NULL;
	}
	if (c->win_len < want) {
		d->io_err = EIO;
		return NULL;
	}
	return c->win;
}

/*
 * The page at off of a CPU, *avail bytes of it (a whole page but at the
 * end); NULL at the end or on a read error. A chunked CPU of unknown size
 * learns it at its last chunk (td_chunk_at), and the page is asked again.
 */
static const unsigned char *td_page_at(struct td_dec *d, struct td_cur *c, uint64_t off,
				       uint64_t *avail)
{
	uint64_t ps = d->f->page_size;

	for (;;) {
		const unsigned char *pg;
		bool unknown = c->size == TD_SIZE_UNKNOWN;

		if (off >= c->size)
			return NULL;
		*avail = c->size - off < ps ? c->size - off : ps;
		pg = td_at(d, c, off, *avail);
		if (pg || !unknown || c->size == TD_SIZE_UNKNOWN)
			return pg;
	}
}

/* Loads the next page with a plausible commit; false at the end. */
static bool td_page(struct td_dec *d, struct td_cur *c)
{
	uint64_t avail, flags, commit;
	const unsigned char *pg;

	while ((pg = td_page_at(d, c, c->page, &avail))) {
		c->page += avail;
		if (avail < d->hdr) {
			d->meta->skipped_pages++;
			continue;
		}
		flags = td_long(d, pg + 8);
		commit = flags & HS_RB_COMMIT_MASK;
		if (commit > avail - d->hdr) {
			d->meta->skipped_pages++;
			continue;
		}
		if (flags & HS_RB_MISSED_EVENTS) {
			if ((flags & HS_RB_MISSED_STORED) &&
			    commit + d->f->long_size <= avail - d->hdr)
				c->lost += td_long(d, pg + d->hdr + commit);
			else
				c->lost_unknown++;
		}
		hs_rb_walk_init(&c->w, pg + d->hdr, commit, hs_td_get(d->f, pg, 8), d->f->swap,
				d->f->big);
		return true;
	}
	return false;
}

/*
 * A CPU's time stamps never go back: one that does takes the one before
 * it (*last), in the CPU's order of records (kept or dropped), and counts
 * in *clamped. The merge still orders by the raw stamp (td_cur.key).
 */
static inline uint64_t td_clamp_ts(uint64_t ts, uint64_t *last, uint64_t *clamped)
{
	if (ts < *last) {
		ts = *last;
		(*clamped)++;
	}
	*last = ts;
	return ts;
}

static uint64_t td_clamp(struct td_dec *d, struct td_cur *c, uint64_t ts)
{
	return td_clamp_ts(ts, &c->last_ts, &d->meta->clamped_ts);
}

/* An event stamped ts that the sink only counts, counted here. */
static void td_tally(struct hs_event_tally *t, enum hs_event_kind kind, uint64_t ts)
{
	/* first_ts starts at UINT64_MAX, last_ts at 0 */
	t->first_ts = ts < t->first_ts ? ts : t->first_ts;
	t->last_ts = ts > t->last_ts ? ts : t->last_ts;
	t->count[kind]++;
}

/*
 * An event the sink only counts (a sched event it says it only counts, or
 * one of a vCPU another thread keeps) is counted here instead of going
 * through the merge.
 */
static bool td_dropped(struct td_dec *d, struct td_cur *c, struct hs_event *ev)
{
	bool sched = hs_ev_sched(ev->kind);

	ev->cpu = c->cpu;
	if (sched ? !d->count_sched : !d->drop || d->drop->keeps(d->drop->priv, ev))
		return false;
	td_tally(&d->tally, ev->kind, td_clamp(d, c, c->w.ts));
	return true;
}

/*
 * One record into the queue: 0 kept, -1 unrelated or dropped. A page that
 * lost events reports them at its first record, relevant or not (as
 * libtracecmd does): kind 0 marks a loss-only stop for the merge.
 */
static inline int td_record(struct td_dec *d, struct td_cur *c, const unsigned char *pl,
			    size_t plen)
{
	struct hs_event *ev = &c->q[c->qn];
	bool loss = !c->qn && (c->lost || c->lost_unknown);
	int r = hs_ev_decode(&d->f->lay, pl, plen, ev);

	if (r == -2)
		d->meta->skipped_events++;
	if (r == 0 && (d->drop || d->count_sched) && td_dropped(d, c, ev))
		r = -1;
	if (r != 0 && !loss)
		return -1;
	if (r != 0)
		ev->kind = 0;
	c->key[c->qn] = c->w.ts;
	/* a loss stop and a marker leave the clamp alone */
	ev->ts = ev->kind && ev->kind != HS_EV_MARKER ? td_clamp(d, c, c->w.ts) : c->w.ts;
	ev->cpu = c->cpu;
	c->qn++;
	return 0;
}

/* A sched_switch of a fast layout into the queue, as td_record() would. */
static inline void td_switch_record(struct td_cur *c, const struct hs_ev_desc *sw,
				    const unsigned char *pl, uint64_t *last_ts, uint64_t *clamped)
{
	struct hs_event *ev = &c->q[c->qn];
	uint64_t ts = c->w.ts;

	ev->kind = HS_EV_SCHED_SWITCH;
	hs_ev_sched_fast(sw, pl, ev);
	c->key[c->qn++] = ts;
	ev->ts = td_clamp_ts(ts, last_ts, clamped);
	ev->cpu = c->cpu;
}

/*
 * A kvm event of a fast layout into the queue, as td_record() would,
 * whether this reader keeps it or not: one it does not keep is written
 * and left behind, and counted, without a branch. The other reader's
 * events come at random, and a branch on the owner mispredicted half the
 * time.
 */
static inline void td_kvm_record(struct td_dec *d, struct td_cur *c, const struct hs_ev_desc *k,
				 enum hs_event_kind kind, const unsigned char *pl,
				 uint64_t *last_ts, uint64_t *clamped)
{
	struct hs_event *ev = &c->q[c->qn];
	struct hs_event_tally *t = &d->tally;
	uint64_t ts = td_clamp_ts(c->w.ts, last_ts, clamped), kept_mask;
	bool keep;

	ev->kind = (uint8_t)kind;
	hs_ev_kvm_fast(k, pl, ev);
	keep = (ev->tid < 0) | hs_shard_owns(d->kvm_shard, ev->tid);
	c->key[c->qn] = c->w.ts;
	ev->ts = ts;
	ev->cpu = c->cpu;
	c->qn += keep;
	/* td_tally() of a dropped one; a kept one leaves the tally as it was */
	kept_mask = -(uint64_t)keep;
	t->count[kind] += !keep;
	t->first_ts = (ts | kept_mask) < t->first_ts ? ts | kept_mask : t->first_ts;
	t->last_ts = (ts & ~kept_mask) > t->last_ts ? ts & ~kept_mask : t->last_ts;
}

/* The events td_fast_record() takes, by id (-1: none), and the kvm ones' layouts. */
struct td_fast {
	int switch_id, wakeup_id, poll_id;
	const struct hs_ev_desc *wakeup, *poll;
};

/*
 * sched_switch in a fast layout; the kvm events in fast layouts too, when
 * the sink drops none of them (no hs_sink.keeps) or tells which it keeps
 * (hs_sink.kvm_shard), else each is asked about (td_record()).
 */
static struct td_fast td_fast_of(const struct td_dec *d)
{
	const struct hs_ev_desc *sw = &d->f->lay.ev[HS_EV_SCHED_SWITCH - 1];
	const struct hs_ev_desc *wk = &d->f->lay.ev[HS_EV_VCPU_WAKEUP - 1];
	const struct hs_ev_desc *pk = &d->f->lay.ev[HS_EV_HALT_POLL_NS - 1];
	bool told = !d->drop || d->kvm_shard.count > 0;

	return (struct td_fast){ .switch_id = sw->fast ? sw->id : -1,
				 .wakeup_id = told && wk->fast ? wk->id : -1,
				 .poll_id = told && pk->fast ? pk->id : -1,
				 .wakeup = wk, .poll = pk };
}

/*
 * A record of a fast layout into the queue (td_switch_record(),
 * td_kvm_record()): false for any other, and for the first of a page that
 * lost events, which carries the loss (td_record()).
 */
static inline __attribute__((always_inline)) bool
td_fast_record(struct td_dec *d, struct td_cur *c, const struct hs_ev_desc *sw,
	       const struct td_fast *fast, const unsigned char *pl, size_t plen,
	       uint64_t *last_ts, uint64_t *clamped)
{
	uint16_t id;

	if (plen < 2 || (!c->qn && (c->lost || c->lost_unknown)))
		return false;
	memcpy(&id, pl, 2);
	if (id == fast->switch_id && plen >= sw->need) {
		/* a sink that only counts sched events: counted, as td_record() would */
		if (d->count_sched)
			td_tally(&d->tally, HS_EV_SCHED_SWITCH, td_clamp_ts(c->w.ts, last_ts, clamped));
		else
			td_switch_record(c, sw, pl, last_ts, clamped);
		return true;
	}
	if (id == fast->wakeup_id && plen >= fast->wakeup->need) {
		td_kvm_record(d, c, fast->wakeup, HS_EV_VCPU_WAKEUP, pl, last_ts, clamped);
		return true;
	}
	if (id == fast->poll_id && plen >= fast->poll->need) {
		td_kvm_record(d, c, fast->poll, HS_EV_HALT_POLL_NS, pl, last_ts, clamped);
		return true;
	}
	return false;
}

/*
 * The records of the current page into the queue, until it is full: the
 * page's status. sched_switch in a fast layout (hs_ev_desc.fast), most
 * records of a recording, is decoded through a copy of its layout, which
 * stays in registers: the stores into the queue could change the shared
 * one, as far as the compiler knows, or only counted, for a sink that
 * counts sched events only (no sink drops some of them: hs_sink.keeps).
 * The kvm events of fast layouts, most of the rest, go through
 * td_kvm_record().
 */
static int td_fill_page(struct td_dec *d, struct td_cur *c)
{
	const struct hs_ev_desc sw = d->f->lay.ev[HS_EV_SCHED_SWITCH - 1];
	const struct td_fast fast = td_fast_of(d);
	uint64_t last_ts = c->last_ts, clamped = 0;
	const unsigned char *pl;
	size_t plen;
	int w = HS_RB_RECORD;

	while (c->qn < c->qcap && (w = hs_rb_next(&c->w, &pl, &plen)) == HS_RB_RECORD) {
		if (td_fast_record(d, c, &sw, &fast, pl, plen, &last_ts, &clamped))
			continue;
		c->last_ts = last_ts;
		td_record(d, c, pl, plen);
		last_ts = c->last_ts;
	}
	c->last_ts = last_ts;
	d->meta->clamped_ts += clamped;
	return w;
}

/* Decodes this CPU's next relevant events into its queue. 1: some, 0: the end. */
static int td_fill(struct td_dec *d, struct td_cur *c)
{
	int w;

	c->qi = c->qn = 0;
	for (;;) {
		w = td_fill_page(d, c);
		/* a bad record ends its page once the queue is emptied */
		if (c->qn)
			return 1;
		if (w == HS_RB_BAD)
			d->meta->skipped_pages++;
		if (!td_page(d, c))
			return 0;
	}
}

/* The cursor's next event: 1 when there is one. */
static inline int td_next(struct td_dec *d, struct td_cur *c)
{
	return ++c->qi < c->qn || td_fill(d, c);
}

static inline uint64_t td_key(const struct td_cur *c)
{
	return c->key[c->qi];
}

/* ---- merge across CPUs ---- */

/*
 * Events handed over at once when the sink takes batches: 12 KiB, in L1.
 * Only analysed kinds are batched, whose fields point nowhere into the
 * pages (a marker's text does, and it is used at once).
 */
#define TD_BATCH 256

struct td_out {
	struct hs_sink *s;
	size_t n;
	struct hs_event ev[TD_BATCH];
};

static int td_out_flush(struct td_out *o)
{
	size_t n = o->n;

	o->n = 0;
	return n ? o->s->events(o->s->priv, o->ev, n) : 0;
}

static inline __attribute__((always_inline)) int td_out_event(struct td_out *o,
								  const struct hs_event *ev)
{
	if (!o->s->events)
		return o->s->event(o->s->priv, ev);
	o->ev[o->n++] = *ev;
	return o->n == TD_BATCH ? td_out_flush(o) : 0;
}

static bool td_before(const struct td_cur *a, const struct td_cur *b)
{
	return td_key(a) < td_key(b) || (td_key(a) == td_key(b) && a->cpu < b->cpu);
}

static void td_sift(struct td_cur **h, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, m = i;

		if (l < n && td_before(h[l], h[m]))
			m = l;
		if (l + 1 < n && td_before(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct td_cur *t = h[i];

		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/*
 * Up to this many cursors the first is found by a scan, not a heap: the
 * CPUs' events interleave at random, so a heap's compares mispredict, and
 * the scan's become conditional moves. The scan reads the cursors' keys
 * from one array, kept in the order of their CPUs: the first of equal
 * keys is then the one of the lowest CPU.
 */
#define TD_SCAN_MAX 8

static int td_pick(const uint64_t *key, int n)
{
	uint64_t best = key[0];
	int m = 0;

	for (int i = 1; i < n; i++) {
		bool lt = key[i] < best;

		m = lt ? i : m;
		best = lt ? key[i] : best;
	}
	return m;
}

/* The cursor's losses not reported yet, if any, to the sink; -1 when it refuses. */
static int td_flush_lost(struct td_out *o, struct td_cur *c)
{
	struct hs_sink *s = o->s;

	if (!c->lost && !c->lost_unknown)
		return 0;
	/* the losses come after the events before them */
	if (td_out_flush(o))
		return -1;
	if (c->lost)
		s->lost(s->priv, c->cpu, c->lost, true);
	for (; c->lost_unknown; c->lost_unknown--)
		s->lost(s->priv, c->cpu, 0, false);
	c->lost = 0;
	return 0;
}

/* One cursor's event to the sink, when it is not the usual kind; -1 when the sink refuses it. */
static int td_emit_other(struct td_dec *d, struct td_cur *c, const struct hs_event *ev,
			 struct td_out *o)
{
	if (td_flush_lost(o, c))
		return -1;
	if (!ev->kind)
		return 0;
	if (ev->kind == HS_EV_MARKER) {
		if (td_out_flush(o))
			return -1;
		hs_recmeta_note(ev->marker.text, ev->marker.len, o->s, &d->notes_lost);
		return 0;
	}
	return td_out_event(o, ev);
}

/* ev, the cursor's next event, to the sink; -1 when the sink refuses it. */
static inline int td_emit_event(struct td_dec *d, struct td_cur *c, const struct hs_event *ev,
				struct td_out *o)
{
	if (c->lost || c->lost_unknown || !ev->kind || ev->kind == HS_EV_MARKER)
		return td_emit_other(d, c, ev, o);
	return td_out_event(o, ev);
}

static inline int td_emit(struct td_dec *d, struct td_cur *c, struct td_out *o)
{
	return td_emit_event(d, c, &c->q[c->qi], o);
}

/* A cursor at its end: its last losses, and off the list. -1 when the sink refuses them. */
static int td_drop_cursor(struct td_out *o, struct td_cur **h, int n, int i)
{
	struct td_cur *c = h[i];

	if (td_flush_lost(o, c))
		return -1;
	memmove(h + i, h + i + 1, sizeof(*h) * (size_t)(n - 1 - i));
	return 0;
}

/*
 * The scan's cursors by their place in CPU order: the next key, and where
 * it and the keys after it in the queue are. From one pick to the next,
 * the merge goes through these, not through the cursor and its queue
 * index: two dependent loads fewer per event, on the merge's one chain.
 */
struct td_lanes {
	uint64_t key[TD_SCAN_MAX];
	const uint64_t *at[TD_SCAN_MAX], *end[TD_SCAN_MAX];
};

_Static_assert(TD_QUEUE <= HS_TD_CUT_QUEUE, "a cut notes a whole queue");

/* Where a cursor stands at the cut, for the other half's to be held against. */
static void td_cut_note(const struct td_cur *c, struct hs_td_cut_cpu *k)
{
	k->present = true;
	k->page = c->page;
	k->left = (uint64_t)(c->w.end - c->w.p);
	k->walk_ts = c->w.ts;
	k->last_ts = c->last_ts;
	k->lost = c->lost;
	k->lost_unknown = c->lost_unknown;
	k->queued = c->qn - c->qi;
	for (unsigned int j = 0; j < k->queued && j < HS_TD_CUT_QUEUE; j++) {
		k->key[j] = c->key[c->qi + j];
		k->ts[j] = c->q[c->qi + j].ts;
	}
}

/*
 * The merge is at the cut: every cursor's next record is at or past it.
 * The half is told where each stands; 1: this reader stops here, -1: an
 * error.
 */
static int td_at_cut(struct td_dec *d, struct td_cur **h, int n, const struct td_lanes *l,
		     struct td_out *o)
{
	struct hs_td_cut here = { .ncpus = d->f->ncpus, .valid = true };
	int r;

	d->cut = UINT64_MAX;
	if (td_out_flush(o))
		return -1;
	here.cpu = calloc((size_t)here.ncpus, sizeof(*here.cpu));
	if (!here.cpu)
		return 0;	/* no split: this reader reads on */
	for (int i = 0; i < n; i++) {
		/* the scan's lanes run ahead of the cursors' own place; the heap's do not */
		if (l)
			h[i]->qi = (unsigned int)(l->at[i] - h[i]->key);
		if (h[i]->cpu < here.ncpus && h[i]->qn - h[i]->qi <= HS_TD_CUT_QUEUE)
			td_cut_note(h[i], &here.cpu[h[i]->cpu]);
		else
			here.valid = false;
	}
	here.clamped_ts = d->meta->clamped_ts;
	here.skipped_pages = d->meta->skipped_pages;
	here.skipped_events = d->meta->skipped_events;
	r = d->half->at_cut(d->half, &here);
	free(here.cpu);
	return r;
}

static int td_merge_heap(struct td_dec *d, struct td_cur **h, int *np, struct td_out *o)
{
	int n = *np;

	for (int i = n / 2 - 1; i >= 0; i--)
		td_sift(h, n, i);
	while (n > TD_SCAN_MAX) {
		struct td_cur *c = h[0];

		if (td_key(c) >= d->cut) {
			int r = td_at_cut(d, h, n, NULL, o);

			if (r) {
				*np = n;
				return r;
			}
		}
		if (td_emit(d, c, o))
			return -1;
		if (!td_next(d, c)) {
			if (td_flush_lost(o, c))
				return -1;
			h[0] = h[--n];
			td_sift(h, n, 0);
		} else {
			/* mostly the same CPU goes on: one compare with the next in line */
			struct td_cur *m = n > 2 && td_before(h[2], h[1]) ? h[2] : h[1];

			if (td_before(m, c))
				td_sift(h, n, 0);
		}
	}
	*np = n;
	return 0;
}

static int td_cpu_order(const void *a, const void *b)
{
	const struct td_cur *x = *(struct td_cur *const *)a, *y = *(struct td_cur *const *)b;

	return x->cpu != y->cpu ? (x->cpu < y->cpu ? -1 : 1) : (x < y ? -1 : x > y);
}

static void td_lane_load(struct td_lanes *l, int i, const struct td_cur *c)
{
	l->at[i] = c->key + c->qi;
	l->end[i] = c->key + c->qn;
	l->key[i] = *l->at[i];
}

static void td_lane_drop(struct td_lanes *l, int i, int n)
{
	size_t rest = (size_t)(n - 1 - i);

	memmove(l->key + i, l->key + i + 1, sizeof(*l->key) * rest);
	memmove(l->at + i, l->at + i + 1, sizeof(*l->at) * rest);
	memmove(l->end + i, l->end + i + 1, sizeof(*l->end) * rest);
}

static int td_merge(struct td_dec *d, struct td_cur **h, int n, struct td_out *o)
{
	struct td_lanes l;

	/* a heap while the cursors are many, then the scan */
	if (n > TD_SCAN_MAX) {
		int r = td_merge_heap(d, h, &n, o);

		if (r)
			return r < 0 ? -1 : 0;
	}
	qsort(h, (size_t)n, sizeof(*h), td_cpu_order);
	for (int i = 0; i < n; i++)
		td_lane_load(&l, i, h[i]);
	while (n > 0) {
		int i = td_pick(l.key, n);
		struct td_cur *c = h[i];
		const uint64_t *at = l.at[i];

		if (l.key[i] >= d->cut) {
			int r = td_at_cut(d, h, n, &l, o);

			if (r)
				return r < 0 ? -1 : 0;
		}
		if (td_emit_event(d, c, c->q + (at - c->key), o))
			return -1;
		if (++at < l.end[i]) {
			l.at[i] = at;
			l.key[i] = *at;
			continue;
		}
		/* the lane took the whole queue: the cursor decodes its next one */
		c->qi = c->qn - 1;
		if (td_next(d, c)) {
			td_lane_load(&l, i, c);
			continue;
		}
		if (td_drop_cursor(o, h, n, i))
			return -1;
		td_lane_drop(&l, i, n);
		n--;
	}
	return td_out_flush(o);
}

/* ---- putting it together ---- */

/* Sum of the known counts the pages of one CPU carry (headers only). */
static uint64_t td_page_losses(struct td_dec *d, const struct td_cur *cur)
{
	uint64_t sum = 0, avail;
	struct td_cur tmp = { .data = cur->data, .foff = cur->foff, .size = cur->size,
			      .ch = cur->ch };
	struct td_cur *c = &tmp;
	const unsigned char *pg;

	if (c->ch)
		c->size = TD_SIZE_UNKNOWN;
	for (uint64_t off = 0; (pg = td_page_at(d, c, off, &avail)); off += avail) {
		uint64_t flags, commit;

		if (avail < d->hdr)
			break;
		flags = td_long(d, pg + 8);
		commit = flags & HS_RB_COMMIT_MASK;

		if ((flags & HS_RB_MISSED_EVENTS) && (flags & HS_RB_MISSED_STORED) &&
		    commit + d->f->long_size <= avail - d->hdr)
			sum += td_long(d, pg + d->hdr + commit);
	}
	if (c->ch)
		hs_td_chunk_window_free(d->f, tmp.win, tmp.win_cap);
	else
		free(tmp.win);
	return sum;
}

/* Cursors of one buffer positioned on their first relevant event. */
static int td_buf_open(struct td_dec *d, const struct td_buf *b, struct td_cur *cur,
		       struct td_cur **heap, int *n)
{
	int found = 0;

	for (int c = 0; c < d->f->ncpus; c++) {
		struct td_cur *k = &cur[c];
		/* the queues are in one block, made at the start (td_decode) */
		struct hs_event *q = k->q;
		uint64_t *key = k->key;
		unsigned int qcap = k->qcap;

		memset(k, 0, sizeof(*k));
		k->q = q;
		k->key = key;
		k->qcap = qcap;
		k->data = d->f->buf + b->off[c];
		k->foff = b->off[c];
		k->size = b->size[c];
		k->ch = b->chunks ? &b->chunks[c] : NULL;
		k->cpu = c;
		if (d->wins.at && !k->ch) {
			k->win = (unsigned char *)d->wins.at + d->wins_used;
			d->wins_used += td_win_len(d, k->size);
		}
		if (d->half && d->half->start && b == &d->f->bufs[0])
			k->page = d->half->start[c];
		if (td_next(d, k)) {
			heap[(*n)++] = k;
			found++;
		}
	}
	return found;
}

/* The stats rule (see the top of the file) for one buffer's CPUs. */
static void td_stats_losses(struct td_dec *d, struct td_cur *cur, const struct hs_td_stats *st,
			    struct hs_sink *s)
{
	for (int c = 0; c < d->f->ncpus && c < st->ncpus; c++) {
		uint64_t pages;

		/* the page scan touches the whole CPU's data: only when it matters */
		if (st->lost[c] <= 0)
			continue;
		pages = td_page_losses(d, &cur[c]);
		if ((uint64_t)st->lost[c] > pages)
			s->lost(s->priv, c, (uint64_t)st->lost[c] - pages, true);
	}
}

/*
 * A copy that lost the trailer and CPUSTAT (a conversion) still has the
 * counts the notes give, known only at the end: they are counted, not
 * placed, as the stats rule does.
 */
static void td_notes_losses(struct td_dec *d, struct td_cur *cur, struct hs_sink *s)
{
	for (int c = 0; c < d->f->ncpus && c < d->notes_lost.ncpus; c++) {
		uint64_t pages;

		if (d->notes_lost.lost[c] <= 0)
			continue;
		pages = td_page_losses(d, &cur[c]);
		if ((uint64_t)d->notes_lost.lost[c] > pages)
			s->meta->lost_events += (uint64_t)d->notes_lost.lost[c] - pages;
	}
}

static void td_meta(struct td_file *f, struct hs_sink *s, struct hs_td_stats *tlost)
{
	struct hs_meta *m = s->meta;
	uint64_t start, tlen;
	int t;

	m->ncpus = f->ncpus;
	snprintf(m->clock, sizeof(m->clock), "%s", f->clock);
	if (f->cmd)
		hs_td_cmdlines_apply(f->cmd, f->cmd_len, s);
	t = hs_td_trailer_find(f->buf, f->len, f->data_end, &start, &tlen);
	if (t > 0)
		hs_recmeta_apply((const char *)f->buf + start, tlen, s, tlost);
	if (f->version == 7)
		snprintf(m->format, sizeof(m->format), "%strace.dat v7 (%s)",
			 t > 0 ? "haltstat, " : "", f->comp);
	else
		snprintf(m->format, sizeof(m->format), "%s", t > 0 ? "haltstat" : "trace.dat v6");
	if (f->uname)
		hs_td_uname_release(f->uname, f->uname_len, m);
}

static int td_use_buf(struct td_dec *d, int i, struct td_cur *bc, struct td_cur **heap,
		      int *n, struct hs_sink *s, const struct hs_td_stats *tlost)
{
	const struct td_file *f = d->f;
	struct hs_td_stats st = { 0 };
	struct hs_meta *m = s->meta;

	if (!td_buf_open(d, &f->bufs[i], bc, heap, n))
		return 0;
	if (i > 0) {
		size_t l = strlen(m->buffer_instance);

		snprintf(m->buffer_instance + l, HS_META_STR - l, "%s%s",
			 l ? "," : "", f->bufs[i].name);
	}
	/* haltstat's own per-CPU counts describe its (top) buffer */
	if (i == 0 && tlost->ncpus) {
		td_stats_losses(d, bc, tlost, s);
		d->stats_used = true;
		return 0;
	}
	if (f->cpustat && hs_td_stats_parse(f->cpustat, f->cpustat_len, f->bufs[i].name, &st))
		return hs_error_set(f->err, HS_ERR_RUNTIME, "out of memory");
	td_stats_losses(d, bc, &st, s);
	d->stats_used |= st.ncpus > 0;
	hs_td_stats_free(&st);
	return 0;
}

/*
 * pread windows: 128 KiB per CPU (copied, then parsed from the L2 cache),
 * 8 MiB in all for all the readers of a file (td_readers): a recording of
 * 64 CPUs or more gets smaller ones. With 16 MiB, two readers of 256 CPUs
 * (each also with a queue and a runqueue history per CPU) peaked at 39 MiB.
 */
#define TD_WIN_MAX (128u << 10)
#define TD_WIN_TOTAL (8u << 20)

static size_t td_win_cap(const struct td_file *f, size_t ncur)
{
	size_t cap = TD_WIN_TOTAL / (ncur ? ncur : 1);

	if (cap > TD_WIN_MAX)
		cap = TD_WIN_MAX;
	cap -= cap % f->page_size;
	return cap < f->page_size ? f->page_size : cap;
}

/*
 * The windows of every CPU read with pread, in one block (hugebuf.h): each
 * no larger than its CPU's data, so that a small recording's stay small;
 * false when out of memory.
 */
static bool td_wins_alloc(struct td_dec *d)
{
	const struct td_file *f = d->f;
	size_t len = 0;

	if (d->fd < 0)
		return true;
	for (int i = 0; i < f->nbufs; i++)
		for (int c = 0; c < f->ncpus && !f->bufs[i].chunks; c++)
			len += td_win_len(d, f->bufs[i].size[c]);
	return !len || hs_hugebuf_alloc(&d->wins, len);
}

/*
 * ncur cursors, each with its queue in one block of TD_QUEUE_TOTAL at most
 * (left untouched where a CPU has no events); NULL when out of memory.
 */
static struct td_cur *td_cursors_alloc(size_t ncur)
{
	size_t per = TD_QUEUE_TOTAL / ncur / (sizeof(struct hs_event) + sizeof(uint64_t));
	unsigned int qcap = per > TD_QUEUE ? TD_QUEUE : per ? (unsigned int)per : 1;
	struct td_cur *cur = calloc(ncur, sizeof(*cur));
	struct hs_event *q = malloc(ncur * qcap * sizeof(*q));
	uint64_t *key = malloc(ncur * qcap * sizeof(*key));

	if (!cur || !q || !key) {
		free(cur);
		free(q);
		free(key);
		return NULL;
	}
	for (size_t i = 0; i < ncur; i++) {
		cur[i].q = q + i * qcap;
		cur[i].key = key + i * qcap;
		cur[i].qcap = qcap;
	}
	return cur;
}

static void td_cursors_free(struct td_cur *cur, size_t ncur)
{
	if (!cur)
		return;
	/* a pread window is in td_dec.wins; inflated chunks have windows of their own */
	for (size_t i = 0; i < ncur; i++)
		if (cur[i].ch)
			free(cur[i].win);
	free(cur[0].q);
	free(cur[0].key);
	free(cur);
}

/*
 * Readers of the same recording at once: the two halves of a split in
 * time, or the readers that each keep a share of the vCPUs (two readers
 * of 128 CPUs held 16 MiB of windows each).
 */
static size_t td_readers(const struct hs_sink *s, const struct hs_td_half *half)
{
	if (half)
		return 2;
	return s->keeps && s->kvm_shard.count > 1 ? s->kvm_shard.count : 1;
}

int hs_td_decode(struct td_file *f, int fd, struct hs_sink *s, struct hs_td_stats *tlost,
		 struct hs_td_half *half)
{
	size_t ncur = (size_t)(f->nbufs ? f->nbufs : 1) * (f->ncpus ? f->ncpus : 1);
	struct td_dec d = { .f = f, .meta = s->meta, .hdr = 8 + f->long_size, .fd = fd,
			    /* the halves of a split, the readers of a share: one windows' budget */
			    .win_cap = td_win_cap(f, ncur * td_readers(s, half)),
			    .drop = s->keeps && s->count ? s : NULL,
			    .kvm_shard = s->keeps && s->count ? s->kvm_shard :
							     (struct hs_shard){ 0 },
			    .count_sched = s->count && s->sched_counted && s->sched_counted(s->priv),
			    .tally = { .first_ts = UINT64_MAX },
			    .half = half, .cut = half ? half->cut : UINT64_MAX };
	struct td_cur *cur = td_cursors_alloc(ncur);
	struct td_cur **heap = calloc(ncur, sizeof(*heap));
	struct td_out *out = malloc(sizeof(*out));
	int n = 0, ret = 0;

	if (!cur || !heap || !out || !td_wins_alloc(&d)) {
		hs_hugebuf_free(&d.wins);
		td_cursors_free(cur, ncur);
		free(heap);
		free(out);
		return hs_error_set(f->err, HS_ERR_RUNTIME, "out of memory");
	}
	out->s = s;
	out->n = 0;
	/* the top buffer, or else every instance that holds relevant events */
	for (int i = 0; i < f->nbufs && !ret; i++) {
		if (i == 1 && n > 0)
			break;
		ret = td_use_buf(&d, i, cur + (size_t)i * f->ncpus, heap, &n, s, tlost);
	}
	if (!ret && td_merge(&d, heap, n, out))
		ret = hs_error_set(f->err, HS_ERR_RUNTIME, "accounting rejected an event");
	if (!ret && !d.stats_used)
		td_notes_losses(&d, cur, s);
	hs_td_stats_free(&d.notes_lost);
	if (!ret && (d.drop || d.count_sched))
		s->count(s->priv, &d.tally);
	if (!ret && d.io_err)
		ret = hs_error_set(f->err, d.io_err == ENOMEM ? HS_ERR_RUNTIME : HS_ERR_INPUT,
				   "read error: %s", strerror(d.io_err));
	if (!ret && d.z_err)
		ret = hs_td_chunk_error(f);
	td_cursors_free(cur, ncur);
	hs_hugebuf_free(&d.wins);
	free(heap);
	free(out);
	return ret;
}

void hs_td_prepare(struct td_file *f, struct hs_sink *s, struct hs_td_stats *tlost)
{
	hs_ev_layout_init(&f->lay, f->tep, f->swap, HS_TD_READ_KINDS);
	s->meta->kvm_formats = hs_ev_has_kvm(&f->lay);
	td_meta(f, s, tlost);
}
