/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_PIPELINE_H
#define HS_PIPELINE_H

#include <stdbool.h>

#include "account.h"
#include "error.h"
#include "report.h"
#include "shard_plan.h"

/*
 * The read side, source -> accounting -> report model, for every command
 * that reads a recording (report, advise, diff, replay). The readers are
 * formats/'s (hs_input_source); this decides how many read side by side.
 */
struct hs_source {
	/* Reads path ("-": standard input) into acct: HS_OK or an hs_status with err set. */
	int (*read)(const char *path, struct hs_account *acct, struct hs_error *err);
	/*
	 * Whether the input can be read more than once, at once, and decoding
	 * it is cheap next to the per-vCPU work, with how many readers and how
	 * they share the vCPUs in *plan; forced: whenever it can be read more
	 * than once (plan is then left as it is).
	 */
	bool (*splittable)(const char *path, bool forced, struct hs_shard_plan *plan);
	/*
	 * Optional: work two readers of a split input do once for both
	 * (inflating a compressed trace.dat), made before they start and freed
	 * after all have ended; read_shared is read with it (NULL: alone).
	 */
	void *(*share_new)(void);
	void (*share_free)(void *share);
	int (*read_shared)(const char *path, void *share, struct hs_account *acct,
			   struct hs_error *err);
};

/* Reads path into a fresh accounting and finishes it; NULL with err set. */
struct hs_account *hs_account_load(const struct hs_source *src, const char *path,
				   const struct hs_account_opts *opts, struct hs_error *err);

/*
 * The whole read side in one call: rep is zeroed first; on success the
 * caller owns it (hs_report_free). filter and advice may be NULL.
 */
int hs_report_load(const struct hs_source *src, const char *path,
		   const struct hs_account_opts *opts, const struct hs_report_filter *filter,
		   const struct hs_advice_opts *advice, struct hs_report *rep,
		   struct hs_error *err);

#endif
