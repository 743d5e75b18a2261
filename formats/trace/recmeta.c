// SPDX-License-Identifier: GPL-2.0-only
/*
 * haltstat's record-time metadata lines (recmeta.h): written from a
 * recording's facts and its scan, read back into a reader's sink from a
 * trailer or from the notes in the trace.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/sys/tasks.h"
#include "recmeta.h"

/* ---- writing ---- */

static void recmeta_put_int(struct hs_sbuf *sb, const char *key, int64_t v)
{
	if (v >= 0)
		hs_sbuf_printf(sb, "%s=%" PRId64 "\n", key, v);
}

static void recmeta_put_str(struct hs_sbuf *sb, const char *key, const char *v)
{
	if (v[0])
		hs_sbuf_printf(sb, "%s=%s\n", key, v);
}

void hs_recmeta_put_facts(struct hs_sbuf *sb, const struct hs_meta *m)
{
	const int64_t params[] = {
		m->halt_poll_ns, m->halt_poll_ns_grow, m->halt_poll_ns_grow_start,
		m->halt_poll_ns_shrink, m->guest_halt_poll_ns, m->guest_halt_poll_grow,
		m->guest_halt_poll_grow_start, m->guest_halt_poll_shrink,
		m->guest_halt_poll_allow_shrink,
	};
	static const char *const names[] = {
		"param.halt_poll_ns", "param.halt_poll_ns_grow", "param.halt_poll_ns_grow_start",
		"param.halt_poll_ns_shrink", "guest.halt_poll_ns", "guest.halt_poll_grow",
		"guest.halt_poll_grow_start", "guest.halt_poll_shrink", "guest.halt_poll_allow_shrink",
	};
	char key[64];

	hs_sbuf_printf(sb, "haltstat_version=%s\n", HS_VERSION);
	recmeta_put_str(sb, "kernel_release", m->kernel_release);
	recmeta_put_int(sb, "ncpus", m->ncpus);
	recmeta_put_int(sb, "cpu.hypervisor", m->hypervisor);
	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); i++)
		recmeta_put_int(sb, names[i], params[i]);
	recmeta_put_str(sb, "cpuidle.driver", m->cpuidle_driver);
	recmeta_put_str(sb, "cpuidle.governor", m->cpuidle_governor);
	for (unsigned int s = 0; s < HS_IDLE_STATES; s++) {
		snprintf(key, sizeof(key), "cpuidle.state%u.name", s);
		recmeta_put_str(sb, key, m->idle_state_name[s]);
	}
}

/* Each process once, after its threads. */
static void recmeta_put_processes(struct hs_sbuf *sb, const struct hs_capture_result *r)
{
	for (unsigned int i = 0; i < r->ntids; i++) {
		const struct hs_task *t = hs_tasks_find(r->tasks, r->tids[i]);
		const struct hs_task_process *p;
		bool seen = false;

		if (!t || t->tgid <= 0 || !(p = hs_tasks_process(r->tasks, t->tgid)))
			continue;
		for (unsigned int j = 0; j < i && !seen; j++) {
			const struct hs_task *o = hs_tasks_find(r->tasks, r->tids[j]);

			seen = o && o->tgid == t->tgid;
		}
		if (seen)
			continue;
		hs_sbuf_printf(sb, "process=%d %s\n", p->tgid, p->comm);
		if (p->vm_name[0])
			hs_sbuf_printf(sb, "vm=%d %s\n", p->tgid, p->vm_name);
	}
}

void hs_recmeta_put_end(struct hs_sbuf *sb, const struct hs_capture_result *r)
{
	hs_sbuf_printf(sb, "clock=%s\nrecord_seconds=%.3f\nevents=", r->clock, r->seconds);
	for (unsigned int i = 0; i < r->nevents; i++)
		hs_sbuf_printf(sb, "%s%s", i ? "," : "", r->event_names[i]);
	hs_sbuf_printf(sb, "\n");
	for (unsigned int i = 0; i < r->ncpus; i++)
		hs_sbuf_printf(sb, "lost.cpu%u=%" PRIu64 "\n", i, r->lost[i]);
	if (hs_cpu_steal_known(&r->steal))
		hs_sbuf_printf(sb, "cpu_time.cpus=%d\ncpu_time.busy_ns=%" PRId64
			       "\ncpu_time.steal_ns=%" PRId64 "\n",
			       r->steal.cpus, r->steal.busy_ns, r->steal.steal_ns);
	if (!r->tasks)
		return;
	for (unsigned int i = 0; i < r->ntids; i++) {
		const struct hs_task *t = hs_tasks_find(r->tasks, r->tids[i]);

		if (r->tids[i] > 0 && t && t->comm[0])
			hs_sbuf_printf(sb, "thread=%d %d %s\n", t->tid, t->tgid, t->comm);
	}
	recmeta_put_processes(sb, r);
}

void hs_recmeta_put_notes(struct hs_sbuf *sb, const char *lines, size_t len)
{
	const char *s = lines, *end = lines + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = (size_t)((nl ? nl : end) - s);

		if (n)
			hs_sbuf_printf(sb, "%s%.*s\n", HS_RECMETA_NOTE_PREFIX, (int)n, s);
		s += n + 1;
	}
}

/* ---- reading ---- */

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
	{ "cpu_time.busy_ns", offsetof(struct hs_meta, steal.busy_ns) },
	{ "cpu_time.steal_ns", offsetof(struct hs_meta, steal.steal_ns) },
};

static void recmeta_ids(const char *key, const char *val, struct hs_sink *sink)
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
	} else if (!strcmp(key, "process") || !strcmp(key, "vm")) {
		char vm[128];
		const char *tab;

		tgid = strtol(val, &end, 10);
		if (end == val || (*end != ' ' && *end != '\0') || tgid < 0 || tgid > INT32_MAX)
			return;
		val = *end ? end + 1 : end;
		tab = strchr(val, '\t');
		if (!strcmp(key, "vm")) {
			sink->process(sink->priv, (int)tgid, NULL, val);
		} else if (tab) {
			/* the trailer of haltstat 0.1: "process=TGID VM<tab>COMM" */
			copy_str(vm, sizeof(vm), val, (size_t)(tab - val));
			sink->process(sink->priv, (int)tgid, tab + 1, vm);
		} else {
			sink->process(sink->priv, (int)tgid, val, NULL);
		}
	}
}

/* "N.name" with N an idle state index */
static bool recmeta_state_key(const char *s, int64_t *v)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (end == s || strcmp(end, ".name") || n < 0 || n >= HS_IDLE_STATES)
		return false;
	*v = n;
	return true;
}

static void recmeta_kv(const char *key, const char *val, struct hs_sink *sink,
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
	else if (!strncmp(key, "cpuidle.state", 13) && recmeta_state_key(key + 13, &v))
		copy_str(m->idle_state_name[v], sizeof(m->idle_state_name[v]), val, strlen(val));
	else if (!strcmp(key, "guest.halt_poll_allow_shrink") && parse_i64(val, &v))
		m->guest_halt_poll_allow_shrink = v != 0;
	else if (!strcmp(key, "ncpus") && parse_i64(val, &v) && v > 0 && v <= HS_TD_MAXCPUS)
		m->ncpus = (int)v;
	else if (!strcmp(key, "cpu.hypervisor") && parse_i64(val, &v))
		m->hypervisor = v != 0;
	else if (!strcmp(key, "cpu_time.cpus") && parse_i64(val, &v) && v > 0 && v <= HS_TD_MAXCPUS)
		m->steal.cpus = (int)v;
	else if (!strcmp(key, "record_seconds")) {
		char *end;
		double d = strtod(val, &end);

		if (end != val && !*end && d >= 0)
			m->record_seconds = d;
	} else if (!strncmp(key, "lost.cpu", 8) && parse_i64(key + 8, &v)) {
		int64_t n;

		if (parse_i64(val, &n) && n >= 0 && hs_td_stats_set(lost, v, n))
			return;
	} else
		recmeta_ids(key, val, sink);
}

void hs_recmeta_apply(const char *text, size_t len, struct hs_sink *sink,
		      struct hs_td_stats *lost)
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
		recmeta_kv(line, eq + 1, sink, lost);
	}
	if (sink->meta_changed)
		sink->meta_changed(sink->priv);
}

bool hs_recmeta_note(const char *text, size_t len, struct hs_sink *sink,
		     struct hs_td_stats *lost)
{
	const size_t plen = sizeof(HS_RECMETA_NOTE_PREFIX) - 1;

	if (len < plen || memcmp(text, HS_RECMETA_NOTE_PREFIX, plen))
		return false;
	text += plen;
	len -= plen;
	/* the kernel ends a note with the newline it was written without */
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		len--;
	if (!memchr(text, '\n', len))
		hs_recmeta_apply(text, len, sink, lost);
	return true;
}
