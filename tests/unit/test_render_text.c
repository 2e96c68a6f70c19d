// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the text report (analysis/render/text/): the marks line of
 * its header, --by feature, thread and process, --order, --feature, the
 * sections' edge cases and the names of a merged profile's sources. The
 * event view and off-CPU time: test_render_text_events.c; the process
 * filters: test_render_filter.c.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "render_helpers.h"

/* ---- text: the header, --by, --order, --feature -------------------------------------------- */

/* The header says which marks the session read, in words (unknown tokens as
 * they are); no line when the profile does not say. */
static void test_text_marks(void **state)
{
	struct profile_meta m = demo_meta;
	struct report_opts o = {};
	struct profile *p = order_profile();
	char *text;

	(void)state;
	text = render_text(p, &o);
	assert_null(strstr(text, "marks:"));
	free(text);
	m.marks = "v2,v1,v2-events,mapped,v9";
	assert_int_equal(profile__set_meta(p, &m), 0);
	text = render_text(p, &o);
	assert_non_null(
		strstr(text, "\n  marks: probe ABI v2 (stacks in the process's memory, no traps); "
			     "probe ABI v1 (a uprobe trap per mark); ABI v2 marks also trapped "
			     "for exact counts (--events); probe maps (a uprobe trap per probe); "
			     "v9\n"));
	free(text);
	profile__free(p);
}

static void test_text_default_opts(void **state)
{
	struct report_opts o = {}, c = {.by = REPORT_BY_FEATURE, .order = REPORT_ORDER_COST};
	struct profile *p = *state;
	char *a, *b, *n;

	a = render_text(p, &o);
	b = render_text(p, &c);
	n = render_text(p, NULL);
	assert_string_equal(a, n);
	assert_string_equal(b, n);
	assert_non_null(strstr(n, "\nOutput accounts for 80.00% of running time (80.0 / 100.0 ms, "
				  "80 samples)\n"
				  "      70.0 ms  70.00%  fizzbuzz.c:8\n"
				  "      10.0 ms  10.00%  fizzbuzz.c:7\n"
				  "Generic sequences accounts for 20.00%"));
	free(a);
	free(b);
	free(n);

	/* an unknown view is refused rather than guessed */
	o.by = 7;
	a = render_text_rc(p, &o, -EINVAL);
	assert_string_equal(a, "");
	free(a);
	o.by = REPORT_BY_FEATURE;
	o.order = 3;
	a = render_text_rc(p, &o, -EINVAL);
	free(a);
}

static void test_text_by_thread(void **state)
{
	struct report_opts o = {.by = REPORT_BY_THREAD};
	struct profile *p = *state;
	char *text = render_text(p, &o);

	assert_string_equal(
		body(text),
		"thread 1234 (demo) of pid 1234: 85.0 ms, 85.00% of running time (85 samples)\n"
		"  Output accounts for 82.35% of the thread's time (70.0 / 85.0 ms, 70 samples)\n"
		"        70.0 ms  82.35%  fizzbuzz.c:8\n"
		"  Generic sequences accounts for 23.53% of the thread's time (20.0 / 85.0 ms, "
		"20 samples)\n"
		"        20.0 ms  23.53%  fizzbuzz.c:3\n"
		"  no feature: 17.65% of the thread's time (15.0 / 85.0 ms, 15 samples)\n"
		"\n"
		"thread 1235 (worker) of pid 1234: 15.0 ms, 15.00% of running time (15 samples)\n"
		"  Output accounts for 66.67% of the thread's time (10.0 / 15.0 ms, 10 samples)\n"
		"        10.0 ms  66.67%  fizzbuzz.c:7\n"
		"  no feature: 33.33% of the thread's time (5.0 / 15.0 ms, 5 samples)\n"
		"\n"
		"Note: each sample is charged to every feature with a live mark in its thread, so "
		"the shares above\n"
		"may sum to more than 100%, and samples in no feature (here 20.00%) make them sum "
		"to less.\n");
	free(text);

	/* the header is the default report's */
	text = render_text(p, &o);
	assert_true(!strncmp(text,
			     "fsp-bpf 0.1.0: feature profile of pid 1234 (demo)\n"
			     "  3.00 s, 1000 Hz (1.000 ms per sample), 100 samples = 100.0 ms on "
			     "CPU, 1 process, 2 threads\n\nthread 1234",
			     strlen("fsp-bpf 0.1.0: feature profile of pid 1234 (demo)\n"
				    "  3.00 s, 1000 Hz (1.000 ms per sample), 100 samples = 100.0 "
				    "ms on CPU, 1 process, 2 threads\n\nthread 1234")));
	assert_non_null(strstr(text, "\nDiagnostics: all counters are zero"));
	free(text);

	/* --min-pct folds threads (of running time) and, inside, features and
	 * instances (of the thread's time) */
	o.min_pct = 20;
	text = render_text(p, &o);
	assert_string_equal(
		body(text),
		"thread 1234 (demo) of pid 1234: 85.0 ms, 85.00% of running time (85 samples)\n"
		"  Output accounts for 82.35% of the thread's time (70.0 / 85.0 ms, 70 samples)\n"
		"        70.0 ms  82.35%  fizzbuzz.c:8\n"
		"  Generic sequences accounts for 23.53% of the thread's time (20.0 / 85.0 ms, "
		"20 samples)\n"
		"        20.0 ms  23.53%  fizzbuzz.c:3\n"
		"  no feature: 17.65% of the thread's time (15.0 / 85.0 ms, 15 samples)\n"
		"\n"
		"... 1 more thread below 20.00% of running time (15.0 ms)\n"
		"\n"
		"Note: each sample is charged to every feature with a live mark in its thread, so "
		"the shares above\n"
		"may sum to more than 100%, and samples in no feature (here 20.00%) make them sum "
		"to less.\n");
	free(text);
	o.min_pct = 90;
	text = render_text(p, &o);
	assert_non_null(strstr(text, "\n\n... 2 threads below 90.00% of running time (100.0 ms)\n"
				     "\nNote:"));
	free(text);
	o.min_pct = 24;
	text = render_text(p, &o);
	assert_non_null(strstr(text, "        70.0 ms  82.35%  fizzbuzz.c:8\n"
				     "  ... 1 more feature below 24.00% of the thread's time\n"
				     "  no feature: 17.65%"));
	free(text);
}

static void test_text_by_process(void **state)
{
	struct report_opts o = {.by = REPORT_BY_PROCESS, .order = REPORT_ORDER_NAME};
	struct profile *p = *state;
	char *text;

	ADD_STACK(p, 77, 0x1, MARK("Output", NULL));
	ADD_SAMPLES(p, 77, 78, 0x1, 4); /* no comm known: no name */
	text = render_text(p, &o);
	/* by name: the unnamed process ("") first; instances by name too */
	assert_string_equal(
		body(text),
		"process 77: 4.0 ms, 3.85% of running time (4 samples, 1 thread)\n"
		"  Output accounts for 100.00% of the process's time (4.0 / 4.0 ms, 4 samples)\n"
		"         4.0 ms 100.00%  (no instance)\n"
		"\n"
		"process 1234 (demo): 100.0 ms, 96.15% of running time (100 samples, 2 threads)\n"
		"  Generic sequences accounts for 20.00% of the process's time (20.0 / 100.0 ms, "
		"20 samples)\n"
		"        20.0 ms  20.00%  fizzbuzz.c:3\n"
		"  Output accounts for 80.00% of the process's time (80.0 / 100.0 ms, 80 samples)\n"
		"        10.0 ms  10.00%  fizzbuzz.c:7\n"
		"        70.0 ms  70.00%  fizzbuzz.c:8\n"
		"  no feature: 20.00% of the process's time (20.0 / 100.0 ms, 20 samples)\n"
		"\n"
		"Note: each sample is charged to every feature with a live mark in its thread, so "
		"the shares above\n"
		"may sum to more than 100%, and samples in no feature (here 19.23%) make them sum "
		"to less.\n");
	free(text);
	/* by cost: the bigger process first */
	o.order = REPORT_ORDER_COST;
	text = render_text(p, &o);
	assert_true(strstr(text, "\nprocess 1234 (demo)") < strstr(text, "\nprocess 77:"));
	free(text);
}

static void test_text_orders(void **state)
{
	struct profile *p = order_profile();
	struct report_opts o = {};
	char *text, *h;

	(void)state;
	/* cost and samples: C (60) then the tie A, B (30) by name */
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h, "C|c1|A|a2|a1|B|b1|");
	free(h);
	free(text);
	o.order = REPORT_ORDER_SAMPLES;
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h, "C|c1|A|a2|a1|B|b1|");
	free(h);
	free(text);
	o.order = REPORT_ORDER_NAME;
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h, "A|a1|a2|B|b1|C|c1|");
	free(h);
	free(text);

	/* threads: by cost zeta (60), then the tie alpha/alpha by (pid, tid);
	 * by name both alphas (by tid) before zeta */
	o.by = REPORT_BY_THREAD;
	o.order = REPORT_ORDER_COST;
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h, "thread 10 (zeta) of pid 10|C|c1|"
			       "thread 11 (alpha) of pid 10|B|b1|"
			       "thread 20 (alpha) of pid 20|A|a2|a1|");
	free(h);
	free(text);
	o.order = REPORT_ORDER_NAME;
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h, "thread 11 (alpha) of pid 10|B|b1|"
			       "thread 20 (alpha) of pid 20|A|a1|a2|"
			       "thread 10 (zeta) of pid 10|C|c1|");
	free(h);
	free(text);

	/* processes: 10 (zeta, 90) before 20 (alpha, 30) by cost and samples,
	 * after it by name */
	o.by = REPORT_BY_PROCESS;
	o.order = REPORT_ORDER_SAMPLES;
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h, "process 10 (zeta)|C|c1|B|b1|process 20 (alpha)|A|a2|a1|");
	assert_non_null(strstr(text, "process 10 (zeta): 90.0 ms, 75.00% of running time (90 "
				     "samples, 2 threads)\n"));
	free(h);
	free(text);
	o.order = REPORT_ORDER_NAME;
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h, "process 20 (alpha)|A|a1|a2|process 10 (zeta)|B|b1|C|c1|");
	free(h);
	free(text);
	profile__free(p);
}

/* With no period known, cost has no time: it orders as samples do. */
static void test_text_order_cost_without_period(void **state)
{
	struct profile *p = profile__new();
	struct report_opts o = {};
	char *text, *h;

	(void)state;
	assert_non_null(p);
	ADD_STACK(p, 1, 1, MARK("small", "s"));
	ADD_STACK(p, 1, 2, MARK("big", "b"));
	ADD_SAMPLES(p, 1, 1, 1, 1);
	ADD_SAMPLES(p, 1, 1, 2, 9);
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h, "big|b|small|s|");
	free(h);
	free(text);
	profile__free(p);
}

static void test_text_feature(void **state)
{
	struct report_opts o = {.feature = "Output"};
	struct profile *p = *state;
	char *text;

	text = render_text(p, &o);
	/* only that feature, all its instances, no note about sums */
	assert_string_equal(body(text),
			    "Output accounts for 80.00% of running time (80.0 / 100.0 ms, 80 "
			    "samples)\n"
			    "      70.0 ms  70.00%  fizzbuzz.c:8\n"
			    "      10.0 ms  10.00%  fizzbuzz.c:7\n");
	free(text);

	/* --min-pct still folds its instances; the feature itself is shown
	 * even under the threshold */
	o.min_pct = 50;
	text = render_text(p, &o);
	assert_string_equal(body(text),
			    "Output accounts for 80.00% of running time (80.0 / 100.0 ms, 80 "
			    "samples)\n"
			    "      70.0 ms  70.00%  fizzbuzz.c:8\n"
			    "      ... 1 more instance below 50.00% (10.0 ms)\n");
	free(text);
	o.feature = "Generic sequences";
	text = render_text(p, &o);
	assert_non_null(strstr(text, "\nGeneric sequences accounts for 20.00% of running time "
				     "(20.0 / 100.0 ms, 20 samples)\n"
				     "      ... 1 instance below 50.00% (20.0 ms)\n"));
	assert_null(strstr(text, "Output"));
	free(text);

	/* by order name, as the default report */
	o = (struct report_opts){.feature = "Output", .order = REPORT_ORDER_NAME};
	text = render_text(p, &o);
	assert_non_null(strstr(text, "fizzbuzz.c:7\n      70.0 ms  70.00%  fizzbuzz.c:8\n"));
	free(text);

	/* by thread: the threads it was charged in */
	o = (struct report_opts){.feature = "Generic sequences", .by = REPORT_BY_THREAD};
	text = render_text(p, &o);
	assert_string_equal(body(text),
			    "thread 1234 (demo) of pid 1234: 85.0 ms, 85.00% of running time (85 "
			    "samples)\n"
			    "  Generic sequences accounts for 23.53% of the thread's time (20.0 / "
			    "85.0 ms, 20 samples)\n"
			    "        20.0 ms  23.53%  fizzbuzz.c:3\n"
			    "\n"
			    "... 1 more thread not charged to Generic sequences\n");
	free(text);
	o.min_pct = 20;
	text = render_text(p, &o);
	assert_non_null(strstr(text, "        20.0 ms  23.53%  fizzbuzz.c:3\n"
				     "\n"
				     "... 1 more thread below 20.00% of running time (15.0 ms)\n"
				     "\nDiagnostics"));
	free(text);
}

static void test_text_feature_missing(void **state)
{
	struct report_opts o = {.feature = "output"}; /* names are exact */
	struct profile *p = *state, *empty;
	char *text;

	text = render_text_rc(p, &o, -ENOENT);
	/* the report is whole: header and diagnostics */
	assert_non_null(strstr(text, "100 samples = 100.0 ms on CPU"));
	assert_non_null(strstr(text, "\nDiagnostics: all counters are zero"));
	assert_string_equal(body(text), "no feature output in this profile\n"
					"its features are: Generic sequences, Output\n");
	free(text);
	o.by = REPORT_BY_PROCESS;
	text = render_text_rc(p, &o, -ENOENT);
	assert_string_equal(body(text), "no feature output in this profile\n"
					"its features are: Generic sequences, Output\n");
	free(text);

	/* a feature seen only under its antimark was charged nothing */
	empty = profile__new();
	assert_non_null(empty);
	ADD_STACK(empty, 1, 1, ANTI("Output"));
	ADD_SAMPLES(empty, 1, 1, 1, 3);
	o.feature = "Output";
	o.by = REPORT_BY_FEATURE;
	text = render_text_rc(empty, &o, -ENOENT);
	assert_string_equal(body(text),
			    "no feature was charged: none of the 3 samples had a live mark\n");
	free(text);
	o.by = REPORT_BY_THREAD;
	text = render_text_rc(empty, &o, -ENOENT);
	assert_string_equal(body(text),
			    "no feature was charged: none of the 3 samples had a live mark\n");
	free(text);
	/* without --feature that report is no error */
	o.feature = NULL;
	text = render_text(empty, &o);
	free(text);
	profile__free(empty);
}

static void test_text_sections_edge(void **state)
{
	struct report_opts o = {.by = REPORT_BY_THREAD};
	struct profile *p = *state, *q;
	char *text;

	/* a registered thread that was never sampled */
	assert_int_equal(profile__add_thread(p, 1234, 1236, "idle"), 0);
	text = render_text(p, &o);
	assert_non_null(strstr(text, "\nthread 1236 (idle) of pid 1234: 0.0 ms, 0.00% of running "
				     "time (0 samples)\n"
				     "  no samples were taken of this thread\n"));
	free(text);
	/* a thread sampled only outside features */
	ADD_SAMPLES(p, 1234, 1237, 0, 2);
	text = render_text(p, &o);
	assert_non_null(strstr(text, "\nthread 1237 of pid 1234: 2.0 ms, 1.96% of running time "
				     "(2 samples)\n"
				     "  no feature was charged: none of the 2 samples had a live "
				     "mark\n"));
	free(text);

	/* nothing sampled at all: the default report's line */
	q = profile__new();
	assert_non_null(q);
	assert_int_equal(profile__add_thread(q, 5, 5, "x"), 0);
	o.by = REPORT_BY_PROCESS;
	text = render_text(q, &o);
	assert_string_equal(body(text),
			    "no samples were taken of the target (was it running on a CPU?)\n");
	free(text);
	profile__free(q);
}

static void test_text_merged_names(void **state)
{
	struct report_opts o = {.by = REPORT_BY_PROCESS, .order = REPORT_ORDER_SAMPLES};
	struct profile *p = merged_profile();
	char *text, *h;

	(void)state;
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h, "process source 3:100 (app)|F|f|process beta#2:100 (app)|F|f|"
			       "process beta#1:100 (app)|F|f|process alpha:100 (app)|F|f|");
	free(h);
	free(text);
	o.by = REPORT_BY_THREAD;
	text = render_text(p, &o);
	assert_non_null(strstr(text, "\nthread 100 (app) of pid alpha:100: 10.0 ms, 10.00% of "
				     "running time (10 samples)\n"));
	free(text);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_marks),
		cmocka_unit_test_setup_teardown(test_text_default_opts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_by_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_by_process, setup, teardown),
		cmocka_unit_test(test_text_orders),
		cmocka_unit_test(test_text_order_cost_without_period),
		cmocka_unit_test_setup_teardown(test_text_feature, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_feature_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_sections_edge, setup, teardown),
		cmocka_unit_test(test_text_merged_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
