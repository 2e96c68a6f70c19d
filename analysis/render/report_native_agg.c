// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The functions of each feature and instance in the native stacks
 * (report_native.h): native samples are charged by their core sample's
 * charges (report_charges: the attribution rule, once per mark stack),
 * summed per (group, native stack), then per (group, function). Hash maps
 * all the way: linear in the distinct (charge, stack) pairs and their depth.
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
	hashmap__fini(&g->pair_map);
	free(g->stats);
	hashmap__fini(&g->stat_map);
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

/* Adds count samples of native stack `stack` to group gi. */
static int agg_pair(struct native_agg *g, int64_t gi, size_t stack, uint64_t count)
{
	struct rowtab t = ROWTAB(&g->pair_map, g->pairs, g->nr_pairs, g->cap_pairs);
	size_t i;
	int r;

	if (gi < 0)
		return (int)gi;
	r = rowtab__find_or_add(&t, (uint64_t)gi, stack, &i);
	if (r < 0)
		return r;
	g->pairs[i].group = (size_t)gi;
	g->pairs[i].stack = stack;
	g->pairs[i].count = report_sat_add(g->pairs[i].count, count);
	g->groups[gi].native = report_sat_add(g->groups[gi].native, count);
	return 0;
}

/* How the stacks of the selection were taken: method and truncation. */
static int agg_methods(struct native_agg *g, size_t stack, uint64_t count)
{
	struct profile_native_stack st;
	int err = profile__native_stack(g->v->p, stack, &st);

	if (err)
		return err;
	g->with_stack = report_sat_add(g->with_stack, count);
	if (st.flags & PROFILE_NATIVE_TRUNCATED)
		g->truncated = report_sat_add(g->truncated, count);
	if (st.method == PROFILE_UNWIND_DWARF)
		g->dwarf = report_sat_add(g->dwarf, count);
	else if (st.method == PROFILE_UNWIND_FP)
		g->fp = report_sat_add(g->fp, count);
	return 0;
}

/* Every native sample, into the pairs of the groups its charges select. */
static int agg_samples(struct native_agg *g, const struct report_charges *ch,
		       const struct report_features *feat)
{
	const struct report_charge *c;
	struct profile_native_sample ns;
	size_t i, j, n;
	int err = 0;

	for (i = 0; i < profile__nr_native_samples(g->v->p) && !err; i++) {
		err = profile__native_sample(g->v->p, i, &ns);
		if (!err)
			err = agg_methods(g, ns.stack, ns.count);
		c = report_charges__of(ch, ns.mark_stack, &n);
		for (j = 0; j < n && !err; j++) {
			if (!report_features__has(feat, c[j].feature))
				continue;
			err = agg_pair(g, agg_group(g, c[j].feature, NULL), ns.stack, ns.count);
			if (!err)
				err = agg_pair(g, agg_group(g, c[j].feature, c[j].instance),
					       ns.stack, ns.count);
		}
	}
	return err;
}

/* The self and total of each function of each group: every pair's stack
 * once, each function of it counted once (stamp: the last pair that did). */
static int agg_stats(struct native_agg *g)
{
	struct rowtab t = ROWTAB(&g->stat_map, g->stats, g->nr_stats, g->cap_stats);
	uint64_t *stamp = calloc(g->v->nr_funcs + 1, sizeof(*stamp));
	const struct native_pair *pr;
	const uint32_t *fs;
	size_t i, k, n, s;
	int r = 0;

	if (!stamp)
		return -ENOMEM;
	for (i = 0; i < g->nr_pairs && r >= 0; i++) {
		pr = &g->pairs[i];
		fs = native_view__stack(g->v, pr->stack, &n);
		for (k = 0; k < n && r >= 0; k++) {
			if (stamp[fs[k]] == i + 1)
				continue;
			stamp[fs[k]] = i + 1;
			r = rowtab__find_or_add(&t, pr->group, fs[k], &s);
			if (r < 0)
				break;
			g->stats[s].group = pr->group;
			g->stats[s].func = fs[k];
			g->stats[s].total = report_sat_add(g->stats[s].total, pr->count);
			if (!k)
				g->stats[s].self = report_sat_add(g->stats[s].self, pr->count);
		}
	}
	free(stamp);
	return r < 0 ? r : 0;
}

static int agg_cmp(const void *x, const void *y, void *arg)
{
	const struct native_stat *a = x, *b = y;
	const struct native_view *v = arg;
	int c = fsp_cmp_u64(a->group, b->group);

	if (!c)
		c = fsp_cmp_u64(b->self, a->self);
	if (!c)
		c = fsp_cmp_u64(b->total, a->total);
	if (!c)
		c = strcmp(v->funcs[a->func].label, v->funcs[b->func].label);
	return c ? c : fsp_cmp_u64(a->func, b->func);
}

/* Sorts the rows by group and hotness; each group's range. */
static void agg_sort(struct native_agg *g)
{
	size_t i;

	if (g->nr_stats)
		qsort_r(g->stats, g->nr_stats, sizeof(*g->stats), agg_cmp, (void *)g->v);
	for (i = g->nr_stats; i-- > 0;) {
		g->groups[g->stats[i].group].first = i;
		g->groups[g->stats[i].group].nr++;
	}
}

int native_agg__init(struct native_agg *g, const struct native_view *v,
		     const struct report_charges *ch, const struct report_features *feat)
{
	int err;

	memset(g, 0, sizeof(*g));
	g->v = v;
	g->tab = strtab__new();
	if (!g->tab)
		return -ENOMEM;
	err = agg_samples(g, ch, feat);
	if (!err)
		err = agg_stats(g);
	if (err) {
		native_agg__fini(g);
		return err;
	}
	agg_sort(g);
	return 0;
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
