// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The backtrack plug-in (docs/plugins.md): the time a parser spends in
 * branches of an ordered choice that it later abandons, like the Parsack
 * plug-in of the FSP paper (section 5.2).
 *
 * Convention (usdt/README.md): the parser marks each attempt of a branch of
 * an ordered choice; the instance label names the choice (its site, e.g.
 * the rule), the payload packs the branch index (bits 48-63) and the input
 * offset the choice started at (bits 0-47).
 *
 * A *visit* is one choice tried at one input offset: the same choice site
 * and offset, under the same enclosing attempts (the frames of the feature
 * below it, payloads included), in the same thread. Branches are tried in
 * order, so a sample in branch b of a visit in which a later branch was
 * also sampled shows that b was abandoned: as in the paper, the time of
 * every sample in branch b of such a visit is charged as abandoned to
 * (site, b). Two passes over the core samples: the highest branch sampled
 * per visit, then the charges. A sample counts once per (site, branch),
 * however deep a recursive grammar nests the same branch (abandoned when
 * any of its frames is); it is charged only when the attribution rule
 * charges it to the feature (the top-most frame of the feature is a mark),
 * but every sample is evidence of the branches it shows.
 *
 * What sampling cannot see: a visit whose later branch ran too briefly to
 * be sampled is not known to have moved on, so its abandoned time is not
 * counted (an undercount, never an overcount).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "plugin_builtin.h"
#include "rowtab.h"
#include "util.h"

#define BT_BRANCH_SHIFT 48
#define BT_OFFSET_MASK ((1ULL << BT_BRANCH_SHIFT) - 1)
#define BT_LABEL_LEN 256

/* One branch of one choice site. */
struct bt_row {
	const char *site; /* the profile's label; NULL: marks without an instance */
	uint64_t branch;
	struct pl_cost in_branch; /* samples in the branch (inclusive) */
	struct pl_cost abandoned; /* of which in visits that moved on to a later branch */
	uint64_t stamp, ab_stamp; /* the last sample counted (index + 1) */
};

struct bt_state {
	struct fsp_plugin_info info;
	double min_pct;
	const char *feature;
	struct pl_cost charged; /* samples charged to the feature */
	struct pl_cost abandoned; /* of which in any abandoned branch */
	struct hashmap visit_map; /* (visit hash, site) -> index into visit_max */
	uint64_t *visit_max; /* the highest branch sampled in each visit */
	size_t nr_visits, cap_visits;
	struct bt_row *rows;
	size_t nr_rows, cap_rows;
	struct hashmap row_map; /* (site, branch) */
	size_t *order; /* rows by abandoned, then in-branch cost */
};

static void bt_release(void *state)
{
	struct bt_state *st = state;

	if (!st)
		return;
	hashmap__fini(&st->visit_map);
	hashmap__fini(&st->row_map);
	free(st->visit_max);
	free(st->rows);
	free(st->order);
	free(st);
}

static uint64_t branch_of(const struct fsp_plugin_frame *f)
{
	return f->payload >> BT_BRANCH_SHIFT;
}

/* The visit of a frame: its thread, the frames of the feature below it, its
 * offset; with its site, the key of visit_map. */
static uint64_t visit_hash(const struct fsp_plugin_sample *s, uint64_t below,
			   const struct fsp_plugin_frame *f)
{
	uint64_t h = fsp_hash_pair((uint64_t)s->source << 32 | s->pid, s->tid);

	return fsp_hash_pair(fsp_hash_pair(h, below), f->payload & BT_OFFSET_MASK);
}

/* The hash of the frames below the next frame, after frame f. */
static uint64_t below_next(uint64_t below, const struct fsp_plugin_frame *f)
{
	return fsp_hash_pair(fsp_hash_pair(below, (uintptr_t)f->instance), f->payload);
}

static bool is_attempt(const struct bt_state *st, const struct fsp_plugin_frame *f)
{
	return f->feature == st->feature && f->kind == FSP_PLUGIN_MARK;
}

/* Pass 1: the highest branch sampled in each visit of sample s. */
static int note_visits(struct bt_state *st, const struct fsp_plugin_sample *s)
{
	uint64_t below = 0, idx;
	int r;

	for (size_t k = 0; k < s->depth; k++) {
		const struct fsp_plugin_frame *f = &s->frames[k];

		if (!is_attempt(st, f))
			continue;
		r = hashmap__find_or_insert(&st->visit_map, visit_hash(s, below, f),
					    (uintptr_t)f->instance, st->nr_visits, &idx);
		if (r < 0)
			return r;
		if (!r) {
			if (fsp_grow((void **)&st->visit_max, &st->cap_visits, st->nr_visits + 1,
				     sizeof(*st->visit_max)))
				return -ENOMEM;
			st->visit_max[st->nr_visits++] = 0;
		}
		if (branch_of(f) > st->visit_max[idx])
			st->visit_max[idx] = branch_of(f);
		below = below_next(below, f);
	}
	return 0;
}

static int row_of(struct bt_state *st, const struct fsp_plugin_frame *f, size_t *out)
{
	struct rowtab t = ROWTAB(&st->row_map, st->rows, st->nr_rows, st->cap_rows);
	int r = rowtab__find_or_add(&t, (uintptr_t)f->instance, branch_of(f), out);

	if (r < 0)
		return r;
	if (!r) {
		st->rows[*out].site = f->instance;
		st->rows[*out].branch = branch_of(f);
	}
	return 0;
}

/* Pass 2: charges sample s (its index + 1: stamp) to the branches it is in. */
static int charge_sample(struct bt_state *st, const struct fsp_plugin_sample *s, uint64_t stamp)
{
	uint64_t below = 0, idx, max;
	bool any = false;
	size_t r;
	int err = 0;

	for (size_t k = 0; k < s->depth && !err; k++) {
		const struct fsp_plugin_frame *f = &s->frames[k];
		struct bt_row *row;

		if (!is_attempt(st, f))
			continue;
		max = hashmap__find(&st->visit_map, visit_hash(s, below, f), (uintptr_t)f->instance,
				    &idx)
			      ? st->visit_max[idx]
			      : 0;
		below = below_next(below, f);
		err = row_of(st, f, &r);
		if (err)
			break;
		row = &st->rows[r];
		if (row->stamp != stamp) {
			row->stamp = stamp;
			pl_cost_add(&row->in_branch, s->count, s->offcpu_ns);
		}
		if (branch_of(f) < max && row->ab_stamp != stamp) {
			row->ab_stamp = stamp;
			pl_cost_add(&row->abandoned, s->count, s->offcpu_ns);
		}
		any |= branch_of(f) < max;
	}
	pl_cost_add(&st->charged, s->count, s->offcpu_ns);
	if (any)
		pl_cost_add(&st->abandoned, s->count, s->offcpu_ns);
	return err;
}

/* Most abandoned first (qsort_r's context: the state). */
static int cmp_row(const void *x, const void *y, void *ctx)
{
	const struct bt_state *st = ctx;
	const struct bt_row *a = &st->rows[*(const size_t *)x];
	const struct bt_row *b = &st->rows[*(const size_t *)y];
	int c = pl_cost_cmp(&a->abandoned, &b->abandoned, st->info.period_ns);

	if (!c)
		c = pl_cost_cmp(&a->in_branch, &b->in_branch, st->info.period_ns);
	if (!c)
		c = strcmp(a->site ? a->site : "", b->site ? b->site : "");
	return c ? c : fsp_cmp_u64(a->branch, b->branch);
}

static int bt_analyze(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
		      const struct fsp_plugin_args *args, void **state)
{
	struct bt_state *st = calloc(1, sizeof(*st));
	struct fsp_plugin_sample s;
	size_t n = h->nr_samples(p);
	int err = st ? 0 : -ENOMEM;

	if (!err) {
		st->visit_map = st->row_map = (struct hashmap)HASHMAP_INIT;
		h->info(p, &st->info);
		st->min_pct = args->min_pct;
		st->feature = args->feature;
	}
	for (size_t i = 0; !err && i < n; i++)
		if (!h->sample(p, i, &s))
			err = note_visits(st, &s);
	for (size_t i = 0; !err && i < n; i++)
		if (!h->sample(p, i, &s) && pl_charge(h, p, s.stack, st->feature))
			err = charge_sample(st, &s, i + 1);
	if (!err && !(st->order = calloc(st->nr_rows + 1, sizeof(*st->order))))
		err = -ENOMEM;
	if (err) {
		bt_release(st);
		return err;
	}
	for (size_t i = 0; i < st->nr_rows; i++)
		st->order[i] = i;
	pl_sort(st->order, st->nr_rows, sizeof(*st->order), cmp_row, st);
	*state = st;
	return 0;
}

/* ---- text ---- */

static int bt_text(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p, void *state,
		   FILE *out)
{
	const struct bt_state *st = state;
	char site[BT_LABEL_LEN];
	size_t folded = 0;

	(void)p;
	fprintf(out,
		"  Abandoned branches take %.2f%% of running time (%.1f ms, %llu samples) of the "
		"%.2f%% in choices\n",
		report_pct(st->abandoned.samples, st->info.total_samples),
		report_ms(st->abandoned.samples, st->info.period_ns),
		(unsigned long long)st->abandoned.samples,
		report_pct(st->charged.samples, st->info.total_samples));
	if (st->abandoned.samples)
		fprintf(out, "  (a branch often abandoned at the same input offset is tried too "
			     "early: reorder the choice, or factor out what its branches share)\n");
	fprintf(out, "  %10s %7s %10s %7s %7s   %s\n", "abandoned", "%", "in branch", "%", "branch",
		"choice");
	for (size_t i = 0; i < st->nr_rows; i++) {
		const struct bt_row *r = &st->rows[st->order[i]];

		if (pl_below(r->in_branch.samples, st->info.total_samples, st->min_pct)) {
			folded++;
			continue;
		}
		h->text_escape(site, sizeof(site), r->site ? r->site : "(no instance)");
		pl_text_cost(out, "  ", r->abandoned.samples, &st->info);
		pl_text_cost(out, " ", r->in_branch.samples, &st->info);
		fprintf(out, " %7llu   %s\n", (unsigned long long)r->branch, site);
	}
	if (folded)
		fprintf(out, "  %44s   (%zu more branch%s below %g%%)\n", "", folded,
			folded == 1 ? "" : "es", st->min_pct);
	return 0;
}

/* ---- JSON ---- */

static int bt_json(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p, void *state,
		   struct fsp_plugin_json *j)
{
	const struct bt_state *st = state;

	(void)p;
	h->json_object_begin(j);
	pl_json_cost(h, j, "", &st->charged, &st->info);
	pl_json_cost(h, j, "abandoned_", &st->abandoned, &st->info);
	h->json_key(j, "branches");
	h->json_array_begin(j);
	for (size_t i = 0; i < st->nr_rows; i++) {
		const struct bt_row *r = &st->rows[st->order[i]];

		h->json_object_begin(j);
		h->json_key(j, "choice");
		h->json_string(j, r->site);
		h->json_key(j, "branch");
		h->json_u64(j, r->branch);
		pl_json_cost(h, j, "", &r->in_branch, &st->info);
		pl_json_cost(h, j, "abandoned_", &r->abandoned, &st->info);
		h->json_object_end(j);
	}
	h->json_array_end(j);
	h->json_object_end(j);
	return 0;
}

const struct fsp_plugin plugin_backtrack = {
	.abi_version = FSP_PLUGIN_ABI_VERSION,
	.size = sizeof(struct fsp_plugin),
	.name = "backtrack",
	.summary = "time in branches of ordered choices later abandoned at the same input "
		   "offset (payload: branch << 48 | offset)",
	.feature = "choice",
	.analyze = bt_analyze,
	.render_text = bt_text,
	.render_json = bt_json,
	.render_dot = NULL,
	.release = bt_release,
};
