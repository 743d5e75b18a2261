/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_TEXT_INTERNAL_H
#define HS_TEXT_INTERNAL_H

/* Streaming text reader for input.c; not a public interface. */
#include <stddef.h>

#include "../../lib/error.h"
#include "sink.h"

/* Reads fd to EOF in bounded memory; head/hlen: bytes already read from it. */
int hs_text_read_fd(int fd, const char *head, size_t hlen, struct hs_sink *sink,
		    struct hs_error *err);

#endif
