/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_TEXT_PAYLOAD_H
#define HS_TEXT_PAYLOAD_H

/* The event payloads of text lines, for text_read.c. */
#include <stdbool.h>

#include "../../lib/event.h"

/*
 * The payload [p, e) of an event of kind (enum hs_event_kind, one the text
 * reader keeps) into ev's union; false when it does not read as one.
 */
bool hs_txt_payload(int kind, const char *p, const char *e, struct hs_event *ev);

#endif
