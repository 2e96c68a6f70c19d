// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Attribution (attrib.h): the charges of each sampled stack (charges.h),
 * summed per feature and instance over a profile's core samples. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "hashmap.h"
#include "rowtab.h"
#include "util.h"

/* Per-feature state while attributing, parallel to attrib.features. */
struct attrib_build {
	struct attrib_instance *inst;
	size_t nr_inst, cap_inst;
};

struct attrib {
	uint64_t total;
	uint64_t uncharged;
	uint64_t total_off;
	uint64_t uncharged_off;
	struct attrib_feature *features;
	size_t nr_features, cap_features;
};

struct attrib_ctx {
	struct attrib *a;
	struct attrib_build *build; /* parallel to a->features */
	size_t cap_build;
	struct hashmap feature_map; /* (feature name pointer, 0) -> feature index */
	struct rowtab features; /* a->features and build, by feature_map */
	struct hashmap instance_map; /* (feature index, instance pointer) -> instance index */
	struct charge *scratch; /* the charges of the stack being charged */
	size_t cap_scratch;
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

/* The index of feature `name` (interned), its row created empty when new. */
static int attrib__feature_index(struct attrib_ctx *ctx, const char *name, size_t *out)
{
	int err = rowtab__find_or_add(&ctx->features, (uintptr_t)name, 0, out);

	if (!err)
		ctx->a->features[*out].name = name;
	return err < 0 ? err : 0;
}

/* The instance `inst` (NULL: no instance) of feature f, created when new. */
static struct attrib_instance *attrib__instance(struct attrib_ctx *ctx, size_t f, const char *inst,
						int *errp)
{
	struct attrib_build *b = &ctx->build[f];
	struct rowtab t = ROWTAB(&ctx->instance_map, b->inst, b->nr_inst, b->cap_inst);
	size_t idx;
	int err;

	if (inst && !strcmp(inst, ATTRIB_NO_INSTANCE))
		inst = NULL;
	err = rowtab__find_or_add(&t, f, (uintptr_t)inst, &idx);
	if (err < 0) {
		*errp = err;
		return NULL;
	}
	if (!err)
		b->inst[idx].name = inst ? inst : ATTRIB_NO_INSTANCE;
	return &b->inst[idx];
}

/* Charges `count` samples and `off` ns off-CPU to instance inst of feature f;
 * `other`: through a mark of another thread (PROFILE_CHARGED). */
static int attrib__charge(struct attrib_ctx *ctx, size_t f, const char *inst, uint64_t count,
			  uint64_t off, bool other)
{
	struct attrib_instance *in;
	int err = 0;

	in = attrib__instance(ctx, f, inst, &err);
	if (!in)
		return err;
	if (other) {
		in->other_samples += count;
		ctx->a->features[f].other_samples += count;
	}
	in->samples += count;
	in->offcpu_ns = fsp_sat_add(in->offcpu_ns, off);
	ctx->a->features[f].samples += count;
	ctx->a->features[f].offcpu_ns = fsp_sat_add(ctx->a->features[f].offcpu_ns, off);
	return 0;
}

/* Charges one distinct stack, sampled `count` times, by its charges
 * (charges.h: the rule), into ctx->scratch. */
static int attrib__stack(struct attrib_ctx *ctx, const struct profile_stack *st, uint64_t count,
			 uint64_t off)
{
	size_t i, f, n;
	int err;

	err = fsp_grow((void **)&ctx->scratch, &ctx->cap_scratch, st->depth, sizeof(*ctx->scratch));
	if (err)
		return err;
	n = charges__stack(st->frames, st->depth, ctx->scratch);
	for (i = 0; i < n; i++) {
		const struct charge *c = &ctx->scratch[i];

		err = attrib__feature_index(ctx, c->feature, &f);
		if (!err)
			err = attrib__charge(ctx, f, c->instance, count, off,
					     c->why == CHARGE_OTHER_THREAD);
		if (err)
			return err;
	}
	if (!n) {
		ctx->a->uncharged += count;
		ctx->a->uncharged_off = fsp_sat_add(ctx->a->uncharged_off, off);
	}
	return 0;
}

/* Sorts instances and features, dropping features charged nothing. */
static void attrib__finish(struct attrib_ctx *ctx)
{
	struct attrib *a = ctx->a;
	size_t i, n = 0;

	for (i = 0; i < a->nr_features; i++) {
		struct attrib_build *b = &ctx->build[i];

		if (!a->features[i].samples && !a->features[i].offcpu_ns &&
		    !a->features[i].events) {
			for (size_t j = 0; j < b->nr_inst; j++)
				free((void *)b->inst[j].events);
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

/* Adds stats to an event-view sum, allocated on first use. */
static int attrib__add_stats(const struct profile_event_stats **dst,
			     const struct profile_event_stats *src)
{
	struct profile_event_stats *d = (struct profile_event_stats *)*dst;

	if (!d) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return -ENOMEM;
		*dst = d;
	}
	profile_event_stats__add(d, src);
	return 0;
}

/* The event view of the selected processes, per feature and instance. The
 * profile's strings are interned, so equal names are equal pointers. */
static int attrib__events(struct attrib_ctx *ctx, const struct profile *p,
			  const struct attrib_opts *opts)
{
	struct attrib_instance *in;
	struct profile_event ev;
	size_t f;
	int err = 0;

	for (size_t i = 0; i < profile__nr_events(p); i++) {
		err = profile__event(p, i, &ev);
		if (err)
			return err;
		if (opts && opts->pid && (ev.pid != opts->pid || ev.source != opts->source))
			continue;
		err = attrib__feature_index(ctx, ev.feature, &f);
		if (err)
			return err;
		in = attrib__instance(ctx, f, ev.instance, &err);
		if (!in)
			return err;
		err = attrib__add_stats(&in->events, ev.stats);
		if (!err)
			err = attrib__add_stats(&ctx->a->features[f].events, ev.stats);
		if (err)
			return err;
	}
	return 0;
}

/* Sums the selected samples per distinct stack (per_stack, per_off), so
 * that the rule runs once per stack; the totals and the samples without a
 * mark stack go to a directly. */
static int attrib__sum_samples(struct attrib *a, const struct profile *p,
			       const struct attrib_opts *opts, uint64_t *per_stack,
			       uint64_t *per_off)
{
	struct profile_sample s;
	size_t i;
	int err;

	for (i = 0; i < profile__nr_samples(p); i++) {
		err = profile__sample(p, i, &s);
		if (err)
			return err;
		if (opts && opts->pid && (s.pid != opts->pid || s.source != opts->source))
			continue;
		if (opts && opts->tid && s.tid != opts->tid)
			continue;
		a->total += s.count;
		a->total_off = fsp_sat_add(a->total_off, s.offcpu_ns);
		if (s.stack == PROFILE_NO_STACK || !s.depth) {
			a->uncharged += s.count;
			a->uncharged_off = fsp_sat_add(a->uncharged_off, s.offcpu_ns);
		} else {
			per_stack[s.stack] += s.count;
			per_off[s.stack] = fsp_sat_add(per_off[s.stack], s.offcpu_ns);
		}
	}
	return 0;
}

struct attrib *attrib__compute(const struct profile *p, const struct attrib_opts *opts)
{
	struct attrib_ctx ctx = {};
	struct profile_stack st;
	uint64_t *per_stack = NULL, *per_off = NULL;
	size_t i, nr_stacks;
	struct attrib *a;
	int err = 0;

	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	ctx.a = a;
	ctx.features = (struct rowtab)ROWTAB_SIDE(&ctx.feature_map, a->features, a->nr_features,
						  a->cap_features, ctx.build, ctx.cap_build);
	nr_stacks = profile__nr_stacks(p);
	per_stack = calloc(nr_stacks ? nr_stacks : 1, sizeof(*per_stack));
	per_off = calloc(nr_stacks ? nr_stacks : 1, sizeof(*per_off));
	if (!per_stack || !per_off) {
		err = -ENOMEM;
		goto cleanup;
	}

	err = attrib__sum_samples(a, p, opts, per_stack, per_off);
	if (err)
		goto cleanup;
	for (i = 0; i < nr_stacks; i++) {
		if (!per_stack[i] && !per_off[i])
			continue;
		err = profile__stack(p, i, &st);
		if (err)
			goto cleanup;
		err = attrib__stack(&ctx, &st, per_stack[i], per_off[i]);
		if (err)
			goto cleanup;
	}
	if (!opts || !opts->tid)
		err = attrib__events(&ctx, p, opts);
	if (err)
		goto cleanup;
	attrib__finish(&ctx);
	free(ctx.build);
	ctx.build = NULL;

cleanup:
	if (err) {
		/* instances not yet owned by a->features */
		for (i = 0; ctx.build && i < a->nr_features; i++) {
			for (size_t j = 0; j < ctx.build[i].nr_inst; j++)
				free((void *)ctx.build[i].inst[j].events);
			free(ctx.build[i].inst);
			free((void *)a->features[i].events);
		}
		free(ctx.build);
		a->nr_features = 0;
		attrib__free(a);
		a = NULL;
	}
	hashmap__fini(&ctx.feature_map);
	hashmap__fini(&ctx.instance_map);
	free(ctx.scratch);
	free(per_stack);
	free(per_off);
	return a;
}

void attrib__free(struct attrib *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nr_features; i++) {
		for (size_t j = 0; j < a->features[i].nr_instances; j++)
			free((void *)a->features[i].instances[j].events);
		free((void *)a->features[i].instances);
		free((void *)a->features[i].events);
	}
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

uint64_t attrib__total_offcpu_ns(const struct attrib *a)
{
	return a ? a->total_off : 0;
}

uint64_t attrib__uncharged_offcpu_ns(const struct attrib *a)
{
	return a ? a->uncharged_off : 0;
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
