// SPDX-License-Identifier: GPL-2.0-only
/*
 * formats/trace/tracedat_share.c, the inflated chunks two readers of one
 * compressed trace.dat share: who inflates, who copies, when a slot is
 * free again, and that a full share, a failed chunk, a reader gone or a
 * chunk asked for twice never leaves a reader waiting or with wrong bytes.
 * Then two threads through the share on a thousand chunks, each checking
 * every byte it gets.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../formats/trace/tracedat_share.h"
#include "check.h"

#define SLOTS 64		/* TD_SHARE_SLOTS */
#define LEN 4096

static void fill(unsigned char *p, uint64_t pos, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(pos * 31 + i * 7);
}

static bool holds(const unsigned char *p, uint64_t pos, size_t len)
{
	unsigned char want[LEN];

	fill(want, pos, len);
	return !memcmp(p, want, len);
}

/* Reader r makes the chunk at pos (it has it after this). */
static enum td_share_got make(struct hs_td_share *s, int r, uint64_t pos)
{
	struct td_share_slot *sl;
	enum td_share_got got = hs_td_share_get(s, r, pos, LEN, &sl);

	if (got == TD_SHARE_MAKE) {
		fill(hs_td_share_buf(sl), pos, LEN);
		hs_td_share_made(s, sl, true, r);
	}
	return got;
}

/* Reader r copies the chunk at pos: whether it got the right bytes. */
static bool copy(struct hs_td_share *s, int r, uint64_t pos)
{
	struct td_share_slot *sl;
	bool ok;

	if (hs_td_share_get(s, r, pos, LEN, &sl) != TD_SHARE_COPY)
		return false;
	ok = holds(hs_td_share_buf(sl), pos, LEN);
	hs_td_share_copied(s, r, sl);
	return ok;
}

static void test_roles(void)
{
	struct hs_td_share *s = hs_td_share_new();
	struct td_share_slot *sl, *other;

	CHECK(s != NULL, "share-new");
	CHECK_EQ_U64(hs_td_share_join(s), 0, "join-first");
	CHECK_EQ_U64(hs_td_share_join(s), 1, "join-second");
	CHECK(hs_td_share_join(s) == -1, "join-third-reads-alone");

	CHECK_EQ_U64(make(s, 0, 100), TD_SHARE_MAKE, "first-asks-makes");
	CHECK(copy(s, 1, 100), "second-copies-the-bytes");
	CHECK_EQ_U64(make(s, 1, 100), TD_SHARE_MAKE, "copied-by-both-slot-free");
	CHECK_EQ_U64(hs_td_share_get(s, 1, 100, LEN, &sl), TD_SHARE_ALONE,
		     "asked-again-by-its-maker-alone");
	CHECK(copy(s, 0, 100), "then-the-other-copies");

	/* being made: the other waits, then copies */
	CHECK_EQ_U64(hs_td_share_get(s, 0, 200, LEN, &sl), TD_SHARE_MAKE, "busy-make");
	CHECK_EQ_U64(hs_td_share_get(s, 1, 200, LEN, &other), TD_SHARE_WAIT, "busy-other-waits");
	fill(hs_td_share_buf(sl), 200, LEN);
	hs_td_share_made(s, sl, true, 0);
	CHECK(copy(s, 1, 200), "busy-then-copied");

	/* a chunk that did not inflate leaves nothing: the other tries it itself */
	CHECK_EQ_U64(hs_td_share_get(s, 0, 300, LEN, &sl), TD_SHARE_MAKE, "failed-make");
	hs_td_share_made(s, sl, false, 0);
	CHECK_EQ_U64(make(s, 1, 300), TD_SHARE_MAKE, "failed-other-makes-it");
	CHECK(copy(s, 0, 300), "failed-then-made-copied");

	/* the same offset with another length is not the same chunk */
	CHECK_EQ_U64(make(s, 0, 400), TD_SHARE_MAKE, "len-make");
	CHECK_EQ_U64(hs_td_share_get(s, 1, 400, LEN / 2, &sl), TD_SHARE_ALONE, "len-differs-alone");
	CHECK(copy(s, 1, 400), "len-same-copies");

	/* made ahead for both: each copies it once */
	sl = hs_td_share_claim(s, 500, LEN);
	CHECK(sl != NULL, "ahead-claimed");
	CHECK(hs_td_share_claim(s, 500, LEN) == NULL, "ahead-claimed-once");
	fill(hs_td_share_buf(sl), 500, LEN);
	hs_td_share_made(s, sl, true, -1);
	CHECK(copy(s, 0, 500) && copy(s, 1, 500), "ahead-copied-by-both");
	CHECK_EQ_U64(make(s, 0, 500), TD_SHARE_MAKE, "ahead-then-free");
	CHECK(copy(s, 1, 500), "ahead-cleanup");
	hs_td_share_leave(s, 0);
	hs_td_share_leave(s, 1);
	hs_td_share_free(s);
}

static void test_full_and_leave(void)
{
	struct hs_td_share *s = hs_td_share_new();
	struct td_share_slot *sl;
	int n = 0;

	hs_td_share_join(s);
	hs_td_share_join(s);
	for (uint64_t pos = 1; pos <= SLOTS; pos++)
		n += make(s, 0, pos) == TD_SHARE_MAKE;
	CHECK_EQ_U64(n, SLOTS, "full-every-slot-made");
	CHECK_EQ_U64(hs_td_share_get(s, 0, 1000, LEN, &sl), TD_SHARE_FULL, "full-ahead-waits");
	CHECK(copy(s, 1, 1), "full-behind-copies-one");
	CHECK_EQ_U64(make(s, 0, 1000), TD_SHARE_MAKE, "full-then-a-slot");
	CHECK_EQ_U64(hs_td_share_get(s, 0, 1001, LEN, &sl), TD_SHARE_FULL, "full-again");

	/* reader 1 leaves: what was kept for it is freed, and nothing more is kept */
	hs_td_share_leave(s, 1);
	n = 0;
	for (uint64_t pos = 2000; pos < 2000 + 4 * SLOTS; pos++)
		n += make(s, 0, pos) == TD_SHARE_MAKE;
	CHECK_EQ_U64(n, 4 * SLOTS, "left-nothing-kept");
	hs_td_share_leave(s, 0);
	hs_td_share_free(s);

	/* a chunk larger than the whole budget: alone at once, no wait */
	s = hs_td_share_new();
	hs_td_share_join(s);
	CHECK_EQ_U64(hs_td_share_get(s, 0, 1, (size_t)64 << 20, &sl), TD_SHARE_ALONE, "huge-alone");
	/* a reader that never joins: the one that did fills the share, then waits */
	n = 0;
	for (uint64_t pos = 1; pos <= SLOTS; pos++)
		n += make(s, 0, pos) == TD_SHARE_MAKE;
	CHECK_EQ_U64(hs_td_share_get(s, 0, 1000, LEN, &sl), TD_SHARE_FULL, "unjoined-full");
	hs_td_share_leave(s, 0);
	hs_td_share_free(s);
}

/* Two readers in threads over the same 1000 chunks of 4 "CPUs", in one order. */
#define CHUNKS 1000

struct reader {
	struct hs_td_share *s;
	int r;
	int bad, made, copied;
};

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	unsigned char buf[LEN];

	rd->r = hs_td_share_join(rd->s);
	for (uint64_t i = 0; i < CHUNKS; i++) {
		uint64_t pos = (i % 4) * 1000000 + (i / 4) * 64;
		struct td_share_wait wait = { 0 };
		struct td_share_slot *sl;
		bool done = false;

		while (!done) {
			switch (hs_td_share_get(rd->s, rd->r, pos, LEN, &sl)) {
			case TD_SHARE_COPY:
				memcpy(buf, hs_td_share_buf(sl), LEN);
				hs_td_share_copied(rd->s, rd->r, sl);
				rd->copied++;
				done = true;
				break;
			case TD_SHARE_MAKE:
				fill(buf, pos, LEN);
				memcpy(hs_td_share_buf(sl), buf, LEN);
				hs_td_share_made(rd->s, sl, true, rd->r);
				rd->made++;
				done = true;
				break;
			case TD_SHARE_WAIT:
			case TD_SHARE_FULL:
				hs_td_share_pause(&wait);
				break;
			case TD_SHARE_ALONE:
				fill(buf, pos, LEN);
				done = true;
				break;
			}
		}
		rd->bad += !holds(buf, pos, LEN);
	}
	hs_td_share_leave(rd->s, rd->r);
	return NULL;
}

static void test_threads(void)
{
	struct hs_td_share *s = hs_td_share_new();
	struct reader rd[2] = { { .s = s }, { .s = s } };
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, reader_main, &rd[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ_U64(rd[0].bad + rd[1].bad, 0, "threads-every-byte-right");
	CHECK_EQ_U64(rd[0].made + rd[1].made, CHUNKS, "threads-each-chunk-made-once");
	CHECK_EQ_U64(rd[0].made + rd[0].copied, CHUNKS, "threads-first-got-all");
	CHECK_EQ_U64(rd[1].made + rd[1].copied, CHUNKS, "threads-second-got-all");
	hs_td_share_free(s);
}

int main(void)
{
	test_roles();
	test_full_and_leave();
	test_threads();
	return CHECK_DONE();
}
