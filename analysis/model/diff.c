// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Profile differencing with the linear-prediction scale model (diff.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "charges.h"
#include "diff.h"
#include "hashmap.h"
#include "native.h"
#include "output.h"
#include "rowtab.h"
#include "strtab.h"
#include "util.h"

/* A feature while the diff is built: its instances grow here. */
struct diff_build {
	struct diff_row *inst;
	size_t nr_inst, cap_inst;
	struct diff_row *fn; /* functions (self time under the feature) */
	size_t nr_fn, cap_fn;
};

struct diff {
	struct strtab *strs; /* names and metadata strings */
	double scale;
	struct profile_meta base_meta, new_meta; /* strings in strs */
	struct diff_side base, new_side;
	struct diff_totals totals;
	struct diff_feature *features;
	size_t nr_features, cap_features;
	struct diff_row *functions; /* over all samples, charged or not */
	size_t nr_functions, cap_functions;
};

struct diff_ctx {
	struct diff *d;
	struct diff_build *build; /* parallel to d->features */
	size_t cap_build;
	struct hashmap feature_map; /* (interned name, 0) -> feature index */
	struct rowtab features; /* d->features and build, by feature_map */
	struct hashmap instance_map; /* (feature index, interned name) -> instance index */
	struct hashmap function_map; /* (feature index, interned name) -> function index */
	struct hashmap all_fn_map; /* (0, interned name) -> index in d->functions */
};

/* Copies meta's strings into d's table. */
static int diff__copy_meta(struct diff *d, struct profile_meta *dst, const struct profile_meta *m)
{
	*dst = *m;
	dst->target = strtab__intern(d->strs, m->target);
	dst->command_line = strtab__intern(d->strs, m->command_line);
	dst->host = strtab__intern(d->strs, m->host);
	dst->kernel = strtab__intern(d->strs, m->kernel);
	dst->tool_version = strtab__intern(d->strs, m->tool_version);
	dst->marks = strtab__intern(d->strs, m->marks);
	dst->function_features = strtab__intern(d->strs, m->function_features);
	if ((m->target && !dst->target) || (m->command_line && !dst->command_line) ||
	    (m->host && !dst->host) || (m->kernel && !dst->kernel) ||
	    (m->tool_version && !dst->tool_version) || (m->marks && !dst->marks))
		return -ENOMEM;
	return 0;
}

/* The row of feature `name` (interned), created empty when new. */
static int diff__feature_index(struct diff_ctx *ctx, const char *name, size_t *out)
{
	int err = rowtab__find_or_add(&ctx->features, (uintptr_t)name, 0, out);

	if (!err)
		ctx->d->features[*out].row.name = name;
	return err < 0 ? err : 0;
}

/* The row of instance `name` (interned) of feature f, created empty when new. */
static struct diff_row *diff__instance(struct diff_ctx *ctx, size_t f, const char *name, int *err)
{
	struct diff_build *b = &ctx->build[f];
	struct rowtab t = ROWTAB(&ctx->instance_map, b->inst, b->nr_inst, b->cap_inst);
	size_t idx;

	*err = rowtab__find_or_add(&t, f, (uintptr_t)name, &idx);
	if (*err < 0)
		return NULL;
	if (!*err)
		b->inst[idx].name = name;
	*err = 0;
	return &b->inst[idx];
}

/* The row of function `name` (interned) of feature f, created empty when new. */
static struct diff_row *diff__function_row(struct diff_ctx *ctx, size_t f, const char *name,
					   int *err)
{
	struct diff_build *b = &ctx->build[f];
	struct rowtab t = ROWTAB(&ctx->function_map, b->fn, b->nr_fn, b->cap_fn);
	size_t idx;

	*err = rowtab__find_or_add(&t, f, (uintptr_t)name, &idx);
	if (*err < 0)
		return NULL;
	if (!*err)
		b->fn[idx].name = name;
	*err = 0;
	return &b->fn[idx];
}

/* Adds the attribution of one profile (is_new: NEW, else BASE) to the rows. */
static int diff__add_side(struct diff_ctx *ctx, const struct attrib *a, int is_new)
{
	const struct attrib_feature *af;
	struct diff_row *row;
	const char *name;
	size_t i, j, f;
	int err;

	for (i = 0; i < attrib__nr_features(a); i++) {
		af = attrib__feature(a, i);
		name = strtab__intern(ctx->d->strs, af->name);
		if (!name)
			return -ENOMEM;
		err = diff__feature_index(ctx, name, &f);
		if (err)
			return err;
		row = &ctx->d->features[f].row;
		*(is_new ? &row->new_samples : &row->base_samples) = af->samples;
		for (j = 0; j < af->nr_instances; j++) {
			name = strtab__intern(ctx->d->strs, af->instances[j].name);
			if (!name)
				return -ENOMEM;
			row = diff__instance(ctx, f, name, &err);
			if (!row)
				return err;
			*(is_new ? &row->new_samples : &row->base_samples) =
				af->instances[j].samples;
		}
	}
	return 0;
}

const char *diff__function_name(const struct profile *p, size_t loc, char *buf, size_t len)
{
	struct profile_location l;
	struct profile_module m;
	const char *base;

	if (profile__location(p, loc, &l)) {
		snprintf(buf, len, "[unknown]");
		return buf;
	}
	if (l.nr_lines && l.lines[0].function)
		return l.lines[0].function;
	if (l.module == PROFILE_NO_MODULE || profile__module(p, l.module, &m)) {
		snprintf(buf, len, "[jit]");
		return buf;
	}
	base = strrchr(m.path, '/');
	snprintf(buf, len, "%s+0x%" PRIx64, base && base[1] ? base + 1 : m.path, l.address);
	return buf;
}

/* The features mark stack st charges (charges.h), as feature indexes
 * appended to *out: those with a row (a feature charged nothing in either
 * profile has none). scratch: room for the stack's charges. */
static int diff__charged(struct diff_ctx *ctx, const struct profile_stack *st,
			 struct charge *scratch, size_t **out, size_t *nr, size_t *cap)
{
	size_t n = charges__stack(st->frames, st->depth, scratch);
	const char *name;
	uint64_t f;
	int err;

	for (size_t i = 0; i < n; i++) {
		name = strtab__intern(ctx->d->strs, scratch[i].feature);
		if (!name)
			return -ENOMEM;
		if (!hashmap__find(&ctx->feature_map, (uintptr_t)name, 0, &f))
			continue;
		err = fsp_grow((void **)out, cap, *nr + 1, sizeof(**out));
		if (err)
			return err;
		(*out)[(*nr)++] = f;
	}
	return 0;
}

/* What the native samples of a profile need, per mark stack and per native
 * stack, computed once. */
struct diff_native {
	size_t *first; /* per mark stack: its charged features, feats[first[s]..first[s+1]) */
	size_t *feats;
	size_t nr_feats, cap_feats;
	const char **leaf; /* per native stack: its leaf's function name, interned */
	struct charge *scratch; /* the charges of one mark stack */
	size_t cap_scratch;
};

static void diff_native__fini(struct diff_native *n)
{
	free(n->first);
	free(n->feats);
	free(n->leaf);
	free(n->scratch);
}

static int diff_native__build(struct diff_ctx *ctx, const struct profile *p, struct diff_native *n)
{
	size_t nr_stacks = profile__nr_stacks(p), nr_native = profile__nr_native_stacks(p);
	struct profile_native_stack ns;
	struct profile_stack st;
	char buf[128];
	int err;

	n->first = calloc(nr_stacks + 1, sizeof(*n->first));
	n->leaf = calloc(nr_native + 1, sizeof(*n->leaf));
	if (!n->first || !n->leaf)
		return -ENOMEM;
	for (size_t i = 0; i < nr_stacks; i++) {
		n->first[i] = n->nr_feats;
		err = profile__stack(p, i, &st);
		if (!err)
			err = fsp_grow((void **)&n->scratch, &n->cap_scratch, st.depth,
				       sizeof(*n->scratch));
		if (!err)
			err = diff__charged(ctx, &st, n->scratch, &n->feats, &n->nr_feats,
					    &n->cap_feats);
		if (err)
			return err;
	}
	n->first[nr_stacks] = n->nr_feats;
	for (size_t i = 0; i < nr_native; i++) {
		err = profile__native_stack(p, i, &ns);
		if (err)
			return err;
		n->leaf[i] = strtab__intern(ctx->d->strs,
					    diff__function_name(p, ns.locs[0], buf, sizeof(buf)));
		if (!n->leaf[i])
			return -ENOMEM;
	}
	return 0;
}

/* Adds count samples of function name (interned) to the all-samples rows. */
static int diff__add_all(struct diff_ctx *ctx, const char *name, uint64_t count, int is_new)
{
	struct diff *d = ctx->d;
	struct rowtab t = ROWTAB(&ctx->all_fn_map, d->functions, d->nr_functions, d->cap_functions);
	struct diff_row *row;
	size_t idx;
	int err = rowtab__find_or_add(&t, 0, (uintptr_t)name, &idx);

	if (err < 0)
		return err;
	row = &d->functions[idx];
	row->name = name;
	*(is_new ? &row->new_samples : &row->base_samples) += count;
	return 0;
}

/* Adds the native samples of one profile to the all-samples function rows
 * and to the function rows of the features their mark stacks charge. */
static int diff__add_functions(struct diff_ctx *ctx, const struct profile *p, int is_new)
{
	struct profile_native_sample s;
	struct diff_native n = {};
	struct diff_row *row;
	int err = 0;

	if (!profile__nr_native_samples(p))
		return 0;
	err = diff_native__build(ctx, p, &n);
	for (size_t i = 0; !err && i < profile__nr_native_samples(p); i++) {
		err = profile__native_sample(p, i, &s);
		if (!err)
			err = diff__add_all(ctx, n.leaf[s.stack], s.count, is_new);
		if (err || s.mark_stack == PROFILE_NO_STACK)
			continue;
		for (size_t j = n.first[s.mark_stack]; !err && j < n.first[s.mark_stack + 1]; j++) {
			row = diff__function_row(ctx, n.feats[j], n.leaf[s.stack], &err);
			if (row)
				*(is_new ? &row->new_samples : &row->base_samples) += s.count;
		}
	}
	diff_native__fini(&n);
	return err;
}

/*
 * Fills the derived fields of r from its sample counts. Times are computed in
 * nanoseconds first, so that K x base and new compare exactly for integral K
 * and whole sample counts (an exactly linear profile deviates by exactly 0).
 */
static void diff__fill(const struct diff *d, struct diff_row *r)
{
	double bns = (double)r->base_samples * (double)d->base.period_ns;
	double nns = (double)r->new_samples * (double)d->new_side.period_ns;

	/* a row charged nothing on either side (a feature of point events
	 * alone) is neither new nor gone: nothing changed */
	r->flags = (!r->base_samples && r->new_samples ? DIFF_NEW : 0) |
		   (r->base_samples && !r->new_samples ? DIFF_GONE : 0);
	r->base_ms = bns / 1e6;
	r->new_ms = nns / 1e6;
	r->base_pct = report_pct(r->base_samples, d->base.total_samples);
	r->new_pct = report_pct(r->new_samples, d->new_side.total_samples);
	r->delta_ms = (nns - bns) / 1e6;
	r->delta_pp = r->new_pct - r->base_pct;
	r->predicted_ms = d->scale * bns / 1e6;
	r->deviation_ms = (nns - d->scale * bns) / 1e6;
	r->growth = bns > 0 ? nns / bns : NAN;
}

static double abs_double(double v)
{
	return v < 0 ? -v : v;
}

/* Descending |deviation_ms| (= |delta_ms| for a plain diff), then by name. */
static int diff__cmp_row(const struct diff_row *a, const struct diff_row *b)
{
	double x = abs_double(a->deviation_ms), y = abs_double(b->deviation_ms);
	int c = (x < y) - (x > y);

	return c ? c : strcmp(a->name, b->name);
}

static int diff__cmp_instance(const void *x, const void *y)
{
	return diff__cmp_row(x, y);
}

static int diff__cmp_feature(const void *x, const void *y)
{
	const struct diff_feature *a = x, *b = y;

	return diff__cmp_row(&a->row, &b->row);
}

/* Hands the instance arrays to the features, fills every row and sorts. */
static void diff__finish(struct diff_ctx *ctx)
{
	struct diff *d = ctx->d;
	struct diff_build *b;
	size_t i, j;

	for (i = 0; i < d->nr_features; i++) {
		b = &ctx->build[i];
		diff__fill(d, &d->features[i].row);
		for (j = 0; j < b->nr_inst; j++)
			diff__fill(d, &b->inst[j]);
		if (b->nr_inst)
			qsort(b->inst, b->nr_inst, sizeof(*b->inst), diff__cmp_instance);
		d->features[i].instances = b->inst;
		d->features[i].nr_instances = b->nr_inst;
		b->inst = NULL;
		for (j = 0; j < b->nr_fn; j++)
			diff__fill(d, &b->fn[j]);
		if (b->nr_fn)
			qsort(b->fn, b->nr_fn, sizeof(*b->fn), diff__cmp_instance);
		d->features[i].functions = b->fn;
		d->features[i].nr_functions = b->nr_fn;
		b->fn = NULL;
	}
	if (d->nr_features)
		qsort(d->features, d->nr_features, sizeof(*d->features), diff__cmp_feature);
	for (i = 0; i < d->nr_functions; i++)
		diff__fill(d, &d->functions[i]);
	if (d->nr_functions)
		qsort(d->functions, d->nr_functions, sizeof(*d->functions), diff__cmp_instance);
}

/* The side's period and totals from its profile and attribution. */
static void diff__side(struct diff_side *s, const struct profile_meta *meta, const struct attrib *a)
{
	s->meta = meta;
	s->period_ns = profile_meta__period_ns(meta);
	s->total_samples = attrib__total_samples(a);
	s->uncharged_samples = attrib__uncharged_samples(a);
	s->total_ms = report_ms(s->total_samples, s->period_ns);
}

static void diff__compute_totals(struct diff *d)
{
	struct diff_totals *t = &d->totals;
	double bns = (double)d->base.total_samples * (double)d->base.period_ns;
	double nns = (double)d->new_side.total_samples * (double)d->new_side.period_ns;

	t->scale = d->scale;
	t->base_ms = bns / 1e6;
	t->new_ms = nns / 1e6;
	t->delta_ms = (nns - bns) / 1e6;
	t->predicted_ms = d->scale * bns / 1e6;
	t->deviation_ms = (nns - d->scale * bns) / 1e6;
	t->growth = bns > 0 ? nns / bns : NAN;
}

struct diff *diff__compute(const struct profile *base, const struct profile *new_p,
			   const struct diff_opts *opts)
{
	struct attrib *ab = NULL, *an = NULL;
	struct diff_ctx ctx = {};
	struct diff *d = NULL;
	double scale = opts ? opts->scale : 0;
	size_t i;
	int err;

	if (!base || !new_p || !isfinite(scale) || scale < 0) {
		err = -EINVAL;
		goto cleanup;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		err = -ENOMEM;
		goto cleanup;
	}
	ctx.d = d;
	ctx.features = (struct rowtab)ROWTAB_SIDE(&ctx.feature_map, d->features, d->nr_features,
						  d->cap_features, ctx.build, ctx.cap_build);
	d->scale = scale == 0 ? 1 : scale;
	d->strs = strtab__new();
	ab = attrib__compute(base, NULL);
	an = attrib__compute(new_p, NULL);
	if (!d->strs || !ab || !an) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = diff__copy_meta(d, &d->base_meta, profile__meta(base));
	if (err)
		goto cleanup;
	err = diff__copy_meta(d, &d->new_meta, profile__meta(new_p));
	if (err)
		goto cleanup;
	diff__side(&d->base, &d->base_meta, ab);
	diff__side(&d->new_side, &d->new_meta, an);
	diff__compute_totals(d);

	err = diff__add_side(&ctx, ab, 0);
	if (err)
		goto cleanup;
	err = diff__add_side(&ctx, an, 1);
	if (!err)
		err = diff__add_functions(&ctx, base, 0);
	if (!err)
		err = diff__add_functions(&ctx, new_p, 1);
	if (err)
		goto cleanup;
	diff__finish(&ctx);

cleanup:
	if (ctx.build) {
		/* instances not handed to d->features (all of them on error) */
		for (i = 0; d && i < d->nr_features; i++) {
			free(ctx.build[i].inst);
			free(ctx.build[i].fn);
		}
		free(ctx.build);
	}
	hashmap__fini(&ctx.feature_map);
	hashmap__fini(&ctx.instance_map);
	hashmap__fini(&ctx.function_map);
	hashmap__fini(&ctx.all_fn_map);
	attrib__free(ab);
	attrib__free(an);
	if (err) {
		diff__free(d);
		errno = -err;
		return NULL;
	}
	return d;
}

void diff__free(struct diff *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->nr_features; i++) {
		free((void *)d->features[i].instances);
		free((void *)d->features[i].functions);
	}
	free(d->features);
	free(d->functions);
	strtab__free(d->strs);
	free(d);
}

int diff__scaled(const struct diff *d)
{
	return d && d->scale != 1;
}

const struct diff_side *diff__base(const struct diff *d)
{
	return d ? &d->base : NULL;
}

const struct diff_side *diff__new(const struct diff *d)
{
	return d ? &d->new_side : NULL;
}

const struct diff_totals *diff__totals(const struct diff *d)
{
	return d ? &d->totals : NULL;
}

size_t diff__nr_features(const struct diff *d)
{
	return d ? d->nr_features : 0;
}

size_t diff__nr_functions(const struct diff *d)
{
	return d ? d->nr_functions : 0;
}

const struct diff_row *diff__function(const struct diff *d, size_t i)
{
	return d && i < d->nr_functions ? &d->functions[i] : NULL;
}

const struct diff_feature *diff__feature(const struct diff *d, size_t i)
{
	if (!d || i >= d->nr_features)
		return NULL;
	return &d->features[i];
}
