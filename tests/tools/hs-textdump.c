// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test driver for formats/trace/text_read.c with the real accounting.
 *   hs-textdump FILE            counts per event kind and CPU, losses, skipped lines, meta
 *   hs-textdump --bench N FILE  reads N times from memory; prints lines/s from the CPU
 *                               time of the reading thread (steady on a busy machine)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../formats/trace/input.h"

static const char *const kinds[] = { "", "kvm_vcpu_wakeup", "kvm_halt_poll_ns", "cpu_idle",
				     "guest_halt_poll_ns" };

static struct hs_account *dump_read(const char *buf, size_t len, double *secs)
{
	struct hs_account_opts opts = { .no_whatif = true };
	struct hs_error err = { 0 };
	struct hs_account *acct = hs_account_alloc(&opts);
	struct timespec a, b;
	struct hs_sink sink;

	if (!acct) {
		fprintf(stderr, "hs-textdump: out of memory\n");
		exit(1);
	}
	hs_sink_account(&sink, acct);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	if (hs_text_read(buf, len, &sink, &err)) {
		fprintf(stderr, "hs-textdump: %s\n", err.msg);
		exit(err.code);
	}
	hs_account_finish(acct);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	*secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	return acct;
}

static void dump_print(struct hs_account *acct)
{
	const struct hs_meta *m = hs_account_meta(acct);
	unsigned int i, s;

	for (i = 1; i <= 4; i++)
		printf("events %s %llu\n", kinds[i],
		       (unsigned long long)hs_account_events(acct, i));
	for (i = 0; i < hs_account_nguest(acct); i++) {
		const struct hs_guest_cpu_acct *g = hs_account_guest(acct, i);

		for (s = 0; s < HS_IDLE_STATES; s++)
			if (g->entries[s])
				printf("idle cpu%d state%u %llu\n", g->cpu, s,
				       (unsigned long long)g->entries[s]);
	}
	printf("first_ts %llu\nlast_ts %llu\n", (unsigned long long)hs_account_first_ts(acct),
	       (unsigned long long)hs_account_last_ts(acct));
	printf("format %s\nbuffer %s\nncpus %d\nlost %llu\nlost_unknown %llu\nlost_known %d\n"
	       "skipped_lines %llu\n", m->format, m->buffer_instance, m->ncpus,
	       (unsigned long long)m->lost_events, (unsigned long long)m->lost_unknown_places,
	       m->lost_known, (unsigned long long)m->skipped_lines);
}

int main(int argc, char **argv)
{
	const char *path = argc == 2 ? argv[1] : argc == 4 ? argv[3] : NULL;
	int runs = argc == 4 && !strcmp(argv[1], "--bench") ? atoi(argv[2]) : 0;
	struct hs_account *acct;
	double secs, best = 0;
	unsigned long long lines = 0, events;
	struct stat st;
	const char *buf;
	size_t i;
	int fd, r;

	if (!path || (argc == 4 && runs <= 0)) {
		fprintf(stderr, "usage: hs-textdump [--bench N] FILE\n");
		return 2;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "hs-textdump: cannot open %s\n", path);
		return 3;
	}
	buf = st.st_size ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : "";
	if (buf == MAP_FAILED) {
		fprintf(stderr, "hs-textdump: cannot map %s\n", path);
		return 3;
	}
	if (!runs) {
		acct = dump_read(buf, (size_t)st.st_size, &secs);
		dump_print(acct);
		hs_account_free(acct);
		return 0;
	}
	for (i = 0; i < (size_t)st.st_size; i++)	/* also warms the mapping */
		lines += buf[i] == '\n';
	for (r = 0; r < runs; r++) {
		acct = dump_read(buf, (size_t)st.st_size, &secs);
		for (events = 0, i = 1; i <= 4; i++)
			events += hs_account_events(acct, (enum hs_event_kind)i);
		hs_account_free(acct);
		printf("run %d: %llu lines, %llu events in %.3f s CPU = %.2f M lines/s\n", r, lines,
		       events, secs, (double)lines / secs / 1e6);
		if (!best || secs < best)
			best = secs;
	}
	printf("best %.2f M lines/s\n", (double)lines / best / 1e6);
	return 0;
}
