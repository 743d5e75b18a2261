/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_WHATIF_H
#define HS_WHATIF_H

#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "sim.h"
#include "whatif_types.h"

/*
 * Per-vCPU what-if: replays every candidate maximum window over the halts of
 * one vCPU thread as they stream in (constant memory), plus a replay of the
 * recorded setting that is checked against the recorded grow/shrink events
 * and poll hits (the self-check).
 */

extern const uint64_t hs_whatif_default_candidates[];
extern const unsigned int hs_whatif_default_ncandidates;

struct hs_whatif_opts {
	uint64_t candidates[HS_WHATIF_MAX_CANDIDATES];	/* ascending, unique */
	unsigned int ncandidates;
	bool era_forced;		/* --kernel-era given */
	enum hs_kernel_era era;
	int64_t recorded_max_ns;	/* halt_poll_ns at record time, -1 unknown */
	int64_t grow, grow_start, shrink; /* module values, -1 unknown (era defaults) */
	bool nested_host;		/* recorded on a host that is itself a guest (hs_meta_nested) */
	/* Added: keep the first keep_gaps times to wake of the vCPU (haltstat replay); 0 none. */
	uint64_t keep_gaps;
};



/* Where the maximum window M the self-check replays came from. */
enum hs_max_source {
	HS_MAX_MODULE,		/* the recorded halt_poll_ns, and the trace agrees */
	HS_MAX_INFERRED,	/* none recorded: from the window events */
	HS_MAX_CONTRADICTED,	/* the recorded one is contradicted: from the window events */
	HS_MAX_NONE,		/* none recorded and nothing in the trace bounds it */
};

struct hs_selfcheck {
	uint64_t halts_compared;
	uint64_t halts_agreeing;	/* same hit/miss and same grow/shrink/none */
	double agree_pct;		/* -1 when nothing could be compared */
	uint64_t replayed_max_ns;	/* the M that was replayed */
	bool max_inferred;		/* M came from the trace, not the metadata */
	enum hs_max_source max_source;
	int64_t module_max_ns;		/* the recorded halt_poll_ns, -1 unknown */
	uint64_t max_lo, max_hi;	/* what the window events allow for M (hi UINT64_MAX: no bound) */
	uint64_t max_soft;		/* a likely M they do not prove (whatif.c), 0 none */
};

struct hs_whatif;

struct hs_whatif *hs_whatif_alloc(const struct hs_whatif_opts *opts);
void hs_whatif_free(struct hs_whatif *w);
/*
 * One halt of this vCPU. change is the kvm_halt_poll_ns event that preceded
 * this wakeup on the same thread (NULL when there was none), window_ns the
 * window in force during the halt (-1 unknown), data_reliable false after
 * lost events (the self-check then skips this halt).
 */
void hs_whatif_halt(struct hs_whatif *w, const struct hs_wakeup *wakeup,
		    const struct hs_poll_change *change, int64_t window_ns,
		    bool data_reliable, uint64_t poll_cut_ns);

/*
 * What the scheduler's events tell of one halt. woken_ns: from a wait's
 * start to the sched_waking of its thread, the wait's exact time to wake
 * (its ns minus that is its own wake-up overhead); HS_WOKEN_UNKNOWN for a
 * poll hit or without the event, when the time to wake is ns minus the
 * estimated overhead.
 */
struct hs_halt_sched {
	uint64_t poll_cut_ns;
	uint64_t woken_ns;
};

/*
 * The same with the wakeup's timestamp ts (ns), which the wake model is
 * told from (0 unknown), and the scheduler's view (NULL: none).
 */
void hs_whatif_halt_ts(struct hs_whatif *w, uint64_t ts, const struct hs_wakeup *wakeup,
		       const struct hs_poll_change *change, int64_t window_ns,
		       bool data_reliable, const struct hs_halt_sched *sched);
/*
 * The account tells afterwards the window of the latest run of halts that
 * were given window_ns -1 (those since the window was last known, lost-event
 * halts aside): the self-check then replays them too. Past the buffer of the
 * first halts (HS_WHATIF_BUFFER) they were replayed already, and stay
 * uncompared. window 0 or more (-1: it stays unknown, and ends the run);
 * lower_bound: the window was at least that.
 */
void hs_whatif_backfill(struct hs_whatif *w, int64_t window, bool lower_bound);
/* The maximum in force as far as the halts so far tell (hs_selfcheck's M), -1 unknown; *src whence. */
int64_t hs_whatif_max_ns(struct hs_whatif *w, enum hs_max_source *src);
const char *hs_max_source_name(enum hs_max_source s);
/*
 * KVM_CAP_HALT_POLL is per VM: the account hands each vCPU the bounds of
 * its VM's other vCPUs before the end, where they agree with its own.
 */
void hs_whatif_max_merge(struct hs_whatif *w, const struct hs_selfcheck *other);
/* The M taken within bounds [lo, hi] (hi UINT64_MAX: none): the roundest between (whatif.c). */
uint64_t hs_whatif_max_pick(uint64_t lo, uint64_t hi);
/*
 * The maximum in force of a VM from its vCPUs' self-checks: KVM_CAP_HALT_POLL
 * is per VM, so their bounds intersect. max_ns -1: unknown.
 */
struct hs_max_in_force {
	int64_t max_ns;
	enum hs_max_source source;
	int64_t module_ns;		/* the recorded halt_poll_ns, -1 unknown */
	uint64_t lo, hi;		/* hi UINT64_MAX: no upper bound */
	uint64_t soft;			/* as hs_selfcheck.max_soft */
	unsigned int nvcpus;		/* vCPUs that told something */
};
void hs_max_in_force_init(struct hs_max_in_force *m);
void hs_max_in_force_add(struct hs_max_in_force *m, const struct hs_selfcheck *sc);
void hs_max_in_force_decide(struct hs_max_in_force *m);
/* Ends the stream; span_ns is the time the vCPU was observed. */
void hs_whatif_finish(struct hs_whatif *w, uint64_t span_ns);
unsigned int hs_whatif_rows(const struct hs_whatif *w, struct hs_whatif_row *rows);
void hs_whatif_selfcheck(const struct hs_whatif *w, struct hs_selfcheck *out);
/* Estimated wake-up overhead (waits' ns minus time to wake), and how. */
uint64_t hs_whatif_wake_overhead_ns(const struct hs_whatif *w);
/*
 * The wake-up overhead as sched_waking showed it: each timed wait's ns minus
 * its time to wake, over the first halts (HS_WHATIF_BUFFER). waits 0: too
 * few timed waits, and Δ is estimated from the halts alone.
 */
void hs_whatif_wake_overhead_measured(const struct hs_whatif *w,
				      struct hs_wake_overhead_measured *out);
/* The range of Δ the trace allows, which the interval replays at its ends. */
void hs_whatif_wake_overhead_range(const struct hs_whatif *w, uint64_t *lo, uint64_t *hi);
void hs_whatif_wake_model(const struct hs_whatif *w, struct hs_wake_choice *out);
/*
 * Added for haltstat replay. The times to wake D (in halt order) the replay
 * used, up to opts.keep_gaps of them; *total is every halt seen, so
 * *n < *total means the kept sequence was capped. Valid after finish.
 */
const uint64_t *hs_whatif_gaps(const struct hs_whatif *w, uint64_t *n, uint64_t *total);
/* The simulator parameters the candidates ran with (era, module values, Δ), at M = max_ns. */
void hs_whatif_sim_params(const struct hs_whatif *w, uint64_t max_ns, struct hs_sim_params *p);
/* Adds b's rows into a (same candidates), for per-VM and host totals. */
void hs_whatif_rows_sum(struct hs_whatif_row *into, const struct hs_whatif_row *from,
			unsigned int n);

#endif
