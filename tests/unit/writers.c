// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON, CSV and text writers on hs_report structs built by hand (no
 * reader or accounting involved): required JSON fields and types, empty
 * buckets omitted, bucket bounds, null for unknown losses and non-finite
 * numbers, clamping above INT64_MAX, CSV quoting, and text rows and labels.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../../formats/render/output.h"
#include "../../lib/meta.h"
#include "check.h"

#define IDX_1000NS	10	/* 1000 is in [512, 1024) */
#define IDX_300US	19	/* 300000 is in [262144, 524288) */

static struct hs_report_vcpu vcpus[2];
static struct hs_report_vm vms[1];
static struct hs_report_guest_cpu guest[1];
static char warn_lost[] = "lost 10 events (1.00%): results may be inaccurate";
static char warn_nokvm[] = "no kvm event formats in the input: kvm was not loaded";
static char *warnings[2];
static char advice_text[] = "Set halt_poll_ns to 50000.\nSecond line.";
static char finding0[] = "periodic_under_window";
static char *findings[] = { finding0 };

static void stats_fill(struct hs_halt_stats *s)
{
	*s = (struct hs_halt_stats){
		.halts = 7, .poll_hits = 4, .waits = 3, .poll_misses = 2, .nopoll_waits = 1,
		.sum_ns = 4 * 1000 + 3 * 300000, .max_ns = 300000,
		.mean_ns = (4 * 1000 + 3 * 300000) / 7.0,
		.p50_ns = 1000, .p90_ns = 300000, .p99_ns = 300000, .p999_ns = 300000,
		.hit_rate = 4.0 / 7, .poll_ns = 4 * 1000 + 2 * 200000, .halts_per_s = 3.5,
		.grows = 5, .shrinks = 4, .flaps = 3,
		.window_mean_ns = 123456.5, .window_last_ns = 200000,
	};
}

static void whatif_fill(struct hs_whatif_row *w, unsigned int *n)
{
	w[0] = (struct hs_whatif_row){ .halt_poll_ns = 0, .halts = 7 };
	/* poll_cpu_pct NAN must come out as null */
	w[1] = (struct hs_whatif_row){ .halt_poll_ns = 200000, .halts = 7, .hits = 4,
				       .hit_rate = 4.0 / 7, .poll_cpu_s = 0.000404,
				       .poll_cpu_pct = NAN };
	*n = 2;
}

static void report_fill(struct hs_report *r, bool lost_known)
{
	memset(r, 0, sizeof(*r));
	memset(vcpus, 0, sizeof(vcpus));
	memset(vms, 0, sizeof(vms));
	memset(guest, 0, sizeof(guest));
	hs_meta_init(&r->meta);
	snprintf(r->meta.source, sizeof(r->meta.source), "test.dat");
	snprintf(r->meta.format, sizeof(r->meta.format), "haltstat");
	snprintf(r->meta.cpuidle_driver, sizeof(r->meta.cpuidle_driver), "haltpoll");
	/* the model names the states (lib/report.c): the writers print its names */
	snprintf(r->idle_state_name[0], sizeof(r->idle_state_name[0]), "POLL");
	snprintf(r->idle_state_name[1], sizeof(r->idle_state_name[1]), "haltpoll idle");
	r->meta.halt_poll_ns = 200000;
	r->meta.lost_known = lost_known;
	r->meta.lost_events = lost_known ? 10 : 0;
	r->lost_pct = lost_known ? 1.0 : -1;
	r->duration_s = 2.0;
	r->events_total = 1000;
	r->events_wakeup = 7;

	/* vCPU 0: a VM name that needs CSV quoting, 1 zero-length and 3 short hits, 3 long waits */
	vcpus[0].tid = 6020;
	vcpus[0].tgid = 6000;
	snprintf(vcpus[0].comm, sizeof(vcpus[0].comm), "CPU 0/KVM");
	snprintf(vcpus[0].vm, sizeof(vcpus[0].vm), "vm,\"one\"");
	vcpus[0].vcpu_index = 0;
	vcpus[0].vcpu_id = 0;
	stats_fill(&vcpus[0].stats);
	vcpus[0].log2.poll[0] = 1;
	vcpus[0].log2.poll[IDX_1000NS] = 3;
	vcpus[0].log2.wait[IDX_300US] = 3;
	whatif_fill(vcpus[0].what_if, &vcpus[0].n_what_if);
	vcpus[0].selfcheck.agree_pct = -1;

	/* vCPU 1: one absurd halt in the top bucket, NaN and inf rates */
	vcpus[1].tid = 6021;
	vcpus[1].tgid = 6000;
	snprintf(vcpus[1].comm, sizeof(vcpus[1].comm), "CPU 1/KVM");
	snprintf(vcpus[1].vm, sizeof(vcpus[1].vm), "vm,\"one\"");
	vcpus[1].vcpu_index = 1;
	vcpus[1].vcpu_id = -1;
	vcpus[1].stats.halts = 1;
	vcpus[1].stats.waits = 1;
	vcpus[1].stats.sum_ns = UINT64_MAX;
	vcpus[1].stats.min_ns = UINT64_MAX;
	vcpus[1].stats.max_ns = UINT64_MAX;
	vcpus[1].stats.mean_ns = INFINITY;
	vcpus[1].stats.hit_rate = NAN;
	vcpus[1].stats.window_last_ns = -1;
	vcpus[1].stats.window_mean_ns = -1;
	vcpus[1].log2.wait[HS_LOG2_BUCKETS - 1] = 1;
	vcpus[1].selfcheck.agree_pct = 100;

	r->vcpus = vcpus;
	r->nvcpus = 2;
	vms[0].tgid = 6000;
	snprintf(vms[0].name, sizeof(vms[0].name), "vm,\"one\"");
	snprintf(vms[0].comm, sizeof(vms[0].comm), "qemu-system-x86");
	vms[0].nvcpus = 2;
	stats_fill(&vms[0].stats);
	for (unsigned int b = 0; b < HS_LOG2_BUCKETS; b++) {
		vms[0].log2.poll[b] = vcpus[0].log2.poll[b] + vcpus[1].log2.poll[b];
		vms[0].log2.wait[b] = vcpus[0].log2.wait[b] + vcpus[1].log2.wait[b];
	}
	r->vms = vms;
	r->nvms = 1;
	stats_fill(&r->host);
	whatif_fill(r->host_what_if, &r->n_host_what_if);

	guest[0].cpu = 0;
	guest[0].entries[0] = 5;
	guest[0].residency_ns[0] = 50000;
	guest[0].entries[1] = 2;
	guest[0].residency_ns[1] = 1500000000;
	guest[0].poll_hits = 3;
	guest[0].poll_misses = 2;
	guest[0].window_mean_ns = -1;
	guest[0].window_last_ns = -1;
	r->guest = guest;
	r->nguest = 1;

	warnings[0] = warn_lost;
	r->warnings = warnings;
	r->nwarnings = lost_known ? 1 : 0;
}

static void advice_fill(struct hs_report *r)
{
	r->advice.valid = true;
	r->advice.halt_poll_ns = 50000;
	snprintf(r->advice.objective, sizeof(r->advice.objective), "balanced");
	snprintf(r->advice.confidence, sizeof(r->advice.confidence), "medium");
	r->advice.max_poll_cpu_pct = 10;
	r->advice.text = advice_text;
	r->advice.findings = findings;
	r->advice.nfindings = 1;
}

typedef int (*writer_fn)(FILE *out, const struct hs_report *rep, const void *arg);

static char *render(writer_fn fn, const struct hs_report *rep, const void *arg, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	*ret = fn(f, rep, arg);
	if (fclose(f))
		*ret = -1;
	return buf;
}

static int w_json(FILE *out, const struct hs_report *rep, const void *arg)
{
	(void)arg;
	return hs_report_write_json(out, rep);
}

static int w_csv(FILE *out, const struct hs_report *rep, const void *arg)
{
	(void)arg;
	return hs_report_write_csv(out, rep);
}

static int w_text(FILE *out, const struct hs_report *rep, const void *arg)
{
	return hs_report_write_text(out, rep, arg);
}

static int w_markdown(FILE *out, const struct hs_report *rep, const void *arg)
{
	return hs_report_write_markdown(out, rep, arg);
}

static json_t *render_json(const struct hs_report *rep)
{
	json_error_t jerr;
	int ret = -1;
	char *s = render(w_json, rep, NULL, &ret);
	json_t *root;

	CHECK(s && ret == 0, "json_write_ok");
	if (!s)
		return NULL;
	CHECK(!strstr(s, ": nan") && !strstr(s, ": -nan") && !strstr(s, ": inf") &&
	      !strstr(s, ": -inf") && !strstr(s, "NaN") && !strstr(s, "Infinity"),
	      "json_no_nan_inf");
	root = json_loads(s, 0, &jerr);
	if (!root)
		printf("# json_loads: %s at line %d\n", jerr.text, jerr.line);
	free(s);
	return root;
}

static const char *sv(json_t *v)
{
	const char *s = json_string_value(v);

	return s ? s : "";
}

static bool is_int(json_t *o, const char *key)
{
	return json_is_integer(json_object_get(o, key));
}

static long long geti(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* Every bucket: non-empty, [0,1) or [2^k, 2^(k+1)) up to the clamp, ascending. */
static void check_histogram(json_t *hist, uint64_t want_poll, uint64_t want_wait, const char *name)
{
	char label[96];
	bool bounds = true, nonempty = true, order = true;
	long long prev_hi = 0, poll = 0, wait = 0;
	size_t i;
	json_t *b;

	json_array_foreach(hist, i, b) {
		long long lo = geti(b, "lo_ns"), hi = geti(b, "hi_ns");
		long long p = geti(b, "poll"), w = geti(b, "wait");

		if (!is_int(b, "lo_ns") || !is_int(b, "hi_ns") || !is_int(b, "poll") ||
		    !is_int(b, "wait") || json_object_size(b) != 4)
			bounds = false;
		if (lo == 0 ? hi != 1 :
		    lo == INT64_MAX ? hi != INT64_MAX :
		    (lo & (lo - 1)) || (hi != 2 * lo && !(lo == 1LL << 62 && hi == INT64_MAX)))
			bounds = false;
		if (!p && !w)
			nonempty = false;
		if (i && lo < prev_hi)
			order = false;
		prev_hi = hi;
		poll += p;
		wait += w;
	}
	snprintf(label, sizeof(label), "%s_bucket_bounds", name);
	CHECK(bounds, label);
	snprintf(label, sizeof(label), "%s_empty_buckets_omitted", name);
	CHECK(nonempty, label);
	snprintf(label, sizeof(label), "%s_buckets_ascending", name);
	CHECK(order, label);
	snprintf(label, sizeof(label), "%s_poll_sum", name);
	CHECK_EQ_U64(poll, want_poll, label);
	snprintf(label, sizeof(label), "%s_wait_sum", name);
	CHECK_EQ_U64(wait, want_wait, label);
}

static void check_json_vcpu0(json_t *v)
{
	json_t *t = json_object_get(v, "halt_ns"), *h = json_object_get(v, "histogram");
	json_t *w = json_object_get(v, "what_if"), *b;
	static const char *const tkeys[] = { "sum", "min", "max", "p50", "p90", "p99" };
	bool tok = json_is_object(t);

	CHECK_EQ_U64(geti(v, "tid"), 6020, "json_vcpu_tid");
	CHECK(!strcmp(sv(json_object_get(v, "comm")), "CPU 0/KVM"),
	      "json_vcpu_comm");
	CHECK(!strcmp(sv(json_object_get(v, "vm")), "vm,\"one\""),
	      "json_vcpu_vm");
	CHECK(is_int(v, "halts") && geti(v, "halts") == 7, "json_vcpu_halts");
	CHECK(is_int(v, "poll_hits") && geti(v, "poll_hits") == 4, "json_vcpu_poll_hits");
	CHECK(is_int(v, "waits") && geti(v, "waits") == 3, "json_vcpu_waits");
	CHECK(is_int(v, "invalid") && geti(v, "invalid") == 0, "json_vcpu_invalid");
	for (size_t i = 0; tok && i < sizeof(tkeys) / sizeof(tkeys[0]); i++)
		tok = is_int(t, tkeys[i]);
	CHECK(tok, "json_vcpu_halt_ns_keys");
	CHECK_EQ_U64(geti(t, "sum"), 904000, "json_vcpu_halt_ns_sum");
	CHECK_EQ_U64(geti(t, "p99"), 300000, "json_vcpu_halt_ns_p99");
	CHECK_EQ_U64(json_array_size(h), 3, "json_vcpu_histogram_size");
	check_histogram(h, 4, 3, "json_vcpu0");
	b = json_array_get(h, 1);
	CHECK(geti(b, "lo_ns") == 512 && geti(b, "hi_ns") == 1024 && geti(b, "poll") == 3,
	      "json_vcpu_bucket_512");
	b = json_array_get(h, 2);
	CHECK(geti(b, "lo_ns") == 262144 && geti(b, "hi_ns") == 524288 && geti(b, "wait") == 3,
	      "json_vcpu_bucket_262144");
	CHECK(json_array_size(w) == 2 && is_int(json_array_get(w, 1), "halt_poll_ns") &&
	      json_is_number(json_object_get(json_array_get(w, 1), "hit_rate")) &&
	      json_is_number(json_object_get(json_array_get(w, 1), "poll_cpu_s")),
	      "json_vcpu_what_if");
	CHECK(json_is_null(json_object_get(json_array_get(w, 1), "poll_cpu_pct")),
	      "json_nan_is_null");
	CHECK(json_is_null(json_object_get(json_object_get(v, "selfcheck"), "agree_pct")),
	      "json_unknown_agree_null");
}

static void check_json_vcpu1(json_t *v)
{
	json_t *t = json_object_get(v, "halt_ns"), *h = json_object_get(v, "histogram");

	CHECK(geti(t, "max") == INT64_MAX && geti(t, "sum") == INT64_MAX, "json_u64_clamped");
	CHECK(json_is_null(json_object_get(v, "hit_rate")), "json_nan_rate_null");
	CHECK(json_is_null(json_object_get(t, "mean")), "json_inf_mean_null");
	CHECK(json_is_null(json_object_get(v, "vcpu_id")), "json_unknown_vcpu_id_null");
	CHECK(json_is_null(json_object_get(json_object_get(v, "window"), "last_ns")),
	      "json_unknown_window_null");
	CHECK_EQ_U64(json_array_size(h), 1, "json_top_bucket_only");
	check_histogram(h, 0, 1, "json_vcpu1");
}

static void test_json(void)
{
	struct hs_report r;
	json_t *root, *adv;

	report_fill(&r, false);
	root = render_json(&r);
	CHECK(root != NULL, "json_parses");
	if (!root)
		return;
	CHECK(!strcmp(sv(json_object_get(root, "schema")),
		      "haltstat.report/1"), "json_schema_name");
	CHECK(json_is_null(json_object_get(root, "lost_events")), "json_lost_unknown_null");
	CHECK(json_is_null(json_object_get(root, "advice")), "json_no_advice_null");
	CHECK_EQ_U64(json_array_size(json_object_get(root, "vcpus")), 2, "json_vcpus_size");
	check_json_vcpu0(json_array_get(json_object_get(root, "vcpus"), 0));
	check_json_vcpu1(json_array_get(json_object_get(root, "vcpus"), 1));
	CHECK(json_is_null(json_object_get(json_object_get(root, "params"), "halt_poll_ns_grow")),
	      "json_unknown_param_null");
	CHECK_EQ_U64(geti(json_object_get(root, "params"), "halt_poll_ns"), 200000,
		     "json_param_halt_poll_ns");
	json_decref(root);

	report_fill(&r, true);
	advice_fill(&r);
	root = render_json(&r);
	if (!root)
		return;
	CHECK(is_int(root, "lost_events") && geti(root, "lost_events") == 10, "json_lost_known");
	adv = json_object_get(root, "advice");
	CHECK(json_is_object(adv) && geti(adv, "halt_poll_ns") == 50000, "json_advice_value");
	CHECK(!strcmp(sv(json_object_get(adv, "objective")), "balanced"),
	      "json_advice_objective");
	CHECK(json_array_size(json_object_get(adv, "what_if")) == 2, "json_advice_what_if");
	CHECK(!strcmp(sv(json_object_get(adv, "text")), advice_text),
	      "json_advice_text");
	CHECK(!strcmp(sv(json_array_get(json_object_get(adv, "findings"), 0)),
		      finding0), "json_advice_findings");
	CHECK_EQ_U64(json_array_size(json_object_get(root, "warnings")), 1, "json_warnings");
	json_decref(root);

	/* lost_events 0 is a known zero, not null */
	report_fill(&r, true);
	r.meta.lost_events = 0;
	root = render_json(&r);
	if (root)
		CHECK(is_int(root, "lost_events") && geti(root, "lost_events") == 0, "json_lost_zero");
	json_decref(root);
}

static void test_json_bad_utf8(void)
{
	struct hs_report r;
	json_t *root;

	report_fill(&r, true);
	/* invalid UTF-8 and a comm filling its array without a NUL */
	memset(vcpus[0].comm, 'A', sizeof(vcpus[0].comm));
	vcpus[1].comm[0] = (char)0xff;
	vcpus[1].comm[1] = '\0';
	root = render_json(&r);
	CHECK(root != NULL, "json_bad_names_parse");
	if (!root)
		return;
	CHECK_EQ_U64(strlen(sv(json_object_get(json_array_get(
		json_object_get(root, "vcpus"), 0), "comm"))), 64, "json_comm_bounded");
	CHECK(!strcmp(sv(json_object_get(json_array_get(
		json_object_get(root, "vcpus"), 1), "comm")), "?"), "json_comm_utf8_replaced");
	json_decref(root);
}

static void test_csv(void)
{
	struct hs_report r;
	int ret = -1, lines = 0;
	char *s, *row;

	report_fill(&r, true);
	s = render(w_csv, &r, NULL, &ret);
	CHECK(s && ret == 0, "csv_write_ok");
	if (!s)
		return;
	for (char *p = s; *p; p++)
		lines += *p == '\n';
	CHECK_EQ_U64(lines, 3, "csv_rows");
	CHECK(!strncmp(s, "vm,vcpu_index,tid,tgid,comm,halts,poll_hits,waits,", 50), "csv_header");
	row = strchr(s, '\n') + 1;
	CHECK(!strncmp(row, "\"vm,\"\"one\"\"\",0,6020,6000,CPU 0/KVM,7,4,3,2,1,0,0,0.571429,",
		       56), "csv_quoting_and_counts");
	row = strchr(row, '\n') + 1;
	/* NaN hit rate and unknown window: empty fields, never "nan" */
	CHECK(!strstr(row, "nan") && !strstr(row, "inf") && strstr(row, ",1,0,1,0,0,0,0,,"),
	      "csv_unknown_empty");
	free(s);
}

static int count_str(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void test_text(void)
{
	struct hs_text_opts o = { .show_histograms = true, .per_vcpu_histograms = true };
	struct hs_report r;
	int ret = -1;
	char *s;

	report_fill(&r, true);
	s = render(w_text, &r, &o, &ret);
	CHECK(s && ret == 0, "text_write_ok");
	if (!s)
		return;
	CHECK(strstr(s, "CPU 0/KVM") && strstr(s, " 6020 "), "text_vcpu_row");
	CHECK(strstr(s, "(host total)") && strstr(s, "(VM total)"), "text_total_rows");
	CHECK(strstr(s, "57.1"), "text_hit_pct");
	CHECK(strstr(s, "512ns -> 1.02us :          3          0"), "text_log2_row");
	CHECK(strstr(s, "262us -> 524us :          0          3"), "text_log2_wait_row");
	CHECK(strstr(s, "0 -> 1ns :          1          0"), "text_zero_row");
	CHECK(strstr(s, "warning: lost 10 events (1.00%)"), "text_lost_warning");
	CHECK(strstr(s, "POLL") && strstr(s, "haltpoll idle"), "text_guest_states");
	CHECK(!strchr(s, '\033'), "text_no_colour");
	CHECK(strstr(s, "count:") && strstr(s, "max:"), "text_rtla_footer");
	free(s);

	o.color = true;
	s = render(w_text, &r, &o, &ret);
	CHECK(s && strstr(s, "\033[31mwarning: lost"), "text_colour_red_lost");
	free(s);
}

/* The default: a histogram per VM, none per vCPU; the table in the model's order. */
static void test_text_per_vm(void)
{
	struct hs_text_opts o = { .show_histograms = true };
	unsigned int vm_order[] = { 0 }, vcpu_order[] = { 1, 0 };
	struct hs_report r;
	int ret = -1;
	char *s, *a, *b;

	report_fill(&r, true);
	s = render(w_text, &r, &o, &ret);
	CHECK(s && ret == 0, "text_per_vm_ok");
	if (!s)
		return;
	CHECK(strstr(s, "VM vm,\"one\" (pid 6000, 2 vCPUs): halt duration") &&
	      !strstr(s, "vCPU 0 of"), "text_per_vm_default");
	/* the VM's own sums, not one vCPU's */
	CHECK(strstr(s, "512ns -> 1.02us :          3          0") &&
	      strstr(s, "262us -> 524us :          0          3"), "text_per_vm_rows");
	/* one VM: no host histogram that would repeat it */
	CHECK(!strstr(s, "ALL: every vCPU"), "text_per_vm_no_host_copy");
	free(s);
	r.vm_order = vm_order;
	r.vcpu_order = vcpu_order;
	s = render(w_text, &r, &o, &ret);
	a = s ? strstr(s, " 6021 ") : NULL;
	b = s ? strstr(s, " 6020 ") : NULL;
	CHECK(a && b && a < b, "text_table_follows_order");
	free(s);
}

/* Markdown: non-finite numbers never printed, names escaped, the command kept. */
static void test_markdown(void)
{
	struct hs_text_opts o = { .show_histograms = true, .show_advice = true,
				  .command = "haltstat report --format markdown" };
	struct hs_report r;
	int ret = -1;
	char *s;

	report_fill(&r, true);
	advice_fill(&r);
	snprintf(vcpus[1].vm, sizeof(vcpus[1].vm), "a|b*c<d>`e");
	s = render(w_markdown, &r, &o, &ret);
	CHECK(s && ret == 0, "md_write_ok");
	if (!s)
		return;
	CHECK(!strstr(s, "nan") && !strstr(s, "inf"), "md_finite");
	CHECK(strstr(s, "| a\\|b\\*c\\<d\\>\\`e | 1 | 6021 | 1 |") != NULL, "md_name_escaped");
	CHECK(strstr(s, "| vm,\"one\" | 0 | 6020 | 7 | 3.5 | 57.1 |") != NULL, "md_row");
	CHECK(strstr(s, "#### Suggestion: `halt_poll_ns=50000`") != NULL, "md_suggestion");
	CHECK(strstr(s, "```sh\nhaltstat report --format markdown\n```\n") != NULL, "md_command");
	CHECK(strstr(s, "```text\n") && strstr(s, "ns range (log2)"), "md_histogram_block");
	CHECK(!strchr(s, '\033'), "md_no_colour");
	free(s);
}

static void test_text_linear(void)
{
	struct hs_text_opts o = { .show_histograms = true, .linear = true,
				  .per_vcpu_histograms = true };
	uint64_t poll[4] = { 4, 0, 0, 0 }, wait[4] = { 0, 0, 1, 2 };
	uint64_t vm_poll[4] = { 8, 0, 0, 0 }, vm_wait[4] = { 0, 0, 2, 4 };
	struct hs_report r;
	int ret = -1;
	char *s;

	report_fill(&r, true);
	for (unsigned int i = 0; i < 2; i++) {
		vcpus[i].linear.bucket_ns = 10000;
		vcpus[i].linear.entries = 3;
		vcpus[i].linear.poll = poll;
		vcpus[i].linear.wait = wait;
	}
	s = render(w_text, &r, &o, &ret);
	CHECK(s && ret == 0, "text_linear_ok");
	if (!s)
		return;
	CHECK(strstr(s, "0 -> 10.0us :          4          0"), "text_linear_first");
	CHECK(strstr(s, "over: >= 30.0us :          0          2"), "text_linear_over");
	free(s);
	/* per VM: the model's sum (lib/report.c adds the vCPUs' tables up) */
	o.per_vcpu_histograms = false;
	vms[0].linear.bucket_ns = 10000;
	vms[0].linear.entries = 3;
	vms[0].linear.poll = vm_poll;
	vms[0].linear.wait = vm_wait;
	s = render(w_text, &r, &o, &ret);
	CHECK(s && strstr(s, "over: >= 30.0us :          0          4") &&
	      strstr(s, "0 -> 10.0us :          8          0"), "text_linear_per_vm");
	free(s);
}

static void test_text_no_kvm(void)
{
	struct hs_text_opts o = { .show_histograms = true };
	struct hs_report r;
	int ret = -1;
	char *s;

	report_fill(&r, false);
	r.nvcpus = 0;
	r.nvms = 0;
	r.events_wakeup = 0;
	warnings[0] = warn_nokvm;
	r.nwarnings = 1;
	r.kvm = HS_KVM_ABSENT;
	r.kvm_note = warnings[0];
	s = render(w_text, &r, &o, &ret);
	CHECK(s && ret == 0, "text_nokvm_ok");
	if (!s)
		return;
	CHECK_EQ_U64(count_str(s, warn_nokvm), 1, "text_nokvm_once");
	CHECK(strstr(s, "haltpoll idle") && strstr(s, "guest halt polling"), "text_nokvm_guest");
	CHECK(strstr(s, "lost events: unknown"), "text_lost_unknown");
	free(s);
}

int main(void)
{
	test_json();
	test_json_bad_utf8();
	test_csv();
	test_text();
	test_text_per_vm();
	test_markdown();
	test_text_linear();
	test_text_no_kvm();
	return CHECK_DONE();
}
