// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The calls of the slow-call view: see calls.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "charges.h"
#include "hashmap.h"
#include "profile_int.h"
#include "strtab.h"
#include "util.h"

#define CALLS_DEFAULT_MAX (1u << 20)

struct calls {
	struct strtab *names; /* features and instances */
	struct hashmap index; /* (pid << 32 | tid, call number ^ feature) -> rec */
	struct hashmap by_id; /* (pid << 32 | tid, call number) -> its first rec */
	struct call_rec *recs;
	size_t nr, cap, max;
	uint64_t dropped;
	uint64_t unknown;
	size_t nr_exact; /* calls with exact_ns */
};

struct calls *calls__new(size_t max)
{
	struct calls *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->names = strtab__new();
	if (!c->names) {
		free(c);
		return NULL;
	}
	c->index = (struct hashmap)HASHMAP_INIT;
	c->by_id = (struct hashmap)HASHMAP_INIT;
	c->max = max ? max : CALLS_DEFAULT_MAX;
	return c;
}

void calls__free(struct calls *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr; i++) {
		free(c->recs[i].stacks);
		free(c->recs[i].natives);
	}
	hashmap__fini(&c->index);
	hashmap__fini(&c->by_id);
	strtab__free(c->names);
	free(c->recs);
	free(c);
}

/* The feature's part of a call's key: call numbers are per thread and per
 * stack (DSO), so two features' calls may share a number. */
static uint64_t feature_key(const char *feature, uint64_t id)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const char *s = feature; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return id ^ (h * 0x9e3779b97f4a7c15ULL);
}

/* The record of call id of feature in (pid, tid); NULL if it has none. */
static struct call_rec *call_lookup(struct calls *c, uint32_t pid, uint32_t tid, uint64_t id,
				    const char *feature)
{
	uint64_t a = (uint64_t)pid << 32 | tid, b = feature_key(feature, id), at;

	if (hashmap__find(&c->index, a, b, &at) == 1 && at < c->nr && c->recs[at].id == id &&
	    !strcmp(c->recs[at].feature, feature))
		return &c->recs[at];
	return NULL;
}

/* The record of call id of feature in (pid, tid), made if new; NULL when
 * the table is full (or out of memory: *err). */
static struct call_rec *call_find(struct calls *c, uint32_t pid, uint32_t tid, uint64_t id,
				  const char *feature, const char *instance, int *err)
{
	uint64_t a = (uint64_t)pid << 32 | tid, b = feature_key(feature, id);
	struct call_rec *r = call_lookup(c, pid, tid, id, feature);
	int ret;

	if (r)
		return r;
	if (c->nr >= c->max)
		return NULL;
	if (c->nr == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		struct call_rec *n = realloc(c->recs, cap * sizeof(*n));

		if (!n) {
			*err = -ENOMEM;
			return NULL;
		}
		c->recs = n;
		c->cap = cap;
	}
	ret = hashmap__find_or_insert(&c->index, a, b, c->nr, NULL);
	if (ret) {
		/* Another call under the same key (a hash collision): dropped. */
		*err = ret < 0 ? ret : 0;
		return NULL;
	}
	if (hashmap__find_or_insert(&c->by_id, a, id, c->nr, NULL) < 0) {
		*err = -ENOMEM;
		return NULL;
	}
	feature = strtab__intern(c->names, feature);
	instance = strtab__intern(c->names, instance);
	if (!feature || !instance) {
		*err = -ENOMEM;
		return NULL;
	}
	r = &c->recs[c->nr++];
	*r = (struct call_rec){.pid = pid,
			       .tid = tid,
			       .id = id,
			       .feature = feature,
			       .instance = instance,
			       .first_ns = UINT64_MAX};
	return r;
}

/* count samples and offcpu_ns of off-CPU time more of r with stack `stack`. */
static int add_stack(struct call_rec *r, size_t stack, uint64_t count, uint64_t offcpu_ns)
{
	for (size_t k = r->nr_stacks; k-- > 0;) {
		if (r->stacks[k].stack == stack) {
			r->stacks[k].count += count;
			r->stacks[k].offcpu_ns += offcpu_ns;
			return 0;
		}
	}
	if (r->nr_stacks == r->cap_stacks) {
		size_t cap = r->cap_stacks ? r->cap_stacks * 2 : 2;
		struct call_stack *n = realloc(r->stacks, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->stacks = n;
		r->cap_stacks = cap;
	}
	r->stacks[r->nr_stacks++] =
		(struct call_stack){.stack = stack, .count = count, .offcpu_ns = offcpu_ns};
	return 0;
}

/* count samples more of r with stack `stack` and native stack `native`. */
static int add_native(struct call_rec *r, size_t stack, size_t native, uint64_t count)
{
	for (size_t k = r->nr_natives; k-- > 0;) {
		if (r->natives[k].stack == stack && r->natives[k].native == native) {
			r->natives[k].count += count;
			return 0;
		}
	}
	if (r->nr_natives == r->cap_natives) {
		size_t cap = r->cap_natives ? r->cap_natives * 2 : 2;
		struct call_native *n = realloc(r->natives, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->natives = n;
		r->cap_natives = cap;
	}
	r->natives[r->nr_natives++] =
		(struct call_native){.stack = stack, .native = native, .count = count};
	return 0;
}

/* What one join adds to each call its stack charges. */
struct join {
	size_t stack;
	uint64_t count; /* samples (calls__add) */
	uint64_t time_ns; /* their time, or an off-CPU interval's start */
	uint64_t offcpu_ns; /* calls__add_offcpu: the interval's length */
	size_t native; /* calls__add_native: SIZE_MAX none */
};

/* Adds j to call r. */
static int join_one(struct call_rec *r, const struct join *j)
{
	int err;

	if (j->native != SIZE_MAX)
		return add_native(r, j->stack, j->native, j->count);
	err = add_stack(r, j->stack, j->count, j->offcpu_ns);
	r->samples += j->count;
	r->offcpu_ns += j->offcpu_ns;
	/* an off-CPU interval extends the call's extent to its switch-in */
	if (j->time_ns < r->first_ns)
		r->first_ns = j->time_ns;
	if (j->time_ns + j->offcpu_ns > r->last_ns)
		r->last_ns = j->time_ns + j->offcpu_ns;
	return err;
}

/*
 * The one attribution rule (charges__stack) picks the charged frames of the
 * stack frames[0, depth); the call of each is (pid, tid, feature, its call
 * number): j goes to it, made if new unless j is a native stack's (those go
 * to the calls their samples made).
 */
static int join(struct calls *c, uint32_t pid, uint32_t tid, const struct profile_frame *frames,
		const uint64_t *ids, size_t depth, const struct join *j)
{
	uint64_t weight = j->count; /* samples: off-CPU intervals count none */
	struct charge *ch;
	size_t n;
	int err = 0;

	if (!c || (depth && (!frames || !ids)))
		return -EINVAL;
	if (!depth)
		return 0;
	ch = malloc(depth * sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	n = charges__stack(frames, depth, ch);
	for (size_t k = 0; k < n && !err; k++) {
		uint64_t id = ch[k].why == CHARGE_MARK ? ids[ch[k].frame] : 0;
		struct call_rec *r;

		if (j->native != SIZE_MAX) {
			r = id ? call_lookup(c, pid, tid, id, ch[k].feature) : NULL;
			err = r ? join_one(r, j) : 0;
			continue;
		}
		if (!id) {
			c->unknown += weight;
			continue;
		}
		r = call_find(c, pid, tid, id, ch[k].feature, ch[k].instance, &err);
		if (!r) {
			if (!err)
				c->dropped += weight;
			continue;
		}
		err = join_one(r, j);
	}
	free(ch);
	return err;
}

int calls__add_native(struct calls *c, uint32_t pid, uint32_t tid, size_t stack,
		      const struct profile_frame *frames, const uint64_t *ids, size_t depth,
		      size_t native, uint64_t count)
{
	const struct join j = {.stack = stack, .count = count, .native = native};

	return join(c, pid, tid, frames, ids, depth, &j);
}

int calls__add(struct calls *c, uint32_t pid, uint32_t tid, size_t stack,
	       const struct profile_frame *frames, const uint64_t *ids, size_t depth,
	       uint64_t time_ns, uint64_t count)
{
	const struct join j = {
		.stack = stack, .count = count, .time_ns = time_ns, .native = SIZE_MAX};

	return join(c, pid, tid, frames, ids, depth, &j);
}

int calls__add_offcpu(struct calls *c, uint32_t pid, uint32_t tid, size_t stack,
		      const struct profile_frame *frames, const uint64_t *ids, size_t depth,
		      uint64_t start_ns, uint64_t ns)
{
	const struct join j = {
		.stack = stack, .time_ns = start_ns, .offcpu_ns = ns, .native = SIZE_MAX};

	return join(c, pid, tid, frames, ids, depth, &j);
}

size_t calls__nr(const struct calls *c)
{
	return c ? c->nr : 0;
}

const struct call_rec *calls__get(const struct calls *c, size_t i)
{
	return c && i < c->nr ? &c->recs[i] : NULL;
}

uint64_t calls__dropped(const struct calls *c)
{
	return c ? c->dropped : 0;
}

uint64_t calls__unknown(const struct calls *c)
{
	return c ? c->unknown : 0;
}

uint64_t call_rec__duration_ns(const struct call_rec *r, uint64_t period_ns)
{
	return r && r->exact_ns ? r->exact_ns : call_rec__estimate_ns(r, period_ns);
}

int calls__set_exact(struct calls *c, uint32_t pid, uint32_t tid, uint64_t id, uint64_t ns)
{
	uint64_t at;
	struct call_rec *r;

	/* Call numbers are per thread (and DSO): the thread's first call
	 * with that number (of one DSO in practice). */
	if (!c || hashmap__find(&c->by_id, (uint64_t)pid << 32 | tid, id, &at) != 1 || at >= c->nr)
		return -ENOENT;
	r = &c->recs[at];
	if (!r->exact_ns)
		c->nr_exact++;
	r->exact_ns = ns;
	return 0;
}

size_t calls__nr_exact(const struct calls *c)
{
	return c ? c->nr_exact : 0;
}

uint64_t call_rec__estimate_ns(const struct call_rec *r, uint64_t period_ns)
{
	if (!r || (!r->samples && !r->offcpu_ns))
		return 0;
	/* each sample stands for a period; an off-CPU interval for itself */
	return r->last_ns - r->first_ns + (r->samples ? period_ns : 0);
}

int calls__put(struct calls *c, const struct call_rec *r)
{
	struct call_rec *n;
	size_t before;
	int err = 0;

	if (!c || !r || !r->feature || !r->instance || !r->id)
		return -EINVAL;
	before = c->nr;
	n = call_find(c, r->pid, r->tid, r->id, r->feature, r->instance, &err);
	if (!n)
		return err ? err : -ENOSPC;
	if (c->nr == before)
		return -EEXIST;
	n->samples = r->samples;
	n->first_ns = r->first_ns;
	n->last_ns = r->last_ns;
	n->exact_ns = r->exact_ns;
	c->nr_exact += r->exact_ns != 0;
	return 0;
}

int calls__put_stack(struct calls *c, size_t i, size_t stack, uint64_t count)
{
	if (!c || i >= c->nr)
		return -EINVAL;
	return add_stack(&c->recs[i], stack, count, 0);
}

int calls__put_offcpu(struct calls *c, size_t i, size_t stack, uint64_t ns)
{
	if (!c || i >= c->nr)
		return -EINVAL;
	c->recs[i].offcpu_ns += ns;
	return add_stack(&c->recs[i], stack, 0, ns);
}

int calls__put_native(struct calls *c, size_t i, size_t stack, size_t native, uint64_t count)
{
	if (!c || i >= c->nr)
		return -EINVAL;
	return add_native(&c->recs[i], stack, native, count);
}

void calls__set_lost(struct calls *c, uint64_t dropped, uint64_t unknown)
{
	if (!c)
		return;
	c->dropped = dropped;
	c->unknown = unknown;
}

const struct calls *profile__calls(const struct profile *p)
{
	return p ? p->calls : NULL;
}

void profile__set_calls(struct profile *p, struct calls *c)
{
	if (!p)
		return;
	calls__free(p->calls);
	p->calls = c;
}
