// SPDX-License-Identifier: GPL-2.0-only
/*
 * formats/trace/recmeta.c: the record-time facts written as notes and read back
 * give the same metadata; the old trailer's process lines still read; notes
 * that are not haltstat's are left alone.
 */
#include <string.h>

#include "../../formats/trace/recmeta.h"
#include "../../lib/account.h"
#include "check.h"

static struct hs_meta facts(void)
{
	struct hs_meta m;

	hs_meta_init(&m);
	snprintf(m.kernel_release, sizeof(m.kernel_release), "6.18.0-test");
	m.ncpus = 4;
	m.hypervisor = 1;
	m.halt_poll_ns = 300000;
	m.halt_poll_ns_grow = 2;
	m.halt_poll_ns_grow_start = 10000;
	m.halt_poll_ns_shrink = 0;
	m.guest_halt_poll_ns = 200000;
	m.guest_halt_poll_allow_shrink = 1;
	snprintf(m.cpuidle_driver, sizeof(m.cpuidle_driver), "haltpoll");
	snprintf(m.cpuidle_governor, sizeof(m.cpuidle_governor), "haltpoll");
	snprintf(m.idle_state_name[0], sizeof(m.idle_state_name[0]), "POLL");
	snprintf(m.idle_state_name[1], sizeof(m.idle_state_name[1]), "haltpoll idle");
	return m;
}

/*
 * Feeds each note line to the decoder as a reader would, one trace_marker
 * text at a time; returns how many it did not take for haltstat's.
 */
static unsigned int feed_notes(const char *notes, struct hs_sink *sink,
			       struct hs_td_stats *lost)
{
	const char *s = notes;
	unsigned int refused = 0;

	while (*s) {
		size_t n = strcspn(s, "\n");

		refused += !hs_recmeta_note(s, n, sink, lost);
		s += n + (s[n] == '\n');
	}
	return refused;
}

static void test_facts_round_trip(void)
{
	struct hs_sbuf lines = { 0 }, notes = { 0 };
	struct hs_account *a = hs_account_alloc(NULL);
	struct hs_td_stats lost = { 0 };
	struct hs_meta in = facts();
	struct hs_sink sink;
	const struct hs_meta *out;

	hs_sink_account(&sink, a);
	hs_recmeta_put_facts(&lines, &in);
	hs_recmeta_put_notes(&notes, lines.s, lines.len);
	CHECK_EQ_U64(feed_notes(notes.s, &sink, &lost), 0, "recmeta_facts_are_notes");
	out = hs_account_meta(a);
	CHECK(!strcmp(out->kernel_release, in.kernel_release) && out->ncpus == 4,
	      "recmeta_kernel_round_trip");
	CHECK(out->halt_poll_ns == 300000 && out->halt_poll_ns_grow == 2 &&
	      out->halt_poll_ns_grow_start == 10000 && out->halt_poll_ns_shrink == 0,
	      "recmeta_kvm_params_round_trip");
	CHECK(out->guest_halt_poll_ns == 200000 && out->guest_halt_poll_allow_shrink == 1 &&
	      out->guest_halt_poll_grow == -1, "recmeta_guest_params_round_trip");
	CHECK(!strcmp(out->idle_state_name[0], "POLL") &&
	      !strcmp(out->idle_state_name[1], "haltpoll idle") && !out->idle_state_name[2][0],
	      "recmeta_idle_names_round_trip");
	CHECK(!strcmp(out->cpuidle_driver, "haltpoll"), "recmeta_cpuidle_round_trip");
	CHECK(out->hypervisor == 1, "recmeta_hypervisor_flag_round_trip");
	hs_sbuf_free(&lines);
	hs_sbuf_free(&notes);
	hs_td_stats_free(&lost);
	hs_account_free(a);
}

static void test_identity_lines(void)
{
	struct hs_account *a = hs_account_alloc(NULL);
	struct hs_td_stats lost = { 0 };
	const struct hs_process_info *p;
	const struct hs_thread_info *t;
	struct hs_sink sink;
	static const char notes[] =
		"haltstat-meta: thread=201 200 CPU 0/KVM\n"
		"haltstat-meta: process=200 qemu-system-x86\n"
		"haltstat-meta: vm=200 web1\n"
		"haltstat-meta: lost.cpu1=17\n";
	static const char old_trailer[] = "process=300 db2\tqemu-kvm\nthread=301 300 CPU 1/KVM\n";

	hs_sink_account(&sink, a);
	CHECK_EQ_U64(feed_notes(notes, &sink, &lost), 0, "recmeta_identity_notes");
	t = hs_account_thread_info(a, 201);
	p = hs_account_process_info(a, 200);
	CHECK(t && t->tgid == 200 && !strcmp(t->comm, "CPU 0/KVM"), "recmeta_thread_line");
	CHECK(p && !strcmp(p->comm, "qemu-system-x86") && !strcmp(p->vm_name, "web1"),
	      "recmeta_process_and_vm_lines_keep_each_other");
	CHECK(lost.ncpus == 2 && lost.lost[1] == 17 && lost.lost[0] == -1, "recmeta_lost_line");
	hs_recmeta_apply(old_trailer, sizeof(old_trailer) - 1, &sink, &lost);
	p = hs_account_process_info(a, 300);
	CHECK(p && !strcmp(p->comm, "qemu-kvm") && !strcmp(p->vm_name, "db2"),
	      "recmeta_old_trailer_process_line");
	CHECK(!hs_recmeta_note("hello from someone else", 23, &sink, &lost),
	      "recmeta_other_notes_ignored");
	CHECK(hs_recmeta_note("haltstat-meta: ncpus=8\n", 23, &sink, &lost) &&
	      hs_account_meta(a)->ncpus == 8, "recmeta_note_with_kernel_newline");
	hs_td_stats_free(&lost);
	hs_account_free(a);
}

int main(void)
{
	test_facts_round_trip();
	test_identity_lines();
	return CHECK_DONE();
}
