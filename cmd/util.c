// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "builtin.h"

int cmd_fail(const struct hs_error *err)
{
	fprintf(stderr, "haltstat: %s\n", err->msg[0] ? err->msg : "unknown error");
	return err->code ? err->code : HS_ERR_RUNTIME;
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "haltstat %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'haltstat %s --help')\n", cmd);
	return HS_ERR_USAGE;
}

int cmd_use_color(int fd)
{
	const char *no_color = getenv("NO_COLOR");

	if (no_color && no_color[0])
		return 0;
	return isatty(fd);
}
