// SPDX-License-Identifier: GPL-2.0-only
/*
 * haltstat advise: the what-if table and the suggested halt_poll_ns alone,
 * from a recording, a trace.dat or pasted ftrace text.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../formats/input.h"
#include "../formats/output.h"
#include "../lib/account.h"
#include "../lib/error.h"
#include "../lib/parse.h"
#include "../lib/report.h"
#include "../lib/sim.h"
#include "../lib/whatif.h"
#include "builtin.h"

#define ADVISE_DEFAULT_INPUT "haltstat.dat"

struct advise_params {
	const char *input;
	bool json;
	struct hs_account_opts acct;
	struct hs_advice_opts advice;
};

static void advise_usage(FILE *out)
{
	fprintf(out,
"usage: haltstat advise [-i FILE] [--objective O] [--max-poll-cpu P]\n"
"                       [--candidates LIST] [--kernel-era E] [--json]\n"
"\n"
"Replays KVM's adaptive halt-polling window per vCPU at each candidate\n"
"halt_poll_ns, prints the what-if table and suggests a value, with the\n"
"reasons in words and how to apply it.\n"
"\n"
"  -i, --input FILE        recording to read (default " ADVISE_DEFAULT_INPUT "; - reads stdin)\n"
"      --objective O       latency, balanced (default) or cpu\n"
"      --max-poll-cpu P    per-vCPU polling budget in percent of a CPU\n"
"                          (default: latency 50, balanced 10, cpu 2)\n"
"      --candidates LIST   halt_poll_ns values to replay, e.g. 0,50000,200000\n"
"      --kernel-era E      replay this kernel's algorithm: 4.4, 5.x, 6.1 or 6.11\n"
"                          (default: from the recorded kernel release)\n"
"      --json              the whole report as JSON (the advice block included)\n"
"  -h, --help              this help\n");
}

enum { OPT_OBJECTIVE = 256, OPT_MAX_POLL_CPU, OPT_CANDIDATES, OPT_ERA, OPT_JSON };

static const struct option advise_options[] = {
	{ "input",		required_argument,	NULL, 'i' },
	{ "objective",		required_argument,	NULL, OPT_OBJECTIVE },
	{ "max-poll-cpu",	required_argument,	NULL, OPT_MAX_POLL_CPU },
	{ "candidates",		required_argument,	NULL, OPT_CANDIDATES },
	{ "kernel-era",		required_argument,	NULL, OPT_ERA },
	{ "json",		no_argument,		NULL, OPT_JSON },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void advise_defaults(struct advise_params *p)
{
	memset(p, 0, sizeof(*p));
	p->input = ADVISE_DEFAULT_INPUT;
	snprintf(p->advice.objective, sizeof(p->advice.objective), "balanced");
	p->advice.enabled = true;
	p->acct.whatif.recorded_max_ns = -1;
	p->acct.whatif.grow = -1;
	p->acct.whatif.grow_start = -1;
	p->acct.whatif.shrink = -1;
	/* ncandidates 0: the what-if's defaults */
}

static int advise_parse_one(struct advise_params *p, int opt, const char *arg)
{
	struct hs_whatif_opts *w = &p->acct.whatif;
	char *end;
	int n;

	switch (opt) {
	case 'i':
		p->input = arg;
		return 0;
	case OPT_OBJECTIVE:
		if (strcmp(arg, "latency") && strcmp(arg, "balanced") && strcmp(arg, "cpu"))
			return cmd_usage_error("advise", "bad --objective '%s' (latency, balanced or cpu)", arg);
		snprintf(p->advice.objective, sizeof(p->advice.objective), "%s", arg);
		return 0;
	case OPT_MAX_POLL_CPU:
		errno = 0;
		p->advice.max_poll_cpu_pct = strtod(arg, &end);
		if (errno || end == arg || *end || !isfinite(p->advice.max_poll_cpu_pct) ||
		    p->advice.max_poll_cpu_pct <= 0 || p->advice.max_poll_cpu_pct > 100)
			return cmd_usage_error("advise", "bad --max-poll-cpu '%s' (a percentage above 0, at most 100)", arg);
		return 0;
	case OPT_CANDIDATES:
		n = hs_parse_u64_list(arg, w->candidates, HS_WHATIF_MAX_CANDIDATES);
		if (n <= 0)
			return cmd_usage_error("advise", "bad --candidates '%s' (at most %d comma-separated ns values)",
					       arg, HS_WHATIF_MAX_CANDIDATES);
		w->ncandidates = (unsigned int)n;
		return 0;
	case OPT_ERA:
		if (hs_kernel_era_parse(arg, &w->era))
			return cmd_usage_error("advise", "bad --kernel-era '%s' (4.4, 5.x, 6.1 or 6.11)", arg);
		w->era_forced = true;
		return 0;
	case OPT_JSON:
		p->json = true;
		return 0;
	default:
		return cmd_usage_error("advise", "unknown option");
	}
}

/* Returns 0 to go on, -1 after --help, or an exit status. */
static int advise_parse_args(int argc, char **argv, struct advise_params *p)
{
	int opt, ret;

	advise_defaults(p);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":i:h", advise_options, NULL)) != -1) {
		if (opt == 'h') {
			advise_usage(stdout);
			return -1;
		}
		if (opt == ':')
			return cmd_usage_error("advise", "option '%s' needs a value", argv[optind - 1]);
		if (opt == '?')
			return cmd_usage_error("advise", "unknown option '%s'", argv[optind - 1]);
		ret = advise_parse_one(p, opt, optarg);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return cmd_usage_error("advise", "unexpected argument '%s'", argv[optind]);
	return 0;
}

static int advise_write(const struct advise_params *p, const struct hs_report *rep)
{
	struct hs_text_opts text = { .color = cmd_use_color(STDOUT_FILENO), .show_advice = true };
	struct hs_error err;
	int ret;

	errno = 0;
	ret = p->json ? hs_report_write_json(stdout, rep) : hs_advice_write_text(stdout, rep, &text);
	if (!ret && (fflush(stdout) || ferror(stdout)))
		ret = HS_ERR_OUTPUT;
	if (!ret)
		return 0;
	hs_error_set(&err, ret, "cannot write standard output: %s",
		     errno ? strerror(errno) : "write error");
	return cmd_fail(&err);
}

int cmd_advise(int argc, char **argv)
{
	struct advise_params p;
	struct hs_report_filter filter = { .vcpu = -1 };
	struct hs_report rep;
	struct hs_error err;
	int ret;

	ret = advise_parse_args(argc, argv, &p);
	if (ret)
		return ret < 0 ? 0 : ret;
	hs_error_clear(&err);
	ret = hs_report_load(&hs_input_source, p.input, &p.acct, &filter, &p.advice, &rep, &err);
	if (ret)
		return cmd_fail(&err);
	ret = advise_write(&p, &rep);
	hs_report_free(&rep);
	return ret;
}
