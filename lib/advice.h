/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_ADVICE_H
#define HS_ADVICE_H

#include "advice_model.h"
#include "report.h"

/*
 * The suggestion, the stage after the model: it reads the what-if rows of a
 * built report and fills its advice. The host layer (halt_poll_ns for the
 * VMs this machine runs) fills rep->advice, each VM's that would do better
 * on its own, and each vCPU's row at the suggestion; the guest layer
 * (guest_halt_poll_ns, this machine's own idle) rep->guest_advice.
 */
void hs_advice_build(struct hs_report *rep, const struct hs_advice_opts *opts);
void hs_guest_advice_build(struct hs_report *rep, const struct hs_advice_opts *opts);

#endif
