// SPDX-License-Identifier: GPL-2.0-only
/*
 * KVM binary statistics parsing, on a file laid out as the KVM API
 * documents the stats fd (header, descriptors, data), and the recorded gap
 * sequences of lib/sys/workload*.c's generator.
 */
#include <linux/kvm.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/sys/workload.h"
#include "../../lib/sys/kvmstats.h"
#include "check.h"

#define NAME_SIZE 48
#define STRIDE (sizeof(struct kvm_stats_desc) + NAME_SIZE)

struct fake_stat {
	const char *name;
	uint32_t flags;
	int16_t exponent;
	uint16_t size;
	uint64_t value;		/* every item of the stat */
};

static const struct fake_stat fake[] = {
	{ "halt_poll_success_hist", KVM_STATS_TYPE_LOG_HIST, -9, 32, 7 },
	{ "halt_successful_poll", KVM_STATS_TYPE_CUMULATIVE, 0, 1, 1234 },
	{ "halt_attempted_poll", KVM_STATS_TYPE_CUMULATIVE, 0, 1, 2000 },
	{ "halt_poll_invalid", KVM_STATS_TYPE_CUMULATIVE, 0, 1, 3 },
	{ "halt_wakeup", KVM_STATS_TYPE_CUMULATIVE, 0, 1, 99 },
	{ "halt_poll_success_ns", KVM_STATS_TYPE_CUMULATIVE | KVM_STATS_UNIT_SECONDS, -9, 1, 555000 },
	/* microseconds: must come back in ns */
	{ "halt_poll_fail_ns", KVM_STATS_TYPE_CUMULATIVE | KVM_STATS_UNIT_SECONDS, -6, 1, 777 },
	/* not a cumulative counter: ignored */
	{ "halt_wait_ns", KVM_STATS_TYPE_PEAK | KVM_STATS_UNIT_SECONDS, -9, 1, 42 },
};
#define NFAKE (sizeof(fake) / sizeof(fake[0]))

/* Writes the layout to a temp file; data items are placed after a gap. */
static int fake_file(void)
{
	char path[] = "/tmp/hs-kvmstats.XXXXXX";
	struct kvm_stats_header h = { .name_size = NAME_SIZE, .num_desc = NFAKE };
	unsigned char buf[8192];
	uint32_t data_off = 0;
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	memset(buf, 0, sizeof(buf));
	h.id_offset = sizeof(h);
	memcpy(buf + h.id_offset, "kvm-1234/vcpu-0", 16);
	h.desc_offset = h.id_offset + 64;
	h.data_offset = (uint32_t)(h.desc_offset + NFAKE * STRIDE + 40);
	for (unsigned int i = 0; i < NFAKE; i++) {
		struct kvm_stats_desc d = {
			.flags = fake[i].flags, .exponent = fake[i].exponent,
			.size = fake[i].size, .offset = data_off,
		};
		unsigned char *p = buf + h.desc_offset + i * STRIDE;

		memcpy(p, &d, sizeof(d));
		strcpy((char *)p + sizeof(d), fake[i].name);
		for (unsigned int k = 0; k < fake[i].size; k++)
			memcpy(buf + h.data_offset + data_off + 8 * k, &fake[i].value, 8);
		data_off += 8u * fake[i].size;
	}
	memcpy(buf, &h, sizeof(h));
	if (write(fd, buf, h.data_offset + data_off) != (ssize_t)(h.data_offset + data_off)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void test_stats(void)
{
	uint64_t v[HS_KVM_STAT_N];
	struct hs_kvm_stats s;
	struct hs_error err;
	int fd = fake_file();

	CHECK(fd >= 0, "stats_fake_file");
	if (fd < 0)
		return;
	CHECK(!hs_kvm_stats_from_fd(&s, fd, &err), "stats_parse");
	CHECK(hs_kvm_stats_complete(&s), "stats_complete");
	CHECK(!hs_kvm_stats_read(&s, v, &err), "stats_read");
	CHECK_EQ_U64(v[HS_KVM_STAT_SUCCESSFUL_POLL], 1234, "stats_successful_poll");
	CHECK_EQ_U64(v[HS_KVM_STAT_ATTEMPTED_POLL], 2000, "stats_attempted_poll");
	CHECK_EQ_U64(v[HS_KVM_STAT_POLL_INVALID], 3, "stats_poll_invalid");
	CHECK_EQ_U64(v[HS_KVM_STAT_POLL_SUCCESS_NS], 555000, "stats_success_ns");
	CHECK_EQ_U64(v[HS_KVM_STAT_POLL_FAIL_NS], 777000, "stats_fail_ns_scaled_from_us");
	CHECK_EQ_U64(v[HS_KVM_STAT_WAIT_NS], 0, "stats_peak_type_ignored");
	hs_kvm_stats_close(&s);
	CHECK(s.fd == -1, "stats_closed");
}

static void test_stats_bad(void)
{
	char path[] = "/tmp/hs-kvmstats.XXXXXX";
	struct hs_kvm_stats s;
	struct hs_error err;
	int fd = mkstemp(path);

	if (fd < 0)
		return;
	unlink(path);
	/* 10 bytes: shorter than the header */
	CHECK(write(fd, "0123456789", 10) == 10, "stats_short_write");
	CHECK(hs_kvm_stats_from_fd(&s, fd, &err) == HS_ERR_KVM, "stats_truncated_rejected");
	CHECK(s.fd == -1, "stats_truncated_closed");
	CHECK(hs_kvm_stats_open(&s, -1, &err) == HS_ERR_KVM, "stats_no_vcpu_fd");
}

static void test_gap_seq(void)
{
	static const uint64_t seq[] = { 30000, 100000, 600000 };
	struct hs_gap_gen g;
	uint64_t got[5];

	hs_gap_gen_init_seq(&g, seq, 3);
	for (unsigned int i = 0; i < 5; i++)
		got[i] = hs_gap_gen_next(&g);
	CHECK(got[0] == 30000 && got[1] == 100000 && got[2] == 600000 && got[3] == 30000 &&
	      got[4] == 100000, "gap_seq_in_order");
}

int main(void)
{
	test_stats();
	test_stats_bad();
	test_gap_seq();
	return CHECK_DONE();
}
