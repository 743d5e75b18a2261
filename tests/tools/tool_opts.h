/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_TOOL_OPTS_H
#define HS_TOOL_OPTS_H

#include <getopt.h>

/* getopt_long rows for the test tools, whose option tables are long lists of them */
#define TOOL_ARG(name, val)	{ name, required_argument, NULL, val }
#define TOOL_FLAG(name, val)	{ name, no_argument, NULL, val }
#define TOOL_OPTS_END		{ NULL, 0, NULL, 0 }

#endif
