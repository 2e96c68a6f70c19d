// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The calls of the HTML page's call selection (report_html_int.h; layout:
 * docs/output-formats.md, "HTML"): the calls of the slow-call view
 * (record --calls, analysis/model/calls.h) of the page's features, each with
 * its thread, feature, instance, duration (exact with --events, else the
 * estimate: call_rec__duration_ns, as report --calls selects by) and its
 * samples, off-CPU time and native stacks by mark stack; and the charges of
 * each mark stack they use (the one attribution rule, charges__of), so that
 * the page sums the selected calls' rows as it sums the profile's charges
 * and shows what report --calls shows for the same selection.
 *
 * Bounded: at most REPORT_HTML_MAX_CALLS calls, an equal share of it for
 * each feature (a feature with fewer calls leaves the rest of its share to
 * the others), of each feature its slowest (ties: the earlier), written in
 * the profile's order; the "calls" member says how many the profile had.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "report_html_int.h"
#include "util.h"

#define ROW_SEP(w) json_out__row_lit(w, ",")

struct html_calls {
	const char *state; /* "ok", "none" (no --calls), "filtered" (--comm/--pid) */
	size_t total; /* calls of the page's features */
	size_t *keep; /* calls__get indexes written, in order */
	size_t nr_keep;
	uint64_t *dur; /* per kept call: its duration */
	size_t *thread; /* per kept call: its thread index */
	size_t *feat, *inst; /* per kept call: string indexes */
	size_t *stack_out; /* per profile stack: its index in call_stacks + 1, 0: unused */
	size_t *stack_order; /* call_stacks: profile stack ids, in order */
	size_t nr_stack_out;
	size_t **native; /* per kept call: its natives' indexes in native_stacks */
	uint64_t exact; /* kept calls with an exact duration */
	struct hashmap feat_map; /* feature string index -> index in feats */
	struct call_feat {
		size_t feature; /* string index */
		uint64_t total, kept;
	} * feats;
	size_t nr_feats, cap_feats;
};

void html_calls__fini(struct hd *d)
{
	struct html_calls *c = d ? d->calls : NULL;

	if (!c)
		return;
	for (size_t i = 0; c->native && i < c->nr_keep; i++)
		free(c->native[i]);
	free(c->native);
	free(c->keep);
	free(c->dur);
	free(c->thread);
	free(c->feat);
	free(c->inst);
	free(c->stack_out);
	free(c->stack_order);
	hashmap__fini(&c->feat_map);
	free(c->feats);
	free(c);
	d->calls = NULL;
}

struct by_dur {
	const char *feature; /* the calls table's interned name: one pointer a feature */
	uint64_t dur;
	size_t i;
};

/* By feature, then slowest first; ties: the earlier call first. */
static int cmp_slowest(const void *a, const void *b)
{
	const struct by_dur *x = a, *y = b;

	if (x->feature != y->feature)
		return (uintptr_t)x->feature < (uintptr_t)y->feature ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur < y->dur ? 1 : -1;
	return (x->i > y->i) - (x->i < y->i);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/*
 * How many calls of each feature (groups of sizes n[0, nr), all > 0) the
 * page keeps out of `bound`: an equal share each, a feature with fewer calls
 * keeping all of them and leaving the rest of its share to the others.
 */
static void share_out(const size_t *n, size_t nr, size_t bound, size_t *take)
{
	size_t left = nr, budget = bound;
	bool more = true;

	for (size_t g = 0; g < nr; g++)
		take[g] = SIZE_MAX;
	while (more && left) {
		size_t share = budget / left;

		more = false;
		for (size_t g = 0; g < nr; g++) {
			if (take[g] == SIZE_MAX && n[g] <= share) {
				take[g] = n[g];
				budget -= n[g];
				left--;
				more = true;
			}
		}
	}
	for (size_t g = 0, extra = left ? budget % left : 0; g < nr; g++) {
		if (take[g] != SIZE_MAX)
			continue;
		take[g] = budget / left + (extra ? 1 : 0);
		extra -= extra ? 1 : 0;
	}
}

/* Of the sorted calls all[0, n), the slowest of each feature as share_out
 * says, into c->keep. */
static int keep_shares(struct html_calls *c, const struct by_dur *all, size_t n)
{
	size_t *sizes = calloc(n + 1, sizeof(*sizes)), *take = calloc(n + 1, sizeof(*take));
	size_t nr = 0, g = 0;

	if (!sizes || !take) {
		free(sizes);
		free(take);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		if (k && all[k].feature != all[k - 1].feature)
			nr++;
		sizes[nr]++;
	}
	share_out(sizes, nr + 1, REPORT_HTML_MAX_CALLS, take);
	for (size_t k = 0, at = 0; k < n; k++, at++) {
		if (k && all[k].feature != all[k - 1].feature) {
			g++;
			at = 0;
		}
		if (at < take[g])
			c->keep[c->nr_keep++] = all[k].i;
	}
	free(sizes);
	free(take);
	return 0;
}

/* The calls of the page's features that the page keeps: all, or the
 * slowest of each feature within REPORT_HTML_MAX_CALLS (share_out), in the
 * profile's order. */
static int pick(struct html_calls *c, const struct hd *d, const struct calls *t, uint64_t period)
{
	struct by_dur *all = malloc((calls__nr(t) + 1) * sizeof(*all));
	size_t n = 0;
	int err = 0;

	c->keep = malloc((calls__nr(t) + 1) * sizeof(*c->keep));
	if (!all || !c->keep) {
		free(all);
		return -ENOMEM;
	}
	for (size_t i = 0; i < calls__nr(t); i++) {
		const struct call_rec *r = calls__get(t, i);

		if (report_features__has(&d->scope->feat, r->feature))
			all[n++] = (struct by_dur){r->feature, call_rec__duration_ns(r, period), i};
	}
	c->total = n;
	if (n > REPORT_HTML_MAX_CALLS) {
		qsort(all, n, sizeof(*all), cmp_slowest);
		err = keep_shares(c, all, n);
		qsort(c->keep, c->nr_keep, sizeof(*c->keep), cmp_size);
	} else {
		for (size_t k = 0; k < n; k++)
			c->keep[k] = all[k].i;
		c->nr_keep = n;
	}
	free(all);
	return err;
}

/* Stack id `stack` in call_stacks, added when new (its charges' names
 * interned). */
static int use_stack(struct hd *d, struct html_calls *c, size_t stack, size_t *out)
{
	const struct charge *ch;
	size_t n, idx;

	if (stack >= profile__nr_stacks(d->p))
		return -EINVAL;
	if (!c->stack_out[stack]) {
		ch = charges__of(&d->rc, stack, &n);
		for (size_t k = 0; k < n; k++) {
			if (hd_str(d, ch[k].feature, &idx) || hd_str(d, ch[k].instance, &idx))
				return -ENOMEM;
		}
		c->stack_order[c->nr_stack_out++] = stack;
		c->stack_out[stack] = c->nr_stack_out;
	}
	*out = c->stack_out[stack] - 1;
	return 0;
}

/* Kept call k's thread, names, stacks and native stacks. */
static int prepare_call(struct hd *d, struct html_calls *c, size_t k, const struct call_rec *r)
{
	uint64_t thread;
	size_t idx;
	int err;

	if (!hashmap__find(&d->thread_map, r->pid, r->tid, &thread))
		return -EINVAL; /* a call's thread is the profile's */
	c->thread[k] = thread;
	c->exact += r->exact_ns != 0;
	if (hd_str(d, r->feature, &c->feat[k]) || hd_str(d, r->instance, &c->inst[k]))
		return -ENOMEM;
	for (size_t s = 0; s < r->nr_stacks; s++) {
		err = use_stack(d, c, r->stacks[s].stack, &idx);
		if (err)
			return err;
	}
	if (!r->nr_natives || !d->has_native)
		return 0;
	c->native[k] = malloc(r->nr_natives * sizeof(*c->native[k]));
	if (!c->native[k])
		return -ENOMEM;
	for (size_t s = 0; s < r->nr_natives; s++) {
		if (r->natives[s].native >= d->nv.nr_stacks)
			return -EINVAL;
		err = use_stack(d, c, r->natives[s].stack, &idx);
		if (err)
			return err;
		c->native[k][s] = hd_native(d, r->natives[s].native) - 1;
	}
	return 0;
}

/* Feature f's counts (f a string index), added when new; NULL: -ENOMEM. */
static struct call_feat *feat_of(struct html_calls *c, size_t f)
{
	uint64_t idx;
	int r = hashmap__find_or_insert(&c->feat_map, f, 0, c->nr_feats, &idx);

	if (r < 0)
		return NULL;
	if (!r) {
		if (fsp_grow((void **)&c->feats, &c->cap_feats, c->nr_feats + 1, sizeof(*c->feats)))
			return NULL;
		c->feats[c->nr_feats++] = (struct call_feat){.feature = f};
	}
	return &c->feats[idx];
}

/* Each feature's calls in the profile and in the page. */
static int count_features(struct hd *d, struct html_calls *c, const struct calls *t)
{
	struct call_feat *f;
	size_t s;

	for (size_t i = 0; i < calls__nr(t); i++) {
		const struct call_rec *r = calls__get(t, i);

		if (!report_features__has(&d->scope->feat, r->feature))
			continue;
		if (hd_str(d, r->feature, &s) || !(f = feat_of(c, s)))
			return -ENOMEM;
		f->total++;
	}
	for (size_t k = 0; k < c->nr_keep; k++) {
		if (!(f = feat_of(c, c->feat[k])))
			return -ENOMEM;
		f->kept++;
	}
	return 0;
}

int html_calls__prepare(struct hd *d)
{
	const struct calls *t = profile__calls(d->p);
	uint64_t period = profile_meta__period_ns(profile__meta(d->p));
	size_t ns = profile__nr_stacks(d->p);
	struct html_calls *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	c->feat_map = (struct hashmap)HASHMAP_INIT;
	d->calls = c;
	c->state = d->scope->whole ? "filtered" : t ? "ok" : "none";
	if (!t || d->scope->whole)
		return 0;
	err = pick(c, d, t, period);
	if (err)
		return err;
	c->dur = calloc(c->nr_keep + 1, sizeof(*c->dur));
	c->thread = calloc(c->nr_keep + 1, sizeof(*c->thread));
	c->feat = calloc(c->nr_keep + 1, sizeof(*c->feat));
	c->inst = calloc(c->nr_keep + 1, sizeof(*c->inst));
	c->native = calloc(c->nr_keep + 1, sizeof(*c->native));
	c->stack_out = calloc(ns + 1, sizeof(*c->stack_out));
	c->stack_order = calloc(ns + 1, sizeof(*c->stack_order));
	if (!c->dur || !c->thread || !c->feat || !c->inst || !c->native || !c->stack_out ||
	    !c->stack_order)
		return -ENOMEM;
	for (size_t k = 0; k < c->nr_keep; k++) {
		const struct call_rec *r = calls__get(t, c->keep[k]);

		c->dur[k] = call_rec__duration_ns(r, period);
		err = prepare_call(d, c, k, r);
		if (err)
			return err;
	}
	return count_features(d, c, t);
}

/* ---- writing ---- */

static void write_head(struct json_out *w, const struct hd *d)
{
	const struct html_calls *c = d->calls;
	const struct calls *t = profile__calls(d->p);
	struct json_object *o = json_out__object(w);

	json_out__add(w, o, "state", json_out__str(w, c->state));
	json_out__add(w, o, "bound", json_out__u64(w, REPORT_HTML_MAX_CALLS));
	json_out__add(w, o, "total", json_out__u64(w, c->total));
	json_out__add(w, o, "kept", json_out__u64(w, c->nr_keep));
	json_out__add(w, o, "exact", json_out__u64(w, c->exact));
	json_out__add(w, o, "dropped_samples", json_out__u64(w, calls__dropped(t)));
	json_out__add(w, o, "unknown_samples", json_out__u64(w, calls__unknown(t)));
	json_out__add(w, o, "dropped_calls", json_out__u64(w, calls__dropped_calls(t)));
	json_out__member(w, "calls", o);
	json_out__begin_array(w, "call_features");
	for (size_t i = 0; i < c->nr_feats; i++) {
		json_out__row_lit(w, "[");
		json_out__row_u64(w, c->feats[i].feature);
		ROW_SEP(w);
		json_out__row_u64(w, c->feats[i].total);
		ROW_SEP(w);
		json_out__row_u64(w, c->feats[i].kept);
		json_out__row_lit(w, "]");
		json_out__row_end(w);
	}
	json_out__end_array(w);
}

/* "call_stacks": per mark stack the calls use, its charges of the page's
 * features as [feature, instance, ...] string indexes. */
static void write_stacks(struct json_out *w, struct hd *d)
{
	const struct html_calls *c = d->calls;
	const struct charge *ch;
	size_t n, idx;
	bool first;

	json_out__begin_array(w, "call_stacks");
	for (size_t i = 0; i < c->nr_stack_out && !w->err; i++) {
		ch = charges__of(&d->rc, c->stack_order[i], &n);
		json_out__row_lit(w, "[");
		first = true;
		for (size_t k = 0; k < n; k++) {
			if (!report_features__has(&d->scope->feat, ch[k].feature))
				continue;
			if (!first)
				ROW_SEP(w);
			first = false;
			hd_str(d, ch[k].feature, &idx); /* interned: found */
			json_out__row_u64(w, idx);
			ROW_SEP(w);
			hd_str(d, ch[k].instance, &idx);
			json_out__row_u64(w, idx);
		}
		json_out__row_lit(w, "]");
		json_out__row_end(w);
	}
	json_out__end_array(w);
}

/* A flat array of r's stacks: [stack, count, ...] or, off, [stack, ns, ...]
 * of those with off-CPU time. */
static void write_pairs(struct json_out *w, const struct html_calls *c, const struct call_rec *r,
			bool off)
{
	bool first = true;

	json_out__row_lit(w, "[");
	for (size_t s = 0; s < r->nr_stacks; s++) {
		uint64_t v = off ? r->stacks[s].offcpu_ns : r->stacks[s].count;

		if (!v)
			continue;
		if (!first)
			ROW_SEP(w);
		first = false;
		json_out__row_u64(w, c->stack_out[r->stacks[s].stack] - 1);
		ROW_SEP(w);
		json_out__row_u64(w, v);
	}
	json_out__row_lit(w, "]");
}

static void write_natives(struct json_out *w, const struct html_calls *c, size_t k,
			  const struct call_rec *r)
{
	json_out__row_lit(w, "[");
	for (size_t s = 0; c->native[k] && s < r->nr_natives; s++) {
		if (s)
			ROW_SEP(w);
		json_out__row_u64(w, c->stack_out[r->natives[s].stack] - 1);
		ROW_SEP(w);
		json_out__row_u64(w, c->native[k][s]);
		ROW_SEP(w);
		json_out__row_u64(w, r->natives[s].count);
	}
	json_out__row_lit(w, "]");
}

/* A kept call's weight (call_rec.weight: the calls it stands for, 1 but
 * for the bound's sample), digits enough to read back the same double. */
static void write_weight(struct json_out *w, const struct call_rec *r)
{
	char buf[32];
	int n;

	if (r->weight <= 1) {
		json_out__row_lit(w, "1");
		return;
	}
	n = snprintf(buf, sizeof(buf), "%.17g", r->weight);
	json_out__row_put(w, buf, (size_t)n);
}

/* "call_list": [thread, feature, instance, duration_ns, exact, samples,
 * offcpu_ns, [stack, count, ...], [stack, native, count, ...], [stack,
 * offcpu_ns, ...], weight]. */
static void write_list(struct json_out *w, const struct hd *d)
{
	const struct html_calls *c = d->calls;
	const struct calls *t = profile__calls(d->p);

	json_out__begin_array(w, "call_list");
	for (size_t k = 0; k < c->nr_keep && !w->err; k++) {
		const struct call_rec *r = calls__get(t, c->keep[k]);
		const uint64_t v[] = {c->thread[k],	c->feat[k], c->inst[k],	 c->dur[k],
				      r->exact_ns != 0, r->samples, r->offcpu_ns};

		json_out__row_lit(w, "[");
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			json_out__row_u64(w, v[i]);
			ROW_SEP(w);
		}
		write_pairs(w, c, r, false);
		ROW_SEP(w);
		write_natives(w, c, k, r);
		ROW_SEP(w);
		write_pairs(w, c, r, true);
		ROW_SEP(w);
		write_weight(w, r);
		json_out__row_lit(w, "]");
		json_out__row_end(w);
	}
	json_out__end_array(w);
}

void html_calls__write(struct json_out *w, struct hd *d)
{
	write_head(w, d);
	write_stacks(w, d);
	write_list(w, d);
}
