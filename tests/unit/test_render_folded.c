// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of folded stacks (analysis/render/folded/): lines by feature,
 * process and thread, --min-pct and --feature, escaping, merged profiles and
 * unknown stacks, --value, write errors and the process filters.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "render_helpers.h"

/* ---- folded stacks ------------------------------------------------------------------------- */

static void test_folded_by_feature(void **state)
{
	struct profile *p = *state;
	char *text = render_folded(p, NULL);

	/* sorted by stack; Output;fizzbuzz.c:8 has the 20 nested samples too,
	 * so the lines sum to 120 of 100 samples */
	assert_string_equal(text, "(no feature) 20\n"
				  "Generic%20sequences;fizzbuzz.c:3 20\n"
				  "Output;fizzbuzz.c:7 10\n"
				  "Output;fizzbuzz.c:8 70\n");
	free(text);
}

static void test_folded_by_process_and_thread(void **state)
{
	struct report_opts o = {.by = REPORT_BY_PROCESS};
	struct profile *p = *state;
	char *text;

	ADD_STACK(p, 77, 0x1, MARK("Output", NULL));
	ADD_SAMPLES(p, 77, 78, 0x1, 4);
	text = render_folded(p, &o);
	assert_string_equal(text, "[unknown] (77);Output;(no instance) 4\n"
				  "demo (1234);(no feature) 20\n"
				  "demo (1234);Generic%20sequences;fizzbuzz.c:3 20\n"
				  "demo (1234);Output;fizzbuzz.c:7 10\n"
				  "demo (1234);Output;fizzbuzz.c:8 70\n");
	free(text);
	o.by = REPORT_BY_THREAD;
	text = render_folded(p, &o);
	assert_string_equal(text, "[unknown] (77);[unknown] (78);Output;(no instance) 4\n"
				  "demo (1234);demo (1234);(no feature) 15\n"
				  "demo (1234);demo (1234);Generic%20sequences;fizzbuzz.c:3 20\n"
				  "demo (1234);demo (1234);Output;fizzbuzz.c:8 70\n"
				  "demo (1234);worker (1235);(no feature) 5\n"
				  "demo (1234);worker (1235);Output;fizzbuzz.c:7 10\n");
	free(text);
}

static void test_folded_min_pct_and_feature(void **state)
{
	struct report_opts o = {.min_pct = 15};
	struct profile *p = *state;
	char *text;

	/* instances under 15% of all samples become "(other instances)" of
	 * their feature: totals stay; uncharged samples are never folded */
	ADD_STACK(p, 1234, 0x5, MARK("Output", "fizzbuzz.c:9"));
	ADD_SAMPLES(p, 1234, 1234, 0x5, 3);
	text = render_folded(p, &o);
	assert_string_equal(text, "(no feature) 20\n"
				  "Generic%20sequences;fizzbuzz.c:3 20\n"
				  "Output;(other instances) 13\n"
				  "Output;fizzbuzz.c:8 70\n");
	free(text);
	o.min_pct = 0;
	o.feature = "Output";
	text = render_folded(p, &o);
	assert_string_equal(text, "Output;fizzbuzz.c:7 10\n"
				  "Output;fizzbuzz.c:8 70\n"
				  "Output;fizzbuzz.c:9 3\n");
	free(text);
	o.by = REPORT_BY_THREAD;
	text = render_folded(p, &o);
	assert_string_equal(text, "demo (1234);demo (1234);Output;fizzbuzz.c:8 70\n"
				  "demo (1234);demo (1234);Output;fizzbuzz.c:9 3\n"
				  "demo (1234);worker (1235);Output;fizzbuzz.c:7 10\n");
	free(text);
	o.feature = "Nope";
	text = render_folded_rc(p, &o, -ENOENT);
	assert_string_equal(text, "");
	free(text);
	o.by = 9;
	o.feature = NULL;
	text = render_folded_rc(p, &o, -EINVAL);
	free(text);
}

static void test_folded_escaping(void **state)
{
	struct report_opts o = {.by = REPORT_BY_THREAD};
	struct profile *p = profile__new();
	char *text;

	(void)state;
	assert_non_null(p);
	assert_int_equal(profile__add_thread(p, 5, 5, "my app;1"), 0);
	assert_int_equal(profile__add_thread(p, 5, 6, "w\tk\x7f"), 0);
	ADD_STACK(p, 5, 1, MARK("a;b c%d", "line\nbreak\ttab\r"));
	ADD_STACK(p, 5, 2, MARK("caf\xc3\xa9 \xe2\x86\x92", "x.c:1 \x01\x1f"));
	/* labels that look like our own frames stay apart from them */
	ADD_STACK(p, 5, 3, MARK("(no feature)", "(other instances)"));
	ADD_SAMPLES(p, 5, 5, 1, 2);
	ADD_SAMPLES(p, 5, 6, 2, 3);
	ADD_SAMPLES(p, 5, 6, 3, 1);
	text = render_folded(p, NULL);
	assert_string_equal(text, "(no%20feature);(other%20instances) 1\n"
				  "a%3Bb%20c%25d;line%0Abreak%09tab%0D 2\n"
				  "caf\xc3\xa9%20\xe2\x86\x92;x.c:1%20%01%1F 3\n");
	free(text);
	text = render_folded(p, &o);
	assert_string_equal(
		text,
		"my%20app%3B1 (5);my%20app%3B1 (5);a%3Bb%20c%25d;line%0Abreak%09tab%0D 2\n"
		"my%20app%3B1 (5);w%09k%7F (6);(no%20feature);(other%20instances) 1\n"
		"my%20app%3B1 (5);w%09k%7F (6);caf\xc3\xa9%20\xe2\x86\x92;x.c:1%20%01%1F 3\n");
	free(text);
	profile__free(p);
}

static void test_folded_merged_and_unknown(void **state)
{
	struct report_opts o = {.by = REPORT_BY_PROCESS};
	struct profile *p = merged_profile();
	struct profile_meta m = demo_meta;
	char *text;

	(void)state;
	text = render_folded(p, &o);
	assert_string_equal(text, "app (alpha:100);F;f 10\n"
				  "app (beta#1:100);F;f 20\n"
				  "app (beta#2:100);F;f 30\n"
				  "app (source 3:100);F;f 40\n");
	free(text);
	/* a host is a label: escaped; an unknown stack counts as no feature */
	m.host = "my host";
	assert_int_equal(profile__add_source(p, &m, NULL), 4);
	assert_int_equal(profile__use_source(p, 4), 0);
	assert_int_equal(profile__add_samples(p, 100, 100, 0xbad, 5), -ENOENT);
	text = render_folded(p, &o);
	assert_string_equal(text, "[unknown] (my%20host:100);(no feature) 5\n"
				  "app (alpha:100);F;f 10\n"
				  "app (beta#1:100);F;f 20\n"
				  "app (beta#2:100);F;f 30\n"
				  "app (source 3:100);F;f 40\n");
	free(text);
	profile__free(p);
}

/* Folded stacks of off-CPU or wall-clock time (report_opts.folded_value). */
static void test_folded_values(void **state)
{
	struct profile *p = rich_profile(true, true);
	struct report_opts o = {};
	enum report_value v = REPORT_VALUE_WALL;
	char *text;

	(void)state;
	assert_int_equal(report_value__parse("offcpu", &v), 0);
	assert_int_equal(v, REPORT_VALUE_OFFCPU);
	assert_int_equal(report_value__parse("wall", &v), 0);
	assert_int_equal(v, REPORT_VALUE_WALL);
	assert_int_equal(report_value__parse("samples", &v), 0);
	assert_int_equal(v, REPORT_VALUE_SAMPLES);
	assert_int_equal(report_value__parse("off-cpu", &v), -EINVAL);
	assert_int_equal(report_value__parse(NULL, &v), -EINVAL);
	assert_int_equal(REPORT_VALUE_SAMPLES, 0);

	/* a stack seen only off CPU */
	ADD_STACK(p, 1234, 0x6, MARK("Sleep", "sleep.c:1"));
	ADD_OFFCPU(p, 1234, 1234, 0x6, 3000000);
	/* samples (the default): as without off-CPU time, no line of 0, and
	 * the event view has no stacks to show */
	text = render_folded(p, &o);
	assert_string_equal(text, "(no feature) 20\n"
				  "Generic%20sequences;fizzbuzz.c:3 20\n"
				  "Output;fizzbuzz.c:7 10\n"
				  "Output;fizzbuzz.c:8 70\n");
	free(text);
	o.folded_value = REPORT_VALUE_OFFCPU;
	text = render_folded(p, &o);
	assert_string_equal(text, "(no feature) 32500000\n"
				  "Output;fizzbuzz.c:8 40000000\n"
				  "Sleep;sleep.c:1 3000000\n");
	free(text);
	o.folded_value = REPORT_VALUE_WALL;
	text = render_folded(p, &o);
	assert_string_equal(text, "(no feature) 52500000\n"
				  "Generic%20sequences;fizzbuzz.c:3 20000000\n"
				  "Output;fizzbuzz.c:7 10000000\n"
				  "Output;fizzbuzz.c:8 110000000\n"
				  "Sleep;sleep.c:1 3000000\n");
	free(text);
	/* --min-pct: of all the off-CPU time (75.5 ms): Sleep's 3 ms is under 5% */
	o.folded_value = REPORT_VALUE_OFFCPU;
	o.min_pct = 5;
	o.by = REPORT_BY_THREAD;
	text = render_folded(p, &o);
	assert_string_equal(text, "demo (1234);demo (1234);(no feature) 2500000\n"
				  "demo (1234);demo (1234);Output;fizzbuzz.c:8 40000000\n"
				  "demo (1234);demo (1234);Sleep;(other instances) 3000000\n"
				  "demo (1234);worker (1235);(no feature) 30000000\n");
	free(text);
	/* --feature with none of the value: nothing, -ENOENT */
	o.feature = "Generic sequences";
	text = render_folded_rc(p, &o, -ENOENT);
	assert_string_equal(text, "");
	free(text);
	o.feature = NULL;
	o.folded_value = 3;
	text = render_folded_rc(p, &o, -EINVAL);
	free(text);
	profile__free(p);
}

static void test_folded_write_error(void **state)
{
	struct profile *p = *state;
	FILE *f = fopen("/dev/full", "w");

	if (!f)
		skip();
	assert_int_equal(report__folded(f, p, NULL), -ENOSPC);
	fclose(f);
	assert_int_equal(report__folded(NULL, p, NULL), -EINVAL);
	assert_int_equal(report__folded(stdout, NULL, NULL), -EINVAL);
}

static void test_folded_filter(void **state)
{
	struct report_opts o = {.comm = "nginx", .by = REPORT_BY_THREAD};
	struct profile *p = container_profile();
	char *text;

	(void)state;
	text = render_folded(p, &o);
	assert_string_equal(text, "nginx (5000);nginx (5000);Output;srv.c:1 30\n"
				  "nginx (5000);nginx (5001);Parse;req.c:4 10\n");
	free(text);
	/* --min-pct is of the kept processes' samples: 10 of 60 is over 15% */
	o = (struct report_opts){.pid = "1", .min_pct = 15};
	text = render_folded(p, &o);
	assert_string_equal(text, "Output;srv.c:1 30\n"
				  "Parse;cmd.c:2 20\n"
				  "Parse;req.c:4 10\n");
	free(text);
	o.min_pct = 20;
	text = render_folded(p, &o);
	assert_string_equal(text, "Output;srv.c:1 30\n"
				  "Parse;(other instances) 10\n"
				  "Parse;cmd.c:2 20\n");
	free(text);
	/* nothing kept: no lines, no error; with --feature, -ENOENT */
	o.pid = "999";
	text = render_folded(p, &o);
	assert_string_equal(text, "");
	free(text);
	o.feature = "Parse";
	text = render_folded_rc(p, &o, -ENOENT);
	free(text);
	o.pid = "x";
	text = render_folded_rc(p, &o, -EINVAL);
	free(text);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_folded_by_feature, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folded_by_process_and_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folded_min_pct_and_feature, setup, teardown),
		cmocka_unit_test(test_folded_escaping),
		cmocka_unit_test(test_folded_merged_and_unknown),
		cmocka_unit_test(test_folded_values),
		cmocka_unit_test_setup_teardown(test_folded_write_error, setup, teardown),
		cmocka_unit_test(test_folded_filter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
