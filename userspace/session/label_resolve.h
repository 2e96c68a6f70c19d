/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Labels (label_resolve.c): the strings of the addresses a stack's frames
 * carry, from the labels map the probes filled, else from the target's
 * memory or the file mapped there (safely: procmaps__open), else a counted
 * label error.
 */
#ifndef FSP_LABEL_RESOLVE_H
#define FSP_LABEL_RESOLVE_H

#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "hashmap.h"

struct session;

/* The labels map as a pass found it, read in batches: each entry's length
 * word (FSP_LABEL_* flags included) and its bytes. */
struct label_ent {
	uint64_t len;
	size_t off; /* in pool */
};

struct label_cache {
	char *pool;
	size_t len, cap;
	struct label_ent *ents;
	size_t nr, cap_ents;
	struct hashmap map; /* (tgid, addr) -> index in ents */
};

/* Reads the labels map into c in batches; best effort: without it (c left
 * empty), labels are looked up one by one. */
void label_cache__read(struct session *s, struct label_cache *c);
void label_cache__free(struct label_cache *c);

/* A label from the labels map (c may be NULL), else from the live process's
 * memory, else from the file mapped there now, else, for a process that is
 * gone, from the file its last scan saw there; else a placeholder in buf
 * and (*errors)++. */
const char *label__resolve(struct session *s, const struct label_cache *c, __u32 tgid, __u64 addr,
			   char *buf, size_t size, uint64_t *errors);

#endif /* FSP_LABEL_RESOLVE_H */
