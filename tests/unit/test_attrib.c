// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the attribution rule (analysis/model/attrib.c). */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "attrib.h"
#include "profile_io.h"
#include "report.h"
#include "test_seed.h"
#include "unit_helpers.h"

static int setup(void **state)
{
	*state = profile__new();
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	profile__free(*state);
	return 0;
}

static const struct attrib_feature *find_feature(const struct attrib *a, const char *name)
{
	const struct attrib_feature *f;
	size_t i;

	for (i = 0; i < attrib__nr_features(a); i++) {
		f = attrib__feature(a, i);
		if (!strcmp(f->name, name))
			return f;
	}
	return NULL;
}

static uint64_t feature_samples(const struct attrib *a, const char *name)
{
	const struct attrib_feature *f = find_feature(a, name);

	return f ? f->samples : 0;
}

/* Samples of instance `inst` of feature `name`; UINT64_MAX if absent. */
static uint64_t instance_samples(const struct attrib *a, const char *name, const char *inst)
{
	const struct attrib_feature *f = find_feature(a, name);
	size_t i;

	if (!f)
		return UINT64_MAX;
	for (i = 0; i < f->nr_instances; i++)
		if (!strcmp(f->instances[i].name, inst))
			return f->instances[i].samples;
	return UINT64_MAX;
}

/* Every feature's samples equal the sum of its instances', names are unique. */
static void check_invariants(const struct attrib *a)
{
	const struct attrib_feature *f, *g;
	uint64_t sum;
	size_t i, j, k;

	for (i = 0; i < attrib__nr_features(a); i++) {
		f = attrib__feature(a, i);
		assert_true(f->samples > 0);
		assert_true(f->samples <= attrib__total_samples(a));
		sum = 0;
		for (j = 0; j < f->nr_instances; j++) {
			sum += f->instances[j].samples;
			for (k = 0; k < j; k++)
				assert_string_not_equal(f->instances[j].name, f->instances[k].name);
		}
		assert_int_equal(sum, f->samples);
		for (k = 0; k < i; k++) {
			g = attrib__feature(a, k);
			assert_string_not_equal(f->name, g->name);
		}
	}
	assert_true(attrib__uncharged_samples(a) <= attrib__total_samples(a));
}

static struct attrib *compute(const struct profile *p, const struct attrib_opts *o)
{
	struct attrib *a = attrib__compute(p, o);

	assert_non_null(a);
	check_invariants(a);
	return a;
}

static void test_null_and_empty(void **state)
{
	struct profile *p = *state;
	struct attrib *a;

	attrib__free(NULL);
	assert_int_equal(attrib__total_samples(NULL), 0);
	assert_int_equal(attrib__uncharged_samples(NULL), 0);
	assert_int_equal(attrib__nr_features(NULL), 0);
	assert_null(attrib__feature(NULL, 0));

	a = compute(p, NULL);
	assert_int_equal(attrib__total_samples(a), 0);
	assert_int_equal(attrib__uncharged_samples(a), 0);
	assert_int_equal(attrib__nr_features(a), 0);
	assert_null(attrib__feature(a, 0));
	attrib__free(a);
}

static void test_single_mark(void **state)
{
	struct profile *p = *state;
	const struct attrib_feature *f;
	struct attrib *a;

	ADD_STACK(p, 1, 1, MARK("Output", "fizzbuzz.c:8"));
	ADD_SAMPLES(p, 1, 1, 1, 30);
	ADD_SAMPLES(p, 1, 1, 0, 10);
	a = compute(p, NULL);
	assert_int_equal(attrib__total_samples(a), 40);
	assert_int_equal(attrib__uncharged_samples(a), 10);
	assert_int_equal(attrib__nr_features(a), 1);
	f = attrib__feature(a, 0);
	assert_string_equal(f->name, "Output");
	assert_int_equal(f->samples, 30);
	assert_int_equal(f->nr_instances, 1);
	assert_string_equal(f->instances[0].name, "fizzbuzz.c:8");
	assert_int_equal(f->instances[0].samples, 30);
	assert_null(attrib__feature(a, 1));
	attrib__free(a);
}

static void test_nesting_different_features(void **state)
{
	struct profile *p = *state;
	struct attrib *a;

	/* contract check inside output inside a sequence: all three charged */
	ADD_STACK(p, 1, 1, MARK("Sequences", "s1"), MARK("Output", "o1"), MARK("Contracts", "c1"));
	ADD_STACK(p, 1, 2, MARK("Sequences", "s1"), MARK("Output", "o1"));
	ADD_SAMPLES(p, 1, 1, 1, 7);
	ADD_SAMPLES(p, 1, 1, 2, 3);
	a = compute(p, NULL);
	assert_int_equal(attrib__total_samples(a), 10);
	assert_int_equal(attrib__uncharged_samples(a), 0);
	assert_int_equal(attrib__nr_features(a), 3);
	assert_int_equal(feature_samples(a, "Sequences"), 10);
	assert_int_equal(feature_samples(a, "Output"), 10);
	assert_int_equal(feature_samples(a, "Contracts"), 7);
	assert_int_equal(instance_samples(a, "Contracts", "c1"), 7);
	/* sum over features exceeds the total: the independence of features */
	assert_string_equal(attrib__feature(a, 2)->name, "Contracts");
	attrib__free(a);
}

static void test_antimark_same_feature(void **state)
{
	struct profile *p = *state;
	struct attrib *a;

	/* a loop's body is under an antimark: the loop is not charged */
	ADD_STACK(p, 1, 1, MARK("Loops", "for:1"), ANTI("Loops"));
	/* ... but a nested loop inside the body is, to its own instance */
	ADD_STACK(p, 1, 2, MARK("Loops", "for:1"), ANTI("Loops"), MARK("Loops", "for:2"));
	/* ... and the body of the nested loop again is not */
	ADD_STACK(p, 1, 3, MARK("Loops", "for:1"), ANTI("Loops"), MARK("Loops", "for:2"),
		  ANTI("Loops"));
	ADD_SAMPLES(p, 1, 1, 1, 100);
	ADD_SAMPLES(p, 1, 1, 2, 20);
	ADD_SAMPLES(p, 1, 1, 3, 4);
	a = compute(p, NULL);
	assert_int_equal(attrib__total_samples(a), 124);
	assert_int_equal(attrib__uncharged_samples(a), 104);
	assert_int_equal(attrib__nr_features(a), 1);
	assert_int_equal(feature_samples(a, "Loops"), 20);
	assert_int_equal(instance_samples(a, "Loops", "for:2"), 20);
	assert_int_equal(instance_samples(a, "Loops", "for:1"), UINT64_MAX);
	attrib__free(a);
}

static void test_antimark_other_feature(void **state)
{
	struct profile *p = *state;
	struct attrib *a;

	/* an antimark of F does not affect G, below or above it */
	ADD_STACK(p, 1, 1, MARK("G", "g1"), MARK("F", "f1"), ANTI("F"));
	ADD_STACK(p, 1, 2, MARK("F", "f1"), ANTI("F"), MARK("G", "g2"));
	ADD_STACK(p, 1, 3, MARK("F", "f1"), ANTI("G"));
	ADD_SAMPLES(p, 1, 1, 1, 5);
	ADD_SAMPLES(p, 1, 1, 2, 6);
	ADD_SAMPLES(p, 1, 1, 3, 7);
	a = compute(p, NULL);
	assert_int_equal(attrib__total_samples(a), 18);
	assert_int_equal(attrib__uncharged_samples(a), 0);
	assert_int_equal(feature_samples(a, "F"), 7);
	assert_int_equal(instance_samples(a, "F", "f1"), 7);
	assert_int_equal(feature_samples(a, "G"), 11);
	assert_int_equal(instance_samples(a, "G", "g1"), 5);
	assert_int_equal(instance_samples(a, "G", "g2"), 6);
	attrib__free(a);
}

static void test_mark_above_antimark(void **state)
{
	struct profile *p = *state;
	struct attrib *a;

	/* user code called back from a feature calls the feature again */
	ADD_STACK(p, 1, 1, MARK("Kw", "call:1"), ANTI("Kw"), MARK("Other", "x"),
		  MARK("Kw", "call:2"));
	/* only antimarks: seen but never charged, so not listed */
	ADD_STACK(p, 1, 2, ANTI("Kw"), ANTI("Quiet"));
	ADD_SAMPLES(p, 1, 1, 1, 9);
	ADD_SAMPLES(p, 1, 1, 2, 1);
	a = compute(p, NULL);
	assert_int_equal(attrib__nr_features(a), 2);
	assert_int_equal(instance_samples(a, "Kw", "call:2"), 9);
	assert_int_equal(instance_samples(a, "Kw", "call:1"), UINT64_MAX);
	assert_int_equal(feature_samples(a, "Other"), 9);
	assert_null(find_feature(a, "Quiet"));
	assert_int_equal(attrib__uncharged_samples(a), 1);
	attrib__free(a);
}

static void test_same_feature_nesting(void **state)
{
	struct profile *p = *state;
	struct attrib *a;

	/* a contract checked inside another: the inner one is charged, once */
	ADD_STACK(p, 1, 1, MARK("Contracts", "outer"), MARK("Contracts", "inner"));
	ADD_STACK(p, 1, 2, MARK("Contracts", "outer"));
	/* recursion through the same instance is not double-counted either */
	ADD_STACK(p, 1, 3, MARK("Contracts", "rec"), MARK("Contracts", "rec"),
		  MARK("Contracts", "rec"));
	ADD_SAMPLES(p, 1, 1, 1, 8);
	ADD_SAMPLES(p, 1, 1, 2, 2);
	ADD_SAMPLES(p, 1, 1, 3, 5);
	a = compute(p, NULL);
	assert_int_equal(attrib__total_samples(a), 15);
	assert_int_equal(feature_samples(a, "Contracts"), 15);
	assert_int_equal(instance_samples(a, "Contracts", "inner"), 8);
	assert_int_equal(instance_samples(a, "Contracts", "outer"), 2);
	assert_int_equal(instance_samples(a, "Contracts", "rec"), 5);
	assert_int_equal(attrib__feature(a, 0)->nr_instances, 3);
	attrib__free(a);
}

static void test_several_features_one_sample(void **state)
{
	struct profile *p = *state;
	struct attrib *a;

	ADD_STACK(p, 1, 1, MARK("A", "a1"), MARK("B", "b1"), MARK("A", "a2"), ANTI("B"),
		  MARK("C", "c1"), MARK("D", "d1"), ANTI("D"));
	ADD_SAMPLES(p, 1, 1, 1, 3);
	a = compute(p, NULL);
	assert_int_equal(attrib__nr_features(a), 2);
	assert_int_equal(instance_samples(a, "A", "a2"), 3);
	assert_int_equal(instance_samples(a, "C", "c1"), 3);
	assert_null(find_feature(a, "B"));
	assert_null(find_feature(a, "D"));
	assert_int_equal(attrib__uncharged_samples(a), 0);
	attrib__free(a);
}

static void test_empty_and_unknown_stacks(void **state)
{
	struct profile *p = *state;
	struct attrib *a;

	ADD_STACK(p, 1, 1, MARK("F", "f"));
	ADD_STACK(p, 1, 2, ANTI("F"));
	assert_int_equal(profile__add_stack(p, 1, 3, NULL, 0), 0); /* depth 0 */
	ADD_SAMPLES(p, 1, 1, 0, 11);
	ADD_SAMPLES(p, 1, 1, 1, 1);
	ADD_SAMPLES(p, 1, 1, 2, 100);
	ADD_SAMPLES(p, 1, 2, 3, 1000);
	assert_int_equal(profile__add_samples(p, 1, 1, 0xdead, 10000), -ENOENT);
	/* key 1 is registered for pid 1 only */
	assert_int_equal(profile__add_samples(p, 2, 2, 1, 100000), -ENOENT);
	a = compute(p, NULL);
	assert_int_equal(attrib__total_samples(a), 111112);
	assert_int_equal(attrib__uncharged_samples(a), 111111);
	assert_int_equal(feature_samples(a, "F"), 1);
	attrib__free(a);
}

static void test_threads_and_pids(void **state)
{
	struct profile *p = *state;
	struct attrib_opts o = {};
	struct attrib *a;

	/* the same key means different stacks in different processes */
	ADD_STACK(p, 100, 7, MARK("F", "f-in-100"));
	ADD_STACK(p, 200, 7, MARK("G", "g-in-200"));
	ADD_SAMPLES(p, 100, 100, 7, 1);
	ADD_SAMPLES(p, 100, 101, 7, 2);
	ADD_SAMPLES(p, 100, 101, 0, 4);
	ADD_SAMPLES(p, 200, 200, 7, 8);
	ADD_SAMPLES(p, 200, 101, 7, 16); /* tid 101 exists in both pids (tests only) */
	ADD_SAMPLES(p, 200, 201, 0, 32);

	a = compute(p, NULL);
	assert_int_equal(attrib__total_samples(a), 63);
	assert_int_equal(attrib__uncharged_samples(a), 36);
	assert_int_equal(instance_samples(a, "F", "f-in-100"), 3);
	assert_int_equal(instance_samples(a, "G", "g-in-200"), 24);
	attrib__free(a);

	o.pid = 100;
	a = compute(p, &o);
	assert_int_equal(attrib__total_samples(a), 7);
	assert_int_equal(attrib__uncharged_samples(a), 4);
	assert_int_equal(attrib__nr_features(a), 1);
	assert_int_equal(feature_samples(a, "F"), 3);
	attrib__free(a);

	o.pid = 0;
	o.tid = 101;
	a = compute(p, &o);
	assert_int_equal(attrib__total_samples(a), 22);
	assert_int_equal(attrib__uncharged_samples(a), 4);
	assert_int_equal(feature_samples(a, "F"), 2);
	assert_int_equal(feature_samples(a, "G"), 16);
	attrib__free(a);

	o.pid = 200;
	o.tid = 101;
	a = compute(p, &o);
	assert_int_equal(attrib__total_samples(a), 16);
	assert_int_equal(attrib__uncharged_samples(a), 0);
	assert_int_equal(attrib__nr_features(a), 1);
	assert_int_equal(feature_samples(a, "G"), 16);
	attrib__free(a);

	o.pid = 300;
	o.tid = 0;
	a = compute(p, &o);
	assert_int_equal(attrib__total_samples(a), 0);
	assert_int_equal(attrib__nr_features(a), 0);
	attrib__free(a);

	/* zeroed options select everything */
	o.pid = 0;
	a = compute(p, &o);
	assert_int_equal(attrib__total_samples(a), 63);
	attrib__free(a);
}

static void test_null_instance(void **state)
{
	struct profile *p = *state;
	const struct attrib_feature *f;
	struct attrib *a;

	ADD_STACK(p, 1, 1, MARK("GC", NULL));
	ADD_STACK(p, 1, 2, MARK("GC", "major"));
	/* a label spelled like the NULL label is the same instance */
	ADD_STACK(p, 1, 3, MARK("GC", ATTRIB_NO_INSTANCE));
	ADD_SAMPLES(p, 1, 1, 1, 5);
	ADD_SAMPLES(p, 1, 1, 2, 4);
	ADD_SAMPLES(p, 1, 1, 3, 1);
	a = compute(p, NULL);
	f = find_feature(a, "GC");
	assert_non_null(f);
	assert_int_equal(f->samples, 10);
	assert_int_equal(f->nr_instances, 2);
	assert_string_equal(f->instances[0].name, "(no instance)");
	assert_int_equal(f->instances[0].samples, 6);
	assert_string_equal(f->instances[1].name, "major");
	attrib__free(a);
}

static void test_same_name_different_pointers(void **state)
{
	struct profile *p = *state;
	char *f1 = test_strdup("Output"), *f2 = test_strdup("Output"), *f3 = test_strdup("Output");
	char *i1 = test_strdup("x.c:1"), *i2 = test_strdup("x.c:1");
	const struct attrib_feature *f;
	struct attrib *a;

	/* as if the labels came from different processes or libraries */
	ADD_STACK(p, 1, 1, MARK(f1, i1));
	ADD_STACK(p, 2, 1, MARK(f2, i2));
	/* the antimark of a differently-allocated name still masks the mark */
	ADD_STACK(p, 1, 2, MARK(f1, i1), ANTI(f3));
	ADD_SAMPLES(p, 1, 1, 1, 3);
	ADD_SAMPLES(p, 2, 2, 1, 4);
	ADD_SAMPLES(p, 1, 1, 2, 50);
	free(f1);
	free(f2);
	free(f3);
	free(i1);
	free(i2);
	a = compute(p, NULL);
	assert_int_equal(attrib__nr_features(a), 1);
	f = attrib__feature(a, 0);
	assert_string_equal(f->name, "Output");
	assert_int_equal(f->samples, 7);
	assert_int_equal(f->nr_instances, 1);
	assert_int_equal(f->instances[0].samples, 7);
	assert_int_equal(attrib__uncharged_samples(a), 50);
	attrib__free(a);
}

static void test_sort_order(void **state)
{
	struct profile *p = *state;
	const struct attrib_feature *f;
	struct attrib *a;
	size_t i;

	/* features: ties on samples are broken by name */
	ADD_STACK(p, 1, 1, MARK("beta", "z"));
	ADD_STACK(p, 1, 2, MARK("alpha", "b"));
	ADD_STACK(p, 1, 3, MARK("alpha", "a"));
	ADD_STACK(p, 1, 4, MARK("gamma", "q"));
	ADD_STACK(p, 1, 5, MARK("Alpha", "c"));
	ADD_STACK(p, 1, 6, MARK("delta", "m"), MARK("delta", "k"));
	ADD_SAMPLES(p, 1, 1, 1, 10);
	ADD_SAMPLES(p, 1, 1, 2, 5);
	ADD_SAMPLES(p, 1, 1, 3, 5);
	ADD_SAMPLES(p, 1, 1, 4, 30);
	ADD_SAMPLES(p, 1, 1, 5, 10);
	ADD_SAMPLES(p, 1, 1, 6, 1);
	ADD_SAMPLES(p, 1, 2, 6, 1);
	a = compute(p, NULL);
	{
		static const char *const names[] = {"gamma", "Alpha", "alpha", "beta", "delta"};
		static const uint64_t samples[] = {30, 10, 10, 10, 2};

		assert_int_equal(attrib__nr_features(a), 5);
		for (i = 0; i < 5; i++) {
			f = attrib__feature(a, i);
			assert_string_equal(f->name, names[i]);
			assert_int_equal(f->samples, samples[i]);
		}
	}
	f = find_feature(a, "alpha");
	assert_int_equal(f->nr_instances, 2);
	assert_string_equal(f->instances[0].name, "a");
	assert_string_equal(f->instances[1].name, "b");
	f = find_feature(a, "delta");
	assert_int_equal(f->nr_instances, 1);
	assert_string_equal(f->instances[0].name, "k");
	attrib__free(a);
}

static void test_sort_instances_by_samples(void **state)
{
	struct profile *p = *state;
	const struct attrib_feature *f;
	char inst[16];
	struct attrib *a;
	uint64_t k;

	/* registered in increasing cost; listed in decreasing */
	for (k = 1; k <= 50; k++) {
		struct profile_frame fr;

		snprintf(inst, sizeof(inst), "i%02u", (unsigned int)k);
		fr = MARK("F", inst);
		assert_int_equal(profile__add_stack(p, 1, k, &fr, 1), 0);
		ADD_SAMPLES(p, 1, 1, k, k * 1000000000ULL); /* large counts: no int overflow */
	}
	a = compute(p, NULL);
	f = attrib__feature(a, 0);
	assert_int_equal(f->nr_instances, 50);
	for (k = 0; k < 50; k++) {
		snprintf(inst, sizeof(inst), "i%02u", (unsigned int)(50 - k));
		assert_string_equal(f->instances[k].name, inst);
	}
	assert_int_equal(f->samples, 1275ULL * 1000000000ULL);
	attrib__free(a);
}

/* ---- the rule against a straightforward reference implementation ---------- */

struct ref_cost {
	char feature[8];
	char instance[16];
	uint64_t samples;
};

static struct ref_cost ref[64];
static size_t nr_ref;

static void ref_charge(const char *feature, const char *instance, uint64_t n)
{
	size_t i;

	for (i = 0; i < nr_ref; i++)
		if (!strcmp(ref[i].feature, feature) && !strcmp(ref[i].instance, instance))
			break;
	if (i == nr_ref) {
		assert_true(nr_ref < 64);
		snprintf(ref[i].feature, sizeof(ref[i].feature), "%s", feature);
		snprintf(ref[i].instance, sizeof(ref[i].instance), "%s", instance);
		ref[i].samples = 0;
		nr_ref++;
	}
	ref[i].samples += n;
}

/* Literally the rule: for each frame, is it the top-most frame of its feature? */
static int ref_stack(const struct profile_frame *fr, size_t depth, uint64_t n)
{
	int charged = 0;
	size_t i, j;

	for (i = 0; i < depth; i++) {
		int topmost = 1;

		for (j = i + 1; j < depth; j++)
			if (!strcmp(fr[j].feature, fr[i].feature))
				topmost = 0;
		if (topmost && fr[i].kind == PROFILE_MARK) {
			ref_charge(fr[i].feature, fr[i].instance ? fr[i].instance : "(no instance)",
				   n);
			charged = 1;
		}
	}
	return charged;
}

static void test_random_against_reference(void **state)
{
	static const char *const features[] = {"A", "B", "C", "D"};
	static const char *const instances[] = {"1", "2", "3", NULL};
	struct profile *p = *state;
	uint64_t uncharged = 0, total = 0, sum;
	struct attrib *a;
	unsigned int seed = (unsigned int)test_seed("test_random_against_reference");
	size_t i, j, k;

	nr_ref = 0;
	for (k = 1; k <= 3000; k++) {
		struct profile_frame fr[12];
		char names[12][2];
		size_t depth = rand_r(&seed) % 12;
		uint64_t n = 1 + rand_r(&seed) % 9;
		uint32_t tid = 1 + rand_r(&seed) % 4;

		for (j = 0; j < depth; j++) {
			/* a fresh buffer per frame: unification by name */
			snprintf(names[j], sizeof(names[j]), "%s", features[rand_r(&seed) % 4]);
			if (rand_r(&seed) % 3)
				fr[j] = MARK(names[j], instances[rand_r(&seed) % 4]);
			else
				fr[j] = ANTI(names[j]);
		}
		if (depth) {
			assert_int_equal(profile__add_stack(p, 1, k, fr, depth), 0);
			ADD_SAMPLES(p, 1, tid, k, n);
		} else {
			ADD_SAMPLES(p, 1, tid, 0, n);
		}
		total += n;
		if (!ref_stack(fr, depth, n))
			uncharged += n;
	}
	a = compute(p, NULL);
	assert_int_equal(attrib__total_samples(a), total);
	assert_int_equal(attrib__uncharged_samples(a), uncharged);
	sum = 0;
	for (i = 0; i < nr_ref; i++) {
		assert_int_equal(instance_samples(a, ref[i].feature, ref[i].instance),
				 ref[i].samples);
		sum += ref[i].samples;
	}
	for (i = 0; i < attrib__nr_features(a); i++) {
		const struct attrib_feature *f = attrib__feature(a, i);

		sum -= f->samples;
		if (i)
			assert_true(attrib__feature(a, i - 1)->samples >= f->samples);
		for (j = 1; j < f->nr_instances; j++)
			assert_true(f->instances[j - 1].samples >= f->instances[j].samples);
	}
	assert_int_equal(sum, 0); /* nothing charged beyond the reference */
	attrib__free(a);
}

/* ---- scale ------------------------------------------------------------------ */

static void test_scale(void **state)
{
	struct profile *p = *state;
	char feat[8][16], inst[64][16];
	struct report_opts ro = {.min_pct = 0};
	uint64_t sum = 0;
	struct attrib *a;
	FILE *devnull;
	size_t i, j;

	/* Correctness at scale only: how fast this runs is measured by make
	 * bench (bench/files.sh), not asserted in a unit test. */
	for (i = 0; i < 8; i++)
		snprintf(feat[i], sizeof(feat[i]), "feature-%zu", i);
	for (i = 0; i < 64; i++)
		snprintf(inst[i], sizeof(inst[i]), "file.c:%zu", i);
	/* 100k distinct stacks, 10 threads each: 1M core samples (5.5M samples) */
	for (i = 0; i < 100000; i++) {
		struct profile_frame fr[5];
		size_t depth = 1 + i % 5;

		for (j = 0; j < depth; j++) {
			size_t h = (i * 2654435761u + j * 40503u) >> 7;

			fr[j] = (h & 3) ? MARK(feat[h % 8], inst[(h >> 3) % 64])
					: ANTI(feat[h % 8]);
		}
		assert_int_equal(profile__add_stack(p, 1, i + 1, fr, depth), 0);
		for (j = 0; j < 10; j++)
			ADD_SAMPLES(p, 1, 1000 + j, i + 1, 1 + j);
	}
	assert_int_equal(profile__nr_samples(p), 1000000);

	a = attrib__compute(p, NULL);
	assert_non_null(a);
	devnull = fopen("/dev/null", "w");
	assert_non_null(devnull);
	assert_int_equal(report__text(devnull, p, a, &ro), 0);
	assert_int_equal(profile__write_json(devnull, p), 0);
	fclose(devnull);

	assert_int_equal(attrib__total_samples(a), 100000ULL * 55);
	check_invariants(a);
	for (i = 0; i < attrib__nr_features(a); i++)
		sum += attrib__feature(a, i)->samples;
	assert_true(sum > 0);
	attrib__free(a);
}

/* Off-CPU time follows the attribution rule of samples, stack by stack. */
static void test_offcpu(void **state)
{
	struct profile *p = *state;
	struct profile_frame outer[] = {
		{.kind = PROFILE_MARK, .feature = "output", .instance = "pipe"},
		{.kind = PROFILE_ANTIMARK, .feature = "output"},
		{.kind = PROFILE_MARK, .feature = "lock", .instance = "mu"},
	};
	const struct attrib_feature *f;
	struct attrib *a;

	assert_int_equal(profile__add_stack(p, 1, 10, outer, 1), 0);
	assert_int_equal(profile__add_stack(p, 1, 11, outer, 3), 0);
	assert_int_equal(profile__add_offcpu(p, 1, 1, 10, 5000), 0);
	assert_int_equal(profile__add_offcpu(p, 1, 1, 11, 700), 0);
	assert_int_equal(profile__add_offcpu(p, 1, 1, 0, 30), 0);
	assert_int_equal(profile__add_offcpu(p, 1, 1, 99, 1), -ENOENT);
	assert_int_equal(profile__add_offcpu(NULL, 1, 1, 0, 1), -EINVAL);
	assert_int_equal(profile__add_samples(p, 1, 1, 10, 2), 0);
	assert_int_equal(profile__total_offcpu_ns(p), 5731);
	assert_int_equal(profile__total_samples(p), 2);

	a = attrib__compute(p, NULL);
	assert_non_null(a);
	assert_int_equal(attrib__total_offcpu_ns(a), 5731);
	/* the empty stack's 30 and the unknown stack's 1 are charged to nothing */
	assert_int_equal(attrib__uncharged_offcpu_ns(a), 31);
	f = find_feature(a, "output");
	assert_non_null(f);
	assert_int_equal(f->offcpu_ns, 5000); /* not the 700 under its antimark */
	assert_int_equal(f->samples, 2);
	f = find_feature(a, "lock");
	assert_non_null(f); /* charged off-CPU time only: still listed */
	assert_int_equal(f->samples, 0);
	assert_int_equal(f->offcpu_ns, 700);
	assert_int_equal(f->instances[0].offcpu_ns, 700);
	attrib__free(a);
}

/* The event view: per-process stats summed per feature and instance, shown
 * even for features no sample hit; max is a max, the histogram adds up. */
static void test_events(void **state)
{
	struct profile *p = *state;
	struct profile_event_stats e1 = {.enters = 3, .leaves = 2, .total_ns = 300, .max_ns = 200};
	struct profile_event_stats e2 = {.enters = 5, .leaves = 5, .total_ns = 50, .max_ns = 20};
	struct profile_event_stats e3 = {.enters = 1, .leaves = 1, .total_ns = 9, .max_ns = 9};
	struct attrib_opts only2 = {.pid = 2};
	const struct attrib_feature *f;
	struct profile_event ev;
	struct attrib *a;

	e1.hist[profile_hist_bucket(100)] = 1;
	e1.hist[profile_hist_bucket(200)] = 1;
	e2.hist[profile_hist_bucket(10)] = 5;
	e3.hist[profile_hist_bucket(9)] = 1;
	assert_int_equal(profile_hist_bucket(0), 0);
	assert_int_equal(profile_hist_bucket(1), 0);
	assert_int_equal(profile_hist_bucket(2), 1);
	assert_int_equal(profile_hist_bucket(1023), 9);
	assert_int_equal(profile_hist_bucket(1024), 10);
	assert_int_equal(profile_hist_bucket(UINT64_MAX), PROFILE_HIST_BUCKETS - 1);

	assert_int_equal(profile__add_events(p, 1, "short", "a", &e1), 0);
	assert_int_equal(profile__add_events(p, 2, "short", "a", &e2), 0);
	assert_int_equal(profile__add_events(p, 2, "short", NULL, &e3), 0);
	assert_int_equal(profile__add_events(p, 1, "short", "a", &e3), 0); /* accumulates */
	assert_int_equal(profile__add_events(p, 1, NULL, "a", &e3), -EINVAL);
	assert_int_equal(profile__nr_events(p), 3);
	assert_int_equal(profile__event(p, 0, &ev), 0);
	assert_int_equal(ev.stats->enters, 4);
	assert_int_equal(ev.stats->max_ns, 200);
	assert_int_equal(profile__event(p, 3, &ev), -EINVAL);

	a = attrib__compute(p, NULL);
	assert_non_null(a);
	assert_int_equal(attrib__total_samples(a), 0);
	f = find_feature(a, "short");
	assert_non_null(f);
	assert_non_null(f->events);
	assert_int_equal(f->events->enters, 10);
	assert_int_equal(f->events->leaves, 9);
	assert_int_equal(f->events->total_ns, 368);
	assert_int_equal(f->events->max_ns, 200);
	assert_int_equal(f->events->hist[profile_hist_bucket(10)],
			 7); /* 10 ns and 9 ns share a bucket */
	assert_int_equal(f->nr_instances, 2);
	for (size_t i = 0; i < f->nr_instances; i++) {
		const struct attrib_instance *in = &f->instances[i];

		if (!strcmp(in->name, "a"))
			assert_int_equal(in->events->enters, 9);
		else
			assert_string_equal(in->name, ATTRIB_NO_INSTANCE);
	}
	attrib__free(a);

	a = attrib__compute(p, &only2);
	assert_non_null(a);
	f = find_feature(a, "short");
	assert_non_null(f);
	assert_int_equal(f->events->enters, 6);
	attrib__free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_null_and_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_single_mark, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nesting_different_features, setup, teardown),
		cmocka_unit_test_setup_teardown(test_antimark_same_feature, setup, teardown),
		cmocka_unit_test_setup_teardown(test_antimark_other_feature, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mark_above_antimark, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_feature_nesting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_several_features_one_sample, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_and_unknown_stacks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_and_pids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_null_instance, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_name_different_pointers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sort_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sort_instances_by_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_random_against_reference, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_offcpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_events, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
