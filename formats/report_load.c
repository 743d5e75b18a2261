// SPDX-License-Identifier: GPL-2.0-only
/*
 * source -> events -> accounting -> report model, for every command that
 * reads a recording (report, advise, diff, replay).
 */
#include <string.h>

#include "input.h"

struct hs_account *hs_account_load(const char *path, const struct hs_account_opts *opts,
				   struct hs_error *err)
{
	struct hs_account *acct = hs_account_alloc(opts);
	int ret;

	if (!acct) {
		hs_error_set(err, HS_ERR_RUNTIME, "cannot set up the accounting: out of memory");
		return NULL;
	}
	ret = hs_input_read(path, acct, err);
	if (ret) {
		hs_account_free(acct);
		if (err && !err->code)
			hs_error_set(err, ret, "cannot read %s", path);
		return NULL;
	}
	hs_account_finish(acct);
	return acct;
}

int hs_report_load(const char *path, const struct hs_account_opts *opts,
		   const struct hs_report_filter *filter,
		   const struct hs_advice_opts *advice, struct hs_report *rep,
		   struct hs_error *err)
{
	struct hs_account *acct;
	int ret;

	memset(rep, 0, sizeof(*rep));
	acct = hs_account_load(path, opts, err);
	if (!acct)
		return err && err->code ? err->code : HS_ERR_RUNTIME;
	ret = hs_report_build(rep, acct, filter, advice);
	hs_account_free(acct);
	if (ret)
		return hs_error_set(err, HS_ERR_RUNTIME, "cannot build the report of %s: "
				    "out of memory", path);
	return HS_OK;
}
