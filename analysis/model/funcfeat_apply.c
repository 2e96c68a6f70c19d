// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Function features applied to a profile (funcfeat.h): each native sample's
 * merged stack — its mark frames, then its native frames root to leaf, the
 * functions of a function feature made marks of it and its antimark
 * functions antimarks — becomes a mark stack of the profile, and the
 * sample's core samples move to it. The attribution rule (charges.h) then
 * charges merged stacks as it charges any mark stack: every view agrees.
 *
 * A function feature is marked where the thread enters it from outside: a
 * call of one of its functions made while the thread is already inside the
 * feature (fputs calling write, both of the output feature) is part of the
 * outer call, as the paper's functional latent marks wrap the program's own
 * calls of a feature's functions, never the library's calls inside them. A
 * call made under one of the feature's antimarks (a sort inside a
 * comparator) is a new call.
 *
 * A rule whose instance is a variable read at sample time ("instance
 * {global:SYMBOL}") takes it from the sample's frame of the hidden feature
 * "{global:SYMBOL}", which the sampler appended to the mark stack with the
 * string read (funcfeat.h); such frames are dropped from every stack, with
 * or without a native sample, so that no view sees them.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "funcfeat_apply.h"
#include "native.h"
#include "profile_int.h"
#include "stack_family.h"
#include "strtab.h"
#include "util.h"

enum { K_NONE = 0, K_MARK = 1, K_ANTI = 2 };
enum { S_OUT = 0, S_IN, S_ANTI };

#define INSTANCE_LEN 256

struct apply {
	const struct funcfeat *ff;
	struct profile *p;
	size_t nr_rules;
	size_t *first; /* per location: its first line's row in kinds */
	uint8_t *kinds; /* (row, rule) -> K_*: what a line is to a rule */
	struct strtab *labels; /* the instance labels made, interned */
	struct profile_frame *frames; /* the merged stack being made */
	size_t nr_frames, cap_frames;
	uint8_t *state; /* per rule: S_* */
	char **var; /* per rule: the hidden feature of its variable, or NULL */
	const char **value; /* per rule: its variable's value in this sample */
	size_t *mark_idx; /* the sample's mark frames that are not variables' */
	size_t nr_marks, cap_marks;
};

/* What a function fn of the file at path (a user file: user) is to rule r. */
static uint8_t line_kind(const struct funcfeat_rule *r, const char *path, const char *fn, bool user)
{
	uint8_t k = K_NONE;

	for (size_t i = 0; i < r->nr_patterns && k != K_MARK; i++)
		if (funcfeat__match(&r->patterns[i], path, fn))
			k = r->patterns[i].antimark ? K_ANTI : K_MARK;
	if (k == K_NONE && user && funcfeat__outside(r, path))
		k = K_ANTI;
	return k;
}

/* What each line of each location is to each rule, matched once. */
static int match_locations(struct apply *a)
{
	size_t n = profile__nr_locations(a->p), rows = 0;
	struct profile_location loc;
	struct profile_module m;

	a->first = calloc(n + 1, sizeof(*a->first));
	if (!a->first)
		return -ENOMEM;
	for (size_t l = 0; l < n; l++) {
		a->first[l] = rows;
		if (!profile__location(a->p, l, &loc))
			rows += loc.nr_lines;
	}
	a->first[n] = rows;
	a->kinds = calloc(rows * a->nr_rules + 1, 1);
	if (!a->kinds)
		return -ENOMEM;
	for (size_t l = 0; l < n; l++) {
		if (profile__location(a->p, l, &loc) || loc.module == PROFILE_NO_MODULE ||
		    profile__module(a->p, loc.module, &m))
			continue;
		for (size_t li = 0; li < loc.nr_lines; li++)
			for (size_t r = 0; r < a->nr_rules; r++)
				a->kinds[(a->first[l] + li) * a->nr_rules + r] = line_kind(
					funcfeat__rule(a->ff, r), m.path, loc.lines[li].function,
					m.kind == PROFILE_MODULE_USER);
	}
	return 0;
}

static int push_frame(struct apply *a, int kind, const char *feature, const char *instance,
		      uint64_t payload)
{
	struct profile_frame *f;

	if (fsp_grow((void **)&a->frames, &a->cap_frames, a->nr_frames + 1, sizeof(*a->frames)))
		return -ENOMEM;
	f = &a->frames[a->nr_frames++];
	f->kind = kind;
	f->feature = feature;
	f->instance = instance;
	f->payload = payload;
	return 0;
}

/* A native frame: a location and one of its lines (an inlined function or the real one). */
struct nframe {
	struct profile_location loc; /* a copy: its lines are the profile's */
	size_t line; /* < loc->nr_lines, or SIZE_MAX: a location without lines */
};

/* The text of a call site: line `line` of location loc (SIZE_MAX: it has
 * no lines), "FUNC (FILE:LINE)", "FUNC", or "FILE+0xADDR". */
static void site_text(const struct profile *p, const struct profile_location *loc, size_t line,
		      char *buf, size_t size)
{
	const struct profile_line *ln;
	struct profile_module m;
	const char *base;

	if (line == SIZE_MAX || !loc->lines[line].function) {
		base = "?";
		if (loc->module != PROFILE_NO_MODULE && !profile__module(p, loc->module, &m)) {
			base = strrchr(m.path, '/');
			base = base ? base + 1 : m.path;
		}
		snprintf(buf, size, "%s+0x%llx", base, (unsigned long long)loc->address);
		return;
	}
	ln = &loc->lines[line];
	if (!ln->file) {
		snprintf(buf, size, "%s", ln->function);
	} else {
		base = strrchr(ln->file, '/');
		base = base ? base + 1 : ln->file;
		snprintf(buf, size, "%s (%s:%u)", ln->function, base, ln->line);
	}
}

int funcfeat__call_site(const struct profile *p, size_t loc_idx, char *buf, size_t size)
{
	struct profile_location loc;

	if (profile__location(p, loc_idx, &loc))
		return -ENOENT;
	/* the caller's frame: the innermost of its location's lines */
	site_text(p, &loc, loc.nr_lines ? 0 : SIZE_MAX, buf, size);
	return 0;
}

/* The instance of a call made from frame `caller`: "FUNC (FILE:LINE)". */
static const char *caller_label(struct apply *a, const struct nframe *caller)
{
	char buf[INSTANCE_LEN];

	if (!caller)
		return NULL;
	site_text(a->p, &caller->loc, caller->line, buf, sizeof(buf));
	return strtab__intern(a->labels, buf);
}

/* A frame without a function name: an antimark of the rules it is outside of. */
static int visit_unnamed(struct apply *a, const struct nframe *f)
{
	struct profile_module m;
	int err = 0;

	if (f->loc.module == PROFILE_NO_MODULE || profile__module(a->p, f->loc.module, &m) ||
	    m.kind != PROFILE_MODULE_USER)
		return 0;
	for (size_t r = 0; r < a->nr_rules && !err; r++) {
		const struct funcfeat_rule *rule = funcfeat__rule(a->ff, r);

		if (a->state[r] == S_IN && funcfeat__outside(rule, m.path)) {
			err = push_frame(a, PROFILE_ANTIMARK, rule->feature, NULL, 0);
			a->state[r] = S_ANTI;
		}
	}
	return err;
}

/* Native frame f (called from caller, NULL for the root): its frames of the merged stack. */
static int visit(struct apply *a, size_t loc_idx, const struct nframe *f,
		 const struct nframe *caller, bool *any)
{
	const uint8_t *k;
	int err = 0;

	if (f->line == SIZE_MAX)
		return visit_unnamed(a, f);
	k = &a->kinds[(a->first[loc_idx] + f->line) * a->nr_rules];
	for (size_t r = 0; r < a->nr_rules && !err; r++) {
		const struct funcfeat_rule *rule = funcfeat__rule(a->ff, r);

		if (k[r] == K_MARK && a->state[r] != S_IN) {
			const char *inst = rule->instance == FUNCFEAT_INSTANCE_CALLER
						   ? caller_label(a, caller)
						   : a->value[r];

			if (rule->instance == FUNCFEAT_INSTANCE_CALLER && caller && !inst)
				return -ENOMEM;
			err = push_frame(a, PROFILE_MARK, rule->feature, inst, 0);
			a->state[r] = S_IN;
			*any = true;
		} else if (k[r] == K_ANTI && a->state[r] == S_IN) {
			err = push_frame(a, PROFILE_ANTIMARK, rule->feature, NULL, 0);
			a->state[r] = S_ANTI;
		}
	}
	return err;
}

/* Where mark j goes: after native frame place[j] (leaf-first index), or
 * below every native frame (ns->depth); never below the mark under it. */
static size_t mark_place(const struct profile_native_stack *ns, size_t j, size_t under)
{
	size_t pos = j < ns->nr_marks && ns->mark_pos[j] != PROFILE_MARK_BELOW ? ns->mark_pos[j]
									       : ns->depth;

	return pos < under ? pos : under;
}

static int push_mark(struct apply *a, const struct profile_frame *m)
{
	return push_frame(a, m->kind, m->feature, m->instance, m->payload);
}

/* The sample's variables' frames (marks[0..depth)) into a->value, the
 * other frames' indexes into a->mark_idx; *vars: it had any. */
static int take_vars(struct apply *a, const struct profile_frame *marks, size_t depth, bool *vars)
{
	*vars = false;
	a->nr_marks = 0;
	for (size_t r = 0; r < a->nr_rules; r++)
		a->value[r] = a->var[r] ? FUNCFEAT_NOT_READ : NULL;
	for (size_t j = 0; j < depth; j++) {
		if (!funcfeat__is_var_feature(marks[j].feature)) {
			if (fsp_grow((void **)&a->mark_idx, &a->cap_marks, a->nr_marks + 1,
				     sizeof(*a->mark_idx)))
				return -ENOMEM;
			a->mark_idx[a->nr_marks++] = j;
			continue;
		}
		*vars = true;
		for (size_t r = 0; r < a->nr_rules; r++)
			if (a->var[r] && !strcmp(a->var[r], marks[j].feature))
				a->value[r] = marks[j].instance ? marks[j].instance : "?";
	}
	return 0;
}

/*
 * The merged stack of mark frames marks[0..depth) and native stack ns into
 * a->frames; *any: it differs from the mark stack (a function-feature
 * frame, or a variable's frame dropped). Each mark goes above the native
 * frame that entered it (ns->mark_pos), a mark of unknown place below every
 * native frame (docs/function-features.md).
 */
static int merge_stack(struct apply *a, const struct profile_frame *marks, size_t depth,
		       const struct profile_native_stack *ns, bool *any)
{
	struct nframe prev = {0}, cur;
	bool have_prev = false;
	size_t j = 0, place = ns->depth, n;
	int err = take_vars(a, marks, depth, any);

	a->nr_frames = 0;
	n = a->nr_marks;
	memset(a->state, S_OUT, a->nr_rules);
	for (; j < n && !err && (place = mark_place(ns, a->mark_idx[j], place)) >= ns->depth; j++)
		err = push_mark(a, &marks[a->mark_idx[j]]);
	for (size_t i = ns->depth; i-- > 0 && !err;) {
		if (profile__location(a->p, ns->locs[i], &cur.loc)) {
			memset(&cur.loc, 0, sizeof(cur.loc));
			cur.loc.module = PROFILE_NO_MODULE;
		}
		if (!cur.loc.nr_lines) { /* no function: a caller, maybe outside */
			cur.line = SIZE_MAX;
			err = visit(a, ns->locs[i], &cur, NULL, any);
			prev = cur;
			have_prev = true;
		}
		for (size_t li = cur.loc.nr_lines; li-- > 0 && !err;) {
			cur.line = li;
			err = visit(a, ns->locs[i], &cur, have_prev ? &prev : NULL, any);
			prev = cur;
			have_prev = true;
		}
		for (; j < n && !err && (place = mark_place(ns, a->mark_idx[j], place)) == i; j++)
			err = push_mark(a, &marks[a->mark_idx[j]]);
	}
	return err;
}

static bool frames_equal(const struct profile_frame *x, const struct profile_frame *y, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (x[i].kind != y[i].kind || strcmp(x[i].feature, y[i].feature) ||
		    x[i].payload != y[i].payload || !x[i].instance != !y[i].instance ||
		    (x[i].instance && strcmp(x[i].instance, y[i].instance)))
			return false;
	}
	return true;
}

/* The key of the merged stack in a->frames for (source, pid): registered when new. */
static int merged_key(struct apply *a, uint32_t source, uint32_t pid, uint64_t *out)
{
	uint64_t key = 0x66756e63ULL; /* "func" */
	struct profile_stack st;
	size_t id;
	int err;

	*out = 0; /* the empty stack: only variables' frames were dropped */
	if (!a->nr_frames)
		return 0;
	for (size_t i = 0; i < a->nr_frames; i++) {
		const struct profile_frame *f = &a->frames[i];

		key = fsp_hash_pair(key,
				    fsp_hash_pair(fsp_hash_str(f->feature),
						  f->instance ? fsp_hash_str(f->instance) : 0));
		key = fsp_hash_pair(key, f->payload ^ (uint64_t)f->kind);
	}
	err = profile__use_source(a->p, source);
	for (; !err; key = fsp_hash_pair(key, 1)) {
		if (!key)
			continue;
		if (profile__find_stack(a->p, pid, key, &id)) {
			err = profile__add_stack(a->p, pid, key, a->frames, a->nr_frames);
			break;
		}
		err = profile__stack(a->p, id, &st);
		if (!err && st.depth == a->nr_frames &&
		    frames_equal(st.frames, a->frames, st.depth))
			break;
	}
	*out = key;
	return err;
}

/* The core sample records of each (thread, family) group, to move samples from. */
struct groups {
	struct family_groups *g;
	size_t *first; /* per group: offset into recs */
	size_t *recs;
};

static void groups_fini(struct groups *gr)
{
	family_groups__free(gr->g);
	free(gr->first);
	free(gr->recs);
}

static int groups_init(struct groups *gr, const struct profile *p)
{
	size_t n = profile__nr_samples(p), *grp = calloc(n + 1, sizeof(size_t)), nr, *fill;
	struct profile_sample s;
	int err = -ENOMEM;

	gr->g = family_groups__new(p);
	if (!gr->g || !grp)
		goto cleanup;
	for (size_t i = 0; i < n; i++) {
		err = profile__sample(p, i, &s);
		if (!err)
			err = family_groups__of(gr->g, s.source, s.pid, s.tid, s.stack, s.key, true,
						&grp[i]);
		if (err)
			goto cleanup;
	}
	nr = family_groups__nr(gr->g);
	err = -ENOMEM;
	gr->first = calloc(nr + 2, sizeof(size_t));
	gr->recs = calloc(n + 1, sizeof(size_t));
	fill = calloc(nr + 1, sizeof(size_t));
	if (!gr->first || !gr->recs || !fill) {
		free(fill);
		goto cleanup;
	}
	for (size_t i = 0; i < n; i++)
		gr->first[grp[i] + 1]++;
	for (size_t k = 0; k < nr; k++)
		gr->first[k + 1] += gr->first[k];
	for (size_t i = 0; i < n; i++)
		gr->recs[gr->first[grp[i]] + fill[grp[i]]++] = i;
	free(fill);
	err = 0;
cleanup:
	free(grp);
	return err;
}

/* Moves count core samples of native sample ns's group to key: its own key's record first. */
static int move_core(struct apply *a, struct groups *gr, const struct profile_native_sample *ns,
		     uint64_t key)
{
	uint64_t left = ns->count;
	struct profile_sample s;
	size_t g;
	int err;

	err = family_groups__of(gr->g, ns->source, ns->pid, ns->tid, ns->mark_stack, ns->key, false,
				&g);
	if (err)
		return err == -ENOENT ? 0 : err;
	for (int pass = 0; pass < 2 && left; pass++) {
		for (size_t k = gr->first[g]; k < gr->first[g + 1] && left; k++) {
			uint64_t n;

			if (profile__sample(a->p, gr->recs[k], &s))
				continue;
			if ((s.key == ns->key) != (pass == 0))
				continue;
			n = s.count < left ? s.count : left;
			err = profile__move_samples(a->p, gr->recs[k], key, n);
			if (err)
				return err;
			left -= n;
		}
	}
	return 0;
}

/* Each native sample with a function-feature frame: its merged stack and its moves. */
static int apply_samples(struct apply *a, struct groups *gr, uint64_t *keys)
{
	size_t n = profile__nr_native_samples(a->p);
	struct profile_native_sample ns;
	struct profile_native_stack st;
	struct profile_stack ms;
	bool any;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		err = profile__native_sample(a->p, i, &ns);
		if (err)
			break;
		keys[i] = ns.key;
		ms.frames = NULL;
		ms.depth = 0;
		if (ns.mark_stack != PROFILE_NO_STACK)
			err = profile__stack(a->p, ns.mark_stack, &ms);
		if (!err)
			err = profile__native_stack(a->p, ns.stack, &st);
		if (!err)
			err = merge_stack(a, ms.frames, ms.depth, &st, &any);
		if (err || !any)
			continue;
		err = merged_key(a, ns.source, ns.pid, &keys[i]);
		if (!err)
			err = move_core(a, gr, &ns, keys[i]);
	}
	return err;
}

/* The core samples left on stacks with variables' frames (those of no
 * native sample: its record was dropped, or never taken) move to the same
 * stacks without them. */
static int strip_vars(struct apply *a)
{
	size_t n = profile__nr_samples(a->p);
	struct profile_sample s;
	struct profile_stack st;
	uint64_t key;
	bool vars;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		err = profile__sample(a->p, i, &s);
		if (err || !s.count || s.stack == PROFILE_NO_STACK)
			continue;
		err = profile__stack(a->p, s.stack, &st);
		if (!err)
			err = take_vars(a, st.frames, st.depth, &vars);
		if (err || !vars)
			continue;
		a->nr_frames = 0;
		for (size_t j = 0; j < a->nr_marks && !err; j++)
			err = push_mark(a, &st.frames[a->mark_idx[j]]);
		if (!err)
			err = merged_key(a, s.source, s.pid, &key);
		if (!err)
			err = profile__move_samples(a->p, i, key, s.count);
	}
	return err;
}

/* Records ff's rules in p's metadata. */
static int remember_rules(const struct funcfeat *ff, struct profile *p)
{
	struct profile_meta m = *profile__meta(p);
	char *text = funcfeat__to_text(ff);
	int err;

	if (!text)
		return -ENOMEM;
	m.function_features = *text ? text : NULL;
	err = profile__set_meta(p, &m);
	free(text);
	return err;
}

/* Per rule, the hidden feature of its variable (NULL: none). */
static int name_vars(struct apply *a)
{
	char name[FUNCFEAT_SYMBOL_LEN + sizeof(FUNCFEAT_VAR_PREFIX) + 1];

	a->var = calloc(a->nr_rules, sizeof(*a->var));
	a->value = calloc(a->nr_rules, sizeof(*a->value));
	if (!a->var || !a->value)
		return -ENOMEM;
	for (size_t r = 0; r < a->nr_rules; r++) {
		const struct funcfeat_rule *rule = funcfeat__rule(a->ff, r);

		if (rule->instance != FUNCFEAT_INSTANCE_GLOBAL || !rule->global)
			continue;
		funcfeat__var_feature(rule->global, name, sizeof(name));
		a->var[r] = strdup(name);
		if (!a->var[r])
			return -ENOMEM;
	}
	return 0;
}

static void apply_fini(struct apply *a)
{
	for (size_t r = 0; a->var && r < a->nr_rules; r++)
		free(a->var[r]);
	free(a->var);
	free(a->value);
	free(a->mark_idx);
	free(a->first);
	free(a->kinds);
	free(a->frames);
	free(a->state);
	strtab__free(a->labels);
}

int funcfeat__apply(const struct funcfeat *ff, struct profile *p)
{
	struct apply a = {.ff = ff, .p = p, .nr_rules = funcfeat__nr(ff)};
	struct groups gr = {0};
	uint64_t *keys = NULL;
	uint32_t cur = 0;
	int err;

	if (!a.nr_rules)
		return 0;
	err = remember_rules(ff, p);
	if (err)
		return err;
	err = -ENOMEM;
	a.labels = strtab__new();
	a.state = calloc(a.nr_rules, 1);
	keys = calloc(profile__nr_native_samples(p) + 1, sizeof(*keys));
	if (!a.labels || !a.state || !keys || name_vars(&a))
		goto cleanup;
	err = 0;
	if (profile__nr_native_samples(p)) {
		err = match_locations(&a);
		if (!err)
			err = groups_init(&gr, p);
		if (!err)
			err = apply_samples(&a, &gr, keys);
		if (!err)
			err = profile__native_rekey(p, keys);
	}
	if (!err)
		err = strip_vars(&a);
	profile__use_source(p, cur);
cleanup:
	groups_fini(&gr);
	free(keys);
	apply_fini(&a);
	return err;
}
