// SPDX-License-Identifier: GPL-2.0-only
/* CPU lists and the tracefs filters of record --sched (lib/sys/vcpu_cpus.c). */
#include <stdbool.h>
#include <string.h>

#include "../../lib/sys/vcpu_cpus.h"
#include "check.h"

int main(void)
{
	bool cpus[8];
	char buf[128];

	memset(cpus, 0, sizeof(cpus));
	CHECK(hs_vcpu_cpus_parse("0-1,4\n", cpus, 8) && cpus[0] && cpus[1] && !cpus[2] &&
	      cpus[4] && !cpus[5], "vcpu_cpus_parse_ranges");
	memset(cpus, 0, sizeof(cpus));
	CHECK(hs_vcpu_cpus_parse("6-11", cpus, 8) && cpus[6] && cpus[7], "vcpu_cpus_parse_clipped");
	CHECK(!hs_vcpu_cpus_parse("1-", cpus, 8) && !hs_vcpu_cpus_parse("x", cpus, 8) &&
	      !hs_vcpu_cpus_parse("3-1", cpus, 8) && !hs_vcpu_cpus_parse("", cpus, 8),
	      "vcpu_cpus_parse_rejects");
	memset(cpus, 0, sizeof(cpus));
	cpus[0] = cpus[3] = true;
	CHECK(hs_vcpu_cpus_filter("target_cpu", cpus, 8, buf, sizeof(buf)) &&
	      !strcmp(buf, "target_cpu == 0 || target_cpu == 3"), "vcpu_cpus_filter");
	CHECK(!hs_vcpu_cpus_filter("cpu", cpus, 8, buf, 12), "vcpu_cpus_filter_too_long");
	memset(cpus, 0, sizeof(cpus));
	CHECK(!hs_vcpu_cpus_filter("cpu", cpus, 8, buf, sizeof(buf)), "vcpu_cpus_filter_none");
	return CHECK_DONE();
}
