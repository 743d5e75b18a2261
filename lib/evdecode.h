/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_EVDECODE_H
#define HS_EVDECODE_H

/*
 * The tracepoints haltstat knows, their fields, and the decoding of a raw
 * record's payload into an hs_event: one table for every reader of raw
 * records (the trace.dat decoders, libtracecmd's records, the live view
 * and the recorder's scan of what it saved). Field offsets and event ids
 * come from each recording's own formats: they change between kernels and
 * boots. The decoding is inline: it runs for every record.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "event.h"

struct tep_handle;

#define HS_EV_NKINDS HS_EV_KIND_LAST
#define HS_EV_NFIELDS 4

/* The kinds a reader asks for (bit 1 << kind). */
#define HS_EV_MASK(kind) (1u << (kind))
#define HS_EV_MASK_ANALYSED (HS_EV_MASK(HS_EV_VCPU_WAKEUP) | HS_EV_MASK(HS_EV_HALT_POLL_NS) | \
			     HS_EV_MASK(HS_EV_CPU_IDLE) | HS_EV_MASK(HS_EV_GUEST_HALT_POLL_NS) | \
			     HS_EV_MASK_SCHED)
#define HS_EV_MASK_SCHED (HS_EV_MASK(HS_EV_SCHED_SWITCH) | HS_EV_MASK(HS_EV_SCHED_WAKEUP) | \
			  HS_EV_MASK(HS_EV_SCHED_WAKING))
#define HS_EV_MASK_TASKS (HS_EV_MASK(HS_EV_TASK_NEW) | HS_EV_MASK(HS_EV_TASK_RENAME) | \
			  HS_EV_MASK(HS_EV_TASK_EXIT))

/* A kind's tracepoint: "kvm", "kvm_vcpu_wakeup", "kvm:kvm_vcpu_wakeup". */
const char *hs_ev_system(enum hs_event_kind kind);
const char *hs_ev_name(enum hs_event_kind kind);
const char *hs_ev_full_name(enum hs_event_kind kind);
/* The analysed kinds a host's KVM emits or a host records beside them (the others: a guest's idle). */
bool hs_ev_host_side(enum hs_event_kind kind);
/*
 * The scheduler's kinds: analysed when a recording has them, recorded only
 * when asked for (haltstat record, unless --no-sched), since they are many.
 */
static inline bool hs_ev_sched(enum hs_event_kind kind)
{
	return kind == HS_EV_SCHED_SWITCH || kind == HS_EV_SCHED_WAKEUP ||
	       kind == HS_EV_SCHED_WAKING;
}
/* The host's kvm kinds, keyed by the vCPU thread that traced them. */
static inline bool hs_ev_kvm(enum hs_event_kind kind)
{
	return kind == HS_EV_VCPU_WAKEUP || kind == HS_EV_HALT_POLL_NS;
}
/* The kind of a tracepoint (system NULL: any), or 0 when haltstat does not decode it. */
int hs_ev_kind_of(const char *system, const char *name, size_t name_len);

/* Byte offset and size of one field inside a payload; size 0 = absent. */
struct hs_ev_field {
	uint16_t off;
	uint16_t size;		/* numbers: 1, 2, 4, 8 */
	bool text;		/* char[N] (size N), or char[] to the end of the record (size 0) */
};

struct hs_ev_desc {
	int id;			/* event id, -1 when the event is not in the recording */
	struct hs_ev_field pid;
	struct hs_ev_field f[HS_EV_NFIELDS];
	uint32_t need;		/* payload bytes that hold every field above */
	/*
	 * The sched and kvm events, most of a recording, decode through
	 * loads of fixed size (hs_ev_sched_fast, hs_ev_kvm_fast) when the
	 * recording is in this machine's byte order and their fields have
	 * the sizes of every kernel haltstat knows: the size of
	 * sched_switch's prev_state (4 or 8), 1 for the other kinds, 0 for
	 * the field by field way.
	 */
	uint8_t fast;
};

/* Event ids and field layouts, indexed by enum hs_event_kind - 1. */
struct hs_ev_layout {
	struct hs_ev_desc ev[HS_EV_NKINDS];
	/* by id % 64: the one kind whose id falls there, HS_EV_SLOT_SHARED, or -1 (most records) */
	int8_t slot[64];
	bool swap;		/* the recording's byte order differs from ours */
};

#define HS_EV_SLOT_SHARED (-2)	/* two kinds' ids share the slot: search them */

/* Looks the kinds of mask up in tep once. Returns how many exist. */
int hs_ev_layout_init(struct hs_ev_layout *lay, struct tep_handle *tep, bool swap,
		      unsigned int mask);
/* Either kvm event's format is in the recording: kvm was loaded where it was recorded. */
static inline bool hs_ev_has_kvm(const struct hs_ev_layout *lay)
{
	return lay->ev[HS_EV_VCPU_WAKEUP - 1].id >= 0 || lay->ev[HS_EV_HALT_POLL_NS - 1].id >= 0;
}

/*
 * libtraceevent 1.7 parses formats through file-scope variables, so two
 * threads must not parse at once, even into different handles.
 */
void hs_ev_tep_lock(void);
void hs_ev_tep_unlock(void);

/*
 * checked is a constant after inlining: false when the record is known to
 * be long enough for every field (the usual case), which saves a compare a
 * field.
 */
static inline __attribute__((always_inline)) uint64_t
hs_ev_rd(const unsigned char *p, size_t len, struct hs_ev_field f, bool swap, bool *bad,
	 const bool checked)
{
	uint64_t v = 0;

	if (!f.size || f.text)
		return 0;
	if (checked && (size_t)f.off + f.size > len) {
		*bad = true;
		return 0;
	}
	switch (f.size) {
	case 1: return p[f.off];
	case 2: { uint16_t x; memcpy(&x, p + f.off, 2); return swap ? __builtin_bswap16(x) : x; }
	case 4: { uint32_t x; memcpy(&x, p + f.off, 4); return swap ? __builtin_bswap32(x) : x; }
	default: memcpy(&v, p + f.off, 8); return swap ? __builtin_bswap64(v) : v;
	}
}

/* A text field: its start, and its length up to the first NUL or its end. */
static inline const char *hs_ev_text(const unsigned char *p, size_t len, struct hs_ev_field f,
				     uint32_t *tlen, bool *bad)
{
	size_t max;
	const unsigned char *nul;

	if (!f.text || f.off > len || (f.size && (size_t)f.off + f.size > len)) {
		*bad = true;
		*tlen = 0;
		return "";
	}
	max = f.size ? f.size : len - f.off;
	nul = memchr(p + f.off, '\0', max);
	*tlen = (uint32_t)(nul ? (size_t)(nul - (p + f.off)) : max);
	return (const char *)p + f.off;
}

/* A lookup, not a search: records of different kinds alternate, a search's exit mispredicts. */
static inline int hs_ev_kind(const struct hs_ev_layout *lay, int id)
{
	int k = lay->slot[id & 63];

	if (k != HS_EV_SLOT_SHARED)
		return k >= 0 && lay->ev[k].id == id ? k : -1;
	for (k = 0; k < HS_EV_NKINDS; k++)
		if (lay->ev[k].id == id)
			return k;
	return -1;
}

/*
 * sched_switch's prev_state: 0 (R) or, for a preempted task, the one bit
 * past the reported states (TASK_REPORT_MAX, 0x100 since 4.14; 2048 or
 * 4096 before): either way the task is still runnable. Every sleeping or
 * dead state sets one of the low bits.
 */
static inline bool hs_ev_sched_runnable(uint64_t prev_state)
{
	return (prev_state & 0xff) == 0;
}

/* Kinds that are not analysed: rarer, so out of the hot switch. */
int hs_ev_fields_other(const struct hs_ev_desc *d, const unsigned char *p, size_t len,
		       bool sw, struct hs_event *ev);

/* The fields of a record of kind ev->kind; checked as for hs_ev_rd. */
static inline __attribute__((always_inline)) int
hs_ev_fields(const struct hs_ev_desc *d, const unsigned char *p, size_t len, bool sw,
	     struct hs_event *ev, const bool checked)
{
	bool bad = false;

	ev->tid = (int32_t)hs_ev_rd(p, len, d->pid, sw, &bad, checked);
	switch (ev->kind) {
	case HS_EV_VCPU_WAKEUP:
		ev->wakeup.ns = hs_ev_rd(p, len, d->f[0], sw, &bad, checked);
		ev->wakeup.waited = hs_ev_rd(p, len, d->f[1], sw, &bad, checked) != 0;
		ev->wakeup.valid = d->f[2].size ? (hs_ev_rd(p, len, d->f[2], sw, &bad, checked) != 0) : -1;
		bad |= !d->f[0].size || !d->f[1].size;
		break;
	case HS_EV_HALT_POLL_NS:
		ev->poll.grow = hs_ev_rd(p, len, d->f[0], sw, &bad, checked) != 0;
		ev->poll.vcpu_id = (uint32_t)hs_ev_rd(p, len, d->f[1], sw, &bad, checked);
		ev->poll.new_ns = (uint32_t)hs_ev_rd(p, len, d->f[2], sw, &bad, checked);
		ev->poll.old_ns = (uint32_t)hs_ev_rd(p, len, d->f[3], sw, &bad, checked);
		bad |= !d->f[2].size || !d->f[3].size;
		break;
	case HS_EV_CPU_IDLE:
		ev->idle.state = (uint32_t)hs_ev_rd(p, len, d->f[0], sw, &bad, checked);
		ev->idle.cpu_id = (uint32_t)hs_ev_rd(p, len, d->f[1], sw, &bad, checked);
		bad |= !d->f[0].size;
		break;
	case HS_EV_GUEST_HALT_POLL_NS:
		ev->guest_poll.grow = hs_ev_rd(p, len, d->f[0], sw, &bad, checked) != 0;
		ev->guest_poll.new_ns = (uint32_t)hs_ev_rd(p, len, d->f[1], sw, &bad, checked);
		ev->guest_poll.old_ns = (uint32_t)hs_ev_rd(p, len, d->f[2], sw, &bad, checked);
		bad |= !d->f[1].size || !d->f[2].size;
		break;
	case HS_EV_SCHED_SWITCH:
		ev->sched_switch.prev_pid = (int32_t)hs_ev_rd(p, len, d->f[0], sw, &bad, checked);
		ev->sched_switch.prev_runnable =
			hs_ev_sched_runnable(hs_ev_rd(p, len, d->f[1], sw, &bad, checked));
		ev->sched_switch.next_pid = (int32_t)hs_ev_rd(p, len, d->f[2], sw, &bad, checked);
		bad |= !d->f[0].size || !d->f[1].size || !d->f[2].size;
		break;
	case HS_EV_SCHED_WAKEUP:
	case HS_EV_SCHED_WAKING:
		ev->sched_wakeup.pid = (int32_t)hs_ev_rd(p, len, d->f[0], sw, &bad, checked);
		ev->sched_wakeup.target_cpu = (int32_t)hs_ev_rd(p, len, d->f[1], sw, &bad, checked);
		bad |= !d->f[0].size || !d->f[1].size;
		break;
	default:
		return bad ? -2 : hs_ev_fields_other(d, p, len, sw, ev);
	}
	return bad ? -2 : 0;
}

/* A sched event of a fast layout (hs_ev_desc.fast), len >= d->need: as hs_ev_fields() reads it. */
static inline int hs_ev_sched_fast(const struct hs_ev_desc *d, const unsigned char *p,
				   struct hs_event *ev)
{
	int32_t tid, a, b;

	memcpy(&tid, p + d->pid.off, 4);
	memcpy(&a, p + d->f[0].off, 4);
	ev->tid = tid;
	if (ev->kind == HS_EV_SCHED_SWITCH) {
		uint64_t state = 0;
		uint32_t state32;

		memcpy(&b, p + d->f[2].off, 4);
		if (d->fast == 8) {
			memcpy(&state, p + d->f[1].off, 8);
		} else {
			memcpy(&state32, p + d->f[1].off, 4);
			state = state32;
		}
		ev->sched_switch = (struct hs_sched_switch){
			.prev_pid = a, .next_pid = b, .prev_runnable = hs_ev_sched_runnable(state),
		};
	} else {
		memcpy(&b, p + d->f[1].off, 4);
		ev->sched_wakeup = (struct hs_sched_wakeup){ .pid = a, .target_cpu = b };
	}
	return 0;
}

/* A kvm event of a fast layout (hs_ev_desc.fast), len >= d->need: as hs_ev_fields() reads it. */
static inline int hs_ev_kvm_fast(const struct hs_ev_desc *d, const unsigned char *p,
				 struct hs_event *ev)
{
	int32_t tid;

	memcpy(&tid, p + d->pid.off, 4);
	ev->tid = tid;
	if (ev->kind == HS_EV_VCPU_WAKEUP) {
		uint64_t ns;

		memcpy(&ns, p + d->f[0].off, 8);
		ev->wakeup.ns = ns;
		ev->wakeup.waited = p[d->f[1].off] != 0;
		ev->wakeup.valid = d->f[2].size ? (p[d->f[2].off] != 0) : -1;
	} else {
		uint32_t vcpu_id, new_ns, old_ns;

		memcpy(&vcpu_id, p + d->f[1].off, 4);
		memcpy(&new_ns, p + d->f[2].off, 4);
		memcpy(&old_ns, p + d->f[3].off, 4);
		ev->poll.grow = p[d->f[0].off] != 0;
		ev->poll.vcpu_id = vcpu_id;
		ev->poll.new_ns = new_ns;
		ev->poll.old_ns = old_ns;
	}
	return 0;
}

/* Decodes payload (id at offset 0) into ev: 0 ok, -1 unrelated, -2 malformed. */
static inline int hs_ev_decode(const struct hs_ev_layout *lay, const unsigned char *p,
			       size_t len, struct hs_event *ev)
{
	const struct hs_ev_desc *d;
	bool sw = lay->swap;
	uint16_t id;
	int k;

	if (len < 2)
		return -2;
	memcpy(&id, p, 2);
	k = hs_ev_kind(lay, sw ? __builtin_bswap16(id) : id);
	if (k < 0)
		return -1;
	d = &lay->ev[k];
	ev->kind = (uint8_t)(k + 1);
	if (d->fast && len >= d->need)
		return hs_ev_kvm(ev->kind) ? hs_ev_kvm_fast(d, p, ev) : hs_ev_sched_fast(d, p, ev);
	return len >= d->need ? hs_ev_fields(d, p, len, sw, ev, false) :
				hs_ev_fields(d, p, len, sw, ev, true);
}

#endif
