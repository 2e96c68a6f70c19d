// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The native stacks of a pprof profile (report_pprof.h): each module a
 * Mapping (file name, build-id; its load address is not kept, so memory
 * start and limit are 0 and addresses are the module's own, as
 * `addr2line -e MODULE` takes them), each location of the profile a
 * Location at that address with one Line per function (inlined ones first,
 * the function they were inlined into last), each function a Function
 * (name, file). A native sample is one pprof sample per charge of its core
 * sample, located [leaf ... outermost native frame, instance, feature]: the
 * feature and instance stay the roots, so pprof's -top, -peek, -list,
 * -traces and flame graph see the functions inside the features.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_pprof.h"
#include "util.h"

void pprof_native__fini(struct pprof_ctx *c)
{
	native_view__fini(&c->native);
	free(c->native_locs);
	free(c->native_funcs);
	free(c->maps);
	free(c->module_maps);
	hashmap__fini(&c->native_samples);
	free(c->slot_locs);
	c->slot_locs = NULL;
	c->native_locs = c->native_funcs = c->module_maps = NULL;
	c->maps = NULL;
	c->nr_maps = c->cap_maps = 0;
}

int pprof_native__init(struct pprof_ctx *c)
{
	size_t nr_modules = profile__nr_modules(c->p);
	int err;

	c->has_native = native_view__any(c->p);
	if (!c->has_native)
		return 0;
	err = native_view__init(&c->native, c->p);
	if (err)
		return err;
	c->native_locs = calloc(c->native.nr_locs + 1, sizeof(*c->native_locs));
	c->native_funcs = calloc(c->native.nr_funcs + 1, sizeof(*c->native_funcs));
	c->module_maps = calloc(nr_modules + 1, sizeof(*c->module_maps));
	if (!c->native_locs || !c->native_funcs || !c->module_maps)
		return -ENOMEM;
	return 0;
}

/* The mapping id of module m, created when new. */
static int64_t pprof_mapping(struct pprof_ctx *c, uint32_t m, const struct profile_location *loc)
{
	Perftools__Profiles__Mapping *map;
	struct profile_module mod;
	int64_t file, bid = 0;
	int err;

	if (c->module_maps[m]) {
		map = &c->maps[c->module_maps[m] - PPROF_OWN_MAPPING - 1];
		goto flags;
	}
	err = profile__module(c->p, m, &mod);
	if (err)
		return err;
	file = pprof_str(c, mod.path);
	if (file >= 0 && mod.build_id)
		bid = pprof_str(c, mod.build_id);
	if (file < 0 || bid < 0)
		return file < 0 ? file : bid;
	err = fsp_grow((void **)&c->maps, &c->cap_maps, c->nr_maps + 1, sizeof(*c->maps));
	if (err)
		return err;
	map = &c->maps[c->nr_maps++];
	perftools__profiles__mapping__init(map);
	map->id = PPROF_OWN_MAPPING + c->nr_maps;
	map->filename = file;
	map->build_id = bid;
	/* every location has functions (a fallback name at worst): pprof
	 * must not look for the binary to symbolize it again */
	map->has_functions = 1;
	c->module_maps[m] = map->id;
flags:
	if (loc->flags & PROFILE_LOC_DEBUGINFO) {
		map->has_filenames = 1;
		map->has_line_numbers = 1;
	}
	if (loc->nr_lines > 1)
		map->has_inline_frames = 1;
	return (int64_t)map->id;
}

/* The Function id of native_view function f, created when new. */
static int64_t pprof_native_func(struct pprof_ctx *c, uint32_t f)
{
	const struct native_func *fn = &c->native.funcs[f];
	int64_t id;

	if (c->native_funcs[f])
		return (int64_t)c->native_funcs[f];
	id = pprof_function(c, fn->name, fn->name, fn->file);
	if (id > 0)
		c->native_funcs[f] = (uint64_t)id;
	return id;
}

/* The Location id of profile location i, created (with its mapping and
 * functions) when new. */
static int64_t pprof_native_loc(struct pprof_ctx *c, uint32_t i)
{
	struct pprof_line lines[64], *ln = lines;
	struct profile_location loc;
	const uint32_t *fs;
	int64_t map = 0, fid, id;
	size_t k, n;
	int err;

	if (c->native_locs[i])
		return (int64_t)c->native_locs[i];
	err = profile__location(c->p, i, &loc);
	if (err)
		return err;
	if (loc.module != PROFILE_NO_MODULE && !(loc.flags & PROFILE_LOC_JIT)) {
		map = pprof_mapping(c, loc.module, &loc);
		if (map < 0)
			return map;
	}
	fs = native_view__loc(&c->native, i, &n);
	if (n > sizeof(lines) / sizeof(lines[0])) {
		ln = calloc(n, sizeof(*ln));
		if (!ln)
			return -ENOMEM;
	}
	for (k = 0, id = 0; k < n && id >= 0; k++) {
		fid = pprof_native_func(c, fs[k]);
		ln[k].func = fid > 0 ? (uint64_t)fid : 0;
		ln[k].line = k < loc.nr_lines ? loc.lines[k].line : 0;
		id = fid < 0 ? fid : 0;
	}
	if (id >= 0)
		id = pprof_location(c, (uint64_t)map, loc.address, ln, n);
	if (ln != lines)
		free(ln);
	if (id > 0)
		c->native_locs[i] = (uint64_t)id;
	return id;
}

/* The location ids of native stack `stack` into *locs (leaf first), with
 * room for 2 more after them. */
static int pprof_native_stack(struct pprof_ctx *c, size_t stack, uint64_t **locs, size_t *cap,
			      size_t *n)
{
	struct profile_native_stack st;
	int64_t id;
	size_t k;
	int err;

	err = profile__native_stack(c->p, stack, &st);
	if (!err)
		err = fsp_grow((void **)locs, cap, st.depth + 2, sizeof(**locs));
	if (err)
		return err;
	for (k = 0; k < st.depth; k++) {
		id = pprof_native_loc(c, st.locs[k]);
		if (id < 0)
			return (int)id;
		(*locs)[k] = (uint64_t)id;
	}
	*n = st.depth;
	return 0;
}

/* A pprof sample of native sample ns at locs (n native frames, then
 * `roots` of fsp-bpf's own): added to the sample of the same thread,
 * native stack and roots when there is one (native samples that differ by
 * mark stack but are charged alike are one pprof sample). */
static int pprof_native_add(struct pprof_ctx *c, const uint64_t *locs, size_t n, size_t roots,
			    const struct profile_native_sample *ns, size_t labels)
{
	uint64_t a = (uint64_t)labels << 32 | ns->stack, b = locs[n] << 32 | locs[n + 1], idx;
	struct pprof_sample *s;
	int r;

	r = hashmap__find_or_insert(&c->native_samples, a, b, c->nr_samples, &idx);
	if (r < 0)
		return r;
	if (!r)
		return pprof_add(c, locs, n + roots, ns->count, 0, labels);
	s = &c->samples[idx];
	s->value[0] = clamp_i64(fsp_sat_add((uint64_t)s->value[0], ns->count));
	s->value[1] = clamp_i64(report_cost_ns((uint64_t)s->value[0], c->period));
	return 0;
}

/* pprof_charge_locs of charge ch, cached per charge of the profile's mark
 * stacks: looked up once, not once per native sample. */
static int pprof_slot_locs(struct pprof_ctx *c, const struct charges *charges,
			   const struct charge *ch, uint64_t *locs)
{
	size_t k = (size_t)(ch - charges->charges);
	int err;

	if (!c->slot_locs[2 * k]) {
		err = pprof_charge_locs(c, ch, c->slot_locs + 2 * k);
		if (err)
			return err;
	}
	locs[0] = c->slot_locs[2 * k];
	locs[1] = c->slot_locs[2 * k + 1];
	return 0;
}

/* The pprof samples of one native sample: one per charge (--feature's) of
 * its core sample, at "(no feature)" when it has none. */
static int pprof_native_sample(struct pprof_ctx *c, const struct charges *charges,
			       const struct profile_native_sample *ns, uint64_t **locs, size_t *cap)
{
	const struct charge *ch;
	size_t j, n = 0, nch;
	int64_t labels, id;
	int err;

	ch = charges__of(charges, ns->mark_stack, &nch);
	for (j = 0; j < nch && !report_features__has(c->feat, ch[j].feature); j++)
		;
	if (c->feature && j == nch)
		return 0; /* none of its charges is shown: no locations made */
	labels = pprof_thread(c, ns->source, ns->pid, ns->tid, "", "");
	if (labels < 0)
		return (int)labels;
	err = pprof_native_stack(c, ns->stack, locs, cap, &n);
	if (err)
		return err;
	if (!nch) {
		id = pprof_no_feature(c);
		if (id < 0)
			return (int)id;
		(*locs)[n] = (uint64_t)id;
		(*locs)[n + 1] = 0;
		return pprof_native_add(c, *locs, n, 1, ns, (size_t)labels);
	}
	for (j = 0; j < nch && !err; j++) {
		if (!report_features__has(c->feat, ch[j].feature))
			continue;
		err = pprof_slot_locs(c, charges, ch + j, *locs + n);
		if (!err)
			err = pprof_native_add(c, *locs, n, 2, ns, (size_t)labels);
	}
	return err;
}

/* Makes room for the samples and location ids the native samples may add
 * at most (one per charge, or one uncharged): grown once, not by doubling
 * hundreds of megabytes. */
static int pprof_native_reserve(struct pprof_ctx *c, const struct charges *charges)
{
	struct profile_native_stack st;
	size_t i, n, samples = 0, ids = 0;
	int err = 0;

	for (i = 0; i < c->native.nr_joins && !err; i++) {
		err = profile__native_stack(c->p, c->native.joins[i].stack, &st);
		if (err)
			break;
		charges__of(charges, c->native.joins[i].mark_stack, &n);
		n = n ? n : 1;
		samples += n;
		ids += n * (st.depth + 2);
	}
	if (!err)
		err = fsp_grow((void **)&c->samples, &c->cap_samples, c->nr_samples + samples,
			       sizeof(*c->samples));
	if (!err)
		err = fsp_grow((void **)&c->locpool, &c->cap_locpool, c->nr_locpool + ids,
			       sizeof(*c->locpool));
	return err;
}

int pprof_native__samples(struct pprof_ctx *c, const struct charges *charges)
{
	uint64_t *locs = NULL;
	size_t i, cap = 0;
	int err = 0;

	c->slot_locs = calloc(2 * charges->first[charges->nr_stacks] + 2, sizeof(*c->slot_locs));
	if (!c->slot_locs)
		return -ENOMEM;
	err = pprof_native_reserve(c, charges);
	/* the native samples joined to core samples (report_native.h) */
	for (i = 0; i < c->native.nr_joins && !err; i++)
		err = pprof_native_sample(c, charges, &c->native.joins[i], &locs, &cap);
	free(locs);
	return err;
}
