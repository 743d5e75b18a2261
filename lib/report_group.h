/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_REPORT_GROUP_H
#define HS_REPORT_GROUP_H

#include "report.h"
#include "report_select.h"

/* The VMs and the host total of the rows already filled from sel (sorted by VM). */
int hs_report_vms(struct hs_report *rep, const struct hs_sel *sel);

/* A VM's linear table: the sum of its vCPUs' when they all have one of the same shape. */
int hs_vm_linear(const struct hs_report *rep, struct hs_report_vm *vm);

/* The busiest-first order of the VMs and the vCPUs (rep->vm_order, vcpu_order). */
int hs_report_order(struct hs_report *rep);

/*
 * The host's CPUs cannot poll more than all of their time: where the vCPUs'
 * sum says otherwise each is scaled down alike (and the report warns).
 */
void hs_report_poll_host_clamp(struct hs_report *rep);

#endif
