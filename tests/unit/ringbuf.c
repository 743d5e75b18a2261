// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/ringbuf.h against libtraceevent's kbuffer on the same pages: hand-
 * built pages with every record kind, then random ones, then pages whose
 * commit or last record lies about its length. Payloads, lengths and time
 * stamps must all agree.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <kbuffer.h>

#include "../../lib/ringbuf.h"
#include "check.h"

#define PAGE 4096
#define HDR (8 + sizeof(long))

struct page {
	unsigned char b[PAGE];
	size_t len;		/* bytes of records after the header */
};

static void put32(struct page *p, uint32_t v)
{
	memcpy(p->b + HDR + p->len, &v, 4);
	p->len += 4;
}

/* A data record of n payload bytes (n a multiple of 4), payload filled with tag. */
static void rec_data(struct page *p, uint32_t delta, uint32_t n, unsigned char tag)
{
	if (n && n <= 28 * 4) {
		put32(p, (delta << 5) | (n / 4));
	} else {
		put32(p, delta << 5);
		put32(p, n + 4);
	}
	memset(p->b + HDR + p->len, tag, n);
	p->len += n;
}

static void rec_time(struct page *p, uint32_t type_len, uint32_t delta, uint32_t hi)
{
	put32(p, (delta << 5) | type_len);
	put32(p, hi);
}

static void rec_pad(struct page *p, uint32_t n)
{
	put32(p, (1u << 5) | 29);
	put32(p, n);
	p->len += n - 4;
}

static void page_seal(struct page *p, unsigned long commit)
{
	uint64_t ts = 1000;

	memcpy(p->b, &ts, 8);
	memcpy(p->b + 8, &commit, sizeof(commit));
}

/* 1 when both walkers give the same payloads (address and length) and time stamps */
static int same_walk(const struct page *p, struct kbuffer *kb, unsigned int *events)
{
	struct hs_rb_walk it;
	unsigned long long ts;
	const unsigned char *ours = NULL;
	void *theirs;
	size_t len;

	*events = 0;
	if (kbuffer_load_subbuffer(kb, (void *)p->b) < 0)
		return 0;
	if (!hs_rb_page_native(&it, p->b, PAGE))
		return 0;
	theirs = kbuffer_read_event(kb, &ts);
	for (;;) {
		if (hs_rb_next(&it, &ours, &len) != HS_RB_RECORD)
			ours = NULL;
		if (!ours || !theirs)
			return !ours && !theirs;
		if (ours != theirs || len != (size_t)kbuffer_event_size(kb) || it.ts != ts)
			return 0;
		(*events)++;
		theirs = kbuffer_next_event(kb, &ts);
	}
}

static void test_kinds(struct kbuffer *kb)
{
	struct page p = { 0 };
	unsigned int n;

	rec_data(&p, 10, 8, 1);
	rec_time(&p, 30, 5, 1);		/* time extend */
	rec_data(&p, 0, 200, 2);	/* long: length word */
	rec_pad(&p, 16);		/* a discarded event */
	rec_time(&p, 31, 7, 2);		/* absolute stamp */
	rec_data(&p, 3, 112, 3);	/* longest short form */
	page_seal(&p, p.len);
	CHECK(same_walk(&p, kb, &n), "ringbuf_kinds_same_as_kbuffer");
	CHECK_EQ_U64(n, 3, "ringbuf_kinds_events");
}

static void test_random(struct kbuffer *kb)
{
	unsigned int bad = 0, total = 0, n;

	srand(7);
	for (int round = 0; round < 2000; round++) {
		struct page p = { 0 };

		while (p.len + 8 + 256 < PAGE - HDR) {
			int k = rand() % 10;

			if (k < 6)
				rec_data(&p, (uint32_t)rand() & 0x7ffffff, 4 * (1 + rand() % 40), 9);
			else if (k < 8)
				rec_time(&p, 30 + (uint32_t)(rand() % 2), (uint32_t)rand() & 0x7ffffff, 5);
			else
				rec_pad(&p, 4 * (1 + (uint32_t)(rand() % 8)));
		}
		page_seal(&p, p.len);
		if (!same_walk(&p, kb, &n))
			bad++;
		total += n;
	}
	CHECK_EQ_U64(bad, 0, "ringbuf_random_pages_same_as_kbuffer");
	CHECK(total > 10000, "ringbuf_random_pages_have_events");
}

static void test_lies(void)
{
	struct page p = { 0 };
	struct hs_rb_walk it;
	const unsigned char *pl;
	size_t len;

	page_seal(&p, PAGE);	/* commit past the page */
	CHECK(!hs_rb_page_native(&it, p.b, PAGE), "ringbuf_commit_past_page_refused");

	memset(&p, 0, sizeof(p));
	rec_data(&p, 1, 8, 1);
	rec_data(&p, 1, 64, 2);
	page_seal(&p, p.len - 8);	/* the second record runs past the commit */
	CHECK(hs_rb_page_native(&it, p.b, PAGE), "ringbuf_short_commit_opens");
	CHECK(hs_rb_next(&it, &pl, &len) == HS_RB_RECORD && len == 8, "ringbuf_first_record_kept");
	CHECK(hs_rb_next(&it, &pl, &len) == HS_RB_BAD, "ringbuf_overrunning_record_is_bad");

	memset(&p, 0, sizeof(p));
	put32(&p, 0);		/* type_len 0 with a length below its own word */
	put32(&p, 2);
	page_seal(&p, p.len);
	CHECK(hs_rb_page_native(&it, p.b, PAGE) && hs_rb_next(&it, &pl, &len) == HS_RB_BAD,
	      "ringbuf_bad_length_is_bad");
}

int main(void)
{
	struct kbuffer *kb = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
					   KBUFFER_ENDIAN_LITTLE);

	if (!kb)
		return 1;
	test_kinds(kb);
	test_random(kb);
	test_lies();
	kbuffer_free(kb);
	return CHECK_DONE();
}
