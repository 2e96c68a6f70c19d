// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Cases that probe ABI v2 (trap-free marks) brought, against the workloads'
 * own truth; run against both ABIs (with FSP_ABI=v1 the observer-effect cases
 * are skipped: trapping is what ABI v1 marks cost, see docs/benchmarks.md).
 *
 *   observer_1us, observer_100ns
 *                   wl_observer: a ~1 us feature called 10^6 times (a ~100 ns
 *                   one, 5 10^6 times) beside a coarse one doing the same
 *                   work: fsp-bpf's shares within max(1 pp, 4 sigma) of the
 *                   per-phase CPU times of an unprofiled run of the same work
 *                   (with ABI v1 traps the coarse feature's share came out at
 *                   31-35% for 50%, 6.5% in the 100 ns case); the fine
 *                   phases' time split between the fine feature and no
 *                   feature by at most what the calls cost outside their
 *                   bodies (measured by the run itself with empty bodies:
 *                   ~10-17 ns a call here). The profile says which marks ran
 *                   (marks: v2).
 *   observer_events wl_observer fine1us with --events=coarse: the shares as
 *                   unprofiled (fine's sites were detached after their first
 *                   hits), coarse's calls counted exactly, fine's not; with
 *                   --events, the report's note on the traps names fine
 *                   (Redis's lrange: 51-56% instead of 73-85%, unsaid).
 *   mid_push        wl_torn at -F 19997: marks entered and left back to back,
 *                   out of order and under antimarks; no stored stack has a
 *                   torn or stale frame (every frame's fields agree, every
 *                   stack is one that existed).
 *   unreadable      wl_torn corrupt: the program breaks its own stack's header
 *                   and TLS pointer, inside a mark, then spins: its samples
 *                   are counted as unreadable_stacks, nothing is charged from
 *                   garbage, nothing faults.
 *   signal_handler, signal_altstack
 *                   a handler that marks while the thread is inside a mark,
 *                   on the thread's stack and on an alternate signal stack:
 *                   both features charged as measured, nothing dropped.
 *   coroutine       a swapcontext coroutine on a heap stack marking across
 *                   its yields: no crash, no mark dropped, no feature charged
 *                   less than it ran (the documented limit: a context's marks
 *                   are also charged while the other context runs).
 *   threads_attach  -p on wl_pool: two threads inside the feature when
 *                   fsp-bpf attaches, two started after: shares over the
 *                   window, and the new threads' own shares; no
 *                   unmatched leave (those of the marks open at the
 *                   attach are not counted).
 *   reattach        two sessions one after the other on one process: the
 *                   frames the first left behind (it detached while the
 *                   process was inside a mark) are not charged by the second.
 *   two_sessions    a session on wl_service, and a second one on it while the
 *                   first runs (an agent and someone debugging by hand):
 *                   both get the fixed cycle's shares, and the second does
 *                   not start the record's stacks afresh under the first
 *                   (its gen stays; each raise dropped the other's live marks,
 *                   and the two raised it in turn: 91-98% of Redis's samples
 *                   in no feature).
 *   many_dsos       wl_dsos: an executable and ten libraries with ABI v2
 *                   marks, the executable's constructor last: its marks are
 *                   read (it was the one dropped), three libraries' are not,
 *                   said once and counted 3 (it said so at every rescan, 9
 *                   for 3).
 *   mixed           one process with ABI v2 marks, an ABI v1 library
 *                   (dlopen) and a mapped provider, nested three deep: each
 *                   feature's share, the nesting order of every stack.
 *   abimix          one executable whose translation units use ABI v2 and
 *                   ABI v1, linked in both orders (wl_abimix, wl_abimix_r):
 *                   both features' shares (the v1 unit's was lost, 0%,
 *                   with all diagnostics zero), launched and -p.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "itest.h"
#include "profile.h"

/* fsp-bpf -F HZ --json JSON --min-pct 0 [EXTRA...] -- WORKLOAD ARGS..., exit 0. */
static json_object *launch(const char *hz, const char *json, char *const extra[],
			   const char *workload, char *const args[])
{
	char *argv[32] = {NULL, "-F", (char *)hz, "--json", (char *)json, "--min-pct", "0"};
	struct itest_proc p;
	json_object *prof;
	int n = 7;

	for (int i = 0; extra && extra[i]; i++)
		argv[n++] = extra[i];
	argv[n++] = "--";
	argv[n++] = (char *)itest_workload(workload);
	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	itest_run_fspv(&p, "fsp", 60, argv);
	itest_assert_exit(&p, 0);
	free(p.out);
	free(p.err);
	prof = itest_json_load(json);
	itest_assert_labels_resolved(prof);
	return prof;
}

static const char *json_str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* Is k/n within max(1 pp, 4 sigma) of [lo, hi] (the bound for the
 * observer effect)? Prints the comparison. */
static bool within_range(const char *what, uint64_t k, uint64_t n, double lo, double hi)
{
	double ph = n ? (double)k / n : 0, p = fmin(fmax(ph, lo), hi);
	double sigma = sqrt(p * (1 - p) / (n ? n : 1)), tol = fmax(0.01, 4 * sigma);
	bool ok = n && ph >= lo - tol - ITEST_EPS && ph <= hi + tol + ITEST_EPS;

	print_message("  %-24s fsp-bpf %6.2f%% (%llu/%llu)  expected %.2f%%..%.2f%%  "
		      "tol max(1%%, 4sigma %.2f%%)  %s\n",
		      what, 100 * ph, (unsigned long long)k, (unsigned long long)n, 100 * lo,
		      100 * hi, 400 * sigma, ok ? "ok" : "FAIL");
	return ok;
}

/* Is k/n within max(1 pp, 4 sigma) of the unprofiled run's share p? */
static bool within_pp(const char *what, uint64_t k, uint64_t n, double p)
{
	return within_range(what, k, n, p, p);
}

/* ---- the observer effect ------------------------------------------------------------ */

/* observer_case's run with extra options (NULL: none); its text report in
 * *text when not NULL. */
static void observer_run(const char *mode, const char *extra, char **text);

static void observer_case(const char *mode)
{
	observer_run(mode, NULL, NULL);
}

static void observer_run(const char *mode, const char *extra, char **text)
{
	const char *t0 = itest_tmp("truth0"), *t1 = itest_tmp("truth1"),
		   *json = itest_tmp("p.json");
	char iters[32], *args1[] = {(char *)t1, (char *)mode, iters, NULL};
	char *wargv[4] = {(char *)itest_workload("wl_observer"), (char *)t0, (char *)mode, NULL};
	struct itest_truth *u, *prof_t;
	struct itest_proc w;
	json_object *prof;
	uint64_t n, fine, coarse, calls;
	double C, fine_p, coarse_p, none_p, gap_ns, gap_p, slow;
	bool ok = true;

	/* ABI v1 marks trap: their observer effect is what ABI v2 removes. */
	if (itest_abi_v1()) {
		print_message(
			"  SKIP: not applicable to ABI v1 marks (the test measures ABI v2's)\n");
		skip();
	}
	/* The unprofiled run: its own per-phase CPU times are the truth. */
	itest_spawn(&w, "unprofiled", wargv);
	itest_wait(&w, 60);
	itest_assert_exit(&w, 0);
	u = itest_truth_load(t0);
	snprintf(iters, sizeof(iters), "%llu", (unsigned long long)itest_truth_u64(u, "iters"));
	if (extra) {
		char *ex[] = {(char *)extra, NULL};

		prof = launch(ITEST_HZ, json, ex, "wl_observer", args1);
	} else {
		prof = launch(ITEST_HZ, json, NULL, "wl_observer", args1);
	}
	if (text)
		*text = itest_slurp(itest_tmp("fsp.stdout"));
	prof_t = itest_truth_load(t1);
	assert_int_equal(itest_truth_u64(prof_t, "mismatches"), 0);
	assert_int_equal(itest_truth_u64(prof_t, "integrity_errors"), 0);
	/* The work both runs do: the unprofiled one also calibrated (~1-3% of
	 * its time, all of it in no feature). */
	C = (double)(itest_truth_u64(u, "cpu_total_ns") - itest_truth_u64(u, "calibrate_ns"));
	fine_p = itest_truth_u64(u, "phase.fine.ns") / C;
	coarse_p = itest_truth_u64(u, "phase.coarse.ns") / C;
	none_p = 1 - fine_p - coarse_p;
	slow = itest_truth_u64(prof_t, "cpu_total_ns") / C;
	/* Between two calls' marks (the loop, the call, the marks' own code
	 * around the frame they publish) the profile rightly shows no feature,
	 * where the unprofiled run's clock reads count the fine phase: at most
	 * the profiled run's cost of a call with an empty body, each call. */
	calls = itest_truth_u64(prof_t, "calls") + itest_truth_u64(prof_t, "empty_calls");
	gap_ns = (double)itest_truth_u64(prof_t, "empty.ns") /
		 itest_truth_u64(prof_t, "empty_calls");
	gap_p = calls * gap_ns / itest_truth_u64(prof_t, "cpu_total_ns");
	print_message("  calibration %.1f ms (not in the profiled run); a call outside its body: "
		      "%.2f ns profiled, %.2f ns unprofiled\n",
		      itest_truth_u64(u, "calibrate_ns") / 1e6, gap_ns,
		      (double)itest_truth_u64(u, "empty.ns") / itest_truth_u64(u, "empty_calls"));
	n = itest_total_samples(prof);
	fine = itest_feature_samples(prof, "fine");
	coarse = itest_feature_samples(prof, "coarse");
	print_message("  %llu calls of %llu steps; profiled run's CPU time: %.3fx the unprofiled "
		      "run's\n",
		      (unsigned long long)itest_truth_u64(u, "calls"),
		      (unsigned long long)itest_truth_u64(u, "iters"), slow);
	assert_true(n >= 1000);
	ok &= within_pp("coarse", coarse, n, coarse_p);
	ok &= within_range("fine", fine, n, fine_p - gap_p, fine_p);
	ok &= within_range("no feature", n - fine - coarse, n, none_p, none_p + gap_p);
	/* Trap-free: the marks were read from the stacks, nothing trapped
	 * (--events=coarse: coarse's marks, fine's first ones). */
	assert_string_equal(json_str(prof, "marks"), extra ? "v2,v2-events" : "v2");
	if (extra) {
		struct profile *pp = itest_profile_load(json);
		struct attrib *a = attrib__compute(pp, NULL);
		const struct attrib_instance *c = itest_instance(a, "coarse", "phase");
		const struct attrib_feature *f = itest_find_feature(a, "fine");

		/* coarse is counted exactly, fine not at all. */
		assert_non_null(c->events);
		assert_int_equal(c->events->enters, itest_truth_u64(prof_t, "cycles"));
		assert_true(!f || !f->events);
		attrib__free(a);
		profile__free(pp);
	}
	assert_int_equal(itest_diag(prof, "unreadable_stacks"), 0);
	assert_int_equal(itest_diag(prof, "unmatched_leaves"), 0);
	assert_int_equal(itest_diag(prof, "stale_marks"), 0);
	ITEST_ASSERT_OK(ok);
	itest_truth_free(u);
	itest_truth_free(prof_t);
	json_object_put(prof);
}

static void test_observer_1us(void **state)
{
	(void)state;
	observer_case("fine1us");
}

static void test_observer_100ns(void **state)
{
	(void)state;
	observer_case("fine100ns");
}

/* --events=coarse: only coarse's marks trap (fine's sites are detached after
 * their first hits), so fine's share is what it is unprofiled; coarse's calls
 * are counted, fine's not. With every mark trapping, fine's share grows with
 * the traps, and the report says so. */
static void test_observer_events(void **state)
{
	const char *json = itest_tmp("all.json");
	char *args[] = {(char *)itest_tmp("truth2"), "fine1us", NULL}, *text;
	char *ex[] = {"--events", NULL};
	json_object *prof;

	(void)state;
	if (itest_abi_v1()) {
		print_message(
			"  SKIP: not applicable to ABI v1 marks (the test measures ABI v2's)\n");
		skip();
	}
	observer_run("fine1us", "--events=coarse", &text);
	assert_null(strstr(text, "traps inside"));
	free(text);
	/* All of them: the note names fine, not coarse (one call a phase). */
	prof = launch(ITEST_HZ, json, ex, "wl_observer", args);
	assert_true(itest_json_u64(prof, "event_trap_ns") > 0);
	text = itest_slurp(itest_tmp("fsp.stdout"));
	print_message("%s", strstr(text, "\nThe probes") ? strstr(text, "\nThe probes") : text);
	assert_non_null(strstr(text, "  fine: "));
	assert_non_null(strstr(text, "traps inside"));
	assert_null(strstr(text, "  coarse: "));
	free(text);
	json_object_put(prof);
}

/* ---- a sample in the middle of a push or pop -------------------------------------------- */

/* Element i of a frame array, NULL if absent. */
static json_object *elem(json_object *a, size_t i)
{
	return i < json_object_array_length(a) ? json_object_array_get_idx(a, i) : NULL;
}

static const char *label(json_object *strings, json_object *idx)
{
	return idx && json_object_is_type(idx, json_type_int)
		       ? json_object_get_string(elem(strings, json_object_get_uint64(idx)))
		       : NULL;
}

/* One frame of wl_torn: "o<a>"/"oi<a>"/a, "n<b>"/"ni<b>"/100+b or an antimark
 * of "o<a>". Returns its feature's digit, -1 if the frame is torn. With
 * !payloads (a stack whose payloads the recorder did not keep, written as 0)
 * the payload is not checked. */
static int torn_frame(json_object *strings, json_object *fr, char *kind, char *which, bool payloads)
{
	const char *k = json_object_get_string(elem(fr, 0)), *f = label(strings, elem(fr, 1));
	const char *in = label(strings, elem(fr, 2));
	json_object *pl = elem(fr, 3);
	uint64_t payload = pl ? json_object_get_uint64(pl) : 0;
	int d;

	if (!k || !f || strlen(f) != 2 || (f[0] != 'o' && f[0] != 'n') || f[1] < '0' || f[1] > '7')
		return -1;
	d = f[1] - '0';
	*kind = k[0];
	*which = f[0];
	if (k[0] == 'a')
		return f[0] == 'o' && !in && !payload ? d : -1;
	if (!in || strlen(in) != 3 || in[0] != f[0] || in[1] != 'i' || in[2] != f[1])
		return -1;
	if (!payloads)
		return d;
	return payload == (uint64_t)(f[0] == 'o' ? d : 100 + d) ? d : -1;
}

/* Is stack `frames` one wl_torn has at some instant, every frame whole? */
static bool torn_stack_ok(json_object *strings, json_object *frames, bool payloads)
{
	size_t n = json_object_array_length(frames);
	char k0 = 0, w0 = 0, k1 = 0, w1 = 0;
	int a, b;

	if (n < 1 || n > 2)
		return false;
	a = torn_frame(strings, elem(frames, 0), &k0, &w0, payloads);
	if (a < 0 || k0 != 'm')
		return false;
	if (n == 1)
		return true; /* [o<a>] or [n<b>] */
	b = torn_frame(strings, elem(frames, 1), &k1, &w1, payloads);
	if (b < 0 || w0 != 'o')
		return false;
	if (k1 == 'a')
		return w1 == 'o' && b == a; /* [o<a>, antimark o<a>] */
	return w1 == 'n' && b == (a + 3) % 8; /* [o<a>, n<b>] */
}

/*
 * Does stack id have samples? A stack is identified without its payloads: the
 * file also holds each sampled stack's identity with payloads 0 (its samples
 * are on the copies with the payloads kept), which no sample may point to
 * unless its payloads were not sent.
 */
static bool stack_sampled(json_object *prof, uint64_t id)
{
	json_object *samples;

	json_object_object_get_ex(prof, "samples", &samples);
	for (size_t i = 0; i < json_object_array_length(samples); i++) {
		json_object *row = elem(samples, i), *sid = elem(row, 3);

		if (json_object_is_type(sid, json_type_int) && json_object_get_uint64(sid) == id &&
		    json_object_get_uint64(elem(row, 4)))
			return true;
	}
	return false;
}

/* Is stack st (a "stacks" element) sampled, and one wl_torn has, whole? */
static bool torn_sampled_stack_ok(json_object *prof, json_object *strings, json_object *st)
{
	json_object *frames, *id, *kept;

	json_object_object_get_ex(st, "frames", &frames);
	json_object_object_get_ex(st, "id", &id);
	if (!stack_sampled(prof, json_object_get_uint64(id)))
		return true;
	return torn_stack_ok(strings, frames,
			     !json_object_object_get_ex(st, "payloads_kept", &kept) ||
				     json_object_get_boolean(kept));
}

static void test_mid_push(void **state)
{
	const char *json = itest_tmp("p.json"), *truth = itest_tmp("truth");
	char *args[] = {(char *)truth, "1500", NULL};
	json_object *prof, *stacks, *strings;
	uint64_t n, charged = 0, bad = 0;
	struct itest_truth *t;
	size_t ns;

	(void)state;
	prof = launch("19997", json, NULL, "wl_torn", args);
	t = itest_truth_load(truth);
	json_object_object_get_ex(prof, "stacks", &stacks);
	json_object_object_get_ex(prof, "strings", &strings);
	ns = json_object_array_length(stacks);
	for (size_t i = 0; i < ns; i++) {
		json_object *st = elem(stacks, i), *frames;

		json_object_object_get_ex(st, "frames", &frames);
		if (!torn_sampled_stack_ok(prof, strings, st)) {
			bad++;
			print_message("  impossible stack: %s\n",
				      json_object_to_json_string(frames));
		}
	}
	n = itest_total_samples(prof);
	for (char c = '0'; c <= '7'; c++) {
		char f[3] = {'o', c, 0};

		charged += itest_feature_samples(prof, f);
	}
	print_message("  %zu distinct stacks, %llu samples, %llu in an outer mark, %llu "
		      "iterations\n",
		      ns, (unsigned long long)n, (unsigned long long)charged,
		      (unsigned long long)itest_truth_u64(t, "iterations"));
	/* 40 stacks exist (8 x ([o], [n], [o, n], [o, a], ...)): the sampler saw
	 * most of them, in the middle of tens of thousands of operations. */
	assert_true(n >= 10000);
	assert_true(ns >= 24);
	assert_int_equal(bad, 0);
	assert_int_equal(itest_diag(prof, "unreadable_stacks"), 0);
	itest_truth_free(t);
	json_object_put(prof);
}

static void test_unreadable(void **state)
{
	const char *json = itest_tmp("p.json"), *truth = itest_tmp("truth");
	char *args[] = {(char *)truth, "300", "corrupt", NULL};
	json_object *prof, *stacks, *strings;
	struct itest_truth *t;
	uint64_t unreadable;

	(void)state;
	if (itest_abi_v1()) {
		print_message("  SKIP: not applicable to ABI v1 marks (their stacks are the "
			      "kernel's, never unreadable)\n");
		skip();
	}
	prof = launch(ITEST_HZ, json, NULL, "wl_torn", args);
	t = itest_truth_load(truth);
	json_object_object_get_ex(prof, "stacks", &stacks);
	json_object_object_get_ex(prof, "strings", &strings);
	for (size_t i = 0; i < json_object_array_length(stacks); i++) {
		json_object *frames;

		json_object_object_get_ex(elem(stacks, i), "frames", &frames);
		if (!torn_sampled_stack_ok(prof, strings, elem(stacks, i)))
			fail_msg("stack from garbage: %s", json_object_to_json_string(frames));
	}
	unreadable = itest_diag(prof, "unreadable_stacks");
	print_message("  unreadable_stacks %llu over %.0f ms of spinning with a broken stack\n",
		      (unsigned long long)unreadable, itest_truth_u64(t, "corrupt_ns") / 1e6);
	/* 300 ms at ~2 kHz: about 600 samples; half of them is plenty. */
	assert_true(unreadable >= 300);
	itest_truth_free(t);
	json_object_put(prof);
}

/* ---- signal handlers and coroutines --------------------------------------------------- */

static json_object *signals_run(const char *mode, struct itest_truth **t)
{
	const char *json = itest_tmp("p.json"), *truth = itest_tmp("truth");
	char *args[] = {(char *)truth, "2000", (char *)mode, NULL};
	json_object *prof = launch(ITEST_HZ, json, NULL, "wl_signals", args);

	*t = itest_truth_load(truth);
	assert_int_equal(itest_truth_u64(*t, "integrity_errors"), 0);
	return prof;
}

static void signal_case(const char *mode)
{
	struct itest_truth *t;
	json_object *prof = signals_run(mode, &t);
	uint64_t n = itest_total_samples(prof), skipped = itest_truth_u64(t, "skipped");
	double C = (double)itest_truth_u64(t, "cpu_total_ns"), dw = ITEST_EXIT_NS / C;
	bool ok = true;

	print_message("  %llu signals, %llu handler marks skipped (a signal in the middle of a "
		      "mark), skipped_marks %llu\n",
		      (unsigned long long)itest_truth_u64(t, "signals"),
		      (unsigned long long)skipped,
		      (unsigned long long)itest_diag(prof, "skipped_marks"));
	assert_true(n >= 2000);
	assert_true(itest_truth_u64(t, "signals") >= 100);
	ok &= itest_truth_share_ok("main (handlers included)", itest_feature_samples(prof, "main"),
				   n, t, "feature.main", C, dw);
	ok &= itest_truth_share_ok("handler", itest_feature_samples(prof, "handler"), n, t,
				   "feature.handler", C, dw);
	assert_int_equal(itest_diag(prof, "stale_marks"), 0);
	assert_int_equal(itest_diag(prof, "unmatched_leaves"), 0);
	assert_true(itest_diag(prof, "skipped_marks") <= 2 * skipped);
	ITEST_ASSERT_OK(ok);
	itest_truth_free(t);
	json_object_put(prof);
}

static void test_signal_handler(void **state)
{
	(void)state;
	signal_case("handler");
}

static void test_signal_altstack(void **state)
{
	(void)state;
	signal_case("altstack");
}

/* Not charged less than measured (beyond sampling error): k/n >= p - tol. */
static bool at_least(const char *what, uint64_t k, uint64_t n, double p, double delta)
{
	double ph = n ? (double)k / n : 0, tol = itest_tolerance(p, n, delta);
	bool ok = n && ph >= p - tol;

	print_message("  %-24s fsp-bpf %6.2f%%  ran in its mark %6.2f%%  (over by %5.2f%%; at "
		      "least %.2f%%)  %s\n",
		      what, 100 * ph, 100 * p, 100 * (ph - p), 100 * (p - tol), ok ? "ok" : "FAIL");
	return ok;
}

static void test_coroutine(void **state)
{
	struct itest_truth *t;
	json_object *prof;
	uint64_t n;
	double C, dw;
	bool ok = true;

	(void)state;
	prof = signals_run("coroutine", &t);
	n = itest_total_samples(prof);
	C = (double)itest_truth_u64(t, "cpu_total_ns");
	dw = ITEST_EXIT_NS / C;
	assert_true(n >= 2000);
	ok &= at_least("coro", itest_feature_samples(prof, "coro"), n,
		       itest_truth_u64(t, "feature.coro.ns") / C,
		       itest_truth_u64(t, "feature.coro.ambig_ns") / (2 * C) + dw);
	ok &= at_least("main", itest_feature_samples(prof, "main"), n,
		       itest_truth_u64(t, "feature.main.ns") / C,
		       itest_truth_u64(t, "feature.main.ambig_ns") / (2 * C) + dw);
	/* The contexts' marks survive each other's: none dropped. */
	assert_int_equal(itest_diag(prof, "stale_marks"), 0);
	assert_int_equal(itest_diag(prof, "unmatched_leaves"), 0);
	ITEST_ASSERT_OK(ok);
	itest_truth_free(t);
	json_object_put(prof);
}

/* ---- attaching: threads before and after, sessions one after another --------------- */

struct pool {
	struct itest_proc p;
	const char *dump;
	unsigned dumps;
};

static struct itest_truth *pool_dump(struct pool *w)
{
	const char *path;

	itest_signal(&w->p, SIGUSR1);
	path = itest_tmp("dump.%u", ++w->dumps);
	if (!itest_wait_file(path, 10))
		fail_msg("wl_pool did not answer SIGUSR1 within 10 s");
	return itest_truth_load(path);
}

static void test_threads_attach(void **state)
{
	const char *ready = itest_tmp("ready"), *json = itest_tmp("p.json");
	char *wargv[4] = {(char *)itest_workload("wl_pool"), (char *)ready, NULL, NULL};
	struct itest_truth *a, *b, *fin;
	struct itest_proc fsp;
	struct pool w = {.dump = itest_tmp("dump")};
	json_object *prof;
	uint64_t n, leaves;
	double dC, W, l_att, delta;
	bool ok = true;

	(void)state;
	wargv[2] = (char *)w.dump;
	itest_spawn(&w.p, "pool", wargv);
	if (!itest_wait_file(ready, 10))
		fail_msg("wl_pool did not get ready");
	a = pool_dump(&w);
	assert_int_equal(itest_truth_u64(a, "threads"), 2);
	l_att = itest_attach_fsp(&fsp, w.p.pid, "-F", ITEST_HZ, "-d", "3", "--json", json,
				 "--min-pct", "0", NULL);
	/* Two more threads, started while attached. */
	itest_signal(&w.p, SIGUSR2);
	itest_wait(&fsp, ITEST_TIMEOUT_S);
	itest_assert_exit(&fsp, 0);
	b = pool_dump(&w);
	assert_int_equal(itest_truth_u64(b, "threads"), 4);
	itest_signal(&w.p, SIGTERM);
	itest_wait(&w.p, 10);
	itest_assert_exit(&w.p, 0);
	fin = itest_truth_load(itest_tmp("dump.final"));
	prof = itest_json_load(json);
	n = itest_total_samples(prof);
	W = n * (double)itest_json_u64(prof, "period_ns");
	dC = (double)(itest_truth_u64(b, "cpu_total_ns") - itest_truth_u64(a, "cpu_total_ns"));
	/* A dump misses at most one 3 ms cycle per thread, at both ends. */
	delta = (2 * 4 * 3e6 + l_att * 1e9) / W;
	assert_true(n >= 1000);
	ok &= itest_share_ok(
		"pool", itest_feature_samples(prof, "pool"), n,
		(itest_truth_u64(b, "feature.pool.ns") - itest_truth_u64(a, "feature.pool.ns")) /
			dC,
		delta);
	/* Each thread started after the attach: its own share, 2 of its 3 ms. */
	for (int i = 2; i < 4; i++) {
		pid_t tid = (pid_t)itest_truth_u64(b, "thread.%d.tid", i);
		uint64_t k, nt;
		char what[64];

		itest_attrib_thread(prof, w.p.pid, tid, "pool", &k, &nt);
		snprintf(what, sizeof(what), "pool in new thread %d", tid);
		if (nt < 100)
			fail_msg("thread %d: only %llu samples", tid, (unsigned long long)nt);
		ok &= itest_share_ok(what, k, nt, 2.0 / 3, 3e6 / (nt * 1e6));
	}
	/* The threads inside a mark at the attach: their leaves match nothing,
	 * and are not counted (entered before the attach: docs/attribution.md). */
	leaves = itest_truth_u64(b, "cycles") - itest_truth_u64(a, "cycles");
	print_message("  unmatched_leaves %llu (%llu cycles in the window)\n",
		      (unsigned long long)itest_diag(prof, "unmatched_leaves"),
		      (unsigned long long)leaves);
	assert_int_equal(itest_diag(prof, "unmatched_leaves"), 0);
	assert_int_equal(itest_diag(prof, "stale_marks"), 0);
	assert_int_equal(itest_truth_u64(fin, "integrity_errors"), 0);
	ITEST_ASSERT_OK(ok);
	itest_truth_free(a);
	itest_truth_free(b);
	itest_truth_free(fin);
	json_object_put(prof);
}

/* One session of -d SECS on wl_service; its profile. */
static json_object *service_session(pid_t pid, const char *json, const char *secs)
{
	struct itest_proc fsp;

	itest_attach_fsp(&fsp, pid, "-F", ITEST_HZ, "-d", secs, "--json", json, "--min-pct", "0",
			 NULL);
	itest_wait(&fsp, ITEST_TIMEOUT_S);
	itest_assert_exit(&fsp, 0);
	free(fsp.out);
	free(fsp.err);
	return itest_json_load(json);
}

static void test_reattach(void **state)
{
	const char *ready = itest_tmp("ready"), *dump = itest_tmp("dump");
	char *wargv[4] = {(char *)itest_workload("wl_service"), (char *)ready, (char *)dump, NULL};
	struct itest_proc w;
	json_object *first, *second;
	uint64_t n, k;
	bool ok = true;

	(void)state;
	itest_spawn(&w, "service", wargv);
	if (!itest_wait_file(ready, 10))
		fail_msg("wl_service did not get ready");
	/* The first session ends while the service is inside "service" (it
	 * always is but for 1 ms of its 7 ms cycle): the frame it pushed then
	 * stays behind, its leave unseen. */
	first = service_session(w.pid, itest_tmp("p1.json"), "0.5");
	second = service_session(w.pid, itest_tmp("p2.json"), "2");
	n = itest_total_samples(second);
	k = itest_feature_samples(second, "service");
	/* wl_service: "service" is 6 of each 7 ms (the cycle is fixed). A frame
	 * left by the first session would charge all of them. */
	assert_true(n >= 500);
	ok &= itest_share_ok("service (second session)", k, n, 6.0 / 7, 0.02);
	ok &= itest_share_rejects("service if the first session's frame stayed", k, n, 1.0, 0.02);
	assert_int_equal(itest_diag(second, "stale_marks"), 0);
	ITEST_ASSERT_OK(ok);
	itest_signal(&w, SIGTERM);
	itest_wait(&w, 10);
	itest_assert_exit(&w, 0);
	json_object_put(first);
	json_object_put(second);
}

/* wl_service's dump N (SIGUSR1): written at the end of its current cycle. */
static struct itest_truth *service_dump(struct itest_proc *w, unsigned int n)
{
	const char *path;

	itest_signal(w, SIGUSR1);
	path = itest_tmp("dump.%u", n);
	if (!itest_wait_file(path, 10))
		fail_msg("wl_service did not answer SIGUSR1 within 10 s");
	return itest_truth_load(path);
}

static void test_two_sessions(void **state)
{
	const char *ready = itest_tmp("ready"), *dump = itest_tmp("dump");
	const char *ja = itest_tmp("a.json"), *jb = itest_tmp("b.json");
	char *wargv[4] = {(char *)itest_workload("wl_service"), (char *)ready, (char *)dump, NULL};
	struct itest_truth *before, *during, *after;
	struct itest_proc w, a, b;
	json_object *pa, *pb;
	bool ok = true;

	(void)state;
	itest_spawn(&w, "service", wargv);
	if (!itest_wait_file(ready, 10))
		fail_msg("wl_service did not get ready");
	/* An agent's session, then one by hand while it runs, ending first. */
	itest_attach_fsp(&a, w.pid, "-F", ITEST_HZ, "-d", "6", "--json", ja, "--min-pct", "0",
			 NULL);
	before = service_dump(&w, 1);
	itest_attach_fsp(&b, w.pid, "-F", ITEST_HZ, "-d", "2", "--json", jb, "--min-pct", "0",
			 NULL);
	during = service_dump(&w, 2);
	itest_wait(&b, ITEST_TIMEOUT_S);
	itest_assert_exit(&b, 0);
	itest_wait(&a, ITEST_TIMEOUT_S);
	itest_assert_exit(&a, 0);
	after = service_dump(&w, 3);
	pa = itest_json_load(ja);
	pb = itest_json_load(jb);
	/* wl_service: "service" is 6 of each 7 ms, whatever the window. */
	assert_true(itest_total_samples(pa) >= 1500 && itest_total_samples(pb) >= 500);
	ok &= itest_share_ok("service (first session)", itest_feature_samples(pa, "service"),
			     itest_total_samples(pa), 6.0 / 7, 0.02);
	ok &= itest_share_ok("service (second session)", itest_feature_samples(pb, "service"),
			     itest_total_samples(pb), 6.0 / 7, 0.02);
	ok &= itest_share_ok("parse (first session)", itest_feature_samples(pa, "parse"),
			     itest_total_samples(pa), 2.0 / 7, 0.02);
	ok &= itest_share_ok("parse (second session)", itest_feature_samples(pb, "parse"),
			     itest_total_samples(pb), 2.0 / 7, 0.02);
	if (itest_truth_has(before, "v2_gen")) {
		/* The first session started the stacks afresh; the second, seeing
		 * it attached, did not (each raise drops the live marks). */
		print_message("  record gen: %llu with the first session, %llu with both, %llu "
			      "after; fsp:v2 semaphore %llu with both\n",
			      (unsigned long long)itest_truth_u64(before, "v2_gen"),
			      (unsigned long long)itest_truth_u64(during, "v2_gen"),
			      (unsigned long long)itest_truth_u64(after, "v2_gen"),
			      (unsigned long long)itest_truth_u64(during, "v2_sema"));
		assert_int_equal(itest_truth_u64(during, "v2_gen"),
				 itest_truth_u64(before, "v2_gen"));
		assert_int_equal(itest_truth_u64(after, "v2_gen"),
				 itest_truth_u64(before, "v2_gen"));
	}
	ITEST_ASSERT_OK(ok);
	itest_signal(&w, SIGTERM);
	itest_wait(&w, 10);
	itest_assert_exit(&w, 0);
	itest_truth_free(before);
	itest_truth_free(during);
	itest_truth_free(after);
	json_object_put(pa);
	json_object_put(pb);
}

/* wl_dsos: eleven files with ABI v2 marks in one process, the executable's
 * announced last. */
static void test_many_dsos(void **state)
{
	const char *truth = itest_tmp("truth"), *json = itest_tmp("p.json");
	char *args[] = {(char *)truth, "1500", NULL};
	struct itest_truth *t;
	json_object *prof;
	char *err, *at;
	int said = 0;
	double C;

	(void)state;
	if (itest_abi_v1()) {
		print_message("  SKIP: not applicable to ABI v1 marks (ABI v2's records only)\n");
		skip();
	}
	prof = launch(ITEST_HZ, json, NULL, "wl_dsos", args);
	t = itest_truth_load(truth);
	C = (double)itest_truth_u64(t, "cpu_total_ns");
	/* The program's own marks are read; three libraries' are not. */
	ITEST_ASSERT_OK(itest_truth_share_ok("own", itest_feature_samples(prof, "own"),
					     itest_total_samples(prof), t, "feature.own", C,
					     ITEST_EXIT_NS / C));
	assert_int_equal(itest_diag(prof, "attach_errors"), 3);
	/* Said once (it was at every rescan, and counted each time). */
	err = itest_slurp(itest_tmp("fsp.stderr"));
	for (at = err; at && (at = strstr(at, "more than 8 files with ABI v2 marks")); at++)
		said++;
	assert_int_equal(said, 1);
	free(err);
	itest_truth_free(t);
	json_object_put(prof);
}

/* ---- one process, three kinds of marks ----------------------------------------------- */

/* The position of feature f in frames, -1 if absent. */
static int frame_pos(json_object *strings, json_object *frames, const char *f)
{
	for (size_t i = 0; i < json_object_array_length(frames); i++) {
		const char *name = label(strings, elem(elem(frames, i), 1));

		if (name && !strcmp(name, f))
			return (int)i;
	}
	return -1;
}

static void test_mixed(void **state)
{
	const char *json = itest_tmp("p.json"), *truth = itest_tmp("truth");
	const char *map = itest_tmp("mixmap.map");
	char *args[] = {(char *)truth, "2000", NULL}, *extra[] = {"--map", (char *)map, NULL};
	json_object *prof, *stacks, *strings;
	struct itest_truth *t;
	uint64_t n;
	double C, dw;
	bool ok = true;
	FILE *f = fopen(map, "w");

	(void)state;
	assert_non_null(f);
	fputs("map mixmap\nprovider wlmix\nfeature inner\n  enter begin\n  leave end\n", f);
	fclose(f);
	prof = launch(ITEST_HZ, json, extra, "wl_mixed", args);
	t = itest_truth_load(truth);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	n = itest_total_samples(prof);
	C = (double)itest_truth_u64(t, "cpu_total_ns");
	dw = ITEST_EXIT_NS / C;
	assert_true(n >= 1000);
	ok &= itest_truth_share_ok("outer (the program)", itest_feature_samples(prof, "outer"), n,
				   t, "feature.outer", C, dw);
	ok &= itest_truth_share_ok("middle (ABI v1 library)", itest_feature_samples(prof, "middle"),
				   n, t, "feature.middle", C, dw);
	ok &= itest_truth_share_ok("mixmap:inner (probe map)",
				   itest_feature_samples(prof, "mixmap:inner"), n, t,
				   "feature.inner", C, dw);
	/* Every stack nests them in call order. */
	json_object_object_get_ex(prof, "stacks", &stacks);
	json_object_object_get_ex(prof, "strings", &strings);
	for (size_t i = 0; i < json_object_array_length(stacks); i++) {
		json_object *frames;
		int o, m, in;

		json_object_object_get_ex(elem(stacks, i), "frames", &frames);
		o = frame_pos(strings, frames, "outer");
		m = frame_pos(strings, frames, "middle");
		in = frame_pos(strings, frames, "mixmap:inner");
		if ((m >= 0 && (o != 0 || m != 1)) || (in >= 0 && (o != 0 || m != 1 || in != 2)))
			fail_msg("stack out of call order: %s", json_object_to_json_string(frames));
	}
	print_message("  marks: %s\n", json_str(prof, "marks"));
	assert_string_equal(json_str(prof, "marks"), itest_abi_v1() ? "v1,mapped" : "v2,v1,mapped");
	assert_int_equal(itest_diag(prof, "unmatched_leaves"), 0);
	assert_int_equal(itest_diag(prof, "stale_marks"), 0);
	ITEST_ASSERT_OK(ok);
	itest_truth_free(t);
	json_object_put(prof);
}

/* The shares of wl_abimix's two features in prof, against truth. */
static bool abimix_ok(json_object *prof, const char *truth, const char *what)
{
	struct itest_truth *t = itest_truth_load(truth);
	uint64_t n = itest_total_samples(prof);
	double C = (double)itest_truth_u64(t, "cpu_total_ns"), dw = ITEST_EXIT_NS / C;
	char name[64];
	bool ok = true;

	print_message("  %s: marks %s\n", what, json_str(prof, "marks"));
	snprintf(name, sizeof(name), "%s outer", what);
	ok &= itest_truth_share_ok(name, itest_feature_samples(prof, "outer"), n, t,
				   "feature.outer", C, dw);
	snprintf(name, sizeof(name), "%s inner (v1 unit)", what);
	ok &= itest_truth_share_ok(name, itest_feature_samples(prof, "inner"), n, t,
				   "feature.inner", C, dw);
	ok &= itest_diag(prof, "unmatched_leaves") == 0 && itest_diag(prof, "attach_errors") == 0;
	itest_truth_free(t);
	return ok;
}

static void test_abimix(void **state)
{
	static const char *const progs[] = {"wl_abimix", "wl_abimix_r"};
	const char *json = itest_tmp("p.json"), *truth = itest_tmp("truth");
	char *args[] = {(char *)truth, "1500", NULL};
	json_object *prof;
	bool ok = true;

	(void)state;
	for (int i = 0; i < 2; i++) {
		char *wargv[] = {(char *)itest_workload(progs[i]), (char *)itest_tmp("wtruth"),
				 "600000", NULL};
		struct itest_proc w, p;

		prof = launch(ITEST_HZ, json, NULL, progs[i], args);
		ok &= abimix_ok(prof, truth, progs[i]);
		json_object_put(prof);
		/* -p: a window of the running program, whose cycle is half
		 * outer, half inner (the brackets cost well under 1 pp). */
		itest_spawn(&w, "w", wargv);
		itest_attach_fsp(&p, w.pid, "-F", ITEST_HZ, "-d", "1.5", "-o", json, NULL);
		itest_wait(&p, ITEST_TIMEOUT_S);
		itest_assert_exit(&p, 0);
		prof = itest_json_load(json);
		print_message("  -p %s: outer %llu, inner %llu of %llu samples\n", progs[i],
			      (unsigned long long)itest_feature_samples(prof, "outer"),
			      (unsigned long long)itest_feature_samples(prof, "inner"),
			      (unsigned long long)itest_total_samples(prof));
		ok &= within_range("-p outer", itest_feature_samples(prof, "outer"),
				   itest_total_samples(prof), 0.5, 0.5);
		ok &= within_range("-p inner", itest_feature_samples(prof, "inner"),
				   itest_total_samples(prof), 0.5, 0.5);
		json_object_put(prof);
		itest_kill(&w);
		free(p.out);
		free(p.err);
	}
	ITEST_ASSERT_OK(ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_observer_1us),    ITEST(test_observer_100ns),
		ITEST(test_observer_events), ITEST(test_mid_push),
		ITEST(test_unreadable),	     ITEST(test_signal_handler),
		ITEST(test_signal_altstack), ITEST(test_coroutine),
		ITEST(test_threads_attach),  ITEST(test_reattach),
		ITEST(test_two_sessions),    ITEST(test_many_dsos),
		ITEST(test_mixed),	     ITEST(test_abimix),
	};

	return ITEST_MAIN("v2", tests);
}
