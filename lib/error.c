// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>

#include "error.h"

int hs_error_set(struct hs_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

void hs_error_clear(struct hs_error *err)
{
	if (!err)
		return;
	err->code = HS_OK;
	err->msg[0] = '\0';
}
