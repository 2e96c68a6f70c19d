// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the views every renderer shares (analysis/render/view/):
 * the words of --by and --order, --pid lists, the process filter
 * (report__filter) and namespaced PIDs as the text report shows them, and
 * --feature lists in the text report, folded stacks and pprof.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "render_helpers.h"

/* ---- parsers ------------------------------------------------------------------------------- */

static void test_parse(void **state)
{
	enum report_order o = REPORT_ORDER_COST;
	enum report_by b = REPORT_BY_FEATURE;

	(void)state;
	assert_int_equal(report_by__parse("thread", &b), 0);
	assert_int_equal(b, REPORT_BY_THREAD);
	assert_int_equal(report_by__parse("process", &b), 0);
	assert_int_equal(b, REPORT_BY_PROCESS);
	assert_int_equal(report_by__parse("feature", &b), 0);
	assert_int_equal(b, REPORT_BY_FEATURE);
	assert_int_equal(report_by__parse("Thread", &b), -EINVAL);
	assert_int_equal(report_by__parse("", &b), -EINVAL);
	assert_int_equal(report_by__parse(NULL, &b), -EINVAL);
	assert_int_equal(b, REPORT_BY_FEATURE);

	assert_int_equal(report_order__parse("samples", &o), 0);
	assert_int_equal(o, REPORT_ORDER_SAMPLES);
	assert_int_equal(report_order__parse("name", &o), 0);
	assert_int_equal(o, REPORT_ORDER_NAME);
	assert_int_equal(report_order__parse("cost", &o), 0);
	assert_int_equal(o, REPORT_ORDER_COST);
	assert_int_equal(report_order__parse("time", &o), -EINVAL);
	assert_int_equal(report_order__parse("cost ", &o), -EINVAL);
	assert_int_equal(o, REPORT_ORDER_COST);
	/* the zero value of the options is the default view */
	assert_int_equal(REPORT_BY_FEATURE, 0);
	assert_int_equal(REPORT_ORDER_COST, 0);
}

static void test_report_pids_parse(void **state)
{
	uint32_t pids[3] = {};

	(void)state;
	assert_int_equal(report_pids__parse("12,7", pids, 3), 2);
	assert_int_equal(pids[0], 12);
	assert_int_equal(pids[1], 7);
	/* empty elements are skipped; the count is of all PIDs */
	assert_int_equal(report_pids__parse(",1,,2,3,4,", pids, 3), 4);
	assert_int_equal(pids[2], 3);
	assert_int_equal(report_pids__parse("4194304", NULL, 0), 1);
	assert_int_equal(report_pids__parse("4194305", NULL, 0), -EINVAL);
	assert_int_equal(report_pids__parse("99999999999999999999999", NULL, 0), -EINVAL);
	assert_int_equal(report_pids__parse("0", NULL, 0), -EINVAL);
	assert_int_equal(report_pids__parse("1 ,2", NULL, 0), -EINVAL);
	assert_int_equal(report_pids__parse("-1", NULL, 0), -EINVAL);
	assert_int_equal(report_pids__parse("+1", NULL, 0), -EINVAL);
	assert_int_equal(report_pids__parse(",", NULL, 0), -EINVAL);
	assert_int_equal(report_pids__parse("", NULL, 0), -EINVAL);
	assert_int_equal(report_pids__parse(NULL, NULL, 0), -EINVAL);
}

/* ---- namespaced PIDs, process filters, feature lists --------------------------------------- */

/* report__filter: the kept processes' records, everything else as it was. */
static void test_report_filter(void **state)
{
	struct report_opts o = {.comm = "nginx"};
	struct profile *p = container_profile(), *f;
	struct profile_process pr;
	struct profile_thread t;
	struct profile_event ev;

	(void)state;
	ADD_OFFCPU(p, 5000, 5001, 2, 7000000);
	ADD_OFFCPU(p, 1234, 1234, 1, 1000000);
	profile__set_diag(p, DIAG_LOST_SAMPLES, 3);
	assert_int_equal(report__filter(p, NULL, &f), 0);
	assert_null(f);
	assert_int_equal(report__filter(p, &(struct report_opts){.feature = "Output"}, &f), 0);
	assert_null(f);
	assert_int_equal(report__filter(NULL, &o, &f), -EINVAL);
	assert_int_equal(report__filter(p, &o, NULL), -EINVAL);

	assert_int_equal(report__filter(p, &o, &f), 0);
	assert_non_null(f);
	assert_string_equal(profile__meta(f)->target, "pid 1234 (demo)");
	assert_true(profile__diag(f, DIAG_LOST_SAMPLES) == 3);
	assert_int_equal(profile__nr_pids(f), 1);
	assert_int_equal(profile__process(f, 0, &pr), 0);
	assert_int_equal(pr.pid, 5000);
	assert_int_equal(pr.nspid, 1);
	assert_int_equal(profile__nr_threads(f), 2);
	assert_int_equal(profile__thread(f, 1, &t), 0);
	assert_int_equal(t.tid, 5001);
	assert_string_equal(t.comm, "nginx");
	assert_int_equal(profile__nr_stacks(f), 2);
	assert_int_equal(profile__nr_samples(f), 2);
	assert_true(profile__total_samples(f) == 40);
	assert_true(profile__total_offcpu_ns(f) == 7000000);
	assert_int_equal(profile__nr_events(f), 1);
	assert_int_equal(profile__event(f, 0, &ev), 0);
	assert_int_equal(ev.pid, 5000);
	assert_true(ev.stats->enters == 100);
	profile__free(f);
	profile__free(p);

	/* a merged profile keeps its sources (and so its process names) */
	p = merged_profile();
	o.comm = "app";
	o.pid = "100";
	assert_int_equal(report__filter(p, &o, &f), 0);
	assert_int_equal(profile__nr_sources(f), 4);
	assert_int_equal(profile__nr_pids(f), 4);
	assert_true(profile__total_samples(f) == profile__total_samples(p));
	profile__free(f);
	o.pid = "101";
	assert_int_equal(report__filter(p, &o, &f), 0);
	assert_int_equal(profile__nr_sources(f), 4);
	assert_int_equal(profile__nr_pids(f), 0);
	assert_int_equal(profile__nr_samples(f), 0);
	profile__free(f);
	profile__free(p);
}

static void test_text_nspid(void **state)
{
	struct report_opts o = {.by = REPORT_BY_PROCESS};
	struct profile *p = container_profile(), *q;
	char *text, *plain;

	(void)state;
	text = render_text(p, &o);
	/* a process in its own namespace: "pid N in its namespace" */
	ASSERT_LINE(text, "process 5000",
		    "process 5000 (nginx, pid 1 in its namespace): 40.0 ms, 25.00% of running "
		    "time (40 samples, 2 threads)");
	ASSERT_LINE(text, "process 1234",
		    "process 1234 (demo): 100.0 ms, 62.50% of running time (100 samples, 2 "
		    "threads)");
	free(text);
	o.by = REPORT_BY_THREAD;
	text = render_text(p, &o);
	ASSERT_LINE(text, "thread 5001",
		    "thread 5001 (nginx) of pid 5000 (pid 1 in its namespace): 10.0 ms, 6.25% of "
		    "running time (10 samples)");
	ASSERT_LINE(text, "thread 1235",
		    "thread 1235 (worker) of pid 1234: 40.0 ms, 25.00% of running time (40 "
		    "samples)");
	free(text);

	/* without a comm; the same PID in both namespaces is not repeated */
	q = profile__new();
	assert_non_null(q);
	assert_int_equal(profile__set_process_nspid(q, 7, 3), 0);
	assert_int_equal(profile__set_process_nspid(q, 8, 8), 0);
	ADD_STACK(q, 7, 1, MARK("F", "f"));
	ADD_STACK(q, 8, 1, MARK("F", "f"));
	ADD_SAMPLES(q, 7, 7, 1, 1);
	ADD_SAMPLES(q, 8, 9, 1, 1);
	o.by = REPORT_BY_PROCESS;
	o.order = REPORT_ORDER_NAME;
	text = render_text(q, &o);
	ASSERT_LINE(text, "process 7",
		    "process 7 (pid 3 in its namespace): 0.0 ms, 50.00% of "
		    "running time (1 sample, 1 thread)");
	ASSERT_LINE(text, "process 8",
		    "process 8: 0.0 ms, 50.00% of running time (1 sample, 1 "
		    "thread)");
	free(text);
	o.by = REPORT_BY_THREAD;
	text = render_text(q, &o);
	ASSERT_LINE(text, "thread 7",
		    "thread 7 of pid 7 (pid 3 in its namespace): 0.0 ms, 50.00% "
		    "of running time (1 sample)");
	ASSERT_LINE(text, "thread 9",
		    "thread 9 of pid 8: 0.0 ms, 50.00% of running time (1 "
		    "sample)");
	free(text);
	profile__free(q);

	/* the feature view names no process: the same report either way */
	o = (struct report_opts){};
	text = render_text(p, &o);
	assert_int_equal(profile__set_process_nspid(p, 5000, 0), 0);
	assert_int_equal(profile__set_process_nspid(p, 6000, 0), 0);
	plain = render_text(p, &o);
	assert_string_equal(text, plain);
	free(text);
	free(plain);
	profile__free(p);
}

static void test_text_filter_comm(void **state)
{
	struct report_opts o = {.comm = "nginx"};
	struct profile *p = container_profile();
	char *text, *h;

	(void)state;
	text = render_text(p, &o);
	/* the report of nginx alone: its samples are the running time, its
	 * events the calls; the header says so */
	assert_true(
		!strncmp(text,
			 "fsp-bpf 0.1.0: feature profile of pid 1234 (demo)\n"
			 "  filter: comm nginx: 1 of 3 processes, 40 of 160 samples (25.00%); "
			 "shares are of its time\n"
			 "  3.00 s, 1000 Hz (1.000 ms per sample), 40 samples = 40.0 ms on CPU, "
			 "1 process, 2 threads\n"
			 "  events: 100 calls counted by the probes, 100 returned\n\n",
			 strlen("fsp-bpf 0.1.0: feature profile of pid 1234 (demo)\n"
				"  filter: comm nginx: 1 of 3 processes, 40 of 160 samples "
				"(25.00%); shares are of its time\n"
				"  3.00 s, 1000 Hz (1.000 ms per sample), 40 samples = 40.0 ms "
				"on CPU, 1 process, 2 threads\n"
				"  events: 100 calls counted by the probes, 100 returned\n\n")));
	assert_string_equal(
		body(text),
		"Output accounts for 75.00% of running time (30.0 / 40.0 ms, 30 "
		"samples); 100 calls, 50.0 us/call, max 90.0 us\n"
		"      30.0 ms  75.00%        100 calls 50.0 us/call  max 90.0 us  "
		"srv.c:1\n"
		"Parse accounts for 25.00% of running time (10.0 / 40.0 ms, 10 "
		"samples)\n"
		"      10.0 ms  25.00%          - calls       -/call  max       -  "
		"req.c:4\n"
		"\n"
		"Note: each sample is charged to every feature with a live mark in its "
		"thread, so the shares above\n"
		"may sum to more than 100%, and samples in no feature (here 0.00%) make "
		"them sum to less.\n"
		"Calls are counted by the probes, not sampled: time per call and max are "
		"of the calls that\n"
		"returned, from enter to leave less the feature's antimarks, time off CPU "
		"and in nested\n"
		"features included.\n");
	free(text);

	/* a process without events: no event columns; sections' shares of the
	 * filtered time */
	o = (struct report_opts){.comm = "demo,redis-server", .by = REPORT_BY_PROCESS};
	text = render_text(p, &o);
	assert_null(strstr(text, "calls"));
	ASSERT_LINE(text, "  filter:",
		    "  filter: comm demo,redis-server: 2 of 3 processes, 120 of 160 samples "
		    "(75.00%); shares are of their time");
	ASSERT_LINE(text, "process 1234",
		    "process 1234 (demo): 100.0 ms, 83.33% of running time (100 samples, 2 "
		    "threads)");
	ASSERT_LINE(text, "process 6000",
		    "process 6000 (redis-server, pid 1 in its namespace): 20.0 ms, 16.67% of "
		    "running time (20 samples, 1 thread)");
	assert_null(strstr(text, "nginx"));
	assert_non_null(strstr(text, "samples in no feature (here 33.33%)"));
	free(text);

	/* the comm is the main thread's; a name longer than 15 bytes matches
	 * the comm the kernel cut it to */
	o = (struct report_opts){.comm = "worker"};
	text = render_text(p, &o);
	assert_string_equal(body(text), "no process of this profile matches the filter\n");
	ASSERT_LINE(text, "  filter:",
		    "  filter: comm worker: 0 of 3 processes, 0 of 160 samples "
		    "(0.00%)");
	free(text);
	assert_int_equal(profile__add_thread(p, 7000, 7000, "a-very-long-nam"), 0);
	ADD_STACK(p, 7000, 1, MARK("Long", "l"));
	ADD_SAMPLES(p, 7000, 7000, 1, 8);
	o.comm = "a-very-long-name-indeed,redis";
	o.by = REPORT_BY_PROCESS;
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h, "process 7000 (a-very-long-nam)|Long|l|");
	free(h);
	free(text);
	o.comm = "a-very-long-na";
	text = render_text(p, &o);
	assert_non_null(strstr(text, "no process of this profile matches the filter\n"));
	free(text);

	/* a list without a name */
	o.comm = ",";
	text = render_text_rc(p, &o, -EINVAL);
	assert_string_equal(text, "");
	free(text);
	profile__free(p);
}

static void test_text_filter_pid(void **state)
{
	struct report_opts o = {.pid = "1", .by = REPORT_BY_PROCESS};
	struct profile *p = container_profile();
	char *text, *h;

	(void)state;
	/* a PID in a container's namespace: both containers' init */
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h,
			    "process 5000 (nginx, pid 1 in its namespace)|Output|srv.c:1|"
			    "Parse|req.c:4|"
			    "process 6000 (redis-server, pid 1 in its namespace)|Parse|cmd.c:2|");
	free(h);
	ASSERT_LINE(text, "process 5000",
		    "process 5000 (nginx, pid 1 in its namespace): 40.0 ms, 66.67% of running "
		    "time (40 samples, 2 threads)");
	ASSERT_LINE(text, "  filter:",
		    "  filter: pid 1: 2 of 3 processes, 60 of 160 samples "
		    "(37.50%); shares are of their time");
	free(text);

	/* host PIDs; with --comm, the processes matching both */
	o.pid = "6000,1234";
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h,
			    "process 1234 (demo)|Output|fizzbuzz.c:8|"
			    "process 6000 (redis-server, pid 1 in its namespace)|Parse|cmd.c:2|");
	free(h);
	free(text);
	o.comm = "nginx,redis-server";
	o.pid = "1";
	o.by = REPORT_BY_FEATURE;
	text = render_text(p, &o);
	ASSERT_LINE(text, "  filter:",
		    "  filter: comm nginx,redis-server and pid 1: 2 of 3 "
		    "processes, 60 of 160 samples (37.50%); shares are of "
		    "their time");
	ASSERT_LINE(text, "Parse",
		    "Parse accounts for 50.00% of running time (30.0 / 60.0 ms, "
		    "30 samples)");
	free(text);
	o.pid = "5000,4";
	text = render_text(p, &o);
	ASSERT_LINE(text, "  filter:",
		    "  filter: comm nginx,redis-server and pid 5000,4: 1 of 3 "
		    "processes, 40 of 160 samples (25.00%); shares are of "
		    "its time");
	free(text);

	/* PID lists that do not parse */
	o.comm = NULL;
	o.pid = "12x";
	text = render_text_rc(p, &o, -EINVAL);
	free(text);
	o.pid = "";
	text = render_text_rc(p, &o, -EINVAL);
	free(text);
	o.pid = "0";
	text = render_text_rc(p, &o, -EINVAL);
	free(text);
	profile__free(p);
}

/* Filters with off-CPU time: the off-CPU total and the wall-clock view are
 * the kept processes'. */
static void test_text_filter_offcpu(void **state)
{
	struct report_opts o = {.pid = "5000"};
	struct profile *p = container_profile();
	char *text;

	(void)state;
	ADD_OFFCPU(p, 5000, 5001, 2, 7000000);
	ADD_OFFCPU(p, 1234, 1234, 1, 1000000);
	text = render_text(p, &o);
	ASSERT_LINE(text, "  off CPU:",
		    "  off CPU: 7.0 ms (blocked, sleeping or waiting for a "
		    "CPU); 47.0 ms on + off CPU");
	ASSERT_LINE(text, "Wall-clock view:",
		    "Wall-clock view: on CPU + off CPU = wall-clock time, shares of 47.0 ms "
		    "(40.0 ms on CPU + 7.0 ms off CPU)");
	free(text);
	/* one without off-CPU time: as if the session had measured none */
	o.pid = "6000";
	text = render_text(p, &o);
	assert_null(strstr(text, "off CPU"));
	assert_null(strstr(text, "off-CPU"));
	free(text);
	profile__free(p);
}

static void test_feature_lists(void **state)
{
	struct report_opts o = {.feature = "Parse,Output"};
	struct profile *p = container_profile();
	Perftools__Profiles__Profile *prof;
	char *text, *h;

	(void)state;
	/* two features, in the report's order; the note on sums is back */
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h, "Output|fizzbuzz.c:8|srv.c:1|Parse|cmd.c:2|req.c:4|");
	free(h);
	assert_non_null(strstr(text, "\nNote: each sample is charged to every feature"));
	free(text);
	/* one of them unknown: the other is shown, and the unknown named */
	o.feature = "Nope,Parse,Parse";
	text = render_text(p, &o);
	assert_true(!strncmp(body(text),
			     "no feature Nope in this profile\n"
			     "Parse accounts for 18.75% of running time (30.0 / 160.0 ms, 30 "
			     "samples)\n",
			     strlen("no feature Nope in this profile\n"
				    "Parse accounts for 18.75% of running time (30.0 / 160.0 ms, "
				    "30 samples)\n")));
	assert_null(strstr(text, "\nNote:"));
	assert_null(strstr(text, "Output"));
	free(text);
	o.by = REPORT_BY_PROCESS;
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h,
			    "process 5000 (nginx, pid 1 in its namespace)|Parse|req.c:4|"
			    "process 6000 (redis-server, pid 1 in its namespace)|Parse|cmd.c:2|");
	free(h);
	assert_non_null(strstr(text, "\n\nno feature Nope in this profile\n\nprocess 5000"));
	assert_non_null(strstr(text, "\n... 1 more process not charged to Parse\n"));
	free(text);
	/* none known: -ENOENT, every name said */
	o = (struct report_opts){.feature = "Nope,Zed"};
	text = render_text_rc(p, &o, -ENOENT);
	assert_string_equal(body(text), "no feature Nope or Zed in this profile\n"
					"its features are: Output, Parse\n");
	free(text);
	text = render_folded_rc(p, &o, -ENOENT);
	assert_string_equal(text, "");
	free(text);
	o.feature = ",";
	text = render_text_rc(p, &o, -ENOENT);
	assert_string_equal(body(text), "no feature name was given\n"
					"its features are: Output, Parse\n");
	free(text);

	/* folded and pprof */
	o.feature = "Nope,Parse,Output";
	text = render_folded(p, &o);
	assert_string_equal(text, "Output;fizzbuzz.c:8 60\n"
				  "Output;srv.c:1 30\n"
				  "Parse;cmd.c:2 20\n"
				  "Parse;req.c:4 10\n");
	free(text);
	o.feature = "Parse,Nope";
	prof = render_pprof(p, &o);
	assert_int_equal(prof->n_sample, 2);
	assert_int_equal(prof->n_function, 3);
	perftools__profiles__profile__free_unpacked(prof, NULL);
	profile__free(p);

	/* a feature whose name has a comma is still one name */
	p = profile__new();
	assert_non_null(p);
	ADD_STACK(p, 1, 1, MARK("a,b", "x"));
	ADD_STACK(p, 1, 2, MARK("a", "y"));
	ADD_SAMPLES(p, 1, 1, 1, 3);
	ADD_SAMPLES(p, 1, 1, 2, 1);
	o = (struct report_opts){.feature = "a,b"};
	text = render_folded(p, &o);
	assert_string_equal(text, "a,b;x 3\n");
	free(text);
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h, "a,b|x|");
	free(h);
	free(text);
	o.feature = "b,a";
	text = render_folded(p, &o);
	assert_string_equal(text, "a;y 1\n");
	free(text);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_report_pids_parse),
		cmocka_unit_test(test_report_filter),
		cmocka_unit_test(test_text_nspid),
		cmocka_unit_test(test_text_filter_comm),
		cmocka_unit_test(test_text_filter_pid),
		cmocka_unit_test(test_text_filter_offcpu),
		cmocka_unit_test(test_feature_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
