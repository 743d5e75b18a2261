// SPDX-License-Identifier: GPL-2.0-only
/*
 * hs-synth: a synthetic halt-polling trace with known answers.
 *
 * Simulates vCPU threads halting with a gap pattern under KVM's adaptive
 * halt-polling window (Linux >= 6.1 rules), and writes what the kernel would
 * have traced: raw ring-buffer pages in a trace.dat v6, and optionally the
 * same events as the kernel's `trace` text. It prints the true counts as
 * JSON. The window logic here is written apart from lib/sim.c on purpose, so
 * that each can check the other.
 *
 * Event layouts come from the event format files: tracefs when readable,
 * else the copies in tests/data/formats (kernel facts, not our output).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "tool_opts.h"
#include "../../formats/trace/tracedat_write.h"
#include "../../lib/sys/workload.h"
#include "../../lib/units.h"

#define SY_MAX_VMS	64
#define SY_MAX_VCPUS	4096
#define SY_MAX_CPUS	256
#define SY_MAX_FIELDS	24
#define SY_TS_BITS	27
#define SY_TYPE_PADDING	29
#define SY_TYPE_EXTEND	30
#define SY_SMALL_MAX	(28 * 4)
#define SY_MISSED	(1ull << 31)
#define SY_MISSED_STORED (1ull << 30)
#define SY_IDLE_EXIT	4294967295u
#define SY_PENDING_NS	300		/* a halt that finds its wake pending: no sleep, this long */

static void sy_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void sy_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hs-synth: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void *sy_alloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		sy_die("out of memory");
	return p;
}

/* ---- event formats ---- */

struct sy_field {
	char name[32];
	unsigned int off;
	unsigned int size;
};

struct sy_format {
	const char *system;
	const char *name;
	char *text;
	size_t len;
	unsigned int id;
	unsigned int payload;		/* sizeof the kernel's entry struct */
	struct sy_field f[SY_MAX_FIELDS];
	unsigned int nf;
	const char *memo_name[SY_MAX_FIELDS];	/* sy_off() by the caller's literal */
	unsigned int memo_off[SY_MAX_FIELDS];
	unsigned int nmemo;
};

/* Text is formatted only when asked for: it costs more than the rest. */
static bool sy_text_on;

/* SY_F_WAKING last: its format is loaded and written only with --waking */
enum { SY_F_WAKEUP, SY_F_POLL, SY_F_IDLE, SY_F_GPOLL, SY_F_SWITCH, SY_F_WAKING, SY_NFMT };

static struct sy_format sy_fmt[SY_NFMT] = {
	[SY_F_WAKEUP] = { .system = "kvm", .name = "kvm_vcpu_wakeup" },
	[SY_F_POLL] = { .system = "kvm", .name = "kvm_halt_poll_ns" },
	[SY_F_IDLE] = { .system = "power", .name = "cpu_idle" },
	[SY_F_GPOLL] = { .system = "power", .name = "guest_halt_poll_ns" },
	[SY_F_SWITCH] = { .system = "sched", .name = "sched_switch" },
	[SY_F_WAKING] = { .system = "sched", .name = "sched_waking" },
};

static char *sy_read_file(const char *path, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	buf = sy_alloc(cap + 1);
	/* tracefs files report size 0: read to EOF. */
	for (;;) {
		ssize_t r = read(fd, buf + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			close(fd);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == cap) {
			char *nb = realloc(buf, cap * 2 + 1);

			if (!nb)
				sy_die("out of memory");
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
}

static bool sy_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* "\tfield:unsigned int vcpu_id;\toffset:12;\tsize:4;\tsigned:0;" */
static int sy_parse_field(const char *line, struct sy_field *f)
{
	const char *decl = strstr(line, "field:"), *semi, *p, *name;
	size_t n;

	if (!decl || !(semi = strchr(decl, ';')))
		return -1;
	p = semi;
	while (p > decl && p[-1] == ']')	/* strip an array suffix */
		while (p > decl && *--p != '[')
			;
	name = p;
	while (name > decl && sy_ident(name[-1]))
		name--;
	n = (size_t)(p - name);
	if (!n || n >= sizeof(f->name))
		return -1;
	memcpy(f->name, name, n);
	f->name[n] = 0;
	p = strstr(semi, "offset:");
	if (!p || sscanf(p, "offset:%u;", &f->off) != 1)
		return -1;
	p = strstr(p, "size:");
	if (!p || sscanf(p, "size:%u;", &f->size) != 1)
		return -1;
	return 0;
}

static unsigned int sy_field_align(const struct sy_field *f)
{
	return (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) ? f->size : 1;
}

static void sy_format_parse(struct sy_format *fmt, const char *path)
{
	const char *line = fmt->text;
	unsigned int end = 0, align = 1;
	bool have_id = false;

	while (line && *line) {
		const char *nl = strchr(line, '\n');

		if (!strncmp(line, "ID:", 3))
			have_id = sscanf(line, "ID: %u", &fmt->id) == 1;
		else if (strstr(line, "field:") && fmt->nf < SY_MAX_FIELDS) {
			struct sy_field *f = &fmt->f[fmt->nf];

			if (sy_parse_field(line, f))
				sy_die("%s: cannot parse field line", path);
			if (f->off + f->size > end)
				end = f->off + f->size;
			if (sy_field_align(f) > align)
				align = sy_field_align(f);
			fmt->nf++;
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!have_id || !fmt->nf)
		sy_die("%s: not an event format file", path);
	/* The kernel reserves sizeof(struct trace_event_raw_*), tail padding included. */
	fmt->payload = (end + align - 1) / align * align;
}

static unsigned int sy_off(struct sy_format *fmt, const char *name, unsigned int size)
{
	for (unsigned int i = 0; i < fmt->nmemo; i++)
		if (fmt->memo_name[i] == name)
			return fmt->memo_off[i];
	for (unsigned int i = 0; i < fmt->nf; i++) {
		if (strcmp(fmt->f[i].name, name))
			continue;
		if (fmt->f[i].size < size)
			sy_die("%s:%s has size %u, want %u", fmt->name, name, fmt->f[i].size, size);
		if (fmt->nmemo < SY_MAX_FIELDS) {
			fmt->memo_name[fmt->nmemo] = name;
			fmt->memo_off[fmt->nmemo++] = fmt->f[i].off;
		}
		return fmt->f[i].off;
	}
	sy_die("event %s has no field %s", fmt->name, name);
}

struct sy_header {
	char *page;
	size_t page_len;
	char *event;
	size_t event_len;
	unsigned int page_size;
	unsigned int data_off;
};

static void sy_header_parse(struct sy_header *h, const char *path)
{
	const char *p = strstr(h->page, "char data;");
	unsigned int off, size;

	if (!p || sscanf(p, "char data;\toffset:%u;\tsize:%u;", &off, &size) != 2)
		sy_die("%s: no data field", path);
	if (off != 16)
		sy_die("%s: only 64-bit page headers are supported", path);
	h->data_off = off;
	h->page_size = off + size;
	if (h->page_size & (h->page_size - 1))
		sy_die("%s: page size %u is not a power of two", path, h->page_size);
}

/* tracefs when it is there (the running kernel's truth), else the copies. */
static const char *sy_formats_dir(const char *opt)
{
	static char buf[4096];
	const char *top = getenv("HS_TOP");

	if (opt)
		return opt;
	if (access("/sys/kernel/tracing/events/header_page", R_OK) == 0)
		return "/sys/kernel/tracing/events";
	if (top) {
		snprintf(buf, sizeof(buf), "%s/tests/data/formats", top);
		return buf;
	}
	return "tests/data/formats";
}

static void sy_load_formats(const char *dir, struct sy_header *h, int nfmt)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/header_page", dir);
	if (!(h->page = sy_read_file(path, &h->page_len)))
		sy_die("cannot read %s: %s", path, strerror(errno));
	sy_header_parse(h, path);
	snprintf(path, sizeof(path), "%s/header_event", dir);
	if (!(h->event = sy_read_file(path, &h->event_len)))
		sy_die("cannot read %s: %s", path, strerror(errno));
	for (int i = 0; i < nfmt; i++) {
		struct sy_format *f = &sy_fmt[i];

		snprintf(path, sizeof(path), "%s/%s/%s/format", dir, f->system, f->name);
		if (!(f->text = sy_read_file(path, &f->len)))
			sy_die("cannot read %s: %s", path, strerror(errno));
		sy_format_parse(f, path);
	}
}

/* ---- options ---- */

struct sy_opts {
	unsigned int nvcpus, nvms, ncpus;
	uint64_t halts;			/* per vCPU */
	struct hs_gap_pattern gaps;
	const char *gaps_spec;
	uint64_t module_m;
	int64_t vm_m[SY_MAX_VMS];	/* -1: the module's */
	uint32_t grow, grow_start, shrink;
	uint64_t delta;			/* wake-up overhead of a blocked vCPU */
	uint64_t delta_spread;		/* mean of an exponential added to it per wait */
	double cut;			/* chance another task is runnable during a polled halt */
	bool waking;			/* sched_waking of each wait's thread when its wake comes */
	bool open_loop;			/* wakes a gap apart in absolute time, not a gap after each halt starts */
	uint64_t run_ns;		/* guest runs this long between halts */
	double migrate;			/* chance a woken vCPU thread lands on another CPU */
	double noise;			/* sched_switch per second per CPU */
	bool guest_idle;
	unsigned int lost;		/* loss episodes */
	uint64_t lost_size;		/* events dropped per episode */
	uint64_t seed;
	uint64_t start_ns;
	int tid_base;
	const char *formats;
	const char *out, *text, *json;
	const char *release;
	const char *vm_names;
};

/* ---- random numbers (splitmix64: reproducible everywhere) ---- */

static uint64_t sy_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double sy_unit(uint64_t *s)
{
	return (double)(sy_rand(s) >> 11) / 9007199254740992.0;
}

/* ---- per-CPU ring-buffer pages ---- */

struct sy_cpu {
	uint8_t *buf;
	size_t cap;			/* bytes */
	size_t npages;
	uint8_t *page;			/* open page, or NULL */
	unsigned int used;		/* data bytes used in it */
	bool page_missed;
	uint64_t last_ts;
	uint64_t dropping;		/* events still to drop */
	uint64_t pending_lost;		/* dropped, not yet reported on a page */
	uint64_t text_lost;		/* dropped, not yet reported in the text */
	uint64_t entries;
	uint64_t lost;
	uint64_t first_ts;
};

struct sy_ctx {
	struct sy_opts *o;
	struct sy_header h;
	struct sy_cpu cpu[SY_MAX_CPUS];
	FILE *text;
	uint64_t events;
	uint64_t last_ts;
};

static void sy_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void sy_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void sy_page_close(struct sy_ctx *x, struct sy_cpu *c)
{
	uint64_t commit = c->used;

	if (!c->page)
		return;
	if (c->page_missed) {
		/* As ring_buffer_read_page(): the count sits right after the data. */
		commit |= SY_MISSED | SY_MISSED_STORED;
		sy_put64(c->page + x->h.data_off + c->used, c->pending_lost);
		c->pending_lost = 0;
	}
	sy_put64(c->page + 8, commit);
	c->page = NULL;
}

static void sy_page_open(struct sy_ctx *x, struct sy_cpu *c, uint64_t ts)
{
	size_t ps = x->h.page_size;

	if ((c->npages + 1) * ps > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64 * ps;
		uint8_t *nb = realloc(c->buf, cap);

		if (!nb)
			sy_die("out of memory");
		c->buf = nb;
		c->cap = cap;
	}
	c->page = c->buf + c->npages * ps;
	c->npages++;
	memset(c->page, 0, ps);
	sy_put64(c->page, ts);
	c->used = 0;
	c->last_ts = ts;
	c->page_missed = c->pending_lost > 0;
}

/* Bytes an event takes: 4-byte header (+4 length word when large), 4-aligned. */
static unsigned int sy_rec_len(unsigned int payload)
{
	unsigned int len = (payload + 3) & ~3u;

	return len > SY_SMALL_MAX ? len + 8 : len + 4;
}

static void sy_write_event(struct sy_ctx *x, struct sy_cpu *c, uint64_t ts,
			   const uint8_t *payload, unsigned int plen)
{
	unsigned int rec = sy_rec_len(plen), room;
	uint64_t delta;
	uint8_t *p;

	room = x->h.page_size - x->h.data_off - (c->page_missed ? 8 : 0);
	delta = c->page ? ts - c->last_ts : 0;
	if (!c->page || c->used + rec + (delta >> SY_TS_BITS ? 8 : 0) > room) {
		sy_page_close(x, c);
		sy_page_open(x, c, ts);
		delta = 0;
	}
	p = c->page + x->h.data_off + c->used;
	if (delta >> SY_TS_BITS) {
		sy_put32(p, SY_TYPE_EXTEND | (uint32_t)((delta & ((1u << SY_TS_BITS) - 1)) << 5));
		sy_put32(p + 4, (uint32_t)(delta >> SY_TS_BITS));
		p += 8;
		c->used += 8;
		delta = 0;
	}
	if (((plen + 3) & ~3u) > SY_SMALL_MAX) {
		sy_put32(p, (uint32_t)(delta << 5));
		sy_put32(p + 4, ((plen + 3) & ~3u) + 4);
		p += 8;
	} else {
		sy_put32(p, (uint32_t)(delta << 5) | ((plen + 3) / 4));
		p += 4;
	}
	memcpy(p, payload, plen);
	c->used += rec;
	c->last_ts = ts;
}

static void sy_start_loss(struct sy_ctx *x, unsigned int cpu)
{
	struct sy_cpu *c = &x->cpu[cpu];

	/* Overwritten pages vanish whole: the reader sees a full page, then a gap. */
	sy_page_close(x, c);
	c->dropping += x->o->lost_size;
}

/* Returns false when the event fell into an injected loss. */
static bool sy_emit(struct sy_ctx *x, unsigned int cpu, uint64_t ts,
		    const uint8_t *payload, unsigned int plen)
{
	struct sy_cpu *c = &x->cpu[cpu];

	if (c->dropping) {
		c->dropping--;
		c->lost++;
		c->pending_lost++;
		c->text_lost++;
		return false;
	}
	if (!c->entries)
		c->first_ts = ts;
	sy_write_event(x, c, ts, payload, plen);
	c->entries++;
	x->events++;
	x->last_ts = ts;
	return true;
}

/* ---- event payloads and their kernel text ---- */

struct sy_ev {
	uint8_t buf[128];
	unsigned int len;
	char line[256];			/* payload as the kernel prints it */
};

static void sy_ev_init(struct sy_ev *e, struct sy_format *f, int pid)
{
	uint16_t type = (uint16_t)f->id;

	if (f->payload > sizeof(e->buf))
		sy_die("%s: entry of %u bytes is too large", f->name, f->payload);
	memset(e->buf, 0, f->payload);
	e->len = f->payload;
	e->buf[sy_off(f, "common_type", 2)] = (uint8_t)type;
	e->buf[sy_off(f, "common_type", 2) + 1] = (uint8_t)(type >> 8);
	sy_put32(e->buf + sy_off(f, "common_pid", 4), (uint32_t)pid);
}

static void sy_ev_u32(struct sy_ev *e, struct sy_format *f, const char *name, uint32_t v)
{
	sy_put32(e->buf + sy_off(f, name, 4), v);
}

static void sy_ev_wakeup(struct sy_ev *e, int pid, uint64_t ns, bool waited)
{
	struct sy_format *f = &sy_fmt[SY_F_WAKEUP];

	sy_ev_init(e, f, pid);
	sy_put64(e->buf + sy_off(f, "ns", 8), ns);
	e->buf[sy_off(f, "waited", 1)] = waited;
	e->buf[sy_off(f, "valid", 1)] = 1;
	if (sy_text_on)
		snprintf(e->line, sizeof(e->line), "%s time %" PRIu64 " ns, polling valid",
			 waited ? "wait" : "poll", ns);
}

static void sy_ev_poll(struct sy_ev *e, int pid, uint32_t vcpu, uint32_t nw, uint32_t old, bool grow)
{
	struct sy_format *f = &sy_fmt[SY_F_POLL];

	sy_ev_init(e, f, pid);
	e->buf[sy_off(f, "grow", 1)] = grow;
	sy_ev_u32(e, f, "vcpu_id", vcpu);
	sy_ev_u32(e, f, "new", nw);
	sy_ev_u32(e, f, "old", old);
	if (sy_text_on)
		snprintf(e->line, sizeof(e->line), "vcpu %u: halt_poll_ns %u (%s %u)",
			 vcpu, nw, grow ? "grow" : "shrink", old);
}

static void sy_ev_idle(struct sy_ev *e, uint32_t state, uint32_t cpu)
{
	struct sy_format *f = &sy_fmt[SY_F_IDLE];

	sy_ev_init(e, f, 0);
	sy_ev_u32(e, f, "state", state);
	sy_ev_u32(e, f, "cpu_id", cpu);
	if (sy_text_on)
		snprintf(e->line, sizeof(e->line), "state=%u cpu_id=%u", state, cpu);
}

static void sy_ev_switch(struct sy_ev *e, const char *pcomm, int ppid, const char *ncomm, int npid)
{
	struct sy_format *f = &sy_fmt[SY_F_SWITCH];
	unsigned int po = sy_off(f, "prev_comm", 16), no = sy_off(f, "next_comm", 16);

	sy_ev_init(e, f, ppid);
	strncpy((char *)e->buf + po, pcomm, 15);
	strncpy((char *)e->buf + no, ncomm, 15);
	sy_put32(e->buf + sy_off(f, "prev_pid", 4), (uint32_t)ppid);
	sy_put32(e->buf + sy_off(f, "prev_prio", 4), 120);
	/* The idle task is preempted (R); a kworker goes to sleep (S). */
	sy_put64(e->buf + sy_off(f, "prev_state", 8), ppid ? 1 : 0);
	sy_put32(e->buf + sy_off(f, "next_pid", 4), (uint32_t)npid);
	sy_put32(e->buf + sy_off(f, "next_prio", 4), 120);
	if (sy_text_on)
		snprintf(e->line, sizeof(e->line),
			 "prev_comm=%s prev_pid=%d prev_prio=120 prev_state=%s ==> "
			 "next_comm=%s next_pid=%d next_prio=120", pcomm, ppid, ppid ? "S" : "R",
			 ncomm, npid);
}

static void sy_ev_waking(struct sy_ev *e, int waker, const char *comm, int pid, unsigned int cpu)
{
	struct sy_format *f = &sy_fmt[SY_F_WAKING];

	sy_ev_init(e, f, waker);
	memcpy(e->buf + sy_off(f, "comm", 16), comm, strnlen(comm, 15));
	sy_put32(e->buf + sy_off(f, "pid", 4), (uint32_t)pid);
	sy_put32(e->buf + sy_off(f, "prio", 4), 120);
	sy_put32(e->buf + sy_off(f, "target_cpu", 4), cpu);
	if (sy_text_on)
		snprintf(e->line, sizeof(e->line), "comm=%s pid=%d prio=120 target_cpu=%03u",
			 comm, pid, cpu);
}

/* trace_print_context() with irq-info: "%16s-%-7d [%03d] ..... %5llu.%06lu: " */
static void sy_text(struct sy_ctx *x, unsigned int cpu, uint64_t ts, const char *comm, int pid,
		    const char *event, const char *line)
{
	struct sy_cpu *c = &x->cpu[cpu];
	uint64_t us;

	if (!x->text)
		return;
	if (c->text_lost) {
		fprintf(x->text, "CPU:%u [LOST %" PRIu64 " EVENTS]\n", cpu, c->text_lost);
		c->text_lost = 0;
	}
	/* ns2usecs() rounds to the nearest microsecond. */
	us = (ts + 500) / 1000;
	fprintf(x->text, "%16s-%-7d [%03u] ..... %5" PRIu64 ".%06" PRIu64 ": %s: %s\n",
		comm, pid, cpu, us / 1000000u, us % 1000000u, event, line);
}

static bool sy_put(struct sy_ctx *x, unsigned int cpu, uint64_t ts, int fmt, const char *comm,
		   int pid, const struct sy_ev *e)
{
	if (!sy_emit(x, cpu, ts, e->buf, e->len))
		return false;
	sy_text(x, cpu, ts, comm, pid, sy_fmt[fmt].name, e->line);
	return true;
}

/* ---- the vCPU model ---- */

struct sy_vcpu {
	int tid;
	int tgid;
	unsigned int vm;
	unsigned int id;		/* vcpu_id inside its VM */
	char comm[16];
	unsigned int cpu;
	uint64_t m;			/* maximum window M of its VM */
	uint32_t p;			/* current window P */
	struct hs_gap_gen gen;
	uint64_t delta_rng;		/* the overheads' own stream: gaps stay those of the seed */
	uint64_t cut_rng;		/* --cut's own stream, likewise */
	uint64_t left;
	bool in_halt;
	uint64_t waking_at;		/* a sched_waking due then (--waking), 0 none */
	uint64_t next_wake;		/* --open-loop: when the next wake comes, 0 before the first */
	uint64_t end;
	/* the halt in progress, decided when it starts */
	uint64_t ns;
	bool waited;
	bool polled;
	bool cut_short;			/* its poll was cut and the halt ended inside the window */
	int change;			/* +1 grow, -1 shrink, 0 none */
	uint32_t ch_new, ch_old;
	/* what the trace holds */
	uint64_t halts, hits, waits, misses, nopoll, grows, shrinks, dropped, cuts_short;
	/* what happened, lost or not */
	uint64_t sim_halts, sim_hits, sim_grows, sim_shrinks, poll_cpu_ns;
	uint64_t successful_polls;	/* hits with a window in force: KVM's halt_successful_poll */
	uint64_t cuts;			/* polls cut before their window and their wake */
};

static void sy_grow(struct sy_vcpu *v, const struct sy_opts *o)
{
	uint32_t old = v->p, val = old;

	if (o->grow) {
		val = old * o->grow;		/* unsigned int arithmetic, as the kernel */
		if (val < o->grow_start)
			val = o->grow_start;
		v->p = val;
	}
	v->change = 1;
	v->ch_new = val;
	v->ch_old = old;
}

static void sy_shrink(struct sy_vcpu *v, const struct sy_opts *o)
{
	uint32_t old = v->p, val = o->shrink ? old / o->shrink : 0;

	if (val < o->grow_start)
		val = 0;
	v->p = val;
	v->change = -1;
	v->ch_new = val;
	v->ch_old = old;
}

/* A wait's wake-up overhead: --delta, plus an exponential draw with --delta-spread. */
static uint64_t sy_wait_delta(struct sy_vcpu *v, const struct sy_opts *o)
{
	if (!o->delta_spread)
		return o->delta;
	return o->delta + (uint64_t)(-log1p(-sy_unit(&v->delta_rng)) * (double)o->delta_spread);
}

/*
 * --cut: another task runnable on the vCPU's CPU at a moment drawn uniformly
 * in the window ends the poll there (single_task_running()); UINT64_MAX none.
 */
static uint64_t sy_poll_cut(struct sy_vcpu *v, const struct sy_opts *o, uint32_t p)
{
	if (!p || o->cut <= 0 || sy_unit(&v->cut_rng) >= o->cut)
		return UINT64_MAX;
	return (uint64_t)(sy_unit(&v->cut_rng) * p);
}

/*
 * kvm_vcpu_halt() of Linux >= 6.1, for a vCPU whose wake comes d ns after
 * the halt starts; pending: it came before (open loop), and the halt ends
 * after d ns without a sleep, polled or not.
 */
static void sy_halt_decide(struct sy_vcpu *v, const struct sy_opts *o, uint64_t d, bool pending)
{
	uint64_t cut, polled;
	uint32_t p;

	if (v->p > v->m)
		v->p = (uint32_t)v->m;		/* silent clamp at entry */
	p = v->p;
	cut = sy_poll_cut(v, o, p);
	polled = cut < p ? cut : p;
	v->polled = p != 0;
	v->waited = !(pending || d == 0 || (p && d <= polled));
	v->ns = v->waited ? d + sy_wait_delta(v, o) : d;
	v->poll_cpu_ns += v->waited ? polled : d;
	v->cuts += v->waited && cut < p;
	v->cut_short = v->waited && cut < p && v->ns < p;
	v->change = 0;
	if (!v->m)
		v->p = 0;
	else if (v->ns <= p)
		;
	else if (p && v->ns > v->m)
		sy_shrink(v, o);
	else if (p < v->m && v->ns < v->m)
		sy_grow(v, o);
	v->sim_halts++;
	v->sim_hits += !v->waited;
	v->successful_polls += !v->waited && v->polled;
	v->sim_grows += v->change > 0;
	v->sim_shrinks += v->change < 0;
}

struct sy_run {
	struct sy_ctx *x;
	struct sy_vcpu *v;
	unsigned int nv;
	uint64_t *key;			/* next time per source: vCPUs, then noise per CPU */
	unsigned int *heap;
	unsigned int nheap;
	unsigned int active;
	uint64_t rng;
	uint64_t ended;			/* halts ended, for placing losses */
	uint64_t total_halts;
	unsigned int lost_done;
	uint64_t noise_events;
	uint64_t idle_events;
	uint64_t waking_events;
	bool noise_flip[SY_MAX_CPUS];
};

static bool sy_before(const struct sy_run *r, unsigned int a, unsigned int b)
{
	return r->key[a] < r->key[b] || (r->key[a] == r->key[b] && a < b);
}

static void sy_heap_push(struct sy_run *r, unsigned int s)
{
	unsigned int i = r->nheap++;

	r->heap[i] = s;
	while (i && sy_before(r, r->heap[i], r->heap[(i - 1) / 2])) {
		unsigned int t = r->heap[i];

		r->heap[i] = r->heap[(i - 1) / 2];
		r->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static unsigned int sy_heap_pop(struct sy_run *r)
{
	unsigned int top = r->heap[0], i = 0;

	r->heap[0] = r->heap[--r->nheap];
	for (;;) {
		unsigned int l = 2 * i + 1, m = i, t;

		if (l < r->nheap && sy_before(r, r->heap[l], r->heap[m]))
			m = l;
		if (l + 1 < r->nheap && sy_before(r, r->heap[l + 1], r->heap[m]))
			m = l + 1;
		if (m == i)
			break;
		t = r->heap[i];
		r->heap[i] = r->heap[m];
		r->heap[m] = t;
		i = m;
	}
	return top;
}

static void sy_halt_begin(struct sy_run *r, unsigned int i, uint64_t t)
{
	struct sy_vcpu *v = &r->v[i];
	uint64_t d = hs_gap_gen_next(&v->gen);
	bool pending = false;
	struct sy_ev e;

	/* open loop: a wake that came while the guest ran is pending at the halt */
	if (r->x->o->open_loop) {
		v->next_wake = (v->next_wake ? v->next_wake : t) + d;
		pending = v->next_wake <= t;
		d = pending ? SY_PENDING_NS : v->next_wake - t;
	}
	sy_halt_decide(v, r->x->o, d, pending);
	v->in_halt = true;
	v->end = t + v->ns;
	v->waking_at = r->x->o->waking && v->waited ? t + d : 0;
	if (r->x->o->guest_idle) {
		sy_ev_idle(&e, 1, v->cpu);
		r->idle_events += sy_put(r->x, v->cpu, t, SY_F_IDLE, "<idle>", 0, &e);
	}
	r->key[i] = v->waking_at ? v->waking_at : v->end;
	sy_heap_push(r, i);
}

/* The waker (a thread of the VM's process, on the next CPU) wakes the blocked vCPU thread. */
static void sy_halt_waking(struct sy_run *r, unsigned int i)
{
	struct sy_vcpu *v = &r->v[i];
	unsigned int cpu = (v->cpu + 1) % r->x->o->ncpus;
	struct sy_ev e;

	sy_ev_waking(&e, v->tgid + 99, v->comm, v->tid, v->cpu);
	r->waking_events += sy_put(r->x, cpu, v->waking_at, SY_F_WAKING, "hs-waker", v->tgid + 99, &e);
	v->waking_at = 0;
	r->key[i] = v->end;
	sy_heap_push(r, i);
}

static void sy_maybe_lose(struct sy_run *r, unsigned int cpu)
{
	const struct sy_opts *o = r->x->o;
	uint64_t at;

	if (r->lost_done >= o->lost)
		return;
	at = (r->lost_done + 1) * r->total_halts / (o->lost + 1);
	if (r->ended < at)
		return;
	sy_start_loss(r->x, cpu);
	r->lost_done++;
}

static void sy_halt_end(struct sy_run *r, unsigned int i)
{
	const struct sy_opts *o = r->x->o;
	struct sy_vcpu *v = &r->v[i];
	struct sy_ev e;

	/* A blocked thread may be woken on another CPU. */
	if (v->waited && o->migrate > 0 && o->ncpus > 1 && sy_unit(&r->rng) < o->migrate)
		v->cpu = (v->cpu + 1 + (unsigned int)(sy_rand(&r->rng) % (o->ncpus - 1))) % o->ncpus;
	r->ended++;
	sy_maybe_lose(r, v->cpu);
	if (v->change) {
		sy_ev_poll(&e, v->tid, v->id, v->ch_new, v->ch_old, v->change > 0);
		if (sy_put(r->x, v->cpu, v->end, SY_F_POLL, v->comm, v->tid, &e)) {
			v->grows += v->change > 0;
			v->shrinks += v->change < 0;
		} else {
			v->dropped++;
		}
	}
	sy_ev_wakeup(&e, v->tid, v->ns, v->waited);
	if (sy_put(r->x, v->cpu, v->end, SY_F_WAKEUP, v->comm, v->tid, &e)) {
		v->halts++;
		v->hits += !v->waited;
		v->waits += v->waited;
		v->misses += v->waited && v->polled;
		v->nopoll += v->waited && !v->polled;
		v->cuts_short += v->cut_short;
	} else {
		v->dropped++;
	}
	if (o->guest_idle) {
		sy_ev_idle(&e, SY_IDLE_EXIT, v->cpu);
		r->idle_events += sy_put(r->x, v->cpu, v->end, SY_F_IDLE, "<idle>", 0, &e);
	}
	v->in_halt = false;
	if (--v->left) {
		r->key[i] = v->end + o->run_ns;
		sy_heap_push(r, i);
	} else {
		r->active--;
	}
}

static void sy_noise(struct sy_run *r, unsigned int cpu, uint64_t t)
{
	char kw[16], idle[16];
	int kpid = 100 + (int)cpu;
	struct sy_ev e;
	bool ok;

	snprintf(kw, sizeof(kw), "kworker/%u:1", cpu % 1000);
	snprintf(idle, sizeof(idle), "swapper/%u", cpu % 1000);
	if (r->noise_flip[cpu]) {
		sy_ev_switch(&e, kw, kpid, idle, 0);
		ok = sy_put(r->x, cpu, t, SY_F_SWITCH, kw, kpid, &e);
	} else {
		sy_ev_switch(&e, idle, 0, kw, kpid);
		ok = sy_put(r->x, cpu, t, SY_F_SWITCH, "<idle>", 0, &e);
	}
	r->noise_flip[cpu] = !r->noise_flip[cpu];
	r->noise_events += ok;
	r->key[r->nv + cpu] = t + 1 + (uint64_t)(-log1p(-sy_unit(&r->rng)) * 1e9 / r->x->o->noise);
	sy_heap_push(r, r->nv + cpu);
}

static void sy_simulate(struct sy_run *r)
{
	const struct sy_opts *o = r->x->o;

	for (unsigned int i = 0; i < r->nv; i++) {
		r->key[i] = o->start_ns + sy_rand(&r->rng) % 50000;
		sy_heap_push(r, i);
	}
	for (unsigned int c = 0; o->noise > 0 && c < o->ncpus; c++) {
		r->key[r->nv + c] = o->start_ns + sy_rand(&r->rng) % 100000;
		sy_heap_push(r, r->nv + c);
	}
	r->active = r->nv;
	while (r->active) {
		unsigned int s = sy_heap_pop(r);
		uint64_t t = r->key[s];

		if (s >= r->nv)
			sy_noise(r, s - r->nv, t);
		else if (r->v[s].waking_at)
			sy_halt_waking(r, s);
		else if (r->v[s].in_halt)
			sy_halt_end(r, s);
		else
			sy_halt_begin(r, s, t);
	}
}

/* ---- set-up ---- */

static void sy_vm_name(const struct sy_opts *o, unsigned int vm, char *out, size_t n)
{
	const char *s = o->vm_names;

	for (unsigned int i = 0; s && i < vm; i++) {
		s = strchr(s, ',');
		s = s ? s + 1 : NULL;
	}
	if (!s) {
		snprintf(out, n, "vm%u", vm);
		return;
	}
	snprintf(out, n, "%.*s", (int)strcspn(s, ","), s);
}

/* VM v holds vCPUs v, v + V, v + 2V, ...: every VM gets its share. */
static void sy_vcpus_init(struct sy_run *r, struct sy_opts *o)
{
	for (unsigned int i = 0; i < r->nv; i++) {
		struct sy_vcpu *v = &r->v[i];

		v->vm = i % o->nvms;
		v->id = i / o->nvms;
		v->tgid = o->tid_base + (int)v->vm * 100;
		v->tid = v->tgid + 1 + (int)v->id;
		snprintf(v->comm, sizeof(v->comm), "CPU %u/KVM", v->id % 10000);
		v->cpu = i % o->ncpus;
		v->m = o->vm_m[v->vm] >= 0 ? (uint64_t)o->vm_m[v->vm] : o->module_m;
		v->left = o->halts;
		hs_gap_gen_init(&v->gen, &o->gaps, i);
		v->delta_rng = o->seed * 0x2545f4914f6cdd1dull + (uint64_t)v->tid;
		v->cut_rng = o->seed * 0x9e3779b97f4a7c15ull + (uint64_t)v->tid;
	}
}

/* ---- outputs ---- */

struct sy_str {
	char *s;
	size_t len, cap;
};

static void sy_str_add(struct sy_str *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sy_str_add(struct sy_str *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			sy_die("formatting failed");
		if (b->s && b->len + (size_t)n < b->cap)
			break;
		b->cap = (b->cap + (size_t)n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			sy_die("out of memory");
	}
	b->len += (size_t)n;
}

static void sy_json_thread(FILE *f, const struct sy_run *r, const struct sy_vcpu *v)
{
	char name[64];

	sy_vm_name(r->x->o, v->vm, name, sizeof(name));
	fprintf(f, "{\"tid\":%d,\"tgid\":%d,\"comm\":\"%s\",\"vm\":\"%s\",\"vcpu_id\":%u,"
		"\"halt_poll_ns\":%" PRIu64 ",\"halts\":%" PRIu64 ",\"poll_hits\":%" PRIu64
		",\"waits\":%" PRIu64 ",\"poll_misses\":%" PRIu64 ",\"nopoll_waits\":%" PRIu64
		",\"grows\":%" PRIu64 ",\"shrinks\":%" PRIu64 ",\"dropped\":%" PRIu64
		",\"sim_halts\":%" PRIu64 ",\"sim_poll_hits\":%" PRIu64 ",\"sim_grows\":%" PRIu64
		",\"sim_shrinks\":%" PRIu64 ",\"successful_polls\":%" PRIu64
		",\"poll_cpu_ns\":%" PRIu64 ",\"polls_cut\":%" PRIu64 ",\"polls_cut_all\":%" PRIu64
		",\"final_window\":%u}",
		v->tid, v->tgid, v->comm, name, v->id, v->m, v->halts, v->hits, v->waits,
		v->misses, v->nopoll, v->grows, v->shrinks, v->dropped, v->sim_halts,
		v->sim_hits, v->sim_grows, v->sim_shrinks, v->successful_polls, v->poll_cpu_ns,
		v->cuts_short, v->cuts, v->p);
}

static int sy_json(const struct sy_run *r)
{
	const struct sy_opts *o = r->x->o;
	FILE *f = o->json ? fopen(o->json, "w") : stdout;
	uint64_t t[8] = { 0 }, lost = 0;

	if (!f)
		sy_die("cannot write %s: %s", o->json, strerror(errno));
	fprintf(f, "{\"threads\":[");
	for (unsigned int i = 0; i < r->nv; i++) {
		const struct sy_vcpu *v = &r->v[i];

		sy_json_thread(f, r, v);
		fputs(i + 1 < r->nv ? "," : "", f);
		t[0] += v->halts; t[1] += v->hits; t[2] += v->waits; t[3] += v->misses;
		t[4] += v->nopoll; t[5] += v->grows; t[6] += v->shrinks; t[7] += v->sim_halts;
	}
	for (unsigned int c = 0; c < o->ncpus; c++)
		lost += r->x->cpu[c].lost;
	fprintf(f, "],\"totals\":{\"halts\":%" PRIu64 ",\"poll_hits\":%" PRIu64 ",\"waits\":%" PRIu64
		",\"poll_misses\":%" PRIu64 ",\"nopoll_waits\":%" PRIu64 ",\"grows\":%" PRIu64
		",\"shrinks\":%" PRIu64 ",\"sim_halts\":%" PRIu64 "},\"events\":%" PRIu64
		",\"noise_events\":%" PRIu64 ",\"idle_events\":%" PRIu64
		",\"waking_events\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"lost_episodes\":%u,\"cpus\":%u,\"vms\":%u,\"halt_poll_ns\":%" PRIu64
		",\"grow\":%u,\"grow_start\":%u,\"shrink\":%u,\"delta_ns\":%" PRIu64
		",\"delta_spread_ns\":%" PRIu64
		",\"first_ts\":%" PRIu64 ",\"last_ts\":%" PRIu64 "}\n",
		t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], r->x->events, r->noise_events,
		r->idle_events, r->waking_events, lost, r->lost_done, o->ncpus, o->nvms,
		o->module_m, o->grow, o->grow_start, o->shrink, o->delta, o->delta_spread,
		o->start_ns, r->x->last_ts);
	if (o->json ? fclose(f) : fflush(f))
		sy_die("cannot write %s", o->json ? o->json : "stdout");
	return 0;
}

static void sy_meta(const struct sy_run *r, struct sy_str *m)
{
	const struct sy_opts *o = r->x->o;
	char name[64];

	sy_str_add(m, "haltstat_version=%s\nkernel_release=%s\nclock=local\n", HS_VERSION, o->release);
	sy_str_add(m, "record_seconds=%.3f\nncpus=%u\n",
		   (double)(r->x->last_ts - o->start_ns) / 1e9, o->ncpus);
	sy_str_add(m, "events=kvm:kvm_vcpu_wakeup,kvm:kvm_halt_poll_ns%s%s\n",
		   o->guest_idle ? ",power:cpu_idle" : "", o->waking ? ",sched:sched_waking" : "");
	sy_str_add(m, "param.halt_poll_ns=%" PRIu64 "\nparam.halt_poll_ns_grow=%u\n"
		   "param.halt_poll_ns_grow_start=%u\nparam.halt_poll_ns_shrink=%u\n",
		   o->module_m, o->grow, o->grow_start, o->shrink);
	for (unsigned int c = 0; c < o->ncpus; c++)
		sy_str_add(m, "lost.cpu%u=%" PRIu64 "\n", c, r->x->cpu[c].lost);
	for (unsigned int i = 0; i < r->nv; i++)
		sy_str_add(m, "thread=%d %d %s\n", r->v[i].tid, r->v[i].tgid, r->v[i].comm);
	for (unsigned int vm = 0; vm < o->nvms && vm < r->nv; vm++) {
		sy_vm_name(o, vm, name, sizeof(name));
		sy_str_add(m, "process=%d %s\tqemu-system-x86\n", r->v[vm].tgid, name);
	}
}

static void sy_cmdlines(const struct sy_run *r, struct sy_str *s)
{
	const struct sy_opts *o = r->x->o;

	for (unsigned int i = 0; i < r->nv; i++)
		sy_str_add(s, "%d %s\n", r->v[i].tid, r->v[i].comm);
	for (unsigned int vm = 0; vm < o->nvms && vm < r->nv; vm++)
		sy_str_add(s, "%d qemu-system-x86\n", r->v[vm].tgid);
	for (unsigned int c = 0; o->noise > 0 && c < o->ncpus; c++)
		sy_str_add(s, "%u kworker/%u:1\n", 100 + c, c % 1000);
}

static void sy_cpustat(const struct sy_run *r, struct sy_str *st, unsigned int cpu)
{
	const struct sy_cpu *c = &r->x->cpu[cpu];

	sy_str_add(st, "entries: %" PRIu64 "\noverrun: %" PRIu64 "\ncommit overrun: 0\n"
		   "bytes: %zu\noldest event ts: %" PRIu64 ".%06" PRIu64 "\n"
		   "now ts: %" PRIu64 ".%06" PRIu64 "\ndropped events: 0\nread events: %" PRIu64 "\n",
		   c->entries, c->lost, c->npages * r->x->h.page_size,
		   c->first_ts / 1000000000u, c->first_ts % 1000000000u / 1000u,
		   r->x->last_ts / 1000000000u, r->x->last_ts % 1000000000u / 1000u, c->entries);
}

static void sy_tracedat(struct sy_run *r)
{
	const struct sy_opts *o = r->x->o;
	struct hs_tracedat_format fmts[SY_NFMT];
	int nfmt = o->waking ? SY_NFMT : SY_F_WAKING;
	struct hs_tracedat_cpu cpus[SY_MAX_CPUS];
	struct sy_str meta = { 0 }, cmd = { 0 }, st[SY_MAX_CPUS];
	const char *stp[SY_MAX_CPUS];
	struct hs_tracedat_desc d;
	struct hs_error err;
	char uname_s[512];
	int fd;

	memset(&d, 0, sizeof(d));
	memset(st, 0, sizeof(st));
	for (int i = 0; i < nfmt; i++) {
		fmts[i].system = sy_fmt[i].system;
		fmts[i].text = sy_fmt[i].text;
		fmts[i].len = sy_fmt[i].len;
	}
	for (unsigned int c = 0; c < o->ncpus; c++) {
		sy_page_close(r->x, &r->x->cpu[c]);
		cpus[c].buf = r->x->cpu[c].buf;
		cpus[c].fd = -1;
		cpus[c].size = (uint64_t)r->x->cpu[c].npages * r->x->h.page_size;
		sy_cpustat(r, &st[c], c);
		stp[c] = st[c].s;
	}
	sy_meta(r, &meta);
	sy_cmdlines(r, &cmd);
	snprintf(uname_s, sizeof(uname_s), "Linux hs-synth %s #1 SMP x86_64", o->release);
	d.page_size = r->x->h.page_size;
	d.header_page = r->x->h.page;
	d.header_page_len = r->x->h.page_len;
	d.header_event = r->x->h.event;
	d.header_event_len = r->x->h.event_len;
	d.formats = fmts;
	d.nformats = (unsigned int)nfmt;
	d.cmdlines = cmd.s;
	d.cmdlines_len = cmd.len;
	d.ncpus = o->ncpus;
	d.cpus = cpus;
	d.uname = uname_s;
	d.clock = "local";
	d.cpustat = stp;
	d.meta = meta.s;
	d.meta_len = meta.len;
	hs_error_clear(&err);
	fd = open(o->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		sy_die("cannot create %s: %s", o->out, strerror(errno));
	if (hs_tracedat_write(fd, &d, &err))
		sy_die("%s: %s", o->out, err.msg);
	if (close(fd))
		sy_die("%s: %s", o->out, strerror(errno));
	for (unsigned int c = 0; c < o->ncpus; c++)
		free(st[c].s);
	free(meta.s);
	free(cmd.s);
}

/*
 * What haltstat record notes in the trace (trace_marker): the kernel, the
 * module parameters and who the threads are, so that the text tells what
 * the trailer of the .dat tells (losses stay the text's own LOST lines).
 */
static void sy_text_notes(const struct sy_run *r, FILE *f)
{
	static const char pre[] = "           <...>-1       [000] ..... ";
	const struct sy_opts *o = r->x->o;
	uint64_t t = o->start_ns;
	char name[64], ts[96];

	snprintf(ts, sizeof(ts), "%5" PRIu64 ".%06" PRIu64 ": tracing_mark_write: haltstat-meta: ",
		 t / 1000000000, t % 1000000000 / 1000);
	fprintf(f, "%s%skernel_release=%s\n", pre, ts, o->release);
	fprintf(f, "%s%sparam.halt_poll_ns=%" PRIu64 "\n%s%sparam.halt_poll_ns_grow=%u\n"
		"%s%sparam.halt_poll_ns_grow_start=%u\n%s%sparam.halt_poll_ns_shrink=%u\n",
		pre, ts, o->module_m, pre, ts, o->grow, pre, ts, o->grow_start, pre, ts, o->shrink);
	for (unsigned int i = 0; i < r->nv; i++)
		fprintf(f, "%s%sthread=%d %d %s\n", pre, ts, r->v[i].tid, r->v[i].tgid, r->v[i].comm);
	for (unsigned int vm = 0; vm < o->nvms && vm < r->nv; vm++) {
		sy_vm_name(o, vm, name, sizeof(name));
		fprintf(f, "%s%sprocess=%d %s\tqemu-system-x86\n", pre, ts, r->v[vm].tgid, name);
	}
}

/* The kernel's `trace` file header, then the lines. */
static void sy_text_finish(struct sy_run *r)
{
	const struct sy_opts *o = r->x->o;
	static char buf[1 << 16];
	uint64_t lost = 0;
	FILE *f = fopen(o->text, "w");
	size_t n;

	if (!f)
		sy_die("cannot create %s: %s", o->text, strerror(errno));
	for (unsigned int c = 0; c < o->ncpus; c++)
		lost += r->x->cpu[c].lost;
	fprintf(f, "# tracer: nop\n#\n# entries-in-buffer/entries-written: %" PRIu64 "/%" PRIu64
		"   #P:%u\n#\n", r->x->events, r->x->events + lost, o->ncpus);
	fputs("#                                _-----=> irqs-off/BH-disabled\n"
	      "#                               / _----=> need-resched\n"
	      "#                              | / _---=> hardirq/softirq\n"
	      "#                              || / _--=> preempt-depth\n"
	      "#                              ||| / _-=> migrate-disable\n"
	      "#                              |||| /     delay\n"
	      "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
	      "#              | |         |   |||||     |         |\n", f);
	sy_text_notes(r, f);
	if (fflush(r->x->text) || fseek(r->x->text, 0, SEEK_SET))
		sy_die("temporary file: %s", strerror(errno));
	while ((n = fread(buf, 1, sizeof(buf), r->x->text)) > 0)
		if (fwrite(buf, 1, n, f) != n)
			break;
	if (ferror(r->x->text) || ferror(f) | fclose(f))
		sy_die("cannot write %s", o->text);
	fclose(r->x->text);
	r->x->text = NULL;
}

/* ---- command line ---- */

static void sy_usage(FILE *f)
{
	fprintf(f,
		"usage: hs-synth [options]\n"
		"  -v, --vcpus N          vCPU threads (default 2)\n"
		"  -V, --vms N            VMs (processes) sharing them round-robin (default 1)\n"
		"  -H, --halts N          halts per vCPU (default 10000)\n"
		"  -g, --gaps PATTERN     30us,100us,600us | period:250us | exp:200us (default 100us)\n"
		"  -s, --seed S           seed (default 1)\n"
		"  -m, --halt-poll-ns M   module halt_poll_ns (default 200000)\n"
		"      --vm-halt-poll-ns LIST  per-VM KVM_CAP_HALT_POLL, -1 for the module's\n"
		"      --grow G --grow-start NS --shrink S   (defaults 2, 10000, 2)\n"
		"  -d, --delta NS         wake-up overhead of a blocked vCPU (default 20us)\n"
		"      --delta-spread NS  plus an exponential draw of this mean per wait (default 0)\n"
		"      --waking           sched:sched_waking of each waiting vCPU thread at its wake\n"
		"      --open-loop        wakes a gap apart in absolute time (timers), not a gap\n"
		"                         after each halt starts (ping-pong)\n"
		"      --cut P            chance another task is runnable during a polled halt:\n"
		"                         its poll ends at a uniform moment of the window\n"
		"      --run NS           guest run time between halts (default 2us)\n"
		"  -c, --cpus N           host CPUs (default 2)\n"
		"      --migrate P        chance a woken vCPU lands on another CPU (default 0.01)\n"
		"      --noise RATE       sched_switch events per second per CPU (default 0)\n"
		"      --guest-idle       also power:cpu_idle around each halt (needs vcpus <= cpus)\n"
		"      --lost N[:SIZE]    N losses of SIZE events (default size 100)\n"
		"      --formats DIR      event formats (default tracefs, else tests/data/formats)\n"
		"      --start SECONDS    first timestamp (default 1000)\n"
		"      --release STR      kernel_release recorded (default uname -r)\n"
		"      --vm-names LIST    VM names (default vm0,vm1,...)\n"
		"      --tid-base N       VM k's process is N + 100k, its vCPU i thread that + 1 + i\n"
		"                         (default 5000)\n"
		"  -o FILE                trace.dat v6 to write\n"
		"  -t FILE                the same events as kernel trace text\n"
		"  -j FILE                expected counts as JSON (default stdout)\n");
}

static double sy_double(const char *s, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0)
		sy_die("bad %s '%s'", what, s);
	return v;
}

static uint64_t sy_u64(const char *s, const char *what)
{
	uint64_t v;

	if (hs_parse_u64(s, &v))
		sy_die("bad %s '%s'", what, s);
	return v;
}

static uint64_t sy_ns(const char *s, const char *what)
{
	uint64_t v;

	/* A bare number means nanoseconds here, as the kernel parameters. */
	if (hs_parse_u64(s, &v) == 0)
		return v;
	if (hs_parse_duration_ns(s, &v))
		sy_die("bad %s '%s'", what, s);
	return v;
}

static void sy_vm_m(struct sy_opts *o, const char *s)
{
	char buf[4096], *save = NULL, *tok;
	unsigned int n = 0;

	if (strlen(s) >= sizeof(buf))
		sy_die("list too long");
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == SY_MAX_VMS)
			sy_die("too many per-VM values");
		o->vm_m[n++] = strcmp(tok, "-1") ? (int64_t)sy_ns(tok, "halt_poll_ns") : -1;
	}
}

static void sy_lost(struct sy_opts *o, const char *s)
{
	char buf[64];
	char *colon;

	snprintf(buf, sizeof(buf), "%s", s);
	colon = strchr(buf, ':');
	if (colon) {
		*colon = 0;
		o->lost_size = sy_u64(colon + 1, "loss size");
	}
	o->lost = (unsigned int)sy_u64(buf, "loss count");
}

static void sy_defaults(struct sy_opts *o)
{
	struct utsname u;
	static char rel[sizeof(u.release)];

	*o = (struct sy_opts){
		.nvcpus = 2, .nvms = 1, .ncpus = 2, .halts = 10000, .gaps_spec = "100us",
		.module_m = 200000, .grow = 2, .grow_start = 10000, .shrink = 2, .delta = 20000,
		.run_ns = 2000, .migrate = 0.01, .lost_size = 100, .seed = 1,
		.start_ns = 1000000000000ull, .tid_base = 5000, .release = "6.18.0-synth",
	};
	for (int i = 0; i < SY_MAX_VMS; i++)
		o->vm_m[i] = -1;
	if (uname(&u) == 0) {
		snprintf(rel, sizeof(rel), "%s", u.release);
		o->release = rel;
	}
}

enum {
	OPT_VMM = 256, OPT_GROW, OPT_GROW_START, OPT_SHRINK, OPT_RUN, OPT_MIGRATE, OPT_NOISE,
	OPT_GIDLE, OPT_LOST, OPT_FORMATS, OPT_START, OPT_RELEASE, OPT_NAMES, OPT_TID_BASE,
	OPT_SPREAD, OPT_WAKING, OPT_OPEN, OPT_CUT,
};

static const struct option sy_lopts[] = {
	TOOL_ARG("vcpus", 'v'), TOOL_ARG("vms", 'V'), TOOL_ARG("halts", 'H'),
	TOOL_ARG("gaps", 'g'), TOOL_ARG("seed", 's'), TOOL_ARG("halt-poll-ns", 'm'),
	TOOL_ARG("vm-halt-poll-ns", OPT_VMM), TOOL_ARG("grow", OPT_GROW),
	TOOL_ARG("grow-start", OPT_GROW_START), TOOL_ARG("shrink", OPT_SHRINK),
	TOOL_ARG("delta", 'd'), TOOL_ARG("delta-spread", OPT_SPREAD),
	TOOL_FLAG("waking", OPT_WAKING), TOOL_FLAG("open-loop", OPT_OPEN),
	TOOL_ARG("cut", OPT_CUT), TOOL_ARG("run", OPT_RUN), TOOL_ARG("cpus", 'c'),
	TOOL_ARG("migrate", OPT_MIGRATE), TOOL_ARG("noise", OPT_NOISE),
	TOOL_FLAG("guest-idle", OPT_GIDLE), TOOL_ARG("lost", OPT_LOST),
	TOOL_ARG("formats", OPT_FORMATS), TOOL_ARG("start", OPT_START),
	TOOL_ARG("release", OPT_RELEASE), TOOL_ARG("vm-names", OPT_NAMES),
	TOOL_ARG("tid-base", OPT_TID_BASE), TOOL_FLAG("help", 'h'), TOOL_OPTS_END,
};

static void sy_opt(struct sy_opts *o, int c, const char *a)
{
	switch (c) {
	case 'v': o->nvcpus = (unsigned int)sy_u64(a, "vCPU count"); break;
	case 'V': o->nvms = (unsigned int)sy_u64(a, "VM count"); break;
	case 'H': o->halts = sy_u64(a, "halt count"); break;
	case 'g': o->gaps_spec = a; break;
	case 's': o->seed = sy_u64(a, "seed"); break;
	case 'm': o->module_m = sy_ns(a, "halt_poll_ns"); break;
	case OPT_VMM: sy_vm_m(o, a); break;
	case OPT_GROW: o->grow = (uint32_t)sy_u64(a, "grow"); break;
	case OPT_GROW_START: o->grow_start = (uint32_t)sy_ns(a, "grow_start"); break;
	case OPT_SHRINK: o->shrink = (uint32_t)sy_u64(a, "shrink"); break;
	case 'd': o->delta = sy_ns(a, "delta"); break;
	case OPT_SPREAD: o->delta_spread = sy_ns(a, "delta spread"); break;
	case OPT_WAKING: o->waking = true; break;
	case OPT_OPEN: o->open_loop = true; break;
	case OPT_CUT: o->cut = sy_double(a, "cut chance"); break;
	case OPT_RUN: o->run_ns = sy_ns(a, "run time"); break;
	case 'c': o->ncpus = (unsigned int)sy_u64(a, "CPU count"); break;
	case OPT_MIGRATE: o->migrate = sy_double(a, "migration chance"); break;
	case OPT_NOISE: o->noise = sy_double(a, "noise rate"); break;
	case OPT_GIDLE: o->guest_idle = true; break;
	case OPT_LOST: sy_lost(o, a); break;
	case OPT_FORMATS: o->formats = a; break;
	case OPT_START: o->start_ns = (uint64_t)(sy_double(a, "start") * 1e9); break;
	case OPT_RELEASE: o->release = a; break;
	case OPT_NAMES: o->vm_names = a; break;
	case OPT_TID_BASE: o->tid_base = (int)sy_u64(a, "tid base"); break;
	case 'o': o->out = a; break;
	case 't': o->text = a; break;
	case 'j': o->json = a; break;
	case 'h': sy_usage(stdout); exit(0);
	default: sy_usage(stderr); exit(2);
	}
}

static void sy_parse(int argc, char **argv, struct sy_opts *o)
{
	int c;

	sy_defaults(o);
	while ((c = getopt_long(argc, argv, "v:V:H:g:s:m:d:c:o:t:j:h", sy_lopts, NULL)) != -1)
		sy_opt(o, c, optarg);
	if (optind < argc)
		sy_die("unexpected argument '%s'", argv[optind]);
	if (!o->nvcpus || o->nvcpus > SY_MAX_VCPUS || !o->nvms || o->nvms > SY_MAX_VMS)
		sy_die("want 1..%d vCPUs and 1..%d VMs", SY_MAX_VCPUS, SY_MAX_VMS);
	if (!o->ncpus || o->ncpus > SY_MAX_CPUS)
		sy_die("want 1..%d CPUs", SY_MAX_CPUS);
	if (!o->halts)
		sy_die("want at least one halt");
	if (o->module_m > UINT32_MAX)
		sy_die("halt_poll_ns above 2^32-1");
	for (unsigned int i = 0; i < SY_MAX_VMS; i++)
		if (o->vm_m[i] > (int64_t)UINT32_MAX)
			sy_die("halt_poll_ns above 2^32-1");
	if (o->guest_idle && (o->nvcpus > o->ncpus))
		sy_die("--guest-idle needs one CPU per vCPU");
	if (o->guest_idle)
		o->migrate = 0;
	if (o->migrate > 1)
		sy_die("migration chance above 1");
	o->gaps.seed = o->seed;
	{
		struct hs_error err;

		hs_error_clear(&err);
		if (hs_gap_pattern_parse(o->gaps_spec, &o->gaps, &err))
			sy_die("%s", err.msg);
	}
}

int main(int argc, char **argv)
{
	static struct sy_opts o;
	static struct sy_ctx x;
	struct sy_run r;
	const char *dir;

	sy_parse(argc, argv, &o);
	dir = sy_formats_dir(o.formats);
	sy_load_formats(dir, &x.h, o.waking ? SY_NFMT : SY_F_WAKING);
	x.o = &o;
	/* The header counts the entries: lines go to a scratch file first. */
	if (o.text && !(x.text = tmpfile()))
		sy_die("cannot create a temporary file: %s", strerror(errno));
	sy_text_on = x.text != NULL;
	memset(&r, 0, sizeof(r));
	r.x = &x;
	r.nv = o.nvcpus;
	r.v = sy_alloc(sizeof(*r.v) * r.nv);
	r.key = sy_alloc(sizeof(*r.key) * (r.nv + o.ncpus));
	r.heap = sy_alloc(sizeof(*r.heap) * (r.nv + o.ncpus));
	r.rng = o.seed ^ 0x5eed5eed5eedull;
	r.total_halts = o.halts * o.nvcpus;
	sy_vcpus_init(&r, &o);
	sy_simulate(&r);
	if (x.text)
		sy_text_finish(&r);
	if (o.out)
		sy_tracedat(&r);
	sy_json(&r);
	for (unsigned int c = 0; c < o.ncpus; c++)
		free(x.cpu[c].buf);
	free(r.v);
	free(r.key);
	free(r.heap);
	return 0;
}
