/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal open-addressing hash map from a pair of u64 (a, b) to a u64 value
 * (typically an index into an array the caller owns). Linear probing, load
 * factor at most 1/2, no deletion: the analysis model only ever grows.
 */
#ifndef FSP_ANALYSIS_HASHMAP_H
#define FSP_ANALYSIS_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

struct hashmap_entry {
	uint64_t a;
	uint64_t b;
	uint64_t val; /* HASHMAP_FREE marks an unused slot */
};

#define HASHMAP_FREE UINT64_MAX

struct hashmap {
	struct hashmap_entry *entries;
	size_t cap; /* 0 or a power of two */
	size_t len;
};

#define HASHMAP_INIT                                                                               \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

void hashmap__fini(struct hashmap *m);

/* Returns 1 and sets *val when (a, b) is present, 0 otherwise. val may be NULL. */
int hashmap__find(const struct hashmap *m, uint64_t a, uint64_t b, uint64_t *val);

/*
 * Looks (a, b) up; when absent inserts it with value `val` (never HASHMAP_FREE).
 * Sets *found (may be NULL) to the value present or inserted. Returns 1 when
 * the key was already present, 0 when inserted, -ENOMEM or -EINVAL.
 */
int hashmap__find_or_insert(struct hashmap *m, uint64_t a, uint64_t b, uint64_t val,
			    uint64_t *found);

#endif /* FSP_ANALYSIS_HASHMAP_H */
