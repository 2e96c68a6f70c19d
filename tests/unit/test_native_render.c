// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the views of native stacks (record --stacks): the text
 * report's hottest functions (self and total, recursion and inlining) and
 * --function's callers and callees, folded stacks, the process filter; and
 * that attribution does not change. test_native_pprof.c: pprof and HTML.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "attrib.h"
#include "native_render_fixture.h"
#include "report.h"

static __attribute__((noinline)) char *render_text_rc(const struct profile *p,
						      const struct report_opts *o, int want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report__text(f, p, NULL, o), want);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static __attribute__((noinline)) char *render_folded(const struct profile *p,
						     const struct report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report__folded(f, p, o), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* The native stacks' section of a text report: from its heading to the
 * diagnostics. */
static char *native_part(char *text)
{
	char *b = strstr(text, "\nNative stacks:"), *d = strstr(text, "\nDiagnostics");

	assert_non_null(b);
	assert_non_null(d);
	*d = 0;
	return b + 1;
}

/* ---- text ------------------------------------------------------------------------- */

static void test_text_hottest(void **state)
{
	struct report_opts o = {.min_pct = 0};
	char *text = render_text_rc(*state, &o, 0);

	assert_string_equal(
		native_part(text),
		"Native stacks: 19 of 20 samples (95.00%) have one (14 unwound by DWARF, 5 by "
		"frame "
		"pointers; 2 truncated)\n"
		"self: samples whose innermost frame is in the function; total: samples with the "
		"function\nanywhere in their stack (once per sample); shares are of the feature's "
		"or "
		"instance's samples.\n"
		"\n"
		"plan: 19 samples, 18 with a native stack (94.74%)\n"
		"    self            total\n"
		"       5  26.32%        5  26.32%  do_syscall_64_[k]\n"
		"       4  21.05%        7  36.84%  inl_helper (app)\n"
		"       4  21.05%        4  21.05%  rec (app)\n"
		"       3  15.79%        3  15.79%  memcpy (libc.so.6)\n"
		"       2  10.53%        2  10.53%  [jit]\n"
		"  instance q1: 14 samples, 13 with a native stack (92.86%)\n"
		"      self            total\n"
		"         4  28.57%        7  50.00%  inl_helper (app)\n"
		"         4  28.57%        4  28.57%  rec (app)\n"
		"         3  21.43%        3  21.43%  memcpy (libc.so.6)\n"
		"         2  14.29%        2  14.29%  [jit]\n"
		"  instance q2: 5 samples, 5 with a native stack (100.00%)\n"
		"      self            total\n"
		"         5 100.00%        5 100.00%  do_syscall_64_[k]\n"
		"\n"
		"gc: 4 samples, 4 with a native stack (100.00%)\n"
		"    self            total\n"
		"       2  50.00%        2  50.00%  [jit]\n"
		"       2  50.00%        2  50.00%  rec (app)\n");
	free(text);
}

/* The text after the section's two-line heading. */
static const char *after_head(char *text)
{
	char *s = strstr(native_part(text), "instance's samples.\n");

	assert_non_null(s);
	return s + strlen("instance's samples.\n");
}

static void test_text_function(void **state)
{
	struct report_opts o = {.function = "main"};
	char *text = render_text_rc(*state, &o, 0);

	/* main is in every stack, never the leaf: its callers are the stacks'
	 * roots (one truncated), its callees every function it calls */
	assert_string_equal(after_head(text),
			    "\nplan: main: total 18 samples (94.74% of the feature's 19), self 0 "
			    "(0.00%)\n"
			    "  callers (samples with the call in their stack, share of the "
			    "function's total):\n"
			    "        16  88.89%  [stack root]\n"
			    "         2  11.11%  [truncated stack]\n"
			    "  callees:\n"
			    "         7  38.89%  outer_fn (app)\n"
			    "         5  27.78%  app+0x3000\n"
			    "         4  22.22%  rec (app)\n"
			    "         2  11.11%  [jit]\n"
			    "\ngc: main: total 4 samples (100.00% of the feature's 4), self 0 "
			    "(0.00%)\n"
			    "  callers (samples with the call in their stack, share of the "
			    "function's total):\n"
			    "         2  50.00%  [stack root]\n"
			    "         2  50.00%  [truncated stack]\n"
			    "  callees:\n"
			    "         2  50.00%  [jit]\n"
			    "         2  50.00%  rec (app)\n");
	free(text);
}

/* Recursion: rec<rec<rec counts once per stack in total, in each edge once. */
static void test_text_function_recursion(void **state)
{
	struct report_opts o = {.function = "rec", .feature = "plan"};
	char *text = render_text_rc(*state, &o, 0);

	assert_string_equal(after_head(text),
			    "\nplan: rec: total 4 samples (21.05% of the feature's 19), self 4 "
			    "(21.05%)\n"
			    "  callers (samples with the call in their stack, share of the "
			    "function's total):\n"
			    "         4 100.00%  main (app)\n"
			    "         4 100.00%  rec (app)\n"
			    "  callees:\n"
			    "         4 100.00%  [self]\n"
			    "         4 100.00%  rec (app)\n");
	free(text);
}

/* An inlined function is a function; a label names a function without one. */
static void test_text_function_inlined_and_labels(void **state)
{
	struct report_opts o = {.function = "inl_helper", .feature = "plan"};
	char *text = render_text_rc(*state, &o, 0);

	assert_string_equal(
		after_head(text),
		"\nplan: inl_helper: total 7 samples (36.84% of the feature's 19), self "
		"4 (21.05%)\n"
		"  callers (samples with the call in their stack, share of the "
		"function's total):\n"
		"         7 100.00%  outer_fn (app)\n"
		"  callees:\n"
		"         4  57.14%  [self]\n"
		"         3  42.86%  memcpy (libc.so.6)\n");
	free(text);
	o.function = "app+0x3000";
	text = render_text_rc(*state, &o, 0);
	assert_non_null(strstr(text, "plan: app+0x3000: total 5 samples (26.32% of the "
				     "feature's 19), self 0 (0.00%)\n"));
	assert_non_null(strstr(text, "  callees:\n         5 100.00%  do_syscall_64_[k]\n"));
	free(text);
	o.function = "do_syscall_64_[k]";
	text = render_text_rc(*state, &o, 0);
	assert_non_null(strstr(text, "plan: do_syscall_64_[k]: total 5 samples"));
	free(text);
}

static void test_text_function_missing(void **state)
{
	struct report_opts o = {.function = "nosuch"};
	struct profile *plain = profile__new();
	char *text = render_text_rc(*state, &o, -ESRCH);

	assert_non_null(
		strstr(text, "\nno function nosuch in the native stacks of this profile\n"));
	assert_non_null(strstr(text, "\nDiagnostics"));
	free(text);
	/* gc's stacks do not have memcpy; plan's do */
	o.function = "memcpy";
	o.feature = "gc";
	text = render_text_rc(*state, &o, -ESRCH);
	assert_non_null(strstr(text, "\ngc: memcpy is in none of its native stacks\n"));
	assert_non_null(
		strstr(text, "\nno function memcpy in the native stacks of the features shown\n"));
	free(text);
	/* a profile without native stacks says so */
	assert_non_null(plain);
	assert_int_equal(profile__set_meta(plain, &meta), 0);
	ADD_STACK(plain, 1, 1, MARK("plan", "q1"));
	ADD_SAMPLES(plain, 1, 1, 1, 3);
	o.feature = NULL;
	text = render_text_rc(plain, &o, -ESRCH);
	assert_non_null(strstr(text, "\n--function memcpy: this profile has no native stacks "
				     "(record them with --stacks)\n"));
	free(text);
	/* and without --function, no section at all */
	o.function = NULL;
	text = render_text_rc(plain, &o, 0);
	assert_null(strstr(text, "Native stacks"));
	free(text);
	profile__free(plain);
}

/* --min-pct and --top-functions fold the rest into one line. */
static void test_text_min_pct_top(void **state)
{
	struct report_opts o = {.min_pct = 27, .feature = "plan", .top_functions = 2};
	char *text = render_text_rc(*state, &o, 0);

	assert_string_equal(after_head(text),
			    "\nplan: 19 samples, 18 with a native stack (94.74%)\n"
			    "  ... 5 more functions (self 18 samples, 94.74%)\n"
			    "  instance q1: 14 samples, 13 with a native stack (92.86%)\n"
			    "      self            total\n"
			    "         4  28.57%        7  50.00%  inl_helper (app)\n"
			    "         4  28.57%        4  28.57%  rec (app)\n"
			    "    ... 2 more functions (self 5 samples, 35.71%)\n");
	free(text);
}

/* --order name: the same hottest functions, by name. */
static void test_text_order_name(void **state)
{
	struct report_opts o = {.order = REPORT_ORDER_NAME, .feature = "plan", .top_functions = 4};
	char *text = render_text_rc(*state, &o, 0);

	assert_non_null(strstr(text, "plan: 19 samples, 18 with a native stack (94.74%)\n"
				     "    self            total\n"
				     "       5  26.32%        5  26.32%  do_syscall_64_[k]\n"
				     "       4  21.05%        7  36.84%  inl_helper (app)\n"
				     "       3  15.79%        3  15.79%  memcpy (libc.so.6)\n"
				     "       4  21.05%        4  21.05%  rec (app)\n"
				     "  ... 1 more function (self 2 samples, 10.53%)\n"));
	free(text);
}

/* ---- folded ------------------------------------------------------------------------ */

static void test_folded(void **state)
{
	char *f = render_folded(*state, NULL);

	/* key 1's sample without a stack keeps its line; kernel frames at the
	 * leaf end; the inlined function a frame of its own */
	assert_string_equal(f, "(no feature);main;outer_fn;inl_helper 1\n"
			       "gc;major;main;[jit] 2\n"
			       "gc;major;main;rec;rec;rec 2\n"
			       "plan;q1 1\n"
			       "plan;q1;main;[jit] 2\n"
			       "plan;q1;main;outer_fn;inl_helper 4\n"
			       "plan;q1;main;outer_fn;inl_helper;memcpy 3\n"
			       "plan;q1;main;rec;rec;rec 4\n"
			       "plan;q2;main;app+0x3000;do_syscall_64_[k] 5\n");
	free(f);
}

/* ---- attribution and the process filter ------------------------------------------- */

/* Native stacks change no charge: the attribution and the text report's
 * features are those of the core samples alone. */
static void test_attribution_unchanged(void **state)
{
	struct profile *core = core_profile();
	struct attrib *a = attrib__compute(*state, NULL), *b = attrib__compute(core, NULL);
	struct report_opts o = {.min_pct = 0};
	char *with, *without, *cut;
	size_t i, j;

	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(attrib__total_samples(a), attrib__total_samples(b));
	assert_int_equal(attrib__uncharged_samples(a), attrib__uncharged_samples(b));
	assert_int_equal(attrib__nr_features(a), attrib__nr_features(b));
	for (i = 0; i < attrib__nr_features(a); i++) {
		const struct attrib_feature *fa = attrib__feature(a, i),
					    *fb = attrib__feature(b, i);

		assert_string_equal(fa->name, fb->name);
		assert_int_equal(fa->samples, fb->samples);
		assert_int_equal(fa->nr_instances, fb->nr_instances);
		for (j = 0; j < fa->nr_instances; j++) {
			assert_string_equal(fa->instances[j].name, fb->instances[j].name);
			assert_int_equal(fa->instances[j].samples, fb->instances[j].samples);
		}
	}
	with = render_text_rc(*state, &o, 0);
	without = render_text_rc(core, &o, 0);
	cut = strstr(with, "\nNative stacks:");
	assert_non_null(cut);
	*cut = 0;
	cut = strstr(without, "\nDiagnostics");
	assert_non_null(cut);
	*cut = 0;
	assert_string_equal(with, without);
	free(with);
	free(without);
	attrib__free(a);
	attrib__free(b);
	profile__free(core);
}

/* --pid keeps the native samples of the kept processes, with their stacks. */
static void test_filter(void **state)
{
	struct profile *p = *state;
	struct report_opts o = {.pid = "100"};
	struct profile_native_stack st;
	char *all, *kept;
	int s;

	/* process 200: 7 plan/q9 samples, in S0's leaf alone */
	assert_int_equal(profile__native_stack(p, 0, &st), 0);
	st.depth = 1;
	s = profile__add_native_stack(p, &st);
	assert_true(s >= 0);
	assert_int_equal(profile__add_thread(p, 200, 200, "other"), 0);
	ADD_STACK(p, 200, 1, MARK("plan", "q9"));
	ADD_SAMPLES(p, 200, 200, 1, 7);
	ADD_NATIVE(p, 200, 200, 1, (size_t)s, 7);
	all = render_folded(p, NULL);
	assert_non_null(strstr(all, "plan;q9;outer_fn;inl_helper 7\n"));
	free(all);
	kept = render_folded(p, &o);
	assert_string_equal(kept, "(no feature);main;outer_fn;inl_helper 1\n"
				  "gc;major;main;[jit] 2\n"
				  "gc;major;main;rec;rec;rec 2\n"
				  "plan;q1 1\n"
				  "plan;q1;main;[jit] 2\n"
				  "plan;q1;main;outer_fn;inl_helper 4\n"
				  "plan;q1;main;outer_fn;inl_helper;memcpy 3\n"
				  "plan;q1;main;rec;rec;rec 4\n"
				  "plan;q2;main;app+0x3000;do_syscall_64_[k] 5\n");
	free(kept);
	o.pid = "200";
	kept = render_folded(p, &o);
	assert_string_equal(kept, "plan;q9;outer_fn;inl_helper 7\n");
	free(kept);
}

/* Folded --by thread, --feature and --min-pct with native frames. */
static void test_folded_options(void **state)
{
	struct report_opts o = {.by = REPORT_BY_THREAD, .feature = "gc"};
	char *f = render_folded(*state, &o);

	assert_string_equal(f, "app (100);app (100);gc;major;main;[jit] 2\n"
			       "app (100);app (100);gc;major;main;rec;rec;rec 2\n");
	free(f);
	/* q2 (5 of 20 samples, 25%) is under 30%: its instance folded, its
	 * frames kept; q1 (14 in several lines) is not, though each line is */
	o = (struct report_opts){.min_pct = 30, .feature = "plan"};
	f = render_folded(*state, &o);
	assert_string_equal(f, "plan;(other instances);main;app+0x3000;do_syscall_64_[k] 5\n"
			       "plan;q1 1\n"
			       "plan;q1;main;[jit] 2\n"
			       "plan;q1;main;outer_fn;inl_helper 4\n"
			       "plan;q1;main;outer_fn;inl_helper;memcpy 3\n"
			       "plan;q1;main;rec;rec;rec 4\n");
	free(f);
}

/* Off-CPU time stays on the lines without native frames: stacks are of
 * on-CPU samples. */
static void test_folded_offcpu(void **state)
{
	struct report_opts o = {.folded_value = REPORT_VALUE_OFFCPU, .feature = "plan"};
	struct profile *p = *state;
	char *f;

	assert_int_equal(profile__add_offcpu(p, 100, 100, 2, 7000000), 0);
	f = render_folded(p, &o);
	assert_string_equal(f, "plan;q2 7000000\n");
	free(f);
	o.folded_value = REPORT_VALUE_WALL;
	f = render_folded(p, &o);
	assert_string_equal(f, "plan;q1 1000000\n"
			       "plan;q1;main;[jit] 2000000\n"
			       "plan;q1;main;outer_fn;inl_helper 4000000\n"
			       "plan;q1;main;outer_fn;inl_helper;memcpy 3000000\n"
			       "plan;q1;main;rec;rec;rec 4000000\n"
			       "plan;q2 7000000\n"
			       "plan;q2;main;app+0x3000;do_syscall_64_[k] 5000000\n");
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_text_hottest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_function, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_function_recursion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_function_inlined_and_labels, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_text_function_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_min_pct_top, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_order_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attribution_unchanged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folded_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folded_offcpu, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
