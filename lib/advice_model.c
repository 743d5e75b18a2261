// SPDX-License-Identifier: GPL-2.0-only
/* The advice as the report holds it, and what both layers' builders fill it with. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advice_model.h"

static const struct hs_adv_objective hs_adv_objectives[] = {
	{ "latency", 0.02, 50 },
	{ "balanced", 0.2, 10 },
	{ "cpu", 1.0, 2 },
};

const struct hs_adv_objective *hs_adv_objective_find(const char *name)
{
	for (size_t i = 0; i < sizeof(hs_adv_objectives) / sizeof(hs_adv_objectives[0]); i++)
		if (name && !strcmp(name, hs_adv_objectives[i].name))
			return &hs_adv_objectives[i];
	return &hs_adv_objectives[1];
}

void hs_adv_finding(struct hs_advice *adv, const char *code)
{
	char **f, *s;

	for (unsigned int i = 0; i < adv->nfindings; i++)
		if (!strcmp(adv->findings[i], code))
			return;
	s = strdup(code);
	f = realloc(adv->findings, sizeof(*f) * (adv->nfindings + 1));
	if (!s || !f) {
		free(s);
		if (f)
			adv->findings = f;
		return;
	}
	adv->findings = f;
	adv->findings[adv->nfindings++] = s;
}

void hs_adv_text_say(FILE *text, const char *fmt, ...)
{
	va_list ap;

	if (!text)
		return;
	va_start(ap, fmt);
	vfprintf(text, fmt, ap);
	va_end(ap);
	fputc('\n', text);
}

void hs_adv_confidence_lower(struct hs_advice *adv, const char *to)
{
	static const char *const order[] = { "high", "medium", "low" };
	int cur = 0, want = 0;

	for (int i = 0; i < 3; i++) {
		if (!strcmp(adv->confidence, order[i]))
			cur = i;
		if (!strcmp(to, order[i]))
			want = i;
	}
	if (want > cur)
		snprintf(adv->confidence, sizeof(adv->confidence), "%s", order[want]);
}

void hs_advice_free(struct hs_advice *adv)
{
	if (!adv)
		return;
	for (unsigned int i = 0; i < adv->nfindings; i++)
		free(adv->findings[i]);
	free(adv->findings);
	free(adv->text);
	memset(adv, 0, sizeof(*adv));
}

