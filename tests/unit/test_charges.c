// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the attribution rule in one place (analysis/model/charges.c):
 * the charges of a stack for every frame kind (mark, antimark, a mark of
 * another thread, nested marks of one feature and of different features, no
 * instance), and that everything that charges samples agrees on them: the
 * attribution and the text report, the plug-in host's charges, the built-in
 * plug-ins, and a plug-in shared object built against this fsp-plugin.h and
 * the same built against the first header of ABI version 1
 * (tests/unit/plugins/charge_totals.c), which knows no charges and no marks
 * of other threads.
 */
#include <errno.h>
#include <stdio.h>

#include "attrib.h"
#include "charges.h"
#include "plugin_helpers.h"
#include "plugin_int.h"
#include "render_fixture.h"
#include "report.h"

#ifndef FSP_TEST_PLUGINS
#error "FSP_TEST_PLUGINS: the folder of the test plug-ins (Makefile)"
#endif

#define PID KINDS_PID

/* ---- the charges of one stack ------------------------------------------------ */

/* charges__stack of frames[0..n) must be want[0..nw) (instance "" for the
 * name of no instance). */
static void check_stack(const struct profile_frame *frames, size_t n, const struct charge *want,
			size_t nw)
{
	struct charge got[8];

	assert_true(n <= 8);
	assert_int_equal(charges__stack(frames, n, got), nw);
	for (size_t i = 0; i < nw; i++) {
		assert_string_equal(got[i].feature, want[i].feature);
		assert_string_equal(got[i].instance, want[i].instance);
		assert_int_equal(got[i].frame, want[i].frame);
		assert_int_equal(got[i].why, want[i].why);
	}
}

#define CHECK(frames, ...)                                                                         \
	do {                                                                                       \
		const struct charge want_[] = {__VA_ARGS__};                                       \
		check_stack((frames), sizeof(frames) / sizeof((frames)[0]), want_,                 \
			    sizeof(want_) / sizeof(want_[0]));                                     \
	} while (0)

static void test_stack_kinds(void **state)
{
	/* features by name: equal names are equal pointers in a profile */
	static const char F[] = "F", G[] = "G";
	const struct profile_frame mark[] = {MARK(F, "a")};
	const struct profile_frame anti[] = {MARK(F, "a"), ANTI(F)};
	const struct profile_frame other[] = {MARK(G, "g"), OTHER(F, "b")};
	const struct profile_frame same[] = {MARK(F, "a"), MARK(F, "b")};
	const struct profile_frame diff[] = {MARK(F, "a"), MARK(G, "g")};
	const struct profile_frame none[] = {MARK(F, NULL)};
	const struct profile_frame label[] = {MARK(F, ATTRIB_NO_INSTANCE)};
	const struct profile_frame above[] = {MARK(F, "a"), ANTI(F), OTHER(F, "c")};
	const struct profile_frame outer[] = {MARK(F, "a"), ANTI(G), MARK(G, "g"), ANTI(G)};

	(void)state;
	CHECK(mark, {F, "a", 0, CHARGE_MARK});
	CHECK(other, {F, "b", 1, CHARGE_OTHER_THREAD}, {G, "g", 0, CHARGE_MARK});
	CHECK(same, {F, "b", 1, CHARGE_MARK});
	CHECK(diff, {G, "g", 1, CHARGE_MARK}, {F, "a", 0, CHARGE_MARK});
	CHECK(none, {F, ATTRIB_NO_INSTANCE, 0, CHARGE_MARK});
	CHECK(label, {F, ATTRIB_NO_INSTANCE, 0, CHARGE_MARK});
	CHECK(above, {F, "c", 2, CHARGE_OTHER_THREAD});
	/* G's top-most frame is an antimark: F alone, from below it */
	CHECK(outer, {F, "a", 0, CHARGE_MARK});
	/* an antimark alone charges nothing; nor does the empty stack */
	assert_int_equal(charges__stack(anti, 2, (struct charge[2]){}), 0);
	assert_int_equal(charges__stack(anti + 1, 1, (struct charge[1]){}), 0);
	assert_int_equal(charges__stack(NULL, 0, NULL), 0);
}

/* ---- one profile of every frame kind (render_fixture.h) ---------------------------- */

static int setup_kinds(void **state)
{
	*state = kinds_profile();
	return 0;
}

/* The attribution's samples of feature f (instance i, NULL: the feature's). */
static uint64_t attrib_samples(const struct attrib *a, const char *f, const char *i)
{
	for (size_t k = 0; k < attrib__nr_features(a); k++) {
		const struct attrib_feature *af = attrib__feature(a, k);

		if (strcmp(af->name, f))
			continue;
		if (!i)
			return af->samples;
		for (size_t j = 0; j < af->nr_instances; j++)
			if (!strcmp(af->instances[j].name, i))
				return af->instances[j].samples;
	}
	return 0;
}

/* The known answer, and the text report saying it. */
static void test_attrib_and_text(void **state)
{
	const struct profile *p = *state;
	struct attrib *a = attrib__compute(p, NULL);
	struct report_opts o = {.min_pct = 0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(a);
	assert_int_equal(attrib__total_samples(a), 55);
	assert_int_equal(attrib__uncharged_samples(a), 7 + 8 + 9);
	assert_int_equal(attrib__nr_features(a), 2);
	assert_int_equal(attrib_samples(a, "F", NULL), 31);
	assert_int_equal(attrib_samples(a, "F", "a"), 13);
	assert_int_equal(attrib_samples(a, "F", "b"), 9);
	assert_int_equal(attrib_samples(a, "F", "c"), 6);
	assert_int_equal(attrib_samples(a, "F", ATTRIB_NO_INSTANCE), 3);
	assert_int_equal(attrib_samples(a, "G", NULL), 8);
	assert_int_equal(attrib_samples(a, "G", "g1"), 5);
	assert_int_equal(attrib_samples(a, "G", "g2"), 3);
	assert_int_equal(attrib__feature(a, 0)->other_samples, 5 + 6);
	assert_non_null(f);
	assert_int_equal(report__text(f, p, a, &o), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "F accounts for 56.36% of running time (31.0 / 55.0 ms, 31 "
				    "samples)"));
	assert_non_null(strstr(buf, "G accounts for 14.55% of running time (8.0 / 55.0 ms, 8 "
				    "samples)"));
	free(buf);
	attrib__free(a);
}

/* The host's charges of each stack, and the frames plug-ins see. */
static void test_host_charges(void **state)
{
	const struct profile *p = *state;
	const struct fsp_plugin_host *h = &plugin_host;
	const struct fsp_plugin_charge *c;
	struct fsp_plugin_profile pp;
	struct fsp_plugin_stack st;
	size_t n, k3, k8, k6;

	assert_true(FSP_PLUGIN_HOST_HAS(h, charges));
	assert_int_equal(plugin_profile__init(&pp, p), 0);
	assert_int_equal(profile__find_stack(p, PID, 3, &k3), 0);
	assert_int_equal(profile__find_stack(p, PID, 8, &k8), 0);
	assert_int_equal(profile__find_stack(p, PID, 6, &k6), 0);
	c = h->charges(&pp, k3, &n);
	assert_int_equal(n, 2);
	assert_string_equal(c[0].feature, "F");
	assert_string_equal(c[0].instance, "b");
	assert_int_equal(c[0].frame, 1);
	assert_int_equal(c[0].why, FSP_PLUGIN_CHARGE_OTHER_THREAD);
	assert_string_equal(c[1].feature, "G");
	assert_int_equal(c[1].why, FSP_PLUGIN_CHARGE_MARK);
	/* a mark of another thread is a mark to plug-ins */
	assert_int_equal(h->stack(&pp, k3, &st), 0);
	assert_int_equal(st.frames[1].kind, FSP_PLUGIN_MARK);
	assert_int_equal(h->stack(&pp, k8, &st), 0);
	assert_int_equal(st.frames[1].kind, FSP_PLUGIN_ANTIMARK);
	assert_int_equal(st.frames[2].kind, FSP_PLUGIN_MARK);
	c = h->charges(&pp, k8, &n);
	assert_int_equal(n, 1);
	assert_int_equal(c[0].frame, 2);
	assert_int_equal(c[0].why, FSP_PLUGIN_CHARGE_OTHER_THREAD);
	/* no instance: NULL, as in the frame */
	c = h->charges(&pp, k6, &n);
	assert_int_equal(n, 1);
	assert_null(c[0].instance);
	assert_null(h->charges(&pp, FSP_PLUGIN_NO_STACK, &n));
	assert_int_equal(n, 0);
	assert_null(h->charges(&pp, 1000, &n));
	plugin_profile__fini(&pp);
}

/* ---- plug-ins ------------------------------------------------------------------ */

/* libcharge_totals's result equals the attribution, every feature and
 * instance of it. */
static void check_totals(const struct profile *p, const char *so)
{
	struct attrib *a = attrib__compute(p, NULL);
	json_object *root, *feats;
	char list[512];
	size_t nr_inst = 0;

	assert_non_null(a);
	snprintf(list, sizeof(list), "%s/%s", FSP_TEST_PLUGINS, so);
	feats = arr_of(result_of(p, list, &root), "features");
	assert_int_equal(json_object_array_length(feats), attrib__nr_features(a));
	for (size_t i = 0; i < json_object_array_length(feats); i++) {
		json_object *fe = json_object_array_get_idx(feats, i), *insts;
		const char *name = str_of(fe, "feature");

		assert_int_equal(u64_of(fe, "samples"), attrib_samples(a, name, NULL));
		insts = arr_of(fe, "instances");
		for (size_t k = 0; k < json_object_array_length(insts); k++, nr_inst++) {
			json_object *in = json_object_array_get_idx(insts, k);
			const char *inst = str_of(in, "instance");

			assert_int_equal(u64_of(in, "samples"), attrib_samples(a, name, inst));
		}
	}
	assert_int_equal(nr_inst, 4 + 2); /* F a b c (no instance), G g1 g2 */
	json_object_put(root);
	attrib__free(a);
}

/* A plug-in built against this fsp-plugin.h reads the host's charges. */
static void test_plugin_this_abi(void **state)
{
	check_totals(*state, "libcharge_totals.so");
}

/* One built against ABI 1's first header applies the rule to the frames:
 * marks of other threads are marks to it, so it charges what the report
 * charges. */
static void test_plugin_first_abi(void **state)
{
	check_totals(*state, "libcharge_totals_abi1.so");
}

/* The built-in plug-ins charge F as the report does: boundary per instance
 * (each "other": no CLIENT->SERVER label here), tasks and backtrack in all. */
static void test_builtin_plugins(void **state)
{
	const struct profile *p = *state;
	static const char *const lists[] = {"boundary=F", "tasks=F", "backtrack=F"};
	json_object *root, *res, *other;
	uint64_t none = 0;

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		res = result_of(p, lists[i], &root);
		assert_int_equal(u64_of(res, "samples"), 31);
		json_object_put(root);
	}
	other = arr_of(result_of(p, "boundary=F", &root), "other");
	assert_int_equal(json_object_array_length(other), 5);
	for (size_t i = 0; i < 5; i++) {
		json_object *in = json_object_array_get_idx(other, i);
		const char *inst = str_of(in, "instance");
		uint64_t n = u64_of(in, "samples");

		if (!inst || !strcmp(inst, ATTRIB_NO_INSTANCE))
			none += n; /* the report's one instance of no instance */
		else
			assert_int_equal(n, !strcmp(inst, "a") ? 13 : !strcmp(inst, "b") ? 9 : 6);
	}
	assert_int_equal(none, 3);
	json_object_put(root);
	res = result_of(p, "tasks=G", &root);
	assert_int_equal(u64_of(res, "samples"), 8);
	json_object_put(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stack_kinds),
		cmocka_unit_test_setup_teardown(test_attrib_and_text, setup_kinds, teardown),
		cmocka_unit_test_setup_teardown(test_host_charges, setup_kinds, teardown),
		cmocka_unit_test_setup_teardown(test_plugin_this_abi, setup_kinds, teardown),
		cmocka_unit_test_setup_teardown(test_plugin_first_abi, setup_kinds, teardown),
		cmocka_unit_test_setup_teardown(test_builtin_plugins, setup_kinds, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
