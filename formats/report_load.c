// SPDX-License-Identifier: GPL-2.0-only
/*
 * source -> events -> accounting -> report model, for every command that
 * reads a recording (report, advise, diff, replay).
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"

/*
 * Below this size a second reader costs more than it saves (4 MiB is
 * about 100,000 events).
 */
#define HS_SHARD_MIN_BYTES (4u << 20)

/*
 * The compression name follows the fixed v7 header (magic, version,
 * endianness, long size, page size): the ones the own reader inflates.
 */
static bool hs_load_own_v7(const unsigned char head[32])
{
	const char *name = (const char *)head + 18;

	return !memchr(name, '\0', 5) ? false :
	       !strcmp(name, "zstd") || !strcmp(name, "zlib") || !strcmp(name, "none") || !*name;
}

/*
 * Two readers side by side pay off when the input can be read twice (a
 * regular file), is large, a second CPU is there, and decoding is cheap
 * next to the per-vCPU work: trace.dat through haltstat's own readers
 * (libtracecmd runs in a child process of its own).
 * Text is not split: its parsing costs as much as the rest, so two
 * parsers gained nothing (4 M lines: 0.47 s either way).
 * HALTSTAT_THREADS=1 keeps one reader, =2 splits whatever the size or the
 * CPUs (tests compare the two).
 */
static bool hs_load_shardable(const char *path)
{
	const char *env = getenv("HALTSTAT_THREADS"), *rd = getenv("HALTSTAT_READER");
	bool forced = env && atoi(env) >= 2;
	unsigned char head[32];
	struct stat st;
	cpu_set_t set;
	int fd;

	if ((env && atoi(env) == 1) || !strcmp(path, "-") || (rd && !strcmp(rd, "libtracecmd")))
		return false;
	if (!forced && (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) < 2))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (!forced && st.st_size < HS_SHARD_MIN_BYTES) ||
	    pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head)) {
		close(fd);
		return false;
	}
	close(fd);
	return hs_input_detect(head, sizeof(head)) == HS_INPUT_TRACEDAT && !head[11] &&
	       (head[10] == '6' || (head[10] == '7' && hs_load_own_v7(head)));
}

struct hs_load_half {
	const char *path;
	struct hs_account *acct;
	struct hs_error err;
	int ret;
};

static void *hs_load_half_main(void *arg)
{
	struct hs_load_half *h = arg;

	h->ret = hs_input_read(h->path, h->acct, &h->err);
	return NULL;
}

/*
 * Each thread reads the whole input and keeps half of the vCPU threads
 * (hs_account_shard): decoding twice costs less than the per-vCPU work
 * it splits, and nothing passes between the threads until the end.
 */
static int hs_load_sharded(const char *path, struct hs_account *acct, struct hs_error *err)
{
	struct hs_load_half other = { .path = path };
	pthread_t thread;
	int ret;

	other.acct = hs_account_alloc(hs_account_options(acct));
	if (!other.acct)
		return hs_input_read(path, acct, err);
	hs_account_shard(other.acct, 1, 2);
	hs_account_shard(acct, 0, 2);
	if (pthread_create(&thread, NULL, hs_load_half_main, &other)) {
		hs_account_free(other.acct);
		hs_account_shard(acct, 0, 1);
		return hs_input_read(path, acct, err);
	}
	ret = hs_input_read(path, acct, err);
	pthread_join(thread, NULL);
	if (!ret && other.ret) {
		ret = other.ret;
		if (err)
			*err = other.err;
	}
	if (!ret && hs_account_absorb(acct, other.acct))
		ret = hs_error_set(err, HS_ERR_RUNTIME, "%s: out of memory", path);
	hs_account_free(other.acct);
	return ret;
}

struct hs_account *hs_account_load(const char *path, const struct hs_account_opts *opts,
				   struct hs_error *err)
{
	struct hs_account *acct = hs_account_alloc(opts);
	int ret;

	if (!acct) {
		hs_error_set(err, HS_ERR_RUNTIME, "cannot set up the accounting: out of memory");
		return NULL;
	}
	ret = hs_load_shardable(path) ? hs_load_sharded(path, acct, err) :
	      hs_input_read(path, acct, err);
	if (ret) {
		hs_account_free(acct);
		if (err && !err->code)
			hs_error_set(err, ret, "cannot read %s", path);
		return NULL;
	}
	hs_account_finish(acct);
	return acct;
}

int hs_report_load(const char *path, const struct hs_account_opts *opts,
		   const struct hs_report_filter *filter,
		   const struct hs_advice_opts *advice, struct hs_report *rep,
		   struct hs_error *err)
{
	struct hs_account *acct;
	int ret;

	memset(rep, 0, sizeof(*rep));
	acct = hs_account_load(path, opts, err);
	if (!acct)
		return err && err->code ? err->code : HS_ERR_RUNTIME;
	ret = hs_report_build(rep, acct, filter, advice);
	hs_account_free(acct);
	if (ret)
		return hs_error_set(err, HS_ERR_RUNTIME, "cannot build the report of %s: "
				    "out of memory", path);
	return HS_OK;
}
