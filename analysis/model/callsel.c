// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The slow-call view's selection: see callsel.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "callsel.h"
#include "funcfeat.h"
#include "funcfeat_apply.h"
#include "native.h"
#include "util.h"

/* "50ms" etc. (up to end, or the string's end when NULL) into ns; -1 if it
 * is not a duration. */
static int parse_duration(const char *s, const char *end_at, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
	char *end;
	double v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtod(s, &end);
	if (!end_at)
		end_at = end + strlen(end);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t ul = strlen(units[i].unit);

		if ((size_t)(end_at - end) == ul && !strncmp(end, units[i].unit, ul) &&
		    isfinite(v * units[i].ns) && v * units[i].ns < 1.8e19) {
			*ns = (uint64_t)(v * units[i].ns + 0.5);
			return 0;
		}
	}
	return -1;
}

/* The comparison at *c ('<' or '>', maybe '='), *c moved past it. */
static enum callsel_op parse_op(const char **c)
{
	int eq = (*c)[1] == '=';
	enum callsel_op op =
		**c == '>' ? (eq ? CALLSEL_GE : CALLSEL_GT) : (eq ? CALLSEL_LE : CALLSEL_LT);

	*c += 1 + eq;
	return op;
}

/* The condition at c into out; -1 if it is none. */
static int parse_condition(const char *c, struct callsel *out)
{
	char *end;

	while (*c == ' ')
		c++;
	if (*c == 'p') {
		if (c[1] < '0' || c[1] > '9')
			return -1;
		out->pct = strtod(c + 1, &end);
		out->op = CALLSEL_PCT;
		return *end || !(out->pct > 0 && out->pct < 100) ? -1 : 0;
	}
	if (c[0] == '>' || c[0] == '<') {
		const char *next = strpbrk(c + 1, "<>");

		out->op = parse_op(&c);
		if (parse_duration(c, next, &out->ns))
			return -1;
		if (!next)
			return 0;
		/* a range: a second comparison */
		out->op2 = parse_op(&next);
		return strpbrk(next, "<>") ? -1 : parse_duration(next, NULL, &out->ns2);
	}
	return -1;
}

/* Where the condition starts in s: the first '<' or '>', else the last
 * " p" or ' ' before a percentile; NULL if none. */
static const char *find_condition(const char *s)
{
	const char *c = strpbrk(s, "<>"), *sp;

	if (c)
		return c;
	sp = strrchr(s, ' ');
	return sp && sp[1] == 'p' ? sp : NULL;
}

static int fail(char *err, size_t n, const char *fmt, const char *arg)
{
	if (err && n)
		snprintf(err, n, fmt, arg);
	return -EINVAL;
}

int callsel__parse(const char *s, struct callsel *out, char *err, size_t n)
{
	const char *cond, *colon;
	size_t len;

	if (!s || !out)
		return fail(err, n, "%s", "no selector");
	memset(out, 0, sizeof(*out));
	cond = find_condition(s);
	if (!cond)
		return fail(err, n,
			    "'%s' has no condition: expected FEATURE[:INSTANCE] followed by "
			    ">=DURATION, >DURATION, <=DURATION, <DURATION (ns, us, ms, s) or "
			    "' pNN' (a percentile), e.g. request>=50ms or 'request p99'",
			    s);
	if (parse_condition(cond, out))
		return fail(err, n,
			    "'%s' is not a condition: expected >=, >, <= or < and a duration "
			    "with its unit (50ms, 2.5s, 800us, 120ns), two of them (a range: "
			    ">=2ms<5ms), or pNN with 0 < NN < 100",
			    cond + strspn(cond, " "));
	len = (size_t)(cond - s);
	colon = memchr(s, ':', len);
	if (colon) {
		size_t il = len - (size_t)(colon - s) - 1;

		if (!il || il >= CALLSEL_NAME_LEN)
			return fail(err, n, "'%s': the instance after ':' is empty or too long", s);
		memcpy(out->instance, colon + 1, il);
		out->has_instance = 1;
		len = (size_t)(colon - s);
	}
	if (!len || len >= CALLSEL_NAME_LEN)
		return fail(err, n, "'%s': the feature name is empty or too long", s);
	memcpy(out->feature, s, len);
	return 0;
}

/* A call's duration and how many calls it stands for. */
struct weighed {
	uint64_t ns;
	double w;
};

static int cmp_weighed(const void *a, const void *b)
{
	uint64_t x = ((const struct weighed *)a)->ns, y = ((const struct weighed *)b)->ns;

	return (x > y) - (x < y);
}

static int of_feature(const struct callsel *sel, const struct call_rec *r)
{
	return !strcmp(r->feature, sel->feature) &&
	       (!sel->has_instance || !strcmp(r->instance, sel->instance));
}

static double weight_of(const struct call_rec *r)
{
	return r->weight >= 1 ? r->weight : 1;
}

/* The duration from which calls are selected (CALLSEL_PCT: the nearest-rank
 * percentile of the feature's calls' durations, each call counted as the
 * calls it stands for: the bound's sample, calls.h). *nr: the calls. */
static int threshold(const struct calls *c, const struct callsel *sel, uint64_t period,
		     uint64_t *out, uint64_t *nr)
{
	struct weighed *d;
	size_t n = 0, k;
	double total = 0, rank, sum = 0;

	for (size_t i = 0; i < calls__nr(c); i++)
		if (of_feature(sel, calls__get(c, i)))
			n++;
	if (!n)
		return -ENOENT;
	d = malloc(n * sizeof(*d));
	if (!d)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < calls__nr(c); i++) {
		const struct call_rec *r = calls__get(c, i);

		if (!of_feature(sel, r))
			continue;
		d[n++] = (struct weighed){call_rec__duration_ns(r, period), weight_of(r)};
		total += weight_of(r);
	}
	*nr = (uint64_t)(total + 0.5);
	*out = sel->ns;
	if (sel->op == CALLSEL_PCT) {
		qsort(d, n, sizeof(*d), cmp_weighed);
		/* nearest rank: the ceiling of pct% of the calls */
		rank = (double)(uint64_t)(sel->pct / 100.0 * total - 1e-9);
		if (rank < sel->pct / 100.0 * total - 1e-9)
			rank++;
		for (k = 0; k < n - 1; k++) {
			sum += d[k].w;
			if (sum >= rank - 1e-9)
				break;
		}
		*out = d[k].ns;
	}
	free(d);
	return 0;
}

static int compare(enum callsel_op op, uint64_t d, uint64_t t)
{
	switch (op) {
	case CALLSEL_GE:
	case CALLSEL_PCT:
		return d >= t;
	case CALLSEL_GT:
		return d > t;
	case CALLSEL_LE:
		return d <= t;
	case CALLSEL_LT:
		return d < t;
	}
	return 0;
}

/* Whether a call of duration d is selected (t: the threshold). */
static int selected(const struct callsel *sel, uint64_t d, uint64_t t)
{
	return compare(sel->op, d, t) && (!sel->op2 || compare(sel->op2, d, sel->ns2));
}

/* p's modules, locations and native stacks into f (empty), in order: f's
 * indexes are p's (p's are distinct, so none merge). */
static int copy_native_stacks(struct profile *f, const struct profile *p)
{
	struct profile_native_stack ns;
	struct profile_location loc;
	struct profile_module m;
	int r = 0;

	for (size_t i = 0; i < profile__nr_modules(p) && r >= 0; i++) {
		r = profile__module(p, i, &m);
		if (!r)
			r = profile__add_module(f, &m);
		if (r >= 0 && (size_t)r != i)
			r = -EINVAL;
	}
	for (size_t i = 0; i < profile__nr_locations(p) && r >= 0; i++) {
		r = profile__location(p, i, &loc);
		if (!r)
			r = profile__add_location(f, &loc);
		if (r >= 0 && (size_t)r != i)
			r = -EINVAL;
	}
	for (size_t i = 0; i < profile__nr_native_stacks(p) && r >= 0; i++) {
		r = profile__native_stack(p, i, &ns);
		if (!r)
			r = profile__add_native_stack(f, &ns);
		if (r >= 0 && (size_t)r != i)
			r = -EINVAL;
	}
	return r < 0 ? r : 0;
}

/* A profile with p's metadata, processes, threads, stacks and native stacks,
 * no samples. */
static struct profile *frame_of(const struct profile *p, int *err)
{
	struct profile *f = profile__new();
	struct profile_process pp;
	struct profile_thread t;
	struct profile_stack st;

	*err = f ? profile__set_meta(f, profile__meta(p)) : -ENOMEM;
	for (size_t i = 0; i < profile__nr_pids(p) && !*err; i++) {
		*err = profile__process(p, i, &pp);
		if (!*err)
			*err = profile__add_pid(f, pp.pid);
		if (!*err && pp.nspid)
			*err = profile__set_process_nspid(f, pp.pid, pp.nspid);
	}
	for (size_t i = 0; i < profile__nr_threads(p) && !*err; i++) {
		*err = profile__thread(p, i, &t);
		if (!*err)
			*err = profile__add_thread(f, t.pid, t.tid, t.comm);
	}
	for (size_t i = 0; i < profile__nr_stacks(p) && !*err; i++) {
		*err = profile__stack(p, i, &st);
		if (!*err)
			*err = profile__add_stack(f, st.pid, st.key, st.frames, st.depth);
		if (*err == -EEXIST)
			*err = 0; /* the same key in another source: one copy */
	}
	if (!*err)
		*err = copy_native_stacks(f, p);
	if (*err) {
		profile__free(f);
		return NULL;
	}
	return f;
}

/* n of a call that stands for w calls: n w, rounded. */
static uint64_t scaled(uint64_t n, double w)
{
	return w == 1 ? n : (uint64_t)((double)n * w + 0.5);
}

/* Adds call r's samples to f, as many times as the calls it stands for. */
static int add_call(struct profile *f, const struct profile *p, const struct call_rec *r)
{
	double w = weight_of(r);
	struct profile_stack st;
	int err = 0;

	for (size_t k = 0; k < r->nr_stacks && !err; k++) {
		err = profile__stack(p, r->stacks[k].stack, &st);
		if (!err && r->stacks[k].count)
			err = profile__add_samples(f, r->pid, r->tid, st.key,
						   scaled(r->stacks[k].count, w));
		if (!err && r->stacks[k].offcpu_ns)
			err = profile__add_offcpu(f, r->pid, r->tid, st.key,
						  scaled(r->stacks[k].offcpu_ns, w));
	}
	for (size_t k = 0; k < r->nr_natives && !err; k++) {
		err = profile__stack(p, r->natives[k].stack, &st);
		if (!err)
			/* rounded down: never more than the samples (rounded) */
			err = profile__add_native_samples(
				f, r->pid, r->tid, st.key, r->natives[k].native,
				w == 1 ? r->natives[k].count
				       : (uint64_t)((double)r->natives[k].count * w));
	}
	return err;
}

/* The function features p was charged by (its metadata's rules), charged
 * in f too: f's native samples were added under their calls' mark stacks,
 * before the rules moved p's to their merged stacks. */
static int apply_rules(const struct profile *p, struct profile *f)
{
	const char *text = profile__meta(p)->function_features;
	struct funcfeat *ff;
	char msg[256];
	int err;

	if (!text || !*text)
		return 0;
	ff = funcfeat__new();
	if (!ff)
		return -ENOMEM;
	err = funcfeat__parse(ff, text, msg, sizeof(msg)) ? -EINVAL : funcfeat__apply(ff, f);
	funcfeat__free(ff);
	return err;
}

int callsel__split(const struct profile *p, const struct callsel *sel, struct profile **sp,
		   struct profile **op, struct callsel_info *info)
{
	uint64_t period = profile_meta__period_ns(profile__meta(p));
	const struct calls *c = profile__calls(p);
	struct profile *s = NULL, *o = NULL;
	double selected_calls = 0;
	int err;

	*sp = *op = NULL;
	memset(info, 0, sizeof(*info));
	if (!c)
		return -ENODATA;
	err = threshold(c, sel, period, &info->threshold_ns, &info->calls);
	if (!err)
		s = frame_of(p, &err);
	if (!err)
		o = frame_of(p, &err);
	info->min_ns = UINT64_MAX;
	for (size_t i = 0; i < calls__nr(c) && !err; i++) {
		const struct call_rec *r = calls__get(c, i);
		uint64_t d = call_rec__duration_ns(r, period);

		if (!of_feature(sel, r))
			continue;
		if (selected(sel, d, info->threshold_ns)) {
			selected_calls += weight_of(r);
			info->selected_samples += scaled(r->samples, weight_of(r));
			info->sum_ns += scaled(d, weight_of(r));
			info->exact += r->exact_ns != 0;
			info->sampled += weight_of(r) > 1;
			info->selected_kept++;
			info->min_ns = d < info->min_ns ? d : info->min_ns;
			info->max_ns = d > info->max_ns ? d : info->max_ns;
			info->selected_offcpu_ns += scaled(r->offcpu_ns, weight_of(r));
			err = add_call(s, p, r);
		} else {
			info->other_samples += scaled(r->samples, weight_of(r));
			info->other_offcpu_ns += scaled(r->offcpu_ns, weight_of(r));
			err = add_call(o, p, r);
		}
	}
	info->selected = (uint64_t)(selected_calls + 0.5);
	info->dropped_calls = calls__dropped_calls(c);
	if (!err)
		err = apply_rules(p, s);
	if (!err)
		err = apply_rules(p, o);
	if (!info->selected)
		info->min_ns = 0;
	if (err) {
		profile__free(s);
		profile__free(o);
		return err;
	}
	*sp = s;
	*op = o;
	return 0;
}
