/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_ADVICE_MODEL_H
#define HS_ADVICE_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Which machine a finding is about. A recording can hold two layers: the
 * VMs this machine runs (kvm events; tuned by this machine's halt_poll_ns)
 * and this machine's own idle as a guest of its hypervisor (power events;
 * tuned by its guest_halt_poll_ns). A nested KVM host has both.
 */
enum hs_layer {
	HS_LAYER_HOST,			/* "host": this machine's KVM polling for its VMs */
	HS_LAYER_GUEST,			/* "guest": this machine's own idle toward its hypervisor */
};

static inline const char *hs_layer_name(enum hs_layer l)
{
	return l == HS_LAYER_GUEST ? "guest" : "host";
}

struct hs_advice {
	bool valid;
	enum hs_layer layer;		/* of the suggestion and every finding */
	uint64_t halt_poll_ns;		/* the suggestion (guest layer: guest_halt_poll_ns) */
	char objective[16];		/* latency | balanced | cpu */
	char confidence[16];		/* high | medium | low */
	double max_poll_cpu_pct;	/* the per-vCPU budget applied */
	uint64_t wake_overhead_ns;	/* estimated scheduler wake-up cost */
	char *text;			/* the explanation in words, lines separated by \n */
	char **findings;		/* short machine-readable codes, e.g. "periodic_under_window" */
	unsigned int nfindings;
};

struct hs_advice_opts {
	char objective[16];		/* latency | balanced | cpu */
	double max_poll_cpu_pct;	/* per vCPU; <= 0: objective's default */
	bool enabled;
};

void hs_advice_free(struct hs_advice *adv);

/* The objectives a suggestion is made for (lib/advice.c explains them). */
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
