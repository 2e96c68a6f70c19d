// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * String interning: an open-addressing set of strings stored in chunks, and
 * beside it an open-addressing set of the copies' addresses, so that
 * interning a copy the table handed out costs a pointer hash, not a string
 * hash and compare.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strtab.h"
#include "util.h"

#define STRTAB_CHUNK (64 * 1024)

struct strtab_slot {
	uint64_t hash;
	const char *str; /* NULL: free slot */
};

struct strtab_chunk {
	struct strtab_chunk *next;
	size_t used;
	size_t size;
	char data[];
};

struct strtab {
	struct strtab_slot *slots;
	const char **owned; /* the copies by address, cap slots; NULL: free */
	size_t cap; /* 0 or a power of two */
	size_t len;
	struct strtab_chunk *chunks; /* head has free space, if any */
};

struct strtab *strtab__new(void)
{
	return calloc(1, sizeof(struct strtab));
}

void strtab__free(struct strtab *t)
{
	struct strtab_chunk *c, *next;

	if (!t)
		return;
	for (c = t->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(t->slots);
	free(t->owned);
	free(t);
}

/* FNV-1a over len bytes, then mixed (fsp_hash_str's function, bounded). */
static uint64_t strtab__hash(const char *s, size_t len)
{
	return fsp_hash_u64(fsp_fnv1a(s, len, FSP_FNV_OFFSET));
}

static size_t strtab__slot(const struct strtab_slot *slots, size_t cap, uint64_t hash,
			   const char *s, size_t len)
{
	size_t mask = cap - 1;
	size_t i = hash & mask;

	while (slots[i].str &&
	       (slots[i].hash != hash || memcmp(slots[i].str, s, len) || slots[i].str[len]))
		i = (i + 1) & mask;
	return i;
}

/* The slot of address s in owned: s itself or the free slot it would take. */
static size_t strtab__owned_slot(const char *const *owned, size_t cap, const char *s)
{
	size_t mask = cap - 1;
	size_t i = fsp_hash_u64((uintptr_t)s) & mask;

	while (owned[i] && owned[i] != s)
		i = (i + 1) & mask;
	return i;
}

static int strtab__resize(struct strtab *t, size_t cap)
{
	struct strtab_slot *slots;
	const char **owned;
	size_t i, j;

	if (cap > SIZE_MAX / sizeof(*slots))
		return -ENOMEM;
	slots = calloc(cap, sizeof(*slots));
	owned = calloc(cap, sizeof(*owned));
	if (!slots || !owned) {
		free(slots);
		free(owned);
		return -ENOMEM;
	}
	for (i = 0; i < t->cap; i++) {
		if (!t->slots[i].str)
			continue;
		/* Distinct strings: the first free slot is the place. */
		j = t->slots[i].hash & (cap - 1);
		while (slots[j].str)
			j = (j + 1) & (cap - 1);
		slots[j] = t->slots[i];
		owned[strtab__owned_slot(owned, cap, t->slots[i].str)] = t->slots[i].str;
	}
	free(t->slots);
	free(t->owned);
	t->slots = slots;
	t->owned = owned;
	t->cap = cap;
	return 0;
}

/* Copies s (len bytes, then a NUL) into chunk storage. */
static char *strtab__store(struct strtab *t, const char *s, size_t len)
{
	struct strtab_chunk *c = t->chunks;
	size_t size;
	char *dst;

	if (len >= SIZE_MAX - sizeof(*c) - STRTAB_CHUNK)
		return NULL;
	if (!c || c->size - c->used < len + 1) {
		size = len + 1 > STRTAB_CHUNK ? len + 1 : STRTAB_CHUNK;
		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->used = 0;
		c->size = size;
		if (t->chunks && size > STRTAB_CHUNK) {
			/* A big string: keep the current chunk at the head. */
			c->next = t->chunks->next;
			t->chunks->next = c;
		} else {
			c->next = t->chunks;
			t->chunks = c;
		}
	}
	dst = c->data + c->used;
	memcpy(dst, s, len);
	dst[len] = 0;
	c->used += len + 1;
	return dst;
}

const char *strtab__intern_len(struct strtab *t, const char *s, size_t len, bool *added)
{
	uint64_t hash;
	char *copy;
	size_t i;

	if (added)
		*added = false;
	if (!t || !s)
		return NULL;
	if ((t->len + 1) * 2 > t->cap) {
		if (t->cap > SIZE_MAX / 2 || strtab__resize(t, t->cap ? t->cap * 2 : 64))
			return NULL;
	}
	hash = strtab__hash(s, len);
	i = strtab__slot(t->slots, t->cap, hash, s, len);
	if (t->slots[i].str)
		return t->slots[i].str;
	copy = strtab__store(t, s, len);
	if (!copy)
		return NULL;
	t->slots[i].hash = hash;
	t->slots[i].str = copy;
	t->owned[strtab__owned_slot(t->owned, t->cap, copy)] = copy;
	t->len++;
	if (added)
		*added = true;
	return copy;
}

const char *strtab__intern(struct strtab *t, const char *s)
{
	size_t i;

	if (!t || !s)
		return NULL;
	/* One of our copies: itself (its address is all that is looked at). */
	if (t->cap) {
		i = strtab__owned_slot(t->owned, t->cap, s);
		if (t->owned[i])
			return s;
	}
	return strtab__intern_len(t, s, strlen(s), NULL);
}
