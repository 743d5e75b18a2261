// SPDX-License-Identifier: GPL-2.0-only
/*
 * haltstat top: a live per-VM / per-vCPU view refreshed every interval. On a
 * terminal it takes the alternate screen in raw mode and gives both back on
 * every way out; elsewhere it prints one JSON document per interval. Signal
 * handlers only set flags; the loop below does the teardown.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../formats/render/output.h"
#include "../formats/render/top_output.h"
#include "../lib/sys/capture.h"
#include "../lib/sys/live.h"
#include "../lib/units.h"
#include "builtin.h"
#include "options.h"

#define TOP_DEFAULT_NS		1000000000ull
#define TOP_MIN_NS		10000000ull	/* 10 ms */
#define TOP_READ_NS		100000000ull	/* read the buffers at least this often */
#define TOP_MAX_KIB		(1u << 20)

enum top_sort { TOP_SORT_HALTS, TOP_SORT_HITS, TOP_SORT_CPU, TOP_SORT_P99, TOP_SORT_VM,
		TOP_NSORTS };

static const char *const top_sort_names[TOP_NSORTS] = {
	"halts", "hits", "cpu", "p99", "vm",
};

struct top_params {
	uint64_t interval_ns;
	uint64_t duration_ns;		/* 0: until q, Ctrl-C or a signal */
	unsigned long count;		/* 0: no limit */
	int pids[HS_CAPTURE_MAX_PIDS];
	struct hs_report_filter filter;
	enum top_sort sort;
	const char *textfile;		/* --textfile: Prometheus text for node_exporter */
	unsigned int buffer_kib;
};

struct top_state {
	struct hs_live *live;
	bool tty;			/* the screen view, else NDJSON */
	bool raw;			/* terminal in raw mode: restore on the way out */
	struct termios saved;
	bool quit;
	unsigned long shown;
};

static volatile sig_atomic_t top_stop, top_winch;

static void top_on_signal(int sig)
{
	if (sig == SIGWINCH)
		top_winch = 1;
	else
		top_stop = sig;
}

static void top_usage(FILE *out)
{
	fprintf(out,
"usage: haltstat top [-s SECONDS] [-d DURATION] [-n COUNT] [-p PID[,PID]] [--vm NAME|PID]\n"
"                    [--sort KEY] [--textfile FILE] [-m KIB]\n"
"\n"
"Live per-VM and per-vCPU halt polling: halts per second, poll hit rate,\n"
"polling CPU (percent of one CPU), p50/p99 halt, current window, and the guest\n"
"idle side per CPU, from a private tracefs instance (needs root).\n"
"On a terminal: a full-screen view, 'q' or Ctrl-C quits, 's' changes the sort.\n"
"Otherwise: one JSON document (haltstat.top/1) per line and interval.\n"
"\n"
"  -s, --interval SECONDS  refresh interval (default 1; 0.5, 250ms...)\n"
"  -d, --duration TIME     stop after TIME (10 = seconds, 500ms, 2m)\n"
"  -n, --count N           stop after N intervals\n"
"  -p, --pid PID[,PID]     only these VMM processes (or vCPU thread ids)\n"
"      --vm NAME|PID       only this VM (QEMU -name, process name or pid)\n"
"      --sort KEY          halts (default), hits (hit rate), cpu (polling CPU),\n"
"                          p99 or vm (name, then vCPU)\n"
"      --textfile FILE     rewrite FILE each interval (Prometheus text format,\n"
"                          for node_exporter's textfile collector), atomically;\n"
"                          --openmetrics FILE is the old name of this option\n"
"  -m, --buffer KIB        ring buffer per CPU in KiB (default 4096)\n");
	cmd_usage_options(out, CMD_USE_HELP);
	fprintf(out,
"\n"
"Exit status: 0 ok, 1 runtime error, 2 usage, 4 permission, 5 tracefs,\n"
"6 no events, 7 output not writable.\n");
}

static int top_parse_sort(const char *s, enum top_sort *sort)
{
	for (int i = 0; i < TOP_NSORTS; i++) {
		if (!strcmp(s, top_sort_names[i])) {
			*sort = (enum top_sort)i;
			return 0;
		}
	}
	return -1;
}

enum { OPT_VM = CMD_OPT_OWN, OPT_SORT, OPT_TEXTFILE };

static int top_parse_one(void *params, int c, const char *arg)
{
	struct top_params *p = params;
	uint64_t v;

	switch (c) {
	case 's':
		if (hs_parse_duration_ns(arg, &p->interval_ns) || p->interval_ns < TOP_MIN_NS)
			return cmd_usage_error("top", "bad interval '%s' (at least 10ms)", arg);
		return 0;
	case 'd':
		if (hs_parse_duration_ns(arg, &p->duration_ns) || !p->duration_ns)
			return cmd_usage_error("top", "bad duration '%s'", arg);
		return 0;
	case 'n':
		if (hs_parse_u64(arg, &v) || !v || v > 1000000000)
			return cmd_usage_error("top", "bad count '%s'", arg);
		p->count = (unsigned long)v;
		return 0;
	case 'p':
		return cmd_parse_pids("top", arg, p->pids, HS_CAPTURE_MAX_PIDS, &p->filter.npids);
	case 'm':
		if (hs_parse_u64(arg, &v) || !v || v > TOP_MAX_KIB)
			return cmd_usage_error("top", "bad buffer size '%s' (KiB, 1..%u)", arg,
					       TOP_MAX_KIB);
		p->buffer_kib = (unsigned int)v;
		return 0;
	case OPT_VM:
		return cmd_parse_vm("top", arg, &p->filter.vm);
	case OPT_SORT:
		if (top_parse_sort(arg, &p->sort))
			return cmd_usage_error("top", "bad --sort '%s' (halts, hits, cpu, p99 or vm)",
					       arg);
		return 0;
	case OPT_TEXTFILE:
		if (!arg[0])
			return cmd_usage_error("top", "empty --textfile file name");
		p->textfile = arg;
		return 0;
	default:
		return cmd_usage_error("top", "unknown option");
	}
}

/* Returns 0 to go on, -1 after --help, or an exit status > 0. */
static int top_parse_args(int argc, char **argv, struct top_params *p)
{
	static const struct option opts[] = {
		{ "interval",		required_argument,	NULL, 's' },
		{ "duration",		required_argument,	NULL, 'd' },
		{ "count",		required_argument,	NULL, 'n' },
		{ "pid",		required_argument,	NULL, 'p' },
		{ "vm",			required_argument,	NULL, OPT_VM },
		{ "sort",		required_argument,	NULL, OPT_SORT },
		{ "textfile",		required_argument,	NULL, OPT_TEXTFILE },
		/* the old name: what it writes is Prometheus text, not OpenMetrics */
		{ "openmetrics",	required_argument,	NULL, OPT_TEXTFILE },
		{ "buffer",		required_argument,	NULL, 'm' },
		CMD_OPTION_HELP,
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_parser parser = {
		"top", "s:d:n:p:m:h", opts, top_usage, top_parse_one, false,
	};

	memset(p, 0, sizeof(*p));
	p->interval_ns = TOP_DEFAULT_NS;
	p->filter.pids = p->pids;
	p->filter.vcpu = -1;
	return cmd_parse_options(&parser, p, argc, argv);
}

static void top_signals(sigset_t *orig)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGWINCH };
	struct sigaction sa;
	sigset_t blocked;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = top_on_signal;
	sigemptyset(&blocked);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&blocked, sigs[i]);
	}
	/* a reader that goes away is an output error, not a death without cleanup */
	signal(SIGPIPE, SIG_IGN);
	sigprocmask(SIG_BLOCK, &blocked, orig);
}

static void top_term_enter(struct top_state *s)
{
	struct termios raw;

	if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &s->saved) == 0) {
		raw = s->saved;
		/* keys one at a time, not echoed; Ctrl-C still raises SIGINT */
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0)
			s->raw = true;
	}
	fputs("\033[?1049h\033[?25l\033[H\033[2J", stdout);
	fflush(stdout);
}

static void top_term_leave(struct top_state *s)
{
	fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
	if (s->raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &s->saved);
	s->raw = false;
}

static int top_cmp_stats(const struct hs_halt_stats *a, const struct hs_halt_stats *b,
			 enum top_sort sort)
{
	double x, y;

	switch (sort) {
	case TOP_SORT_HITS:
		x = a->halts ? a->hit_rate : -1;
		y = b->halts ? b->hit_rate : -1;
		break;
	case TOP_SORT_CPU:
		x = (double)a->poll_ns;
		y = (double)b->poll_ns;
		break;
	case TOP_SORT_P99:
		x = a->halts ? (double)a->p99_ns : -1;
		y = b->halts ? (double)b->p99_ns : -1;
		break;
	default:
		x = (double)a->halts;
		y = (double)b->halts;
		break;
	}
	return x > y ? -1 : x < y;	/* largest first */
}

struct top_sort_ctx {
	const struct hs_report *rep;
	enum top_sort sort;
};

static int top_cmp_vcpu(const void *pa, const void *pb, void *arg)
{
	const struct top_sort_ctx *x = arg;
	const struct hs_report_vcpu *a = &x->rep->vcpus[*(const unsigned int *)pa];
	const struct hs_report_vcpu *b = &x->rep->vcpus[*(const unsigned int *)pb];
	int c = x->sort == TOP_SORT_VM ? 0 : top_cmp_stats(&a->stats, &b->stats, x->sort);

	if (!c)
		c = strcmp(a->vm, b->vm);
	if (!c && a->vcpu_index != b->vcpu_index)
		c = a->vcpu_index < b->vcpu_index ? -1 : 1;
	if (!c)
		c = a->tid < b->tid ? -1 : a->tid > b->tid;
	return c;
}

static int top_cmp_vm(const void *pa, const void *pb, void *arg)
{
	const struct top_sort_ctx *x = arg;
	const struct hs_report_vm *a = &x->rep->vms[*(const unsigned int *)pa];
	const struct hs_report_vm *b = &x->rep->vms[*(const unsigned int *)pb];
	int c = x->sort == TOP_SORT_VM ? 0 : top_cmp_stats(&a->stats, &b->stats, x->sort);

	if (!c)
		c = strcmp(a->name, b->name);
	if (!c)
		c = a->tgid < b->tgid ? -1 : a->tgid > b->tgid;
	return c;
}

/* Display orders for the vCPUs and the VMs; NULL when out of memory. */
static int top_order(const struct hs_report *rep, enum top_sort sort, unsigned int **vcpus,
		     unsigned int **vms)
{
	struct top_sort_ctx x = { rep, sort };

	*vcpus = calloc(rep->nvcpus + 1, sizeof(**vcpus));
	*vms = calloc(rep->nvms + 1, sizeof(**vms));
	if (!*vcpus || !*vms)
		return -1;
	for (unsigned int i = 0; i < rep->nvcpus; i++)
		(*vcpus)[i] = i;
	for (unsigned int i = 0; i < rep->nvms; i++)
		(*vms)[i] = i;
	qsort_r(*vcpus, rep->nvcpus, sizeof(**vcpus), top_cmp_vcpu, &x);
	qsort_r(*vms, rep->nvms, sizeof(**vms), top_cmp_vm, &x);
	return 0;
}

/*
 * Totals since start (Prometheus counters must never go down), written to a
 * temp name in the same directory, then renamed over FILE.
 */
static int top_write_textfile(struct hs_live *live, const struct top_params *p,
				 struct hs_error *err)
{
	const char *path = p->textfile;
	struct hs_report rep;
	char tmp[4200];
	FILE *f;
	int ret;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= sizeof(tmp))
		return hs_error_set(err, HS_ERR_OUTPUT, "file name too long: %s", path);
	f = fopen(tmp, "we");
	if (!f)
		return hs_error_set(err, HS_ERR_OUTPUT, "cannot write %s: %s", tmp, strerror(errno));
	memset(&rep, 0, sizeof(rep));
	ret = hs_live_total(live, &p->filter, &rep, err);
	if (ret) {
		fclose(f);
		unlink(tmp);
		hs_report_free(&rep);
		return ret;
	}
	errno = 0;
	ret = hs_report_write_prometheus(f, &rep);
	hs_report_free(&rep);
	if (fclose(f) && !ret)
		ret = HS_ERR_OUTPUT;
	if (!ret && rename(tmp, path))
		ret = HS_ERR_OUTPUT;
	if (!ret)
		return 0;
	int e = errno;

	unlink(tmp);
	return hs_error_set(err, HS_ERR_OUTPUT, "cannot write %s: %s", path,
			    e ? strerror(e) : "write error");
}

static void top_view_init(struct hs_top_view *v, const struct top_state *s,
			  const struct top_params *p, const struct hs_live_interval *info)
{
	struct timespec now;
	struct winsize ws;

	memset(v, 0, sizeof(*v));
	clock_gettime(CLOCK_REALTIME, &now);
	v->wall_ts = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
	v->interval = info->index;
	v->seconds = info->seconds;
	v->lost_events = info->lost_events;
	v->lost_total = info->lost_total;
	v->sort = top_sort_names[p->sort];
	v->nmissing = hs_live_missing(s->live, &v->missing);
	if (s->tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 1) {
		v->rows = ws.ws_row - 1u;
		v->cols = ws.ws_col;
	}
	v->color = s->tty && cmd_use_color(STDOUT_FILENO);
}

/* One interval: its report, the screen or a JSON line, the metrics file. */
static int top_tick(struct top_state *s, const struct top_params *p, struct hs_error *err)
{
	struct hs_live_interval info;
	unsigned int *vcpus = NULL, *vms = NULL;
	struct hs_top_view v;
	struct hs_report rep;
	int ret;

	memset(&rep, 0, sizeof(rep));
	ret = hs_live_interval(s->live, &p->filter, &rep, &info, err);
	if (!ret && top_order(&rep, p->sort, &vcpus, &vms))
		ret = hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	if (!ret) {
		top_view_init(&v, s, p, &info);
		v.rep = &rep;
		v.order = vcpus;
		v.vm_order = vms;
		errno = 0;
		ret = s->tty ? hs_top_write_text(stdout, &v) : hs_top_write_json(stdout, &v);
		if (ret == HS_ERR_OUTPUT && errno == EPIPE)
			s->quit = true, ret = 0;	/* the reader is gone: a normal end */
		else if (ret)
			hs_error_set(err, ret, "cannot write to standard output: %s",
				     errno ? strerror(errno) : "out of memory");
	}
	free(vcpus);
	free(vms);
	hs_report_free(&rep);
	if (!ret && p->textfile)
		ret = top_write_textfile(s->live, p, err);
	s->shown++;
	return ret;
}

/* Returns false once the keyboard is gone (end of file or error). */
static bool top_keys(struct top_state *s, struct top_params *p)
{
	char buf[64];
	ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] == 'q' || buf[i] == 'Q')
			s->quit = true;
		else if (buf[i] == 's')
			p->sort = (enum top_sort)((p->sort + 1) % TOP_NSORTS);
	}
	return n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR));
}

static uint64_t top_min(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Waits for the next interval, reading the buffers and the keyboard meanwhile. */
static int top_wait(struct top_state *s, struct top_params *p, uint64_t due,
		    const sigset_t *orig, bool *keys_on, struct hs_error *err)
{
	for (;;) {
		uint64_t now = hs_live_now_ns(), left;
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		struct timespec ts;

		if (top_stop || s->quit || now >= due)
			return 0;
		left = top_min(due - now, TOP_READ_NS);
		ts.tv_sec = (time_t)(left / 1000000000ull);
		ts.tv_nsec = (long)(left % 1000000000ull);
		if (ppoll(&pfd, *keys_on ? 1 : 0, &ts, orig) > 0 && pfd.revents) {
			if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL) || !top_keys(s, p))
				*keys_on = false;
		}
		if (top_winch) {
			top_winch = 0;
			fputs("\033[2J", stdout);
		}
		if (hs_live_read(s->live, err))
			return err->code;
	}
}

static int top_loop(struct top_state *s, struct top_params *p, const sigset_t *orig,
		    struct hs_error *err)
{
	uint64_t t0 = hs_live_now_ns(), next = t0 + p->interval_ns;
	uint64_t end = p->duration_ns ? t0 + p->duration_ns : UINT64_MAX;
	bool keys_on = s->tty && s->raw;
	int ret;

	for (;;) {
		uint64_t due = top_min(next, end);

		ret = top_wait(s, p, due, orig, &keys_on, err);
		if (ret || top_stop || s->quit)
			return ret;
		ret = top_tick(s, p, err);
		if (ret || s->quit || due == end || (p->count && s->shown >= p->count))
			return ret;
		next += p->interval_ns;
		if (next <= hs_live_now_ns())	/* we fell behind: skip, do not burst */
			next = hs_live_now_ns() + p->interval_ns;
	}
}

static void top_warn_missing(struct hs_live *l)
{
	const char *const *miss;
	unsigned int n = hs_live_missing(l, &miss);

	for (unsigned int i = 0; i < n; i++)
		fprintf(stderr, "haltstat top: warning: event %s does not exist here\n", miss[i]);
}

int cmd_top(int argc, char **argv)
{
	struct hs_live_opts lo = { 0 };
	struct top_state s = { 0 };
	struct hs_error err = { 0 };
	struct top_params p;
	sigset_t orig;
	int ret;

	ret = top_parse_args(argc, argv, &p);
	if (ret)
		return ret < 0 ? 0 : ret;
	top_signals(&orig);
	lo.buffer_kib = p.buffer_kib;
	lo.cumulative = p.textfile != NULL;
	s.tty = isatty(STDOUT_FILENO);
	ret = hs_live_start(&s.live, &lo, &err);
	if (!ret) {
		if (!s.tty)
			top_warn_missing(s.live);
		else
			top_term_enter(&s);
		ret = top_loop(&s, &p, &orig, &err);
		if (s.tty)
			top_term_leave(&s);
	}
	hs_live_destroy(s.live);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return ret ? cmd_fail(&err) : 0;
}
