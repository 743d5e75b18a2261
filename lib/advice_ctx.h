/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_ADVICE_CTX_H
#define HS_ADVICE_CTX_H

#include <stdint.h>
#include <stdio.h>

#include "advice_model.h"
#include "era.h"
#include "report.h"

/*
 * What advice.c (the choice) hands advice_explain.c (its findings and
 * words) for the host layer. Not a public interface.
 */
/* What one scope (the host or one VM) is judged on. */
struct hs_adv_scope {
	const struct hs_whatif_row *rows;
	unsigned int n;
	double vcpu_pct[HS_WHATIF_MAX_CANDIDATES];	/* worst vCPU per candidate */
	unsigned int nvcpus;
	int tgid;			/* vCPUs of this process; -2 all */
	int best;			/* index into rows, -1 none */
	int off_cliff_from;		/* the best by the point, moved off a cliff; -1 not moved */
	double utility[HS_WHATIF_MAX_CANDIDATES];
};

struct hs_adv_ctx {
	const struct hs_report *rep;
	const struct hs_adv_objective *obj;
	double budget;
	double delta;			/* for pricing */
	uint64_t ceiling_ns;		/* no suggestion above it; UINT64_MAX none */
	FILE *text;
	char *buf;
	size_t len;
	struct hs_advice *adv;
};

#define hs_adv_say(c, ...) hs_adv_text_say((c)->text, __VA_ARGS__)

static inline bool hs_adv_vcpu_in(const struct hs_report_vcpu *v, int tgid)
{
	return tgid == -2 || v->tgid == tgid;
}

/* advice_explain.c */
/* Which way the wakes were replayed, and whether the trace said so. */
void hs_adv_wake_model(struct hs_adv_ctx *c);

/*
 * What a hit saves, and whence the figure: sched_waking timed the waits
 * (the busiest such vCPU's spread is quoted), or it is estimated from the
 * halts alone, which blurs every wait's time to wake by the spread.
 */
void hs_adv_wake_overhead(struct hs_adv_ctx *c, uint64_t delta);

/* Cliffs next to the suggestion, or the one it was moved off, in words. */
void hs_adv_cliffs(struct hs_adv_ctx *c, const struct hs_adv_scope *s);

/* Index of the candidate equal to ns, -1 when it is not one. */
int hs_adv_row_of(const struct hs_adv_scope *s, int64_t ns);

/*
 * The maximum in force: the metadata's unless the window events contradict
 * it (a VMM's own KVM_CAP_HALT_POLL), else what the self-check inferred.
 */
int64_t hs_adv_recorded_max(const struct hs_report *rep);

void hs_adv_explain_choice(struct hs_adv_ctx *c, const struct hs_adv_scope *s,
			   enum hs_kernel_era era);

void hs_adv_explain_recorded(struct hs_adv_ctx *c, const struct hs_adv_scope *s);

void hs_adv_selfcheck(struct hs_adv_ctx *c);

void hs_adv_confidence(struct hs_adv_ctx *c);

/*
 * Ubuntu bug 1724614: wakes come periodically just under the window, so the
 * window settles above the period and the vCPU polls through nearly all of
 * its idle time. In the replay this is a candidate step where most halts
 * turn into hits at once, and the polling CPU jumps with them.
 */
void hs_adv_periodic(struct hs_adv_ctx *c, const struct hs_adv_scope *s);

void hs_adv_flapping(struct hs_adv_ctx *c);

/* KVM stops polling once another task is runnable on the vCPU's CPU: say how often, or that nobody knows. */
void hs_adv_contention(struct hs_adv_ctx *c);
void hs_adv_steal(struct hs_adv_ctx *c);

void hs_adv_cut_explain(struct hs_adv_ctx *c);

/*
 * Host polling off: no window change at all although some waits were short
 * enough to grow it, and every waited == 0 halt tiny (a wake that beat the
 * block, not a poll). With halt_poll_ns > 0 that is the guest's haltpoll
 * driver having switched host polling off through MSR_KVM_POLL_CONTROL.
 */
void hs_adv_polling_off(struct hs_adv_ctx *c);

void hs_adv_apply(struct hs_adv_ctx *c, uint64_t ns);

#endif
