// SPDX-License-Identifier: GPL-2.0-only
/*
 * haltstat record: options, signals, the traced command and the summary.
 * Signal handlers only set flags; this file's main loop does the teardown.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../formats/trace/recmeta.h"
#include "../formats/trace/tracedat_record.h"
#include "../lib/sys/capture.h"
#include "../lib/evdecode.h"
#include "../lib/units.h"
#include "../lib/sys/sysinfo.h"
#include "../lib/sys/vcpu_cpus.h"
#include "builtin.h"
#include "options.h"

/* 8 MiB per CPU at buffer_percent 10 holds several seconds of 100k events/s. */
#define RECORD_DEFAULT_KIB	8192
#define RECORD_MAX_KIB		(4u << 20)

struct record_params {
	const char *output;
	uint64_t duration_ns;		/* 0: until Ctrl-C or the command ends */
	int pids[HS_CAPTURE_MAX_PIDS];
	unsigned int npids;
	bool host, guest;
	bool sched;			/* who else runs on the vCPUs' CPUs (--no-sched: not) */
	bool sched_asked;		/* --sched given: say how far the events reach */
	char sched_filter[2][4096];	/* sched_switch's, and sched_wakeup's and sched_waking's; "" none */
	const char *extra[HS_CAPTURE_MAX_EVENTS];
	unsigned int nextra;
	unsigned int buffer_kib;
	char **command;			/* NULL-terminated, or NULL */
};

static volatile sig_atomic_t record_sigint, record_sigterm, record_sigchld;

static void record_on_signal(int sig)
{
	if (sig == SIGINT)
		record_sigint = record_sigint + 1;
	else if (sig == SIGCHLD)
		record_sigchld = 1;
	else
		record_sigterm = 1;
}

static void record_usage(FILE *out)
{
	fprintf(out,
		"usage: haltstat record [-o FILE] [-d DURATION] [-p PID[,PID]] [--host] [--guest]\n"
		"                       [--no-sched] [-e SYSTEM:EVENT]... [-m KIB] [-- COMMAND [ARGS]]\n"
		"\n"
		"Records KVM halt-polling events into a trace.dat (v6) that 'haltstat report'\n"
		"and 'trace-cmd report' read, through a private tracefs instance.\n"
		"\n"
		"  -o, --output FILE      output file (default haltstat.dat)\n"
		"  -d, --duration TIME    stop after TIME (10 = seconds, 500ms, 2m, 1h)\n"
		"  -p, --pid PID[,PID]    only the threads of these VMM processes\n"
		"      --host             host events: kvm:kvm_vcpu_wakeup, kvm:kvm_halt_poll_ns\n"
		"      --guest            guest events: power:cpu_idle, power:guest_halt_poll_ns\n"
		"                         (default: both, whichever exist here)\n"
		"      --no-sched         leave out sched:sched_switch, sched_wakeup and\n"
		"                         sched_waking, recorded by default on the CPUs the vCPU\n"
		"                         threads may run on: without them report and advise\n"
		"                         cannot tell when another task cut a poll short (polling\n"
		"                         CPU is then an upper bound) nor each wait's time to wake\n"
		"  -e, --event SYS:EVENT  also record this event (repeatable; must exist)\n"
		"  -m, --buffer KIB       ring buffer per CPU in KiB (default %u)\n"
		"  -h, --help             this help\n"
		"\n"
		"Recording stops at the end of TIME, when COMMAND exits, or on Ctrl-C\n"
		"(with COMMAND: when it exits after Ctrl-C; press Ctrl-C twice to abort\n"
		"without saving).\n"
		"Exit status: 0 ok, 2 usage, 4 permission, 5 tracefs, 6 no events,\n"
		"7 output not writable or disk full, 9 COMMAND could not be started.\n",
		RECORD_DEFAULT_KIB);
}

enum { OPT_HOST = CMD_OPT_OWN, OPT_GUEST, OPT_SCHED, OPT_NO_SCHED };

static const struct option record_options[] = {
	{ "output",	required_argument,	NULL, 'o' },
	{ "duration",	required_argument,	NULL, 'd' },
	{ "pid",	required_argument,	NULL, 'p' },
	{ "host",	no_argument,		NULL, OPT_HOST },
	{ "guest",	no_argument,		NULL, OPT_GUEST },
	{ "event",	required_argument,	NULL, 'e' },
	{ "buffer",	required_argument,	NULL, 'm' },
	{ "sched",	no_argument,		NULL, OPT_SCHED },
	{ "no-sched",	no_argument,		NULL, OPT_NO_SCHED },
	CMD_OPTION_HELP,
	{ NULL, 0, NULL, 0 },
};

static int record_parse_event(struct record_params *p, const char *arg)
{
	static const char name_chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:";

	if (p->nextra >= HS_CAPTURE_MAX_EVENTS - 4)
		return cmd_usage_error("record", "too many -e events");
	if (!strchr(arg, ':') || arg[strspn(arg, name_chars)])
		return cmd_usage_error("record", "bad event '%s' (want SYSTEM:EVENT)", arg);
	p->extra[p->nextra++] = arg;
	return 0;
}

static int record_parse_one(void *params, int opt, const char *arg)
{
	struct record_params *p = params;
	uint64_t v;

	switch (opt) {
	case 'o':
		if (!arg[0])
			return cmd_usage_error("record", "empty output file name");
		p->output = arg;
		return 0;
	case 'd':
		if (hs_parse_duration_ns(arg, &p->duration_ns) || !p->duration_ns)
			return cmd_usage_error("record", "bad duration '%s'", arg);
		return 0;
	case 'p':
		return cmd_parse_pids("record", arg, p->pids, HS_CAPTURE_MAX_PIDS, &p->npids);
	case OPT_HOST:
		p->host = true;
		return 0;
	case OPT_GUEST:
		p->guest = true;
		return 0;
	case OPT_SCHED:
		p->sched = p->sched_asked = true;
		return 0;
	case OPT_NO_SCHED:
		p->sched = false;
		return 0;
	case 'e':
		return record_parse_event(p, arg);
	case 'm':
		if (hs_parse_u64(arg, &v) || !v || v > RECORD_MAX_KIB)
			return cmd_usage_error("record", "bad buffer size '%s' (KiB, 1..%u)",
					       arg, RECORD_MAX_KIB);
		p->buffer_kib = (unsigned int)v;
		return 0;
	}
	return cmd_usage_error("record", "unknown option");
}

static int record_parse_args(int argc, char **argv, struct record_params *p)
{
	/* '+': COMMAND's own options are COMMAND's */
	static const struct cmd_parser parser = {
		.cmd = "record", .shortopts = "+o:d:p:e:m:h", .longopts = record_options,
		.usage = record_usage, .parse_one = record_parse_one, .operands = true,
	};
	int ret;

	memset(p, 0, sizeof(*p));
	p->output = "haltstat.dat";
	p->buffer_kib = RECORD_DEFAULT_KIB;
	p->sched = true;
	ret = cmd_parse_options(&parser, p, argc, argv);
	if (ret)
		return ret;
	if (!p->host && !p->guest)
		p->host = p->guest = true;
	if (optind < argc)
		p->command = argv + optind;
	return 0;
}

static unsigned int record_events(const struct record_params *p, const char **ev, bool *req,
				  const char **filter)
{
	unsigned int n = 0;

	for (int k = HS_EV_VCPU_WAKEUP; k <= HS_EV_ANALYSED_LAST; k++) {
		if (hs_ev_host_side(k) ? !p->host : !p->guest)
			continue;
		if (hs_ev_sched(k) && !p->sched)
			continue;
		filter[n] = NULL;
		if (hs_ev_sched(k)) {
			const char *f = p->sched_filter[k != HS_EV_SCHED_SWITCH];

			filter[n] = f[0] ? f : NULL;
		}
		ev[n] = hs_ev_full_name(k);
		req[n++] = hs_ev_sched(k);
	}
	for (unsigned int i = 0; i < p->nextra; i++) {
		unsigned int k = 0;

		/* -e of an event recorded anyway (sched_switch, now the default) adds nothing */
		while (k < n && strcmp(ev[k], p->extra[i]))
			k++;
		if (k < n)
			continue;
		ev[n] = p->extra[i];
		req[n] = true;
		filter[n++] = NULL;
	}
	return n;
}

/*
 * The scheduler's events only where vCPU threads may run (they are
 * many on a busy host). sched_switch is logged on the CPU that switches,
 * sched_wakeup and sched_waking on the waker's, naming the wakee's
 * target_cpu. No filter when the vCPUs may run anywhere, or when there is
 * no vCPU yet.
 */
static void record_sched_filters(struct record_params *p)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	unsigned int ncpus = n > 0 && n < 65536 ? (unsigned int)n : 1, set = 0;
	bool *cpus = calloc(ncpus, sizeof(*cpus));
	int threads;

	p->sched_filter[0][0] = p->sched_filter[1][0] = '\0';
	if (!cpus)
		return;
	threads = hs_vcpu_cpus(p->pids, p->npids, cpus, ncpus);
	for (unsigned int i = 0; i < ncpus; i++)
		set += cpus[i];
	if (!threads && p->sched_asked)
		fprintf(stderr, "haltstat record: no vCPU thread yet; scheduler events "
			"are recorded on every CPU\n");
	else if (set < ncpus &&
		 (!hs_vcpu_cpus_filter("cpu", cpus, ncpus, p->sched_filter[0],
				       sizeof(p->sched_filter[0])) ||
		  !hs_vcpu_cpus_filter("target_cpu", cpus, ncpus, p->sched_filter[1],
				       sizeof(p->sched_filter[1]))))
		p->sched_filter[0][0] = p->sched_filter[1][0] = '\0';
	if (p->npids)
		fprintf(stderr, "haltstat record: with --pid the kernel keeps only the "
			"scheduler events that involve those processes' threads, so other tasks "
			"are seen only around them (--no-sched leaves them out)\n");
	free(cpus);
}

static void record_signals(sigset_t *blocked, sigset_t *orig)
{
	struct sigaction sa;
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = record_on_signal;
	sigemptyset(blocked);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(blocked, sigs[i]);
	}
	sigprocmask(SIG_BLOCK, blocked, orig);
}

/* Starts COMMAND; an exec failure comes back through a close-on-exec pipe. */
static pid_t record_spawn(char **argv, const sigset_t *orig, struct hs_error *err)
{
	int pfd[2], e = 0;
	pid_t pid;
	ssize_t r;

	if (pipe2(pfd, O_CLOEXEC))
		return hs_error_set(err, HS_ERR_COMMAND, "cannot start '%s': %s", argv[0],
				    strerror(errno)), -1;
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
		sigprocmask(SIG_SETMASK, orig, NULL);
		signal(SIGCHLD, SIG_DFL);
		execvp(argv[0], argv);
		e = errno;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		return hs_error_set(err, HS_ERR_COMMAND, "cannot start '%s': %s", argv[0],
				    strerror(errno)), -1;
	}
	while ((r = read(pfd[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	if (r == sizeof(e)) {
		waitpid(pid, NULL, 0);
		return hs_error_set(err, HS_ERR_COMMAND, "cannot start '%s': %s", argv[0],
				    strerror(e)), -1;
	}
	return pid;
}

static double record_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Waits, signals unblocked only inside ppoll, until something ends the recording. */
static void record_wait(struct hs_capture *cap, const struct record_params *p, pid_t *child,
			const sigset_t *orig)
{
	double end = record_now() + (double)p->duration_ns / 1e9;
	bool forwarded = false;

	for (;;) {
		double left = end - record_now();
		struct timespec ts = { 0, 200 * 1000 * 1000 };

		if (record_sigint >= 2 || record_sigterm || hs_capture_failed(cap))
			return;
		/* Ctrl-C reaches the command too; its end is worth recording, a second one aborts. */
		if (record_sigint && *child <= 0)
			return;
		if (record_sigint && !forwarded) {
			kill(*child, SIGINT);
			forwarded = true;
		}
		if (*child > 0 && record_sigchld) {
			record_sigchld = 0;
			if (waitpid(*child, NULL, WNOHANG) == *child) {
				*child = -1;
				return;
			}
		}
		if (p->duration_ns && left <= 0)
			return;
		if (p->duration_ns && left < 0.2)
			ts.tv_nsec = (long)(left * 1e9);
		ppoll(NULL, 0, &ts, orig);
	}
}

static void record_summary(const struct hs_capture_result *r, const char *output)
{
	struct stat st;

	fprintf(stderr, "haltstat record: %.3f s, %llu events, %u CPUs, %u threads\n",
		r->seconds, (unsigned long long)r->total_events, r->ncpus, r->ntids);
	for (unsigned int i = 0; i < r->nevents; i++)
		fprintf(stderr, "  %-32s %12llu\n", r->event_names[i],
			(unsigned long long)r->event_counts[i]);
	fprintf(stderr, "  lost events:");
	for (unsigned int i = 0; i < r->ncpus; i++)
		fprintf(stderr, " cpu%u=%llu", i, (unsigned long long)r->lost[i]);
	fprintf(stderr, "\n");
	if (r->lost_total)
		fprintf(stderr, "WARNING: %llu events were lost; the analysis will be incomplete "
			"(try a larger -m or fewer events)\n", (unsigned long long)r->lost_total);
	if (stat(output, &st) == 0)
		fprintf(stderr, "  wrote %s (%.1f KiB)\n", output, (double)st.st_size / 1024.0);
}

static void record_warn_missing(struct hs_capture *cap, const struct record_params *p)
{
	const char *const *miss;
	unsigned int n = hs_capture_missing(cap, &miss);
	bool kvm_missing = false;

	for (unsigned int i = 0; i < n; i++) {
		if (!strncmp(miss[i], "kvm:", 4))
			kvm_missing = true;
		else
			fprintf(stderr, "haltstat record: warning: event %s does not exist here, "
				"not recorded\n", miss[i]);
	}
	if (kvm_missing)
		fprintf(stderr, "haltstat record: warning: kvm events not available (is the kvm "
			"module loaded?)%s\n", p->guest ? "; recording guest events only" : "");
}

/*
 * The facts as recording starts: first in the trace, as notes that travel
 * with every copy of it, and first in the file's trailer.
 */
static int record_facts(struct hs_sbuf *facts, struct hs_sbuf *notes)
{
	struct hs_meta m;

	hs_sysinfo_facts(&m);
	hs_recmeta_put_facts(facts, &m);
	hs_recmeta_put_notes(notes, facts->s ? facts->s : "", facts->len);
	return facts->oom || notes->oom ? -1 : 0;
}

/*
 * After the recording: the scan names the threads, the end notes go into
 * the trace, and the file gets the same lines as its trailer.
 */
static int record_save(struct hs_capture *cap, struct hs_record_file *out,
		       const struct hs_sbuf *facts, struct hs_error *err)
{
	struct hs_sbuf meta = { 0 }, end = { 0 }, notes = { 0 };
	int ret = hs_capture_scan(cap, err);

	if (!ret) {
		hs_sbuf_printf(&meta, "%s", facts->s ? facts->s : "");
		hs_recmeta_put_end(&end, hs_capture_result(cap));
		hs_sbuf_printf(&meta, "%s", end.s ? end.s : "");
		hs_recmeta_put_notes(&notes, end.s ? end.s : "", end.len);
		if (meta.oom || end.oom || notes.oom)
			ret = hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	}
	if (!ret)
		ret = hs_capture_note_end(cap, notes.s ? notes.s : "", err);
	if (!ret)
		ret = hs_record_file_write(out, hs_capture_result(cap), meta.s, meta.len, err);
	hs_sbuf_free(&meta);
	hs_sbuf_free(&end);
	hs_sbuf_free(&notes);
	return ret;
}

static int record_run(const struct record_params *p, const sigset_t *orig)
{
	const char *ev[HS_CAPTURE_MAX_EVENTS], *filter[HS_CAPTURE_MAX_EVENTS];
	bool req[HS_CAPTURE_MAX_EVENTS];
	struct hs_capture_opts o = {
		.events = ev, .required = req, .filters = filter,
		.nevents = record_events(p, ev, req, filter),
		.pids = p->pids, .npids = p->npids, .buffer_kib = p->buffer_kib,
		.identity = true,
	};
	struct hs_error err = { 0 };
	struct hs_sbuf facts = { 0 }, notes = { 0 };
	struct hs_record_file *out;
	struct hs_capture *cap = NULL;
	pid_t child = -1;
	int ret = 0;

	/* a path that cannot be written fails here, before any event is enabled */
	out = hs_record_file_create(p->output, &err);
	if (!out)
		return cmd_fail(&err);
	o.dir = hs_record_file_dir(out);
	if (record_facts(&facts, &notes))
		ret = hs_error_set(&err, HS_ERR_RUNTIME, "out of memory");
	o.notes = notes.s;
	if (!ret)
		ret = hs_capture_start(&cap, &o, &err);
	if (!ret) {
		record_warn_missing(cap, p);
		if (p->command && (child = record_spawn(p->command, orig, &err)) < 0)
			ret = err.code;
		else if (p->command)
			hs_capture_set_command(cap, child, p->command);
	}
	if (!ret) {
		record_wait(cap, p, &child, orig);
		/* From here a second Ctrl-C must be seen at once: handlers only count. */
		sigprocmask(SIG_SETMASK, orig, NULL);
		ret = hs_capture_stop(cap, record_sigint < 2, &err);
	}
	if (!ret && record_sigint >= 2)
		ret = hs_error_set(&err, HS_ERR_RUNTIME, "interrupted twice: recording discarded");
	if (!ret)
		ret = record_save(cap, out, &facts, &err);
	if (!ret)
		record_summary(hs_capture_result(cap), p->output);
	hs_capture_destroy(cap);
	hs_record_file_free(out);
	hs_sbuf_free(&facts);
	hs_sbuf_free(&notes);
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	return ret ? cmd_fail(&err) : 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_params p;
	sigset_t blocked, orig;
	int ret;

	ret = record_parse_args(argc, argv, &p);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (p.sched && p.host)
		record_sched_filters(&p);
	record_signals(&blocked, &orig);
	ret = record_run(&p, &orig);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return ret;
}
