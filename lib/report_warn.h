/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_REPORT_WARN_H
#define HS_REPORT_WARN_H

#include <stdbool.h>

#include "account.h"
#include "report.h"

void hs_report_warnings(struct hs_report *rep, const struct hs_account *acct,
			const struct hs_report_filter *f, bool filtered_out);

#endif
