/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_INTMAP_H
#define HS_INTMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/*
 * Small open-addressing maps from an int key (a thread id, a CPU) to an
 * index into the caller's array, and growable arrays: the lookups behind
 * every event, so the lookup is inline.
 */
/* int key -> array index; vals hold index + 1 so that 0 marks a free slot. */
struct hs_imap {
	int *keys;
	uint32_t *vals;
	unsigned int cap;	/* power of two, or 0 */
	unsigned int n;
};


static inline uint32_t hs_imap_hash(int key)
{
	return (uint32_t)key * 2654435761u;
}

/* One share of the keys among count (hs_shard_owns); count <= 1: all of them. */
struct hs_shard {
	unsigned int index, count;
	uint32_t salt;		/* picks another division of the same keys */
};

/*
 * Which of count shares holds key: by the hash, scaled to [0, count) by
 * its high bits, with no division. vCPU threads of one VM have consecutive
 * tids, which a plain modulo would hand out just as well, but tids picked
 * from a sparse set might not. Few keys can still fall unevenly: the salt
 * lets the one who divides them try other divisions (lib/shard_plan.c).
 */
static inline unsigned int hs_shard_of(unsigned int count, uint32_t salt, int key)
{
	/* salted before the hash: after it, a salt would only relabel two shares */
	return (unsigned int)(((uint64_t)hs_imap_hash((int)((uint32_t)key ^ salt)) * count) >> 32);
}

/* s as a holder keeps it: an index within count, or all keys (count 1). */
static inline struct hs_shard hs_shard_norm(struct hs_shard s)
{
	return s.count > 1 ? (struct hs_shard){ s.index % s.count, s.count, s.salt } :
			     (struct hs_shard){ 0, 1, 0 };
}

/* Whether share s holds key. */
static inline bool hs_shard_owns(struct hs_shard s, int key)
{
	return s.count <= 1 || hs_shard_of(s.count, s.salt, key) == s.index;
}

static inline long hs_imap_get(const struct hs_imap *m, int key)
{
	unsigned int i;

	if (!m->cap)
		return -1;
	for (i = hs_imap_hash(key) & (m->cap - 1); m->vals[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return (long)m->vals[i] - 1;
	return -1;
}

/* Maps key to idx; HS_ERR_RUNTIME when the map cannot grow. */
int hs_imap_put(struct hs_imap *m, int key, unsigned int idx);
void hs_imap_free(struct hs_imap *m);

/* Makes room for one more element in a growable array: HS_OK or HS_ERR_RUNTIME. */
int hs_array_reserve(void **arr, unsigned int *cap, unsigned int n, size_t elem);

/*
 * A growable array of elem-sized entries found by an int key through m:
 * the index of key's entry, or of a new zeroed one at the end (*added set),
 * or -1 when max entries are there already or memory runs out.
 */
long hs_itable_slot(struct hs_imap *m, void **arr, unsigned int *n, unsigned int *cap,
		    size_t elem, int key, unsigned int max, bool *added);

#endif
