// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the per-function diff (native stacks; analysis/model/diff.c,
 * analysis/render/diff/diff_report.c). */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>

#include "diff.h"
#include "report.h"
#include "native_helpers.h"
#include "unit_helpers.h"

#define MS 1000000ULL

static struct profile *new_profile(const char *target, uint64_t period_ns)
{
	struct profile_meta m = {.target = target, .period_ns = period_ns};
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &m), 0);
	return p;
}

/* A location of module mod at addr in function fn (NULL: not symbolized). */
static uint32_t loc(struct profile *p, uint32_t mod, uint64_t addr, const char *fn)
{
	struct profile_line l = {.function = fn};
	struct profile_location lc = {
		.module = mod, .address = addr, .lines = fn ? &l : NULL, .nr_lines = fn ? 1 : 0};
	int r = profile__add_location(p, &lc);

	assert_true(r >= 0);
	return (uint32_t)r;
}

/* count samples of thread 1 with mark stack key, count2 of them with the
 * native stack leaf <- main. */
static void sample(struct profile *p, uint64_t key, uint32_t leaf, uint64_t count, uint64_t native)
{
	uint32_t locs[2] = {leaf, 0};
	int s = add_nstack(p, locs, 2, 0, PROFILE_UNWIND_DWARF, 0);

	assert_true(s >= 0);
	ADD_SAMPLES(p, 1, 1, key, count);
	assert_int_equal(profile__add_native_samples(p, 1, 1, key, (size_t)s, native), 0);
}

/*
 * BASE: feature Parse (stack 1) with lex 30 and parse 10 of its 50
 * samples; Output nested in Parse (stack 2): write 20; Parse under an
 * antimark of GC (stack 3): GC gets nothing, Parse the leaf memcpy.
 */
static struct profile *base_profile(void)
{
	struct profile *p = new_profile("base", MS);

	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/bin/app", "01"), 0);
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/lib/libc.so.6", NULL), 1);
	assert_int_equal(loc(p, 0, 0x100, "main"), 0);
	ADD_STACK(p, 1, 1, MARK("Parse", "p"));
	ADD_STACK(p, 1, 2, MARK("Parse", "p"), MARK("Output", "o"));
	ADD_STACK(p, 1, 3, MARK("GC", NULL), ANTI("GC"), MARK("Parse", "q"));
	sample(p, 1, loc(p, 0, 0x200, "lex"), 50, 30);
	sample(p, 1, loc(p, 0, 0x300, "parse"), 0, 10);
	sample(p, 2, loc(p, 0, 0x400, "write"), 25, 20);
	sample(p, 3, loc(p, 1, 0x5a3c1, "memcpy"), 4, 4);
	/* native samples of no feature count nowhere */
	sample(p, 0, loc(p, 0, 0x500, "idle"), 9, 9);
	return p;
}

/* NEW at 2 ms per sample, a rebuilt app (other addresses): lex 10, parse
 * 40, unsymbolized libc code and JIT code in Parse; write gone, flush new. */
static struct profile *new_profile_b(void)
{
	struct profile *p = new_profile("new", 2 * MS);
	struct profile_location jit = {
		.module = PROFILE_NO_MODULE, .address = 0x7f0000001000, .flags = PROFILE_LOC_JIT};
	int j;

	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/bin/app", "02"), 0);
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/lib/libc.so.6", NULL), 1);
	assert_int_equal(loc(p, 0, 0x100, "main"), 0);
	ADD_STACK(p, 1, 7, MARK("Parse", "p"));
	ADD_STACK(p, 1, 8, MARK("Parse", "p"), MARK("Output", "o"));
	sample(p, 7, loc(p, 0, 0x210, "lex"), 60, 10);
	sample(p, 7, loc(p, 0, 0x310, "parse"), 0, 40);
	sample(p, 7, loc(p, 1, 0x99, NULL), 0, 2);
	j = profile__add_location(p, &jit);
	assert_true(j >= 0);
	sample(p, 7, (uint32_t)j, 0, 3);
	sample(p, 8, loc(p, 0, 0x410, "flush"), 5, 5);
	return p;
}

static const struct diff_row *fn_row(const struct diff *d, const char *feature, const char *fn)
{
	for (size_t i = 0; i < diff__nr_features(d); i++) {
		const struct diff_feature *f = diff__feature(d, i);

		if (strcmp(f->row.name, feature))
			continue;
		for (size_t j = 0; j < f->nr_functions; j++)
			if (!strcmp(f->functions[j].name, fn))
				return &f->functions[j];
	}
	return NULL;
}

static const struct diff_feature *feature(const struct diff *d, const char *name)
{
	for (size_t i = 0; i < diff__nr_features(d); i++)
		if (!strcmp(diff__feature(d, i)->row.name, name))
			return diff__feature(d, i);
	return NULL;
}

static void test_functions(void **state)
{
	struct profile *a = base_profile(), *b = new_profile_b();
	struct diff *d = diff__compute(a, b, NULL);
	const struct diff_row *r;
	const struct diff_feature *f;

	(void)state;
	assert_non_null(d);
	/* matched by name across builds: lex 30 -> 10 samples, 30 ms -> 20 ms */
	r = fn_row(d, "Parse", "lex");
	assert_non_null(r);
	assert_true(r->base_samples == 30 && r->new_samples == 10);
	assert_true(r->base_ms == 30.0 && r->new_ms == 20.0);
	assert_true(r->delta_ms == -10.0);
	/* % of each profile's samples: 30 of 88, 10 of 65 */
	assert_true(fabs(r->base_pct - 100.0 * 30 / 88) < 1e-9);
	assert_true(fabs(r->new_pct - 100.0 * 10 / 65) < 1e-9);
	r = fn_row(d, "Parse", "parse");
	assert_true(r->base_samples == 10 && r->new_samples == 40);
	/* nested features both get the leaf: write under Parse and Output */
	r = fn_row(d, "Output", "write");
	assert_true(r->base_samples == 20 && r->new_samples == 0);
	assert_int_equal(r->flags, DIFF_GONE);
	assert_true(fn_row(d, "Parse", "write")->base_samples == 20);
	r = fn_row(d, "Output", "flush");
	assert_int_equal(r->flags, DIFF_NEW);
	/* under GC's antimark: Parse only */
	assert_true(fn_row(d, "Parse", "memcpy")->base_samples == 4);
	assert_null(feature(d, "GC"));
	/* the fallbacks: MODULE+0xADDR, [jit]; no feature, no row */
	assert_true(fn_row(d, "Parse", "libc.so.6+0x99")->new_samples == 2);
	assert_true(fn_row(d, "Parse", "[jit]")->new_samples == 3);
	assert_null(fn_row(d, "Parse", "idle"));
	assert_null(fn_row(d, "Parse", "main"));
	/* sorted by |change in time|: parse (+70 ms) first */
	f = feature(d, "Parse");
	assert_int_equal(f->nr_functions, 7);
	assert_string_equal(f->functions[0].name, "parse");
	for (size_t j = 1; j < f->nr_functions; j++)
		assert_true(fabs(f->functions[j - 1].deviation_ms) >=
			    fabs(f->functions[j].deviation_ms));
	diff__free(d);
	profile__free(a);
	profile__free(b);
}

static const struct diff_row *all_row(const struct diff *d, const char *fn)
{
	for (size_t i = 0; i < diff__nr_functions(d); i++)
		if (!strcmp(diff__function(d, i)->name, fn))
			return diff__function(d, i);
	return NULL;
}

/* Every sample's functions: each native sample once, charged or not. */
static void test_all_functions(void **state)
{
	struct profile *a = base_profile(), *b = new_profile_b();
	struct diff *d = diff__compute(a, b, NULL);
	uint64_t base = 0, new_s = 0;

	(void)state;
	assert_non_null(d);
	assert_int_equal(diff__nr_functions(d), 8);
	assert_null(diff__function(d, 8));
	for (size_t i = 0; i < diff__nr_functions(d); i++) {
		base += diff__function(d, i)->base_samples;
		new_s += diff__function(d, i)->new_samples;
		if (i)
			assert_true(fabs(diff__function(d, i - 1)->deviation_ms) >=
				    fabs(diff__function(d, i)->deviation_ms));
	}
	/* all native samples of each profile */
	assert_true(base == 30 + 10 + 20 + 4 + 9);
	assert_true(new_s == 10 + 40 + 2 + 3 + 5);
	/* write charged to two features, counted once here */
	assert_true(all_row(d, "write")->base_samples == 20);
	/* samples of no feature too */
	assert_true(all_row(d, "idle")->base_samples == 9);
	assert_int_equal(all_row(d, "idle")->flags, DIFF_GONE);
	assert_string_equal(diff__function(d, 0)->name, "parse");
	diff__free(d);
	profile__free(a);
	profile__free(b);
}

/* Profiles without native stacks: no function rows, the text unchanged. */
static void test_no_functions(void **state)
{
	struct profile *a = new_profile("a", MS), *b = new_profile("b", MS);
	struct diff *d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	ADD_STACK(a, 1, 1, MARK("F", NULL));
	ADD_SAMPLES(a, 1, 1, 1, 3);
	ADD_STACK(b, 1, 1, MARK("F", NULL));
	ADD_SAMPLES(b, 1, 1, 1, 4);
	d = diff__compute(a, b, NULL);
	assert_non_null(d);
	assert_int_equal(feature(d, "F")->nr_functions, 0);
	assert_int_equal(diff__nr_functions(d), 0);
	f = open_memstream(&buf, &len);
	assert_int_equal(diff__text(f, d, NULL), 0);
	fclose(f);
	assert_null(strstr(buf, "functions"));
	assert_null(strstr(buf, "Functions"));
	free(buf);
	diff__free(d);
	profile__free(a);
	profile__free(b);
}

static void test_render(void **state)
{
	struct profile *a = base_profile(), *b = new_profile_b();
	struct diff_report_opts o = {.min_pct = 5};
	struct diff *d = diff__compute(a, b, NULL);
	struct json_object *root, *feats, *fns, *fn;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	f = open_memstream(&buf, &len);
	assert_int_equal(diff__text(f, d, &o), 0);
	fclose(f);
	assert_non_null(strstr(buf, "Functions: a feature's samples whose native stack's leaf "));
	assert_non_null(strstr(buf, "\n  functions (self):\n    parse "));
	assert_non_null(strstr(buf, "\n    lex "));
	/* memcpy (4.5%, 0%) and the fallbacks (under 5%) are folded */
	assert_null(strstr(buf, "memcpy"));
	assert_non_null(strstr(buf, "\n    ... 3 more rows under 5%\n"));
	assert_non_null(strstr(buf, "\n\nall samples, functions (self):\n  parse "));
	assert_non_null(strstr(buf, "\n  idle "));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(diff__json(f, d), 0);
	fclose(f);
	root = json_tokener_parse(buf);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "features", &feats));
	for (size_t i = 0; i < json_object_array_length(feats); i++) {
		struct json_object *fo = json_object_array_get_idx(feats, i), *name;

		assert_true(json_object_object_get_ex(fo, "functions", &fns));
		assert_true(json_object_object_get_ex(fo, "name", &name));
		if (strcmp(json_object_get_string(name), "Parse"))
			continue;
		assert_int_equal(json_object_array_length(fns), 7);
		fn = json_object_array_get_idx(fns, 0);
		assert_true(json_object_object_get_ex(fn, "name", &name));
		assert_string_equal(json_object_get_string(name), "parse");
		assert_true(json_object_object_get_ex(fn, "new_samples", &name));
		assert_int_equal(json_object_get_int64(name), 40);
	}
	assert_true(json_object_object_get_ex(root, "functions", &fns));
	assert_int_equal(json_object_array_length(fns), 8);
	json_object_put(root);
	free(buf);
	diff__free(d);
	profile__free(a);
	profile__free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_functions),
		cmocka_unit_test(test_all_functions),
		cmocka_unit_test(test_no_functions),
		cmocka_unit_test(test_render),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
