// SPDX-License-Identifier: GPL-2.0-only
/*
 * haltstat diff A B: two recordings (before and after a change) compared per
 * VM and vCPU. Each input gets its own accounting and report; lib/diff.c
 * matches and subtracts, formats/render/diff_*.c render.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../formats/render/diff_output.h"
#include "../formats/trace/input.h"
#include "../lib/account.h"
#include "../lib/diff.h"
#include "../lib/error.h"
#include "../lib/report.h"
#include "builtin.h"
#include "options.h"

struct diff_params {
	const char *input[2];
	bool json;
};

static void diff_usage(FILE *out)
{
	fprintf(out,
"usage: haltstat diff [--json] A B\n"
"\n"
"Compares two recordings (e.g. before and after changing halt_poll_ns) per VM\n"
"and vCPU: halts/s, poll hit rate, polling CPU (time and percent of one CPU),\n"
"p50/p99 halt, mean window and window grows/shrinks/flaps per second, each\n"
"with the change B - A and the relative change, plus the host totals.\n"
"vCPUs are matched by VM name and vCPU index, else by thread id, else by\n"
"their order within the same VM; those found on one side only are listed.\n"
"A and B are anything 'haltstat report' reads (- for stdin, once).\n"
"\n"
"      --json              one JSON document (schema haltstat.diff/1, see\n"
"                          diff.schema.json)\n");
	cmd_usage_options(out, CMD_USE_HELP);
	fprintf(out,
"\n"
"Exit status: 0 success, 1 runtime error, 2 usage, 3 bad or unreadable input,\n"
"7 output not writable.\n");
}

enum { OPT_JSON = CMD_OPT_OWN };

static int diff_parse_one(void *params, int opt, const char *arg)
{
	struct diff_params *p = params;

	(void)arg;
	if (opt != OPT_JSON)
		return cmd_usage_error("diff", "unknown option");
	p->json = true;
	return 0;
}

/* Returns 0 to go on, -1 after --help, or an exit status > 0. */
static int diff_parse_args(int argc, char **argv, struct diff_params *p)
{
	static const struct option opts[] = {
		{ "json",	no_argument,	NULL, OPT_JSON },
		CMD_OPTION_HELP,
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_parser parser = {
		"diff", "h", opts, diff_usage, diff_parse_one, true,
	};
	int ret;

	memset(p, 0, sizeof(*p));
	ret = cmd_parse_options(&parser, p, argc, argv);
	if (ret)
		return ret;
	if (argc - optind != 2)
		return cmd_usage_error("diff", "want two recordings, A and B (see --help)");
	p->input[0] = argv[optind];
	p->input[1] = argv[optind + 1];
	if (!strcmp(p->input[0], "-") && !strcmp(p->input[1], "-"))
		return cmd_usage_error("diff", "only one of A and B can be standard input");
	return 0;
}

/*
 * One input into its own report, without advice: the what-if runs one
 * candidate only, for what its self-check infers, the maximum each VM had
 * in force (a VMM may set its own).
 */
static int diff_load(const char *path, struct hs_report *rep, struct hs_error *err)
{
	struct hs_account_opts ao = { .no_whatif = false };
	struct hs_report_filter all = { .vcpu = -1 };

	cmd_whatif_defaults(&ao.whatif);
	ao.whatif.ncandidates = 1;

	return hs_report_load(&hs_input_source, path, &ao, &all, NULL, rep, err);
}

int cmd_diff(int argc, char **argv)
{
	struct hs_report rep[2];
	struct diff_params p;
	struct hs_error err;
	struct hs_diff d;
	int ret;

	ret = diff_parse_args(argc, argv, &p);
	if (ret)
		return ret < 0 ? 0 : ret;
	hs_error_clear(&err);
	memset(rep, 0, sizeof(rep));
	memset(&d, 0, sizeof(d));
	ret = diff_load(p.input[0], &rep[0], &err);
	if (!ret)
		ret = diff_load(p.input[1], &rep[1], &err);
	if (!ret)
		ret = hs_diff_build(&d, &rep[0], &rep[1], &err);
	if (!ret) {
		errno = 0;
		ret = p.json ? hs_diff_write_json(stdout, &d) :
		      hs_diff_write_text(stdout, &d, cmd_use_color(STDOUT_FILENO));
		if (fflush(stdout) && !ret)
			ret = HS_ERR_OUTPUT;
		if (ret)
			hs_error_set(&err, ret, "cannot write the diff: %s",
				     errno ? strerror(errno) : "out of memory");
	}
	hs_diff_free(&d);
	hs_report_free(&rep[0]);
	hs_report_free(&rep[1]);
	return ret ? cmd_fail(&err) : 0;
}
