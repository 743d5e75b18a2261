/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_REPORT_SELECT_H
#define HS_REPORT_SELECT_H

#include <stdbool.h>

#include "account.h"
#include "report.h"

/* One selected vCPU thread while the report is built: who it is. */
struct hs_sel {
	const struct hs_vcpu_acct *v;
	int tgid;
	int vcpu_index;
	char comm[64];
	char vm[128];
	char vm_comm[64];
};

/* Every named thread: who is who in the recording, vCPU or not. */
int hs_report_threads(struct hs_report *rep, const struct hs_account *acct);

/* The filter asks for something (a pid, VM or vCPU). */
bool hs_filter_active(const struct hs_report_filter *f);

/* The vCPU threads f selects, identified and sorted by VM, into *out: how many, -1 out of memory. */
int hs_report_select(const struct hs_account *acct, const struct hs_report_filter *f,
		     struct hs_sel **out);

#endif
