// SPDX-License-Identifier: GPL-2.0-only
/* The options several commands share and the getopt loop (options.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/era.h"
#include "../lib/units.h"
#include "builtin.h"
#include "options.h"

const char *cmd_kernel_era_choices(void)
{
	static char buf[256];
	size_t len = 0;

	if (buf[0])
		return buf;
	for (unsigned int i = 0; i < HS_ERA_COUNT && len < sizeof(buf); i++) {
		const char *sep = !i ? "" : i + 1 < HS_ERA_COUNT ? ", " : " or ";

		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", sep,
					hs_kernel_era_name((enum hs_kernel_era)i));
	}
	return buf;
}

/* One line an era: its name, a tab, its kernels and what sets it apart. */
int cmd_help_kernel_eras(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	for (unsigned int i = 0; i < HS_ERA_COUNT; i++) {
		const struct hs_era *e = hs_kernel_era_get((enum hs_kernel_era)i);
		const struct hs_era *next = i + 1 < HS_ERA_COUNT ? e + 1 : NULL;

		printf("%s\tkernels ", e->name);
		if (i)
			printf("from %u.%u", e->since_major, e->since_minor);
		if (next)
			printf("%sbefore %u.%u", i ? ", " : "", next->since_major, next->since_minor);
		printf(": %s\n", e->about);
	}
	return fflush(stdout) || ferror(stdout) ? HS_ERR_OUTPUT : 0;
}

void cmd_usage_options(FILE *out, unsigned int which)
{
	if (which & CMD_USE_INPUT)
		fprintf(out, "  -i, --input FILE        recording to read (default " CMD_DEFAULT_INPUT
			"; - reads stdin)\n");
	if (which & CMD_USE_ADVICE)
		fprintf(out,
"      --objective OBJ     latency, balanced (default) or cpu\n"
"      --max-poll-cpu PCT  polling budget per vCPU, percent of one CPU (0-100]\n"
"                          (default: latency 50, balanced 10, cpu 2)\n"
"      --candidates LIST   halt_poll_ns values to replay, e.g. 0,50000,200000\n");
	if (which & CMD_USE_KERNEL_ERA)
		fprintf(out,
"      --kernel-era ERA    replay this kernel's algorithm: %s\n"
"                          (default: from the recorded kernel release)\n",
			cmd_kernel_era_choices());
	if (which & CMD_USE_HELP)
		fprintf(out, "  -h, --help              this help\n");
}

void cmd_whatif_defaults(struct hs_whatif_opts *w)
{
	w->recorded_max_ns = -1;
	w->grow = -1;
	w->grow_start = -1;
	w->shrink = -1;
}

void cmd_advice_defaults(struct hs_advice_opts *a)
{
	snprintf(a->objective, sizeof(a->objective), "balanced");
	a->enabled = true;
}

static int cmd_parse_percent(const char *s, double *pct)
{
	char *end;

	errno = 0;
	*pct = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*pct) || *pct <= 0 || *pct > 100)
		return -1;
	return 0;
}

int cmd_parse_whatif_option(const char *cmd, int opt, const char *arg,
			    struct hs_whatif_opts *w, struct hs_advice_opts *a)
{
	uint64_t vals[HS_WHATIF_MAX_CANDIDATES];
	int n;

	switch (opt) {
	case CMD_OPT_OBJECTIVE:
		if (strcmp(arg, "latency") && strcmp(arg, "balanced") && strcmp(arg, "cpu"))
			return cmd_usage_error(cmd, "bad --objective '%s' (latency, balanced or cpu)",
					       arg);
		snprintf(a->objective, sizeof(a->objective), "%s", arg);
		return 0;
	case CMD_OPT_MAX_POLL_CPU:
		if (cmd_parse_percent(arg, &a->max_poll_cpu_pct))
			return cmd_usage_error(cmd, "bad --max-poll-cpu '%s' "
					       "(a percentage above 0, at most 100)", arg);
		return 0;
	case CMD_OPT_CANDIDATES:
		n = hs_parse_u64_list(arg, vals, HS_WHATIF_MAX_CANDIDATES);
		if (n <= 0)
			return cmd_usage_error(cmd, "bad --candidates '%s' (at most %d "
					       "comma-separated ns values)", arg,
					       HS_WHATIF_MAX_CANDIDATES);
		memcpy(w->candidates, vals, (size_t)n * sizeof(vals[0]));
		w->ncandidates = (unsigned int)n;
		return 0;
	case CMD_OPT_KERNEL_ERA:
		if (hs_kernel_era_parse(arg, &w->era))
			return cmd_usage_error(cmd, "bad --kernel-era '%s' (%s)", arg,
					       cmd_kernel_era_choices());
		w->era_forced = true;
		return 0;
	default:
		return cmd_usage_error(cmd, "unknown option");
	}
}

/* getopt's complaint about argv, as one line. */
static int cmd_option_error(const struct cmd_parser *p, int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		return cmd_usage_error(p->cmd, "option '%s' needs a value", arg);
	/* an unknown short option may sit inside a cluster such as -qz */
	if (optopt > 0 && optopt < 128 && !strchr(p->shortopts, optopt))
		return cmd_usage_error(p->cmd, "unknown option '-%c'", optopt);
	if (optopt)	/* --json=1 */
		return cmd_usage_error(p->cmd, "option '%.*s' takes no value",
				       (int)strcspn(arg, "="), arg);
	return cmd_usage_error(p->cmd, "unknown option '%s'", arg);
}

int cmd_parse_pids(const char *cmd, const char *arg, int *pids, unsigned int max, unsigned int *n)
{
	int got = hs_parse_pid_list(arg, pids, max);

	if (got <= 0)
		return cmd_usage_error(cmd, "bad pid list '%s'", arg);
	*n = (unsigned int)got;
	return 0;
}

int cmd_parse_vm(const char *cmd, const char *arg, const char **vm)
{
	if (!arg[0])
		return cmd_usage_error(cmd, "empty --vm");
	*vm = arg;
	return 0;
}

int cmd_parse_options(const struct cmd_parser *p, void *params, int argc, char **argv)
{
	char shortopts[64];
	int c, ret;

	/* the '+' of POSIX order must come first, the ':' of quiet errors next */
	if (p->shortopts[0] == '+')
		snprintf(shortopts, sizeof(shortopts), "+:%s", p->shortopts + 1);
	else
		snprintf(shortopts, sizeof(shortopts), ":%s", p->shortopts);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, p->longopts, NULL)) != -1) {
		if (c == 'h') {
			p->usage(stdout);
			return -1;
		}
		if (c == ':' || c == '?')
			return cmd_option_error(p, c, argv);
		ret = p->parse_one(params, c, optarg);
		if (ret)
			return ret;
	}
	if (!p->operands && optind < argc)
		return cmd_usage_error(p->cmd, "unexpected argument '%s'", argv[optind]);
	return 0;
}
