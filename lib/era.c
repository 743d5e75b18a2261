// SPDX-License-Identifier: GPL-2.0-only
/* The kernel-era table of era.h, and what is told from a kernel release. */
#include <stdio.h>
#include <strings.h>

#include "error.h"
#include "era.h"

const struct hs_era hs_kernel_eras[HS_ERA_COUNT] = {
#define HS_ERA_ROW(id, name, major, minor, rules, max_ns, shrink, about) \
	[HS_ERA_##id] = { name, major, minor, rules, max_ns, shrink, about },
	HS_ERA_TABLE(HS_ERA_ROW)
#undef HS_ERA_ROW
};

const char *hs_kernel_era_name(enum hs_kernel_era era)
{
	if ((unsigned int)era >= HS_ERA_COUNT)
		return "?";
	return hs_kernel_eras[era].name;
}

static bool release_parse(const char *release, unsigned int *major, unsigned int *minor)
{
	return release && sscanf(release, "%u.%u", major, minor) == 2;
}

enum hs_kernel_era hs_kernel_era_from_release(const char *release)
{
	unsigned int major, minor, i;

	/* Unknown or unparsable: assume a current kernel. */
	if (!release_parse(release, &major, &minor))
		return HS_ERA_COUNT - 1;
	for (i = HS_ERA_COUNT - 1; i > 0; i--)
		if (major > hs_kernel_eras[i].since_major ||
		    (major == hs_kernel_eras[i].since_major && minor >= hs_kernel_eras[i].since_minor))
			break;
	return (enum hs_kernel_era)i;
}

int hs_kernel_era_parse(const char *name, enum hs_kernel_era *era)
{
	unsigned int a, b;

	if (!name)
		return HS_ERR_USAGE;
	for (unsigned int i = 0; i < HS_ERA_COUNT; i++) {
		if (!strcasecmp(name, hs_kernel_eras[i].name)) {
			*era = (enum hs_kernel_era)i;
			return 0;
		}
	}
	if (!release_parse(name, &a, &b))
		return HS_ERR_USAGE;
	*era = hs_kernel_era_from_release(name);
	return 0;
}

int hs_kernel_copies_halt_poll_ns(const char *release)
{
	unsigned int a, b;

	if (!release_parse(release, &a, &b))
		return -1;
	return (a == 5 && b >= 8) || (a == 6 && b == 0);
}
