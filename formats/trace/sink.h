/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_SINK_H
#define HS_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../lib/event.h"
#include "../../lib/intmap.h"
#include "../../lib/meta.h"

struct hs_account;

/*
 * Where every reader (trace.dat v6 and v7, libtracecmd, text) puts what
 * it decodes: the events, the losses where they happened, the names, and
 * the metadata. Usually an hs_account (hs_sink_account); a counter in the
 * benchmarks' decoder timing, a recorder in the unit tests.
 */
struct hs_sink {
	int (*event)(void *priv, const struct hs_event *ev);
	void (*lost)(void *priv, int cpu, uint64_t count, bool known);
	void (*thread)(void *priv, int tid, int tgid, const char *comm);
	void (*process)(void *priv, int tgid, const char *comm, const char *vm);
	void *priv;
	struct hs_meta *meta;
	/*
	 * Optional (NULL: every event goes to event()). keeps() false: the
	 * sink would only count ev, so the decoder drops it before the merge
	 * and hands the count of such events to count() at the end. Not asked
	 * of sched events, which a sink keeps (or counts all: sched_counted).
	 * ev's time stamp is not set yet when asked.
	 */
	bool (*keeps)(void *priv, const struct hs_event *ev);
	/*
	 * Optional, with keeps(): count > 1 says that of the kvm events keeps()
	 * is true for those whose tid hs_shard_owns(kvm_shard, tid) names (and
	 * any negative tid), which a decoder may then tell without a call.
	 */
	struct hs_shard kvm_shard;
	void (*count)(void *priv, const struct hs_event_tally *t);
	/*
	 * Optional: true when the sink would only count the recording's sched
	 * events, as *meta says it now (no kvm event formats: no halt will ask
	 * for the runqueues). The reader may then count them itself and hand
	 * the count to count(). Asked once, after the reader filled in *meta
	 * and before the events.
	 */
	bool (*sched_counted)(void *priv);
	/* Optional: the reader changed *meta in the stream (a note), before the events that follow. */
	void (*meta_changed)(void *priv);
	/*
	 * Optional: n events at once, as n calls of event() would give them;
	 * a reader that decodes many hands them over in batches (one call, not
	 * one a record). Whatever else it hands over comes after the batch
	 * before it.
	 */
	int (*events)(void *priv, const struct hs_event *ev, size_t n);
	/*
	 * Optional: a second reader of the same recording, from a cut in time
	 * on (tracedat_split.h). second() makes that reader's sink into *sink
	 * (NULL: no split); second_cut() when it reaches the cut, second_join()
	 * when this reader does: true when the second's part now follows this
	 * one's (this reader stops there), false when this one reads on alone.
	 * second_free() after either.
	 */
	void *(*second)(void *priv, struct hs_sink *sink);
	int (*second_cut)(void *second);
	bool (*second_join)(void *priv, void *second);
	void (*second_free)(void *second);
};

/* A sink into acct; process() with comm or vm NULL keeps what acct knows of it. */
void hs_sink_account(struct hs_sink *sink, struct hs_account *acct);

#endif
