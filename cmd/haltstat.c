// SPDX-License-Identifier: GPL-2.0-only
/*
 * haltstat: per-VM and per-vCPU KVM halt-polling analysis.
 * The dispatcher knows the table of subcommands and nothing else.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "options.h"

struct cmd_entry {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct cmd_entry commands[] = {
	{ "record", cmd_record, "capture KVM halt events into a trace.dat file" },
	{ "report", cmd_report, "analyse a recording, a trace.dat or pasted ftrace text" },
	{ "advise", cmd_advise, "what-if table and a suggested halt_poll_ns" },
	{ "diff", cmd_diff, "compare two recordings per VM and vCPU" },
	{ "top", cmd_top, "live per-VM and per-vCPU halt-polling view" },
	{ "replay", cmd_replay, "replay a recording in throwaway VMs: predicted vs measured" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* haltstat help TOPIC, besides the commands */
static const struct cmd_entry help_topics[] = {
	{ "kernel-eras", cmd_help_kernel_eras, "the kernel eras --kernel-era takes" },
};

static void haltstat_usage(FILE *out)
{
	fprintf(out, "usage: haltstat [--version] [--help] COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "  %-8s %s\n", "help", "show a command's usage");
	for (size_t i = 0; i < sizeof(help_topics) / sizeof(help_topics[0]); i++)
		fprintf(out, "  %-8s help %s: %s\n", "", help_topics[i].name, help_topics[i].summary);
	fprintf(out, "\nSee 'haltstat COMMAND --help' and haltstat(1). Exit status: 0 success, "
		"1 runtime error, 2 usage, 3 bad input, 4 permission, 5 tracefs,\n"
		"6 no events, 7 output, 8 KVM, 9 command failed to start.\n");
}

static const struct cmd_entry *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct cmd_entry *cmd;

	if (argc < 2) {
		haltstat_usage(stderr);
		return HS_ERR_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		haltstat_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("haltstat %s\n", HS_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			haltstat_usage(stdout);
			return 0;
		}
		for (size_t i = 0; i < sizeof(help_topics) / sizeof(help_topics[0]); i++)
			if (!strcmp(argv[2], help_topics[i].name))
				return help_topics[i].fn(argc - 2, argv + 2);
		cmd = find_command(argv[2]);
		if (!cmd)
			return cmd_usage_error("help", "unknown command '%s'", argv[2]);
		char *help_argv[] = { argv[2], "--help", NULL };
		return cmd->fn(2, help_argv);
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		fprintf(stderr, "haltstat: '%s' is not a haltstat command (see 'haltstat --help')\n",
			argv[1]);
		return HS_ERR_USAGE;
	}
	return cmd->fn(argc - 1, argv + 1);
}
