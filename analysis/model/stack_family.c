// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Stack families (stack_family.h): each stack's frames hashed without their
 * payloads, per process; equal hashes are compared frame by frame (labels
 * are interned by the profile, so equal labels are equal pointers), and a
 * collision takes the next slot of the hash. Linear in the frames.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "hashmap.h"
#include "profile.h"
#include "stack_family.h"
#include "util.h"

struct stack_families {
	size_t *of; /* per stack id: its family's first stack */
	size_t nr;
};

static uint64_t frames_hash(const struct profile_stack *s)
{
	uint64_t h = fsp_hash_u64(s->depth);

	for (size_t i = 0; i < s->depth; i++) {
		const struct profile_frame *f = &s->frames[i];

		h = fsp_hash_pair(h, (uint64_t)f->kind);
		h = fsp_hash_pair(h, (uintptr_t)f->feature);
		h = fsp_hash_pair(h, (uintptr_t)f->instance);
	}
	return h;
}

static bool same_frames(const struct profile_stack *a, const struct profile_stack *b)
{
	if (a->depth != b->depth)
		return false;
	for (size_t i = 0; i < a->depth; i++) {
		const struct profile_frame *x = &a->frames[i], *y = &b->frames[i];

		if (x->kind != y->kind || x->feature != y->feature || x->instance != y->instance)
			return false;
	}
	return true;
}

/* The family of stack i (its own id when it is the first of its frames). */
static int family_of(const struct profile *p, struct hashmap *map, size_t i, size_t *out)
{
	struct profile_stack s, first;
	uint64_t pkey, h, idx;
	int r;

	r = profile__stack(p, i, &s);
	if (r)
		return r;
	pkey = (uint64_t)s.source << 32 | s.pid;
	for (h = frames_hash(&s);; h++) {
		r = hashmap__find_or_insert(map, pkey, h, i, &idx);
		if (r <= 0) {
			*out = i;
			return r;
		}
		r = profile__stack(p, (size_t)idx, &first);
		if (r)
			return r;
		if (same_frames(&s, &first)) {
			*out = (size_t)idx;
			return 0;
		}
	}
}

struct stack_families *stack_families__new(const struct profile *p)
{
	struct stack_families *f = calloc(1, sizeof(*f));
	struct hashmap map = HASHMAP_INIT;
	size_t n = profile__nr_stacks(p);
	int err = f ? 0 : -ENOMEM;

	if (!err) {
		f->of = calloc(n ? n : 1, sizeof(*f->of));
		err = f->of ? 0 : -ENOMEM;
	}
	for (size_t i = 0; i < n && !err; i++)
		err = family_of(p, &map, i, &f->of[i]);
	hashmap__fini(&map);
	if (err) {
		stack_families__free(f);
		return NULL;
	}
	f->nr = n;
	return f;
}

void stack_families__free(struct stack_families *f)
{
	if (!f)
		return;
	free(f->of);
	free(f);
}

size_t stack_families__of(const struct stack_families *f, size_t stack)
{
	return f && stack < f->nr ? f->of[stack] : stack;
}

/* ---- groups: thread x family ---------------------------------------------------------- */

/* A group key's first half: a stored stack's family and a key of no stored
 * stack are apart (thread numbers stay below 2^40). */
#define GROUP_FAMILY (1ULL << 40)

struct family_groups {
	struct stack_families *fam;
	struct hashmap threads; /* (source << 32 | pid, tid) -> thread number */
	struct hashmap groups; /* (thread number | GROUP_FAMILY, family or key) -> group */
};

struct family_groups *family_groups__new(const struct profile *p)
{
	struct family_groups *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->fam = stack_families__new(p);
	if (!g->fam) {
		free(g);
		return NULL;
	}
	return g;
}

void family_groups__free(struct family_groups *g)
{
	if (!g)
		return;
	stack_families__free(g->fam);
	hashmap__fini(&g->threads);
	hashmap__fini(&g->groups);
	free(g);
}

int family_groups__of(struct family_groups *g, uint32_t source, uint32_t pid, uint32_t tid,
		      size_t stack, uint64_t key, bool add, size_t *out)
{
	uint64_t t, a, b, idx;
	int r;

	r = hashmap__find_or_insert(&g->threads, (uint64_t)source << 32 | pid, tid, g->threads.len,
				    &t);
	if (r < 0)
		return r;
	a = stack == PROFILE_NO_STACK ? t : t | GROUP_FAMILY;
	b = stack == PROFILE_NO_STACK ? key : stack_families__of(g->fam, stack);
	if (!add && !hashmap__find(&g->groups, a, b, &idx))
		return -ENOENT;
	if (add) {
		r = hashmap__find_or_insert(&g->groups, a, b, g->groups.len, &idx);
		if (r < 0)
			return r;
	}
	*out = (size_t)idx;
	return 0;
}

size_t family_groups__nr(const struct family_groups *g)
{
	return g ? g->groups.len : 0;
}
