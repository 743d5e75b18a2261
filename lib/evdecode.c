// SPDX-License-Identifier: GPL-2.0-only
/*
 * The event table (evdecode.h): which tracepoints, which of their fields,
 * and their lookup in a recording's formats.
 */
#include <pthread.h>
#include <string.h>

#include <event-parse.h>

#include "evdecode.h"

/* Fields in the order hs_ev_fields() reads them; NULL ends a list. */
/* The text reader looks names up for every line: their lengths are kept. */
#define EV(sys, name, ...) { sys ":" name, sys, name, sizeof(name) - 1, { __VA_ARGS__ } }

static const struct {
	const char *full, *system, *name;
	size_t name_len;
	const char *fields[HS_EV_NFIELDS];
} ev_table[HS_EV_NKINDS] = {
	[HS_EV_VCPU_WAKEUP - 1] = EV("kvm", "kvm_vcpu_wakeup", "ns", "waited", "valid"),
	[HS_EV_HALT_POLL_NS - 1] = EV("kvm", "kvm_halt_poll_ns", "grow", "vcpu_id", "new", "old"),
	[HS_EV_CPU_IDLE - 1] = EV("power", "cpu_idle", "state", "cpu_id"),
	[HS_EV_GUEST_HALT_POLL_NS - 1] = EV("power", "guest_halt_poll_ns", "grow", "new", "old"),
	[HS_EV_SCHED_SWITCH - 1] = EV("sched", "sched_switch", "prev_pid", "prev_state", "next_pid"),
	[HS_EV_SCHED_WAKEUP - 1] = EV("sched", "sched_wakeup", "pid", "target_cpu"),
	[HS_EV_SCHED_WAKING - 1] = EV("sched", "sched_waking", "pid", "target_cpu"),
	[HS_EV_MARKER - 1] = EV("ftrace", "print", "buf"),
	[HS_EV_TASK_NEW - 1] = EV("task", "task_newtask", "pid", "clone_flags", "comm"),
	/* newer kernels drop pid: the renamed task is then the one tracing */
	[HS_EV_TASK_RENAME - 1] = EV("task", "task_rename", "pid", "newcomm"),
	[HS_EV_TASK_EXIT - 1] = EV("sched", "sched_process_exit", "pid", "comm"),
};

const char *hs_ev_system(enum hs_event_kind kind)
{
	return kind >= 1 && kind <= HS_EV_NKINDS ? ev_table[kind - 1].system : "";
}

const char *hs_ev_name(enum hs_event_kind kind)
{
	return kind >= 1 && kind <= HS_EV_NKINDS ? ev_table[kind - 1].name : "";
}

const char *hs_ev_full_name(enum hs_event_kind kind)
{
	return kind >= 1 && kind <= HS_EV_NKINDS ? ev_table[kind - 1].full : "";
}

bool hs_ev_host_side(enum hs_event_kind kind)
{
	return kind == HS_EV_VCPU_WAKEUP || kind == HS_EV_HALT_POLL_NS || hs_ev_sched(kind);
}


int hs_ev_kind_of(const char *system, const char *name, size_t name_len)
{
	for (int k = 0; k < HS_EV_NKINDS; k++)
		if (ev_table[k].name_len == name_len && !memcmp(name, ev_table[k].name, name_len) &&
		    (!system || !strcmp(system, ev_table[k].system)))
			return k + 1;
	return 0;
}

static pthread_mutex_t ev_tep_mutex = PTHREAD_MUTEX_INITIALIZER;

void hs_ev_tep_lock(void)
{
	pthread_mutex_lock(&ev_tep_mutex);
}

void hs_ev_tep_unlock(void)
{
	pthread_mutex_unlock(&ev_tep_mutex);
}

static void ev_field_set(struct hs_ev_field *f, const struct tep_format_field *tf)
{
	memset(f, 0, sizeof(*f));
	if (!tf || tf->offset < 0 || tf->offset > 0xffff)
		return;
	if (tf->flags & TEP_FIELD_IS_STRING || (tf->flags & TEP_FIELD_IS_ARRAY &&
						 tf->type && !strncmp(tf->type, "char", 4))) {
		/* char comm[16], or the char buf[] that runs to the record's end */
		if (tf->flags & TEP_FIELD_IS_DYNAMIC || tf->size < 0 || tf->size > 0xffff)
			return;
		f->off = (uint16_t)tf->offset;
		f->size = (uint16_t)tf->size;
		f->text = true;
		return;
	}
	/* Any other number than a plain 1/2/4/8-byte one is treated as absent. */
	if (tf->size != 1 && tf->size != 2 && tf->size != 4 && tf->size != 8)
		return;
	f->off = (uint16_t)tf->offset;
	f->size = (uint16_t)tf->size;
}

static uint32_t ev_field_end(struct hs_ev_field f)
{
	return f.size || f.text ? (uint32_t)f.off + f.size : 0;
}

static bool ev_num(struct hs_ev_field f, uint16_t size)
{
	return f.size == size && !f.text;
}

/* hs_ev_desc.fast for kind k, once its fields are known. */
static uint8_t ev_fast(int k, const struct hs_ev_desc *d, bool swap)
{
	if (swap || !ev_num(d->pid, 4))
		return 0;
	switch (k + 1) {
	case HS_EV_VCPU_WAKEUP:
		/* valid came in 5.2: absent before */
		return ev_num(d->f[0], 8) && ev_num(d->f[1], 1) &&
		       (ev_num(d->f[2], 1) || !d->f[2].size);
	case HS_EV_HALT_POLL_NS:
		return ev_num(d->f[0], 1) && ev_num(d->f[1], 4) && ev_num(d->f[2], 4) &&
		       ev_num(d->f[3], 4);
	case HS_EV_SCHED_SWITCH:
		if (!ev_num(d->f[0], 4) || !ev_num(d->f[2], 4))
			return 0;
		return ev_num(d->f[1], 8) ? 8 : ev_num(d->f[1], 4) ? 4 : 0;
	case HS_EV_SCHED_WAKEUP:
	case HS_EV_SCHED_WAKING:
		return ev_num(d->f[0], 4) && ev_num(d->f[1], 4);
	}
	return 0;
}

int hs_ev_layout_init(struct hs_ev_layout *lay, struct tep_handle *tep, bool swap,
		      unsigned int mask)
{
	int found = 0;

	memset(lay, 0, sizeof(*lay));
	memset(lay->slot, -1, sizeof(lay->slot));
	lay->swap = swap;
	for (int k = 0; k < HS_EV_NKINDS; k++) {
		struct hs_ev_desc *d = &lay->ev[k];
		struct tep_event *e;

		d->id = -1;
		if (!(mask & HS_EV_MASK(k + 1)))
			continue;
		e = tep_find_event_by_name(tep, ev_table[k].system, ev_table[k].name);
		if (!e || e->id < 0 || e->id > 0xffff)
			continue;
		d->id = e->id;
		lay->slot[e->id & 63] = lay->slot[e->id & 63] == -1 ? (int8_t)k : HS_EV_SLOT_SHARED;
		ev_field_set(&d->pid, tep_find_common_field(e, "common_pid"));
		d->need = ev_field_end(d->pid);
		for (int i = 0; i < HS_EV_NFIELDS && ev_table[k].fields[i]; i++) {
			struct hs_ev_field *f = &d->f[i];

			ev_field_set(f, tep_find_field(e, ev_table[k].fields[i]));
			if (ev_field_end(*f) > d->need)
				d->need = ev_field_end(*f);
		}
		d->fast = ev_fast(k, d, swap);
		found++;
	}
	return found;
}

int hs_ev_fields_other(const struct hs_ev_desc *d, const unsigned char *p, size_t len,
		       bool sw, struct hs_event *ev)
{
	bool bad = false;

	switch (ev->kind) {
	case HS_EV_MARKER:
		ev->marker.text = hs_ev_text(p, len, d->f[0], &ev->marker.len, &bad);
		break;
	case HS_EV_TASK_NEW:
		ev->task.pid = (int32_t)hs_ev_rd(p, len, d->f[0], sw, &bad, true);
		ev->task.clone_flags = hs_ev_rd(p, len, d->f[1], sw, &bad, true);
		ev->task.comm = hs_ev_text(p, len, d->f[2], &ev->task.comm_len, &bad);
		bad |= !d->f[0].size || !d->f[1].size;
		break;
	case HS_EV_TASK_RENAME:
		ev->task.pid = d->f[0].size ? (int32_t)hs_ev_rd(p, len, d->f[0], sw, &bad, true) : ev->tid;
		ev->task.clone_flags = 0;
		ev->task.comm = hs_ev_text(p, len, d->f[1], &ev->task.comm_len, &bad);
		break;
	case HS_EV_TASK_EXIT:
		ev->task.pid = (int32_t)hs_ev_rd(p, len, d->f[0], sw, &bad, true);
		ev->task.clone_flags = 0;
		ev->task.comm = hs_ev_text(p, len, d->f[1], &ev->task.comm_len, &bad);
		bad |= !d->f[0].size;
		break;
	default:
		return -1;
	}
	return bad ? -2 : 0;
}
