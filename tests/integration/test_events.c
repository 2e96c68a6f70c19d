// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The event view, off-CPU time and the live view against ground truth the
 * workloads measure themselves. Profiles are read back through the analysis
 * library (profile__load, attrib__compute): what `fsp-bpf report` shows.
 *
 *   event_counts   wl_events: exact enters and leaves of every phase, among
 *                  them 100,000 empty marks and 100,000 of 20 us (a fiftieth of
 *                  the sampling period); durations against the monotonic-clock truth;
 *                  marks that are never left count as entered only
 *   event_threads  wl_threads: three threads, exact enters per instance
 *   event_vfork    wl_vfork --events: 20 vforked children each mark
 *                  "vchild" once before _exit, in their parent's memory:
 *                  every enter and leave counted (none was, 0 of 200 in the
 *                  issue: the child ran before its probes could be
 *                  attached; each is now held until they are, which costs
 *                  it the attach: 20, not 200, keeps the test short)
 *   offcpu         wl_events --off-cpu: the time asleep inside ev_sleep and
 *                  blocked writing to a slow pipe inside ev_pipe is charged to
 *                  them, off CPU
 *   offcpu_spill   the same with FSP_OFFCPU_SLOTS=1: the threads' off-CPU
 *                  records in the spill hash instead of the array
 *                  (both: no interval lost; those whose switch-in the kernel
 *                  did not report, recovered, are printed)
 *   live_time      --interval: no live profile has more samples than the time
 *                  that had passed (one busy thread; see the test)
 *   live_tmux      --interval under a real terminal (tmux): the screen is
 *                  redrawn with successive reports, the final report follows
 *
 * Tolerances. Counts are exact. A duration is timed by the probes
 * (bpf_ktime_get_ns at enter and leave) and by the workload with monotonic
 * clock reads around the probes (wl_common.h): the workload's truth counts half
 * of the bracket time ambig_ns, and the probes' interval lies inside the
 * bracket, so |measured - truth| <= ambig_ns / 2 (plus 1 us per 1000 marks for
 * clock granularity).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attrib.h"
#include "itest.h"
#include "profile_io.h"

/* fsp-bpf -F ITEST_HZ -o JSON [EXTRA] -- WORKLOAD ARGS... with exit 0. */
static void record(const char *json, const char *extra, const char *workload, char *const args[])
{
	char *argv[32] = {NULL, "-F", ITEST_HZ, "-o", (char *)json, "--min-pct", "0"};
	struct itest_proc p;
	int n = 7;

	if (extra)
		argv[n++] = (char *)extra;
	argv[n++] = "--";
	argv[n++] = (char *)itest_workload(workload);
	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	itest_run_fspv(&p, "fsp", ITEST_TIMEOUT_S, argv);
	itest_assert_exit(&p, 0);
	free(p.out);
	free(p.err);
}

static bool duration_ok(const char *what, const struct profile_event_stats *ev,
			const struct itest_truth *t, const char *phase)
{
	double truth = itest_truth_u64(t, "%s.ns", phase);
	double ambig = itest_truth_u64(t, "%s.ambig_ns", phase);
	double tol = ambig / 2 + 1000.0 * (ev->leaves / 1000 + 1);
	double got = ev->total_ns;
	bool ok = fabs(got - truth) <= tol;

	printf("  %-22s duration fsp-bpf %12.0f ns  truth %12.0f ns  |diff| %9.0f  tol %9.0f  %s\n",
	       what, got, truth, fabs(got - truth), tol, ok ? "ok" : "FAIL");
	return ok;
}

static void test_event_counts(void **state)
{
	const char *json = itest_tmp("prof.json"), *truth = itest_tmp("truth");
	char *args[] = {(char *)truth, "100000", "100000", "50", NULL};
	const char *phases[][2] = {{"ev_count", "empty"},
				   {"ev_busy", "20us"},
				   {"ev_anti", "outer"},
				   {"ev_sleep", "5ms"}};
	const struct attrib_instance *in;
	struct itest_truth *t;
	struct profile *p;
	struct attrib *a;
	uint64_t hist_sum;
	bool ok = true;

	(void)state;
	record(json, "--events", "wl_events", args);
	t = itest_truth_load(truth);
	p = itest_profile_load(json);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	for (size_t i = 0; i < 4; i++) {
		in = itest_instance(a, phases[i][0], phases[i][1]);
		assert_non_null(in->events);
		printf("  %-10s enters %8llu (truth %8llu)  leaves %8llu (truth %8llu)\n",
		       phases[i][0], (unsigned long long)in->events->enters,
		       (unsigned long long)itest_truth_u64(t, "%s.enters", phases[i][0]),
		       (unsigned long long)in->events->leaves,
		       (unsigned long long)itest_truth_u64(t, "%s.leaves", phases[i][0]));
		assert_int_equal(in->events->enters, itest_truth_u64(t, "%s.enters", phases[i][0]));
		assert_int_equal(in->events->leaves, itest_truth_u64(t, "%s.leaves", phases[i][0]));
		hist_sum = 0;
		for (size_t b = 0; b < PROFILE_HIST_BUCKETS; b++)
			hist_sum += in->events->hist[b];
		assert_int_equal(hist_sum, in->events->leaves);
		if (strcmp(phases[i][0], "ev_count")) /* empty marks: all bracket */
			ok &= duration_ok(phases[i][0], in->events, t, phases[i][0]);
	}
	/* 100,000 marks far shorter than the sampling period: sampling cannot
	 * tell their cost, the event view counts every one. */
	in = itest_instance(a, "ev_count", ATTRIB_NO_INSTANCE);
	assert_int_equal(in->events->enters, itest_truth_u64(t, "ev_count_null.enters"));
	/* Entered, never left: counted, no duration. */
	in = itest_instance(a, "ev_stale", "leaky");
	assert_int_equal(in->events->enters, itest_truth_u64(t, "ev_stale.enters"));
	assert_int_equal(in->events->leaves, 0);
	ITEST_ASSERT_OK(ok);
	attrib__free(a);
	profile__free(p);
	itest_truth_free(t);
}

static void test_event_vfork(void **state)
{
	const char *json = itest_tmp("prof.json"), *truth = itest_tmp("truth");
	char *args[] = {(char *)truth, "20", NULL};
	const struct attrib_instance *in;
	struct itest_truth *t;
	struct profile *p;
	struct attrib *a;

	(void)state;
	record(json, "--events", "wl_vfork", args);
	t = itest_truth_load(truth);
	assert_int_equal(itest_truth_u64(t, "children"), 20);
	p = itest_profile_load(json);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	in = itest_instance(a, "vchild", "child");
	assert_non_null(in->events);
	printf("  vchild enters %llu leaves %llu of 20\n", (unsigned long long)in->events->enters,
	       (unsigned long long)in->events->leaves);
	assert_int_equal(in->events->enters, 20);
	assert_int_equal(in->events->leaves, 20);
	attrib__free(a);
	profile__free(p);
	itest_truth_free(t);
}

static void test_event_threads(void **state)
{
	const char *json = itest_tmp("prof.json"), *truth = itest_tmp("truth");
	char *args[] = {(char *)truth, "900", NULL};
	struct itest_truth *t;
	struct profile *p;
	struct attrib *a;
	uint64_t c0, c1, c2;

	(void)state;
	record(json, "--events", "wl_threads", args);
	t = itest_truth_load(truth);
	c0 = itest_truth_u64(t, "thread.0.cycles");
	c1 = itest_truth_u64(t, "thread.1.cycles");
	c2 = itest_truth_u64(t, "thread.2.cycles");
	printf("  cycles: wl-alpha %llu, wl-beta %llu, wl-gamma %llu\n", (unsigned long long)c0,
	       (unsigned long long)c1, (unsigned long long)c2);
	p = itest_profile_load(json);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	assert_int_equal(itest_instance(a, "encode", "alpha")->events->enters, c0);
	assert_int_equal(itest_instance(a, "decode", "beta")->events->enters, c1);
	assert_int_equal(itest_instance(a, "verify", "beta-nested")->events->enters, c1);
	assert_int_equal(itest_instance(a, "verify", "gamma")->events->enters, c2);
	assert_int_equal(itest_instance(a, "encode", "gamma")->events->enters, c2);
	assert_int_equal(itest_feature(a, "encode")->events->leaves, c0 + c2);
	attrib__free(a);
	profile__free(p);
	itest_truth_free(t);
}

/*
 * Off-CPU: the workload measures, inside the marks, wall-clock time (monotonic)
 * and its own CPU time (CLOCK_THREAD_CPUTIME_ID, the scheduler's
 * sum_exec_runtime): wall - CPU is the time it was switched out, which
 * --off-cpu measures with the scheduler's clock from switch-out to switch-in.
 * No sampling is involved. The probe brackets (ambig_ns) may fall on either
 * side; besides, each interval can be off by the clock reads around it, a few
 * microseconds (both clocks read sched_clock): 10 us per mark.
 */
static void offcpu_ok(const struct attrib *a, const struct itest_truth *t, const char *f,
		      double blocked)
{
	double off = itest_feature(a, f)->offcpu_ns;
	double tol =
		itest_truth_u64(t, "%s.ambig_ns", f) + 10e3 * itest_truth_u64(t, "%s.enters", f);

	printf("  %-9s off-CPU %8.2f ms  truth (wall - CPU) %8.2f ms  |diff| %.3f ms  tol %.3f "
	       "ms\n",
	       f, off / 1e6, blocked / 1e6, fabs(off - blocked) / 1e6, tol / 1e6);
	assert_true(blocked > 20e6); /* it did block */
	assert_true(fabs(off - blocked) <= tol);
}

static void offcpu_run(void)
{
	const char *json = itest_tmp("prof.json"), *truth = itest_tmp("truth");
	char *args[] = {(char *)truth, "1000", "100", "100", NULL};
	struct itest_truth *t;
	struct profile *p;
	struct attrib *a;

	record(json, "--off-cpu", "wl_events", args);
	t = itest_truth_load(truth);
	p = itest_profile_load(json);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	/* Intervals one of whose ends sched_switch did not report are
	 * recovered (some kernels miss switches: docs/event-view.md), none
	 * is lost (the workload's few threads fit every map). */
	printf("  offcpu_recovered %llu  offcpu_lost %llu\n",
	       (unsigned long long)profile__diag(p, DIAG_OFFCPU_RECOVERED),
	       (unsigned long long)profile__diag(p, DIAG_OFFCPU_LOST));
	assert_int_equal(profile__diag(p, DIAG_OFFCPU_LOST), 0);
	/* asleep in usleep(5000) */
	offcpu_ok(a, t, "ev_sleep",
		  (double)itest_truth_u64(t, "ev_sleep.slept_ns") -
			  itest_truth_u64(t, "ev_sleep.cpu_ns"));
	/* blocked in write(2) on a full pipe */
	offcpu_ok(a, t, "ev_pipe",
		  (double)itest_truth_u64(t, "ev_pipe.wall_ns") -
			  itest_truth_u64(t, "ev_pipe.cpu_ns"));
	/* The busy phases spin: next to no off-CPU time compared with sleeping. */
	assert_true(itest_feature(a, "ev_busy")->offcpu_ns <
		    itest_feature(a, "ev_sleep")->offcpu_ns / 10);
	assert_true(profile__total_offcpu_ns(p) >= itest_feature(a, "ev_sleep")->offcpu_ns);
	attrib__free(a);
	profile__free(p);
	itest_truth_free(t);
}

static void test_offcpu(void **state)
{
	(void)state;
	offcpu_run();
}

/* The same with one slot in the off-CPU record array: every thread of the
 * workload (main, the pipe's reader) and of the machine past the first goes
 * through the spill hash, whose results must be the same. */
static void test_offcpu_spill(void **state)
{
	(void)state;
	assert_int_equal(setenv("FSP_OFFCPU_SLOTS", "1", 1), 0);
	offcpu_run();
	unsetenv("FSP_OFFCPU_SLOTS");
}

/* The number of the live report on the screen captured into path (0: none
 * yet), and how many reports the screen holds; the text in *out. */
static int live_screen(const char *sock, const char *path, int *reports, char **out)
{
	char *text, *s;
	int n = 0;

	*reports = 0;
	*out = NULL;
	if (!itest_shell("tmux -S %s capture-pane -p -t live > %s", sock, path))
		return 0;
	text = itest_slurp(path);
	if (!text)
		return 0;
	for (s = text; (s = strstr(s, "--- live report ")); s++) {
		(*reports)++;
		n = atoi(s + strlen("--- live report "));
	}
	*out = text;
	return n;
}

/* The live view in a real terminal: tmux runs fsp-bpf --interval 0.5 on a
 * 3 s workload; a capture mid-run, once the second report or a later one is
 * drawn (however long fsp-bpf took to start), shows that report alone (the
 * screen is redrawn, not scrolled); after the end the final report is
 * there. */
static void test_live_tmux(void **state)
{
	const char *sock = itest_tmp("tmux.sock"), *screen = itest_tmp("screen.txt");
	char *text = NULL;
	int reports = 0, number = 0;

	(void)state;
	if (system("command -v tmux >/dev/null 2>&1")) {
		fprintf(stderr, "SKIP: tmux is not installed: the live view is not tested under a "
				"terminal (scripts/install-deps.sh installs it)\n");
		skip();
	}
	assert_true(itest_shell("tmux -S %s new-session -d -x 160 -y 60 -s live "
				"'%s --interval 0.5 -- %s %s 3000; echo FSP-EXIT=$?; sleep 30'",
				sock, itest_fsp_bpf(), itest_workload("wl_mix"),
				itest_tmp("truth")));
	for (int i = 0; i < 150 && number < 2; i++) {
		itest_sleep(0.1);
		free(text);
		number = live_screen(sock, screen, &reports, &text);
	}
	assert_non_null(text);
	printf("  mid-run screen (live report %d):\n%s\n", number, text);
	/* Redrawn: one report on the screen, and not the first one. */
	assert_true(number >= 2);
	assert_int_equal(reports, 1);
	assert_non_null(strstr(text, "accounts for"));
	free(text);
	text = NULL;
	for (int i = 0; i < 100; i++) {
		itest_sleep(0.2);
		itest_shell("tmux -S %s capture-pane -p -S -200 -t live > %s", sock, screen);
		text = itest_slurp(screen);
		if (text && strstr(text, "FSP-EXIT="))
			break;
		free(text);
		text = NULL;
	}
	itest_shell("tmux -S %s kill-server 2>/dev/null", sock);
	assert_non_null(text);
	assert_non_null(strstr(text, "FSP-EXIT=0"));
	assert_non_null(strstr(text, "Diagnostics"));
	free(text);
}

/*
 * The live view tells no more time than there was: fsp-bpf --interval 0.5
 * --format json on one thread that is always busy, inside a mark with a new
 * payload at every call (wl_payload): each live profile's samples are at
 * most the session's duration when it was taken (one CPU). The payload
 * records that came while a snapshot was taken were counted twice: 1,060
 * samples at 2.02 s of a target that had used 690 ms.
 */
static void test_live_time(void **state)
{
	struct itest_proc p;
	unsigned int live = 0;
	uint64_t period = 0;
	char *s;

	(void)state;
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "-F", ITEST_HZ, "--interval", "0.5", "--format",
		      "json", "--", itest_workload("wl_payload"), itest_tmp("truth"), "1", "3000",
		      NULL);
	itest_assert_exit(&p, 0);
	for (s = p.out; (s = strstr(s, "--- live report ")); s++) {
		struct json_tokener *tok = json_tokener_new();
		char *body = strchr(s, '\n');
		json_object *prof;
		double at = 0, shown;
		unsigned int n = 0;

		assert_non_null(tok);
		assert_int_equal(sscanf(s, "--- live report %u at %lf s", &n, &at), 2);
		assert_non_null(body);
		prof = json_tokener_parse_ex(tok, body + 1, (int)strlen(body + 1));
		json_tokener_free(tok);
		if (!prof)
			fail_msg("live report %u is not JSON", n);
		period = itest_json_u64(prof, "period_ns");
		shown = itest_total_samples(prof) * (double)period / 1e9;
		print_message("  live report %u at %.2f s: %.3f s of samples\n", n, at, shown);
		/* Taken just before its time was printed, which the header
		 * rounds to 0.1 s (at most 0.05 s more); a sample is a period.
		 * The bug showed half as much again (1,060 samples at 2.02 s of
		 * a target that had used 690 ms). */
		assert_true(shown <= at + 0.05 + 2 * period / 1e9);
		json_object_put(prof);
		live++;
	}
	assert_true(live >= 4);
	free(p.out);
	free(p.err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_event_counts), ITEST(test_event_threads), ITEST(test_event_vfork),
		ITEST(test_offcpu),	  ITEST(test_offcpu_spill),  ITEST(test_live_tmux),
		ITEST(test_live_time),
	};

	return ITEST_MAIN("events", tests);
}
