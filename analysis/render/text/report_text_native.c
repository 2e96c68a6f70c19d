// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The text report's native stacks (report_text.h; record --stacks): per
 * feature and instance, in the report's order and under its --feature and
 * --min-pct, the hottest functions with their self and total samples; with
 * --function NAME, that function's callers and callees in each feature, as
 * gprof's and Racket's call graphs show them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "output.h"
#include "report_native.h"
#include "report_text.h"
#include "util.h"

/* The caller of a stack's outermost frame / the callee of its leaf, in
 * --function's entries. */
#define TN_ROOT UINT32_MAX
#define TN_TRUNCATED (UINT32_MAX - 1)
#define TN_SELF (UINT32_MAX - 2)

struct tn_ctx {
	struct text_ctx *c;
	struct native_view v;
	struct charges ch;
	struct native_agg g;
	size_t top; /* functions per list */
};

/* A function's label, and its module when a symbol named it (user code). */
static void tn_func(struct tn_ctx *t, uint32_t f)
{
	const struct native_func *fn;

	switch (f) {
	case TN_ROOT:
		fputs("[stack root]", t->c->out);
		return;
	case TN_TRUNCATED:
		fputs("[truncated stack]", t->c->out);
		return;
	case TN_SELF:
		fputs("[self]", t->c->out);
		return;
	}
	fn = &t->v.funcs[f];
	escape__fputs(fn->label, t->c->out);
	if (fn->symbolized && !fn->kernel && fn->module != PROFILE_NO_MODULE) {
		fputs(" (", t->c->out);
		escape__fputs(native_view__module_name(&t->v, fn->module), t->c->out);
		fputc(')', t->c->out);
	}
}

static int tn_cmp_name(const void *x, const void *y, void *arg)
{
	const struct native_stat *a = x, *b = y;
	const struct native_view *v = arg;

	return strcmp(v->funcs[a->func].label, v->funcs[b->func].label);
}

/* A group's hottest functions: self share of `samples` (the feature's or
 * instance's samples) at least --min-pct, at most t->top of them. */
static int tn_list(struct tn_ctx *t, const struct native_group *gr, uint64_t samples,
		   const char *indent)
{
	size_t i, nr, shown = 0, more = 0;
	struct native_stat *rows = native_agg__stats(&t->g, gr, t->top, &nr);
	uint64_t rest = 0;

	if (t->c->order == REPORT_ORDER_NAME) {
		/* the hottest by name: choose them, then sort them */
		for (i = 0; i < nr && i < t->top; i++)
			if (!rows[i].self || report_pct(rows[i].self, samples) < t->c->min_pct)
				break;
		qsort_r(rows, i, sizeof(*rows), tn_cmp_name, &t->v);
	}
	for (i = 0; i < nr; i++) {
		const struct native_stat *s = &rows[i];

		if (shown == t->top || shown < i || report_pct(s->self, samples) < t->c->min_pct) {
			more++;
			rest += s->self;
			continue;
		}
		if (!shown)
			fprintf(t->c->out, "%s    self            total\n", indent);
		fprintf(t->c->out, "%s%8" PRIu64 " %6.2f%% %8" PRIu64 " %6.2f%%  ", indent, s->self,
			report_pct(s->self, samples), s->total, report_pct(s->total, samples));
		tn_func(t, s->func);
		fputc('\n', t->c->out);
		shown++;
	}
	if (more)
		fprintf(t->c->out, "%s  ... %zu more %s (self %" PRIu64 " %s, %.2f%%)\n", indent,
			more, plural(more, "function", "functions"), rest,
			plural(rest, "sample", "samples"), report_pct(rest, samples));
	return 0;
}

/* "NAME: N samples, M with a native stack (P%)" */
static void tn_group_head(struct tn_ctx *t, const char *indent, const char *what, const char *name,
			  uint64_t samples, uint64_t native)
{
	fprintf(t->c->out, "%s%s", indent, what);
	escape__fputs(name, t->c->out);
	fprintf(t->c->out, ": %" PRIu64 " %s, %" PRIu64 " with a native stack (%.2f%%)\n", samples,
		plural(samples, "sample", "samples"), native, report_pct(native, samples));
}

/* A feature's hottest functions, then its instances' (when it has several). */
static int tn_feature(struct tn_ctx *t, const struct attrib_feature *f)
{
	const struct native_group *gr = native_agg__group(&t->g, f->name, NULL);
	struct text_item *items;
	size_t i, n;
	int err = 0;

	fputc('\n', t->c->out);
	tn_group_head(t, "", "", f->name, f->samples, gr ? gr->native : 0);
	if (!gr)
		return 0;
	tn_list(t, gr, f->samples, "");
	if (f->nr_instances < 2)
		return 0;
	items = text_sorted(t->c, NULL, f, &n);
	if (!items)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		const struct attrib_instance *in = items[i].ptr;

		if (!text_keep(t->c, f->samples, in->samples, 0, 0))
			continue;
		gr = native_agg__group(&t->g, f->name, in->name);
		tn_group_head(t, "  ", "instance ", in->name, in->samples, gr ? gr->native : 0);
		if (gr)
			err = tn_list(t, gr, in->samples, "  ");
	}
	free(items);
	return err;
}

/* The header of the section: how many samples have a native stack. */
static void tn_head(struct tn_ctx *t)
{
	const struct native_agg *g = &t->g;
	uint64_t all = t->c->total;

	fprintf(t->c->out,
		"\nNative stacks: %" PRIu64 " of %" PRIu64 " %s (%.2f%%) have one (%" PRIu64
		" unwound by DWARF, %" PRIu64 " by frame pointers; %" PRIu64 " truncated)\n",
		g->with_stack, all, plural(all, "sample", "samples"),
		report_pct(g->with_stack, all), g->dwarf, g->fp, g->truncated);
	/* none in a profile the reader checked (report_native.h): said, not hidden */
	if (t->v.unjoined)
		fprintf(t->c->out,
			"%" PRIu64 " native %s beyond the samples of their thread and mark stack: "
			"not shown\n",
			t->v.unjoined, plural(t->v.unjoined, "sample", "samples"));
	fputs("self: samples whose innermost frame is in the function; total: samples with the "
	      "function\nanywhere in their stack (once per sample); shares are of the feature's "
	      "or instance's samples.\n",
	      t->c->out);
}

/* The features of the report (--feature's), in its order, not under --min-pct. */
static int tn_features(struct tn_ctx *t, int (*fn)(struct tn_ctx *, const struct attrib_feature *))
{
	struct text_item *items;
	size_t i, n;
	int err = 0;

	items = text_sorted(t->c, t->c->a, NULL, &n);
	if (!items)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		const struct attrib_feature *f = items[i].ptr;

		if (!report_features__has(t->c->feat, f->name))
			continue;
		if (!t->c->feature && !text_keep(t->c, t->c->total, f->samples, 0, 0))
			continue;
		err = fn(t, f);
	}
	free(items);
	return err;
}

/* ---- --function NAME: callers and callees, per feature ---------------------- */

/* A caller (dir 0) or callee (dir 1) of the function and its samples. */
struct tn_edge {
	int dir;
	uint32_t func;
	uint64_t count;
	size_t last; /* the last pair (index + 1) that counted it: once per stack */
};

struct tn_graph {
	const bool *target; /* per function: named --function NAME */
	uint64_t total, self;
	struct tn_edge *edges;
	size_t nr_edges, cap_edges;
	struct hashmap map; /* (dir, func) -> edge */
};

/* Counts the edge (dir, func) of pair `pair` once. */
static int tn_edge(struct tn_graph *gr, int dir, uint32_t func, size_t pair, uint64_t count)
{
	uint64_t idx;
	int r;

	r = hashmap__find_or_insert(&gr->map, (uint64_t)dir, func, gr->nr_edges, &idx);
	if (r < 0)
		return r;
	if (!r) {
		if (fsp_grow((void **)&gr->edges, &gr->cap_edges, gr->nr_edges + 1,
			     sizeof(*gr->edges)))
			return -ENOMEM;
		gr->edges[gr->nr_edges++] = (struct tn_edge){dir, func, 0, 0};
	}
	if (gr->edges[idx].last == pair + 1)
		return 0;
	gr->edges[idx].last = pair + 1;
	gr->edges[idx].count = fsp_sat_add(gr->edges[idx].count, count);
	return 0;
}

/* The callers and callees of the target in pair i's stack. */
static int tn_graph_pair(struct tn_ctx *t, struct tn_graph *gr, size_t i)
{
	const struct native_pair *pr = &t->g.pairs[i];
	struct profile_native_stack st;
	const uint32_t *fs;
	uint32_t caller;
	bool found = false;
	size_t k, n;
	int err = 0;

	fs = native_view__stack(&t->v, pr->stack, &n);
	for (k = 0; k < n && !err; k++) {
		if (!gr->target[fs[k]])
			continue;
		if (!found) {
			found = true;
			gr->total = fsp_sat_add(gr->total, pr->count);
		}
		caller = TN_ROOT;
		if (k + 1 < n)
			caller = fs[k + 1];
		else if (!profile__native_stack(t->v.p, pr->stack, &st) &&
			 (st.flags & PROFILE_NATIVE_TRUNCATED))
			caller = TN_TRUNCATED;
		err = tn_edge(gr, 0, caller, i, pr->count);
		if (!err)
			err = tn_edge(gr, 1, k ? fs[k - 1] : TN_SELF, i, pr->count);
		if (!k)
			gr->self = fsp_sat_add(gr->self, pr->count);
	}
	return err;
}

static const char *tn_edge_label(const struct native_view *v, const struct tn_edge *e)
{
	switch (e->func) {
	case TN_ROOT:
		return "[stack root]";
	case TN_TRUNCATED:
		return "[truncated stack]";
	case TN_SELF:
		return "[self]";
	}
	return v->funcs[e->func].label;
}

/* Callers first, then callees; each by descending samples, then label. */
static int tn_cmp_edge(const void *x, const void *y, void *arg)
{
	const struct tn_edge *a = x, *b = y;
	int c = a->dir - b->dir;

	if (!c)
		c = fsp_cmp_u64(b->count, a->count);
	if (!c)
		c = strcmp(tn_edge_label(arg, a), tn_edge_label(arg, b));
	return c ? c : fsp_cmp_u64(a->func, b->func);
}

static void tn_graph_print(struct tn_ctx *t, const struct tn_graph *gr)
{
	size_t i;
	int dir = -1;

	for (i = 0; i < gr->nr_edges; i++) {
		const struct tn_edge *e = &gr->edges[i];

		if (e->dir != dir) {
			dir = e->dir;
			fprintf(t->c->out, "  %s\n",
				dir ? "callees:"
				    : "callers (samples with the call in their stack, share of the "
				      "function's total):");
		}
		fprintf(t->c->out, "%10" PRIu64 " %6.2f%%  ", e->count,
			report_pct(e->count, gr->total));
		tn_func(t, e->func);
		fputc('\n', t->c->out);
	}
}

/* The entry of the target in feature f; *found when it is in its stacks. */
static int tn_graph_feature(struct tn_ctx *t, const struct attrib_feature *f, const bool *target,
			    const char *name, bool *found)
{
	const struct native_group *g = native_agg__group(&t->g, f->name, NULL);
	struct tn_graph gr = {.target = target, .map = HASHMAP_INIT};
	size_t i;
	int err = 0;

	for (i = 0; g && i < g->nr && !err; i++)
		err = tn_graph_pair(t, &gr, g->first + i);
	if (err)
		goto cleanup;
	fputc('\n', t->c->out);
	escape__fputs(f->name, t->c->out);
	fputs(": ", t->c->out);
	escape__fputs(name, t->c->out);
	if (!gr.total) {
		fputs(" is in none of its native stacks\n", t->c->out);
		goto cleanup;
	}
	*found = true;
	fprintf(t->c->out,
		": total %" PRIu64 " %s (%.2f%% of the feature's %" PRIu64 "), self %" PRIu64
		" (%.2f%%)\n",
		gr.total, plural(gr.total, "sample", "samples"), report_pct(gr.total, f->samples),
		f->samples, gr.self, report_pct(gr.self, f->samples));
	if (gr.nr_edges)
		qsort_r(gr.edges, gr.nr_edges, sizeof(*gr.edges), tn_cmp_edge, &t->v);
	tn_graph_print(t, &gr);
cleanup:
	free(gr.edges);
	hashmap__fini(&gr.map);
	return err;
}

/* --function NAME: the functions named NAME (by name, or by label:
 * "libc.so.6+0x1a2b", "schedule_[k]"), their entry in each feature. */
static int tn_graph(struct tn_ctx *t, const char *name)
{
	bool *target = calloc(t->v.nr_funcs + 1, sizeof(*target)), any = false, found = false;
	struct text_item *items;
	size_t i, n;
	int err = 0;

	if (!target)
		return -ENOMEM;
	for (i = 0; i < t->v.nr_funcs; i++) {
		target[i] = !strcmp(t->v.funcs[i].name, name) || !strcmp(t->v.funcs[i].label, name);
		any |= target[i];
	}
	items = any ? text_sorted(t->c, t->c->a, NULL, &n) : NULL;
	if (any && !items)
		err = -ENOMEM;
	for (i = 0; any && i < n && !err; i++) {
		const struct attrib_feature *f = items[i].ptr;

		if (report_features__has(t->c->feat, f->name) &&
		    native_agg__group(&t->g, f->name, NULL))
			err = tn_graph_feature(t, f, target, name, &found);
	}
	if (!err && !found) {
		fputs("\nno function ", t->c->out);
		escape__fputs(name, t->c->out);
		fputs(any ? " in the native stacks of the features shown\n"
			  : " in the native stacks of this profile\n",
		      t->c->out);
		err = -ESRCH;
	}
	free(items);
	free(target);
	return err;
}

int text_native(struct text_ctx *c)
{
	struct tn_ctx t = {.c = c};
	int err;

	if (c->feature && !c->nr_selected)
		return 0;
	if (!native_view__any(c->p)) {
		if (!c->opts || !c->opts->function)
			return 0;
		fputs("\n--function ", c->out);
		escape__fputs(c->opts->function, c->out);
		fputs(": this profile has no native stacks (record them with --stacks)\n", c->out);
		return -ESRCH;
	}
	t.top = c->opts && c->opts->top_functions ? c->opts->top_functions
						  : REPORT_DEFAULT_TOP_FUNCTIONS;
	err = native_view__init(&t.v, c->p);
	if (!err)
		err = charges__init(&t.ch, c->p);
	if (!err)
		err = native_agg__init(&t.g, &t.v, &t.ch, c->feat);
	if (err)
		goto cleanup;
	tn_head(&t);
	if (c->opts && c->opts->function)
		err = tn_graph(&t, c->opts->function);
	else
		err = tn_features(&t, tn_feature);
cleanup:
	native_agg__fini(&t.g);
	charges__fini(&t.ch);
	native_view__fini(&t.v);
	return err;
}
