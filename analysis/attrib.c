// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The attribution rule (DESIGN.md section 2) over a profile's core samples. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "hashmap.h"
#include "util.h"

/* Per-feature state while attributing, parallel to attrib.features. */
struct attrib_build {
	struct attrib_instance *inst;
	size_t nr_inst, cap_inst;
	uint64_t stamp; /* last stack (index + 1) whose top-most frame of this feature was seen */
};

struct attrib {
	uint64_t total;
	uint64_t uncharged;
	struct attrib_feature *features;
	size_t nr_features, cap_features;
};

struct attrib_ctx {
	struct attrib *a;
	struct attrib_build *build; /* capacity a->cap_features */
	struct hashmap feature_map; /* (feature name pointer, 0) -> feature index */
	struct hashmap instance_map; /* (feature index, instance pointer) -> instance index */
};

static int attrib__cmp(uint64_t sa, const char *na, uint64_t sb, const char *nb)
{
	int c = fsp_cmp_u64(sb, sa); /* descending samples */

	return c ? c : strcmp(na, nb);
}

static int attrib__cmp_feature(const void *x, const void *y)
{
	const struct attrib_feature *a = x, *b = y;

	return attrib__cmp(a->samples, a->name, b->samples, b->name);
}

static int attrib__cmp_instance(const void *x, const void *y)
{
	const struct attrib_instance *a = x, *b = y;

	return attrib__cmp(a->samples, a->name, b->samples, b->name);
}

static int attrib__feature_index(struct attrib_ctx *ctx, const char *name, size_t *out)
{
	struct attrib *a = ctx->a;
	size_t cap = a->cap_features;
	uint64_t idx;
	int err;

	if (hashmap__find(&ctx->feature_map, (uintptr_t)name, 0, &idx)) {
		*out = idx;
		return 0;
	}
	err = fsp_grow((void **)&a->features, &a->cap_features, a->nr_features + 1,
		       sizeof(*a->features));
	if (err)
		return err;
	if (a->cap_features != cap) {
		struct attrib_build *b;

		b = realloc(ctx->build, a->cap_features * sizeof(*b));
		if (!b)
			return -ENOMEM;
		ctx->build = b;
	}
	err = hashmap__find_or_insert(&ctx->feature_map, (uintptr_t)name, 0, a->nr_features, NULL);
	if (err < 0)
		return err;
	memset(&a->features[a->nr_features], 0, sizeof(*a->features));
	memset(&ctx->build[a->nr_features], 0, sizeof(*ctx->build));
	a->features[a->nr_features].name = name;
	*out = a->nr_features++;
	return 0;
}

/* Charges `count` samples to instance `inst` (NULL: no instance) of feature f. */
static int attrib__charge(struct attrib_ctx *ctx, size_t f, const char *inst, uint64_t count)
{
	struct attrib_build *b = &ctx->build[f];
	uint64_t idx;
	int err;

	if (inst && !strcmp(inst, ATTRIB_NO_INSTANCE))
		inst = NULL;
	err = hashmap__find_or_insert(&ctx->instance_map, f, (uintptr_t)inst, b->nr_inst, &idx);
	if (err < 0)
		return err;
	if (!err) {
		err = fsp_grow((void **)&b->inst, &b->cap_inst, b->nr_inst + 1, sizeof(*b->inst));
		if (err)
			return err;
		b->inst[idx].name = inst ? inst : ATTRIB_NO_INSTANCE;
		b->inst[idx].samples = 0;
		b->nr_inst++;
	}
	b->inst[idx].samples += count;
	ctx->a->features[f].samples += count;
	return 0;
}

/* Applies the rule to one distinct stack that was sampled `count` times. */
static int attrib__stack(struct attrib_ctx *ctx, const struct profile_stack *st, uint64_t stamp,
			 uint64_t count)
{
	const struct profile_frame *fr;
	int charged = 0, err;
	size_t i, f;

	for (i = st->depth; i-- > 0;) {
		fr = &st->frames[i];
		err = attrib__feature_index(ctx, fr->feature, &f);
		if (err)
			return err;
		if (ctx->build[f].stamp == stamp)
			continue; /* a frame above decided for this feature */
		ctx->build[f].stamp = stamp;
		if (fr->kind != PROFILE_MARK)
			continue;
		err = attrib__charge(ctx, f, fr->instance, count);
		if (err)
			return err;
		charged = 1;
	}
	if (!charged)
		ctx->a->uncharged += count;
	return 0;
}

/* Sorts instances and features, dropping features charged nothing. */
static void attrib__finish(struct attrib_ctx *ctx)
{
	struct attrib *a = ctx->a;
	size_t i, n = 0;

	for (i = 0; i < a->nr_features; i++) {
		struct attrib_build *b = &ctx->build[i];

		if (!a->features[i].samples) {
			free(b->inst);
			continue;
		}
		qsort(b->inst, b->nr_inst, sizeof(*b->inst), attrib__cmp_instance);
		a->features[n] = a->features[i];
		a->features[n].instances = b->inst;
		a->features[n].nr_instances = b->nr_inst;
		n++;
	}
	a->nr_features = n;
	if (n) /* qsort's array must not be NULL, even when empty */
		qsort(a->features, n, sizeof(*a->features), attrib__cmp_feature);
}

struct attrib *attrib__compute(const struct profile *p, const struct attrib_opts *opts)
{
	struct attrib_ctx ctx = {};
	struct profile_sample s;
	struct profile_stack st;
	uint64_t *per_stack = NULL;
	size_t i, nr_stacks;
	struct attrib *a;
	int err = 0;

	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	ctx.a = a;
	nr_stacks = profile__nr_stacks(p);
	per_stack = calloc(nr_stacks ? nr_stacks : 1, sizeof(*per_stack));
	if (!per_stack) {
		err = -ENOMEM;
		goto cleanup;
	}

	/* Sum the selected samples per distinct stack: the rule runs once per stack. */
	for (i = 0; i < profile__nr_samples(p); i++) {
		err = profile__sample(p, i, &s);
		if (err)
			goto cleanup;
		if (opts && opts->pid && (s.pid != opts->pid || s.source != opts->source))
			continue;
		if (opts && opts->tid && s.tid != opts->tid)
			continue;
		a->total += s.count;
		if (s.stack == PROFILE_NO_STACK || !s.depth)
			a->uncharged += s.count;
		else
			per_stack[s.stack] += s.count;
	}

	for (i = 0; i < nr_stacks; i++) {
		if (!per_stack[i])
			continue;
		err = profile__stack(p, i, &st);
		if (err)
			goto cleanup;
		err = attrib__stack(&ctx, &st, (uint64_t)i + 1, per_stack[i]);
		if (err)
			goto cleanup;
	}
	attrib__finish(&ctx);
	free(ctx.build);
	ctx.build = NULL;

cleanup:
	if (err) {
		/* instances not yet owned by a->features */
		for (i = 0; ctx.build && i < a->nr_features; i++)
			free(ctx.build[i].inst);
		free(ctx.build);
		a->nr_features = 0;
		attrib__free(a);
		a = NULL;
	}
	hashmap__fini(&ctx.feature_map);
	hashmap__fini(&ctx.instance_map);
	free(per_stack);
	return a;
}

void attrib__free(struct attrib *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nr_features; i++)
		free((void *)a->features[i].instances);
	free(a->features);
	free(a);
}

uint64_t attrib__total_samples(const struct attrib *a)
{
	return a ? a->total : 0;
}

uint64_t attrib__uncharged_samples(const struct attrib *a)
{
	return a ? a->uncharged : 0;
}

size_t attrib__nr_features(const struct attrib *a)
{
	return a ? a->nr_features : 0;
}

const struct attrib_feature *attrib__feature(const struct attrib *a, size_t i)
{
	if (!a || i >= a->nr_features)
		return NULL;
	return &a->features[i];
}
