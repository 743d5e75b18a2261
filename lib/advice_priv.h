/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_ADVICE_PRIV_H
#define HS_ADVICE_PRIV_H

#include <stdio.h>

#include "report.h"

/* What lib/advice.c (the host layer) and lib/guest_advice.c (the guest layer) share. */
struct hs_adv_objective {
	const char *name;
	double lambda;			/* the price of one CPU-ns in latency-ns */
	double budget_pct;		/* default polling budget, % of one CPU per (v)CPU */
};

/* By name; balanced when unknown or NULL. */
const struct hs_adv_objective *hs_adv_objective_find(const char *name);
/* Adds a finding code once; it is about adv's layer. */
void hs_adv_finding(struct hs_advice *adv, const char *code);
/* One sentence of the advice's words into text (a line; nothing when text is NULL). */
void hs_adv_text_say(FILE *text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Lowers adv's confidence to "to" unless it is already lower. */
void hs_adv_confidence_lower(struct hs_advice *adv, const char *to);

#endif
