// SPDX-License-Identifier: GPL-2.0-only
/*
 * haltstat advise: the what-if table and the suggested halt_poll_ns alone,
 * from a recording, a trace.dat or pasted ftrace text.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../formats/trace/input.h"
#include "../formats/render/output.h"
#include "../lib/account.h"
#include "../lib/error.h"
#include "../lib/report.h"
#include "builtin.h"
#include "options.h"

struct advise_params {
	const char *input;
	bool json;
	struct hs_account_opts acct;
	struct hs_advice_opts advice;
};

static void advise_usage(FILE *out)
{
	fprintf(out,
"usage: haltstat advise [-i FILE] [--objective OBJ] [--max-poll-cpu PCT]\n"
"                       [--candidates LIST] [--kernel-era ERA] [--json]\n"
"\n"
"Replays KVM's adaptive halt-polling window per vCPU at each candidate\n"
"halt_poll_ns, prints the what-if table and suggests a value, with the\n"
"reasons in words and how to apply it (the host layer: the VMs this\n"
"machine runs). When the recording holds this machine's own idle (power\n"
"events, cpuidle-haltpoll), the guest layer too: the haltpoll governor\n"
"replayed at each guest_halt_poll_ns and a suggestion for it.\n"
"\n");
	cmd_usage_options(out, CMD_USE_INPUT | CMD_USE_ADVICE | CMD_USE_KERNEL_ERA);
	fprintf(out, "      --json              the whole report as JSON (the advice block included)\n");
	cmd_usage_options(out, CMD_USE_HELP);
}

enum { OPT_JSON = CMD_OPT_OWN };

static const struct option advise_options[] = {
	CMD_OPTION_INPUT,
	CMD_OPTION_OBJECTIVE,
	CMD_OPTION_MAX_POLL_CPU,
	CMD_OPTION_CANDIDATES,
	CMD_OPTION_KERNEL_ERA,
	{ "json",		no_argument,		NULL, OPT_JSON },
	CMD_OPTION_HELP,
	{ NULL, 0, NULL, 0 },
};

static void advise_defaults(struct advise_params *p)
{
	memset(p, 0, sizeof(*p));
	p->input = CMD_DEFAULT_INPUT;
	cmd_advice_defaults(&p->advice);
	cmd_whatif_defaults(&p->acct.whatif);
	/* ncandidates 0: the what-if's defaults */
}

static int advise_parse_one(void *params, int opt, const char *arg)
{
	struct advise_params *p = params;

	switch (opt) {
	case 'i':
		p->input = arg;
		return 0;
	case OPT_JSON:
		p->json = true;
		return 0;
	default:
		return cmd_parse_whatif_option("advise", opt, arg, &p->acct.whatif, &p->advice);
	}
}

/* Returns 0 to go on, -1 after --help, or an exit status. */
static int advise_parse_args(int argc, char **argv, struct advise_params *p)
{
	static const struct cmd_parser parser = {
		"advise", "i:h", advise_options, advise_usage, advise_parse_one, false,
	};

	advise_defaults(p);
	return cmd_parse_options(&parser, p, argc, argv);
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
