// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of function features whose instance is a variable read at
 * sample time ("instance {global:S}", analysis/common/funcfeat.c and
 * analysis/model/funcfeat_apply.c): the rule's forms (--function-feature's
 * "@{global:S}", a probe map's "instance {global:S}", the profile file's
 * text) and their errors; and the charges: each sample's instance is the
 * value in its frame of the hidden feature "{global:S}" (which the sampler
 * appended), "?" as read, "(not read)" without the frame; the hidden frames
 * are dropped from every stack, those of samples without a native stack
 * too, and from stacks that had nothing else (then the empty stack); the
 * totals are unchanged; without the rules applied, such a frame is charged
 * nothing.
 */
#include <errno.h>
#include <stdio.h>

#include "unit_helpers.h"
#include "attrib.h"
#include "funcfeat_apply.h"
#include "funcfeat_helpers.h"
#include "native_helpers.h"
#include "probemap.h"
#include "profile_io.h"

#define PID 42
#define TID 43
#define VAR "{global:debug_query_string}"

/* ---- the rules ------------------------------------------------------------------ */

static void test_option(void **state)
{
	struct funcfeat *ff = funcfeat__new();
	const struct funcfeat_rule *r;
	char err[256] = "", *text;
	static const char *const bad[] = {
		"q=postgres:exec_simple_query@{global:}",
		"q=postgres:exec_simple_query@{global:1abc}",
		"q=postgres:exec_simple_query@{global:a-b}",
		"q=postgres:exec_simple_query@{global:abc",
		"q=@{global:abc}",
	};

	(void)state;
	assert_int_equal(funcfeat__parse_option(ff,
						"plan=postgres:pg_plan_query,standard_planner"
						"@{global:debug_query_string}",
						err, sizeof(err)),
			 0);
	assert_int_equal(funcfeat__parse_option(ff, "parse=postgres:raw_parser", err, sizeof(err)),
			 0);
	r = funcfeat__rule(ff, 0);
	assert_string_equal(r->feature, "fn:plan");
	assert_int_equal(r->instance, FUNCFEAT_INSTANCE_GLOBAL);
	assert_string_equal(r->global, "debug_query_string");
	assert_int_equal(r->nr_patterns, 2);
	assert_string_equal(r->patterns[1].function, "standard_planner");
	assert_int_equal(funcfeat__rule(ff, 1)->instance, FUNCFEAT_INSTANCE_CALLER);
	assert_null(funcfeat__rule(ff, 1)->global);
	/* the text form reads back the same */
	text = funcfeat__to_text(ff);
	assert_non_null(strstr(text, "instance {global:debug_query_string}\n"));
	{
		struct funcfeat *back = funcfeat__new();
		char *again;

		assert_int_equal(funcfeat__parse(back, text, err, sizeof(err)), 0);
		assert_string_equal(funcfeat__rule(back, 0)->global, "debug_query_string");
		again = funcfeat__to_text(back);
		assert_string_equal(text, again);
		free(again);
		funcfeat__free(back);
	}
	free(text);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(funcfeat__parse_option(ff, bad[i], err, sizeof(err)), -EINVAL);
		if (strlen(err) < 10 || strchr(err, '\n'))
			fail_msg("case %zu: \"%s\"", i, err);
	}
	/* caller and none drop the variable; merging copies it */
	{
		struct funcfeat *dst = funcfeat__new();

		assert_int_equal(funcfeat__merge(dst, ff), 0);
		assert_string_equal(funcfeat__rule(dst, 0)->global, "debug_query_string");
		assert_int_equal(funcfeat__set_instance(dst, "fn:plan", FUNCFEAT_INSTANCE_NONE), 0);
		assert_null(funcfeat__rule(dst, 0)->global);
		funcfeat__free(dst);
	}
	funcfeat__free(ff);
}

static void test_map(void **state)
{
	static const char text[] = "map pg\n"
				   "feature plan\n"
				   "\tfunction postgres:standard_planner\n"
				   "\tinstance {global:debug_query_string}\n"
				   "feature commit\n"
				   "\tfunction postgres:CommitTransactionCommand\n";
	static const struct {
		const char *text, *want;
	} bad[] = {
		{"map a\nfeature x\nfunction l:f\ninstance q={global:s}\n", "one {global:SYMBOL}"},
		{"map a\nfeature x\nfunction l:f\ninstance {global:s}{global:t}\n",
		 "one {global:SYMBOL}"},
		{"map a\nfeature x\nfunction l:f\ninstance {global:s}\nlabel sample\n",
		 "cannot have 'label sample'"},
	};
	struct funcfeat *ff = funcfeat__new();
	struct probemap *m = NULL;
	char err[512] = "";

	(void)state;
	assert_int_equal(probemap__parse(text, strlen(text), "pg.map", &m, err, sizeof(err)), 0);
	assert_int_equal(probemap__function_rules(m, NULL, ff, err, sizeof(err)), 2);
	assert_int_equal(funcfeat__rule(ff, 0)->instance, FUNCFEAT_INSTANCE_GLOBAL);
	assert_string_equal(funcfeat__rule(ff, 0)->global, "debug_query_string");
	assert_string_equal(funcfeat__rule(ff, 0)->feature, "pg:plan");
	assert_int_equal(funcfeat__rule(ff, 1)->instance, FUNCFEAT_INSTANCE_CALLER);
	probemap__free(m);
	funcfeat__free(ff);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = NULL;
		err[0] = '\0';
		assert_int_equal(probemap__parse(bad[i].text, strlen(bad[i].text), "t.map", &m, err,
						 sizeof(err)),
				 -EINVAL);
		if (!strstr(err, bad[i].want) || strchr(err, '\n'))
			fail_msg("case %zu: \"%s\", want \"%s\"", i, err, bad[i].want);
		assert_null(m);
	}
}

/* ---- charges ------------------------------------------------------------------ */

enum { L_MAIN, L_EXEC, L_PLAN, L__N };

/*
 * Thread TID of PID, 60 samples: 20 planning "select 1" (stack 1: the
 * marked feature tx, then the variable's frame), 10 planning "select 2"
 * (stack 2), 5 planning with the variable unreadable ("?", stack 3), 5
 * planning without a variable's frame (stack 4: tx alone), 8 in main with
 * the variable alone (stack 5, 6 of them with a native stack), 12 with no
 * native stack under stack 1.
 */
static struct profile *make_profile(void)
{
	static const struct profile_line main_l[] = {{"main", "/src/pg.c", 1}},
					 exec_l[] = {{"exec_simple_query", "/src/pg.c", 2}},
					 plan_l[] = {{"standard_planner", "/src/pg.c", 3}};
	struct profile *p = profile__new();
	uint32_t locs[L__N];
	size_t plan, in_main;
	int mod;

	assert_non_null(p);
	mod = add_mod(p, PROFILE_MODULE_USER, "/usr/lib/postgresql/15/bin/postgres", "cc");
	{
		struct profile_location l = {
			.module = mod, .address = 0x10, .lines = main_l, .nr_lines = 1};

		locs[L_MAIN] = profile__add_location(p, &l);
		l = (struct profile_location){
			.module = mod, .address = 0x20, .lines = exec_l, .nr_lines = 1};
		locs[L_EXEC] = profile__add_location(p, &l);
		l = (struct profile_location){
			.module = mod, .address = 0x30, .lines = plan_l, .nr_lines = 1};
		locs[L_PLAN] = profile__add_location(p, &l);
	}
	ADD_STACK(p, PID, 1, MARK("tx", "t1"), MARK(VAR, "select 1"));
	ADD_STACK(p, PID, 2, MARK("tx", "t1"), MARK(VAR, "select 2"));
	ADD_STACK(p, PID, 3, MARK("tx", "t1"), MARK(VAR, "?"));
	ADD_STACK(p, PID, 4, MARK("tx", "t1"));
	ADD_STACK(p, PID, 5, MARK(VAR, "select 1"));
	assert_int_equal(profile__add_samples(p, PID, TID, 1, 32), 0);
	assert_int_equal(profile__add_samples(p, PID, TID, 2, 10), 0);
	assert_int_equal(profile__add_samples(p, PID, TID, 3, 5), 0);
	assert_int_equal(profile__add_samples(p, PID, TID, 4, 5), 0);
	assert_int_equal(profile__add_samples(p, PID, TID, 5, 8), 0);
	{
		const uint32_t pl[] = {locs[L_PLAN], locs[L_EXEC], locs[L_MAIN]},
			       mn[] = {locs[L_MAIN]};

		plan = add_nstack(p, pl, 3, 0, PROFILE_UNWIND_DWARF, 0);
		in_main = add_nstack(p, mn, 1, 0, PROFILE_UNWIND_DWARF, 0);
	}
	assert_int_equal(profile__add_native_samples(p, PID, TID, 1, plan, 20), 0);
	assert_int_equal(profile__add_native_samples(p, PID, TID, 2, plan, 10), 0);
	assert_int_equal(profile__add_native_samples(p, PID, TID, 3, plan, 5), 0);
	assert_int_equal(profile__add_native_samples(p, PID, TID, 4, plan, 5), 0);
	assert_int_equal(profile__add_native_samples(p, PID, TID, 5, in_main, 6), 0);
	return p;
}

static struct funcfeat *make_rules(void)
{
	struct funcfeat *ff = funcfeat__new();
	char err[256];

	assert_int_equal(funcfeat__parse_option(ff,
						"plan=postgres:standard_planner"
						"@{global:debug_query_string}",
						err, sizeof(err)),
			 0);
	assert_int_equal(
		funcfeat__parse_option(ff, "exec=postgres:exec_simple_query", err, sizeof(err)), 0);
	return ff;
}

/* No stack keeps a variable's frame. */
static void check_no_var(const struct profile *p)
{
	struct profile_sample s;
	struct profile_stack st;

	for (size_t i = 0; i < profile__nr_samples(p); i++) {
		assert_int_equal(profile__sample(p, i, &s), 0);
		if (!s.count || s.stack == PROFILE_NO_STACK)
			continue;
		assert_int_equal(profile__stack(p, s.stack, &st), 0);
		for (size_t j = 0; j < st.depth; j++)
			if (funcfeat__is_var_feature(st.frames[j].feature))
				fail_msg("a stack of %llu samples keeps %s",
					 (unsigned long long)s.count, st.frames[j].feature);
	}
}

static void check_charges(const struct profile *p)
{
	struct attrib *a = attrib__compute(p, NULL);
	const struct attrib_feature *f;

	assert_non_null(a);
	assert_int_equal(attrib__total_samples(a), 60);
	f = feature(a, "fn:plan");
	assert_non_null(f);
	assert_int_equal(f->samples, 40);
	assert_int_equal(instance(f, "select 1"), 20);
	assert_int_equal(instance(f, "select 2"), 10);
	assert_int_equal(instance(f, "?"), 5);
	assert_int_equal(instance(f, FUNCFEAT_NOT_READ), 5);
	/* the other rule keeps its call site */
	assert_int_equal(instance(feature(a, "fn:exec"), "main (pg.c:1)"), 40);
	/* the marked feature: every sample of its stacks, with or without natives */
	assert_int_equal(feature(a, "tx")->samples, 52);
	assert_null(feature(a, VAR));
	/* the 8 of main: 6 with a native stack, 2 without; none charged */
	assert_int_equal(attrib__uncharged_samples(a), 8);
	attrib__free(a);
	check_no_var(p);
}

static void test_apply(void **state)
{
	struct profile *p = make_profile();
	struct funcfeat *ff = make_rules();

	(void)state;
	assert_int_equal(funcfeat__apply(ff, p), 0);
	check_charges(p);
	funcfeat__free(ff);
	profile__free(p);
}

/* Saved with the rules and read back: charged the same (report does this). */
static void test_saved(void **state)
{
	struct profile *p = make_profile(), *back;
	struct funcfeat *ff = make_rules();

	(void)state;
	back = saved_and_charged(p, ff);
	check_charges(back);
	funcfeat__free(ff);
	profile__free(p);
	profile__free(back);
}

/* A rule given after the fact whose variable was never read: its samples'
 * instance is "(not read)", never a guess. */
static void test_not_recorded(void **state)
{
	struct profile *p = make_profile();
	struct funcfeat *ff = funcfeat__new();
	struct attrib *a;
	char err[256];

	(void)state;
	assert_int_equal(funcfeat__parse_option(ff,
						"plan=postgres:standard_planner"
						"@{global:other_variable}",
						err, sizeof(err)),
			 0);
	assert_int_equal(funcfeat__apply(ff, p), 0);
	a = attrib__compute(p, NULL);
	assert_int_equal(feature(a, "fn:plan")->samples, 40);
	assert_int_equal(instance(feature(a, "fn:plan"), FUNCFEAT_NOT_READ), 40);
	/* the recorded variable's frames are dropped all the same */
	assert_null(feature(a, VAR));
	attrib__free(a);
	check_no_var(p);
	funcfeat__free(ff);
	profile__free(p);
}

/* Without the rules applied (the agent's snapshots), a variable's frame is
 * charged nothing; the samples still count, and the marks around it. */
static void test_unapplied(void **state)
{
	struct profile *p = make_profile();
	struct attrib *a = attrib__compute(p, NULL);

	(void)state;
	assert_non_null(a);
	assert_null(feature(a, VAR));
	assert_int_equal(attrib__total_samples(a), 60);
	assert_int_equal(feature(a, "tx")->samples, 52);
	assert_int_equal(attrib__nr_features(a), 1);
	attrib__free(a);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_option),	     cmocka_unit_test(test_map),
		cmocka_unit_test(test_apply),	     cmocka_unit_test(test_saved),
		cmocka_unit_test(test_not_recorded), cmocka_unit_test(test_unapplied),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
