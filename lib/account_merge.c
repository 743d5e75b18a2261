// SPDX-License-Identifier: GPL-2.0-only
/*
 * One accounting made of others: the live view's intervals (an interval
 * carries what the previous one knew) and the two readers of one file
 * (each keeps half of the vCPUs; the halves are joined at the end).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "account_state.h"

static int carry_vcpu(struct hs_account *n, const struct hs_vcpu_acct *p, uint64_t ts)
{
	struct hs_vcpu_acct *v = hs_vcpu_get(n, p->tid, ts);

	if (!v)
		return HS_ERR_RUNTIME;
	v->window = p->window;
	v->seg.window = p->window;
	v->vcpu_id = p->vcpu_id;
	v->last_change = p->last_change;
	v->pending = p->pending;
	v->has_pending = p->has_pending;
	v->unreliable = p->unreliable;
	v->window_since_ts = ts;
	return 0;
}

static int carry_guest(struct hs_account *n, const struct hs_guest_cpu_acct *p, uint64_t ts)
{
	struct hs_guest_cpu_acct *g = hs_guest_get(n, p->cpu, ts);

	if (!g)
		return HS_ERR_RUNTIME;
	g->cur_state = p->cur_state;
	g->cur_since = ts;
	g->last_exit_state = p->last_exit_state;
	g->poll_pending = p->poll_pending;
	g->window = p->window;
	g->window_since_ts = ts;
	return 0;
}

int hs_account_carry(struct hs_account *n, const struct hs_account *p, uint64_t ts)
{
	unsigned int i;

	n->have_ts = true;
	n->first_ts = ts;
	n->last_ts = ts;
	if (!p)
		return 0;
	n->meta = p->meta;
	n->meta.lost_events = 0;
	n->meta.lost_unknown_places = 0;
	n->meta.skipped_lines = 0;
	n->meta.skipped_pages = 0;
	n->meta.skipped_events = 0;
	n->meta.clamped_ts = 0;
	n->meta.over_limit_events = 0;
	for (i = 0; i < p->nthreads; i++)
		hs_account_thread(n, p->threads[i].tid, p->threads[i].tgid, p->threads[i].comm);
	for (i = 0; i < p->nprocs; i++)
		hs_account_process(n, p->procs[i].tgid, p->procs[i].comm, p->procs[i].vm_name);
	for (i = 0; i < p->nvcpus; i++)
		if (carry_vcpu(n, p->vcpus[i], ts))
			return HS_ERR_RUNTIME;
	for (i = 0; i < p->nguest; i++)
		if (carry_guest(n, &p->guest[i], ts))
			return HS_ERR_RUNTIME;
	return 0;
}

void hs_account_cut(struct hs_account *a, uint64_t ts)
{
	uint64_t span;
	unsigned int i;

	if (a->finished)
		return;
	a->finished = true;
	hs_account_front_fold(a);
	if (!a->have_ts)
		a->first_ts = ts;
	if (!a->have_ts || ts > a->last_ts)
		a->last_ts = ts;
	a->have_ts = true;
	span = a->last_ts - a->first_ts;
	for (i = 0; i < a->nvcpus; i++) {
		struct hs_vcpu_acct *v = a->vcpus[i];

		hs_window_advance(v->window, &v->window_since_ts, a->last_ts, &v->window_area,
				  &v->window_time);
		hs_vcpu_settle_end(a, v, a->last_ts);
		if (v->whatif)
			hs_whatif_finish(v->whatif, span);
	}
	for (i = 0; i < a->nguest; i++) {
		struct hs_guest_cpu_acct *g = &a->guest[i];

		/* an open idle period counts as an entry where it ends, in a later interval */
		if (g->cur_state >= 0 && a->last_ts > g->cur_since) {
			g->residency_ns[hs_idle_slot(g->cur_state)] += a->last_ts - g->cur_since;
			g->cur_since = a->last_ts;
		}
		if (g->whatif)
			hs_guest_whatif_finish(g->whatif, span);
		hs_window_advance(g->window, &g->window_since_ts, a->last_ts, &g->window_area,
				  &g->window_time);
	}
}

bool hs_account_sharded(const struct hs_account *a)
{
	return a->shard.count > 1;
}

void hs_account_shard(struct hs_account *a, struct hs_shard s)
{
	a->shard = hs_shard_norm(s);
}

/* Both lists are in order of first appearance: so is their merge. */
static int absorb_vcpus(struct hs_account *a, struct hs_account *from)
{
	unsigned int n = a->nvcpus + from->nvcpus, i = 0, j = 0, k = 0;
	struct hs_vcpu_acct **all = malloc(sizeof(*all) * (n ? n : 1));
	struct hs_imap map = { 0 };

	if (!all)
		return HS_ERR_RUNTIME;
	while (i < a->nvcpus || j < from->nvcpus) {
		bool mine = j == from->nvcpus ||
			    (i < a->nvcpus && a->vcpus[i]->first_ts <= from->vcpus[j]->first_ts);
		struct hs_vcpu_acct *v = mine ? a->vcpus[i++] : from->vcpus[j++];

		if (hs_imap_put(&map, v->tid, k)) {
			hs_imap_free(&map);
			free(all);
			return HS_ERR_RUNTIME;
		}
		all[k++] = v;
	}
	free(a->vcpus);
	hs_imap_free(&a->vcpu_map);
	a->vcpus = all;
	a->nvcpus = a->cap_vcpus = n;
	a->vcpu_map = map;
	from->nvcpus = 0;	/* a owns them now */
	return 0;
}

static int absorb_guest(struct hs_account *a, struct hs_account *from)
{
	unsigned int n = a->nguest + from->nguest, i = 0, j = 0, k = 0;
	struct hs_guest_cpu_acct *all = malloc(sizeof(*all) * (n ? n : 1));
	struct hs_imap map = { 0 };

	if (!all)
		return HS_ERR_RUNTIME;
	while (i < a->nguest || j < from->nguest) {
		bool mine = j == from->nguest ||
			    (i < a->nguest && a->guest[i].first_ts <= from->guest[j].first_ts);

		all[k] = mine ? a->guest[i++] : from->guest[j++];
		if (hs_imap_put(&map, all[k].cpu, k)) {
			hs_imap_free(&map);
			free(all);
			return HS_ERR_RUNTIME;
		}
		k++;
	}
	free(a->guest);
	hs_imap_free(&a->guest_map);
	a->guest = all;
	a->nguest = a->cap_guest = n;
	a->guest_map = map;
	from->nguest = 0;
	return 0;
}

int hs_account_absorb(struct hs_account *a, struct hs_account *from)
{
	int ret = absorb_vcpus(a, from);

	/* the only count a shard keeps for itself */
	a->meta.over_limit_events += from->meta.over_limit_events;
	if (!ret)
		ret = absorb_guest(a, from);
	if (!ret)
		hs_account_shard(a, (struct hs_shard){ 0, 1, 0 });
	return ret;
}
