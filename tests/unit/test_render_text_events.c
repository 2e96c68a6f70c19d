// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the text report (analysis/render/text/) with the event view
 * (calls, time per call, max, histograms) and off-CPU time (its column and
 * the wall-clock view), under --min-pct, --feature and --order cost.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "render_helpers.h"

/* ---- text: the event view and off-CPU time ------------------------------------------------- */

#define NOTE_SHARES                                                                                \
	"Note: each sample is charged to every feature with a live mark in its thread, so the "    \
	"shares above\n"                                                                           \
	"may sum to more than 100%, and samples in no feature (here 20.00%) make them sum to "     \
	"less.\n"

#define NOTE_CALLS                                                                                 \
	"Calls are counted by the probes, not sampled: time per call and max are of the calls "    \
	"that\n"                                                                                   \
	"returned, from enter to leave less the feature's antimarks, time off CPU and in nested\n" \
	"features included.\n"

#define NOTE_OFFCPU                                                                                \
	"Off-CPU time is charged by the same rule as samples, but is not in the shares above:\n"   \
	"the wall-clock view adds it.\n"

#define WALL_HEADER                                                                                \
	"Wall-clock view: on CPU + off CPU = wall-clock time, shares of 172.5 ms (100.0 ms on "    \
	"CPU + 72.5 ms off CPU)\n"

/* The header's lines after the first two (the profile's totals). */
static char *header_extra(char *text)
{
	char *a = strchr(text, '\n'), *b, *end = strstr(text, "\n\n");

	assert_non_null(a);
	b = strchr(a + 1, '\n');
	assert_non_null(b);
	assert_non_null(end);
	end[1] = 0;
	return b + 1;
}

static void test_text_events(void **state)
{
	struct profile *p = rich_profile(true, false);
	struct report_opts o = {};
	char *text;

	(void)state;
	text = render_text(p, &o);
	assert_string_equal(header_extra(text),
			    "  events: 6205 calls counted by the probes, 6201 returned\n");
	free(text);
	/* columns calls, time per call, max on every line; "-" where the
	 * probes counted nothing or no call returned; the features sampling
	 * never saw are listed with their exact counts */
	text = render_text(p, &o);
	assert_string_equal(
		body(text),
		"Output accounts for 80.00% of running time (80.0 / 100.0 ms, 80 samples); 1200 "
		"calls, 100 us/call, max 1.20 ms\n"
		"      70.0 ms  70.00%       1000 calls  110 us/call  max 1.20 ms  fizzbuzz.c:8\n"
		"      10.0 ms  10.00%        200 calls 50.3 us/call  max 90.0 us  fizzbuzz.c:7\n"
		"Generic sequences accounts for 20.00% of running time (20.0 / 100.0 ms, 20 "
		"samples)\n"
		"      20.0 ms  20.00%          - calls       -/call  max       -  fizzbuzz.c:3\n"
		"Short accounts for 0.00% of running time (0.0 / 100.0 ms, 0 samples); 5003 calls, "
		"50.0 ns/call, max 120 ns\n"
		"       0.0 ms   0.00%       5000 calls 50.0 ns/call  max  120 ns  short.c:1\n"
		"       0.0 ms   0.00%          3 calls       -/call  max       -  short.c:2\n"
		"Tiny accounts for 0.00% of running time (0.0 / 100.0 ms, 0 samples); 2 calls, "
		"1.00 us/call, max 1.20 us\n"
		"       0.0 ms   0.00%          2 calls 1.00 us/call  max 1.20 us  (no instance)\n"
		"\n" NOTE_SHARES NOTE_CALLS);
	free(text);

	/* --by process: the same columns in the process's section */
	o.by = REPORT_BY_PROCESS;
	o.min_pct = 0.5;
	text = render_text(p, &o);
	assert_string_equal(
		body(text),
		"process 1234 (demo): 100.0 ms, 100.00% of running time (100 samples, 2 threads)\n"
		"  Output accounts for 80.00% of the process's time (80.0 / 100.0 ms, 80 samples); "
		"1200 calls, 100 us/call, max 1.20 ms\n"
		"        70.0 ms  70.00%       1000 calls  110 us/call  max 1.20 ms  fizzbuzz.c:8\n"
		"        10.0 ms  10.00%        200 calls 50.3 us/call  max 90.0 us  fizzbuzz.c:7\n"
		"  Generic sequences accounts for 20.00% of the process's time (20.0 / 100.0 ms, "
		"20 "
		"samples)\n"
		"        20.0 ms  20.00%          - calls       -/call  max       -  fizzbuzz.c:3\n"
		"  ... 2 more features below 0.50% of the process's time (5005 calls)\n"
		"  no feature: 20.00% of the process's time (20.0 / 100.0 ms, 20 samples)\n"
		"\n" NOTE_SHARES NOTE_CALLS);
	free(text);

	/* --by thread: the probes count per process, so no columns, and a
	 * word on where they are */
	o.by = REPORT_BY_THREAD;
	o.min_pct = 0;
	text = render_text(p, &o);
	assert_non_null(strstr(text, "\n  Output accounts for 82.35% of the thread's time (70.0 / "
				     "85.0 ms, 70 samples)\n"
				     "        70.0 ms  82.35%  fizzbuzz.c:8\n"));
	assert_null(strstr(text, "Short"));
	assert_non_null(strstr(text, "make them sum to less.\n"
				     "Calls are counted per process, not per thread: --by feature "
				     "or --by process shows them.\n\nDiagnostics"));
	assert_null(strstr(body(text), "calls "));
	free(text);
	profile__free(p);
}

static void test_text_offcpu(void **state)
{
	struct profile *p = rich_profile(false, true);
	struct report_opts o = {};
	char *text;

	(void)state;
	text = render_text(p, &o);
	assert_string_equal(header_extra(text), "  off CPU: 72.5 ms (blocked, sleeping or waiting "
						"for a CPU); 172.5 ms on + off CPU\n");
	free(text);
	text = render_text(p, &o);
	assert_string_equal(
		body(text),
		"Output accounts for 80.00% of running time (80.0 / 100.0 ms, 80 samples); off-CPU "
		"40.0 ms\n"
		"      70.0 ms  70.00%  off-CPU      40.0 ms  fizzbuzz.c:8\n"
		"      10.0 ms  10.00%  off-CPU       0.0 ms  fizzbuzz.c:7\n"
		"Generic sequences accounts for 20.00% of running time (20.0 / 100.0 ms, 20 "
		"samples); off-CPU 0.0 ms\n"
		"      20.0 ms  20.00%  off-CPU       0.0 ms  fizzbuzz.c:3\n"
		"\n" NOTE_SHARES NOTE_OFFCPU "\n" WALL_HEADER
		"      80.0 ms +       40.0 ms =      120.0 ms  69.57%  Output\n"
		"      20.0 ms +        0.0 ms =       20.0 ms  11.59%  Generic sequences\n"
		"      20.0 ms +       32.5 ms =       52.5 ms  30.43%  (no feature)\n");
	free(text);

	/* --by thread: each thread's off-CPU time, its features', its
	 * uncharged part's; the wall-clock view closes the report */
	o.by = REPORT_BY_THREAD;
	text = render_text(p, &o);
	assert_string_equal(
		body(text),
		"thread 1234 (demo) of pid 1234: 85.0 ms, 85.00% of running time (85 samples); "
		"off-CPU 42.5 ms\n"
		"  Output accounts for 82.35% of the thread's time (70.0 / 85.0 ms, 70 samples); "
		"off-CPU 40.0 ms\n"
		"        70.0 ms  82.35%  off-CPU      40.0 ms  fizzbuzz.c:8\n"
		"  Generic sequences accounts for 23.53% of the thread's time (20.0 / 85.0 ms, 20 "
		"samples); off-CPU 0.0 ms\n"
		"        20.0 ms  23.53%  off-CPU       0.0 ms  fizzbuzz.c:3\n"
		"  no feature: 17.65% of the thread's time (15.0 / 85.0 ms, 15 samples); off-CPU "
		"2.5 ms\n"
		"\n"
		"thread 1235 (worker) of pid 1234: 15.0 ms, 15.00% of running time (15 samples); "
		"off-CPU 30.0 ms\n"
		"  Output accounts for 66.67% of the thread's time (10.0 / 15.0 ms, 10 samples); "
		"off-CPU 0.0 ms\n"
		"        10.0 ms  66.67%  off-CPU       0.0 ms  fizzbuzz.c:7\n"
		"  no feature: 33.33% of the thread's time (5.0 / 15.0 ms, 5 samples); off-CPU "
		"30.0 ms\n"
		"\n" NOTE_SHARES NOTE_OFFCPU "\n" WALL_HEADER
		"      80.0 ms +       40.0 ms =      120.0 ms  69.57%  Output\n"
		"      20.0 ms +        0.0 ms =       20.0 ms  11.59%  Generic sequences\n"
		"      20.0 ms +       32.5 ms =       52.5 ms  30.43%  (no feature)\n");
	free(text);

	/* a selection: its samples and off-CPU time */
	{
		struct attrib_opts sel = {.pid = 1234, .tid = 1235};
		struct attrib *a = attrib__compute(p, &sel);
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(a);
		assert_non_null(f);
		assert_int_equal(report__text(f, p, a, NULL), 0);
		assert_int_equal(fclose(f), 0);
		assert_non_null(strstr(buf,
				       "\n  selection: 15 of these 100 samples (15.0 ms), 30.0 "
				       "ms off CPU\n\n"));
		assert_non_null(strstr(buf,
				       "Wall-clock view: on CPU + off CPU = wall-clock time, "
				       "shares of 45.0 ms (15.0 ms on CPU + 30.0 ms off CPU)\n"
				       "      10.0 ms +        0.0 ms =       10.0 ms  22.22%  "
				       "Output\n"
				       "       5.0 ms +       30.0 ms =       35.0 ms  77.78%  (no "
				       "feature)\n"));
		free(buf);
		attrib__free(a);
	}
	profile__free(p);
}

static void test_text_events_and_offcpu(void **state)
{
	struct profile *p = rich_profile(true, true);
	struct report_opts o = {.min_pct = 0.5};
	char *text;

	(void)state;
	text = render_text(p, &o);
	assert_string_equal(
		header_extra(text),
		"  off CPU: 72.5 ms (blocked, sleeping or waiting for a CPU); 172.5 ms on "
		"+ off CPU\n"
		"  events: 6205 calls counted by the probes, 6201 returned\n");
	free(text);
	/* Short and Tiny: their calls took 0.25% and 0.002% of running time */
	text = render_text(p, &o);
	assert_string_equal(
		body(text),
		"Output accounts for 80.00% of running time (80.0 / 100.0 ms, 80 samples); 1200 "
		"calls, 100 us/call, max 1.20 ms; off-CPU 40.0 ms\n"
		"      70.0 ms  70.00%       1000 calls  110 us/call  max 1.20 ms  off-CPU      "
		"40.0 "
		"ms  fizzbuzz.c:8\n"
		"      10.0 ms  10.00%        200 calls 50.3 us/call  max 90.0 us  off-CPU       "
		"0.0 "
		"ms  fizzbuzz.c:7\n"
		"Generic sequences accounts for 20.00% of running time (20.0 / 100.0 ms, 20 "
		"samples); off-CPU 0.0 ms\n"
		"      20.0 ms  20.00%          - calls       -/call  max       -  off-CPU       "
		"0.0 "
		"ms  fizzbuzz.c:3\n"
		"... 2 more features below 0.50% of running time (5005 calls)\n"
		"\n" NOTE_SHARES NOTE_CALLS NOTE_OFFCPU "\n" WALL_HEADER
		"      80.0 ms +       40.0 ms =      120.0 ms  69.57%  Output\n"
		"      20.0 ms +        0.0 ms =       20.0 ms  11.59%  Generic sequences\n"
		"      20.0 ms +       32.5 ms =       52.5 ms  30.43%  (no feature)\n");
	free(text);

	/* --min-pct 0: the event-only features, listed after the sampled ones
	 * (cost 0) and left out of the wall-clock view (no time on or off CPU) */
	o.min_pct = 0;
	text = render_text(p, &o);
	assert_non_null(strstr(
		text, "ms  fizzbuzz.c:3\n"
		      "Short accounts for 0.00% of running time (0.0 / 100.0 ms, 0 samples); "
		      "5003 calls, 50.0 ns/call, max 120 ns; off-CPU 0.0 ms\n"
		      "       0.0 ms   0.00%       5000 calls 50.0 ns/call  max  120 ns  off-CPU "
		      "      0.0 ms  short.c:1\n"
		      "       0.0 ms   0.00%          3 calls       -/call  max       -  off-CPU "
		      "      0.0 ms  short.c:2\n"
		      "Tiny accounts for 0.00% of running time (0.0 / 100.0 ms, 0 samples); 2 "
		      "calls, 1.00 us/call, max 1.20 us; off-CPU 0.0 ms\n"));
	assert_non_null(strstr(text, "  11.59%  Generic sequences\n"
				     "      20.0 ms +       32.5 ms =       52.5 ms  30.43%  (no "
				     "feature)\n\nDiagnostics"));
	free(text);
	profile__free(p);
}

/*
 * --min-pct keeps what its samples, its event time or its off-CPU time puts
 * at or above the threshold (of running time, 100 ms here): Wait (0
 * samples, calls of 8 ms in all), Sleep (0 samples, 3 ms off CPU).
 */
static void test_text_min_pct_events(void **state)
{
	struct profile *p = rich_profile(true, false);
	struct report_opts o = {.min_pct = 2};
	char *text, *h;

	(void)state;
	add_events(p, 1234, "Wait", "w1", 4, 4, 8000000, 2500000, 1800000);
	add_events(p, 1234, "Wait", "w2", 1, 1, 100000, 100000, 100000);
	ADD_STACK(p, 1234, 0x6, MARK("Sleep", "sleep.c:1"));
	ADD_OFFCPU(p, 1234, 1234, 0x6, 3000000);
	text = render_text(p, &o);
	h = headers(text);
	/* by cost: Sleep's 3 ms off CPU count, Wait's calls do not */
	assert_string_equal(h, "Output|fizzbuzz.c:8|fizzbuzz.c:7|Generic sequences|fizzbuzz.c:3|"
			       "Sleep|sleep.c:1|Wait|w1|");
	assert_non_null(strstr(text,
			       "\nWait accounts for 0.00% of running time (0.0 / 100.0 ms, 0 "
			       "samples); 5 calls, 1.62 ms/call, max 2.50 ms; off-CPU 0.0 "
			       "ms\n"
			       "       0.0 ms   0.00%          4 calls 2.00 ms/call  max 2.50 ms  "
			       "off-CPU       0.0 ms  w1\n"
			       "      ... 1 more instance below 2.00% (0.0 ms, 1 call, off-CPU 0.0 "
			       "ms)\n"
			       "... 2 more features below 2.00% of running time (5005 calls)\n"));
	assert_non_null(strstr(text,
			       "\nSleep accounts for 0.00% of running time (0.0 / 100.0 ms, "
			       "0 samples); off-CPU 3.0 ms\n"
			       "       0.0 ms   0.00%          - calls       -/call  max       -  "
			       "off-CPU       3.0 ms  sleep.c:1\n"));
	free(h);
	free(text);

	/* 5%: Sleep (3%) folds, Wait (8%) stays */
	o.min_pct = 5;
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h, "Output|fizzbuzz.c:8|fizzbuzz.c:7|Generic sequences|fizzbuzz.c:3|"
			       "Wait|w1|");
	assert_non_null(strstr(text, "\n... 3 more features below 5.00% of running time (5005 "
				     "calls)\n"));
	/* the wall-clock view folds by wall-clock share: Sleep 3.0 of 103.0 ms */
	assert_non_null(strstr(text, "  19.42%  Generic sequences\n"
				     "... 1 more feature below 5.00% of wall-clock time (3.0 ms)\n"
				     "      20.0 ms +        0.0 ms =       20.0 ms  19.42%  (no "
				     "feature)\n"));
	free(h);
	free(text);

	/* --by process: a process sampling never saw, kept by its calls */
	add_events(p, 4321, "Wait", "w9", 2, 2, 7000000, 4000000, 3000000);
	o.by = REPORT_BY_PROCESS;
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h, "process 1234 (demo)|Output|fizzbuzz.c:8|fizzbuzz.c:7|"
			       "Generic sequences|fizzbuzz.c:3|Wait|w1|process 4321|Wait|w9|");
	assert_non_null(strstr(text,
			       "\nprocess 4321: 0.0 ms, 0.00% of running time (0 samples, 0 "
			       "threads); off-CPU 0.0 ms\n"
			       "  Wait accounts for 0.00% of the process's time (0.0 / 0.0 ms, "
			       "0 samples); 2 calls, 3.50 ms/call, max 4.00 ms; off-CPU 0.0 "
			       "ms\n"
			       "         0.0 ms   0.00%          2 calls 3.50 ms/call  max 4.00 "
			       "ms  off-CPU       0.0 ms  w9\n"));
	free(h);
	free(text);
	/* under its calls' share it folds */
	o.min_pct = 8;
	text = render_text(p, &o);
	assert_null(strstr(text, "process 4321"));
	assert_non_null(strstr(text, "\n... 1 more process below 8.00% of running time (0.0 ms, "
				     "off-CPU 0.0 ms)\n"));
	free(text);
	profile__free(p);
}

/* A profile of events only (the target was never sampled): the features are
 * listed all the same. */
static void test_text_events_without_samples(void **state)
{
	struct profile *p = profile__new();
	struct report_opts o = {.min_pct = 0.5};
	char *text;

	(void)state;
	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &demo_meta), 0);
	add_events(p, 7, "Short", "s.c:1", 3, 3, 600, 250, 200);
	text = render_text(p, &o);
	assert_string_equal(
		body(text),
		"Short accounts for 0.00% of running time (0.0 / 0.0 ms, 0 samples); 3 "
		"calls, 200 ns/call, max 250 ns\n"
		"       0.0 ms   0.00%          3 calls  200 ns/call  max  250 ns  s.c:1\n"
		"\n"
		"Note: each sample is charged to every feature with a live mark in its "
		"thread, so the shares above\n"
		"may sum to more than 100%, and samples in no feature (here 0.00%) make "
		"them sum to less.\n" NOTE_CALLS);
	free(text);
	o.feature = "Short";
	o.by = REPORT_BY_PROCESS;
	text = render_text(p, &o);
	assert_non_null(strstr(text, "process 7: 0.0 ms, 0.00% of running time (0 samples, 0 "
				     "threads)\n"
				     "  Short accounts for 0.00%"));
	assert_non_null(strstr(text, "\n          [128 ns, 256 ns)           3  "
				     "########################################\n"));
	free(text);
	o.feature = "Long";
	text = render_text_rc(p, &o, -ENOENT);
	assert_string_equal(body(text), "no feature Long in this profile\n"
					"its features are: Short\n");
	free(text);
	profile__free(p);
}

/* Point events (a probe map's "event": hits, no duration) are not folded
 * under --min-pct, with or without --feature: their count is what they say. */
static void test_text_point_events(void **state)
{
	struct profile *p = rich_profile(true, false);
	struct profile_event_stats hits = {.enters = 40, .point = 1};
	struct report_opts o = {.min_pct = 0.5};
	char *text;

	(void)state;
	assert_int_equal(profile__add_events(p, 1234, "Checkpoint", "wal", &hits), 0);
	hits.enters = 2;
	assert_int_equal(profile__add_events(p, 1234, "Checkpoint", "fsync", &hits), 0);
	text = render_text(p, &o);
	assert_non_null(strstr(text,
			       "\nCheckpoint accounts for 0.00% of running time (0.0 / "
			       "100.0 ms, 0 samples); 42 events\n"
			       "       0.0 ms   0.00%          2 events                           "
			       "fsync\n"
			       "       0.0 ms   0.00%         40 events                           "
			       "wal\n"));
	/* Short and Tiny fold, by their time; Checkpoint's hits are not among them */
	assert_non_null(
		strstr(text, "\n... 2 more features below 0.50% of running time (5005 calls)\n"));
	free(text);
	o.feature = "Checkpoint";
	text = render_text(p, &o);
	assert_non_null(strstr(text, "  fsync\n"));
	assert_null(strstr(text, "more instance"));
	free(text);
	profile__free(p);
}

static void test_text_feature_histogram(void **state)
{
	struct profile *p = rich_profile(true, true);
	struct report_opts o = {.feature = "Output", .min_pct = 0.5};
	char *text;

	(void)state;
	/* each instance's histogram of its returned calls: non-empty buckets,
	 * bars scaled to its largest; the wall-clock view of the feature and
	 * its instances */
	text = render_text(p, &o);
	assert_string_equal(
		body(text),
		"Output accounts for 80.00% of running time (80.0 / 100.0 ms, 80 samples); 1200 "
		"calls, 100 us/call, max 1.20 ms; off-CPU 40.0 ms\n"
		"      70.0 ms  70.00%       1000 calls  110 us/call  max 1.20 ms  off-CPU      "
		"40.0 "
		"ms  fizzbuzz.c:8\n"
		"        [65.5 us, 131 us)        999  ########################################\n"
		"        [1.05 ms, 2.10 ms)         1  #\n"
		"      10.0 ms  10.00%        200 calls 50.3 us/call  max 90.0 us  off-CPU       "
		"0.0 "
		"ms  fizzbuzz.c:7\n"
		"        [32.8 us, 65.5 us)       198  ########################################\n"
		"        [65.5 us, 131 us)          1  #\n"
		"\n" NOTE_CALLS NOTE_OFFCPU "\n" WALL_HEADER
		"      80.0 ms +       40.0 ms =      120.0 ms  69.57%  Output\n"
		"      70.0 ms +       40.0 ms =      110.0 ms  63.77%    fizzbuzz.c:8\n"
		"      10.0 ms +        0.0 ms =       10.0 ms   5.80%    fizzbuzz.c:7\n");
	free(text);
	/* the wall-clock view folds instances too */
	o.min_pct = 6;
	text = render_text(p, &o);
	assert_non_null(strstr(text, "  63.77%    fizzbuzz.c:8\n"
				     "  ... 1 more instance below 6.00% of wall-clock time (10.0 "
				     "ms)\n\nDiagnostics"));
	free(text);
	/* a feature sampling missed: its exact counts and histograms */
	o.feature = "Short";
	o.min_pct = 0;
	text = render_text(p, &o);
	assert_string_equal(
		body(text),
		"Short accounts for 0.00% of running time (0.0 / 100.0 ms, 0 samples); 5003 calls, "
		"50.0 ns/call, max 120 ns; off-CPU 0.0 ms\n"
		"       0.0 ms   0.00%       5000 calls 50.0 ns/call  max  120 ns  off-CPU       "
		"0.0 "
		"ms  short.c:1\n"
		"        [32 ns, 64 ns)          4999  ########################################\n"
		"        [64 ns, 128 ns)            1  #\n"
		"       0.0 ms   0.00%          3 calls       -/call  max       -  off-CPU       "
		"0.0 "
		"ms  short.c:2\n"
		"\n" NOTE_CALLS NOTE_OFFCPU "\n" WALL_HEADER
		"       0.0 ms +        0.0 ms =        0.0 ms   0.00%  Short\n");
	free(text);
	profile__free(p);
}

/* Every bucket of the histogram, labeled in human units. */
static void test_text_histogram_buckets(void **state)
{
	struct profile_event_stats st = {.enters = 1000, .leaves = 1000, .total_ns = 1000};
	struct report_opts o = {.feature = "F"};
	struct profile *p = profile__new();
	char *text, *line, *save = NULL;
	unsigned int i, n = 0;

	(void)state;
	assert_non_null(p);
	for (i = 0; i < PROFILE_HIST_BUCKETS; i++)
		st.hist[i] = i + 1;
	st.max_ns = UINT64_MAX;
	assert_int_equal(profile__add_events(p, 1, "F", "f", &st), 0);
	text = render_text(p, &o);
	assert_non_null(strstr(text, "\n        [0 ns, 2 ns)               1  #\n"
				     "        [2 ns, 4 ns)               2  ##\n"));
	assert_non_null(strstr(text, "\n        [512 ns, 1.02 us)         10  ##########\n"
				     "        [1.02 us, 2.05 us)        11  ###########\n"));
	assert_non_null(strstr(text, "\n        [537 ms, 1.07 s)          30  "
				     "##############################\n"));
	assert_non_null(strstr(text, "\n        [275 s, 550 s)            39  "
				     "#######################################\n"
				     "        [550 s, inf)              40  "
				     "########################################\n"));
	/* max is UINT64_MAX ns: in seconds, whole */
	assert_non_null(strstr(text, "max 18446744074 s  f\n"));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "        [", 9))
			continue;
		n++;
		/* 3 significant digits, never 1000 of a unit, never an exponent */
		assert_null(strstr(line, "1000 "));
		assert_null(strchr(line, 'e'));
	}
	assert_int_equal(n, PROFILE_HIST_BUCKETS);
	free(text);
	profile__free(p);
}

/* --order cost is on-CPU + off-CPU time; samples stay on-CPU samples. */
static void test_text_order_cost_offcpu(void **state)
{
	struct profile *p = order_profile();
	struct report_opts o = {};
	char *text, *h;

	(void)state;
	/* C 60 samples; B 30 samples + 50 ms off CPU = 80 ms; A 30 samples */
	ADD_OFFCPU(p, 10, 11, 2, 50000000);
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h, "B|b1|C|c1|A|a2|a1|");
	assert_non_null(strstr(text,
			       "\nWall-clock view: on CPU + off CPU = wall-clock time, shares "
			       "of 170.0 ms (120.0 ms on CPU + 50.0 ms off CPU)\n"
			       "      30.0 ms +       50.0 ms =       80.0 ms  47.06%  B\n"
			       "      60.0 ms +        0.0 ms =       60.0 ms  35.29%  C\n"
			       "      30.0 ms +        0.0 ms =       30.0 ms  17.65%  A\n\n"));
	free(h);
	free(text);
	o.order = REPORT_ORDER_SAMPLES;
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h, "C|c1|A|a2|a1|B|b1|");
	/* the wall-clock view follows the order too */
	assert_non_null(strstr(text, "  35.29%  C\n      30.0 ms +        0.0 ms =       30.0 ms  "
				     "17.65%  A\n      30.0 ms +       50.0 ms =       80.0 ms  "
				     "47.06%  B\n"));
	free(h);
	free(text);

	/* threads and processes: thread 11 (30 samples + 50 ms) before thread
	 * 10 (60 samples); process 10 (90 + 50) before process 20 (30) */
	o.order = REPORT_ORDER_COST;
	o.by = REPORT_BY_THREAD;
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h, "thread 11 (alpha) of pid 10|B|b1|"
			       "thread 10 (zeta) of pid 10|C|c1|"
			       "thread 20 (alpha) of pid 20|A|a2|a1|");
	assert_non_null(strstr(text, "\nthread 11 (alpha) of pid 10: 30.0 ms, 25.00% of running "
				     "time (30 samples); off-CPU 50.0 ms\n"));
	free(h);
	free(text);
	o.order = REPORT_ORDER_SAMPLES;
	text = render_text(p, &o);
	h = headers(text);
	assert_string_equal(h, "thread 10 (zeta) of pid 10|C|c1|"
			       "thread 11 (alpha) of pid 10|B|b1|"
			       "thread 20 (alpha) of pid 20|A|a2|a1|");
	free(h);
	free(text);
	/* a thread that only slept (no sample) is kept by its off-CPU time */
	ADD_STACK(p, 20, 3, MARK("S", "s1"));
	ADD_OFFCPU(p, 20, 21, 3, 7000000);
	o.order = REPORT_ORDER_COST;
	o.min_pct = 5;
	text = render_text(p, &o);
	assert_non_null(strstr(text, "\nthread 21 of pid 20: 0.0 ms, 0.00% of running time (0 "
				     "samples); off-CPU 7.0 ms\n"
				     "  S accounts for 0.00% of the thread's time (0.0 / 0.0 ms, 0 "
				     "samples); off-CPU 7.0 ms\n"
				     "         0.0 ms   0.00%  off-CPU       7.0 ms  s1\n"));
	free(text);
	o.min_pct = 6;
	text = render_text(p, &o);
	assert_non_null(strstr(text, "\n... 1 more thread below 6.00% of running time (0.0 ms, "
				     "off-CPU 7.0 ms)\n"));
	free(text);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_events),
		cmocka_unit_test(test_text_offcpu),
		cmocka_unit_test(test_text_events_and_offcpu),
		cmocka_unit_test(test_text_min_pct_events),
		cmocka_unit_test(test_text_events_without_samples),
		cmocka_unit_test(test_text_point_events),
		cmocka_unit_test(test_text_feature_histogram),
		cmocka_unit_test(test_text_histogram_buckets),
		cmocka_unit_test(test_text_order_cost_offcpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
