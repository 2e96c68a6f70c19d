// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of function features (analysis/model/funcfeat*.c): the rules and
 * their text forms (--function-feature, the profile file's), and the charges
 * of merged stacks: a function feature marked where the thread enters it
 * from outside (fputs calling write is one call of output), its antimark
 * functions (a qsort comparator) charging nothing, a call under the
 * antimark a new call, nesting with marked features both ways, inlined
 * functions, the call site as instance, the core samples moved with their
 * native samples (the total unchanged), and a profile saved and read back
 * charged as the one in memory.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>

#include "unit_helpers.h"
#include "attrib.h"
#include "funcfeat_apply.h"
#include "funcfeat_helpers.h"
#include "merge.h"
#include "native_helpers.h"
#include "probemap.h"
#include "profile_io.h"

#define PID 42
#define TID 43

/* ---- the rules ------------------------------------------------------------------ */

static void test_parse_option(void **state)
{
	struct funcfeat *ff = funcfeat__new();
	const struct funcfeat_rule *r;
	char err[256] = "";

	(void)state;
	assert_non_null(ff);
	assert_int_equal(
		funcfeat__parse_option(ff, "output=libc.so.6:fputs,fwrite", err, sizeof(err)), 0);
	assert_int_equal(funcfeat__parse_option(ff, "output=libc.so.6:write", err, sizeof(err)), 0);
	assert_int_equal(funcfeat__parse_option(ff, "sort=libc.so.*:qsort*", err, sizeof(err)), 0);
	assert_int_equal(funcfeat__nr(ff), 2);
	r = funcfeat__rule(ff, 0);
	assert_string_equal(r->feature, "fn:output");
	assert_int_equal(r->nr_patterns, 3);
	assert_string_equal(r->patterns[1].function, "fwrite");
	assert_string_equal(r->patterns[2].file, "libc.so.6");
	assert_true(
		funcfeat__match(&r->patterns[0], "/usr/lib/x86_64-linux-gnu/libc.so.6", "fputs"));
	assert_false(funcfeat__match(&r->patterns[0], "/usr/lib/libc.so.7", "fputs"));
	assert_false(funcfeat__match(&r->patterns[0], "/lib/libc.so.6", "fputs_unlocked"));
	r = funcfeat__rule(ff, 1);
	assert_true(funcfeat__match(&r->patterns[0], "/lib/libc.so.6", "qsort_r"));

	static const char *const bad[] = {
		"output",	  "=libc.so.6:fputs", "Out=libc.so.6:fputs", "o=libc.so.6",
		"o=libc.so.6:",	  "o=:fputs",	      "o=libc.so.6:a,,b",    "o=libc.so.6:a b",
		"o=libc.so.6:a,", "o=lib c:a",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(funcfeat__parse_option(ff, bad[i], err, sizeof(err)), -EINVAL);
		assert_true(strlen(err) > 10);
		assert_null(strchr(err, '\n'));
	}
	funcfeat__free(ff);
}

static void test_bounds(void **state)
{
	struct funcfeat *ff = funcfeat__new();
	char err[256], arg[64], long_arg[FUNCFEAT_MAX_TEXT + 16];

	(void)state;
	for (int i = 0; i < FUNCFEAT_MAX_PATTERNS; i++) {
		snprintf(arg, sizeof(arg), "x=f:g%d", i);
		assert_int_equal(funcfeat__parse_option(ff, arg, err, sizeof(err)), 0);
	}
	assert_int_equal(funcfeat__parse_option(ff, "x=f:one_more", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "more than"));
	for (int i = 1; i < FUNCFEAT_MAX_RULES; i++) {
		snprintf(arg, sizeof(arg), "x%d=f:g", i);
		assert_int_equal(funcfeat__parse_option(ff, arg, err, sizeof(err)), 0);
	}
	assert_int_equal(funcfeat__parse_option(ff, "y=f:g", err, sizeof(err)), -EINVAL);
	memset(long_arg, 'a', sizeof(long_arg) - 1);
	long_arg[sizeof(long_arg) - 1] = '\0';
	memcpy(long_arg, "z=f:", 4);
	assert_int_equal(funcfeat__add(ff, "z", false, long_arg + 2, 0, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "too long"));
	funcfeat__free(ff);
}

static void test_text_roundtrip(void **state)
{
	struct funcfeat *ff = funcfeat__new(), *back = funcfeat__new(), *other = funcfeat__new();
	char err[256], *text, *again;

	(void)state;
	assert_int_equal(
		funcfeat__add(ff, "sort", false, "libc.so.6:qsort,qsort_r", 0, err, sizeof(err)),
		0);
	assert_int_equal(funcfeat__add(ff, "sort", true, "wl:cmp_*", 0, err, sizeof(err)), 0);
	assert_int_equal(funcfeat__add(ff, "sort", false, "wl:my_sort", 0, err, sizeof(err)), 0);
	assert_int_equal(funcfeat__add(ff, "out", false, "libc.so.6:write", FUNCFEAT_INSTANCE_NONE,
				       err, sizeof(err)),
			 0);
	text = funcfeat__to_text(ff);
	assert_non_null(text);
	assert_string_equal(text, "feature sort\ninstance caller\n"
				  "function libc.so.6:qsort,qsort_r\nfunction wl:my_sort\n"
				  "antimark wl:cmp_*\n"
				  "feature out\ninstance none\nfunction libc.so.6:write\n");
	assert_int_equal(funcfeat__parse(back, text, err, sizeof(err)), 0);
	again = funcfeat__to_text(back);
	assert_string_equal(again, text);
	assert_int_equal(funcfeat__parse(other, "feature a\nbogus x\n", err, sizeof(err)), -EINVAL);
	assert_int_equal(funcfeat__parse(other, "function a:b\n", err, sizeof(err)), -EINVAL);
	/* a merge: src's rule of a feature replaces dst's */
	funcfeat__free(other);
	other = funcfeat__new();
	assert_int_equal(funcfeat__add(other, "out", false, "libc.so.6:fputs", 0, err, sizeof(err)),
			 0);
	assert_int_equal(funcfeat__merge(back, other), 0);
	assert_int_equal(funcfeat__nr(back), 2);
	assert_int_equal(funcfeat__rule(back, 1)->nr_patterns, 1);
	assert_string_equal(funcfeat__rule(back, 1)->patterns[0].function, "fputs");
	free(text);
	free(again);
	funcfeat__free(ff);
	funcfeat__free(back);
	funcfeat__free(other);
}

/* ---- function features in probe maps ---------------------------------------------- */

#define MAP_MIXED                                                                                  \
	"map m\nprovider p\n"                                                                      \
	"feature q\n\tenter a\n\tleave b\n"                                                        \
	"feature sort\n\tfunction libc.so.6:qsort,qsort_r # the sorts\n"                           \
	"\tantimark wl:cmp_*\n\tinstance none\n"                                                   \
	"feature out\n\tfunction libc.so.6:fputs\n\tfunction wl:emit\n\tinstance caller\n"         \
	"feature r\n\tenter c\n\tleave d\n\tinstance {outer:q}\n"

static void test_map_functions(void **state)
{
	struct probemap *m = NULL;
	struct funcfeat *ff = funcfeat__new();
	const struct funcfeat_rule *r;
	char err[512] = "";

	(void)state;
	assert_int_equal(
		probemap__parse(MAP_MIXED, strlen(MAP_MIXED), "t.map", &m, err, sizeof(err)), 0);
	assert_int_equal(m->nr_features, 2); /* the features of probes */
	assert_string_equal(m->features[1].name, "r");
	assert_int_equal(m->features[1].outer, 0); /* {outer:q} follows q's new index */
	assert_int_equal(m->nr_functions, 2);
	assert_int_equal(probemap__function_rules(m, NULL, ff, err, sizeof(err)), 2);
	r = funcfeat__rule(ff, 0);
	assert_string_equal(r->feature, "m:sort");
	assert_int_equal(r->instance, FUNCFEAT_INSTANCE_NONE);
	assert_int_equal(r->nr_patterns, 3);
	assert_true(r->patterns[2].antimark);
	r = funcfeat__rule(ff, 1);
	assert_string_equal(r->feature, "m:out");
	assert_int_equal(r->instance, FUNCFEAT_INSTANCE_CALLER);
	assert_string_equal(r->patterns[1].file, "wl");
	funcfeat__free(ff);
	/* --feature selects function features too */
	ff = funcfeat__new();
	assert_int_equal(probemap__function_rules(m, "m:out,q", ff, err, sizeof(err)), 1);
	assert_int_equal(funcfeat__nr(ff), 1);
	funcfeat__free(ff);
	probemap__free(m);

	/* a map of function features alone needs no provider */
	static const char only[] = "map libc\nfeature out\nfunction libc.so.6:write\n";
	assert_int_equal(probemap__parse(only, strlen(only), "t.map", &m, err, sizeof(err)), 0);
	assert_int_equal(m->nr_features, 0);
	assert_int_equal(m->nr_functions, 1);
	probemap__free(m);

	/* a sample-time label: the variable read at each sample (test_funcfeat_global) */
	static const char global[] = "map pg\nfeature plan\nfunction postgres:standard_planner\n"
				     "instance {global:debug_query_string}\n";
	ff = funcfeat__new();
	assert_int_equal(probemap__parse(global, strlen(global), "t.map", &m, err, sizeof(err)), 0);
	assert_int_equal(probemap__function_rules(m, NULL, ff, err, sizeof(err)), 1);
	assert_string_equal(funcfeat__rule(ff, 0)->global, "debug_query_string");
	funcfeat__free(ff);
	probemap__free(m);
}

static void test_map_function_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{"map a\nfeature x\nenter b\nleave c\n", "needs a 'provider'"},
		{"map a\nfeature x\nfunction libc.so.6\n", "expected FILE:FUNCTION"},
		{"map a\nfeature x\nfunction l:a,,b\n", "malformed function pattern"},
		{"map a\nfeature x\nantimark l:cmp\n", "no \"function FILE:PATTERN\" line"},
		{"map a\nprovider p\nfeature x\nfunction l:f\nenter e\n", "cannot have 'enter'"},
		{"map a\nfeature x\nfunction l:f\nwhen arg0 == 1\n", "cannot have 'when'"},
		{"map a\nfeature x\nfunction l:f\ninstance {str:0}\n", "its instance is"},
		{"map a\nfeature x\nfunction l:f\ninstance call\n", "its instance is"},
		{"map a\nprovider p\nfeature x\nfunction l:f\n"
		 "feature y\nenter e\nleave f\ninstance {outer:x}\n",
		 "names a function feature"},
		{"map a\nfeature x\nfunction l:a\nfunction l:a\nfunction l:a\nfunction l:a\n"
		 "function l:a\nfunction l:a\nfunction l:a\nfunction l:a\nantimark l:b\n",
		 "more than 8"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct probemap *m = NULL;
		char err[512] = "";

		assert_int_equal(probemap__parse(bad[i].text, strlen(bad[i].text), "t.map", &m, err,
						 sizeof(err)),
				 -EINVAL);
		if (!strstr(err, bad[i].want) || strchr(err, '\n') || strncmp(err, "t.map:", 6))
			fail_msg("case %zu: \"%s\", want \"%s\"", i, err, bad[i].want);
		assert_null(m);
	}
}

/* ---- merged stacks ------------------------------------------------------------------- */

enum { L_MAIN, L_DOSORT, L_QSORT, L_MSORT, L_CMP, L_FPUTS, L_WRITE, L_INL, L_ANON, L__N };

static uint32_t locs[L__N];

static void add_loc(struct profile *p, int mod, uint64_t addr, const struct profile_line *lines,
		    size_t n, int idx)
{
	struct profile_location l = {.module = mod, .address = addr, .lines = lines, .nr_lines = n};
	int r = profile__add_location(p, &l);

	assert_true(r >= 0);
	locs[idx] = r;
}

#define NSTACK(p, ...)                                                                             \
	({                                                                                         \
		const uint32_t s_[] = {__VA_ARGS__};                                               \
		int r_ = add_nstack((p), s_, sizeof(s_) / sizeof(s_[0]), 0, PROFILE_UNWIND_DWARF,  \
				    0);                                                            \
		assert_true(r_ >= 0);                                                              \
		(size_t) r_;                                                                       \
	})

/*
 * Thread TID: 110 samples, 100 with no marks (69 with native stacks), 10
 * under the marked feature parse (8 with native stacks, in output).
 */
static struct profile *make_profile(void)
{
	static const struct profile_line main_l[] = {{"main", "/src/wl.c", 10}},
					 dosort_l[] = {{"do_sort", "/src/wl.c", 20}},
					 qsort_l[] = {{"qsort", NULL, 0}},
					 msort_l[] = {{"msort_with_tmp", NULL, 0}},
					 cmp_l[] = {{"cmp", "/src/wl.c", 5}},
					 fputs_l[] = {{"fputs", NULL, 0}},
					 write_l[] = {{"write", NULL, 0}},
					 inl_l[] = {{"helper_inl", "/src/wl.c", 30},
						    {"emit", "/src/wl.c", 40}};
	struct profile *p = profile__new();
	int app, libc;
	size_t s;

	assert_non_null(p);
	app = add_mod(p, PROFILE_MODULE_USER, "/tmp/wl", "aa");
	libc = add_mod(p, PROFILE_MODULE_USER, "/usr/lib/x86_64-linux-gnu/libc.so.6", "bb");
	add_loc(p, app, 0x100, main_l, 1, L_MAIN);
	add_loc(p, app, 0x200, dosort_l, 1, L_DOSORT);
	add_loc(p, libc, 0x300, qsort_l, 1, L_QSORT);
	add_loc(p, libc, 0x400, msort_l, 1, L_MSORT);
	add_loc(p, app, 0x500, cmp_l, 1, L_CMP);
	add_loc(p, libc, 0x600, fputs_l, 1, L_FPUTS);
	add_loc(p, libc, 0x700, write_l, 1, L_WRITE);
	add_loc(p, app, 0x800, inl_l, 2, L_INL);
	add_loc(p, libc, 0x900, NULL, 0, L_ANON);
	ADD_STACK(p, PID, 7, MARK("parse", "p.c:1"));
	assert_int_equal(profile__add_samples(p, PID, TID, 0, 100), 0);
	assert_int_equal(profile__add_samples(p, PID, TID, 7, 10), 0);
	/* in the comparator: sort antimarked */
	s = NSTACK(p, locs[L_CMP], locs[L_MSORT], locs[L_QSORT], locs[L_DOSORT], locs[L_MAIN]);
	assert_int_equal(profile__add_native_samples(p, PID, TID, 0, s, 10), 0);
	/* in the sort */
	s = NSTACK(p, locs[L_MSORT], locs[L_QSORT], locs[L_DOSORT], locs[L_MAIN]);
	assert_int_equal(profile__add_native_samples(p, PID, TID, 0, s, 20), 0);
	/* write inside fputs: one call of output, from main */
	s = NSTACK(p, locs[L_WRITE], locs[L_FPUTS], locs[L_MAIN]);
	assert_int_equal(profile__add_native_samples(p, PID, TID, 0, s, 30), 0);
	assert_int_equal(profile__add_native_samples(p, PID, TID, 7, s, 8), 0);
	s = NSTACK(p, locs[L_MAIN]);
	assert_int_equal(profile__add_native_samples(p, PID, TID, 0, s, 5), 0);
	/* a sort inside the comparator: a new call, from cmp */
	s = NSTACK(p, locs[L_MSORT], locs[L_QSORT], locs[L_CMP], locs[L_MSORT], locs[L_QSORT],
		   locs[L_DOSORT], locs[L_MAIN]);
	assert_int_equal(profile__add_native_samples(p, PID, TID, 0, s, 4), 0);
	/* an inlined function, called from a frame without a symbol */
	s = NSTACK(p, locs[L_INL], locs[L_ANON], locs[L_MAIN]);
	assert_int_equal(profile__add_native_samples(p, PID, TID, 0, s, 3), 0);
	/* output inside the comparator: output charged, sort not */
	s = NSTACK(p, locs[L_WRITE], locs[L_FPUTS], locs[L_CMP], locs[L_MSORT], locs[L_QSORT],
		   locs[L_DOSORT], locs[L_MAIN]);
	assert_int_equal(profile__add_native_samples(p, PID, TID, 0, s, 6), 0);
	return p;
}

static struct funcfeat *make_rules(void)
{
	struct funcfeat *ff = funcfeat__new();
	char err[256];

	assert_int_equal(funcfeat__add(ff, "sort", false, "libc.so.6:qsort", 0, err, sizeof(err)),
			 0);
	assert_int_equal(funcfeat__add(ff, "sort", true, "wl:cmp", 0, err, sizeof(err)), 0);
	assert_int_equal(
		funcfeat__add(ff, "output", false, "libc.so.6:fputs,write", 0, err, sizeof(err)),
		0);
	assert_int_equal(funcfeat__add(ff, "inl", false, "w?:helper_*", 0, err, sizeof(err)), 0);
	return ff;
}

static void check_charges(const struct profile *p)
{
	struct attrib *a = attrib__compute(p, NULL);
	const struct attrib_feature *f;

	assert_non_null(a);
	assert_int_equal(attrib__total_samples(a), 110);
	f = feature(a, "sort");
	assert_non_null(f);
	assert_int_equal(f->samples, 24);
	assert_int_equal(instance(f, "do_sort (wl.c:20)"), 20);
	assert_int_equal(instance(f, "cmp (wl.c:5)"), 4);
	f = feature(a, "output");
	assert_non_null(f);
	assert_int_equal(f->samples, 44);
	assert_int_equal(instance(f, "main (wl.c:10)"), 38);
	assert_int_equal(instance(f, "cmp (wl.c:5)"), 6);
	f = feature(a, "parse");
	assert_non_null(f);
	assert_int_equal(f->samples, 10);
	f = feature(a, "inl");
	assert_non_null(f);
	assert_int_equal(f->samples, 3);
	assert_int_equal(instance(f, "emit (wl.c:40)"), 3);
	/* 110 - sort 24 - output 44 - parse's 2 outside output - inl 3 */
	assert_int_equal(attrib__uncharged_samples(a), 110 - 24 - 44 - 2 - 3);
	attrib__free(a);
}

static void test_apply(void **state)
{
	struct profile *p = make_profile();
	struct funcfeat *ff = make_rules();
	struct attrib *a;

	(void)state;
	a = attrib__compute(p, NULL);
	assert_int_equal(attrib__nr_features(a), 1); /* parse alone before */
	attrib__free(a);
	assert_int_equal(funcfeat__apply(ff, p), 0);
	check_charges(p);
	assert_non_null(profile__meta(p)->function_features);
	assert_non_null(strstr(profile__meta(p)->function_features, "antimark wl:cmp"));
	funcfeat__free(ff);
	profile__free(p);
}

/* The caller of a frame without a symbol is named module+address. */
static void test_anonymous_caller(void **state)
{
	struct profile *p = make_profile();
	struct funcfeat *ff = funcfeat__new();
	struct attrib *a;
	char err[256];

	(void)state;
	assert_int_equal(funcfeat__add(ff, "em", false, "wl:emit", 0, err, sizeof(err)), 0);
	assert_int_equal(funcfeat__apply(ff, p), 0);
	a = attrib__compute(p, NULL);
	assert_int_equal(instance(feature(a, "em"), "libc.so.6+0x900"), 3);
	attrib__free(a);
	funcfeat__free(ff);
	profile__free(p);
}

/*
 * The call sites of --events (funcfeat__call_site: a caller's location, from
 * a return address) are named as the samples' instances: each the same
 * string the merged stacks give the same caller's frame.
 */
static void test_call_site(void **state)
{
	struct profile *p = make_profile();
	struct funcfeat *ff = make_rules();
	const struct attrib_feature *f;
	struct attrib *a;
	char buf[256];

	(void)state;
	assert_int_equal(funcfeat__call_site(p, locs[L_MAIN], buf, sizeof(buf)), 0);
	assert_string_equal(buf, "main (wl.c:10)");
	assert_int_equal(funcfeat__call_site(p, locs[L_FPUTS], buf, sizeof(buf)), 0);
	assert_string_equal(buf, "fputs"); /* a line without a file */
	assert_int_equal(funcfeat__call_site(p, locs[L_ANON], buf, sizeof(buf)), 0);
	assert_string_equal(buf, "libc.so.6+0x900"); /* no function */
	/* inlined: the innermost function is the caller */
	assert_int_equal(funcfeat__call_site(p, locs[L_INL], buf, sizeof(buf)), 0);
	assert_string_equal(buf, "helper_inl (wl.c:30)");
	assert_int_equal(funcfeat__call_site(p, 1000, buf, sizeof(buf)), -ENOENT);
	/* the samples' instances of the same callers */
	assert_int_equal(funcfeat__apply(ff, p), 0);
	a = attrib__compute(p, NULL);
	f = feature(a, "output");
	assert_int_equal(funcfeat__call_site(p, locs[L_MAIN], buf, sizeof(buf)), 0);
	assert_true(instance(f, buf) > 0);
	assert_int_equal(funcfeat__call_site(p, locs[L_DOSORT], buf, sizeof(buf)), 0);
	assert_true(instance(feature(a, "sort"), buf) > 0);
	assert_int_equal(funcfeat__call_site(p, locs[L_CMP], buf, sizeof(buf)), 0);
	assert_true(instance(feature(a, "sort"), buf) > 0);
	attrib__free(a);
	funcfeat__free(ff);
	profile__free(p);
}

/*
 * Marks among native frames by where they were entered (mark_pos): a mark of
 * the function feature's own name entered inside its antimark function (the
 * comparator) is above the antimark and charges; entered by main, or placed
 * below every native frame (its place unknown), it is under the antimark and
 * charges nothing.
 */
static void test_mark_places(void **state)
{
	struct profile *p = make_profile(), *back;
	struct funcfeat *ff = make_rules();
	struct attrib *a;
	char *buf = NULL, err[256];
	size_t len = 0, s_in, s_main, s_unknown;
	FILE *f;

	(void)state;
	ADD_STACK(p, PID, 9, MARK("sort", "cmp.c:1"));
	ADD_STACK(p, PID, 10, MARK("sort", "main.c:2"));
	ADD_STACK(p, PID, 11, MARK("sort", "lost.c:3"));
	assert_int_equal(profile__add_samples(p, PID, TID, 9, 7), 0);
	assert_int_equal(profile__add_samples(p, PID, TID, 10, 5), 0);
	assert_int_equal(profile__add_samples(p, PID, TID, 11, 2), 0);
	{
		/* leaf first: cmp (index 0), msort, qsort, do_sort, main (4) */
		const uint32_t l[] = {locs[L_CMP], locs[L_MSORT], locs[L_QSORT], locs[L_DOSORT],
				      locs[L_MAIN]};
		const uint16_t in_cmp[] = {0}, in_main[] = {4}, unknown[] = {PROFILE_MARK_BELOW};
		struct profile_native_stack ns = {
			.locs = l, .depth = 5, .method = PROFILE_UNWIND_DWARF, .nr_marks = 1};

		ns.mark_pos = in_cmp;
		s_in = profile__add_native_stack(p, &ns);
		ns.mark_pos = in_main;
		s_main = profile__add_native_stack(p, &ns);
		ns.mark_pos = unknown;
		s_unknown = profile__add_native_stack(p, &ns);
		assert_true(s_in != s_main && s_main != s_unknown);
	}
	assert_int_equal(profile__add_native_samples(p, PID, TID, 9, s_in, 7), 0);
	assert_int_equal(profile__add_native_samples(p, PID, TID, 10, s_main, 5), 0);
	assert_int_equal(profile__add_native_samples(p, PID, TID, 11, s_unknown, 2), 0);
	/* the positions survive the file */
	f = open_memstream(&buf, &len);
	assert_int_equal(profile__write_json(f, p), 0);
	fclose(f);
	back = profile__parse_json(buf, len, "mem", err, sizeof(err));
	assert_non_null(back);
	assert_int_equal(funcfeat__apply(ff, back), 0);
	a = attrib__compute(back, NULL);
	/* the comparator's own mark is above its antimark: it charges sort
	 * (7); the mark of main is below qsort's call, and the mark of unknown
	 * place below every native frame: the comparator's antimark is the
	 * top-most frame of sort, nothing is charged */
	assert_int_equal(instance(feature(a, "sort"), "cmp.c:1"), 7);
	assert_int_equal(instance(feature(a, "sort"), "do_sort (wl.c:20)"), 20);
	assert_int_equal(instance(feature(a, "sort"), "main.c:2"), UINT64_MAX);
	assert_int_equal(instance(feature(a, "sort"), "lost.c:3"), UINT64_MAX);
	assert_int_equal(feature(a, "sort")->samples, 24 + 7);
	attrib__free(a);
	free(buf);
	funcfeat__free(ff);
	profile__free(p);
	profile__free(back);
}

/* "antimark outside": the comparator, of another file than qsort's, is the
 * sort's antimark without being named; the shipped libc map says so. */
static void test_outside(void **state)
{
	struct profile *p = make_profile();
	struct funcfeat *ff = funcfeat__new();
	struct probemap *m = NULL;
	struct attrib *a;
	char err[512], *text;

	(void)state;
	assert_int_equal(funcfeat__add(ff, "sorto", false, "libc.so.6:qsort", 0, err, sizeof(err)),
			 0);
	assert_int_equal(funcfeat__add(ff, "sorto", true, "outside", 0, err, sizeof(err)), 0);
	text = funcfeat__to_text(ff);
	assert_string_equal(text, "feature sorto\ninstance caller\nfunction libc.so.6:qsort\n"
				  "antimark outside\n");
	free(text);
	assert_int_equal(funcfeat__apply(ff, p), 0);
	a = attrib__compute(p, NULL);
	assert_int_equal(feature(a, "sorto")->samples, 24);
	assert_int_equal(instance(feature(a, "sorto"), "do_sort (wl.c:20)"), 20);
	assert_int_equal(instance(feature(a, "sorto"), "cmp (wl.c:5)"), 4);
	attrib__free(a);
	funcfeat__free(ff);
	profile__free(p);

	/* the shipped map (the source tree's, from this file's path) */
	{
		char src[512], path[1024];

		snprintf(src, sizeof(src), "%s", __FILE__);
		snprintf(path, sizeof(path), "%s/../../maps/libc.map", dirname(src));
		assert_int_equal(probemap__load(path, &m, err, sizeof(err)), 0);
	}
	assert_int_equal(m->nr_features, 0);
	assert_int_equal(m->nr_functions, 6);
	ff = funcfeat__new();
	assert_int_equal(probemap__function_rules(m, NULL, ff, err, sizeof(err)), 6);
	p = make_profile();
	assert_int_equal(funcfeat__apply(ff, p), 0);
	a = attrib__compute(p, NULL);
	assert_int_equal(feature(a, "libc:sorting")->samples, 24);
	assert_int_equal(feature(a, "libc:output")->samples, 44);
	assert_int_equal(instance(feature(a, "libc:output"), "main (wl.c:10)"), 38);
	attrib__free(a);
	profile__free(p);
	funcfeat__free(ff);
	probemap__free(m);
}

/* The shipped postgresql-sampled map: function features alone, with the
 * provider that selects -a's processes; its rules name the postgres
 * executable's exported functions. */
static void test_shipped_postgresql_sampled(void **state)
{
	static const char *const names[] = {"parse",   "analyze", "rewrite",  "plan",
					    "execute", "commit",  "wal_flush"};
	char src[512], path[1024], err[512];
	struct probemap *m = NULL;
	struct funcfeat *ff = funcfeat__new();

	(void)state;
	snprintf(src, sizeof(src), "%s", __FILE__);
	snprintf(path, sizeof(path), "%s/../../maps/postgresql-sampled.map", dirname(src));
	assert_int_equal(probemap__load(path, &m, err, sizeof(err)), 0);
	assert_string_equal(m->name, "postgresql-sampled");
	assert_int_equal(m->nr_providers, 1);
	assert_string_equal(m->providers[0], "postgresql");
	assert_int_equal(m->nr_features, 0);
	assert_int_equal(m->nr_functions, 7);
	assert_int_equal(probemap__function_rules(m, NULL, ff, err, sizeof(err)), 7);
	for (size_t i = 0; i < 7; i++) {
		const struct funcfeat_rule *r = funcfeat__rule(ff, i);
		char want[64];

		snprintf(want, sizeof(want), "postgresql-sampled:%s", names[i]);
		assert_string_equal(r->feature, want);
		/* the statement, but for WAL flushes (mostly outside statements) */
		if (strcmp(names[i], "wal_flush")) {
			assert_int_equal(r->instance, FUNCFEAT_INSTANCE_GLOBAL);
			assert_string_equal(r->global, "debug_query_string");
		} else {
			assert_int_equal(r->instance, FUNCFEAT_INSTANCE_CALLER);
		}
		for (size_t k = 0; k < r->nr_patterns; k++)
			assert_string_equal(r->patterns[k].file, "postgres");
	}
	assert_true(funcfeat__match(&funcfeat__rule(ff, 3)->patterns[0],
				    "/usr/lib/postgresql/15/bin/postgres", "pg_plan_query"));
	assert_int_equal(probemap__function_rules(m, "plan", ff, err, sizeof(err)), 1);
	funcfeat__free(ff);
	probemap__free(m);
}

/* A merge keeps the rules its profiles share (and drops them when they
 * differ); the merged profile charges them as the sum of its parts. */
static void test_merge_keeps_rules(void **state)
{
	struct profile *a = make_profile(), *b = make_profile(), *all = profile__new();
	struct funcfeat *ff = make_rules(), *back = funcfeat__new();
	struct profile_meta m = {.target = "t", .frequency_hz = 999};
	struct attrib *at;
	char *text = funcfeat__to_text(ff), err[256];

	(void)state;
	m.function_features = text;
	assert_int_equal(profile__set_meta(a, &m), 0);
	assert_int_equal(profile__set_meta(b, &m), 0);
	assert_int_equal(profile__merge(all, a, err, sizeof(err)), 0);
	assert_int_equal(profile__merge(all, b, err, sizeof(err)), 0);
	assert_int_equal(profile__merge_finish(all, "merge", err, sizeof(err)), 0);
	assert_non_null(profile__meta(all)->function_features);
	assert_string_equal(profile__meta(all)->function_features, text);
	assert_int_equal(
		funcfeat__parse(back, profile__meta(all)->function_features, err, sizeof(err)), 0);
	assert_int_equal(funcfeat__apply(back, all), 0);
	at = attrib__compute(all, NULL);
	assert_int_equal(feature(at, "sort")->samples, 2 * 24);
	assert_int_equal(feature(at, "output")->samples, 2 * 44);
	assert_int_equal(instance(feature(at, "sort"), "cmp (wl.c:5)"), 2 * 4);
	attrib__free(at);
	profile__free(all);
	/* different rules: none kept */
	m.function_features = "feature x\ninstance caller\nfunction a:b\n";
	assert_int_equal(profile__set_meta(b, &m), 0);
	all = profile__new();
	assert_int_equal(profile__merge(all, a, err, sizeof(err)), 0);
	assert_int_equal(profile__merge(all, b, err, sizeof(err)), 0);
	assert_int_equal(profile__merge_finish(all, "merge", err, sizeof(err)), 0);
	assert_null(profile__meta(all)->function_features);
	free(text);
	funcfeat__free(ff);
	funcfeat__free(back);
	profile__free(all);
	profile__free(a);
	profile__free(b);
}

/* The rules saved with a profile, read back and applied: the same charges. */
static void test_saved_equals_live(void **state)
{
	struct profile *p = make_profile(), *back;
	struct funcfeat *ff = make_rules();

	(void)state;
	back = saved_and_charged(p, ff);
	check_charges(back);
	assert_int_equal(funcfeat__apply(ff, p), 0);
	check_charges(p);
	funcfeat__free(ff);
	profile__free(p);
	profile__free(back);
}

/* The files -a profiles processes for: those a function pattern names (a
 * glob of their base name), not an antimark's. */
static void test_names_file(void **state)
{
	struct funcfeat *ff = funcfeat__new();
	char err[256];

	(void)state;
	assert_false(funcfeat__names_file(ff, "/lib/libc.so.6"));
	assert_false(funcfeat__names_file(NULL, "/lib/libc.so.6"));
	assert_int_equal(funcfeat__parse_option(ff, "out=libc.so.6:write", err, sizeof(err)), 0);
	assert_int_equal(funcfeat__add(ff, "fn:out", true, "app*:cb", FUNCFEAT_INSTANCE_CALLER, err,
				       sizeof(err)),
			 0);
	assert_int_equal(funcfeat__parse_option(ff, "mine=libwl_*.so:spin", err, sizeof(err)), 0);
	assert_true(funcfeat__names_file(ff, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
	assert_true(funcfeat__names_file(ff, "libc.so.6"));
	assert_true(funcfeat__names_file(ff, "/opt/x/libwl_native.so"));
	assert_false(funcfeat__names_file(ff, "/usr/lib/libc.so.6.1"));
	assert_false(funcfeat__names_file(ff, "/usr/bin/app1")); /* an antimark's file */
	assert_false(funcfeat__names_file(ff, "/libc.so.6/other"));
	funcfeat__free(ff);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_option),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_text_roundtrip),
		cmocka_unit_test(test_map_functions),
		cmocka_unit_test(test_map_function_errors),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_anonymous_caller),
		cmocka_unit_test(test_call_site),
		cmocka_unit_test(test_saved_equals_live),
		cmocka_unit_test(test_mark_places),
		cmocka_unit_test(test_outside),
		cmocka_unit_test(test_shipped_postgresql_sampled),
		cmocka_unit_test(test_merge_keeps_rules),
		cmocka_unit_test(test_names_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
