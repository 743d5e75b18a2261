// SPDX-License-Identifier: GPL-2.0-only
/* The report model's own upkeep: its warnings, and freeing it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

void hs_report_warn(struct hs_report *rep, const char *fmt, ...)
{
	char **w;
	char *s;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	/* a warning that does not fit in memory is dropped, not fatal */
	if (n < 0)
		return;
	w = realloc(rep->warnings, (rep->nwarnings + 1) * sizeof(*w));
	if (!w) {
		free(s);
		return;
	}
	rep->warnings = w;
	rep->warnings[rep->nwarnings++] = s;
}

void hs_report_free(struct hs_report *rep)
{
	unsigned int i;

	for (i = 0; i < rep->nvcpus; i++) {
		free(rep->vcpus[i].hist);
		free(rep->vcpus[i].linear.poll);
		free(rep->vcpus[i].linear.wait);
	}
	free(rep->vcpus);
	for (i = 0; i < rep->nvms; i++) {
		hs_advice_free(&rep->vms[i].advice);
		free(rep->vms[i].linear.poll);
		free(rep->vms[i].linear.wait);
	}
	free(rep->vms);
	free(rep->vm_order);
	free(rep->vcpu_order);
	hs_advice_free(&rep->advice);
	hs_advice_free(&rep->guest_advice);
	free(rep->guest);
	free(rep->threads);
	for (i = 0; i < rep->nwarnings; i++)
		free(rep->warnings[i]);
	free(rep->warnings);
	memset(rep, 0, sizeof(*rep));
}
