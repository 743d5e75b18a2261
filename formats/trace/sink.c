// SPDX-License-Identifier: GPL-2.0-only
/* The sink that puts what a reader decodes into an accounting. */
#include "../../lib/account.h"
#include "sink.h"

static int sink_acct_event(void *priv, const struct hs_event *ev)
{
	return hs_account_event(priv, ev);
}

static int sink_acct_events(void *priv, const struct hs_event *ev, size_t n)
{
	return hs_account_event_batch(priv, ev, n);
}

static bool sink_acct_keeps(void *priv, const struct hs_event *ev)
{
	return hs_account_keeps(priv, ev);
}

static void sink_acct_count(void *priv, const struct hs_event_tally *t)
{
	hs_account_tally(priv, t);
}

static bool sink_acct_sched_counted(void *priv)
{
	return hs_account_sched_counted(priv);
}

static void sink_acct_lost(void *priv, int cpu, uint64_t count, bool known)
{
	hs_account_lost(priv, cpu, count, known);
}

static void sink_acct_thread(void *priv, int tid, int tgid, const char *comm)
{
	hs_account_thread(priv, tid, tgid, comm);
}

static void sink_acct_process(void *priv, int tgid, const char *comm, const char *vm)
{
	hs_account_process(priv, tgid, comm, vm);
}

void hs_sink_account(struct hs_sink *sink, struct hs_account *acct)
{
	bool sharded = hs_account_sharded(acct);

	*sink = (struct hs_sink){
		.event = sink_acct_event, .events = sink_acct_events, .lost = sink_acct_lost,
		.thread = sink_acct_thread, .process = sink_acct_process,
		/* an account that keeps every event needs no asking */
		.keeps = sharded ? sink_acct_keeps : NULL, .count = sink_acct_count,
		.sched_counted = sink_acct_sched_counted,
		.priv = acct, .meta = hs_account_meta(acct),
	};
	if (sharded)
		hs_account_kvm_shard(acct, &sink->kvm_shard);
}
