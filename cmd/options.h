/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_CMD_OPTIONS_H
#define HS_CMD_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "../lib/report.h"
#include "../lib/whatif.h"

/*
 * The options several commands share: their getopt rows, their parsing
 * and their --help lines, and the getopt loop itself. A command keeps its
 * own options, numbered from CMD_OPT_OWN, and its *_parse_args().
 */

#define CMD_DEFAULT_INPUT "haltstat.dat"

enum {
	CMD_OPT_OBJECTIVE = 256,
	CMD_OPT_MAX_POLL_CPU,
	CMD_OPT_CANDIDATES,
	CMD_OPT_KERNEL_ERA,
	CMD_OPT_OWN,		/* the first value free for a command's own options */
};

/* One row each (tests/t-man.sh reads the names from these lines). */
#define CMD_OPTION_INPUT	{ "input",		required_argument,	NULL, 'i' }
#define CMD_OPTION_OBJECTIVE	{ "objective",		required_argument,	NULL, CMD_OPT_OBJECTIVE }
#define CMD_OPTION_MAX_POLL_CPU	{ "max-poll-cpu",	required_argument,	NULL, CMD_OPT_MAX_POLL_CPU }
#define CMD_OPTION_CANDIDATES	{ "candidates",		required_argument,	NULL, CMD_OPT_CANDIDATES }
#define CMD_OPTION_KERNEL_ERA	{ "kernel-era",		required_argument,	NULL, CMD_OPT_KERNEL_ERA }
#define CMD_OPTION_HELP		{ "help",		no_argument,		NULL, 'h' }

/* The shared options, for cmd_usage_options(). */
enum cmd_shared_option {
	CMD_USE_INPUT = 1u << 0,	/* -i, --input FILE */
	CMD_USE_ADVICE = 1u << 1,	/* --objective, --max-poll-cpu, --candidates */
	CMD_USE_KERNEL_ERA = 1u << 2,
	CMD_USE_HELP = 1u << 3,		/* -h, --help */
};

/* Their --help lines, in the columns of every command's help. */
void cmd_usage_options(FILE *out, unsigned int which);
/* "4.4, 5.x, 6.1 or 6.11": the era names of lib/era.h. */
const char *cmd_kernel_era_choices(void);

/* haltstat help kernel-eras: the eras, one a line ("NAME<TAB>summary"). */
int cmd_help_kernel_eras(int argc, char **argv);

/* What the what-if and the advice do unless told: the recording decides. */
void cmd_whatif_defaults(struct hs_whatif_opts *w);
void cmd_advice_defaults(struct hs_advice_opts *a);

/*
 * Parses the value of a shared what-if or advice option (CMD_OPT_*) into
 * w and a. Returns 0 or, after the error message, HS_ERR_USAGE.
 */
int cmd_parse_whatif_option(const char *cmd, int opt, const char *arg,
			    struct hs_whatif_opts *w, struct hs_advice_opts *a);

/*
 * The selection options several commands share: --pid PID[,PID] into
 * pids[max] (*n set), --vm NAME (not empty). 0 or, after the message,
 * HS_ERR_USAGE.
 */
int cmd_parse_pids(const char *cmd, const char *arg, int *pids, unsigned int max, unsigned int *n);
int cmd_parse_vm(const char *cmd, const char *arg, const char **vm);

/* A command's command line: names, getopt's tables, help, one option's parser. */
struct cmd_parser {
	const char *cmd;		/* "report" */
	const char *shortopts;		/* without the leading ':'; a leading '+' stops at the first operand */
	const struct option *longopts;
	void (*usage)(FILE *out);
	int (*parse_one)(void *params, int opt, const char *arg);
	bool operands;			/* false: an argument after the options is an error */
};

/*
 * The getopt loop: -h prints the usage and returns -1; a bad option, a
 * missing value or an unexpected operand prints one line and returns
 * HS_ERR_USAGE; parse_one's non-zero return ends it. 0 when all went
 * through, with optind at the first operand.
 */
int cmd_parse_options(const struct cmd_parser *p, void *params, int argc, char **argv);

#endif
