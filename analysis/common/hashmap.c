// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Open-addressing hash map of u64 pairs, see hashmap.h. */
#include <errno.h>
#include <stdlib.h>

#include "hashmap.h"
#include "util.h"

void hashmap__fini(struct hashmap *m)
{
	if (!m)
		return;
	free(m->entries);
	m->entries = NULL;
	m->cap = 0;
	m->len = 0;
}

static size_t hashmap__slot(const struct hashmap_entry *entries, size_t cap, uint64_t a, uint64_t b)
{
	size_t mask = cap - 1;
	size_t i = fsp_hash_pair(a, b) & mask;

	while (entries[i].val != HASHMAP_FREE && (entries[i].a != a || entries[i].b != b))
		i = (i + 1) & mask;
	return i;
}

static int hashmap__resize(struct hashmap *m, size_t cap)
{
	struct hashmap_entry *entries;
	size_t i, j;

	if (cap > SIZE_MAX / sizeof(*entries))
		return -ENOMEM;
	entries = malloc(cap * sizeof(*entries));
	if (!entries)
		return -ENOMEM;
	for (i = 0; i < cap; i++)
		entries[i].val = HASHMAP_FREE;
	for (i = 0; i < m->cap; i++) {
		if (m->entries[i].val == HASHMAP_FREE)
			continue;
		j = hashmap__slot(entries, cap, m->entries[i].a, m->entries[i].b);
		entries[j] = m->entries[i];
	}
	free(m->entries);
	m->entries = entries;
	m->cap = cap;
	return 0;
}

int hashmap__find(const struct hashmap *m, uint64_t a, uint64_t b, uint64_t *val)
{
	size_t i;

	if (!m || !m->cap)
		return 0;
	i = hashmap__slot(m->entries, m->cap, a, b);
	if (m->entries[i].val == HASHMAP_FREE)
		return 0;
	if (val)
		*val = m->entries[i].val;
	return 1;
}

int hashmap__find_or_insert(struct hashmap *m, uint64_t a, uint64_t b, uint64_t val,
			    uint64_t *found)
{
	size_t i;
	int err;

	if (!m || val == HASHMAP_FREE)
		return -EINVAL;
	if ((m->len + 1) * 2 > m->cap) {
		if (m->cap > SIZE_MAX / 2)
			return -ENOMEM;
		err = hashmap__resize(m, m->cap ? m->cap * 2 : 16);
		if (err)
			return err;
	}
	i = hashmap__slot(m->entries, m->cap, a, b);
	if (m->entries[i].val != HASHMAP_FREE) {
		if (found)
			*found = m->entries[i].val;
		return 1;
	}
	m->entries[i].a = a;
	m->entries[i].b = b;
	m->entries[i].val = val;
	m->len++;
	if (found)
		*found = val;
	return 0;
}
