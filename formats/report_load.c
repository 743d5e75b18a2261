// SPDX-License-Identifier: GPL-2.0-only
/*
 * source -> events -> accounting -> report model, for every command that
 * reads a recording (report, advise, diff, replay).
 */
#include <string.h>

#include "input.h"

int hs_report_load(const char *path, const struct hs_account_opts *opts,
		   const struct hs_report_filter *filter,
		   const struct hs_advice_opts *advice, struct hs_report *rep,
		   struct hs_error *err)
{
	struct hs_account *acct;
	int ret;

	memset(rep, 0, sizeof(*rep));
	acct = hs_account_alloc(opts);
	if (!acct)
		return hs_error_set(err, HS_ERR_RUNTIME,
				    "cannot set up the accounting: out of memory");
	ret = hs_input_read(path, acct, err);
	if (ret) {
		hs_account_free(acct);
		if (err && !err->code)
			hs_error_set(err, ret, "cannot read %s", path);
		return ret;
	}
	hs_account_finish(acct);
	ret = hs_report_build(rep, acct, filter, advice);
	hs_account_free(acct);
	if (ret)
		return hs_error_set(err, HS_ERR_RUNTIME, "cannot build the report: out of memory");
	return HS_OK;
}
