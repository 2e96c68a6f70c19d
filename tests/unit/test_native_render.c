// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the views of native stacks (record --stacks): the text
 * report's hottest functions (self and total, recursion and inlining) and
 * --function's callers and callees, folded stacks, pprof (decoded with
 * protobuf-c, and read by `go tool pprof` when Go is installed), the HTML
 * data, the process filter; and that attribution does not change.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include <zlib.h>

#include "attrib.h"
#include "native.h"
#include "profile.pb-c.h"
#include "report.h"
#include "report_html.h"
#include "unit_helpers.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- the fixture ---------------------------------------------------------------- */

static const struct profile_meta meta = {
	.target = "pid 100 (app)",
	.tool_version = "0.1.0",
	.frequency_hz = 1000,
	.period_ns = 1000000,
	.duration_s = 1.0,
};

/* Location indexes of the fixture. */
enum { L_INL, L_MAIN, L_MEMCPY, L_NOSYM, L_JIT, L_KERNEL, L_REC, NR_LOCS };

static uint32_t add_loc(struct profile *p, uint32_t mod, uint64_t addr,
			const struct profile_line *lines, size_t n, unsigned int flags)
{
	struct profile_location loc = {
		.module = mod, .address = addr, .lines = lines, .nr_lines = n, .flags = flags};
	int i = profile__add_location(p, &loc);

	assert_true(i >= 0);
	return (uint32_t)i;
}

static size_t add_nstack(struct profile *p, const uint32_t *locs, size_t depth, size_t nr_kernel,
			 int method, unsigned int flags)
{
	struct profile_native_stack s = {.locs = locs,
					 .depth = depth,
					 .nr_kernel = nr_kernel,
					 .method = method,
					 .flags = flags};
	int i = profile__add_native_stack(p, &s);

	assert_true(i >= 0);
	return (size_t)i;
}

#define ADD_NATIVE(p, pid, tid, key, stack, n)                                                     \
	assert_int_equal(profile__add_native_samples((p), (pid), (tid), (key), (stack), (n)), 0)

/*
 * Process 100 (thread 100 "app"), 20 samples. Modules: /usr/bin/app
 * (build-id abcd), /lib/x86_64-linux-gnu/libc.so.6, [kernel.kallsyms].
 * Locations: inl_helper (app.c:10) inlined into outer_fn (app.c:20), main,
 * memcpy (symbol table), app+0x3000 (no symbol), JIT code, do_syscall_64
 * (kernel), rec (app.c:40). Native stacks (leaf first):
 *   S0 inl_helper<outer_fn<main            DWARF
 *   S1 memcpy<inl_helper<outer_fn<main     DWARF
 *   S2 rec<rec<rec<main                    DWARF (recursion)
 *   S3 do_syscall_64 [k]<app+0x3000<main   frame pointers
 *   S4 [jit]<main                          DWARF, truncated
 * Core samples: key 1 plan/q1 10 (S0 4, S1 3, S2 2, 1 without a stack),
 * key 2 plan/q2 5 (S3 5), key 3 plan/q1 with gc/major inside 4 (S4 2, S2
 * 2), no mark 1 (S0 1).
 */
static struct profile *native_profile(void)
{
	static const struct profile_line inl[] = {{"inl_helper", "app.c", 10},
						  {"outer_fn", "app.c", 20}};
	static const struct profile_line mainl[] = {{"main", "app.c", 30}};
	static const struct profile_line memcpyl[] = {{"memcpy", NULL, 0}};
	static const struct profile_line kern[] = {{"do_syscall_64", NULL, 0}};
	static const struct profile_line rec[] = {{"rec", "app.c", 40}};
	struct profile_module app = {PROFILE_MODULE_USER, "/usr/bin/app", "abcd"};
	struct profile_module libc = {PROFILE_MODULE_USER, "/lib/x86_64-linux-gnu/libc.so.6", NULL};
	struct profile_module kmod = {PROFILE_MODULE_KERNEL, "[kernel.kallsyms]", NULL};
	struct profile *p = profile__new();
	uint32_t l[NR_LOCS];
	size_t s[5];
	int ma, mc, mk;

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &meta), 0);
	assert_int_equal(profile__add_thread(p, 100, 100, "app"), 0);
	ADD_STACK(p, 100, 1, MARK("plan", "q1"));
	ADD_STACK(p, 100, 2, MARK("plan", "q2"));
	ADD_STACK(p, 100, 3, MARK("plan", "q1"), MARK("gc", "major"));
	ADD_SAMPLES(p, 100, 100, 1, 10);
	ADD_SAMPLES(p, 100, 100, 2, 5);
	ADD_SAMPLES(p, 100, 100, 3, 4);
	ADD_SAMPLES(p, 100, 100, 0, 1);
	ma = profile__add_module(p, &app);
	mc = profile__add_module(p, &libc);
	mk = profile__add_module(p, &kmod);
	assert_true(ma >= 0 && mc >= 0 && mk >= 0);
	l[L_INL] = add_loc(p, ma, 0x1000, inl, 2, PROFILE_LOC_DEBUGINFO);
	l[L_MAIN] = add_loc(p, ma, 0x2000, mainl, 1, PROFILE_LOC_DEBUGINFO);
	l[L_MEMCPY] = add_loc(p, mc, 0x500, memcpyl, 1, 0);
	l[L_NOSYM] = add_loc(p, ma, 0x3000, NULL, 0, 0);
	l[L_JIT] = add_loc(p, PROFILE_NO_MODULE, 0x7f0000001000, NULL, 0, PROFILE_LOC_JIT);
	l[L_KERNEL] = add_loc(p, mk, 0xffffffff81000010, kern, 1, 0);
	l[L_REC] = add_loc(p, ma, 0x4000, rec, 1, PROFILE_LOC_DEBUGINFO);
	{
		const uint32_t s0[] = {l[L_INL], l[L_MAIN]};
		const uint32_t s1[] = {l[L_MEMCPY], l[L_INL], l[L_MAIN]};
		const uint32_t s2[] = {l[L_REC], l[L_REC], l[L_REC], l[L_MAIN]};
		const uint32_t s3[] = {l[L_KERNEL], l[L_NOSYM], l[L_MAIN]};
		const uint32_t s4[] = {l[L_JIT], l[L_MAIN]};

		s[0] = add_nstack(p, s0, 2, 0, PROFILE_UNWIND_DWARF, 0);
		s[1] = add_nstack(p, s1, 3, 0, PROFILE_UNWIND_DWARF, 0);
		s[2] = add_nstack(p, s2, 4, 0, PROFILE_UNWIND_DWARF, 0);
		s[3] = add_nstack(p, s3, 3, 1, PROFILE_UNWIND_FP, 0);
		s[4] = add_nstack(p, s4, 2, 0, PROFILE_UNWIND_DWARF, PROFILE_NATIVE_TRUNCATED);
	}
	ADD_NATIVE(p, 100, 100, 1, s[0], 4);
	ADD_NATIVE(p, 100, 100, 1, s[1], 3);
	ADD_NATIVE(p, 100, 100, 1, s[2], 2);
	ADD_NATIVE(p, 100, 100, 2, s[3], 5);
	ADD_NATIVE(p, 100, 100, 3, s[4], 2);
	ADD_NATIVE(p, 100, 100, 3, s[2], 2);
	ADD_NATIVE(p, 100, 100, 0, s[0], 1);
	return p;
}

static int setup(void **state)
{
	*state = native_profile();
	return 0;
}

static int teardown(void **state)
{
	profile__free(*state);
	return 0;
}

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

/* The fixture's core samples alone: the same profile without native stacks. */
static struct profile *core_profile(void)
{
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &meta), 0);
	assert_int_equal(profile__add_thread(p, 100, 100, "app"), 0);
	ADD_STACK(p, 100, 1, MARK("plan", "q1"));
	ADD_STACK(p, 100, 2, MARK("plan", "q2"));
	ADD_STACK(p, 100, 3, MARK("plan", "q1"), MARK("gc", "major"));
	ADD_SAMPLES(p, 100, 100, 1, 10);
	ADD_SAMPLES(p, 100, 100, 2, 5);
	ADD_SAMPLES(p, 100, 100, 3, 4);
	ADD_SAMPLES(p, 100, 100, 0, 1);
	return p;
}

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

/* ---- pprof ------------------------------------------------------------------------- */

static __attribute__((noinline)) Perftools__Profiles__Profile *
render_pprof(const struct profile *p, const struct report_opts *o, const char *path)
{
	Perftools__Profiles__Profile *prof;
	unsigned char *raw = NULL;
	char *gz = NULL;
	size_t gz_len = 0, cap = 1 << 20;
	z_stream zs = {};
	FILE *f = open_memstream(&gz, &gz_len);

	assert_non_null(f);
	assert_int_equal(report__pprof(f, p, o), 0);
	assert_int_equal(fclose(f), 0);
	if (path) {
		f = fopen(path, "w");
		assert_non_null(f);
		assert_int_equal(fwrite(gz, 1, gz_len, f), gz_len);
		assert_int_equal(fclose(f), 0);
	}
	raw = malloc(cap);
	assert_non_null(raw);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)gz;
	zs.avail_in = (uInt)gz_len;
	zs.next_out = raw;
	zs.avail_out = (uInt)cap;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	prof = perftools__profiles__profile__unpack(NULL, zs.total_out, raw);
	assert_non_null(prof);
	inflateEnd(&zs);
	free(raw);
	free(gz);
	return prof;
}

static const char *str(const Perftools__Profiles__Profile *prof, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < prof->n_string_table);
	return prof->string_table[i];
}

static const Perftools__Profiles__Function *func(const Perftools__Profiles__Profile *prof,
						 uint64_t id)
{
	for (size_t i = 0; i < prof->n_function; i++)
		if (prof->function[i]->id == id)
			return prof->function[i];
	fail_msg("no function %llu", (unsigned long long)id);
	return NULL;
}

static const Perftools__Profiles__Location *loc(const Perftools__Profiles__Profile *prof,
						uint64_t id)
{
	for (size_t i = 0; i < prof->n_location; i++)
		if (prof->location[i]->id == id)
			return prof->location[i];
	fail_msg("no location %llu", (unsigned long long)id);
	return NULL;
}

static const Perftools__Profiles__Mapping *mapping(const Perftools__Profiles__Profile *prof,
						   uint64_t id)
{
	for (size_t i = 0; i < prof->n_mapping; i++)
		if (prof->mapping[i]->id == id)
			return prof->mapping[i];
	fail_msg("no mapping %llu", (unsigned long long)id);
	return NULL;
}

/* A location as "name[:line][+inlined-into[:line]]@FILE+0xADDR": its lines
 * innermost first, its mapping's file ("-" for none) and address. */
static size_t describe_loc(const Perftools__Profiles__Profile *prof, uint64_t id, char *buf,
			   size_t size)
{
	const Perftools__Profiles__Location *l = loc(prof, id);
	size_t i, len = 0;

	for (i = 0; i < l->n_line; i++) {
		const Perftools__Profiles__Function *f = func(prof, l->line[i]->function_id);

		len += snprintf(buf + len, size - len, "%s%s", i ? "+" : "", str(prof, f->name));
		if (l->mapping_id != 1)
			assert_string_equal(str(prof, f->name), str(prof, f->system_name));
		if (l->line[i]->line)
			len += snprintf(buf + len, size - len, ":%lld",
					(long long)l->line[i]->line);
	}
	if (l->mapping_id == 1)
		return len; /* fsp-bpf's own frames */
	len += snprintf(buf + len, size - len, "@%s+0x%llx",
			l->mapping_id ? str(prof, mapping(prof, l->mapping_id)->filename) : "-",
			(unsigned long long)l->address);
	return len;
}

/* The samples as "loc|loc|... samples/cpu" lines, sorted. */
static char *describe_samples(const Perftools__Profiles__Profile *prof)
{
	char **lines = calloc(prof->n_sample, sizeof(*lines)), *out;
	size_t i, j, len, total = 1;

	assert_non_null(lines);
	for (i = 0; i < prof->n_sample; i++) {
		const Perftools__Profiles__Sample *s = prof->sample[i];
		char buf[2048];

		len = 0;
		for (j = 0; j < s->n_location_id; j++) {
			len += snprintf(buf + len, sizeof(buf) - len, "%s", j ? "|" : "");
			len += describe_loc(prof, s->location_id[j], buf + len, sizeof(buf) - len);
		}
		len += snprintf(buf + len, sizeof(buf) - len, " %lld/%lld\n",
				(long long)s->value[0], (long long)s->value[1]);
		lines[i] = strdup(buf);
		total += strlen(buf);
	}
	qsort(lines, prof->n_sample, sizeof(*lines), cmp_str);
	out = calloc(1, total);
	assert_non_null(out);
	for (i = 0; i < prof->n_sample; i++) {
		strcat(out, lines[i]);
		free(lines[i]);
	}
	free(lines);
	return out;
}

static void test_pprof(void **state)
{
	Perftools__Profiles__Profile *prof = render_pprof(*state, NULL, NULL);
	const Perftools__Profiles__Mapping *m;
	char *got = describe_samples(prof);
	size_t i, nr_app = 0;

	/* the feature and instance are the roots; inlined functions are
	 * lines of one location, innermost first; native samples of two mark
	 * stacks charged alike (S2 of keys 1 and 3 in plan/q1) are one */
	assert_string_equal(
		got,
		"[jit]@-+0x7f0000001000|main:30@/usr/bin/app+0x2000|gc: major|gc 2/2000000\n"
		"[jit]@-+0x7f0000001000|main:30@/usr/bin/app+0x2000|plan: q1|plan 2/2000000\n"
		"do_syscall_64@[kernel.kallsyms]+0xffffffff81000010|app+0x3000@/usr/bin/app+0x3000|"
		"main:30@/usr/bin/app+0x2000|plan: q2|plan 5/5000000\n"
		"inl_helper:10+outer_fn:20@/usr/bin/app+0x1000|main:30@/usr/bin/app+0x2000|(no "
		"feature) 1/1000000\n"
		"inl_helper:10+outer_fn:20@/usr/bin/app+0x1000|main:30@/usr/bin/app+0x2000|plan: "
		"q1|plan 4/4000000\n"
		"memcpy@/lib/x86_64-linux-gnu/libc.so.6+0x500|inl_helper:10+outer_fn:20@/usr/bin/"
		"app+0x1000|main:30@/usr/bin/app+0x2000|plan: q1|plan 3/3000000\n"
		"plan: q1|plan 1/1000000\n"
		"rec:40@/usr/bin/app+0x4000|rec:40@/usr/bin/app+0x4000|rec:40@/usr/bin/app+0x4000|"
		"main:30@/usr/bin/app+0x2000|gc: major|gc 2/2000000\n"
		"rec:40@/usr/bin/app+0x4000|rec:40@/usr/bin/app+0x4000|rec:40@/usr/bin/app+0x4000|"
		"main:30@/usr/bin/app+0x2000|plan: q1|plan 4/4000000\n");
	free(got);
	/* a mapping per module, with its build-id; what it has */
	assert_int_equal(prof->n_mapping, 4);
	for (i = 0; i < prof->n_mapping; i++) {
		m = prof->mapping[i];
		assert_true(m->has_functions);
		if (m->id == 1)
			continue;
		assert_int_equal(m->memory_start, 0);
		assert_int_equal(m->memory_limit, 0);
		if (!strcmp(str(prof, m->filename), "/usr/bin/app")) {
			nr_app++;
			assert_string_equal(str(prof, m->build_id), "abcd");
			assert_true(m->has_filenames && m->has_line_numbers &&
				    m->has_inline_frames);
		} else {
			assert_string_equal(str(prof, m->build_id), "");
			assert_false(m->has_filenames || m->has_inline_frames);
		}
	}
	assert_int_equal(nr_app, 1);
	/* functions carry their file */
	for (i = 0; i < prof->n_function; i++) {
		const char *name = str(prof, prof->function[i]->name);

		if (!strcmp(name, "rec") || !strcmp(name, "inl_helper"))
			assert_string_equal(str(prof, prof->function[i]->filename), "app.c");
		if (!strcmp(name, "memcpy"))
			assert_string_equal(str(prof, prof->function[i]->filename), "");
	}
	perftools__profiles__profile__free_unpacked(prof, NULL);
}

/* pprof --feature: the native samples of that feature alone. */
static void test_pprof_feature(void **state)
{
	struct report_opts o = {.feature = "gc"};
	Perftools__Profiles__Profile *prof = render_pprof(*state, &o, NULL);
	char *got = describe_samples(prof);

	assert_string_equal(
		got, "[jit]@-+0x7f0000001000|main:30@/usr/bin/app+0x2000|gc: major|gc 2/2000000\n"
		     "rec:40@/usr/bin/app+0x4000|rec:40@/usr/bin/app+0x4000|rec:40@/usr/bin/"
		     "app+0x4000|main:30@/usr/bin/app+0x2000|gc: major|gc 2/2000000\n");
	free(got);
	/* only the modules of its stacks */
	assert_int_equal(prof->n_mapping, 2);
	perftools__profiles__profile__free_unpacked(prof, NULL);
}

/* ---- HTML --------------------------------------------------------------------------- */

static __attribute__((noinline)) char *render_html_data(const struct profile *p,
							const struct report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report_html__data(f, p, o, NULL), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* The lines of member `name`'s array (one row a line), up to its end. */
static char *member_rows(const char *data, const char *name)
{
	char key[64], *s, *e;

	snprintf(key, sizeof(key), "\"%s\": [", name);
	s = strstr(data, key);
	assert_non_null(s);
	s = strdup(s + strlen(key));
	assert_non_null(s);
	e = strstr(s, "\n  ]");
	if (e)
		*e = 0;
	else
		*strchr(s, ']') = 0;
	return s;
}

/* The rows of charges: one per (thread, feature, instance, native stack),
 * the samples without a stack in a row without the sixth column; the
 * native stacks caller first, as function labels (strings 6 on). */
static void test_html_data(void **state)
{
	char *data = render_html_data(*state, NULL), *rows;

	rows = member_rows(data, "charges");
	assert_string_equal(rows, "\n    [0,1,2,1,0],\n"
				  "    [0,1,2,4,0,0],\n"
				  "    [0,1,2,3,0,1],\n"
				  "    [0,1,2,4,0,2],\n"
				  "    [0,1,3,5,0,3],\n"
				  "    [0,4,5,2,0,4],\n"
				  "    [0,1,2,2,0,4],\n"
				  "    [0,4,5,2,0,2]");
	free(rows);
	rows = member_rows(data, "native_stacks");
	assert_string_equal(rows, "\n    [8,7,6],\n"
				  "    [8,7,6,9],\n"
				  "    [8,10,10,10],\n"
				  "    [8,12,11],\n"
				  "    [8,13]");
	free(rows);
	assert_non_null(strstr(data, "\"strings\": [\n    \"app\",\n    \"plan\",\n    "
				     "\"q1\",\n    \"q2\",\n    \"gc\",\n    \"major\",\n    "
				     "\"inl_helper\",\n    \"outer_fn\",\n    \"main\",\n    "
				     "\"memcpy\",\n    \"rec\",\n    \"do_syscall_64_[k]\",\n    "
				     "\"app+0x3000\",\n    \"[jit]\""));
	free(data);
}

/* ---- go tool pprof ----------------------------------------------------------------- */

/* `go tool pprof ARGS FILE` in dir (its HOME and caches: no network, no
 * writes elsewhere): its stdout; fails on a non-zero exit or any stderr. */
static char *go_pprof(const char *dir, const char *args, const char *file)
{
	char cmd[1024], *out = NULL, *err = NULL;
	size_t n = 0, m = 0;
	FILE *f, *e;
	int c, rc;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && HOME='%s' GOCACHE='%s/cache' GOPATH='%s/gopath' PPROF_TMPDIR='%s' "
		 "GOFLAGS= GOTOOLCHAIN=local go tool pprof %s '%s' 2>err.txt",
		 dir, dir, dir, dir, dir, args, file);
	f = popen(cmd, "r");
	assert_non_null(f);
	FILE *o = open_memstream(&out, &n);

	assert_non_null(o);
	while ((c = getc(f)) != EOF)
		fputc(c, o);
	rc = pclose(f);
	assert_int_equal(fclose(o), 0);
	snprintf(cmd, sizeof(cmd), "%s/err.txt", dir);
	e = fopen(cmd, "r");
	assert_non_null(e);
	o = open_memstream(&err, &m);
	assert_non_null(o);
	while ((c = getc(e)) != EOF)
		fputc(c, o);
	fclose(e);
	assert_int_equal(fclose(o), 0);
	if (rc || m)
		fail_msg("go tool pprof %s: exit %d, stderr:\n%s", args, rc, err);
	free(err);
	return out;
}

/* Whether text has a line matching all of the words, in order, separated by blanks. */
static bool has_row(const char *text, const char *row)
{
	const char *line = text;
	char want[256], got[256];
	size_t i, j;

	/* compare lines with runs of blanks squeezed */
	for (i = j = 0; row[i] && j + 1 < sizeof(want); i++)
		if (row[i] != ' ' || (j && want[j - 1] != ' '))
			want[j++] = row[i];
	want[j] = 0;
	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		for (i = j = 0; i < len && j + 1 < sizeof(got); i++)
			if ((line[i] != ' ' && line[i] != '\t') || (j && got[j - 1] != ' '))
				got[j++] = line[i] == '\t' ? ' ' : line[i];
		while (j && got[j - 1] == ' ')
			j--;
		got[j] = 0;
		if (!strcmp(got[0] == ' ' ? got + 1 : got, want))
			return true;
		line = end ? end + 1 : NULL;
	}
	return false;
}

#define ASSERT_ROW(text, row)                                                                      \
	do {                                                                                       \
		if (!has_row((text), (row)))                                                       \
			fail_msg("no row \"%s\" in:\n%s", (row), (text));                          \
	} while (0)

static void test_go_tool_pprof(void **state)
{
	char dir[] = "/tmp/fsp-unit-native-XXXXXX", path[128], cmd[200];
	Perftools__Profiles__Profile *prof;
	char *out;
	FILE *src;

	if (system("command -v go >/dev/null 2>&1")) {
		fprintf(stderr, "!!! SKIPPED: `go` is not in PATH, `go tool pprof` was not run on "
				"the native stacks' pprof (Debian: apt-get install golang-go)\n");
		skip();
	}
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/native.pb.gz", dir);
	prof = render_pprof(*state, NULL, path);
	perftools__profiles__profile__free_unpacked(prof, NULL);
	/* -top: self (flat) and total (cum) per function, 1 ms per sample;
	 * pprof counts recursion once per sample, the inlined function apart */
	out = go_pprof(dir, "-top -nodecount=100", path);
	ASSERT_ROW(out, "6ms 25.00% 25.00% 6ms 25.00% rec");
	ASSERT_ROW(out, "5ms 20.83% 66.67% 8ms 33.33% inl_helper (inline)");
	ASSERT_ROW(out, "0 0% 100% 23ms 95.83% main");
	ASSERT_ROW(out, "0 0% 100% 5ms 20.83% app+0x3000");
	ASSERT_ROW(out, "4ms 16.67% 83.33% 4ms 16.67% [jit]");
	ASSERT_ROW(out, "0 0% 100% 19ms 79.17% plan");
	free(out);
	/* -peek: main's callers are the instances (the roots stay features) */
	out = go_pprof(dir, "-peek '^main$'", path);
	ASSERT_ROW(out, "13ms 56.52% | plan: q1");
	ASSERT_ROW(out, "8ms 34.78% | outer_fn");
	free(out);
	/* -traces: a stack from its leaf to its feature */
	out = go_pprof(dir, "-traces", path);
	assert_non_null(strstr(out, "3ms   memcpy\n             inl_helper (inline)\n"
				    "             outer_fn\n             main\n"
				    "             plan: q1\n             plan\n"));
	free(out);
	/* -list: the source line of a function, from its file */
	snprintf(path, sizeof(path), "%s/app.c", dir);
	src = fopen(path, "w");
	assert_non_null(src);
	for (int i = 1; i <= 45; i++)
		fprintf(src, i == 40 ? "void rec(int n) { if (n) rec(n - 1); }\n" : "/* %d */\n",
			i);
	assert_int_equal(fclose(src), 0);
	snprintf(path, sizeof(path), "%s/native.pb.gz", dir);
	out = go_pprof(dir, "-list '^rec$' -source_path .", path);
	ASSERT_ROW(out, "6ms 6ms 40:void rec(int n) { if (n) rec(n - 1); }");
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
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
		cmocka_unit_test_setup_teardown(test_pprof, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pprof_feature, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_go_tool_pprof, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
