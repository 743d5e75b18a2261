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
 * Readers side by side, each keeping a share of the vCPUs, when the
 * source says the input can be read more than once (and how);
 * HALTSTAT_THREADS=1 keeps one reader, =2 or =3 splits that many ways
 * whatever the size or the CPUs (tests compare them).
 */
static bool load_split(const struct hs_source *src, const char *path, struct hs_shard_plan *plan)
{
	const char *env = getenv("HALTSTAT_THREADS");
	int asked = env ? atoi(env) : 0;
	cpu_set_t set;

	*plan = (struct hs_shard_plan){
		.readers = asked < 2 ? 0 : asked > HS_SHARD_READERS_MAX ? HS_SHARD_READERS_MAX :
				   (unsigned int)asked,
	};
	if (asked == 1 || !src->splittable)
		return false;
	if (asked < 2 && (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) < 2))
		return false;
	return src->splittable(path, asked >= 2, plan) && plan->readers >= 2;
}

struct hs_load_part {
	const struct hs_source *src;
	const char *path;
	void *share;		/* from src->share_new, or NULL */
	struct hs_account *acct;
	struct hs_error err;
	int ret;
	pthread_t thread;
	bool running;
};

static int load_part(const struct hs_source *src, const char *path, void *share,
		     struct hs_account *acct, struct hs_error *err)
{
	if (share)
		return src->read_shared(path, share, acct, err);
	return src->read(path, acct, err);
}

static void *load_part_main(void *arg)
{
	struct hs_load_part *p = arg;

	p->ret = load_part(p->src, p->path, p->share, p->acct, &p->err);
	return NULL;
}

/* The other readers' parts under way, each in an account of its share; false: not all. */
static bool load_parts_start(const struct hs_source *src, const char *path,
			     struct hs_load_part *part, const struct hs_account *acct,
			     const struct hs_shard_plan *plan, void *share)
{
	bool all = true;

	for (unsigned int i = 1; i < plan->readers; i++) {
		struct hs_load_part *p = &part[i];

		*p = (struct hs_load_part){ .src = src, .path = path, .share = share,
					    .acct = hs_account_alloc(hs_account_options(acct)) };
		if (p->acct) {
			hs_account_shard(p->acct, (struct hs_shard){ i, plan->readers, plan->salt });
			p->running = !pthread_create(&p->thread, NULL, load_part_main, p);
		}
		all &= p->running;
	}
	return all;
}

/*
 * Each thread reads the whole input and keeps its share of the vCPU
 * threads (hs_account_shard): decoding more than once costs less than the
 * per-vCPU work it splits, and nothing passes between the threads until
 * the end. All parts must run, or the whole is read once.
 */
static int load_sharded(const struct hs_source *src, const char *path,
			const struct hs_shard_plan *plan, struct hs_account *acct,
			struct hs_error *err)
{
	struct hs_load_part part[HS_SHARD_READERS_MAX] = { 0 };
	unsigned int n = plan->readers;
	void *share = src->share_new && src->read_shared ? src->share_new() : NULL;
	bool all = load_parts_start(src, path, part, acct, plan, share);
	int ret = 0;

	if (all) {
		hs_account_shard(acct, (struct hs_shard){ 0, n, plan->salt });
		ret = load_part(src, path, share, acct, err);
	}
	for (unsigned int i = 1; i < n; i++)
		if (part[i].running)
			pthread_join(part[i].thread, NULL);
	if (share)
		src->share_free(share);
	for (unsigned int i = 1; i < n && all; i++) {
		if (!ret && part[i].ret) {
			ret = part[i].ret;
			if (err)
				*err = part[i].err;
		}
		if (!ret && hs_account_absorb(acct, part[i].acct))
			ret = hs_error_set(err, HS_ERR_RUNTIME, "%s: out of memory", path);
	}
	for (unsigned int i = 1; i < n; i++)
		hs_account_free(part[i].acct);
	return all ? ret : src->read(path, acct, err);
}

struct hs_account *hs_account_load(const struct hs_source *src, const char *path,
				   const struct hs_account_opts *opts, struct hs_error *err)
{
	struct hs_account *acct = hs_account_alloc(opts);
	struct hs_shard_plan plan;
	int ret;

	if (!acct) {
		hs_error_set(err, HS_ERR_RUNTIME, "cannot set up the accounting: out of memory");
		return NULL;
	}
	ret = load_split(src, path, &plan) ? load_sharded(src, path, &plan, acct, err) :
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
