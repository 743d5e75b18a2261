// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/evdecode.h: a record of a fast layout (hs_ev_desc.fast) decodes
 * through fixed loads exactly as field by field (hs_ev_fields), for every
 * kind that has one; layouts of other sizes, or of the other byte order,
 * are not fast and still decode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "../../lib/evdecode.h"
#include "check.h"

#define COMMON "format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char wakeup_fmt[] = "name: kvm_vcpu_wakeup\nID: 41\n" COMMON
	"\tfield:__u64 ns;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:bool waited;\toffset:16;\tsize:1;\tsigned:0;\n"
	"\tfield:bool valid;\toffset:17;\tsize:1;\tsigned:0;\n\n"
	"print fmt: \"%s\", REC->waited ? \"wait\" : \"poll\"\n";

/* before 5.2: no valid */
static const char wakeup_old_fmt[] = "name: kvm_vcpu_wakeup\nID: 41\n" COMMON
	"\tfield:__u64 ns;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:bool waited;\toffset:16;\tsize:1;\tsigned:0;\n\n"
	"print fmt: \"%s\", REC->waited ? \"wait\" : \"poll\"\n";

static const char poll_fmt[] = "name: kvm_halt_poll_ns\nID: 31\n" COMMON
	"\tfield:bool grow;\toffset:8;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned int vcpu_id;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int new;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int old;\toffset:20;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%u\", REC->new\n";

/* sizes no kernel haltstat knows: read field by field */
static const char poll_odd_fmt[] = "name: kvm_halt_poll_ns\nID: 31\n" COMMON
	"\tfield:bool grow;\toffset:8;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned long vcpu_id;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int new;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int old;\toffset:28;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%u\", REC->new\n";

static const char switch_fmt[] = "name: sched_switch\nID: 372\n" COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"%d\", REC->next_pid\n";

static const char wakeup_sched_fmt[] = "name: sched_wakeup\nID: 374\n" COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"%d\", REC->pid\n";

/* A layout of the formats given, in this machine's byte order or the other. */
static bool layout(struct hs_ev_layout *lay, const char *const *fmts, const char *const *sys,
		   bool swap)
{
	struct tep_handle *tep = tep_alloc();
	bool ok = tep != NULL;

	for (int i = 0; ok && fmts[i]; i++)
		ok = tep_parse_event(tep, fmts[i], strlen(fmts[i]), sys[i]) == TEP_ERRNO__SUCCESS;
	if (ok)
		hs_ev_layout_init(lay, tep, swap, ~0u);
	tep_free(tep);
	return ok;
}

/*
 * n random payloads of kind's id: hs_ev_decode() against the fields read
 * one by one. Returns the records that differ.
 */
static int differ(const struct hs_ev_layout *lay, enum hs_event_kind kind, int n)
{
	const struct hs_ev_desc *d = &lay->ev[kind - 1];
	unsigned char p[96];
	uint16_t id = lay->swap ? __builtin_bswap16((uint16_t)d->id) : (uint16_t)d->id;
	int bad = 0;

	for (int i = 0; i < n; i++) {
		struct hs_event a, b;

		for (size_t j = 0; j < sizeof(p); j++)
			p[j] = (unsigned char)check_rng();
		/* a bool is 0 or 1 in a kernel's record; both read non-zero as true */
		if (i % 2)
			for (size_t j = 8; j < 24; j++)
				p[j] &= 1;
		memcpy(p, &id, 2);
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		b.kind = (uint8_t)kind;
		if (hs_ev_decode(lay, p, d->need, &a) != 0 ||
		    hs_ev_fields(d, p, d->need, lay->swap, &b, false) != 0 ||
		    memcmp(&a, &b, sizeof(a)))
			bad++;
	}
	return bad;
}

static void check_kvm(void)
{
	static const char *const fmts[] = { wakeup_fmt, poll_fmt, NULL };
	static const char *const old[] = { wakeup_old_fmt, poll_odd_fmt, NULL };
	static const char *const sys[] = { "kvm", "kvm" };
	struct hs_ev_layout lay;

	CHECK(layout(&lay, fmts, sys, false), "evdecode_kvm_formats_parse");
	CHECK(lay.ev[HS_EV_VCPU_WAKEUP - 1].fast && lay.ev[HS_EV_HALT_POLL_NS - 1].fast,
	      "evdecode_kvm_fast");
	CHECK(differ(&lay, HS_EV_VCPU_WAKEUP, 20000) == 0, "evdecode_wakeup_fast_as_fields");
	CHECK(differ(&lay, HS_EV_HALT_POLL_NS, 20000) == 0, "evdecode_poll_fast_as_fields");

	CHECK(layout(&lay, old, sys, false), "evdecode_kvm_old_formats_parse");
	CHECK(lay.ev[HS_EV_VCPU_WAKEUP - 1].fast, "evdecode_wakeup_without_valid_fast");
	CHECK(differ(&lay, HS_EV_VCPU_WAKEUP, 20000) == 0,
	      "evdecode_wakeup_without_valid_as_fields");
	CHECK(!lay.ev[HS_EV_HALT_POLL_NS - 1].fast, "evdecode_poll_odd_sizes_not_fast");
	CHECK(differ(&lay, HS_EV_HALT_POLL_NS, 2000) == 0, "evdecode_poll_odd_sizes_decode");

	CHECK(layout(&lay, fmts, sys, true), "evdecode_kvm_swapped_parse");
	CHECK(!lay.ev[HS_EV_VCPU_WAKEUP - 1].fast && !lay.ev[HS_EV_HALT_POLL_NS - 1].fast,
	      "evdecode_kvm_swapped_not_fast");
	CHECK(differ(&lay, HS_EV_VCPU_WAKEUP, 2000) == 0 &&
	      differ(&lay, HS_EV_HALT_POLL_NS, 2000) == 0, "evdecode_kvm_swapped_decode");
}

static void check_sched(void)
{
	static const char *const fmts[] = { switch_fmt, wakeup_sched_fmt, NULL };
	static const char *const sys[] = { "sched", "sched" };
	struct hs_ev_layout lay;

	CHECK(layout(&lay, fmts, sys, false), "evdecode_sched_formats_parse");
	CHECK(lay.ev[HS_EV_SCHED_SWITCH - 1].fast == 8 && lay.ev[HS_EV_SCHED_WAKEUP - 1].fast,
	      "evdecode_sched_fast");
	CHECK(differ(&lay, HS_EV_SCHED_SWITCH, 20000) == 0, "evdecode_switch_fast_as_fields");
	CHECK(differ(&lay, HS_EV_SCHED_WAKEUP, 20000) == 0, "evdecode_sched_wakeup_fast_as_fields");
}

int main(void)
{
	check_kvm();
	check_sched();
	return CHECK_DONE();
}
