// SPDX-License-Identifier: GPL-2.0-only
/*
 * Thread and process names of an accounting, as the readers learn them
 * (cmdlines, metadata, text lines): the report names vCPUs and VMs from
 * them.
 */
#include <stdlib.h>
#include <string.h>

#include "account_state.h"

/* Names end up in text output: keep them one printable line. */
static void copy_name(char *dst, size_t size, const char *src)
{
	size_t i;

	if (!src)
		return;
	for (i = 0; i + 1 < size && src[i]; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	dst[i] = '\0';
}

void hs_account_thread(struct hs_account *a, int tid, int tgid, const char *comm)
{
	bool added;
	long i = hs_itable_slot(&a->thread_map, (void **)&a->threads, &a->nthreads,
				&a->cap_threads, sizeof(*a->threads), tid, HS_ACCOUNT_MAX_NAMES,
				&added);
	struct hs_thread_info *t;

	if (i < 0)
		return;	/* without the name the report falls back to the tid */
	t = &a->threads[i];
	if (added) {
		t->tid = tid;
		t->tgid = -1;
	}
	if (tgid >= 0)
		t->tgid = tgid;
	copy_name(t->comm, sizeof(t->comm), comm);
}

void hs_account_process(struct hs_account *a, int tgid, const char *comm, const char *vm_name)
{
	bool added;
	long i = hs_itable_slot(&a->proc_map, (void **)&a->procs, &a->nprocs, &a->cap_procs,
				sizeof(*a->procs), tgid, HS_ACCOUNT_MAX_NAMES, &added);
	struct hs_process_info *p;

	if (i < 0)
		return;	/* the report falls back to "pid TGID" */
	p = &a->procs[i];
	p->tgid = tgid;
	if (comm)
		copy_name(p->comm, sizeof(p->comm), comm);
	if (vm_name)
		copy_name(p->vm_name, sizeof(p->vm_name), vm_name);
}

const struct hs_thread_info *hs_account_thread_info(const struct hs_account *a, int tid)
{
	long i = hs_imap_get(&a->thread_map, tid);

	return i < 0 ? NULL : &a->threads[i];
}

unsigned int hs_account_nthreads(const struct hs_account *a)
{
	return a->nthreads;
}

const struct hs_thread_info *hs_account_thread_at(const struct hs_account *a, unsigned int i)
{
	return i < a->nthreads ? &a->threads[i] : NULL;
}

const struct hs_process_info *hs_account_process_info(const struct hs_account *a, int tgid)
{
	long i = hs_imap_get(&a->proc_map, tgid);

	return i < 0 ? NULL : &a->procs[i];
}
