/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_BUILTIN_H
#define HS_BUILTIN_H

#include "../lib/error.h"

/* One per subcommand, git builtin/ style: returns the exit status. */
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_replay(int argc, char **argv);

/* Shared by the subcommands: the single place errors are printed. */
int cmd_fail(const struct hs_error *err);
int cmd_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Colour only on a TTY and never with NO_COLOR. */
int cmd_use_color(int fd);

#endif
