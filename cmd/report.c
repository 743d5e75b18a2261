// SPDX-License-Identifier: GPL-2.0-only
/*
 * haltstat report: read a recording (haltstat's own file, a trace-cmd
 * trace.dat or pasted ftrace text), account it, and render it as text,
 * JSON or CSV. Parsing and presentation only; the numbers come from lib/.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../formats/trace/input.h"
#include "../formats/render/output.h"
#include "../lib/account.h"
#include "../lib/error.h"
#include "../lib/units.h"
#include "../lib/report.h"
#include "../lib/whatif.h"
#include "builtin.h"
#include "options.h"

#define REPORT_DEFAULT_BUCKET_NS	10000
#define REPORT_DEFAULT_ENTRIES		50
#define REPORT_MAX_ENTRIES		100000
#define REPORT_MAX_PIDS			256

enum report_format { REPORT_TEXT, REPORT_JSON, REPORT_CSV, REPORT_SVG, REPORT_OPENMETRICS,
		     REPORT_PROMETHEUS, REPORT_MARKDOWN };

static const char *const report_format_names[] = {
	[REPORT_TEXT] = "text", [REPORT_JSON] = "json", [REPORT_CSV] = "csv",
	[REPORT_SVG] = "svg", [REPORT_OPENMETRICS] = "openmetrics",
	[REPORT_PROMETHEUS] = "prometheus", [REPORT_MARKDOWN] = "markdown",
};

struct report_params {
	char *command;			/* this command line, shell-quoted (Markdown shows it) */
	const char *input;
	const char *output;		/* NULL or "-": standard output */
	const char *svg_output;		/* --svg FILE: a plot besides the report */
	enum report_format format;
	struct hs_account_opts acct;
	struct hs_report_filter filter;
	int pids[REPORT_MAX_PIDS];
	struct hs_advice_opts advice;
	struct hs_text_opts text;
	bool have_start, have_end;
};

static void report_usage(FILE *out)
{
	fprintf(out,
"usage: haltstat report [-i FILE] [-o FILE] [--json|--csv] [OPTIONS]\n"
"\n"
"Per-VM and per-vCPU halt statistics, poll hits and misses, halt-duration\n"
"histograms split by poll outcome, the guest idle side, and a suggested\n"
"halt_poll_ns, from a haltstat recording, a trace-cmd trace.dat (v6 or v7)\n"
"or pasted ftrace text (the format is told from the content).\n"
"\n"
"input and output:\n");
	cmd_usage_options(out, CMD_USE_INPUT);
	fprintf(out,
"  -o, --output FILE       write the report to FILE (default standard output)\n"
"      --json              one JSON document (schema haltstat.report/1, see\n"
"                          report.schema.json)\n"
"      --csv               one CSV row per vCPU thread, with a header row\n"
"      --format FMT        text, json, csv, svg, openmetrics (OpenMetrics 1.0),\n"
"                          prometheus (text format 0.0.4, for node_exporter's\n"
"                          textfile collector) or markdown (to paste into a\n"
"                          GitHub or GitLab issue)\n"
"      --svg FILE          also write a self-contained SVG plot to FILE\n"
"\n"
"selection:\n"
"      --pid PID[,PID...]  only these VMM processes (or vCPU thread ids)\n"
"      --vm NAME|PID       only this VM (QEMU -name, process name or pid)\n"
"      --vcpu N            only vCPU index N (from the thread name, e.g. \"CPU N/KVM\"\n"
"                          or \"fc_vcpu N\", else KVM's vcpu id)\n"
"      --start TIME        ignore events before TIME after the first event\n"
"      --end TIME          ignore events after TIME after the first event\n"
"                          (TIME: 10 = seconds, or 1.5s, 500ms, 250us, 100ns, 2m)\n"
"\n"
"histograms (text; --linear also adds linear_histogram to --json):\n"
"      --linear            linear buckets instead of log2 (default bucket 10us,\n"
"                          50 entries, plus an \"over:\" row)\n"
"      --bucket-size NS    linear bucket width in ns (or 10us, 1ms); implies --linear\n"
"      --entries N         number of linear buckets (1-%d); implies --linear\n"
"      --per-vm            one histogram per VM (the text's default; the SVG's\n"
"                          above 8 vCPU threads)\n"
"      --per-vcpu          one histogram per vCPU thread (the default with --pid,\n"
"                          --vm or --vcpu)\n"
"      --no-histograms     the table only\n"
"      --threads           also list every named thread: its process, VM and vCPU\n"
"                          index, and whether it has kvm events\n"
"\n"
"advice and what-if:\n"
"      --no-advice         do not print or compute a suggestion\n", REPORT_MAX_ENTRIES);
	cmd_usage_options(out, CMD_USE_ADVICE | CMD_USE_KERNEL_ERA);
	fputs("\n", out);
	cmd_usage_options(out, CMD_USE_HELP);
	fprintf(out,
"\n"
"Colours are used only when standard output is a terminal and NO_COLOR is unset.\n"
"Exit status: 0 success, 1 runtime error, 2 usage, 3 bad or unreadable input,\n"
"7 output not writable.\n");
}

enum {
	OPT_JSON = CMD_OPT_OWN, OPT_CSV, OPT_LINEAR, OPT_BUCKET, OPT_ENTRIES, OPT_PID, OPT_VM,
	OPT_VCPU, OPT_START, OPT_END, OPT_NO_ADVICE, OPT_NO_HIST, OPT_PER_VM, OPT_FORMAT, OPT_SVG,
	OPT_PER_VCPU, OPT_THREADS,
};

static const struct option report_options[] = {
	CMD_OPTION_INPUT,
	{ "output",		required_argument,	NULL, 'o' },
	{ "json",		no_argument,		NULL, OPT_JSON },
	{ "csv",		no_argument,		NULL, OPT_CSV },
	{ "format",		required_argument,	NULL, OPT_FORMAT },
	{ "svg",		required_argument,	NULL, OPT_SVG },
	{ "linear",		no_argument,		NULL, OPT_LINEAR },
	{ "bucket-size",	required_argument,	NULL, OPT_BUCKET },
	{ "entries",		required_argument,	NULL, OPT_ENTRIES },
	{ "pid",		required_argument,	NULL, OPT_PID },
	{ "vm",			required_argument,	NULL, OPT_VM },
	{ "vcpu",		required_argument,	NULL, OPT_VCPU },
	{ "start",		required_argument,	NULL, OPT_START },
	{ "end",		required_argument,	NULL, OPT_END },
	{ "no-advice",		no_argument,		NULL, OPT_NO_ADVICE },
	CMD_OPTION_OBJECTIVE,
	CMD_OPTION_MAX_POLL_CPU,
	CMD_OPTION_CANDIDATES,
	CMD_OPTION_KERNEL_ERA,
	{ "no-histograms",	no_argument,		NULL, OPT_NO_HIST },
	{ "per-vm",		no_argument,		NULL, OPT_PER_VM },
	{ "threads",		no_argument,		NULL, OPT_THREADS },
	{ "per-vcpu",		no_argument,		NULL, OPT_PER_VCPU },
	CMD_OPTION_HELP,
	{ NULL, 0, NULL, 0 },
};

static void report_params_init(struct report_params *p)
{
	memset(p, 0, sizeof(*p));
	p->input = CMD_DEFAULT_INPUT;
	p->format = REPORT_TEXT;
	p->filter.vcpu = -1;
	p->filter.pids = p->pids;
	cmd_advice_defaults(&p->advice);
	p->text.show_advice = true;
	p->text.show_histograms = true;
	for (unsigned int i = 0; i < hs_whatif_default_ncandidates &&
	     i < HS_WHATIF_MAX_CANDIDATES; i++)
		p->acct.whatif.candidates[p->acct.whatif.ncandidates++] =
			hs_whatif_default_candidates[i];
	cmd_whatif_defaults(&p->acct.whatif);
	/* HALTSTAT_WHATIF=off: no replay at all; make bench measures what the what-if costs */
	if (getenv("HALTSTAT_WHATIF") && !strcmp(getenv("HALTSTAT_WHATIF"), "off"))
		p->acct.no_whatif = true;
}

/* A bucket width: a plain number is ns here (unlike --start), units allowed. */
static int parse_bucket_ns(const char *s, uint64_t *ns)
{
	if (hs_parse_u64(s, ns) && hs_parse_duration_ns(s, ns))
		return -1;
	return *ns ? 0 : -1;
}

static int report_parse_linear(struct report_params *p, int opt, const char *arg)
{
	uint64_t v;

	p->text.linear = true;
	if (opt == OPT_BUCKET) {
		if (parse_bucket_ns(arg, &v))
			return cmd_usage_error("report", "bad --bucket-size '%s'", arg);
		p->acct.linear_bucket_ns = v;
	} else if (opt == OPT_ENTRIES) {
		if (hs_parse_u64(arg, &v) || v < 1 || v > REPORT_MAX_ENTRIES)
			return cmd_usage_error("report", "bad --entries '%s' (1-%d)", arg,
					       REPORT_MAX_ENTRIES);
		p->acct.linear_entries = (unsigned int)v;
	}
	return 0;
}

static int report_parse_select(struct report_params *p, int opt, const char *arg)
{
	uint64_t v;

	switch (opt) {
	case OPT_PID:
		return cmd_parse_pids("report", arg, p->pids, REPORT_MAX_PIDS, &p->filter.npids);
	case OPT_VM:
		return cmd_parse_vm("report", arg, &p->filter.vm);
	case OPT_VCPU:
		if (hs_parse_u64(arg, &v) || v > INT_MAX)
			return cmd_usage_error("report", "bad --vcpu '%s'", arg);
		p->filter.vcpu = (int)v;
		return 0;
	case OPT_START:
		if (hs_parse_duration_ns(arg, &p->acct.start_ns))
			return cmd_usage_error("report", "bad --start '%s'", arg);
		p->have_start = true;
		return 0;
	default:	/* OPT_END */
		if (hs_parse_duration_ns(arg, &p->acct.end_ns) || !p->acct.end_ns)
			return cmd_usage_error("report", "bad --end '%s'", arg);
		p->have_end = true;
		return 0;
	}
}

static int report_parse_format(struct report_params *p, int opt, const char *arg)
{
	enum report_format f = opt == OPT_JSON ? REPORT_JSON : REPORT_CSV;
	size_t n = sizeof(report_format_names) / sizeof(report_format_names[0]);

	if (opt == OPT_FORMAT) {
		for (f = 0; f < n && strcmp(arg, report_format_names[f]); f++)
			;
		if (f == n)
			return cmd_usage_error("report", "bad --format '%s' (text, json, csv, "
					       "svg, openmetrics, prometheus or markdown)", arg);
	}
	if (p->format != REPORT_TEXT && p->format != f)
		return cmd_usage_error("report", "only one output format at a time");
	p->format = f;
	return 0;
}

static int report_parse_one(void *params, int opt, const char *arg)
{
	struct report_params *p = params;

	switch (opt) {
	case 'i':
		p->input = arg;
		return 0;
	case 'o':
		p->output = arg;
		return 0;
	case OPT_JSON:
	case OPT_CSV:
	case OPT_FORMAT:
		return report_parse_format(p, opt, arg);
	case OPT_SVG:
		p->svg_output = arg;
		return 0;
	case OPT_LINEAR:
	case OPT_BUCKET:
	case OPT_ENTRIES:
		return report_parse_linear(p, opt, arg);
	case OPT_PID:
	case OPT_VM:
	case OPT_VCPU:
	case OPT_START:
	case OPT_END:
		return report_parse_select(p, opt, arg);
	case OPT_NO_ADVICE:
		p->advice.enabled = false;
		p->text.show_advice = false;
		return 0;
	case OPT_NO_HIST:
		p->text.show_histograms = false;
		return 0;
	case OPT_PER_VM:
		p->text.per_vm_histograms = true;
		return 0;
	case OPT_THREADS:
		p->filter.threads = true;
		return 0;
	case OPT_PER_VCPU:
		p->text.per_vcpu_histograms = true;
		return 0;
	default:
		return cmd_parse_whatif_option("report", opt, arg, &p->acct.whatif, &p->advice);
	}
}

/* Returns 0 to go on, -1 after --help, or an exit status > 0. */
static int report_parse_args(int argc, char **argv, struct report_params *p)
{
	static const struct cmd_parser parser = {
		"report", "i:o:h", report_options, report_usage, report_parse_one, false,
	};
	int ret;

	report_params_init(p);
	ret = cmd_parse_options(&parser, p, argc, argv);
	if (ret)
		return ret;
	if (p->have_end && p->acct.end_ns <= p->acct.start_ns)
		return cmd_usage_error("report", "--end must come after --start");
	if (p->text.per_vm_histograms && p->text.per_vcpu_histograms)
		return cmd_usage_error("report", "--per-vm and --per-vcpu exclude each other");
	/* a filter picks a few vCPUs: show each of them */
	if (!p->text.per_vm_histograms &&
	    (p->filter.npids || p->filter.vm || p->filter.vcpu >= 0))
		p->text.per_vcpu_histograms = true;
	if (p->text.linear) {
		if (!p->acct.linear_bucket_ns)
			p->acct.linear_bucket_ns = REPORT_DEFAULT_BUCKET_NS;
		if (!p->acct.linear_entries)
			p->acct.linear_entries = REPORT_DEFAULT_ENTRIES;
		if (p->acct.linear_bucket_ns > UINT64_MAX / (p->acct.linear_entries + 1))
			return cmd_usage_error("report", "--bucket-size times --entries is too large");
	}
	return 0;
}

static int report_render(FILE *out, enum report_format format, const struct hs_report *rep,
			 const struct hs_text_opts *text)
{
	switch (format) {
	case REPORT_JSON:
		return hs_report_write_json(out, rep);
	case REPORT_CSV:
		return hs_report_write_csv(out, rep);
	case REPORT_SVG:
		return hs_report_write_svg(out, rep, text);
	case REPORT_OPENMETRICS:
		return hs_report_write_openmetrics(out, rep);
	case REPORT_PROMETHEUS:
		return hs_report_write_prometheus(out, rep);
	case REPORT_MARKDOWN:
		return hs_report_write_markdown(out, rep, text);
	default:
		return hs_report_write_text(out, rep, text);
	}
}

/* Writes one rendering to path (NULL or "-": standard output). */
static int report_write(const struct report_params *p, const char *path,
			enum report_format format, const struct hs_report *rep)
{
	bool to_stdout = !path || !strcmp(path, "-");
	FILE *out = to_stdout ? stdout : fopen(path, "w");
	struct hs_text_opts text = p->text;
	struct hs_error err;
	int ret;

	if (!out) {
		hs_error_set(&err, HS_ERR_OUTPUT, "cannot write %s: %s", path, strerror(errno));
		return cmd_fail(&err);
	}
	text.color = to_stdout && cmd_use_color(STDOUT_FILENO);
	ret = report_render(out, format, rep, &text);
	if (to_stdout && fflush(out) && !ret)
		ret = HS_ERR_OUTPUT;
	if (!to_stdout && fclose(out) && !ret)
		ret = HS_ERR_OUTPUT;
	if (!ret)
		return 0;
	if (ret == HS_ERR_OUTPUT)
		hs_error_set(&err, ret, "cannot write %s: %s", to_stdout ? "standard output" :
			     path, errno ? strerror(errno) : "write error");
	else
		hs_error_set(&err, ret, "cannot render the report: out of memory");
	return cmd_fail(&err);
}

/* "haltstat ARGS...", each argument quoted for a POSIX shell where it needs it. */
static char *report_command(int argc, char **argv)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_-./:=,+@%";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputs("haltstat", f);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] && strspn(a, plain) == strlen(a)) {
			fprintf(f, " %s", a);
			continue;
		}
		fputs(" '", f);
		for (; *a; a++) {
			if (*a == '\'')
				fputs("'\\''", f);
			else
				fputc(*a, f);
		}
		fputc('\'', f);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int cmd_report(int argc, char **argv)
{
	struct report_params p;
	struct hs_report rep;
	struct hs_error err;
	int ret;

	ret = report_parse_args(argc, argv, &p);
	if (ret)
		return ret < 0 ? 0 : ret;
	p.command = report_command(argc, argv);
	p.text.command = p.command;
	hs_error_clear(&err);
	ret = hs_report_load(&hs_input_source, p.input, &p.acct, &p.filter, &p.advice, &rep, &err);
	if (ret) {
		free(p.command);
		return cmd_fail(&err);
	}
	errno = 0;
	ret = report_write(&p, p.output, p.format, &rep);
	if (!ret && p.svg_output)
		ret = report_write(&p, p.svg_output, REPORT_SVG, &rep);
	hs_report_free(&rep);
	free(p.command);
	return ret;
}
