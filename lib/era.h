/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_ERA_H
#define HS_ERA_H

#include <stdbool.h>

#include "error.h"
#include <stdint.h>

/*
 * What KVM's adaptive halt polling did differently over the kernels
 * (shared/reference/halt-polling.md, "Kernel eras a simulator must
 * honour"), as rules the replay follows.
 */
enum hs_era_rule {
	/* kvm_vcpu_wakeup has `valid` (4.7): an invalid halt shrinks the window */
	HS_RULE_VALID_FIELD = 1u << 0,
	/*
	 * halt_poll_ns_grow_start exists (5.1): a grow is at least grow_start
	 * and grow 0 keeps the window. Without it a grow starts from a fixed
	 * 10 us (the default grow_start) only when the window is 0.
	 */
	HS_RULE_GROW_START = 1u << 1,
	/* a shrink below grow_start leaves 0 (5.15; taken for all of 5.x) */
	HS_RULE_SHRINK_FLOOR = 1u << 2,
	/* a grow stops at halt_poll_ns (before 6.1) */
	HS_RULE_GROW_CLAMP = 1u << 3,
	/* halt_poll_ns read live (6.1): a window above it is cut at halt entry */
	HS_RULE_MAX_LIVE = 1u << 4,
};

/*
 * The eras, oldest first, one row each: the only list of them. A release
 * belongs to the last era it reaches; an unknown one to the newest.
 *
 * X(id, name, since major, since minor, rules, default halt_poll_ns,
 *   default halt_poll_ns_shrink, what sets it apart)
 *
 * Ubuntu's 4.4 shipped halt_poll_ns 400000 on x86 (the setting of bug
 * 1724614). whatif_batch.c compiles its loops once per row.
 */
#define HS_ERA_TABLE(X)								\
	X(4_4, "4.4", 0, 0, HS_RULE_GROW_CLAMP, 400000, 0,			\
	  "grow clamps to halt_poll_ns, shrink has no floor, no valid field")	\
	X(5_X, "5.x", 5, 0, HS_RULE_VALID_FIELD | HS_RULE_GROW_START |		\
	  HS_RULE_SHRINK_FLOOR | HS_RULE_GROW_CLAMP, 200000, 0,			\
	  "halt_poll_ns_grow_start, shrink below it gives 0")			\
	X(6_1, "6.1", 6, 1, HS_RULE_VALID_FIELD | HS_RULE_GROW_START |		\
	  HS_RULE_SHRINK_FLOOR | HS_RULE_MAX_LIVE, 200000, 0,			\
	  "halt_poll_ns read live and clamped at halt entry, grow unclamped")	\
	X(6_11, "6.11", 6, 11, HS_RULE_VALID_FIELD | HS_RULE_GROW_START |	\
	  HS_RULE_SHRINK_FLOOR | HS_RULE_MAX_LIVE, 200000, 2,			\
	  "as 6.1, halt_poll_ns_shrink default 2")

enum hs_kernel_era {
#define HS_ERA_ENUM(id, ...) HS_ERA_##id,
	HS_ERA_TABLE(HS_ERA_ENUM)
#undef HS_ERA_ENUM
	HS_ERA_COUNT
};

struct hs_era {
	const char *name;		/* as --kernel-era takes it */
	unsigned int since_major, since_minor;	/* the first release of the era */
	unsigned int rules;		/* enum hs_era_rule bits */
	uint64_t default_max_ns;	/* halt_poll_ns */
	uint32_t default_shrink;	/* halt_poll_ns_shrink */
	const char *about;
};

/* The rows, by enum hs_kernel_era (era.c). */
extern const struct hs_era hs_kernel_eras[HS_ERA_COUNT];

/* The row of era (inline: the replay asks once a halt); out of range, the newest. */
static inline const struct hs_era *hs_kernel_era_get(enum hs_kernel_era era)
{
	return &hs_kernel_eras[(unsigned int)era < HS_ERA_COUNT ? era : HS_ERA_COUNT - 1];
}

static inline bool hs_kernel_era_has(enum hs_kernel_era era, enum hs_era_rule rule)
{
	return hs_kernel_era_get(era)->rules & rule;
}
enum hs_kernel_era hs_kernel_era_from_release(const char *release);
const char *hs_kernel_era_name(enum hs_kernel_era era);
/* An era's name (any case) or a release such as 5.15.0-91-generic. */
int hs_kernel_era_parse(const char *name, enum hs_kernel_era *era);

/*
 * 5.8 to 6.0 copied halt_poll_ns into a VM when it was created, so writing
 * the parameter does not reach running VMs. 1 yes, 0 no, -1 release unknown.
 */
int hs_kernel_copies_halt_poll_ns(const char *release);

#endif
