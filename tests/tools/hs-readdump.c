// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test driver for the input readers.
 *   hs-readdump FILE            hs_input_read into an hs_account; prints counts and meta
 *   hs-readdump --raw FILE      trace.dat decoder into a counting sink: per-CPU counts,
 *                               order checks, a checksum of every decoded field
 *   hs-readdump --bench N FILE  decodes N times from the warm mapping; prints events/s
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
#include "../../formats/trace/tracedat_file.h"

#define MAXCPU 1024

struct counts {
	uint64_t n[5][MAXCPU];
	uint64_t total, lost_known, lost_unknown, threads, order_bad, sum;
	uint64_t last_ts;
	struct hs_meta meta;
};

static int c_event(void *priv, const struct hs_event *ev)
{
	struct counts *c = priv;
	uint64_t h;

	c->total++;
	if (ev->cpu >= 0 && ev->cpu < MAXCPU && ev->kind <= 4)
		c->n[ev->kind][ev->cpu]++;
	if (ev->ts < c->last_ts)
		c->order_bad++;
	c->last_ts = ev->ts;
	switch (ev->kind) {
	case HS_EV_VCPU_WAKEUP:
		h = ev->wakeup.ns * 3 + ev->wakeup.waited * 5 + (uint64_t)(ev->wakeup.valid + 1);
		break;
	case HS_EV_HALT_POLL_NS:
		h = ev->poll.vcpu_id + ev->poll.new_ns * 7ull + ev->poll.old_ns * 11ull + ev->poll.grow;
		break;
	case HS_EV_CPU_IDLE:
		h = ev->idle.state * 13ull + ev->idle.cpu_id;
		break;
	case HS_EV_SCHED_SWITCH:
		h = (uint64_t)ev->sched_switch.prev_pid * 19 + (uint64_t)ev->sched_switch.next_pid * 23 +
		    ev->sched_switch.prev_runnable;
		break;
	case HS_EV_SCHED_WAKEUP:
	case HS_EV_SCHED_WAKING:
		h = (uint64_t)ev->sched_wakeup.pid * 29 + (uint64_t)ev->sched_wakeup.target_cpu;
		break;
	default:
		h = ev->guest_poll.new_ns * 17ull + ev->guest_poll.old_ns + ev->guest_poll.grow;
	}
	c->sum = c->sum * 31 + h + ev->ts + (uint64_t)ev->tid * 101 + ev->kind;
	return 0;
}

static void c_lost(void *priv, int cpu, uint64_t n, bool known)
{
	struct counts *c = priv;

	(void)cpu;
	if (known)
		c->lost_known += n;
	else
		c->lost_unknown++;
}

static void c_thread(void *priv, int tid, int tgid, const char *comm)
{
	(void)tid; (void)tgid; (void)comm;
	((struct counts *)priv)->threads++;
}

static void c_process(void *priv, int tgid, const char *comm, const char *vm)
{
	(void)priv; (void)tgid; (void)comm; (void)vm;
}

/* The reader haltstat picks; v6 pages from the mapping (haltstat preads them). */
static int decode(const char *path, int fd, const unsigned char *buf, size_t len,
		  struct counts *c, struct hs_error *err)
{
	struct hs_sink s = { .event = c_event, .lost = c_lost, .thread = c_thread,
			     .process = c_process, .priv = c, .meta = &c->meta };
	bool v7 = len > 12 && buf[10] == '7';

	hs_meta_init(&c->meta);
	return hs_td_read_sink(path, v7 ? fd : -1, buf, len, v7, &s, NULL, err);
}

static const char *const kinds[] = { "", "kvm_vcpu_wakeup", "kvm_halt_poll_ns", "cpu_idle",
				     "guest_halt_poll_ns" };

static int raw(const char *path, int bench)
{
	struct counts *c = calloc(1, sizeof(*c));
	struct hs_error err = { 0 };
	struct stat st;
	int fd = open(path, O_RDONLY);
	void *m;

	if (fd < 0 || fstat(fd, &st) || !st.st_size || !c ||
	    (m = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		fprintf(stderr, "hs-readdump: cannot open or map %s\n", path);
		if (fd >= 0)
			close(fd);
		free(c);
		return 1;
	}
	for (int i = 0; i < (bench ? bench : 1); i++) {
		struct timespec a, b;

		memset(c, 0, sizeof(*c));
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (decode(path, fd, m, st.st_size, c, &err)) {
			fprintf(stderr, "hs-readdump: %s\n", err.msg);
			munmap(m, st.st_size);
			close(fd);
			free(c);
			return err.code;
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;

		if (bench)
			printf("run %d: %llu events in %.4f s = %.2f M events/s\n", i,
			       (unsigned long long)c->total, s, c->total / s / 1e6);
	}
	for (int k = 1; k <= 4; k++)
		for (int cpu = 0; cpu < MAXCPU; cpu++)
			if (c->n[k][cpu])
				printf("count %s cpu%d %llu\n", kinds[k], cpu,
				       (unsigned long long)c->n[k][cpu]);
	printf("total %llu\nchecksum %016llx\norder_bad %llu\nlost_known %llu\nlost_unknown %llu\n"
	       "threads %llu\nskipped_pages %llu\nskipped_events %llu\nclamped_ts %llu\n"
	       "format %s\nbuffer %s\nclock %s\nncpus %d\n",
	       (unsigned long long)c->total, (unsigned long long)c->sum,
	       (unsigned long long)c->order_bad, (unsigned long long)c->lost_known,
	       (unsigned long long)c->lost_unknown, (unsigned long long)c->threads,
	       (unsigned long long)c->meta.skipped_pages, (unsigned long long)c->meta.skipped_events,
	       (unsigned long long)c->meta.clamped_ts, c->meta.format, c->meta.buffer_instance,
	       c->meta.clock, c->meta.ncpus);
	munmap(m, st.st_size);
	close(fd);
	free(c);
	return 0;
}

int main(int argc, char **argv)
{
	struct hs_account_opts opts = { .no_whatif = true };
	struct hs_error err = { 0 };
	struct hs_account *acct;
	const struct hs_meta *m;
	int ret;

	if (argc == 3 && !strcmp(argv[1], "--raw"))
		return raw(argv[2], 0);
	if (argc == 4 && !strcmp(argv[1], "--bench"))
		return raw(argv[3], atoi(argv[2]));
	if (argc != 2) {
		fprintf(stderr, "usage: hs-readdump [--raw | --bench N] FILE\n");
		return 2;
	}
	acct = hs_account_alloc(&opts);
	if (!acct)
		return 1;
	ret = hs_input_read(argv[1], acct, &err);
	if (ret) {
		fprintf(stderr, "hs-readdump: %s\n", err.msg);
		hs_account_free(acct);
		return ret;
	}
	hs_account_finish(acct);
	m = hs_account_meta(acct);
	for (int k = 1; k <= 4; k++)
		printf("events %s %llu\n", kinds[k], (unsigned long long)hs_account_events(acct, k));
	printf("format %s\nsource %s\nkernel %s\nclock %s\nbuffer %s\nncpus %d\nlost %llu\n"
	       "lost_unknown %llu\nskipped_pages %llu\nskipped_events %llu\nhalt_poll_ns %lld\n"
	       "vcpus %u\nguest_cpus %u\n",
	       m->format, m->source, m->kernel_release, m->clock, m->buffer_instance, m->ncpus,
	       (unsigned long long)m->lost_events, (unsigned long long)m->lost_unknown_places,
	       (unsigned long long)m->skipped_pages, (unsigned long long)m->skipped_events,
	       (long long)m->halt_poll_ns, hs_account_nvcpus(acct), hs_account_nguest(acct));
	hs_account_free(acct);
	return 0;
}
