// SPDX-License-Identifier: GPL-2.0-only
/*
 * What both trace.dat readers share: event layouts looked up once in
 * libtraceevent, payload decoding, CPU stats, cmdlines and the haltstat
 * trailer (notes/META.md).
 */
#include <ctype.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "../lib/account.h"
#include "tracedat_internal.h"

static int sink_acct_event(void *priv, const struct hs_event *ev)
{
	return hs_account_event(priv, ev);
}

static bool sink_acct_keeps(void *priv, const struct hs_event *ev)
{
	return hs_account_keeps(priv, ev);
}

static void sink_acct_count(void *priv, const struct hs_event_tally *t)
{
	hs_account_tally(priv, t);
}

static void sink_acct_lost(void *priv, int cpu, uint64_t count, bool known)
{
	hs_account_lost(priv, cpu, count, known);
}

static void sink_acct_thread(void *priv, int tid, int tgid, const char *comm)
{
	hs_account_thread(priv, tid, tgid, comm);
}

static void sink_acct_process(void *priv, int tgid, const char *comm, const char *vm)
{
	hs_account_process(priv, tgid, comm, vm);
}

void hs_td_sink_account(struct hs_td_sink *sink, struct hs_account *acct)
{
	sink->event = sink_acct_event;
	sink->lost = sink_acct_lost;
	sink->thread = sink_acct_thread;
	sink->process = sink_acct_process;
	sink->keeps = sink_acct_keeps;
	sink->count = sink_acct_count;
	sink->priv = acct;
	sink->meta = hs_account_meta(acct);
}

static const struct {
	const char *system, *name;
	const char *fields[HS_TD_NFIELDS];
} td_events[HS_TD_NKINDS] = {
	{ "kvm", "kvm_vcpu_wakeup", { "ns", "waited", "valid", NULL } },
	{ "kvm", "kvm_halt_poll_ns", { "grow", "vcpu_id", "new", "old" } },
	{ "power", "cpu_idle", { "state", "cpu_id", NULL, NULL } },
	{ "power", "guest_halt_poll_ns", { "grow", "new", "old", NULL } },
};

static void field_set(struct hs_td_field *f, const struct tep_format_field *tf)
{
	f->off = 0;
	f->size = 0;
	/* Anything but a plain 1/2/4/8-byte number is treated as absent. */
	if (!tf || tf->offset < 0 || tf->offset > 0xffff ||
	    (tf->size != 1 && tf->size != 2 && tf->size != 4 && tf->size != 8))
		return;
	f->off = (uint16_t)tf->offset;
	f->size = (uint8_t)tf->size;
}

static pthread_mutex_t hs_td_tep_mutex = PTHREAD_MUTEX_INITIALIZER;

void hs_td_tep_lock(void)
{
	pthread_mutex_lock(&hs_td_tep_mutex);
}

void hs_td_tep_unlock(void)
{
	pthread_mutex_unlock(&hs_td_tep_mutex);
}

static uint32_t td_field_end(struct hs_td_field f)
{
	return f.size ? (uint32_t)f.off + f.size : 0;
}

int hs_td_layout_init(struct hs_td_layout *lay, struct tep_handle *tep, bool swap)
{
	int found = 0;

	memset(lay, 0, sizeof(*lay));
	lay->swap = swap;
	for (int k = 0; k < HS_TD_NKINDS; k++) {
		struct tep_event *e;

		lay->ev[k].id = -1;
		e = tep_find_event_by_name(tep, td_events[k].system, td_events[k].name);
		if (!e || e->id < 0 || e->id > 0xffff)
			continue;
		lay->ev[k].id = e->id;
		lay->idmask |= 1ull << (e->id & 63);
		field_set(&lay->ev[k].pid, tep_find_common_field(e, "common_pid"));
		lay->ev[k].need = td_field_end(lay->ev[k].pid);
		for (int i = 0; i < HS_TD_NFIELDS && td_events[k].fields[i]; i++) {
			struct hs_td_field *f = &lay->ev[k].f[i];

			field_set(f, tep_find_field(e, td_events[k].fields[i]));
			if (td_field_end(*f) > lay->ev[k].need)
				lay->ev[k].need = td_field_end(*f);
		}
		found++;
	}
	return found;
}

/* ---- CPU stats: "CPU: N\n...overrun: X\n...dropped events: Y\n" ---- */

static int stats_set(struct hs_td_stats *st, long cpu, int64_t lost)
{
	if (cpu < 0 || cpu >= HS_TD_MAXCPUS)
		return 0;
	if (cpu >= st->ncpus) {
		int64_t *n = realloc(st->lost, (cpu + 1) * sizeof(*n));

		if (!n)
			return -1;
		for (int i = st->ncpus; i <= cpu; i++)
			n[i] = -1;
		st->lost = n;
		st->ncpus = (int)cpu + 1;
	}
	st->lost[cpu] = lost;
	return 0;
}

static int64_t num_after(const char *p, const char *end)
{
	int64_t v = 0;

	while (p < end && *p == ' ')
		p++;
	if (p >= end || !isdigit((unsigned char)*p))
		return -1;
	while (p < end && isdigit((unsigned char)*p) && v < INT64_MAX / 10)
		v = v * 10 + (*p++ - '0');
	return v;
}

static bool starts(const char *s, const char *end, const char *key)
{
	size_t n = strlen(key);

	return (size_t)(end - s) >= n && !memcmp(s, key, n);
}

/*
 * trace-cmd writes one CPUSTAT per CPU, and before each buffer instance's
 * stats a "Buffer: NAME" block; libtracecmd hands them over concatenated.
 */
int hs_td_stats_parse(const char *text, size_t len, const char *buffer,
		      struct hs_td_stats *st)
{
	const char *s = text, *end = text + len;
	bool ours = buffer[0] == '\0';
	int64_t cpu = -1, ov = 0, dr = 0;

	for (;;) {
		const char *le = s;

		while (le < end && *le != '\n' && *le != '\0')
			le++;
		if (s >= end || starts(s, le, "CPU: ") || starts(s, le, "Buffer: ")) {
			if (cpu >= 0 && ov >= 0 && dr >= 0 && stats_set(st, cpu, ov + dr))
				return -1;
			cpu = -1;
			ov = dr = 0;
		}
		if (s >= end)
			return 0;
		if (starts(s, le, "Buffer: ")) {
			size_t n = le - s - 8;

			ours = n == strlen(buffer) && !memcmp(s + 8, buffer, n);
		} else if (ours && starts(s, le, "CPU: ")) {
			cpu = num_after(s + 5, le);
		} else if (starts(s, le, "overrun:")) {
			ov = num_after(s + 8, le);
		} else if (starts(s, le, "dropped events:")) {
			dr = num_after(s + 15, le);
		}
		s = le + 1;
	}
}

void hs_td_stats_free(struct hs_td_stats *st)
{
	free(st->lost);
	st->lost = NULL;
	st->ncpus = 0;
}

/* ---- haltstat trailer ---- */

int hs_td_trailer_find(const unsigned char *buf, size_t len, uint64_t data_end,
		       uint64_t *start, uint64_t *tlen)
{
	uint64_t n = 0;

	*start = *tlen = 0;
	if (len < 16 || memcmp(buf + len - 8, "HSMETA01", 8))
		return 0;
	for (int i = 7; i >= 0; i--)
		n = (n << 8) | buf[len - 16 + i];
	if (n > len - 16 || len - 16 - n < data_end)
		return -1;
	if (memchr(buf + len - 16 - n, '\0', n))
		return -1;
	*start = len - 16 - n;
	*tlen = n;
	return 1;
}

static void copy_str(char *dst, size_t size, const char *s, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static bool parse_i64(const char *s, int64_t *v)
{
	char *end;
	long long x;

	if (!*s)
		return false;
	x = strtoll(s, &end, 10);
	if (*end)
		return false;
	*v = x;
	return true;
}

static const struct {
	const char *key;
	size_t off;
} td_int_keys[] = {
	{ "param.halt_poll_ns", offsetof(struct hs_meta, halt_poll_ns) },
	{ "param.halt_poll_ns_grow", offsetof(struct hs_meta, halt_poll_ns_grow) },
	{ "param.halt_poll_ns_grow_start", offsetof(struct hs_meta, halt_poll_ns_grow_start) },
	{ "param.halt_poll_ns_shrink", offsetof(struct hs_meta, halt_poll_ns_shrink) },
	{ "guest.halt_poll_ns", offsetof(struct hs_meta, guest_halt_poll_ns) },
	{ "guest.halt_poll_grow", offsetof(struct hs_meta, guest_halt_poll_grow) },
	{ "guest.halt_poll_grow_start", offsetof(struct hs_meta, guest_halt_poll_grow_start) },
	{ "guest.halt_poll_shrink", offsetof(struct hs_meta, guest_halt_poll_shrink) },
};

static void trailer_ids(const char *key, const char *val, struct hs_td_sink *sink)
{
	char *end;
	long tid, tgid;

	if (!strcmp(key, "thread")) {
		tid = strtol(val, &end, 10);
		if (end == val || *end != ' ')
			return;
		tgid = strtol(end + 1, &end, 10);
		if (*end != ' ' && *end != '\0')
			return;
		if (tid >= 0 && tid <= INT32_MAX && tgid >= -1 && tgid <= INT32_MAX)
			sink->thread(sink->priv, (int)tid, (int)tgid, *end ? end + 1 : "");
	} else if (!strcmp(key, "process")) {
		char vm[128];
		const char *tab;

		tgid = strtol(val, &end, 10);
		if (end == val || (*end != ' ' && *end != '\0') || tgid < 0 || tgid > INT32_MAX)
			return;
		val = *end ? end + 1 : end;
		tab = strchr(val, '\t');
		copy_str(vm, sizeof(vm), val, tab ? (size_t)(tab - val) : strlen(val));
		sink->process(sink->priv, (int)tgid, tab ? tab + 1 : "", vm);
	}
}

static void trailer_kv(const char *key, const char *val, struct hs_td_sink *sink,
		       struct hs_td_stats *lost)
{
	struct hs_meta *m = sink->meta;
	int64_t v;

	for (size_t i = 0; i < sizeof(td_int_keys) / sizeof(td_int_keys[0]); i++)
		if (!strcmp(key, td_int_keys[i].key) && parse_i64(val, &v))
			*(int64_t *)((char *)m + td_int_keys[i].off) = v;
	if (!strcmp(key, "kernel_release"))
		copy_str(m->kernel_release, sizeof(m->kernel_release), val, strlen(val));
	else if (!strcmp(key, "clock"))
		copy_str(m->clock, sizeof(m->clock), val, strlen(val));
	else if (!strcmp(key, "cpuidle.driver"))
		copy_str(m->cpuidle_driver, sizeof(m->cpuidle_driver), val, strlen(val));
	else if (!strcmp(key, "cpuidle.governor"))
		copy_str(m->cpuidle_governor, sizeof(m->cpuidle_governor), val, strlen(val));
	else if (!strcmp(key, "guest.halt_poll_allow_shrink") && parse_i64(val, &v))
		m->guest_halt_poll_allow_shrink = v != 0;
	else if (!strcmp(key, "ncpus") && parse_i64(val, &v) && v > 0 && v <= HS_TD_MAXCPUS)
		m->ncpus = (int)v;
	else if (!strcmp(key, "record_seconds")) {
		char *end;
		double d = strtod(val, &end);

		if (end != val && !*end && d >= 0)
			m->record_seconds = d;
	} else if (!strncmp(key, "lost.cpu", 8) && parse_i64(key + 8, &v)) {
		int64_t n;

		if (parse_i64(val, &n) && n >= 0 && stats_set(lost, v, n))
			return;
	} else
		trailer_ids(key, val, sink);
}

void hs_td_trailer_apply(const char *text, size_t len, struct hs_td_sink *sink,
			 struct hs_td_stats *trailer_lost)
{
	const char *s = text, *end = text + len;
	char line[1024];

	while (s < end) {
		const char *nl = memchr(s, '\n', end - s);
		size_t n = (nl ? nl : end) - s;
		char *eq;

		copy_str(line, sizeof(line), s, n);
		s += n + 1;
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		trailer_kv(line, eq + 1, sink, trailer_lost);
	}
}

/* "Linux host 6.1.0-13-amd64 #1 SMP ..." -> third word */
void hs_td_uname_release(const char *uname, size_t len, struct hs_meta *meta)
{
	const char *s = uname, *end = uname + len;

	if (meta->kernel_release[0])
		return;
	for (int w = 0; w < 2; w++) {
		while (s < end && *s && *s != ' ')
			s++;
		while (s < end && *s == ' ')
			s++;
	}
	const char *e = s;

	while (e < end && *e && *e != ' ' && *e != '\n')
		e++;
	if (e > s)
		copy_str(meta->kernel_release, sizeof(meta->kernel_release), s, e - s);
}

/* saved_cmdlines: "PID COMM\n" */
void hs_td_cmdlines_apply(const char *text, size_t len, struct hs_td_sink *sink)
{
	const char *s = text, *end = text + len;
	char comm[64];

	while (s < end) {
		const char *nl = memchr(s, '\n', end - s);
		const char *le = nl ? nl : end, *p = s;
		long pid = 0;

		while (p < le && isdigit((unsigned char)*p) && pid <= INT32_MAX)
			pid = pid * 10 + (*p++ - '0');
		if (p > s && p < le && *p == ' ' && pid <= INT32_MAX) {
			copy_str(comm, sizeof(comm), p + 1, le - p - 1);
			if (!memchr(comm, '\0', strlen(comm)))
				sink->thread(sink->priv, (int)pid, -1, comm);
		}
		s = le + 1;
	}
}

/* ---- event formats, rewritten before libtraceevent parses them ---- */

static bool fmt_word(const char *s, size_t n, const char *extra)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && !strchr(extra, s[i]))
			return false;
	return true;
}

/* "KEY:DIGITS;" at *p (after tabs or spaces); the number goes to *v. */
static bool fmt_num(const char **p, const char *e, const char *key, unsigned long *v)
{
	const char *s = *p;
	size_t k = strlen(key);

	while (s < e && (*s == '\t' || *s == ' '))
		s++;
	if ((size_t)(e - s) < k || memcmp(s, key, k))
		return false;
	s += k;
	*v = 0;
	if (s >= e || !isdigit((unsigned char)*s))
		return false;
	while (s < e && isdigit((unsigned char)*s) && *v < 1000000)
		*v = *v * 10 + (unsigned long)(*s++ - '0');
	if (s >= e || *s != ';' || *v >= 1000000)
		return false;
	*p = s + 1;
	return true;
}

/* "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" -> the same, canonical */
static size_t fmt_field(const char *s, const char *e, char *out, size_t room)
{
	const char *decl, *semi;
	unsigned long off, size, sign;
	int n;

	while (s < e && (*s == '\t' || *s == ' '))
		s++;
	if ((size_t)(e - s) < 6 || memcmp(s, "field:", 6))
		return 0;
	decl = s + 6;
	semi = memchr(decl, ';', (size_t)(e - decl));
	if (!semi || !fmt_word(decl, (size_t)(semi - decl), " *[]") || semi - decl > 200)
		return 0;
	s = semi + 1;
	if (!fmt_num(&s, e, "offset:", &off) || !fmt_num(&s, e, "size:", &size) ||
	    !fmt_num(&s, e, "signed:", &sign) || sign > 1)
		return 0;
	n = snprintf(out, room, "\tfield:%.*s;\toffset:%lu;\tsize:%lu;\tsigned:%lu;\n",
		     (int)(semi - decl), decl, off, size, sign);
	return n > 0 && (size_t)n < room ? (size_t)n : 0;
}

/*
 * libtraceevent 1.7 crashes on some malformed formats (a NULL dereference
 * in the print-fmt parser, found by tests/fuzz/fuzz_tracedat). haltstat
 * needs the name, the ID and the plain fields only, so a new text is made
 * from those, each checked, with a constant print fmt: whatever else the
 * file holds never reaches the library. Returns the length, 0 if unusable.
 */
size_t hs_td_format_clean(const char *in, size_t len, char *out, size_t cap)
{
	const char *s = in, *e = in + len;
	size_t used = 0, n;
	int stage = 0;		/* 0 name, 1 ID, 2 "format:", 3 fields */

	while (s < e) {
		const char *nl = memchr(s, '\n', (size_t)(e - s)), *le = nl ? nl : e;

		if (stage == 0 && le - s > 6 && !memcmp(s, "name: ", 6) &&
		    fmt_word(s + 6, (size_t)(le - s - 6), "") && le - s < 100) {
			n = (size_t)snprintf(out + used, cap - used, "%.*s\n", (int)(le - s), s);
			stage = 1;
		} else if (stage == 1 && le - s > 4 && !memcmp(s, "ID: ", 4) &&
			   fmt_word(s + 4, (size_t)(le - s - 4), "") && le - s < 16) {
			n = (size_t)snprintf(out + used, cap - used, "%.*s\nformat:\n", (int)(le - s), s);
			stage = 2;
		} else if (stage >= 2 && le - s >= 10 && !memcmp(s, "print fmt:", 10)) {
			break;
		} else if (stage >= 2) {
			n = fmt_field(s, le, out + used, cap - used);
			if (n && stage == 2 && used + 1 < cap) {
				stage = 3;
			}
		} else {
			n = 0;
		}
		if (used + n >= cap)
			return 0;
		used += n;
		/* common fields end with an empty line in the kernel's layout */
		if (stage == 3 && le == s && used + 1 < cap)
			out[used++] = '\n';
		s = le + 1;
	}
	if (stage < 2)
		return 0;
	n = (size_t)snprintf(out + used, cap - used, "\nprint fmt: \"x\"\n");
	return used + n < cap ? used + n : 0;
}
