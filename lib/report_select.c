// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which vCPU threads a report shows (the filter), who each one is (its
 * process, VM and vCPU index), and in which order they are built.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "report_select.h"
#include "vmm.h"

/* Name, process, VM and vCPU index of a thread, from what the recording told. */
static void identify(const struct hs_account *acct, int tid, int64_t vcpu_id, int *tgid,
		     char *comm, size_t comm_len, char *vm, size_t vm_len, char *vm_comm,
		     size_t vm_comm_len, int *vcpu_index)
{
	const struct hs_thread_info *t = hs_account_thread_info(acct, tid);
	const struct hs_process_info *p;

	*tgid = t ? t->tgid : -1;
	snprintf(comm, comm_len, "%s", t ? t->comm : "");
	vm_comm[0] = '\0';
	/* the name's index (lib/vmm.h), else the id KVM itself prints in kvm_halt_poll_ns */
	*vcpu_index = hs_vmm_vcpu_index(comm);
	if (*vcpu_index < 0 && vcpu_id >= 0 && vcpu_id <= INT_MAX)
		*vcpu_index = (int)vcpu_id;
	if (*tgid < 0) {
		snprintf(vm, vm_len, "unknown");
		return;
	}
	p = hs_account_process_info(acct, *tgid);
	if (p)
		snprintf(vm_comm, vm_comm_len, "%s", p->comm);
	if (p && p->vm_name[0])
		snprintf(vm, vm_len, "%s", p->vm_name);
	else if (p && p->comm[0])
		snprintf(vm, vm_len, "%s", p->comm);
	else
		snprintf(vm, vm_len, "pid %d", *tgid);
}

static void sel_identify(struct hs_sel *s, const struct hs_account *acct,
			 const struct hs_vcpu_acct *v)
{
	memset(s, 0, sizeof(*s));
	s->v = v;
	identify(acct, v->tid, v->vcpu_id, &s->tgid, s->comm, sizeof(s->comm), s->vm,
		    sizeof(s->vm), s->vm_comm, sizeof(s->vm_comm), &s->vcpu_index);
}

/* Every named thread: who is who in the recording, vCPU or not. */
int hs_report_threads(struct hs_report *rep, const struct hs_account *acct)
{
	unsigned int n = hs_account_nthreads(acct);
	char vm_comm[64];

	rep->threads = calloc(n + 1, sizeof(*rep->threads));
	if (!rep->threads)
		return HS_ERR_RUNTIME;
	for (unsigned int i = 0; i < n; i++) {
		const struct hs_thread_info *t = hs_account_thread_at(acct, i);
		const struct hs_vcpu_acct *v = hs_account_vcpu_of(acct, t->tid);
		struct hs_report_thread *r = &rep->threads[rep->nthreads++];

		r->tid = t->tid;
		r->vcpu = v != NULL;
		identify(acct, t->tid, v ? v->vcpu_id : -1, &r->tgid, r->comm, sizeof(r->comm),
			    r->vm, sizeof(r->vm), vm_comm, sizeof(vm_comm), &r->vcpu_index);
	}
	return 0;
}

static bool filter_pids(const struct hs_report_filter *f, int tid, int tgid)
{
	unsigned int i;

	for (i = 0; i < f->npids; i++)
		if (f->pids[i] == tid || (tgid >= 0 && f->pids[i] == tgid))
			return true;
	return false;
}

static bool filter_match(const struct hs_report_filter *f, const struct hs_sel *s)
{
	char pid[16];

	if (!f)
		return true;
	if (f->npids && !filter_pids(f, s->v->tid, s->tgid))
		return false;
	if (f->vm && f->vm[0] && strcmp(f->vm, s->vm)) {
		snprintf(pid, sizeof(pid), "%d", s->tgid);
		if (s->tgid < 0 || strcmp(f->vm, pid))
			return false;
	}
	return f->vcpu < 0 || s->vcpu_index == f->vcpu;
}

bool hs_filter_active(const struct hs_report_filter *f)
{
	return f && (f->npids || (f->vm && f->vm[0]) || f->vcpu >= 0);
}

/* Order: known VMs by name then pid, the unknown VM last; vCPU index, unknown last; tid. */
static int sel_cmp(const void *pa, const void *pb)
{
	const struct hs_sel *a = pa, *b = pb;
	int c;

	if ((a->tgid < 0) != (b->tgid < 0))
		return a->tgid < 0 ? 1 : -1;
	c = strcmp(a->vm, b->vm);
	if (c)
		return c;
	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	if ((a->vcpu_index < 0) != (b->vcpu_index < 0))
		return a->vcpu_index < 0 ? 1 : -1;
	if (a->vcpu_index != b->vcpu_index)
		return a->vcpu_index < b->vcpu_index ? -1 : 1;
	return (a->v->tid > b->v->tid) - (a->v->tid < b->v->tid);
}

/* The number selected, or -1 out of memory. */
int hs_report_select(const struct hs_account *acct, const struct hs_report_filter *f,
		     struct hs_sel **out)
{
	unsigned int i, n = hs_account_nvcpus(acct), k = 0;
	struct hs_sel *sel = calloc(n ? n : 1, sizeof(*sel));

	if (!sel)
		return -1;
	for (i = 0; i < n; i++) {
		const struct hs_vcpu_acct *v = hs_account_vcpu(acct, i);

		if (!v->halts && !v->grows && !v->shrinks)
			continue;
		sel_identify(&sel[k], acct, v);
		if (filter_match(f, &sel[k]))
			k++;
	}
	qsort(sel, k, sizeof(*sel), sel_cmp);
	*out = sel;
	return (int)k;
}
