// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The functions of a profile's native stacks (report_native.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_native.h"
#include "stack_family.h"
#include "util.h"

void native_view__fini(struct native_view *v)
{
	if (!v)
		return;
	strtab__free(v->tab);
	free(v->funcs);
	hashmap__fini(&v->func_map);
	free(v->loc_first);
	free(v->loc_funcs);
	free(v->stack_first);
	free(v->stack_funcs);
	free(v->distinct_first);
	free(v->distinct_funcs);
	free(v->rest);
	free(v->joins);
	memset(v, 0, sizeof(*v));
}

const char *native_view__module_name(const struct native_view *v, uint32_t m)
{
	struct profile_module mod;
	const char *slash;

	if (m == PROFILE_NO_MODULE || profile__module(v->p, m, &mod) || !mod.path)
		return NATIVE_UNKNOWN;
	slash = strrchr(mod.path, '/');
	return slash && slash[1] ? slash + 1 : mod.path;
}

/* The index of function (label, module), added when new. -errno or >= 0. */
static int64_t native_func(struct native_view *v, const char *name, const char *label,
			   const struct native_func *proto)
{
	const char *l = strtab__intern(v->tab, label), *n = strtab__intern(v->tab, name);
	uint64_t idx;
	int r;

	if (!l || !n)
		return -ENOMEM;
	r = hashmap__find_or_insert(&v->func_map, (uintptr_t)l, proto->module, v->nr_funcs, &idx);
	if (r < 0)
		return r;
	if (!r) {
		if (fsp_grow((void **)&v->funcs, &v->cap_funcs, v->nr_funcs + 1, sizeof(*v->funcs)))
			return -ENOMEM;
		v->funcs[v->nr_funcs] = *proto;
		v->funcs[v->nr_funcs].name = n;
		v->funcs[v->nr_funcs].label = l;
		v->funcs[v->nr_funcs].file =
			proto->file ? strtab__intern(v->tab, proto->file) : NULL;
		v->nr_funcs++;
	}
	return (int64_t)idx;
}

/* The function of line k of location loc (k == nr_lines: the location has
 * no line, its fallback). */
static int64_t native_line_func(struct native_view *v, const struct profile_location *loc, size_t k,
				bool kernel)
{
	struct native_func proto = {.module = loc->module, .kernel = kernel};
	char buf[512], label[560];
	const char *name;

	if (k < loc->nr_lines && loc->lines[k].function) {
		name = loc->lines[k].function;
		proto.file = loc->lines[k].file;
		proto.symbolized = true;
	} else if (loc->flags & PROFILE_LOC_JIT) {
		name = NATIVE_JIT;
		proto.module = PROFILE_NO_MODULE;
	} else if (loc->module == PROFILE_NO_MODULE) {
		name = NATIVE_UNKNOWN;
	} else {
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64,
			 native_view__module_name(v, loc->module), loc->address);
		name = buf;
	}
	if (!kernel)
		return native_func(v, name, name, &proto);
	snprintf(label, sizeof(label), "%s%s", name, NATIVE_KERNEL_SUFFIX);
	return native_func(v, name, label, &proto);
}

/* The functions of every location, innermost first. */
static int native_locs(struct native_view *v)
{
	size_t i, k, n, nr = 0, cap = 0;
	struct profile_location loc;
	struct profile_module mod;
	bool kernel;
	int64_t f;
	int err;

	v->nr_locs = profile__nr_locations(v->p);
	v->loc_first = calloc(v->nr_locs + 1, sizeof(*v->loc_first));
	if (!v->loc_first)
		return -ENOMEM;
	for (i = 0; i < v->nr_locs; i++) {
		err = profile__location(v->p, i, &loc);
		if (err)
			return err;
		kernel = loc.module != PROFILE_NO_MODULE &&
			 !profile__module(v->p, loc.module, &mod) &&
			 mod.kind == PROFILE_MODULE_KERNEL;
		v->loc_first[i] = nr;
		n = loc.nr_lines ? loc.nr_lines : 1;
		if (fsp_grow((void **)&v->loc_funcs, &cap, nr + n, sizeof(*v->loc_funcs)))
			return -ENOMEM;
		for (k = 0; k < n; k++) {
			f = native_line_func(v, &loc, loc.nr_lines ? k : loc.nr_lines, kernel);
			if (f < 0)
				return (int)f;
			v->loc_funcs[nr++] = (uint32_t)f;
		}
	}
	v->loc_first[v->nr_locs] = nr;
	return 0;
}

/* Every native stack's functions, each once (stamp: the last stack, + 1,
 * that listed a function). */
static int native_distinct(struct native_view *v)
{
	size_t i, k, n, nr = 0, *stamp = calloc(v->nr_funcs + 1, sizeof(*stamp));
	const uint32_t *fs;

	v->distinct_first = calloc(v->nr_stacks + 1, sizeof(*v->distinct_first));
	v->distinct_funcs = calloc(v->stack_first[v->nr_stacks] + 1, sizeof(*v->distinct_funcs));
	if (!stamp || !v->distinct_first || !v->distinct_funcs) {
		free(stamp);
		return -ENOMEM;
	}
	for (i = 0; i < v->nr_stacks; i++) {
		v->distinct_first[i] = nr;
		fs = native_view__stack(v, i, &n);
		for (k = 0; k < n; k++) {
			if (stamp[fs[k]] == i + 1)
				continue;
			stamp[fs[k]] = i + 1;
			v->distinct_funcs[nr++] = fs[k];
		}
	}
	v->distinct_first[v->nr_stacks] = nr;
	free(stamp);
	return 0;
}

/* Every native stack as its functions, leaf first. */
static int native_stacks(struct native_view *v)
{
	struct profile_native_stack st;
	size_t i, j, n, nr = 0, cap = 0;
	const uint32_t *fs;
	int err;

	v->nr_stacks = profile__nr_native_stacks(v->p);
	v->stack_first = calloc(v->nr_stacks + 1, sizeof(*v->stack_first));
	if (!v->stack_first)
		return -ENOMEM;
	for (i = 0; i < v->nr_stacks; i++) {
		err = profile__native_stack(v->p, i, &st);
		if (err)
			return err;
		v->stack_first[i] = nr;
		for (j = 0; j < st.depth; j++) {
			if (st.locs[j] >= v->nr_locs)
				return -EINVAL; /* the model checks it: never */
			fs = native_view__loc(v, st.locs[j], &n);
			if (fsp_grow((void **)&v->stack_funcs, &cap, nr + n,
				     sizeof(*v->stack_funcs)))
				return -ENOMEM;
			memcpy(v->stack_funcs + nr, fs, n * sizeof(*fs));
			nr += n;
		}
	}
	v->stack_first[v->nr_stacks] = nr;
	return native_distinct(v);
}

/* The core samples of each family group (family_groups), in sample order:
 * order[first[g] .. first[g + 1]) are group g's sample indexes. */
struct join_groups {
	struct family_groups *fg;
	size_t *of; /* per core sample: its group */
	size_t *first, *order, *cursor; /* cursor: group's first sample with rest */
	size_t nr;
};

static void join_groups_fini(struct join_groups *j)
{
	family_groups__free(j->fg);
	free(j->of);
	free(j->first);
	free(j->order);
	free(j->cursor);
}

/* rest = each core sample's count; the groups of the core samples. */
static int join_groups_init(struct native_view *v, struct join_groups *j)
{
	struct profile_sample s;
	size_t i;
	int err = 0;

	j->fg = family_groups__new(v->p);
	j->of = calloc(v->nr_samples + 1, sizeof(*j->of));
	j->order = calloc(v->nr_samples + 1, sizeof(*j->order));
	if (!j->fg || !j->of || !j->order)
		return -ENOMEM;
	for (i = 0; i < v->nr_samples && !err; i++) {
		err = profile__sample(v->p, i, &s);
		if (!err)
			err = family_groups__of(j->fg, s.source, s.pid, s.tid, s.stack, s.key, true,
						&j->of[i]);
		v->rest[i] = s.count;
	}
	if (err)
		return err;
	j->nr = family_groups__nr(j->fg);
	j->first = calloc(j->nr + 1, sizeof(*j->first));
	j->cursor = calloc(j->nr + 1, sizeof(*j->cursor));
	if (!j->first || !j->cursor)
		return -ENOMEM;
	/* a counting sort of the samples by group, stable */
	for (i = 0; i < v->nr_samples; i++)
		j->first[j->of[i] + 1]++;
	for (i = 0; i < j->nr; i++)
		j->first[i + 1] += j->first[i];
	memcpy(j->cursor, j->first, j->nr * sizeof(*j->cursor));
	for (i = 0; i < v->nr_samples; i++)
		j->order[j->cursor[j->of[i]]++] = i;
	memcpy(j->cursor, j->first, j->nr * sizeof(*j->cursor));
	return 0;
}

/* Joins ns to the core samples of group g that have samples left. */
static int join_one(struct native_view *v, struct join_groups *j, size_t g,
		    const struct profile_native_sample *ns, size_t *cap)
{
	uint64_t count = ns->count, take;
	struct profile_sample s;
	size_t idx;
	int err;

	while (count && j->cursor[g] < j->first[g + 1]) {
		idx = j->order[j->cursor[g]];
		take = v->rest[idx] < count ? v->rest[idx] : count;
		if (take) {
			err = profile__sample(v->p, idx, &s);
			if (!err)
				err = fsp_grow((void **)&v->joins, cap, v->nr_joins + 1,
					       sizeof(*v->joins));
			if (err)
				return err;
			v->joins[v->nr_joins++] = (struct profile_native_sample){
				.source = s.source,
				.pid = s.pid,
				.tid = s.tid,
				.key = s.key,
				.mark_stack = s.stack,
				.stack = ns->stack,
				.count = take,
			};
			v->rest[idx] -= take;
			count -= take;
		}
		if (!v->rest[idx])
			j->cursor[g]++;
	}
	v->unjoined = fsp_sat_add(v->unjoined, count);
	return 0;
}

/* The joins of the native samples and each core sample's rest. */
static int native_join(struct native_view *v)
{
	struct join_groups j = {};
	struct profile_native_sample ns;
	size_t i, g, cap = 0;
	int err;

	v->nr_samples = profile__nr_samples(v->p);
	v->rest = calloc(v->nr_samples + 1, sizeof(*v->rest));
	err = v->rest ? join_groups_init(v, &j) : -ENOMEM;
	for (i = 0; i < profile__nr_native_samples(v->p) && !err; i++) {
		err = profile__native_sample(v->p, i, &ns);
		if (err || !ns.count)
			continue;
		err = family_groups__of(j.fg, ns.source, ns.pid, ns.tid, ns.mark_stack, ns.key,
					false, &g);
		if (err == -ENOENT) {
			v->unjoined = fsp_sat_add(v->unjoined, ns.count);
			err = 0;
			continue;
		}
		if (!err)
			err = join_one(v, &j, g, &ns, &cap);
	}
	join_groups_fini(&j);
	return err;
}

int native_view__init(struct native_view *v, const struct profile *p)
{
	int err;

	memset(v, 0, sizeof(*v));
	v->p = p;
	v->tab = strtab__new();
	if (!v->tab)
		return -ENOMEM;
	err = native_locs(v);
	if (!err)
		err = native_stacks(v);
	if (!err)
		err = native_join(v);
	if (err)
		native_view__fini(v);
	return err;
}

const uint32_t *native_view__stack(const struct native_view *v, size_t stack, size_t *n)
{
	*n = 0;
	if (stack >= v->nr_stacks)
		return NULL;
	*n = v->stack_first[stack + 1] - v->stack_first[stack];
	return *n ? v->stack_funcs + v->stack_first[stack] : NULL;
}

const uint32_t *native_view__distinct(const struct native_view *v, size_t stack, size_t *n)
{
	*n = 0;
	if (stack >= v->nr_stacks)
		return NULL;
	*n = v->distinct_first[stack + 1] - v->distinct_first[stack];
	return *n ? v->distinct_funcs + v->distinct_first[stack] : NULL;
}

const uint32_t *native_view__loc(const struct native_view *v, size_t loc, size_t *n)
{
	*n = 0;
	if (loc >= v->nr_locs)
		return NULL;
	*n = v->loc_first[loc + 1] - v->loc_first[loc];
	return *n ? v->loc_funcs + v->loc_first[loc] : NULL;
}
