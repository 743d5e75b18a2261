// SPDX-License-Identifier: GPL-2.0-only
/*
 * haltstat replay's writers with measured figures (the path a machine
 * without /dev/kvm never reaches end to end): the JSON carries the numbers
 * given, the text shows predicted next to measured and says n/a without
 * KVM statistics.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../formats/render/replay_out.h"
#include "check.h"

static struct hs_replay_vcpu vcpus[2] = {
	{ .tid = 101, .comm = "CPU 0/KVM", .halts_recorded = 9000, .ngaps = 5000,
	  .gaps_sum_ns = 1200000000, .wake_overhead_ns = 20000, .cpu = 0 },
	{ .tid = 102, .comm = "CPU 1/\xff", .halts_recorded = 4000, .ngaps = 4000,
	  .gaps_sum_ns = 900000000, .wake_overhead_ns = 21000, .cpu = 1 },
};
static struct hs_replay_figures cells[2 * 2], totals[2];

static void fill(struct hs_replay *r, bool stats)
{
	memset(r, 0, sizeof(*r));
	r->opts.runs = 3;
	r->settings[0] = 50000;
	r->settings[1] = 200000;
	r->nsettings = 2;
	r->recorded_ns = 200000;
	snprintf(r->era, sizeof(r->era), "6.11");
	r->vcpus = vcpus;
	r->nvcpus = 2;
	r->vcpus_capped = 1;
	r->pinned = true;
	r->waker_cpu = 2;
	r->cells = cells;
	r->totals = totals;
	r->seconds = 12.5;
	r->ran = true;
	for (unsigned int i = 0; i < 6; i++) {
		struct hs_replay_figures *f = i < 4 ? &cells[i] : &totals[i - 4];

		memset(f, 0, sizeof(*f));
		f->halts = f->halts_measured = 1000 * (i + 1);
		f->pred_hits = 100 * (i + 1);
		f->pred_hit_rate = 0.1;
		f->pred_hit_rate_low = 0.08;
		f->pred_hit_rate_high = 0.13;
		f->runs_inside = i < 2 ? 3 : 1;
		f->pred_poll_cpu_s = 0.25;
		f->measured = stats;
		f->hit_rate = (struct hs_replay_spread){ .mean = 0.125, .min = 0.1, .max = 0.15 };
		f->poll_cpu_s = (struct hs_replay_spread){ .mean = 0.5, .min = 0.4, .max = 0.6 };
		f->vcpu_cpu_s = (struct hs_replay_spread){ .mean = 1.5, .min = 1.25, .max = 1.75 };
		/* hand-overs known for the totals only, as when vCPUs share CPUs */
		f->handovers_known = i >= 4;
		f->handover_share = (struct hs_replay_spread){ .mean = 0.0125, .min = 0.01,
							       .max = 0.015 };
		/* steal known for every cell (the vCPUs are pinned) */
		f->steal_known = true;
		f->steal_share = (struct hs_replay_spread){ .mean = 0.004, .min = 0.003, .max = 0.005 };
	}
	r->handovers_counted = true;
}

static char *render(const struct hs_replay *r, bool json, const char *prefix)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	if (!f)
		return NULL;
	ret = json ? hs_replay_write_json(f, r, "x.dat") : hs_replay_write_text(f, r, "x.dat", prefix);
	fclose(f);
	if (ret) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void test_json(void)
{
	struct hs_replay r;
	json_error_t e;
	json_t *root, *s1, *m;
	char *out;

	fill(&r, true);
	out = render(&r, true, NULL);
	CHECK(out != NULL, "json_written");
	root = out ? json_loads(out, 0, &e) : NULL;
	CHECK(root != NULL, "json_parses");
	s1 = json_array_get(json_object_get(root, "settings"), 1);
	m = json_object_get(json_object_get(s1, "total"), "measured");
	CHECK_EQ_U64(json_integer_value(json_object_get(s1, "halt_poll_ns")), 200000, "json_setting");
	CHECK(json_real_value(json_object_get(json_object_get(m, "hit_rate"), "mean")) == 0.125,
	      "json_measured_hit_rate");
	CHECK(json_real_value(json_object_get(json_object_get(m, "vcpu_cpu_s"), "max")) == 1.75,
	      "json_vcpu_cpu_max");
	CHECK(json_real_value(json_object_get(json_object_get(m, "steal_share"), "max")) == 0.005,
	      "json_steal_share");
	CHECK(json_real_value(json_object_get(json_object_get(m, "handover_share"), "mean")) == 0.0125 &&
	      json_is_true(json_object_get(root, "handovers_counted")), "json_handover_share");
	CHECK(json_is_null(json_object_get(json_object_get(json_array_get(json_object_get(s1, "vcpus"), 0),
							   "measured"), "handover_share")),
	      "json_handovers_unattributed");
	CHECK_EQ_U64(json_integer_value(json_object_get(json_object_get(json_object_get(s1, "total"),
				"predicted"), "hits")), 600, "json_predicted_hits");
	CHECK(!strcmp(json_string_value(json_object_get(json_array_get(json_object_get(root, "vcpus"), 1),
				"comm")), "CPU 1/?"), "json_comm_not_utf8");
	json_decref(root);
	free(out);
	fill(&r, false);
	out = render(&r, true, NULL);
	root = out ? json_loads(out, 0, &e) : NULL;
	m = json_object_get(json_object_get(json_array_get(json_object_get(root, "settings"), 0),
					    "total"), "measured");
	CHECK(json_is_null(json_object_get(m, "hit_rate")) &&
	      json_is_object(json_object_get(m, "vcpu_cpu_s")), "json_no_kvm_stats_null");
	json_decref(root);
	free(out);
}

static void test_text(void)
{
	struct hs_replay r;
	char *out;

	fill(&r, true);
	out = render(&r, false, "# ");
	CHECK(out && strstr(out, "     50000  all       5000     10.0    8.0-13.0  12.5 (10.0..15.0)"),
	      "text_total_row");
	CHECK(out && strstr(out, "hit% measured (min..max) other% steal% inside") &&
	      strstr(out, " partly "), "text_inside");
	CHECK(out && strstr(out, "12.5 (10.0..15.0)           1.2    0.4 partly") &&
	      strstr(out, "12.5 (10.0..15.0)             ?    0.4 yes"), "text_other_share");
	CHECK(out && !strstr(out, "hand-overs not counted"), "text_handovers_counted");
	CHECK(out && strstr(out, "0.5000 (0.4000..0.6000)") && strstr(out, "1.5000 (1.2500..1.7500)"),
	      "text_cpu_columns");
	CHECK(out && strstr(out, "# capped: 1 vCPU had more halts"), "text_capped");
	CHECK(out && !strstr(out, "\n\n") && !strncmp(out, "# replay of x.dat: 2 vCPUs", 26),
	      "text_every_line_prefixed");
	free(out);
	fill(&r, false);
	out = render(&r, false, NULL);
	CHECK(out && strstr(out, "n/a") && strstr(out, "KVM_GET_STATS_FD"), "text_no_kvm_stats");
	free(out);
	fill(&r, true);
	r.handovers_counted = false;
	snprintf(r.handovers_why, sizeof(r.handovers_why), "no tracefs here");
	out = render(&r, false, NULL);
	CHECK(out && strstr(out, "hand-overs not counted (no tracefs here)"), "text_handovers_why");
	free(out);
}

int main(void)
{
	test_json();
	test_text();
	return CHECK_DONE();
}
