// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The consistency matrix's tallies (matrix.h): rows per feature and instance,
 * their comparison, and the tally of a profile's own model.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"
#include "matrix.h"
#include "attrib.h"
#include "funcfeat.h"
#include "funcfeat_apply.h"
#include "native.h"
#include "profile.h"
#include "profile_io.h"

struct mx_stats mx_stats;

const struct mx_known *mx_known;
const char *mx_case_name;

/* The known bug msg of the current case is, or NULL. */
static const struct mx_known *known_bug(const char *msg)
{
	for (const struct mx_known *k = mx_known; k && k->cases; k++)
		if (mx_case_name && !fnmatch(k->cases, mx_case_name, 0) && strstr(msg, k->check))
			return k;
	return NULL;
}

bool mx_check(bool ok, const char *fmt, ...)
{
	const struct mx_known *k;
	char msg[2048];
	va_list ap;

	mx_stats.checks++;
	if (ok)
		return true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	k = known_bug(msg);
	if (k) {
		mx_stats.known++;
		printf("  KNOWN (%s) %s\n", k->why, msg);
		return false;
	}
	mx_stats.failed++;
	printf("  FAIL %s\n", msg);
	return false;
}

void mx_tally_init(struct mx_tally *t, unsigned int has, const char *fmt, ...)
{
	va_list ap;

	memset(t, 0, sizeof(*t));
	t->has = has;
	va_start(ap, fmt);
	vsnprintf(t->what, sizeof(t->what), fmt, ap);
	va_end(ap);
}

void mx_tally_fini(struct mx_tally *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		free(t->rows[i].feature);
		free(t->rows[i].instance);
	}
	free(t->rows);
	t->rows = NULL;
	t->nr = t->cap = 0;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static struct mx_row *find_row(const struct mx_tally *t, const char *feature, const char *instance)
{
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->rows[i].feature, feature) && same_str(t->rows[i].instance, instance))
			return &t->rows[i];
	return NULL;
}

struct mx_row *mx_row(struct mx_tally *t, const char *feature, const char *instance)
{
	struct mx_row *r = find_row(t, feature, instance);

	if (r)
		return r;
	if (t->nr == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 32;
		t->rows = realloc(t->rows, t->cap * sizeof(*t->rows));
		assert_non_null(t->rows);
	}
	r = &t->rows[t->nr++];
	memset(r, 0, sizeof(*r));
	r->feature = strdup(feature);
	r->instance = instance ? strdup(instance) : NULL;
	assert_non_null(r->feature);
	return r;
}

void mx_charge(struct mx_tally *t, const char *feature, const char *instance, uint64_t samples,
	       uint64_t native, uint64_t offcpu_ns, uint64_t calls)
{
	for (int i = 0; i < 2; i++) {
		/* each looked up just before its use: a new row may move the
		 * others (realloc; the feature's row, taken first, lost the
		 * charges of an instance that moved it) */
		struct mx_row *r = mx_row(t, feature, i ? instance : NULL);

		r->samples += samples;
		r->native += native;
		r->offcpu_ns += offcpu_ns;
		r->calls += calls;
	}
}

void mx_tally_scale(struct mx_tally *t, uint64_t k)
{
	t->total *= k;
	t->sum *= k;
	t->uncharged *= k;
	t->native_total *= k;
	t->native_sum *= k;
	for (size_t i = 0; i < t->nr; i++) {
		t->rows[i].samples *= k;
		t->rows[i].native *= k;
		t->rows[i].offcpu_ns *= k;
		t->rows[i].calls *= k;
	}
}

static const char *row_name(const struct mx_row *r, char *buf, size_t len)
{
	if (r->instance)
		snprintf(buf, len, "[%s] %s", r->feature, r->instance);
	else
		snprintf(buf, len, "%s", r->feature);
	return buf;
}

/* Off-CPU time the text report shows in ms with one decimal: within 0.05 ms. */
static bool offcpu_equal(uint64_t ref, uint64_t view, bool ms)
{
	uint64_t d = ref > view ? ref - view : view - ref;

	return ms ? d <= 50001 : !d;
}

static void compare_row(const struct mx_tally *ref, const struct mx_tally *view,
			const struct mx_row *r, const struct mx_row *v)
{
	unsigned int has = view->has & ref->has;
	char name[512];

	row_name(r, name, sizeof(name));
	if (!v && view->has & MX_PARTIAL)
		return;
	if (!v) {
		/* a view may leave out what has nothing of its own to show
		 * (folded --value offcpu: a row without off-CPU time) */
		mx_check(!(has & MX_SAMPLES && r->samples) && !(has & MX_OFFCPU && r->offcpu_ns) &&
				 !(has & MX_CALLS && r->calls),
			 "%s: %s is missing (%s has %" PRIu64 " samples, %" PRIu64
			 " ns off CPU, %" PRIu64 " calls)",
			 view->what, name, ref->what, r->samples, r->offcpu_ns, r->calls);
		return;
	}
	if (has & MX_SAMPLES)
		mx_check(v->samples == r->samples, "%s: %s has %" PRIu64 " samples, %s %" PRIu64,
			 view->what, name, v->samples, ref->what, r->samples);
	if (has & MX_NATIVE)
		mx_check(v->native == r->native,
			 "%s: %s has %" PRIu64 " samples with a native stack, %s %" PRIu64,
			 view->what, name, v->native, ref->what, r->native);
	if (has & MX_OFFCPU)
		mx_check(offcpu_equal(r->offcpu_ns, v->offcpu_ns, view->has & MX_OFFCPU_MS),
			 "%s: %s has %" PRIu64 " ns off CPU, %s %" PRIu64, view->what, name,
			 v->offcpu_ns, ref->what, r->offcpu_ns);
	if (has & MX_CALLS)
		mx_check(v->calls == r->calls, "%s: %s has %" PRIu64 " calls, %s %" PRIu64,
			 view->what, name, v->calls, ref->what, r->calls);
}

void mx_compare(const struct mx_tally *ref, const struct mx_tally *view)
{
	unsigned int has = view->has & ref->has;
	char name[512];

	if (has & MX_TOTAL)
		mx_check(view->total == ref->total, "%s: %" PRIu64 " samples in all, %s %" PRIu64,
			 view->what, view->total, ref->what, ref->total);
	if (has & MX_SUM)
		mx_check(view->sum == ref->sum,
			 "%s: its lines sum to %" PRIu64 ", %s's charges and uncharged samples to "
			 "%" PRIu64,
			 view->what, view->sum, ref->what, ref->sum);
	if (has & MX_UNCHARGED)
		mx_check(view->uncharged == ref->uncharged,
			 "%s: %" PRIu64 " samples in no feature, %s %" PRIu64, view->what,
			 view->uncharged, ref->what, ref->uncharged);
	if ((has & (MX_SUM | MX_NATIVE)) == (MX_SUM | MX_NATIVE))
		mx_check(view->native_sum == ref->native_sum,
			 "%s: its lines with a native stack sum to %" PRIu64 ", %s's to %" PRIu64,
			 view->what, view->native_sum, ref->what, ref->native_sum);
	if (has & MX_NATIVE_TOTAL)
		mx_check(view->native_total == ref->native_total,
			 "%s: %" PRIu64 " samples with a native stack, %s %" PRIu64, view->what,
			 view->native_total, ref->what, ref->native_total);
	for (size_t i = 0; i < ref->nr; i++) {
		const struct mx_row *r = &ref->rows[i];

		if (r->instance && !(has & MX_INSTANCES))
			continue;
		compare_row(ref, view, r, find_row(view, r->feature, r->instance));
	}
	for (size_t i = 0; i < view->nr; i++) {
		const struct mx_row *v = &view->rows[i];

		if (v->instance && !(has & MX_INSTANCES))
			continue;
		if (ref->has & MX_MIN_PCT && ref->total &&
		    100.0 * (double)v->samples / (double)ref->total < MX_MIN_PCT_DEFAULT)
			continue;
		mx_check(find_row(ref, v->feature, v->instance) != NULL,
			 "%s: %s is not in %s (%" PRIu64 " samples)", view->what,
			 row_name(v, name, sizeof(name)), ref->what, v->samples);
	}
}

/* ---- the model's own tally -------------------------------------------------------------- */

/*
 * The attribution rule, written again here (not the library's): for each
 * feature of the stack, its top-most frame decides; a mark (or a charged
 * mark) charges the feature and that frame's instance.
 */
static void charge_native(struct mx_tally *t, const struct profile_stack *st, uint64_t count)
{
	bool charged = false;

	for (size_t i = 0; i < st->depth; i++) {
		const struct profile_frame *f = &st->frames[i];
		bool top = true;

		for (size_t j = i + 1; j < st->depth && top; j++)
			top = strcmp(st->frames[j].feature, f->feature) != 0;
		if (!top || f->kind == PROFILE_ANTIMARK)
			continue;
		mx_charge(t, f->feature, f->instance ? f->instance : ATTRIB_NO_INSTANCE, 0, count,
			  0, 0);
		t->native_sum += count;
		charged = true;
	}
	if (!charged)
		t->native_sum += count; /* the "(no feature)" line */
}

static void tally_native(struct mx_tally *t, const struct profile *p)
{
	struct profile_native_sample ns;
	struct profile_stack st;

	for (size_t i = 0; i < profile__nr_native_samples(p); i++) {
		assert_int_equal(profile__native_sample(p, i, &ns), 0);
		t->native_total += ns.count;
		if (ns.mark_stack == PROFILE_NO_STACK) {
			t->native_sum += ns.count;
			continue;
		}
		assert_int_equal(profile__stack(p, ns.mark_stack, &st), 0);
		charge_native(t, &st, ns.count);
	}
}

/* The profile's function features charged, as report does. */
static void apply_rules(struct profile *p)
{
	const char *text = profile__meta(p)->function_features;
	struct funcfeat *ff;
	char msg[256];

	if (!text)
		return;
	ff = funcfeat__new();
	assert_non_null(ff);
	if (mx_check(!funcfeat__parse(ff, text, msg, sizeof(msg)),
		     "the profile's function features do not read back: %s", msg))
		assert_int_equal(funcfeat__apply(ff, p), 0);
	funcfeat__free(ff);
}

void mx_strip_rules(const char *path, const char *out)
{
	char msg[512];
	struct profile *p = profile__load(path, msg, sizeof(msg));
	struct profile_meta m;

	if (!p)
		fail_msg("%s does not read back: %s", path, msg);
	m = *profile__meta(p);
	m.function_features = NULL;
	assert_int_equal(profile__set_meta(p, &m), 0);
	if (profile__save(out, p, msg, sizeof(msg)))
		fail_msg("cannot save %s: %s", out, msg);
	profile__free(p);
}

void mx_tally_profile(struct mx_tally *t, const char *path, uint64_t *period_ns)
{
	char msg[512];
	struct profile *p = profile__load(path, msg, sizeof(msg));
	const struct attrib_feature *f;
	struct attrib *a;

	mx_tally_init(t,
		      MX_TOTAL | MX_SUM | MX_UNCHARGED | MX_INSTANCES | MX_SAMPLES | MX_NATIVE |
			      MX_NATIVE_TOTAL | MX_OFFCPU | MX_CALLS,
		      "the model of %s", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	if (!mx_check(p != NULL, "%s does not read back: %s", path, msg))
		return;
	apply_rules(p);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	t->total = attrib__total_samples(a);
	t->uncharged = attrib__uncharged_samples(a);
	t->sum = t->uncharged;
	for (size_t i = 0; i < attrib__nr_features(a); i++) {
		f = attrib__feature(a, i);
		t->sum += f->samples;
		mx_row(t, f->name, NULL)->point = f->events && f->events->point;
		for (size_t j = 0; j < f->nr_instances; j++) {
			const struct attrib_instance *in = &f->instances[j];

			mx_charge(t, f->name, in->name, in->samples, 0, in->offcpu_ns,
				  in->events ? in->events->enters : 0);
		}
	}
	tally_native(t, p);
	/* a sample has at most one native stack */
	for (size_t i = 0; i < t->nr; i++)
		mx_check(t->rows[i].native <= t->rows[i].samples,
			 "%s: %s%s%s has %" PRIu64 " samples with a native stack of %" PRIu64,
			 t->what, t->rows[i].feature, t->rows[i].instance ? " " : "",
			 t->rows[i].instance ? t->rows[i].instance : "", t->rows[i].native,
			 t->rows[i].samples);
	mx_check(t->native_total <= t->total,
		 "%s: %" PRIu64 " samples with a native stack of %" PRIu64, t->what,
		 t->native_total, t->total);
	if (period_ns)
		*period_ns = profile__meta(p)->period_ns;
	attrib__free(a);
	profile__free(p);
}

void mx_check_diagnostics(const char *path, const char *const *allowed)
{
	char msg[512];
	struct profile *p = profile__load(path, msg, sizeof(msg));

	if (!mx_check(p != NULL, "%s does not read back: %s", path, msg))
		return;
	for (int d = 0; d < DIAG__COUNT; d++) {
		const char *name = profile_diag__name(d);
		bool ok = !profile__diag(p, d);

		for (size_t i = 0; allowed && allowed[i] && !ok; i++)
			ok = !strcmp(allowed[i], name);
		mx_check(ok, "diagnostics: %s is %" PRIu64 " in a clean run", name,
			 profile__diag(p, d));
	}
	profile__free(p);
}
