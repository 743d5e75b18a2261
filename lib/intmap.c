// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "intmap.h"

static void imap_insert(struct hs_imap *m, int key, uint32_t val)
{
	unsigned int i = hs_imap_hash(key) & (m->cap - 1);

	while (m->vals[i])
		i = (i + 1) & (m->cap - 1);
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
}

static int imap_grow(struct hs_imap *m)
{
	struct hs_imap bigger = { .cap = m->cap ? m->cap * 2 : 64 };
	unsigned int i;

	if (bigger.cap > (1u << 30))
		return HS_ERR_RUNTIME;
	bigger.keys = calloc(bigger.cap, sizeof(*bigger.keys));
	bigger.vals = calloc(bigger.cap, sizeof(*bigger.vals));
	if (!bigger.keys || !bigger.vals) {
		free(bigger.keys);
		free(bigger.vals);
		return HS_ERR_RUNTIME;
	}
	for (i = 0; i < m->cap; i++)
		if (m->vals[i])
			imap_insert(&bigger, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	*m = bigger;
	return 0;
}

int hs_imap_put(struct hs_imap *m, int key, unsigned int idx)
{
	/* keep the load under one half so probes stay short */
	if ((m->n + 1) * 2 > m->cap && imap_grow(m))
		return HS_ERR_RUNTIME;
	imap_insert(m, key, idx + 1);
	return 0;
}

void hs_imap_free(struct hs_imap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

int hs_array_reserve(void **arr, unsigned int *cap, unsigned int n, size_t elem)
{
	unsigned int ncap;
	void *p;

	if (n < *cap)
		return 0;
	if (*cap > UINT_MAX / 4)
		return HS_ERR_RUNTIME;
	ncap = *cap ? *cap * 2 : 16;
	p = realloc(*arr, (size_t)ncap * elem);
	if (!p)
		return HS_ERR_RUNTIME;
	*arr = p;
	*cap = ncap;
	return 0;
}

long hs_itable_slot(struct hs_imap *m, void **arr, unsigned int *n, unsigned int *cap,
		    size_t elem, int key, unsigned int max, bool *added)
{
	long i = hs_imap_get(m, key);

	*added = false;
	if (i >= 0)
		return i;
	if (*n >= max || hs_array_reserve(arr, cap, *n, elem) || hs_imap_put(m, key, *n))
		return -1;
	memset((char *)*arr + (size_t)*n * elem, 0, elem);
	*added = true;
	return (long)(*n)++;
}
