// SPDX-License-Identifier: GPL-2.0-only
/*
 * source -> events -> accounting -> report model, for every command that
 * reads a recording (report, advise, diff, replay).
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "advice.h"
#include "pipeline.h"
#include "report_build.h"

/*
 * Two readers side by side, each keeping half of the vCPUs, when the
 * source says the input can be read twice; HALTSTAT_THREADS=1 keeps one
 * reader, =2 splits whatever the size or the CPUs (tests compare the two).
 */
static bool load_split(const struct hs_source *src, const char *path)
{
	const char *env = getenv("HALTSTAT_THREADS");
	bool forced = env && atoi(env) >= 2;
	cpu_set_t set;

	if ((env && atoi(env) == 1) || !src->splittable)
		return false;
	if (!forced && (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) < 2))
		return false;
	return src->splittable(path, forced);
}

struct hs_load_half {
	const struct hs_source *src;
	const char *path;
	void *share;		/* from src->share_new, or NULL */
	struct hs_account *acct;
	struct hs_error err;
	int ret;
};

static int load_half(const struct hs_source *src, const char *path, void *share,
		     struct hs_account *acct, struct hs_error *err)
{
	if (share)
		return src->read_shared(path, share, acct, err);
	return src->read(path, acct, err);
}

static void *load_half_main(void *arg)
{
	struct hs_load_half *h = arg;

	h->ret = load_half(h->src, h->path, h->share, h->acct, &h->err);
	return NULL;
}

/*
 * Each thread reads the whole input and keeps half of the vCPU threads
 * (hs_account_shard): decoding twice costs less than the per-vCPU work
 * it splits, and nothing passes between the threads until the end.
 */
static int load_sharded(const struct hs_source *src, const char *path,
			struct hs_account *acct, struct hs_error *err)
{
	struct hs_load_half other = { .src = src, .path = path };
	pthread_t thread;
	int ret;

	other.acct = hs_account_alloc(hs_account_options(acct));
	if (!other.acct)
		return src->read(path, acct, err);
	hs_account_shard(other.acct, 1, 2);
	hs_account_shard(acct, 0, 2);
	if (src->share_new && src->read_shared)
		other.share = src->share_new();
	if (pthread_create(&thread, NULL, load_half_main, &other)) {
		if (other.share)
			src->share_free(other.share);
		hs_account_free(other.acct);
		hs_account_shard(acct, 0, 1);
		return src->read(path, acct, err);
	}
	ret = load_half(src, path, other.share, acct, err);
	pthread_join(thread, NULL);
	if (other.share)
		src->share_free(other.share);
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

struct hs_account *hs_account_load(const struct hs_source *src, const char *path,
				   const struct hs_account_opts *opts, struct hs_error *err)
{
	struct hs_account *acct = hs_account_alloc(opts);
	int ret;

	if (!acct) {
		hs_error_set(err, HS_ERR_RUNTIME, "cannot set up the accounting: out of memory");
		return NULL;
	}
	ret = load_split(src, path) ? load_sharded(src, path, acct, err) :
	      src->read(path, acct, err);
	if (ret) {
		hs_account_free(acct);
		if (err && !err->code)
			hs_error_set(err, ret, "cannot read %s", path);
		return NULL;
	}
	hs_account_finish(acct);
	return acct;
}

int hs_report_load(const struct hs_source *src, const char *path,
		   const struct hs_account_opts *opts, const struct hs_report_filter *filter,
		   const struct hs_advice_opts *advice, struct hs_report *rep,
		   struct hs_error *err)
{
	struct hs_account *acct;
	int ret;

	memset(rep, 0, sizeof(*rep));
	acct = hs_account_load(src, path, opts, err);
	if (!acct)
		return err && err->code ? err->code : HS_ERR_RUNTIME;
	ret = hs_report_build(rep, acct, filter);
	hs_account_free(acct);
	if (!ret && advice && advice->enabled) {
		hs_advice_build(rep, advice);
		hs_guest_advice_build(rep, advice);
	}
	if (ret)
		return hs_error_set(err, HS_ERR_RUNTIME, "cannot build the report of %s: "
				    "out of memory", path);
	return HS_OK;
}
