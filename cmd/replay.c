// SPDX-License-Identifier: GPL-2.0-only
/*
 * haltstat replay: replays a recording's times to wake in throwaway VMs at
 * each setting and prints the what-if's prediction next to what KVM did.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/trace/input.h"
#include "../formats/render/replay_out.h"
#include "../lib/account.h"
#include "../lib/error.h"
#include "../lib/sys/workload.h"
#include "../lib/units.h"
#include "../lib/sys/replay.h"
#include "../lib/whatif.h"
#include "builtin.h"
#include "options.h"

struct replay_params {
	const char *input;
	bool json;
	bool predict_only;
	uint64_t max_halts;
	struct hs_replay_opts replay;
	struct hs_account_opts acct;
};

static void replay_usage(FILE *out)
{
	fprintf(out,
"usage: haltstat replay [-i FILE] [--settings LIST] [--runs N] [--max-halts N]\n"
"                       [--max-vcpus N] [--pin | --no-pin] [--kernel-era ERA]\n"
"                       [--no-handovers] [--predict-only] [--json]\n"
"\n"
"Replays each recorded vCPU's times to wake in a throwaway VM (needs /dev/kvm)\n"
"at each halt_poll_ns through KVM_CAP_HALT_POLL, and prints the what-if's\n"
"predicted hit rate and polling CPU next to the ones KVM measured.\n"
"\n");
	cmd_usage_options(out, CMD_USE_INPUT);
	fprintf(out,
"      --settings LIST     halt_poll_ns values, e.g. 0,50000,200000\n"
"                          (default: the recorded one, 50000, 200000, 400000)\n"
"      --runs N            runs per setting (default %d, at most %d)\n"
"      --max-halts N       halts replayed per vCPU, the first ones (default %d)\n"
"      --max-vcpus N       VMs at most (default: one per CPU)\n"
"      --pin, --no-pin     pin the waker and the vCPUs apart (default: pin with >= 2 CPUs)\n",
		HS_REPLAY_DEFAULT_RUNS, HS_REPLAY_MAX_RUNS, HS_REPLAY_DEFAULT_MAX_HALTS);
	cmd_usage_options(out, CMD_USE_KERNEL_ERA);
	fprintf(out,
"      --no-handovers      do not count the halts in which another task took the\n"
"                          vCPU's CPU (counting needs tracefs)\n"
"      --predict-only      no VMs: the predictions alone\n"
"      --json              JSON output\n");
	cmd_usage_options(out, CMD_USE_HELP);
}

enum {
	OPT_SETTINGS = CMD_OPT_OWN, OPT_RUNS, OPT_MAX_HALTS, OPT_MAX_VCPUS, OPT_PIN, OPT_NO_PIN,
	OPT_PREDICT_ONLY, OPT_JSON, OPT_NO_HANDOVERS,
};

static const struct option replay_options[] = {
	CMD_OPTION_INPUT,
	{ "settings",		required_argument,	NULL, OPT_SETTINGS },
	{ "runs",		required_argument,	NULL, OPT_RUNS },
	{ "max-halts",		required_argument,	NULL, OPT_MAX_HALTS },
	{ "max-vcpus",		required_argument,	NULL, OPT_MAX_VCPUS },
	{ "pin",		no_argument,		NULL, OPT_PIN },
	{ "no-pin",		no_argument,		NULL, OPT_NO_PIN },
	CMD_OPTION_KERNEL_ERA,
	{ "no-handovers",	no_argument,		NULL, OPT_NO_HANDOVERS },
	{ "predict-only",	no_argument,		NULL, OPT_PREDICT_ONLY },
	{ "json",		no_argument,		NULL, OPT_JSON },
	CMD_OPTION_HELP,
	{ NULL, 0, NULL, 0 },
};

static void replay_defaults(struct replay_params *p)
{
	memset(p, 0, sizeof(*p));
	p->input = CMD_DEFAULT_INPUT;
	p->max_halts = HS_REPLAY_DEFAULT_MAX_HALTS;
	p->replay.runs = HS_REPLAY_DEFAULT_RUNS;
	p->replay.pin = -1;
	cmd_whatif_defaults(&p->acct.whatif);
}

static int replay_parse_settings(struct replay_params *p, const char *arg)
{
	int n = hs_parse_u64_list(arg, p->replay.settings, HS_REPLAY_MAX_SETTINGS);

	if (n <= 0)
		return cmd_usage_error("replay", "bad --settings '%s' (at most %d comma-separated ns values)",
				       arg, HS_REPLAY_MAX_SETTINGS);
	for (int i = 0; i < n; i++)
		if (p->replay.settings[i] > UINT32_MAX)
			return cmd_usage_error("replay", "--settings: %llu is above KVM_CAP_HALT_POLL's 2^32-1",
					       (unsigned long long)p->replay.settings[i]);
	p->replay.nsettings = (unsigned int)n;
	return 0;
}

static int replay_parse_count(const char *opt, const char *arg, uint64_t max, uint64_t *v)
{
	if (hs_parse_u64(arg, v) || !*v || *v > max)
		return cmd_usage_error("replay", "bad --%s '%s' (1 to %llu)", opt, arg,
				       (unsigned long long)max);
	return 0;
}

static int replay_parse_one(void *params, int opt, const char *arg)
{
	struct replay_params *p = params;
	uint64_t v = 0;
	int ret;

	switch (opt) {
	case 'i': p->input = arg; return 0;
	case OPT_SETTINGS: return replay_parse_settings(p, arg);
	case OPT_RUNS:
		ret = replay_parse_count("runs", arg, HS_REPLAY_MAX_RUNS, &v);
		p->replay.runs = (unsigned int)v;
		return ret;
	case OPT_MAX_HALTS:
		return replay_parse_count("max-halts", arg, HS_REPLAY_MAX_HALTS, &p->max_halts);
	case OPT_MAX_VCPUS:
		ret = replay_parse_count("max-vcpus", arg, HS_REPLAY_MAX_VCPUS, &v);
		p->replay.max_vcpus = (unsigned int)v;
		return ret;
	case OPT_PIN: p->replay.pin = 1; return 0;
	case OPT_NO_PIN: p->replay.pin = 0; return 0;
	case OPT_PREDICT_ONLY: p->predict_only = true; return 0;
	case OPT_NO_HANDOVERS: p->replay.no_handovers = true; return 0;
	case OPT_JSON: p->json = true; return 0;
	default: return cmd_parse_whatif_option("replay", opt, arg, &p->acct.whatif, NULL);
	}
}

/* Returns 0 to go on, -1 after --help, or an exit status. */
static int replay_parse_args(int argc, char **argv, struct replay_params *p)
{
	static const struct cmd_parser parser = {
		"replay", "i:h", replay_options, replay_usage, replay_parse_one, false,
	};
	int ret;

	replay_defaults(p);
	ret = cmd_parse_options(&parser, p, argc, argv);
	if (ret)
		return ret;
	/* the accounting's own what-if table is not shown: one row keeps it cheap */
	p->acct.whatif.ncandidates = 1;
	p->acct.whatif.keep_gaps = p->max_halts;
	return 0;
}

static int replay_write(const struct replay_params *p, const struct hs_replay *r)
{
	struct hs_error err;
	int ret;

	errno = 0;
	ret = p->json ? hs_replay_write_json(stdout, r, p->input) :
		hs_replay_write_text(stdout, r, p->input, NULL);
	if (!ret)
		return 0;
	hs_error_set(&err, ret, "cannot write standard output: %s",
		     errno ? strerror(errno) : "write error");
	return cmd_fail(&err);
}

static volatile sig_atomic_t replay_stop;

static void replay_on_signal(int sig)
{
	replay_stop = sig;
}

/*
 * Ctrl-C, SIGTERM and SIGHUP end the run in progress (its VMs and the
 * hand-over instance go away) instead of the process: no SA_RESTART, so
 * sleeps and KVM_RUN return and the waker sees the flag.
 */
static void replay_signals(struct replay_params *p)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = replay_on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	p->replay.interrupted = &replay_stop;
}

int cmd_replay(int argc, char **argv)
{
	struct replay_params p;
	struct hs_account *acct;
	struct hs_replay r;
	struct hs_error err;
	int ret;

	ret = replay_parse_args(argc, argv, &p);
	if (ret)
		return ret < 0 ? 0 : ret;
	hs_error_clear(&err);
	/* before reading a long recording: without KVM there is nothing to do */
	if (!p.predict_only && hs_workload_check(&err))
		return cmd_fail(&err);
	acct = hs_account_load(&hs_input_source, p.input, &p.acct, &err);
	if (!acct)
		return cmd_fail(&err);
	if (!p.predict_only)
		replay_signals(&p);
	ret = hs_replay_prepare(&r, acct, &p.replay, &err);
	if (!ret && !p.predict_only)
		ret = hs_replay_run(&r, &err);
	if (ret && replay_stop)
		hs_error_set(&err, HS_ERR_RUNTIME, "interrupted by signal %d: the VMs were torn down "
			     "and tracing is as it was", (int)replay_stop);
	if (ret)
		ret = cmd_fail(&err);
	else
		ret = replay_write(&p, &r);
	hs_replay_free(&r);
	hs_account_free(acct);
	return ret;
}
