/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_HANDOVER_H
#define HS_HANDOVER_H

#include <stdint.h>

#include "../error.h"

/*
 * Hand-overs: a vCPU thread of this process leaving its CPU to another task
 * (not to the idle task). KVM stops polling as soon as another task is
 * runnable on the vCPU's CPU, so each hand-over is a halt whose poll may
 * have been cut short, or that found the CPU taken. Counted per CPU by the
 * kernel alone: a private tracefs instance logs sched_switch for this
 * process's threads (followed into new ones) through a filter, and nobody
 * reads the buffer, so its event count is the answer.
 */
struct hs_handover;

/* vcpu_comm: a glob the vCPU threads' names match, as ftrace filters take it. */
int hs_handover_start(struct hs_handover **hp, const char *vcpu_comm, struct hs_error *err);
/* The CPUs counted: out[] of hs_handover_counts() needs this many. */
unsigned int hs_handover_ncpus(const struct hs_handover *h);
/* Hand-overs since start on each CPU below n into out; -1 when a CPU's count is unreadable. */
int hs_handover_counts(const struct hs_handover *h, uint64_t *out, unsigned int n);
/* Removes the instance. Safe on NULL. */
void hs_handover_stop(struct hs_handover *h);

#endif
