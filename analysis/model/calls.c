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
	uint64_t dropped_calls; /* by calls__bound */
	struct hashmap groups; /* (feature, instance) interned pointers -> group */
	uint64_t *group_dropped; /* per group: its calls calls__bound dropped */
	size_t nr_groups, cap_groups;
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
	c->groups = (struct hashmap)HASHMAP_INIT;
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
	hashmap__fini(&c->groups);
	free(c->group_dropped);
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
			       .first_ns = UINT64_MAX,
			       .weight = 1};
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
	n->weight = r->weight > 0 ? r->weight : 1;
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

void calls__set_weight(struct calls *c, size_t i, double w)
{
	if (c && i < c->nr && w >= 1)
		c->recs[i].weight = w;
}

uint64_t calls__dropped_calls(const struct calls *c)
{
	return c ? c->dropped_calls : 0;
}

void calls__set_dropped_calls(struct calls *c, uint64_t n)
{
	if (c)
		c->dropped_calls = n;
}

/* A call's place in calls__bound. */
struct bound_ent {
	size_t i; /* its index */
	size_t group;
	uint64_t ns; /* its duration */
	uint64_t u; /* its sample key */
	bool open, keep;
};

/* A well-mixed 64-bit hash of call r: its key in the uniform sample. */
static uint64_t sample_key(const struct call_rec *r)
{
	uint64_t x = feature_key(r->feature, r->id) ^ ((uint64_t)r->pid << 32 | r->tid);

	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* The group of r's (feature, instance): names are interned, so their
 * addresses identify them. */
static int group_of(struct calls *c, const struct call_rec *r, size_t *g)
{
	uint64_t at;
	int ret = hashmap__find_or_insert(&c->groups, (uint64_t)(uintptr_t)r->feature,
					  (uint64_t)(uintptr_t)r->instance, c->nr_groups, &at);

	if (ret < 0)
		return ret;
	if (!ret) {
		if (fsp_grow((void **)&c->group_dropped, &c->cap_groups, c->nr_groups + 1,
			     sizeof(*c->group_dropped)))
			return -ENOMEM;
		c->group_dropped[c->nr_groups++] = 0;
	}
	*g = (size_t)at;
	return 0;
}

/* Group first, open calls first, then the slowest first. */
static int cmp_by_duration(const void *a, const void *b)
{
	const struct bound_ent *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->open != y->open)
		return x->open ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

static int cmp_by_key(const void *a, const void *b)
{
	const struct bound_ent *x = a, *y = b;

	if (x->u != y->u)
		return x->u < y->u ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* One group's entries e[0, n) (sorted by cmp_by_duration): which it keeps,
 * and the weight of the sample's calls. */
static void bound_group(struct calls *c, struct bound_ent *e, size_t n, const struct calls_bound *b)
{
	size_t k = 0, rest, kept;
	uint64_t *dropped = &c->group_dropped[e[0].group];

	while (k < n && e[k].open)
		e[k++].keep = true;
	for (size_t j = 0; k < n && j < b->slowest; j++)
		e[k++].keep = true;
	rest = n - k;
	if (!rest)
		return;
	/* the others' bottom-k by key: a uniform sample of them */
	qsort(e + k, rest, sizeof(*e), cmp_by_key);
	kept = rest < b->sample ? rest : b->sample;
	for (size_t j = 0; j < rest; j++) {
		struct call_rec *r = &c->recs[e[k + j].i];

		e[k + j].keep = j < kept;
		if (j < kept)
			continue;
		(*dropped)++;
		c->dropped_calls++;
		c->dropped += r->samples;
	}
	for (size_t j = 0; j < kept; j++)
		c->recs[e[k + j].i].weight = (double)(kept + *dropped) / (double)kept;
}

/* Keeps the calls of e marked keep, in their order, and indexes them again. */
static int bound_compact(struct calls *c, const struct bound_ent *e, size_t n)
{
	bool *keep = calloc(n ? n : 1, sizeof(*keep));
	size_t to = 0;
	int err = 0;

	if (!keep)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++)
		keep[e[k].i] = e[k].keep;
	hashmap__fini(&c->index);
	hashmap__fini(&c->by_id);
	c->nr_exact = 0;
	for (size_t i = 0; i < n; i++) {
		struct call_rec *r = &c->recs[i];
		uint64_t a = (uint64_t)r->pid << 32 | r->tid;

		if (!keep[i]) {
			free(r->stacks);
			free(r->natives);
			continue;
		}
		c->recs[to] = *r;
		c->nr_exact += r->exact_ns != 0;
		if (!err && hashmap__find_or_insert(&c->index, a, feature_key(r->feature, r->id),
						    to, NULL) < 0)
			err = -ENOMEM;
		if (!err && hashmap__find_or_insert(&c->by_id, a, r->id, to, NULL) < 0)
			err = -ENOMEM;
		to++;
	}
	c->nr = to;
	free(keep);
	return err;
}

int calls__bound(struct calls *c, const struct calls_bound *b,
		 bool (*open)(void *ctx, const struct call_rec *r), void *ctx)
{
	struct bound_ent *e;
	size_t n;
	int err = 0;

	if (!c || !b)
		return -EINVAL;
	n = c->nr;
	e = malloc((n ? n : 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		const struct call_rec *r = &c->recs[i];

		e[i] = (struct bound_ent){.i = i,
					  .ns = call_rec__duration_ns(r, b->period_ns),
					  .u = sample_key(r),
					  .open = open && open(ctx, r)};
		err = group_of(c, r, &e[i].group);
	}
	if (!err) {
		qsort(e, n, sizeof(*e), cmp_by_duration);
		for (size_t k = 0, end; k < n; k = end) {
			for (end = k + 1; end < n && e[end].group == e[k].group; end++)
				;
			bound_group(c, e + k, end - k, b);
		}
		err = bound_compact(c, e, n);
	}
	free(e);
	return err;
}

/* Copies r's stacks mapped by stack_of into n; unmapped samples dropped. */
static int copy_stacks(struct calls *to, struct call_rec *n, const struct call_rec *r,
		       int (*stack_of)(void *ctx, size_t stack, size_t *out), void *ctx)
{
	int err = 0;

	for (size_t k = 0; k < r->nr_stacks && !err; k++) {
		const struct call_stack *cs = &r->stacks[k];
		size_t id;

		if (stack_of(ctx, cs->stack, &id)) {
			to->dropped += cs->count;
			continue;
		}
		err = add_stack(n, id, cs->count, cs->offcpu_ns);
		n->samples += cs->count;
		n->offcpu_ns += cs->offcpu_ns;
	}
	return err;
}

struct calls *calls__copy(const struct calls *c,
			  int (*stack_of)(void *ctx, size_t stack, size_t *out), void *ctx)
{
	struct calls *to = c ? calls__new(c->max) : NULL;
	int err = to ? 0 : -ENOMEM;

	if (to) {
		to->dropped = c->dropped;
		to->unknown = c->unknown;
		to->dropped_calls = c->dropped_calls;
	}
	for (size_t i = 0; !err && i < c->nr; i++) {
		const struct call_rec *r = &c->recs[i];
		struct call_rec *n =
			call_find(to, r->pid, r->tid, r->id, r->feature, r->instance, &err);

		if (!n) {
			/* not without err unless a hash collision: the call dropped */
			to->dropped += err ? 0 : r->samples;
			continue;
		}
		n->first_ns = r->first_ns;
		n->last_ns = r->last_ns;
		n->exact_ns = r->exact_ns;
		n->weight = r->weight;
		to->nr_exact += r->exact_ns != 0;
		err = copy_stacks(to, n, r, stack_of, ctx);
	}
	if (err) {
		calls__free(to);
		return NULL;
	}
	return to;
}
