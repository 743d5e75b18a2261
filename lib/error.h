/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_ERROR_H
#define HS_ERROR_H

#include <stddef.h>

/*
 * lib/ never prints: it fills an hs_error and returns. cmd/ prints the one
 * line and exits with the code, which is also the documented exit status.
 */
enum hs_status {
	HS_OK = 0,
	HS_ERR_RUNTIME = 1,	/* anything else that went wrong */
	HS_ERR_USAGE = 2,	/* bad command line */
	HS_ERR_INPUT = 3,	/* unreadable, truncated or foreign input */
	HS_ERR_PERM = 4,	/* not root / no permission on tracefs */
	HS_ERR_TRACEFS = 5,	/* tracefs unavailable */
	HS_ERR_NO_EVENTS = 6,	/* none of the requested events exist */
	HS_ERR_OUTPUT = 7,	/* output not writable, disk full */
	HS_ERR_KVM = 8,		/* /dev/kvm missing or unusable */
	HS_ERR_COMMAND = 9,	/* the traced command could not be started */
};

struct hs_error {
	int code;		/* enum hs_status */
	char msg[512];
};

/* Sets err (when not NULL) and returns code, so callers can `return hs_error_set(...)`. */
int hs_error_set(struct hs_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void hs_error_clear(struct hs_error *err);

#endif
