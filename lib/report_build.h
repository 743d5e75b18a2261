/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_REPORT_BUILD_H
#define HS_REPORT_BUILD_H

#include "account.h"
#include "report.h"

/*
 * The model of acct (finished): every figure but the advice, which
 * hs_advice_build() and hs_guest_advice_build() add after (advice.h).
 */
int hs_report_build(struct hs_report *rep, const struct hs_account *acct,
		    const struct hs_report_filter *filter);

#endif
