/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: the rows of an array found by a key pair (a, b) through a
 * hashmap, a row appended zeroed the first time its key is seen. Used where
 * the analysis gathers one row per feature or per (feature, instance), the
 * key being interned name pointers (attrib.c, diff.c).
 */
#ifndef FSP_ANALYSIS_ROWTAB_H
#define FSP_ANALYSIS_ROWTAB_H

#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"

/*
 * Where the rows live: the caller's array *rows of *nr rows of `size`
 * bytes (capacity *cap, grown by fsp_grow) and the map from key to row
 * index. side, when not NULL, is a parallel array (capacity *side_cap,
 * elements of side_size bytes) that gets an element, zeroed, with each row.
 */
struct rowtab {
	struct hashmap *map;
	void **rows;
	size_t *nr, *cap;
	size_t size;
	void **side;
	size_t *side_cap;
	size_t side_size;
};

/* A rowtab over the array `arr` (a pointer lvalue) of n rows, capacity c. */
#define ROWTAB(m, arr, n, c)                                                                       \
	{                                                                                          \
		.map = (m), .rows = (void **)&(arr), .nr = &(n), .cap = &(c),                      \
		.size = sizeof(*(arr))                                                             \
	}

/* The same with the parallel array `sarr` of capacity sc. */
#define ROWTAB_SIDE(m, arr, n, c, sarr, sc)                                                        \
	{                                                                                          \
		.map = (m), .rows = (void **)&(arr), .nr = &(n), .cap = &(c),                      \
		.size = sizeof(*(arr)), .side = (void **)&(sarr), .side_cap = &(sc),               \
		.side_size = sizeof(*(sarr))                                                       \
	}

/*
 * Sets *idx to the row of key (a, b), appending one (zeroed, with its side
 * element) when the key is new. Returns 1 when the row existed, 0 when it
 * was added (the caller fills in its name), -ENOMEM (nothing is mapped to a
 * missing row).
 */
int rowtab__find_or_add(const struct rowtab *t, uint64_t a, uint64_t b, size_t *idx);

#endif /* FSP_ANALYSIS_ROWTAB_H */
