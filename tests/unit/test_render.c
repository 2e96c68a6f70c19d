// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the views and renderers of report.h beyond the default text
 * report: --by, --order, --feature, folded stacks, pprof (decoded with
 * protobuf-c, and read by `go tool pprof` when Go is installed), and how
 * each shows the event view (calls, durations, histograms) and off-CPU time.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "attrib.h"
#include "profile.pb-c.h"
#include "report.h"
#include "unit_helpers.h"

/* ---- fixtures ---------------------------------------------------------------- */

static const struct profile_meta demo_meta = {
	.target = "pid 1234 (demo)",
	.command_line = "fsp-bpf -p 1234",
	.host = "testhost",
	.kernel = "6.1.0-test",
	.tool_version = "0.1.0",
	.frequency_hz = 1000,
	.period_ns = 1000000,
	.start_time = 1700000000.25,
	.end_time = 1700000003.25,
	.duration_s = 3.0,
};

/*
 * As test_report.c: 100 samples of 1 ms. Thread 1234 (demo): 50 Output
 * fizzbuzz.c:8, 20 Generic sequences fizzbuzz.c:3 with Output fizzbuzz.c:8
 * inside, 15 empty. Thread 1235 (worker): 10 Output fizzbuzz.c:7, 5 under
 * Generic sequences' antimark (uncharged).
 */
static struct profile *demo_profile(void)
{
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &demo_meta), 0);
	assert_int_equal(profile__add_pid(p, 1234), 0);
	assert_int_equal(profile__add_thread(p, 1234, 1234, "demo"), 0);
	assert_int_equal(profile__add_thread(p, 1234, 1235, "worker"), 0);
	ADD_STACK(p, 1234, 0x1, MARK("Output", "fizzbuzz.c:8"));
	ADD_STACK(p, 1234, 0x2, MARK("Output", "fizzbuzz.c:7"));
	ADD_STACK(p, 1234, 0x3, MARK("Generic sequences", "fizzbuzz.c:3"),
		  MARK("Output", "fizzbuzz.c:8"));
	ADD_STACK(p, 1234, 0x4, MARK("Generic sequences", "fizzbuzz.c:3"),
		  ANTI("Generic sequences"));
	ADD_SAMPLES(p, 1234, 1234, 0x1, 50);
	ADD_SAMPLES(p, 1234, 1235, 0x2, 10);
	ADD_SAMPLES(p, 1234, 1234, 0x3, 20);
	ADD_SAMPLES(p, 1234, 1235, 0x4, 5);
	ADD_SAMPLES(p, 1234, 1234, 0, 15);
	return p;
}

static int setup(void **state)
{
	*state = demo_profile();
	return 0;
}

/* Event statistics: enters, leaves, total and max ns, and two histogram
 * buckets: leaves - 1 calls in the bucket of `typical`, one of max_ns. */
static void add_events(struct profile *p, uint32_t pid, const char *feature, const char *instance,
		       uint64_t enters, uint64_t leaves, uint64_t total_ns, uint64_t max_ns,
		       uint64_t typical)
{
	struct profile_event_stats st = {
		.enters = enters,
		.leaves = leaves,
		.total_ns = total_ns,
		.max_ns = max_ns,
	};

	if (leaves) {
		st.hist[profile_hist_bucket(typical)] += leaves - 1;
		st.hist[profile_hist_bucket(max_ns)] += 1;
	}
	assert_int_equal(profile__add_events(p, pid, feature, instance, &st), 0);
}

#define ADD_OFFCPU(p, pid, tid, key, ns)                                                           \
	assert_int_equal(profile__add_offcpu((p), (pid), (tid), (key), (ns)), 0)

/*
 * The demo profile with, when `events`, the event view of process 1234:
 * Output fizzbuzz.c:8 1000 calls of 110 us (max 1.204 ms), fizzbuzz.c:7 200
 * calls (199 returned) of 50.25 us (max 90 us), and two features sampling
 * never saw: Short (short.c:1 5000 calls of 50 ns, short.c:2 3 calls none
 * returned) and Tiny (2 calls of 1 us, no instance). When `offcpu`: thread
 * 1234 40 ms off CPU in Output fizzbuzz.c:8 and 2.5 ms outside features,
 * thread 1235 30 ms under Generic sequences' antimark (uncharged).
 */
static struct profile *rich_profile(bool events, bool offcpu)
{
	struct profile *p = demo_profile();

	if (events) {
		add_events(p, 1234, "Output", "fizzbuzz.c:8", 1000, 1000, 110000000, 1204000,
			   110000);
		add_events(p, 1234, "Output", "fizzbuzz.c:7", 200, 199, 10000000, 90000, 50000);
		add_events(p, 1234, "Short", "short.c:1", 5000, 5000, 250000, 120, 50);
		add_events(p, 1234, "Short", "short.c:2", 3, 0, 0, 0, 0);
		add_events(p, 1234, "Tiny", NULL, 2, 2, 2000, 1200, 800);
	}
	if (offcpu) {
		ADD_OFFCPU(p, 1234, 1234, 0x1, 40000000);
		ADD_OFFCPU(p, 1234, 1235, 0x4, 30000000);
		ADD_OFFCPU(p, 1234, 1234, 0, 2500000);
	}
	return p;
}

static int teardown(void **state)
{
	profile__free(*state);
	return 0;
}

/*
 * Two processes, for orders: process 10 "zeta" (thread 10 zeta 60 samples,
 * thread 11 "alpha" 30), process 20 "alpha" (thread 20 alpha 30). Features:
 * B 30 (b1), A 30 (a2 20, a1 10), C 60 (c1).
 */
static struct profile *order_profile(void)
{
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &demo_meta), 0);
	assert_int_equal(profile__add_thread(p, 10, 10, "zeta"), 0);
	assert_int_equal(profile__add_thread(p, 10, 11, "alpha"), 0);
	assert_int_equal(profile__add_thread(p, 20, 20, "alpha"), 0);
	ADD_STACK(p, 10, 1, MARK("C", "c1"));
	ADD_STACK(p, 10, 2, MARK("B", "b1"));
	ADD_STACK(p, 20, 1, MARK("A", "a2"));
	ADD_STACK(p, 20, 2, MARK("A", "a1"));
	ADD_SAMPLES(p, 10, 10, 1, 60);
	ADD_SAMPLES(p, 10, 11, 2, 30);
	ADD_SAMPLES(p, 20, 20, 1, 20);
	ADD_SAMPLES(p, 20, 20, 2, 10);
	return p;
}

static char *render_text_rc(const struct profile *p, const struct report_opts *o, int want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report__text(f, p, NULL, o), want);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static char *render_text(const struct profile *p, const struct report_opts *o)
{
	return render_text_rc(p, o, 0);
}

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

static char *render_folded_rc(const struct profile *p, const struct report_opts *o, int want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report__folded(f, p, o), want);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static char *render_folded(const struct profile *p, const struct report_opts *o)
{
	return render_folded_rc(p, o, 0);
}

/* The text between the header (its blank line) and the diagnostics. */
static char *body(char *text)
{
	char *b = strstr(text, "\n\n"), *d = strstr(text, "\nDiagnostics");

	assert_non_null(b);
	assert_non_null(d);
	*d = 0;
	return b + 2;
}

/* ---- parsers --------------------------------------------------------------------- */

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

/* ---- text: --by, --order, --feature --------------------------------------------------- */

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

/* The section and feature header lines of a report, in order, one per line. */
static char *headers(const char *text)
{
	char *buf = NULL, *copy = test_strdup(text), *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *acc = strstr(line, " accounts for ");

		if (!strncmp(line, "Wall-clock view", 15))
			break;
		if (!strncmp(line, "thread ", 7) || !strncmp(line, "process ", 8))
			fprintf(f, "%.*s|", (int)(strstr(line, ": ") - line), line);
		else if (acc)
			fprintf(f, "%.*s|", (int)(acc - line - strspn(line, " ")),
				line + strspn(line, " "));
		else if (strstr(line, " ms ") && strchr(line, '%'))
			fprintf(f, "%s|", strrchr(line, ' ') + 1);
	}
	fclose(f);
	free(copy);
	return buf;
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

/* A merged profile: sources with hosts "alpha", "beta" and "beta", and one
 * without, each with a process 100 "app". */
static struct profile *merged_profile(void)
{
	static const char *hosts[] = {"alpha", "beta", "beta", NULL};
	struct profile *p = profile__new();
	struct profile_meta m = demo_meta;
	uint32_t i;

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &demo_meta), 0);
	for (i = 0; i < 4; i++) {
		m.host = hosts[i];
		assert_int_equal(profile__add_source(p, &m, NULL), (int)i);
	}
	for (i = 0; i < 4; i++) {
		assert_int_equal(profile__use_source(p, i), 0);
		assert_int_equal(profile__add_thread(p, 100, 100, "app"), 0);
		ADD_STACK(p, 100, 1, MARK("F", "f"));
		ADD_SAMPLES(p, 100, 100, 1, 10 * (i + 1));
	}
	assert_int_equal(profile__use_source(p, 0), 0);
	return p;
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

/* ---- text: the event view and off-CPU time -------------------------------------------- */

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

/* ---- folded stacks -------------------------------------------------------------- */

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

/* ---- pprof ------------------------------------------------------------------------ */

/* Renders p as pprof, gunzips and decodes it (free with
 * perftools__profiles__profile__free_unpacked). */
static Perftools__Profiles__Profile *render_pprof(const struct profile *p,
						  const struct report_opts *o)
{
	Perftools__Profiles__Profile *prof;
	unsigned char *raw = NULL;
	char *gz = NULL;
	size_t gz_len = 0, cap = 1 << 16;
	z_stream zs = {};
	FILE *f = open_memstream(&gz, &gz_len);

	assert_non_null(f);
	assert_int_equal(report__pprof(f, p, o), 0);
	assert_int_equal(fclose(f), 0);
	/* a gzip member: magic 1f 8b */
	assert_true(gz_len > 18);
	assert_int_equal((unsigned char)gz[0], 0x1f);
	assert_int_equal((unsigned char)gz[1], 0x8b);
	raw = malloc(cap);
	assert_non_null(raw);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)gz;
	zs.avail_in = (uInt)gz_len;
	zs.next_out = raw;
	zs.avail_out = (uInt)cap;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	assert_int_equal(zs.avail_in, 0);
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

/* The name of the function of location id `id`. */
static const char *loc_name(const Perftools__Profiles__Profile *prof, uint64_t id)
{
	size_t i, j;

	for (i = 0; i < prof->n_location; i++) {
		const Perftools__Profiles__Location *l = prof->location[i];

		if (l->id != id)
			continue;
		assert_int_equal(l->n_line, 1);
		assert_int_equal(l->mapping_id, 1);
		for (j = 0; j < prof->n_function; j++) {
			if (prof->function[j]->id == l->line[0]->function_id)
				return str(prof, prof->function[j]->name);
		}
	}
	fail_msg("no location %llu", (unsigned long long)id);
	return NULL;
}

/* A sample's stack as "leaf|root" names, its values as "v0/v1/..." and its
 * labels as "k=v ...". */
static void describe(const Perftools__Profiles__Profile *prof, const Perftools__Profiles__Sample *s,
		     char *buf, size_t size)
{
	size_t i, len = 0;

	assert_int_equal(s->n_value, prof->n_sample_type);
	for (i = 0; i < s->n_location_id; i++)
		len += snprintf(buf + len, size - len, "%s%s", i ? "|" : "",
				loc_name(prof, s->location_id[i]));
	for (i = 0; i < s->n_value; i++)
		len += snprintf(buf + len, size - len, "%s%lld", i ? "/" : " ",
				(long long)s->value[i]);
	for (i = 0; i < s->n_label; i++) {
		const Perftools__Profiles__Label *l = s->label[i];

		if (l->str)
			len += snprintf(buf + len, size - len, " %s=%s", str(prof, l->key),
					str(prof, l->str));
		else
			len += snprintf(buf + len, size - len, " %s=%lld", str(prof, l->key),
					(long long)l->num);
	}
}

static void test_pprof_decode(void **state)
{
	struct profile *p = *state;
	Perftools__Profiles__Profile *prof = render_pprof(p, NULL);
	char buf[512];
	size_t i;

	/* the string table starts with "", and holds each string once */
	assert_true(prof->n_string_table > 1);
	assert_string_equal(prof->string_table[0], "");
	for (i = 1; i < prof->n_string_table; i++) {
		size_t j;

		assert_string_not_equal(prof->string_table[i], "");
		for (j = 1; j < i; j++)
			assert_string_not_equal(prof->string_table[i], prof->string_table[j]);
	}
	assert_int_equal(prof->n_sample_type, 2);
	assert_int_equal(prof->default_sample_type, 0); /* the last: cpu */
	assert_string_equal(str(prof, prof->sample_type[0]->type), "samples");
	assert_string_equal(str(prof, prof->sample_type[0]->unit), "count");
	assert_string_equal(str(prof, prof->sample_type[1]->type), "cpu");
	assert_string_equal(str(prof, prof->sample_type[1]->unit), "nanoseconds");
	assert_non_null(prof->period_type);
	assert_string_equal(str(prof, prof->period_type->type), "cpu");
	assert_string_equal(str(prof, prof->period_type->unit), "nanoseconds");
	assert_int_equal(prof->period, 1000000);
	assert_int_equal(prof->time_nanos, 1700000000250000000LL);
	assert_int_equal(prof->duration_nanos, 3000000000LL);
	assert_int_equal(prof->n_comment, 2);
	assert_string_equal(str(prof, prof->comment[0]),
			    "fsp-bpf 0.1.0: feature profile of pid 1234 (demo)");
	assert_int_equal(prof->n_mapping, 1);
	assert_true(prof->mapping[0]->has_functions);

	/* one function and location per feature and per (feature, instance) */
	assert_int_equal(prof->n_function, 6);
	assert_int_equal(prof->n_location, 6);
	for (i = 0; i < prof->n_function; i++) {
		const Perftools__Profiles__Function *f = prof->function[i];

		assert_int_equal(f->id, i + 1);
		if (!strcmp(str(prof, f->name), "Output: fizzbuzz.c:8"))
			assert_string_equal(str(prof, f->system_name), "fizzbuzz.c:8");
		if (!strcmp(str(prof, f->name), "Output"))
			assert_string_equal(str(prof, f->system_name), "Output");
	}

	/* one sample per charge of each (thread, stack), in profile order */
	assert_int_equal(prof->n_sample, 6);
	describe(prof, prof->sample[0], buf, sizeof(buf));
	assert_string_equal(buf, "Output: fizzbuzz.c:8|Output 50/50000000 pid=1234 tid=1234 "
				 "thread=demo process=demo");
	describe(prof, prof->sample[1], buf, sizeof(buf));
	assert_string_equal(buf, "Output: fizzbuzz.c:7|Output 10/10000000 pid=1234 tid=1235 "
				 "thread=worker process=demo");
	/* the nested stack charges both features: two samples */
	describe(prof, prof->sample[2], buf, sizeof(buf));
	assert_string_equal(buf, "Output: fizzbuzz.c:8|Output 20/20000000 pid=1234 tid=1234 "
				 "thread=demo process=demo");
	describe(prof, prof->sample[3], buf, sizeof(buf));
	assert_string_equal(buf, "Generic sequences: fizzbuzz.c:3|Generic sequences 20/20000000 "
				 "pid=1234 tid=1234 thread=demo process=demo");
	describe(prof, prof->sample[4], buf, sizeof(buf));
	assert_string_equal(buf, "(no feature) 5/5000000 pid=1234 tid=1235 thread=worker "
				 "process=demo");
	describe(prof, prof->sample[5], buf, sizeof(buf));
	assert_string_equal(buf, "(no feature) 15/15000000 pid=1234 tid=1234 thread=demo "
				 "process=demo");
	perftools__profiles__profile__free_unpacked(prof, NULL);
}

static void test_pprof_feature_and_labels(void **state)
{
	struct report_opts o = {.feature = "Generic sequences"};
	struct profile *p = *state, *m;
	Perftools__Profiles__Profile *prof;
	char buf[512];
	char *gz = NULL;
	size_t len = 0;
	FILE *f;

	prof = render_pprof(p, &o);
	assert_int_equal(prof->n_sample, 1);
	describe(prof, prof->sample[0], buf, sizeof(buf));
	assert_string_equal(buf, "Generic sequences: fizzbuzz.c:3|Generic sequences 20/20000000 "
				 "pid=1234 tid=1234 thread=demo process=demo");
	assert_int_equal(prof->n_function, 2);
	perftools__profiles__profile__free_unpacked(prof, NULL);

	o.feature = "nope";
	f = open_memstream(&gz, &len);
	assert_non_null(f);
	assert_int_equal(report__pprof(f, p, &o), -ENOENT);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(len, 0);
	free(gz);

	/* merged: a source label; the same instance label in two features
	 * stays two functions; unknown comms give no name labels */
	m = merged_profile();
	ADD_STACK(m, 100, 2, MARK("G", "f"), MARK("F", "f"));
	ADD_SAMPLES(m, 100, 101, 2, 1);
	prof = render_pprof(m, NULL);
	assert_int_equal(prof->n_sample, 6);
	describe(prof, prof->sample[0], buf, sizeof(buf));
	assert_string_equal(buf, "F: f|F 10/10000000 pid=100 tid=100 thread=app process=app "
				 "source=alpha");
	describe(prof, prof->sample[2], buf, sizeof(buf));
	assert_string_equal(buf, "F: f|F 30/30000000 pid=100 tid=100 thread=app process=app "
				 "source=beta#2");
	describe(prof, prof->sample[4], buf, sizeof(buf));
	assert_string_equal(buf, "F: f|F 1/1000000 pid=100 tid=101 process=app source=alpha");
	describe(prof, prof->sample[5], buf, sizeof(buf));
	assert_string_equal(buf, "G: f|G 1/1000000 pid=100 tid=101 process=app source=alpha");
	assert_int_equal(prof->n_function, 4);
	perftools__profiles__profile__free_unpacked(prof, NULL);
	profile__free(m);
}

static void test_pprof_empty_and_errors(void **state)
{
	struct profile *p = *state, *e = profile__new();
	Perftools__Profiles__Profile *prof;
	FILE *f;

	/* no metadata, no samples: still a valid profile */
	assert_non_null(e);
	prof = render_pprof(e, NULL);
	assert_int_equal(prof->n_sample, 0);
	assert_int_equal(prof->period, 0);
	assert_int_equal(prof->time_nanos, 0);
	assert_string_equal(prof->string_table[0], "");
	perftools__profiles__profile__free_unpacked(prof, NULL);
	profile__free(e);

	f = fopen("/dev/full", "w");
	if (f) {
		assert_int_equal(report__pprof(f, p, NULL), -ENOSPC);
		fclose(f);
	}
	assert_int_equal(report__pprof(NULL, p, NULL), -EINVAL);
	assert_int_equal(report__pprof(stdout, NULL, NULL), -EINVAL);
}

/* The sample types of prof as "type/unit,...". */
static void types_of(const Perftools__Profiles__Profile *prof, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = 0;
	for (i = 0; i < prof->n_sample_type; i++)
		len += snprintf(buf + len, size - len, "%s%s/%s", i ? "," : "",
				str(prof, prof->sample_type[i]->type),
				str(prof, prof->sample_type[i]->unit));
}

static void test_pprof_events_offcpu(void **state)
{
	struct profile *p = rich_profile(true, true);
	struct report_opts o = {.feature = "Short"};
	Perftools__Profiles__Profile *prof;
	static const char *const want[] = {
		"Output: fizzbuzz.c:8|Output 50/50000000/40000000/0/0 pid=1234 tid=1234 "
		"thread=demo process=demo",
		"Output: fizzbuzz.c:7|Output 10/10000000/0/0/0 pid=1234 tid=1235 thread=worker "
		"process=demo",
		"Output: fizzbuzz.c:8|Output 20/20000000/0/0/0 pid=1234 tid=1234 thread=demo "
		"process=demo",
		"Generic sequences: fizzbuzz.c:3|Generic sequences 20/20000000/0/0/0 pid=1234 "
		"tid=1234 thread=demo process=demo",
		"(no feature) 5/5000000/30000000/0/0 pid=1234 tid=1235 thread=worker process=demo",
		"(no feature) 15/15000000/2500000/0/0 pid=1234 tid=1234 thread=demo process=demo",
		/* the event view: one sample per record, labeled with its process */
		"Output: fizzbuzz.c:8|Output 0/0/0/1000/110000000 pid=1234 process=demo",
		"Output: fizzbuzz.c:7|Output 0/0/0/200/10000000 pid=1234 process=demo",
		"Short: short.c:1|Short 0/0/0/5000/250000 pid=1234 process=demo",
		"Short: short.c:2|Short 0/0/0/3/0 pid=1234 process=demo",
		"Tiny: (no instance)|Tiny 0/0/0/2/2000 pid=1234 process=demo",
	};
	char buf[512];
	size_t i;

	(void)state;
	prof = render_pprof(p, NULL);
	types_of(prof, buf, sizeof(buf));
	assert_string_equal(buf, "samples/count,cpu/nanoseconds,offcpu/nanoseconds,calls/count,"
				 "event_time/nanoseconds");
	/* cpu stays the type readers show by default */
	assert_string_equal(str(prof, prof->default_sample_type), "cpu");
	assert_string_equal(str(prof, prof->period_type->type), "cpu");
	assert_int_equal(prof->n_comment, 4);
	assert_non_null(strstr(str(prof, prof->comment[2]), "offcpu: off-CPU time"));
	assert_non_null(strstr(str(prof, prof->comment[3]), "calls, event_time: exact counts"));
	assert_int_equal(prof->n_sample, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < prof->n_sample; i++) {
		describe(prof, prof->sample[i], buf, sizeof(buf));
		assert_string_equal(buf, want[i]);
	}
	/* features and instances seen only by the probes have functions too */
	assert_int_equal(prof->n_function, 11);
	perftools__profiles__profile__free_unpacked(prof, NULL);

	/* --feature: that feature's event samples, all the sample types */
	prof = render_pprof(p, &o);
	assert_int_equal(prof->n_sample_type, 5);
	assert_int_equal(prof->n_sample, 2);
	describe(prof, prof->sample[0], buf, sizeof(buf));
	assert_string_equal(buf, "Short: short.c:1|Short 0/0/0/5000/250000 pid=1234 process=demo");
	perftools__profiles__profile__free_unpacked(prof, NULL);
	profile__free(p);

	/* only events: no offcpu type */
	p = rich_profile(true, false);
	prof = render_pprof(p, &o);
	types_of(prof, buf, sizeof(buf));
	assert_string_equal(buf, "samples/count,cpu/nanoseconds,calls/count,"
				 "event_time/nanoseconds");
	assert_string_equal(str(prof, prof->default_sample_type), "cpu");
	assert_int_equal(prof->n_comment, 3);
	describe(prof, prof->sample[1], buf, sizeof(buf));
	assert_string_equal(buf, "Short: short.c:2|Short 0/0/3/0 pid=1234 process=demo");
	perftools__profiles__profile__free_unpacked(prof, NULL);
	profile__free(p);

	/* only off-CPU time: a stack seen only off CPU is a sample of 0 samples */
	p = rich_profile(false, true);
	ADD_STACK(p, 1234, 0x6, MARK("Sleep", "sleep.c:1"));
	ADD_OFFCPU(p, 1234, 1234, 0x6, 3000000);
	prof = render_pprof(p, NULL);
	types_of(prof, buf, sizeof(buf));
	assert_string_equal(buf, "samples/count,cpu/nanoseconds,offcpu/nanoseconds");
	assert_int_equal(prof->n_sample, 7);
	describe(prof, prof->sample[6], buf, sizeof(buf));
	assert_string_equal(buf, "Sleep: sleep.c:1|Sleep 0/0/3000000 pid=1234 tid=1234 "
				 "thread=demo process=demo");
	perftools__profiles__profile__free_unpacked(prof, NULL);
	profile__free(p);

	/* merged: event samples carry the source label */
	p = merged_profile();
	assert_int_equal(profile__use_source(p, 2), 0);
	add_events(p, 100, "F", "f", 7, 7, 700, 100, 100);
	prof = render_pprof(p, NULL);
	describe(prof, prof->sample[prof->n_sample - 1], buf, sizeof(buf));
	assert_string_equal(buf, "F: f|F 0/0/7/700 pid=100 process=app source=beta#2");
	perftools__profiles__profile__free_unpacked(prof, NULL);
	profile__free(p);
}

/* ---- namespaced PIDs, process filters, feature lists ---------------------------- */

/*
 * Three processes, 160 samples of 1 ms: 1234 "demo" (the host's; thread
 * 1234 60 Output fizzbuzz.c:8, thread 1235 "worker" 40 outside features),
 * 5000 "nginx", pid 1 in its container (thread 5000 30 Output srv.c:1 with
 * 100 calls of 50 us, thread 5001 10 Parse req.c:4), 6000 "redis-server",
 * pid 1 in another container (20 Parse cmd.c:2).
 */
static struct profile *container_profile(void)
{
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &demo_meta), 0);
	assert_int_equal(profile__add_thread(p, 1234, 1234, "demo"), 0);
	assert_int_equal(profile__add_thread(p, 1234, 1235, "worker"), 0);
	ADD_STACK(p, 1234, 1, MARK("Output", "fizzbuzz.c:8"));
	ADD_SAMPLES(p, 1234, 1234, 1, 60);
	ADD_SAMPLES(p, 1234, 1235, 0, 40);
	assert_int_equal(profile__set_process_nspid(p, 5000, 1), 0);
	assert_int_equal(profile__add_thread(p, 5000, 5000, "nginx"), 0);
	assert_int_equal(profile__add_thread(p, 5000, 5001, "nginx"), 0);
	ADD_STACK(p, 5000, 1, MARK("Output", "srv.c:1"));
	ADD_STACK(p, 5000, 2, MARK("Parse", "req.c:4"));
	ADD_SAMPLES(p, 5000, 5000, 1, 30);
	ADD_SAMPLES(p, 5000, 5001, 2, 10);
	add_events(p, 5000, "Output", "srv.c:1", 100, 100, 5000000, 90000, 50000);
	assert_int_equal(profile__set_process_nspid(p, 6000, 1), 0);
	assert_int_equal(profile__add_thread(p, 6000, 6000, "redis-server"), 0);
	ADD_STACK(p, 6000, 1, MARK("Parse", "cmd.c:2"));
	ADD_SAMPLES(p, 6000, 6000, 1, 20);
	return p;
}

/* The line of text that starts with `start` (a copy), or NULL. */
static char *line_of(const char *text, const char *start)
{
	const char *l = text, *end;
	char *copy;

	while (l && strncmp(l, start, strlen(start))) {
		l = strchr(l, '\n');
		l = l ? l + 1 : NULL;
	}
	if (!l)
		return NULL;
	end = strchr(l, '\n');
	copy = strndup(l, end ? (size_t)(end - l) : strlen(l));
	assert_non_null(copy);
	return copy;
}

#define ASSERT_LINE(text, start, want)                                                             \
	do {                                                                                       \
		char *l_ = line_of((text), (start));                                               \
		if (!l_)                                                                           \
			fail_msg("no line \"%s...\" in:\n%s", (start), (text));                    \
		assert_string_equal(l_, (want));                                                   \
		free(l_);                                                                          \
	} while (0)

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

static void test_pprof_filter_and_nspid(void **state)
{
	struct report_opts o = {.comm = "nginx"};
	struct profile *p = container_profile();
	Perftools__Profiles__Profile *prof;
	char buf[512];

	(void)state;
	/* an nspid label on the samples of processes that have one */
	prof = render_pprof(p, NULL);
	assert_int_equal(prof->n_sample, 6);
	describe(prof, prof->sample[0], buf, sizeof(buf));
	assert_string_equal(buf, "Output: fizzbuzz.c:8|Output 60/60000000/0/0 pid=1234 tid=1234 "
				 "thread=demo process=demo");
	describe(prof, prof->sample[3], buf, sizeof(buf));
	assert_string_equal(buf, "Parse: req.c:4|Parse 10/10000000/0/0 pid=5000 nspid=1 tid=5001 "
				 "thread=nginx process=nginx");
	describe(prof, prof->sample[5], buf, sizeof(buf));
	assert_string_equal(buf, "Output: srv.c:1|Output 0/0/100/5000000 pid=5000 nspid=1 "
				 "process=nginx");
	assert_int_equal(prof->n_comment, 3);
	perftools__profiles__profile__free_unpacked(prof, NULL);

	/* filtered: that process's samples and events; a comment says so */
	prof = render_pprof(p, &o);
	assert_int_equal(prof->n_sample, 3);
	describe(prof, prof->sample[0], buf, sizeof(buf));
	assert_string_equal(buf, "Output: srv.c:1|Output 30/30000000/0/0 pid=5000 nspid=1 "
				 "tid=5000 thread=nginx process=nginx");
	assert_int_equal(prof->n_comment, 4);
	assert_string_equal(str(prof, prof->comment[1]),
			    "filter: comm nginx: 1 of 3 processes, 40 of 160 samples");
	perftools__profiles__profile__free_unpacked(prof, NULL);
	o = (struct report_opts){.pid = "6000", .feature = "Parse,Output"};
	prof = render_pprof(p, &o);
	assert_int_equal(prof->n_sample, 1);
	/* no events left: no calls types */
	assert_int_equal(prof->n_sample_type, 2);
	describe(prof, prof->sample[0], buf, sizeof(buf));
	assert_string_equal(buf, "Parse: cmd.c:2|Parse 20/20000000 pid=6000 nspid=1 tid=6000 "
				 "thread=redis-server process=redis-server");
	perftools__profiles__profile__free_unpacked(prof, NULL);
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

/* ---- go tool pprof ------------------------------------------------------------------ */

static bool have_go(void)
{
	return system("command -v go >/dev/null 2>&1") == 0;
}

/* Copies file dir/name to stderr, to show what a failed command said. */
static void dump(const char *dir, const char *name)
{
	char path[256];
	FILE *f;
	int c;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return;
	while ((c = getc(f)) != EOF)
		fputc(c, stderr);
	fclose(f);
}

/* Runs `go tool pprof ARGS FILE` in dir; returns its stdout (free it) and
 * asserts that it succeeded without a word on stderr. go wants a writable
 * HOME and caches (dir's), and a newer go must not look for another
 * toolchain (GOTOOLCHAIN=local; go 1.19 ignores it): there is no network. */
static char *go_pprof(const char *dir, const char *args, const char *file)
{
	char cmd[1024], path[256], *out;
	FILE *f;
	long n;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && HOME='%s' GOCACHE='%s/cache' GOPATH='%s/gopath' "
		 "PPROF_TMPDIR='%s' GOFLAGS= GOTOOLCHAIN=local go tool pprof %s '%s' "
		 ">out.txt 2>err.txt",
		 dir, dir, dir, dir, dir, args, file);
	if (system(cmd)) {
		dump(dir, "err.txt");
		fail_msg("go tool pprof %s failed", args);
	}
	snprintf(path, sizeof(path), "%s/err.txt", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	fclose(f);
	if (n) {
		dump(dir, "err.txt");
		fail_msg("go tool pprof %s printed warnings", args);
	}
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	out = calloc(1, n + 1);
	assert_non_null(out);
	assert_int_equal(fread(out, 1, n, f), (size_t)n);
	fclose(f);
	return out;
}

/* The flat and cum columns of function `name` in -top output, as "flat/cum". */
static void top_row(const char *top, const char *name, char *buf, size_t size)
{
	const char *line = top;
	char flat[32], cum[32], fp[32], sp[32], cp[32];
	int off;

	buf[0] = 0;
	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (sscanf(line, "%31s %31s %31s %31s %31s %n", flat, fp, sp, cum, cp, &off) == 5 &&
		    (size_t)off < len && len - off == strlen(name) &&
		    !strncmp(line + off, name, len - off) && strchr(fp, '%')) {
			snprintf(buf, size, "%s/%s", flat, cum);
			return;
		}
		line = end ? end + 1 : NULL;
	}
	fail_msg("no row for %s in:\n%s", name, top);
}

static void test_go_tool_pprof(void **state)
{
	struct profile *p = *state;
	struct attrib *a;
	char dir[] = "/tmp/fsp-unit-pprof-XXXXXX", path[128], row[64], want[64], cmd[160];
	const struct attrib_feature *f;
	char *top, *raw;
	size_t i, j;
	FILE *out;

	if (!have_go()) {
		fprintf(stderr, "!!! SKIPPED: `go` is not in PATH, `go tool pprof` was not run on "
				"our pprof output (Debian: apt-get install golang-go)\n");
		skip();
	}
	assert_non_null(mkdtemp(dir));
	/* a second process, an instance shared by two features, no instance */
	ADD_STACK(p, 99, 0x1, MARK("Regex", "re:1"), ANTI("Regex"), MARK("Output", NULL));
	ADD_STACK(p, 99, 0x2, MARK("Regex", "fizzbuzz.c:8"));
	ADD_SAMPLES(p, 99, 100, 0x1, 7);
	ADD_SAMPLES(p, 99, 100, 0x2, 4);
	snprintf(path, sizeof(path), "%s/profile.pb.gz", dir);
	out = fopen(path, "w");
	assert_non_null(out);
	assert_int_equal(report__pprof(out, p, NULL), 0);
	assert_int_equal(fclose(out), 0);

	top = go_pprof(dir, "-sample_index=samples -top -nodecount=1000", "profile.pb.gz");
	/* every instance: flat = cum = its charged samples; every feature:
	 * flat 0, cum = its samples; (no feature): the uncharged ones */
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	for (i = 0; i < attrib__nr_features(a); i++) {
		f = attrib__feature(a, i);
		top_row(top, f->name, row, sizeof(row));
		snprintf(want, sizeof(want), "0/%llu", (unsigned long long)f->samples);
		assert_string_equal(row, want);
		for (j = 0; j < f->nr_instances; j++) {
			char name[128];

			snprintf(name, sizeof(name), "%s: %s", f->name, f->instances[j].name);
			top_row(top, name, row, sizeof(row));
			snprintf(want, sizeof(want), "%llu/%llu",
				 (unsigned long long)f->instances[j].samples,
				 (unsigned long long)f->instances[j].samples);
			assert_string_equal(row, want);
		}
	}
	top_row(top, "(no feature)", row, sizeof(row));
	snprintf(want, sizeof(want), "%llu/%llu", (unsigned long long)attrib__uncharged_samples(a),
		 (unsigned long long)attrib__uncharged_samples(a));
	assert_string_equal(row, want);
	/* the header: our comment, the type, the total of the charges */
	assert_non_null(strstr(top, "fsp-bpf 0.1.0: feature profile of pid 1234 (demo)\n"));
	assert_non_null(strstr(top, "Type: samples\n"));
	assert_non_null(strstr(top, "Total samples = 131 \n"));
	free(top);

	/* the default sample type is cpu time */
	top = go_pprof(dir, "-top -nodecount=1000", "profile.pb.gz");
	top_row(top, "Output: fizzbuzz.c:8", row, sizeof(row));
	assert_string_equal(row, "70ms/70ms");
	top_row(top, "Regex: fizzbuzz.c:8", row, sizeof(row));
	assert_string_equal(row, "4ms/4ms");
	assert_non_null(strstr(top, "Duration: 3s, Total samples = 131ms"));
	free(top);

	/* labels and the raw view load too */
	raw = go_pprof(dir, "-raw", "profile.pb.gz");
	assert_non_null(strstr(raw, "PeriodType: cpu nanoseconds\nPeriod: 1000000\n"));
	assert_non_null(strstr(raw, "pid:[99] tid:[100]"));
	assert_non_null(strstr(raw, "process:[demo] thread:[worker]"));
	free(raw);
	raw = go_pprof(dir, "-tagfocus=thread=worker -sample_index=samples -top", "profile.pb.gz");
	top_row(raw, "Output: fizzbuzz.c:7", row, sizeof(row));
	assert_string_equal(row, "10/10");
	assert_null(strstr(raw, "fizzbuzz.c:8"));
	free(raw);

	attrib__free(a);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The sample types calls and offcpu, as go tool pprof reads them. */
static void test_go_tool_pprof_events(void **state)
{
	char dir[] = "/tmp/fsp-unit-pprof-XXXXXX", path[128], row[64], cmd[160];
	struct profile *p = rich_profile(true, true);
	char *top;
	FILE *out;

	(void)state;
	if (!have_go()) {
		fprintf(stderr, "!!! SKIPPED: `go` is not in PATH, `go tool pprof` was not run on "
				"our pprof output (Debian: apt-get install golang-go)\n");
		profile__free(p);
		skip();
	}
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/profile.pb.gz", dir);
	out = fopen(path, "w");
	assert_non_null(out);
	assert_int_equal(report__pprof(out, p, NULL), 0);
	assert_int_equal(fclose(out), 0);

	/* calls: each instance's exact count, each feature's sum, also of the
	 * features sampling never saw */
	top = go_pprof(dir, "-sample_index=calls -top -nodecount=1000 -nodefraction=0",
		       "profile.pb.gz");
	assert_non_null(strstr(top, "Type: calls\n"));
	assert_non_null(strstr(top, "Total samples = 6205 \n"));
	top_row(top, "Output: fizzbuzz.c:8", row, sizeof(row));
	assert_string_equal(row, "1000/1000");
	top_row(top, "Output", row, sizeof(row));
	assert_string_equal(row, "0/1200");
	top_row(top, "Short: short.c:2", row, sizeof(row));
	assert_string_equal(row, "3/3");
	top_row(top, "Short", row, sizeof(row));
	assert_string_equal(row, "0/5003");
	top_row(top, "Tiny: (no instance)", row, sizeof(row));
	assert_string_equal(row, "2/2");
	assert_null(strstr(top, "Generic sequences"));
	free(top);

	/* offcpu: the charged off-CPU time, the uncharged at (no feature) */
	top = go_pprof(dir, "-sample_index=offcpu -top -nodecount=1000", "profile.pb.gz");
	assert_non_null(strstr(top, "Type: offcpu\n"));
	assert_non_null(strstr(top, "Total samples = 72.50ms"));
	top_row(top, "Output: fizzbuzz.c:8", row, sizeof(row));
	assert_string_equal(row, "40ms/40ms");
	top_row(top, "(no feature)", row, sizeof(row));
	assert_string_equal(row, "32.50ms/32.50ms");
	free(top);

	/* event_time, and the default: cpu, as without events */
	top = go_pprof(dir, "-sample_index=event_time -top -nodecount=1000", "profile.pb.gz");
	top_row(top, "Output", row, sizeof(row));
	assert_string_equal(row, "0/120ms");
	free(top);
	top = go_pprof(dir, "-top -nodecount=1000", "profile.pb.gz");
	assert_non_null(strstr(top, "Type: cpu\n"));
	assert_non_null(strstr(top, "Total samples = 120ms"));
	top_row(top, "Output: fizzbuzz.c:8", row, sizeof(row));
	assert_string_equal(row, "70ms/70ms");
	free(top);
	top = go_pprof(dir, "-raw", "profile.pb.gz");
	/* cpu is the default ("[dflt]") */
	assert_non_null(strstr(top, "samples/count cpu/nanoseconds[dflt] offcpu/nanoseconds "
				    "calls/count event_time/nanoseconds"));
	free(top);

	profile__free(p);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
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
		cmocka_unit_test(test_text_events),
		cmocka_unit_test(test_text_offcpu),
		cmocka_unit_test(test_text_events_and_offcpu),
		cmocka_unit_test(test_text_min_pct_events),
		cmocka_unit_test(test_text_events_without_samples),
		cmocka_unit_test(test_text_feature_histogram),
		cmocka_unit_test(test_text_histogram_buckets),
		cmocka_unit_test(test_text_order_cost_offcpu),
		cmocka_unit_test_setup_teardown(test_folded_by_feature, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folded_by_process_and_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folded_min_pct_and_feature, setup, teardown),
		cmocka_unit_test(test_folded_escaping),
		cmocka_unit_test(test_folded_merged_and_unknown),
		cmocka_unit_test(test_folded_values),
		cmocka_unit_test_setup_teardown(test_folded_write_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pprof_decode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pprof_feature_and_labels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pprof_empty_and_errors, setup, teardown),
		cmocka_unit_test(test_pprof_events_offcpu),
		cmocka_unit_test(test_text_nspid),
		cmocka_unit_test(test_text_filter_comm),
		cmocka_unit_test(test_text_filter_pid),
		cmocka_unit_test(test_report_pids_parse),
		cmocka_unit_test(test_report_filter),
		cmocka_unit_test(test_text_filter_offcpu),
		cmocka_unit_test(test_folded_filter),
		cmocka_unit_test(test_pprof_filter_and_nspid),
		cmocka_unit_test(test_feature_lists),
		cmocka_unit_test_setup_teardown(test_go_tool_pprof, setup, teardown),
		cmocka_unit_test(test_go_tool_pprof_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
