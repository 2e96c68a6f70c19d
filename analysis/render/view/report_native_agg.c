// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The functions of each feature and instance in the native stacks
 * (report_native.h): native samples are charged by their core sample's
 * charges (charges.h: the attribution rule, once per mark stack),
 * summed per (group, native stack); a group's functions when asked for, in
 * dense per-function counters: linear in the distinct (charge, stack)
 * pairs and, for the groups shown, their stacks' depth.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_native.h"
#include "rowtab.h"
#include "util.h"

void native_agg__fini(struct native_agg *g)
{
	if (!g)
		return;
	strtab__free(g->tab);
	free(g->groups);
	hashmap__fini(&g->group_map);
	hashmap__fini(&g->raw_map);
	free(g->pairs);
	free(g->slot_groups);
	free(g->stats);
	free(g->self);
	free(g->total);
	free(g->touched);
	memset(g, 0, sizeof(*g));
}

/* The group of (feature, instance) as a charge names them (instance NULL:
 * the feature), created when new. -errno or the index. */
static int64_t agg_group(struct native_agg *g, const char *feature, const char *instance)
{
	struct rowtab t = ROWTAB(&g->group_map, g->groups, g->nr_groups, g->cap_groups);
	const char *canon = NULL;
	uint64_t idx;
	size_t i;
	int r;

	if (hashmap__find(&g->raw_map, (uintptr_t)feature, (uintptr_t)instance, &idx))
		return (int64_t)idx;
	if (instance) {
		canon = strtab__intern(g->tab, instance);
		if (!canon)
			return -ENOMEM;
	}
	r = rowtab__find_or_add(&t, (uintptr_t)feature, (uintptr_t)canon, &i);
	if (r < 0)
		return r;
	if (!r) {
		g->groups[i].feature = feature;
		g->groups[i].instance = canon;
	}
	r = hashmap__find_or_insert(&g->raw_map, (uintptr_t)feature, (uintptr_t)instance, i, NULL);
	return r < 0 ? r : (int64_t)i;
}

/* Adds count samples of native stack `stack` to group gi. Pairs are not
 * summed: each native sample's own (its stack counts once per pair). */
static int agg_pair(struct native_agg *g, int64_t gi, size_t stack, uint64_t count)
{
	int err;

	if (gi < 0)
		return (int)gi;
	err = fsp_grow((void **)&g->pairs, &g->cap_pairs, g->nr_pairs + 1, sizeof(*g->pairs));
	if (err)
		return err;
	g->pairs[g->nr_pairs++] = (struct native_pair){(uint32_t)gi, (uint32_t)stack, count};
	g->groups[gi].native = fsp_sat_add(g->groups[gi].native, count);
	return 0;
}

/* The groups of charge slot k (the feature's, the instance's), cached:
 * a mark stack's charges are looked up once, not once per sample. */
static int agg_slot(struct native_agg *g, size_t k, const struct charge *c, int64_t *gf,
		    int64_t *gi)
{
	if (!g->slot_groups[2 * k]) {
		*gf = agg_group(g, c->feature, NULL);
		*gi = *gf < 0 ? *gf : agg_group(g, c->feature, c->instance);
		if (*gi < 0)
			return (int)*gi;
		g->slot_groups[2 * k] = (uint32_t)*gf + 1;
		g->slot_groups[2 * k + 1] = (uint32_t)*gi + 1;
	}
	*gf = g->slot_groups[2 * k] - 1;
	*gi = g->slot_groups[2 * k + 1] - 1;
	return 0;
}

/* How the stacks of the selection were taken: method and truncation. */
static int agg_methods(struct native_agg *g, size_t stack, uint64_t count)
{
	struct profile_native_stack st;
	int err = profile__native_stack(g->v->p, stack, &st);

	if (err)
		return err;
	g->with_stack = fsp_sat_add(g->with_stack, count);
	if (st.flags & PROFILE_NATIVE_TRUNCATED)
		g->truncated = fsp_sat_add(g->truncated, count);
	if (st.method == PROFILE_UNWIND_DWARF)
		g->dwarf = fsp_sat_add(g->dwarf, count);
	else if (st.method == PROFILE_UNWIND_FP)
		g->fp = fsp_sat_add(g->fp, count);
	return 0;
}

/* Every native sample joined to a core sample (report_native.h), into the
 * pairs of the groups its core sample's charges select. Joins have counts
 * (the counters of native_agg__stats need them). */
static int agg_samples(struct native_agg *g, const struct charges *ch,
		       const struct report_features *feat)
{
	const struct profile_native_sample *ns;
	const struct charge *c;
	size_t i, j, n;
	int64_t gf, gi;
	int err = 0;

	g->slot_groups = calloc(2 * ch->first[ch->nr_stacks] + 1, sizeof(*g->slot_groups));
	if (!g->slot_groups)
		return -ENOMEM;
	for (i = 0; i < g->v->nr_joins && !err; i++) {
		ns = &g->v->joins[i];
		err = agg_methods(g, ns->stack, ns->count);
		c = charges__of(ch, ns->mark_stack, &n);
		for (j = 0; j < n && !err; j++) {
			if (!report_features__has(feat, c[j].feature))
				continue;
			err = agg_slot(g, (size_t)(c + j - ch->charges), c + j, &gf, &gi);
			if (!err)
				err = agg_pair(g, gf, ns->stack, ns->count);
			if (!err)
				err = agg_pair(g, gi, ns->stack, ns->count);
		}
	}
	return err;
}

/* The pairs of each group, next to each other (a counting sort), so that
 * a group's functions are counted over consecutive memory. */
static int agg_by_group(struct native_agg *g)
{
	struct native_pair *sorted = calloc(g->nr_pairs + 1, sizeof(*sorted));
	size_t i, *at = calloc(g->nr_groups + 1, sizeof(*at));

	if (!at || !sorted) {
		free(at);
		free(sorted);
		return -ENOMEM;
	}
	for (i = 0; i < g->nr_pairs; i++)
		g->groups[g->pairs[i].group].nr++;
	for (i = 1; i < g->nr_groups; i++)
		g->groups[i].first = g->groups[i - 1].first + g->groups[i - 1].nr;
	for (i = 0; i < g->nr_groups; i++)
		at[i] = g->groups[i].first;
	for (i = 0; i < g->nr_pairs; i++)
		sorted[at[g->pairs[i].group]++] = g->pairs[i];
	free(at);
	free(g->pairs);
	g->pairs = sorted;
	g->cap_pairs = g->nr_pairs + 1;
	return 0;
}

static int agg_cmp(const void *x, const void *y, void *arg)
{
	const struct native_stat *a = x, *b = y;
	const struct native_view *v = arg;
	int c = fsp_cmp_u64(b->self, a->self);

	if (!c)
		c = fsp_cmp_u64(b->total, a->total);
	if (!c)
		c = strcmp(v->funcs[a->func].label, v->funcs[b->func].label);
	return c ? c : fsp_cmp_u64(a->func, b->func);
}

/* Sifts row i of the min-heap rows[0..n) (the least hot on top) down. */
static void agg_sift(struct native_stat *rows, size_t n, size_t i, const struct native_view *v)
{
	struct native_stat tmp;
	size_t c;

	for (; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && agg_cmp(&rows[c + 1], &rows[c], (void *)v) > 0)
			c++;
		if (agg_cmp(&rows[c], &rows[i], (void *)v) <= 0)
			return;
		tmp = rows[i];
		rows[i] = rows[c];
		rows[c] = tmp;
	}
}

/* Moves the `top` hottest of rows[0..n) to its front, sorted (a bounded
 * heap: n log top, not n log n); the others follow in no order. */
static void agg_select(struct native_stat *rows, size_t n, size_t top, const struct native_view *v)
{
	struct native_stat tmp;
	size_t i;

	if (top > n)
		top = n;
	if (!top)
		return;
	for (i = top / 2 + 1; i-- > 0;)
		agg_sift(rows, top, i, v);
	for (i = top; i < n; i++) {
		if (agg_cmp(&rows[i], &rows[0], (void *)v) >= 0)
			continue;
		tmp = rows[0];
		rows[0] = rows[i];
		rows[i] = tmp;
		agg_sift(rows, top, 0, v);
	}
	qsort_r(rows, top, sizeof(*rows), agg_cmp, (void *)v);
}

/* Each pair's stack once, each function of it counted once (its distinct
 * functions), into dense per-function counters. */
struct native_stat *native_agg__stats(struct native_agg *g, const struct native_group *gr,
				      size_t top, size_t *n)
{
	const struct native_pair *pr;
	const uint32_t *fs, *leaf;
	size_t i, k, depth, nt = 0;
	uint32_t f;

	*n = 0;
	for (i = gr->first; i < gr->first + gr->nr; i++) {
		pr = &g->pairs[i];
		leaf = native_view__stack(g->v, pr->stack, &depth);
		if (!depth)
			continue;
		fs = native_view__distinct(g->v, pr->stack, &depth);
		for (k = 0; k < depth; k++) {
			f = fs[k];
			if (!g->total[f])
				g->touched[nt++] = f;
			g->total[f] = fsp_sat_add(g->total[f], pr->count);
		}
		g->self[*leaf] = fsp_sat_add(g->self[*leaf], pr->count);
	}
	for (i = 0; i < nt; i++) {
		f = g->touched[i];
		if (g->self[f])
			g->stats[(*n)++] = (struct native_stat){(size_t)(gr - g->groups), f,
								g->self[f], g->total[f]};
		g->self[f] = g->total[f] = 0;
	}
	agg_select(g->stats, *n, top, g->v);
	return g->stats;
}

int native_agg__init(struct native_agg *g, const struct native_view *v, const struct charges *ch,
		     const struct report_features *feat)
{
	size_t nf = v->nr_funcs + 1;
	int err;

	memset(g, 0, sizeof(*g));
	g->v = v;
	g->tab = strtab__new();
	g->stats = calloc(nf, sizeof(*g->stats));
	g->self = calloc(nf, sizeof(*g->self));
	g->total = calloc(nf, sizeof(*g->total));
	g->touched = calloc(nf, sizeof(*g->touched));
	err = g->tab && g->stats && g->self && g->total && g->touched ? 0 : -ENOMEM;
	if (!err)
		err = agg_samples(g, ch, feat);
	if (!err)
		err = agg_by_group(g);
	if (err)
		native_agg__fini(g);
	return err;
}

const struct native_group *native_agg__group(struct native_agg *g, const char *feature,
					     const char *instance)
{
	const char *canon = NULL;
	uint64_t idx;

	if (instance) {
		canon = strtab__intern(g->tab, instance);
		if (!canon)
			return NULL;
	}
	if (!hashmap__find(&g->group_map, (uintptr_t)feature, (uintptr_t)canon, &idx))
		return NULL;
	return &g->groups[idx];
}
