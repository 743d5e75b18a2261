// SPDX-License-Identifier: GPL-2.0-only
/*
 * The text reader (formats/trace/text_read.c, text_header.c, text_payload.c)
 * against a fake sink that records every call.
 *
 * Fixtures are generated: a list of "truth" events is printed with the
 * printf formats the kernel (kernel/trace/trace_output.c), trace-cmd
 * (tracecmd/trace-read.c) and perf (builtin-script.c) use, then parsed
 * back and compared field by field. A few real lines captured on a test
 * machine (power:cpu_idle through a private tracefs instance, trace-cmd
 * report of an extracted instance, perf script) are checked against
 * values read off them by hand.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../formats/trace/input.h"
#include "check.h"

/* ---- the fake sink: what the reader hands over, recorded ---- */

struct fake_thread {
	int tid, tgid;
	char comm[64];
};

struct fake_lost {
	int cpu;
	uint64_t count;
	bool known;
};

struct fake {
	struct hs_meta meta;
	struct hs_event *ev;
	size_t nev, cap;
	struct fake_thread th[64];
	size_t nth, thread_calls;
	struct fake_lost lost[64];
	size_t nlost;
	int vm_tgid;		/* the last process named, and its VM */
	char vm[128];
	int fail_after;		/* hs_account_event fails (out of memory) after this many; -1 never */
};

static int fake_event(void *priv, const struct hs_event *ev)
{
	struct fake *a = priv;

	if (a->fail_after >= 0 && a->nev >= (size_t)a->fail_after)
		return HS_ERR_RUNTIME;
	if (a->nev == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 256;
		a->ev = realloc(a->ev, a->cap * sizeof(*a->ev));
		if (!a->ev)
			abort();
	}
	a->ev[a->nev++] = *ev;
	return 0;
}

static void fake_thread_named(void *priv, int tid, int tgid, const char *comm)
{
	struct fake *a = priv;
	size_t i;

	a->thread_calls++;
	for (i = 0; i < a->nth && a->th[i].tid != tid; i++)
		;
	if (i == a->nth) {
		if (a->nth == 64)
			return;
		a->nth++;
		a->th[i].tgid = -1;
	}
	a->th[i].tid = tid;
	if (tgid >= 0)
		a->th[i].tgid = tgid;
	snprintf(a->th[i].comm, sizeof(a->th[i].comm), "%s", comm);
}

static void fake_lost(void *priv, int cpu, uint64_t count, bool known)
{
	struct fake *a = priv;

	if (a->nlost < 64)
		a->lost[a->nlost++] = (struct fake_lost){ cpu, count, known };
}

static void fake_process(void *priv, int tgid, const char *comm, const char *vm)
{
	struct fake *a = priv;

	(void)comm;
	if (!vm)
		return;
	a->vm_tgid = tgid;
	snprintf(a->vm, sizeof(a->vm), "%s", vm);
}

/* A sink into a. */
static struct hs_sink fake_sink(struct fake *a)
{
	return (struct hs_sink){ .event = fake_event, .lost = fake_lost, .thread = fake_thread_named,
				 .process = fake_process, .priv = a, .meta = &a->meta };
}

/* hs_text_read into the fake */
static int text_read(const char *s, size_t len, struct fake *a, struct hs_error *err)
{
	struct hs_sink sink = fake_sink(a);

	return hs_text_read(s, len, &sink, err);
}

static void fake_init(struct fake *a)
{
	memset(a, 0, sizeof(*a));
	hs_meta_init(&a->meta);
	a->fail_after = -1;
}

static void fake_free(struct fake *a)
{
	free(a->ev);
	a->ev = NULL;
}

static const struct fake_thread *fake_thread(const struct fake *a, int tid)
{
	size_t i;

	for (i = 0; i < a->nth; i++)
		if (a->th[i].tid == tid)
			return &a->th[i];
	return NULL;
}

/* ---- growing text buffer ---- */

struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			abort();
		if ((size_t)n < b->cap - b->len)
			break;
		b->cap = (b->cap + (size_t)n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			abort();
	}
	b->len += (size_t)n;
}

static void sb_free(struct sbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

/* ---- truth events and their text forms ---- */

struct truth {
	struct hs_event ev;
	const char *comm;
	int tgid;
};

#define NTRUTH 400

static const struct {
	const char *comm;
	int tid, tgid;
} tasks[] = {
	{ "CPU 0/KVM", 6020, 6001 },
	{ "CPU 1/KVM", 6021, 6001 },
	{ "kvm_halt", 10464, 10464 },
	{ "my-vm-worker-1", 777, 700 },	/* dashes: split at the last one */
	{ "a b-c d", 31337, 31337 },	/* spaces and a dash */
	{ "<idle>", 0, 0 },
};

static void truth_make(struct truth *t, size_t n)
{
	uint64_t ts = 797267684000ull;	/* 797.267684 s */
	size_t i, k;

	check_rng_state = 0x9e3779b97f4a7c15ull;
	for (i = 0; i < n; i++) {
		struct hs_event *ev = &t[i].ev;

		memset(ev, 0, sizeof(*ev));
		k = check_rng() % 6;
		t[i].comm = tasks[k].comm;
		t[i].tgid = tasks[k].tgid;
		ev->tid = tasks[k].tid;
		ev->cpu = (int32_t)(check_rng() % 12);
		ts += 1000 * (1 + check_rng() % 5000);	/* microsecond steps */
		ev->ts = ts;
		if (k == 5) {
			ev->kind = check_rng() % 4 ? HS_EV_CPU_IDLE : HS_EV_GUEST_HALT_POLL_NS;
		} else {
			ev->kind = check_rng() % 3 ? HS_EV_VCPU_WAKEUP : HS_EV_HALT_POLL_NS;
		}
		switch (ev->kind) {
		case HS_EV_VCPU_WAKEUP:
			ev->wakeup.ns = check_rng() % (1ull << (check_rng() % 40 + 1));
			ev->wakeup.waited = check_rng() & 1;
			ev->wakeup.valid = check_rng() % 8 ? 1 : 0;
			break;
		case HS_EV_HALT_POLL_NS:
			ev->poll.vcpu_id = (uint32_t)(check_rng() % 300);
			ev->poll.new_ns = (uint32_t)check_rng();
			ev->poll.old_ns = (uint32_t)(check_rng() % 400000);
			ev->poll.grow = check_rng() & 1;
			break;
		case HS_EV_CPU_IDLE:
			ev->idle.state = check_rng() & 1 ? HS_IDLE_EXIT : (uint32_t)(check_rng() % 4);
			ev->idle.cpu_id = (uint32_t)ev->cpu;
			break;
		case HS_EV_GUEST_HALT_POLL_NS:
			ev->guest_poll.new_ns = (uint32_t)check_rng();
			ev->guest_poll.old_ns = (uint32_t)(check_rng() % 200000);
			ev->guest_poll.grow = check_rng() & 1;
			break;
		}
	}
}

enum form {
	F_KERNEL,		/* 5-char flags */
	F_KERNEL_OLD,		/* 4-char flags */
	F_KERNEL_NOIRQ,		/* irq-info=0 */
	F_KERNEL_TGID,		/* record-tgid=1 */
	F_KERNEL_NOIRQ_TGID,
	F_KERNEL_NS,		/* 9 decimals */
	F_TCMD,
	F_TCMD_INST,		/* buffer instance prefix */
	F_TCMD_LAT,		/* trace-cmd report -l */
	F_PERF,
	F_PERF_PIDTID,
	F_NFORMS,
};

static const char *const form_names[F_NFORMS] = {
	"kernel", "kernel-4flags", "kernel-noirq", "kernel-tgid", "kernel-noirq-tgid",
	"kernel-ns", "tcmd", "tcmd-instance", "tcmd-latency", "perf", "perf-pidtid",
};

static const char *const event_names[] = {
	[HS_EV_VCPU_WAKEUP] = "kvm_vcpu_wakeup",
	[HS_EV_HALT_POLL_NS] = "kvm_halt_poll_ns",
	[HS_EV_CPU_IDLE] = "cpu_idle",
	[HS_EV_GUEST_HALT_POLL_NS] = "guest_halt_poll_ns",
};

static const char *const event_systems[] = {
	[HS_EV_VCPU_WAKEUP] = "kvm",
	[HS_EV_HALT_POLL_NS] = "kvm",
	[HS_EV_CPU_IDLE] = "power",
	[HS_EV_GUEST_HALT_POLL_NS] = "power",
};

/* The TP_printk formats of include/trace/events/{kvm,power}.h. */
static void put_payload(struct sbuf *b, const struct hs_event *ev)
{
	switch (ev->kind) {
	case HS_EV_VCPU_WAKEUP:
		sb_printf(b, "%s time %lld ns, polling %s", ev->wakeup.waited ? "wait" : "poll",
			  (long long)ev->wakeup.ns, ev->wakeup.valid ? "valid" : "invalid");
		break;
	case HS_EV_HALT_POLL_NS:
		sb_printf(b, "vcpu %u: halt_poll_ns %u (%s %u)", ev->poll.vcpu_id,
			  ev->poll.new_ns, ev->poll.grow ? "grow" : "shrink", ev->poll.old_ns);
		break;
	case HS_EV_CPU_IDLE:
		sb_printf(b, "state=%u cpu_id=%u", ev->idle.state, ev->idle.cpu_id);
		break;
	case HS_EV_GUEST_HALT_POLL_NS:
		sb_printf(b, "halt_poll_ns %u (%s %u)", ev->guest_poll.new_ns,
			  ev->guest_poll.grow ? "grow" : "shrink", ev->guest_poll.old_ns);
		break;
	}
}

static void put_line(struct sbuf *b, const struct truth *t, enum form f)
{
	const struct hs_event *ev = &t->ev;
	unsigned long long sec = ev->ts / 1000000000ull, ns = ev->ts % 1000000000ull;
	const char *name = event_names[ev->kind];
	int pad = 20 - (int)strlen(name);

	switch (f) {
	case F_KERNEL:
	case F_KERNEL_OLD:
	case F_KERNEL_NOIRQ:
	case F_KERNEL_TGID:
	case F_KERNEL_NOIRQ_TGID:
	case F_KERNEL_NS:
		sb_printf(b, "%16s-%-7d ", t->comm, ev->tid);
		if (f == F_KERNEL_TGID || f == F_KERNEL_NOIRQ_TGID) {
			if (ev->tid)
				sb_printf(b, "(%7d) ", t->tgid);
			else
				sb_printf(b, "(-------) ");
		}
		sb_printf(b, "[%03d] ", ev->cpu);
		if (f == F_KERNEL || f == F_KERNEL_TGID || f == F_KERNEL_NS)
			sb_printf(b, "%s ", ev->cpu & 1 ? "dN.1." : "d..1.");
		else if (f == F_KERNEL_OLD)
			sb_printf(b, "d.h1 ");
		if (f == F_KERNEL_NS)
			sb_printf(b, "%5llu.%09llu: %s: ", sec, ns, name);
		else
			sb_printf(b, "%5llu.%06llu: %s: ", sec, ns / 1000, name);
		break;
	case F_TCMD:
	case F_TCMD_INST:
	case F_TCMD_LAT:
		if (f == F_TCMD_INST)
			sb_printf(b, "%*s: ", 14, ev->cpu & 1 ? "guest-vm" : "textread_test");
		if (f == F_TCMD_LAT)
			sb_printf(b, "%8.8s-%-5d %3d%s", t->comm, ev->tid, ev->cpu, "d..1.");
		else
			sb_printf(b, "%16s-%-5d [%03d]", t->comm, ev->tid, ev->cpu);
		sb_printf(b, " %5llu.%06llu: %s: %.*s", sec, ns / 1000, name,
			  pad > 0 ? pad : 0, "                    ");
		break;
	case F_PERF:
	case F_PERF_PIDTID:
		sb_printf(b, "%16s ", t->comm);
		if (f == F_PERF_PIDTID)
			sb_printf(b, "%7d/%-7d ", t->tgid, ev->tid);
		else
			sb_printf(b, "%5d ", ev->tid);
		sb_printf(b, "[%03d] %5llu.%06llu: %24s:%s: ", ev->cpu, sec, ns / 1000,
			  event_systems[ev->kind], name);
		break;
	default:
		break;
	}
	put_payload(b, ev);
	sb_printf(b, "\n");
}

static bool event_eq(const struct hs_event *a, const struct hs_event *b)
{
	if (a->kind != b->kind || a->ts != b->ts || a->cpu != b->cpu || a->tid != b->tid)
		return false;
	switch (a->kind) {
	case HS_EV_VCPU_WAKEUP:
		return a->wakeup.ns == b->wakeup.ns && a->wakeup.waited == b->wakeup.waited &&
		       a->wakeup.valid == b->wakeup.valid;
	case HS_EV_HALT_POLL_NS:
		return a->poll.vcpu_id == b->poll.vcpu_id && a->poll.new_ns == b->poll.new_ns &&
		       a->poll.old_ns == b->poll.old_ns && a->poll.grow == b->poll.grow;
	case HS_EV_CPU_IDLE:
		return a->idle.state == b->idle.state && a->idle.cpu_id == b->idle.cpu_id;
	case HS_EV_GUEST_HALT_POLL_NS:
		return a->guest_poll.new_ns == b->guest_poll.new_ns &&
		       a->guest_poll.old_ns == b->guest_poll.old_ns &&
		       a->guest_poll.grow == b->guest_poll.grow;
	}
	return false;
}

/* Events equal to the truth, with ts cut to microseconds unless ns_ts. */
static size_t count_mismatches(const struct fake *a, const struct truth *t, size_t n,
			       bool ns_ts)
{
	size_t i, bad = 0;

	if (a->nev != n)
		return n + 1;
	for (i = 0; i < n; i++) {
		struct hs_event want = t[i].ev;

		if (!ns_ts)
			want.ts -= want.ts % 1000;
		if (!event_eq(&a->ev[i], &want)) {
			if (!bad)
				printf("# first mismatch at event %zu\n", i);
			bad++;
		}
	}
	return bad;
}

static int parse(struct fake *a, const char *s, size_t len, struct hs_error *err)
{
	fake_init(a);
	hs_error_clear(err);
	return text_read(s, len, a, err);
}

/* Every form of the same events reads back to the same events. */
static void test_forms(const struct truth *t, size_t n)
{
	static const char *const fmt_want[F_NFORMS] = {
		[F_KERNEL] = "text (kernel trace)", [F_KERNEL_OLD] = "text (kernel trace)",
		[F_KERNEL_NOIRQ] = "text (kernel trace)", [F_KERNEL_TGID] = "text (kernel trace)",
		[F_KERNEL_NOIRQ_TGID] = "text (kernel trace)",
		[F_KERNEL_NS] = "text (kernel trace)", [F_TCMD] = "text (trace-cmd report)",
		[F_TCMD_INST] = "text (trace-cmd report)",
		[F_TCMD_LAT] = "text (trace-cmd report)", [F_PERF] = "text (perf script)",
		[F_PERF_PIDTID] = "text (perf script)",
	};
	struct fake a;
	struct hs_error err;
	struct sbuf b = { 0 };
	char name[128];
	size_t i, k, bad;
	int f, rc;

	for (f = 0; f < F_NFORMS; f++) {
		b.len = 0;
		if (f == F_TCMD || f == F_TCMD_INST || f == F_TCMD_LAT)
			sb_printf(&b, "version = 6\ncpus=12\n");
		else if (f <= F_KERNEL_NS)
			sb_printf(&b, "# tracer: nop\n#\n# entries-in-buffer/entries-written: "
				  "%zu/%zu   #P:12\n#\n", n, n);
		for (i = 0; i < n; i++)
			put_line(&b, &t[i], (enum form)f);
		rc = parse(&a, b.s, b.len, &err);
		snprintf(name, sizeof(name), "form %s: reads", form_names[f]);
		CHECK(rc == HS_OK, name);
		bad = count_mismatches(&a, t, n, f == F_KERNEL_NS);
		snprintf(name, sizeof(name), "form %s: events equal the truth", form_names[f]);
		CHECK_EQ_U64(bad, 0, name);
		snprintf(name, sizeof(name), "form %s: nothing skipped", form_names[f]);
		CHECK_EQ_U64(a.meta.skipped_lines, 0, name);
		snprintf(name, sizeof(name), "form %s: format", form_names[f]);
		CHECK(!strcmp(a.meta.format, fmt_want[f]), name);
		snprintf(name, sizeof(name), "form %s: ncpus", form_names[f]);
		CHECK_EQ_U64(a.meta.ncpus, f == F_PERF || f == F_PERF_PIDTID ? -1 : 12, name);
		snprintf(name, sizeof(name), "form %s: lost_known", form_names[f]);
		CHECK(a.meta.lost_known == (f != F_PERF && f != F_PERF_PIDTID), name);

		/* names: <idle> (tid 0) included; -l truncates to 8 characters */
		bad = 0;
		for (k = 0; k < sizeof(tasks) / sizeof(tasks[0]); k++) {
			const struct fake_thread *th = fake_thread(&a, tasks[k].tid);
			char want[64];
			int tg = f == F_KERNEL_TGID || f == F_KERNEL_NOIRQ_TGID ||
				 f == F_PERF_PIDTID ? tasks[k].tgid : -1;

			if (f == F_KERNEL_TGID || f == F_KERNEL_NOIRQ_TGID)
				tg = tasks[k].tid ? tasks[k].tgid : -1;
			snprintf(want, sizeof(want), f == F_TCMD_LAT ? "%.8s" : "%s",
				 tasks[k].comm);
			if (!th || strcmp(th->comm, want) || th->tgid != tg) {
				printf("# %s: tid %d: got '%s' tgid %d\n", form_names[f],
				       tasks[k].tid, th ? th->comm : "(none)", th ? th->tgid : -2);
				bad++;
			}
		}
		snprintf(name, sizeof(name), "form %s: thread names and tgids", form_names[f]);
		CHECK_EQ_U64(bad, 0, name);
		snprintf(name, sizeof(name), "form %s: names passed on once per thread",
			 form_names[f]);
		CHECK_EQ_U64(a.thread_calls, a.nth, name);
		if (f == F_TCMD_INST) {
			CHECK(!strcmp(a.meta.buffer_instance, "guest-vm") ||
			      !strcmp(a.meta.buffer_instance, "textread_test"),
			      "form tcmd-instance: buffer instance name");
		} else {
			snprintf(name, sizeof(name), "form %s: no buffer instance", form_names[f]);
			CHECK(!a.meta.buffer_instance[0], name);
		}
		fake_free(&a);
	}
	sb_free(&b);
}

/* All forms in one paste: every event still comes through, in line order. */
static void test_mixed(const struct truth *t, size_t n)
{
	struct fake a;
	struct hs_error err;
	struct sbuf b = { 0 };
	size_t i, bad = 0;
	int rc;

	for (i = 0; i < n; i++)
		put_line(&b, &t[i], (enum form)(i % F_NFORMS == F_KERNEL_NS ? F_KERNEL
						: i % F_NFORMS));
	rc = parse(&a, b.s, b.len, &err);
	CHECK(rc == HS_OK, "mixed forms: reads");
	bad = count_mismatches(&a, t, n, false);
	CHECK_EQ_U64(bad, 0, "mixed forms: events equal the truth");
	CHECK_EQ_U64(a.meta.skipped_lines, 0, "mixed forms: nothing skipped");
	fake_free(&a);
	sb_free(&b);
}

/* Lines that are not trace lines, each counted once in skipped_lines. */
static const char *const garbage[] = {
	"hello world",
	"Dec 12 10:00:01 host kernel: kvm: something",
	"          <idle>-0       [000] d..1.   545.16x525: cpu_idle: state=1 cpu_id=0",
	"          <idle>-0       [0a0] d..1.   545.162525: cpu_idle: state=1 cpu_id=0",
	"          <idle>-x       [000] d..1.   545.162525: cpu_idle: state=1 cpu_id=0",
	"[000] 545.162525: cpu_idle: state=1 cpu_id=0",
	"cpu_idle: state=1 cpu_id=0",
	"CPU:1 [LOST x EVENTS]",
	"CPU:1 [LOST 12 EVENTS] trailing",
	"cpus=two",
	"version = ",
	"  545.162525: cpu_idle: state=1 cpu_id=0",
	"\x01\x02\x03\xff\xfe binary",
	"a-1 [1] 99999999999999999999.1: cpu_idle: state=1 cpu_id=0",
	"a-1 [1] 1.1234567890: cpu_idle: state=1 cpu_id=0",
	"inst: hello there",
	"  x-1 [000] abcdefghijk 1.0: cpu_idle: state=1 cpu_id=0",
};

/* Known events whose payload does not parse: also counted as skipped. */
static const char *const malformed[] = {
	"  CPU 0/KVM-6020  [001] .....   802.408511: kvm_vcpu_wakeup: wait time x ns, polling valid",
	"  CPU 0/KVM-6020  [001] .....   802.408511: kvm_vcpu_wakeup: nap time 5 ns, polling valid",
	"  CPU 0/KVM-6020  [001] .....   802.408511: kvm_vcpu_wakeup: wait time 5 ns, polling maybe",
	"  CPU 0/KVM-6020  [001] .....   802.408511: kvm_vcpu_wakeup: wait time 99999999999999999999 ns",
	"  CPU 0/KVM-6020  [001] .....   802.408511: kvm_vcpu_wakeup: wait time 5 ns, polling valid!",
	"  CPU 0/KVM-6020  [001] .....   802.408511: kvm_halt_poll_ns: vcpu 0: halt_poll_ns 1 (grow 2",
	"  CPU 0/KVM-6020  [001] .....   802.408511: kvm_halt_poll_ns: vcpu 0: halt_poll_ns 1 (stay 2)",
	"  CPU 0/KVM-6020  [001] .....   802.408511: kvm_halt_poll_ns: vcpu 0: halt_poll_ns 4294967296 (grow 2)",
	"  CPU 0/KVM-6020  [001] .....   802.408511: kvm_halt_poll_ns: vcpu 0: halt_poll_ns -2147483649 (grow 2)",
	"          <idle>-0       [000] d..1.   545.162525: cpu_idle: state=1",
	"          <idle>-0       [000] d..1.   545.162525: cpu_idle: state=1 cpu_id=",
	"          <idle>-0       [000] d..1.   545.162525: cpu_idle: state=1 cpu_id=0 extra",
	"          <idle>-0       [000] d..1.   545.162525: guest_halt_poll_ns: halt_poll_ns (grow 1)",
	"         swapper     0 [000]   773.831268: power:cpu_idle: state=one cpu_id=0",
	"            bash-1234    [001] .....   802.408511: sched_switch: prev_comm=bash prev_pid=1234",
	"           sleep     77 [001]   802.408511: sched:sched_wakeup: comm=sleep pid=x",
};

/* Not counted anywhere: blank lines, comments, other events and tracers. */
static const char *const ignored[] = {
	"",
	"   \t ",
	"#",
	"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION",
	"            bash-1234    [001] .....   802.408511: sched_stat_runtime: comm=bash pid=1234",
	"            bash-1234    [001] .....   802.408511: do_sys_open <-__x64_sys_openat",
	"           sleep     77 [001]   802.408511: sched:sched_migrate_task: comm=sleep",
};

static void test_garbage(const struct truth *t, size_t n)
{
	const size_t ng = sizeof(garbage) / sizeof(garbage[0]);
	const size_t nm = sizeof(malformed) / sizeof(malformed[0]);
	const size_t ni = sizeof(ignored) / sizeof(ignored[0]);
	struct fake a;
	struct hs_error err;
	struct sbuf b = { 0 };
	size_t i, bad, extra = 0;
	int rc;

	for (i = 0; i < n; i++) {
		if (i % 3 == 0)
			sb_printf(&b, "%s\n", garbage[(i / 3) % ng]), extra++;
		if (i % 5 == 0)
			sb_printf(&b, "%s\r\n", malformed[(i / 5) % nm]), extra++;
		if (i % 7 == 0)
			sb_printf(&b, "%s\n", ignored[(i / 7) % ni]);
		put_line(&b, &t[i], F_KERNEL);
	}
	sb_printf(&b, "%s", garbage[0]);	/* last line without a newline */
	extra++;
	rc = parse(&a, b.s, b.len, &err);
	CHECK(rc == HS_OK, "garbage mixed in: reads");
	bad = count_mismatches(&a, t, n, false);
	CHECK_EQ_U64(bad, 0, "garbage mixed in: events equal the truth");
	CHECK_EQ_U64(a.meta.skipped_lines, extra, "garbage mixed in: skipped_lines counts them");
	CHECK_EQ_U64(a.nlost, 0, "garbage mixed in: no loss invented");
	fake_free(&a);
	sb_free(&b);
}

static void test_lost(void)
{
	static const char text[] =
		"CPU:0 [LOST 194220 EVENTS]\n"
		"CPU:3 [LOST EVENTS]\n"
		"CPU:7 [204600 EVENTS DROPPED]\n"
		"CPU:2 [EVENTS DROPPED]\n"
		"textread_test: CPU:5 [17 EVENTS DROPPED]\n"
		"CPU:1 [SUBBUFFER START]\n";
	struct fake a;
	struct hs_error err;
	int rc;

	rc = parse(&a, text, sizeof(text) - 1, &err);
	CHECK(rc == HS_OK, "lost markers: read");
	CHECK_EQ_U64(a.nlost, 5, "lost markers: five losses");
	CHECK(a.lost[0].cpu == 0 && a.lost[0].count == 194220 && a.lost[0].known,
	      "lost markers: kernel LOST N");
	CHECK(a.lost[1].cpu == 3 && !a.lost[1].known, "lost markers: kernel LOST (unknown)");
	CHECK(a.lost[2].cpu == 7 && a.lost[2].count == 204600 && a.lost[2].known,
	      "lost markers: trace-cmd N EVENTS DROPPED");
	CHECK(a.lost[3].cpu == 2 && a.lost[3].count == 0 && !a.lost[3].known,
	      "lost markers: trace-cmd EVENTS DROPPED (unknown)");
	CHECK(a.lost[4].cpu == 5 && a.lost[4].count == 17 && a.lost[4].known,
	      "lost markers: behind an instance prefix");
	CHECK_EQ_U64(a.meta.skipped_lines, 0, "lost markers: nothing skipped");
	fake_free(&a);
}

/* Hand-written lines, values read off them by eye. */
static void test_exact(void)
{
	static const char text[] =
		/* from the reference: names with spaces */
		"        kvm_halt-10464   [000] .....   797.267684: kvm_vcpu_wakeup: wait time 220919 ns, polling valid\n"
		"       CPU 0/KVM-6020    [001] .....   802.408511: kvm_vcpu_wakeup: poll time 140459 ns, polling invalid\n"
		"        kvm_halt-6747    [000] .....   348.447757: kvm_halt_poll_ns: vcpu 0: halt_poll_ns 20000 (grow 10000)\n"
		/* 4.0-4.6: no polling part; halt_poll_ns printed with %d */
		"     qemu-kvm-3211  [002] ....  1234.000001: kvm_vcpu_wakeup: wait time 40280 ns\n"
		"     qemu-kvm-3211  [002] ....  1234.000002: kvm_halt_poll_ns: vcpu 1: halt_poll_ns -294967296 (shrink -1)\n"
		/* counter clock: integer stamps */
		"          <idle>-0       [000] dN.1.            2: cpu_idle: state=4294967295 cpu_id=0\n"
		/* ns precision and short fractions */
		"          <idle>-0       [001] d..1.     5.000000007: guest_halt_poll_ns: halt_poll_ns 100000 (grow 50000)\n"
		"          <idle>-0       [001] d..1.     6.5: cpu_idle: state=1 cpu_id=1\n"
		/* a proposed kvm_vcpu_wakeup variant with the window in force */
		"       CPU 0/KVM-6020    [001] .....   900.000000: kvm_vcpu_wakeup: poll time 10 ns (max poll 200000 ns), polling valid\n"
		/* a dash at the end of a name, and <...> (no name known) */
		"            foo--42      [003] .....   901.000000: kvm_vcpu_wakeup: wait time 1 ns, polling valid\n"
		"           <...>-43      [003] .....   902.000000: kvm_vcpu_wakeup: wait time 2 ns, polling valid\n";
	struct fake a;
	struct hs_error err;
	const struct hs_event *ev;
	const struct fake_thread *th;
	int rc;

	rc = parse(&a, text, sizeof(text) - 1, &err);
	CHECK(rc == HS_OK, "exact: reads");
	CHECK_EQ_U64(a.nev, 11, "exact: 11 events");
	CHECK_EQ_U64(a.meta.skipped_lines, 0, "exact: nothing skipped");
	if (a.nev != 11) {
		fake_free(&a);
		return;
	}
	ev = a.ev;
	CHECK(ev[0].kind == HS_EV_VCPU_WAKEUP && ev[0].ts == 797267684000ull &&
	      ev[0].cpu == 0 && ev[0].tid == 10464 && ev[0].wakeup.ns == 220919 &&
	      ev[0].wakeup.waited && ev[0].wakeup.valid == 1, "exact: wait, valid");
	CHECK(ev[1].tid == 6020 && ev[1].cpu == 1 && !ev[1].wakeup.waited &&
	      ev[1].wakeup.valid == 0 && ev[1].wakeup.ns == 140459, "exact: poll, invalid");
	CHECK(ev[2].kind == HS_EV_HALT_POLL_NS && ev[2].poll.vcpu_id == 0 &&
	      ev[2].poll.new_ns == 20000 && ev[2].poll.old_ns == 10000 && ev[2].poll.grow,
	      "exact: halt_poll_ns grow");
	CHECK(ev[3].wakeup.valid == -1 && ev[3].wakeup.waited && ev[3].wakeup.ns == 40280 &&
	      ev[3].ts == 1234000001000ull, "exact: old kernel wakeup, valid -1");
	CHECK(ev[4].poll.vcpu_id == 1 && ev[4].poll.new_ns == 4000000000u &&
	      ev[4].poll.old_ns == 4294967295u && !ev[4].poll.grow,
	      "exact: old kernel signed values back to u32");
	CHECK(ev[5].kind == HS_EV_CPU_IDLE && ev[5].ts == 2 &&
	      ev[5].idle.state == HS_IDLE_EXIT, "exact: counter clock, idle exit");
	CHECK(ev[6].kind == HS_EV_GUEST_HALT_POLL_NS && ev[6].ts == 5000000007ull &&
	      ev[6].guest_poll.new_ns == 100000 && ev[6].guest_poll.old_ns == 50000 &&
	      ev[6].guest_poll.grow, "exact: guest_halt_poll_ns, ns stamps");
	CHECK(ev[7].ts == 6500000000ull && ev[7].idle.state == 1 && ev[7].idle.cpu_id == 1,
	      "exact: one decimal");
	CHECK(ev[8].wakeup.ns == 10 && ev[8].wakeup.valid == 1, "exact: (max poll) variant");
	CHECK(ev[9].tid == 42 && ev[10].tid == 43, "exact: odd names keep their tids");
	th = fake_thread(&a, 42);
	CHECK(th && !strcmp(th->comm, "foo-"), "exact: name ending in a dash");
	CHECK(!fake_thread(&a, 43), "exact: <...> is no name");
	th = fake_thread(&a, 6020);
	CHECK(th && !strcmp(th->comm, "CPU 0/KVM") && th->tgid == -1, "exact: name with spaces");
	fake_free(&a);
}

/* Lines captured on a test machine (6.18 guest, power:cpu_idle). */
/* sched_switch, sched_wakeup and sched_waking in the kernel's, trace-cmd's and perf's words. */
static void test_sched(void)
{
	static const char text[] =
		"        haltstat-23237 [000] d..2.  2658.359873: sched_switch: prev_comm=haltstat prev_pid=23237 prev_prio=120 prev_state=S ==> next_comm=CPU 0/KVM next_pid=23207 next_prio=120\n"
		"         python3-23190 [000] d..2.  2658.360060: sched_switch: prev_comm=python3 prev_pid=23190 prev_prio=120 prev_state=R+ ==> next_comm=swapper/0 next_pid=0 next_prio=120\n"
		"        hs-waker-23208 [001] d..3.  2658.360053: sched_wakeup: comm=CPU 0/KVM pid=23207 prio=120 target_cpu=000\n"
		"          <idle>-0     [001] d..3.  2658.360054: sched_wakeup: comm=a:b [1] pid=7 prio=120 success=1 target_cpu=003\n"
		"       CPU 0/KVM-23207 [000]  2658.360076: sched_switch:         CPU 0/KVM:23207 [120] D ==> py:th:23190 [120]\n"
		"         python3-23190 [000]  2658.360092: sched_switch:         python3:23190 [120] R ==> swapper/0:0 [120]\n"
		"        hs-waker-23208 [001]  2658.360053: sched_wakeup:         CPU 0/KVM:23207 [120] CPU:001\n"
		"         swapper     0 [000]  2658.360095: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=9 next_prio=120\n"
		"        hs-waker-23208 [001] d..4.  2658.360041: sched_waking: comm=CPU 0/KVM pid=23207 prio=120 target_cpu=000\n"
		"        hs-waker-23208 [001]  2658.360042: sched_waking:         comm=CPU 0/KVM pid=23207 prio=120 target_cpu=002\n";
	struct fake a;
	struct hs_error err;
	const struct hs_event *ev;
	int rc;

	rc = parse(&a, text, sizeof(text) - 1, &err);
	CHECK(rc == HS_OK, "sched: reads");
	CHECK_EQ_U64(a.nev, 10, "sched: 10 events");
	CHECK_EQ_U64(a.meta.skipped_lines, 0, "sched: nothing skipped");
	if (a.nev != 10) {
		fake_free(&a);
		return;
	}
	ev = a.ev;
	CHECK(ev[0].kind == HS_EV_SCHED_SWITCH && ev[0].sched_switch.prev_pid == 23237 &&
	      !ev[0].sched_switch.prev_runnable && ev[0].sched_switch.next_pid == 23207 &&
	      ev[0].cpu == 0, "sched: kernel switch, sleeping prev, next with blanks");
	CHECK(ev[1].sched_switch.prev_runnable && ev[1].sched_switch.next_pid == 0,
	      "sched: kernel switch, preempted prev (R+), to idle");
	CHECK(ev[2].kind == HS_EV_SCHED_WAKEUP && ev[2].sched_wakeup.pid == 23207 &&
	      ev[2].sched_wakeup.target_cpu == 0 && ev[2].cpu == 1, "sched: kernel wakeup");
	CHECK(ev[3].sched_wakeup.pid == 7 && ev[3].sched_wakeup.target_cpu == 3,
	      "sched: old kernel wakeup (success=), odd comm");
	CHECK(ev[4].sched_switch.prev_pid == 23207 && !ev[4].sched_switch.prev_runnable &&
	      ev[4].sched_switch.next_pid == 23190, "sched: trace-cmd switch, colons in comm");
	CHECK(ev[5].sched_switch.prev_runnable && ev[5].sched_switch.next_pid == 0,
	      "sched: trace-cmd switch, runnable prev");
	CHECK(ev[6].sched_wakeup.pid == 23207 && ev[6].sched_wakeup.target_cpu == 1,
	      "sched: trace-cmd wakeup");
	CHECK(ev[7].sched_switch.prev_pid == 0 && ev[7].sched_switch.next_pid == 9,
	      "sched: perf switch");
	CHECK(ev[8].kind == HS_EV_SCHED_WAKING && ev[8].sched_wakeup.pid == 23207 &&
	      ev[8].sched_wakeup.target_cpu == 0 && ev[8].cpu == 1 && ev[8].tid == 23208,
	      "sched: kernel waking, logged by the waker");
	CHECK(ev[9].kind == HS_EV_SCHED_WAKING && ev[9].sched_wakeup.pid == 23207 &&
	      ev[9].sched_wakeup.target_cpu == 2, "sched: trace-cmd waking (the kernel's words)");
	fake_free(&a);
}

/*
 * The kernel's sched_switch is read from its fixed end (txt_sched_switch_tail
 * in formats/trace/text_payload.c): names that hold the labels or the arrow,
 * and a negative prio (deadline tasks) that sends the line to the searches,
 * read as those read them.
 */
static void test_sched_names(void)
{
	static const char text[] =
		"  a-11 [000] d..2.  1.000001: sched_switch: prev_comm=a prev_pid=5 prev_prio=1 prev_state=S ==> b prev_pid=11 prev_prio=120 prev_state=R ==> next_comm=c next_pid=12 next_prio=120\n"
		"  p-21 [000] d..2.  1.000002: sched_switch: prev_comm=p prev_pid=21 prev_prio=120 prev_state=S ==> next_comm=x ==> next_pid=22 next_prio=120\n"
		"  dl-31 [000] d..2.  1.000003: sched_switch: prev_comm=dl prev_pid=31 prev_prio=-1 prev_state=R+ ==> next_comm=n next_pid=32 next_prio=-1\n"
		"  q-41 [000] d..2.  1.000004: sched_switch: prev_comm=q prev_pid=41 prev_prio=120 prev_state=D ==> next_comm=next_pid=9 next_pid=42 next_prio=120\n";
	struct fake a;
	struct hs_error err;
	const struct hs_event *ev;

	CHECK(parse(&a, text, sizeof(text) - 1, &err) == HS_OK, "sched names: reads");
	CHECK_EQ_U64(a.nev, 4, "sched names: 4 events");
	if (a.nev != 4) {
		fake_free(&a);
		return;
	}
	ev = a.ev;
	CHECK(ev[0].sched_switch.prev_pid == 11 && ev[0].sched_switch.prev_runnable &&
	      ev[0].sched_switch.next_pid == 12, "sched names: labels and arrow in prev_comm");
	CHECK(ev[1].sched_switch.prev_pid == 21 && !ev[1].sched_switch.prev_runnable &&
	      ev[1].sched_switch.next_pid == 22, "sched names: next_comm ends in an arrow");
	CHECK(ev[2].sched_switch.prev_pid == 31 && ev[2].sched_switch.prev_runnable &&
	      ev[2].sched_switch.next_pid == 32, "sched names: negative prio, by the searches");
	CHECK(ev[3].sched_switch.prev_pid == 41 && !ev[3].sched_switch.prev_runnable &&
	      ev[3].sched_switch.next_pid == 42, "sched names: next_pid= in next_comm");
	fake_free(&a);
}

static void test_real(void)
{
	static const char text[] =
		"# tracer: nop\n"
		"#\n"
		"# entries-in-buffer/entries-written: 164/164   #P:2\n"
		"#\n"
		"#                                          _-----=> irqs-off/BH-disabled\n"
		"#           TASK-PID       TGID    CPU#  |||||  TIMESTAMP  FUNCTION\n"
		"#              | |           |       |   |||||     |         |\n"
		"          <idle>-0       (-------) [000] d..1.   545.162525: cpu_idle: state=4294967295 cpu_id=0\n"
		"          <idle>-0       (-------) [000]    545.162531: cpu_idle: state=1 cpu_id=0\n"
		"          <idle>-0       [000]    545.162684: cpu_idle: state=4294967295 cpu_id=0\n"
		"          <idle>-0       [000] d..1.            3: cpu_idle: state=1 cpu_id=0\n"
		"cpus=2\n"
		"textread_test:           <idle>-0     [000]   550.590125: cpu_idle:             state=1 cpu_id=0\n"
		"textread_test:   <idle>-0       0d..1.   550.590130: cpu_idle:             state=4294967295 cpu_id=0\n"
		"textread_test:           <idle>-0     [001]   550.590124850: cpu_idle:             state=1 cpu_id=1\n"
		"         swapper     0 [001]   773.831268: power:cpu_idle: state=1 cpu_id=1\n"
		"         swapper     0/0     [000]   773.831478: power:cpu_idle: state=4294967295 cpu_id=0\n"
		"         swapper     0 [000]   773.831268109: power:cpu_idle: state=1 cpu_id=0\n";
	static const uint64_t ts[] = {
		545162525000ull, 545162531000ull, 545162684000ull, 3, 550590125000ull,
		550590130000ull, 550590124850ull, 773831268000ull, 773831478000ull,
		773831268109ull,
	};
	static const uint32_t state[] = { HS_IDLE_EXIT, 1, HS_IDLE_EXIT, 1, 1, HS_IDLE_EXIT, 1,
					  1, HS_IDLE_EXIT, 1 };
	static const int cpu[] = { 0, 0, 0, 0, 0, 0, 1, 1, 0, 0 };
	struct fake a;
	struct hs_error err;
	size_t i, bad = 0;
	int rc;

	rc = parse(&a, text, sizeof(text) - 1, &err);
	CHECK(rc == HS_OK, "real lines: read");
	CHECK_EQ_U64(a.nev, 10, "real lines: 10 cpu_idle events");
	for (i = 0; i < a.nev && i < 10; i++)
		if (a.ev[i].kind != HS_EV_CPU_IDLE || a.ev[i].ts != ts[i] ||
		    a.ev[i].idle.state != state[i] || a.ev[i].cpu != cpu[i] ||
		    a.ev[i].idle.cpu_id != (uint32_t)cpu[i] || a.ev[i].tid != 0)
			printf("# real line event %zu differs\n", i), bad++;
	CHECK_EQ_U64(bad, 0, "real lines: fields");
	CHECK_EQ_U64(a.meta.ncpus, 2, "real lines: ncpus");
	CHECK(!strcmp(a.meta.buffer_instance, "textread_test"), "real lines: instance name");
	CHECK(!strcmp(a.meta.format, "text (kernel trace)"), "real lines: dominant format");
	CHECK_EQ_U64(a.meta.skipped_lines, 0, "real lines: nothing skipped");
	fake_free(&a);
}

/* Lines that look alike in both forms follow the header that came before. */
static void test_context(void)
{
	static const char line[] = "  x-1 [000] 1.0: cpu_idle: state=1 cpu_id=0\n";
	static const char lat[] = "  x-1      0d..1. 1.5: cpu_idle: state=1 cpu_id=0\n";
	struct fake a;
	struct hs_error err;
	struct sbuf b = { 0 };
	int rc;

	sb_printf(&b, "%s%s%s", line, line, line);
	rc = parse(&a, b.s, b.len, &err);
	CHECK(rc == HS_OK && !strcmp(a.meta.format, "text (kernel trace)"),
	      "context: ambiguous lines alone are kernel trace");
	fake_free(&a);
	b.len = 0;
	sb_printf(&b, "cpus=1\n%s%s%s", line, line, line);
	rc = parse(&a, b.s, b.len, &err);
	CHECK(rc == HS_OK && !strcmp(a.meta.format, "text (trace-cmd report)") &&
	      a.meta.ncpus == 1, "context: after cpus= they are trace-cmd report");
	fake_free(&a);
	b.len = 0;
	sb_printf(&b, "cpus=1\n# tracer: nop\n%s%s%s", line, line, line);
	rc = parse(&a, b.s, b.len, &err);
	CHECK(rc == HS_OK && !strcmp(a.meta.format, "text (kernel trace)"),
	      "context: # tracer: switches back to kernel trace");
	fake_free(&a);
	b.len = 0;
	sb_printf(&b, "%s%s%s", lat, line, lat);
	rc = parse(&a, b.s, b.len, &err);
	CHECK(rc == HS_OK && a.nev == 3 && a.ev[0].ts == 1500000000ull &&
	      !strcmp(a.meta.format, "text (trace-cmd report)"),
	      "context: report -l lines are trace-cmd report");
	fake_free(&a);
	sb_free(&b);
}

static void test_errors(void)
{
	static const char bin[] = "\x17\x08\x44tracing6\0\0\0\x08\0\0\0\0\x10\0\0\xff\xfe\n\0\0";
	static const char comments[] = "#!/bin/sh\n# just a script\necho hi\n";
	static const char empty_trace[] = "# tracer: nop\n#\n";
	static const char ok1[] = "  x-1 [000] 1.0: cpu_idle: state=1 cpu_id=0\n";
	struct fake a;
	struct hs_error err;
	int rc;

	rc = parse(&a, bin, sizeof(bin) - 1, &err);
	CHECK(rc == HS_ERR_INPUT && err.code == HS_ERR_INPUT &&
	      strstr(err.msg, "no trace lines recognised"), "binary garbage: input error");
	fake_free(&a);
	rc = parse(&a, comments, sizeof(comments) - 1, &err);
	CHECK(rc == HS_ERR_INPUT, "a shell script: input error");
	fake_free(&a);
	rc = parse(&a, "", 0, &err);
	CHECK(rc == HS_OK && a.nev == 0, "empty input: no error, no events");
	fake_free(&a);
	rc = parse(&a, empty_trace, sizeof(empty_trace) - 1, &err);
	CHECK(rc == HS_OK && a.nev == 0, "trace header without events: no error");
	fake_free(&a);
	/* the buffer is not NUL-terminated: parse only the first n bytes */
	rc = parse(&a, ok1, sizeof(ok1) - 10, &err);
	CHECK(rc == HS_OK && a.nev == 0 && a.meta.skipped_lines == 1,
	      "cut line: malformed, counted, no overread");
	fake_free(&a);
	fake_init(&a);
	a.fail_after = 0;
	hs_error_clear(&err);
	rc = text_read(ok1, sizeof(ok1) - 1, &a, &err);
	CHECK(rc == HS_ERR_RUNTIME && err.code == HS_ERR_RUNTIME,
	      "accounting failure: runtime error");
	fake_free(&a);
}

/* A huge line costs one pass and is one skipped line; events around it stay. */
static void test_long_line(void)
{
	const size_t big = (size_t)64 << 20;
	static const char before[] = "  x-1 [000] 1.0: cpu_idle: state=1 cpu_id=0\n";
	static const char after[] = "  x-1 [000] 2.0: cpu_idle: state=4294967295 cpu_id=0\n";
	static const char ev_head[] = "  x-1 [000] 3.0: cpu_idle: state=1 cpu_id=0";
	static const char unk_head[] = "  x-1 [000] 4.0: some_event: ";
	struct fake a;
	struct hs_error err;
	size_t pos = 0, i;
	char *s;
	int rc;

	s = malloc(3 * big + 512);
	if (!s) {
		printf("skip long line: no memory\n");
		return;
	}
	memcpy(s + pos, before, sizeof(before) - 1);
	pos += sizeof(before) - 1;
	for (i = 0; i < big; i++)	/* garbage that looks like CPU columns */
		s[pos + i] = "a [1] 9:"[i % 8];
	pos += big;
	s[pos++] = '\n';
	memcpy(s + pos, ev_head, sizeof(ev_head) - 1);	/* known event, huge tail */
	pos += sizeof(ev_head) - 1;
	memset(s + pos, 'z', big);
	pos += big;
	s[pos++] = '\n';
	memcpy(s + pos, unk_head, sizeof(unk_head) - 1);	/* other event, huge payload */
	pos += sizeof(unk_head) - 1;
	memset(s + pos, 'y', big);
	pos += big;
	s[pos++] = '\n';
	memcpy(s + pos, after, sizeof(after) - 1);
	pos += sizeof(after) - 1;
	rc = parse(&a, s, pos, &err);
	CHECK(rc == HS_OK, "64 MiB lines: read");
	CHECK_EQ_U64(a.nev, 2, "64 MiB lines: the two good events");
	CHECK_EQ_U64(a.meta.skipped_lines, 2, "64 MiB lines: garbage and malformed skipped");
	CHECK(a.nev == 2 && a.ev[0].ts == 1000000000ull && a.ev[1].ts == 2000000000ull,
	      "64 MiB lines: order kept");
	fake_free(&a);
	free(s);
}

int main(void)
{
	static struct truth t[NTRUTH];

	truth_make(t, NTRUTH);
	test_forms(t, NTRUTH);
	test_mixed(t, NTRUTH);
	test_garbage(t, NTRUTH);
	test_lost();
	test_exact();
	test_sched();
	test_sched_names();
	test_real();
	test_context();
	test_errors();
	test_long_line();
	return CHECK_DONE();
}
