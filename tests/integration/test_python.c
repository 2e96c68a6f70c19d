// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fsp-bpf --map python against CPython 3.11: the probes CPython already has
 * (maps/python.map) as features, measured against the ground truth that
 * tests/workloads/wl_python.py measures itself (its top comment says how).
 * Profiles are read back through the analysis library (profile__load,
 * attrib__compute), as test_events.c does.
 *
 *   py_gc_import            --feature gc,import: every collection of the
 *                           process counted, per generation, exactly (8 of
 *                           them before the script's first line); the
 *                           sampled share of python:gc and the event view's
 *                           time per generation; every module the script
 *                           imports (generated ones that import nothing, and
 *                           standard-library ones with nested imports) is an
 *                           instance entered once, with its duration
 *   py_calls                --feature call, the script under cProfile (so
 *                           that CPython 3.11 fires function__entry):
 *                           hot_a/hot_b and friends entered and left exactly
 *                           once per call, their shares and durations; a
 *                           generator's yields and an exception's unwinding
 *                           leave their frames (the caller's work after them
 *                           is not charged to them); a recursion of 102
 *                           marks overflows the 64-deep mark stack: counted,
 *                           and the functions called after it are charged
 *                           right
 *   py_call_off_by_default  no --feature: python:call is "default off", so
 *                           only the gc and import probes are attached, and
 *                           python:call appears nowhere although the script
 *                           runs under cProfile
 *
 * Tolerances. Counts are exact: fsp-bpf launches the interpreter, so its
 * probes are armed before the first collection, and the script ends with
 * os._exit() (no finalization collections, which run without callbacks).
 *
 * Durations (event view) are compared with the monotonic-clock truth. As in
 * test_events.c the probes' interval lies inside the workload's bracket of
 * clock reads and the truth counts half of the ambiguous time, so
 * |measured - truth| <= wall_ambig / 2, plus 1 us per 1000 leaves for clock
 * granularity. Where the script cannot read the clock next to the probe (C
 * code of the collector and of the import system: gc.callbacks and
 * __import__ bracket it), the bracket is not measured per event but bounded
 * by U, measured by the script in the same run with the same probes
 * attached, with cold caches (wl_python.py, "gc" and "import"); the sum of
 * the brackets is at most n U, which is what the truth's ambiguity holds.
 * That bounds the brackets' work, not the time the interpreter is switched
 * out in them: on a loaded machine a preemption of a few ms now and then
 * lands in a bracket of a few us (measured with bpftrace at load 4: 8-10 of
 * ~220 preemptions a run within 40 us of a gc probe, 4-10 ms), and the event
 * view rightly leaves it out. The script cannot place its off-CPU time (wall
 * minus thread CPU time inside [a, d]) against the probes, so that time is
 * ambiguous too (its "wall_off_ns", printed): 4 of 15 runs under a make -j2
 * loop failed by 2-38 ms before it was counted, against tolerances of
 * 0.4-29 ms.
 * Checked with bpftrace on gc__start/done and import__find__load__start/done
 * (a poor man's event view): generation 2, 27 collections, bpftrace
 * 161.49 ms, truth 161.30 ms +- 0.98 ms; the imports within 28-52 us of the
 * truth, tolerance 67 us (fsp-bpf: 183.99 ms against 183.93 +- 0.94 ms, the
 * imports within 9-48 us). Without cold caches U was too small: a full
 * collection traverses the 30 MB heap, after which the bracket ran at 18 us
 * against a warm U of 15 us. A bpftrace emulation of the attribution rule
 * for python:call (a 64-deep stack of the entered functions, sampled at
 * 1999 Hz) gave every share of py_calls within 0.2% of the truth.
 * The start-up collections (before the callback exists) are not timed: each
 * is a generation-0 collection of at most 700 objects and is bounded by the
 * longest automatic generation-0 collection the script measured at that
 * threshold (gc.gen0_max[_wall]_ns); py_gc_import prints that bound.
 *
 * Shares: itest_truth_share_ok (4 sigma + delta + 1/n, itest.c) with
 * delta = ambig / (2 C) + E_exit / C, where C is the process's CPU time up to
 * the script's last clock read; for python:gc also + startup bound / C.
 * Each test checks its power where a broken profiler would differ: the gc
 * phase charged to python:gc as a whole, a generator's frame left open
 * after its yields (its caller's inline work charged to it), a raising
 * function's frame left open after the exception.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attrib.h"
#include "itest.h"
#include "profile_io.h"

#define PYTHON "/usr/bin/python3.11"
#define F_GC "python:gc"
#define F_IMPORT "python:import"
#define F_CALL "python:call"
/* FSP_MAX_DEPTH (bpf/profiler.h): fsp-bpf's mark-stack depth */
#define MAX_DEPTH 64

/* The event view of an instance, which must have one. */
static const struct profile_event_stats *events(const struct attrib *a, const char *f,
						const char *name)
{
	const struct attrib_instance *in = itest_instance(a, f, name);

	if (!in->events)
		fail_msg("instance \"%s\" of %s has no events", name, f);
	return in->events;
}

/* Skips the test when this machine has no CPython 3.11 with its USDT probes. */
static void need_python(void)
{
	if (access(PYTHON, X_OK)) {
		fprintf(stderr, "SKIP: %s is not installed: the python probe map is not tested\n",
			PYTHON);
		skip();
	}
}

/* tests/workloads/wl_python.py, from the repository root ($FSP_OUT/..). */
static const char *script(void)
{
	static char path[PATH_MAX];
	const char *out = getenv("FSP_OUT");
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s/../tests/workloads/wl_python.py", out ? out : ".output");
	if (!realpath(buf, path))
		fail_msg("the workload %s is missing", buf);
	return path;
}

/*
 * USDT notes of provider "python" named like one of probes[] in the
 * interpreter (readelf -n): the probe sites fsp-bpf should attach. -1 if
 * readelf is not there.
 */
static int count_notes(const char *const probes[])
{
	char cmd[256], line[512], provider[128] = "";
	int n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -n %s 2>/dev/null", PYTHON);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *s = line + strspn(line, " \t"), name[128];

		if (sscanf(s, "Provider: %127s", name) == 1)
			snprintf(provider, sizeof(provider), "%s", name);
		else if (sscanf(s, "Name: %127s", name) == 1 && !strcmp(provider, "python"))
			for (size_t i = 0; probes[i]; i++)
				n += !strcmp(name, probes[i]);
	}
	return pclose(f) == 0 ? n : -1;
}

/*
 * The probe sites fsp-bpf -v says it attached in the interpreter (lines
 * "fsp-bpf: pid N: M probe sites in /usr/bin/python3.11"), summed; -1 if it
 * says nothing of them.
 */
static int sites_attached(const char *err)
{
	static const char tag[] = " probe sites in " PYTHON;
	int total = -1;

	for (const char *s = err; *s;) {
		const char *nl = strchrnul(s, '\n'), *p;
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", (int)(nl - s), s);
		p = strstr(line, tag);
		if (!strncmp(line, "fsp-bpf: ", 9) && p && !p[sizeof(tag) - 1]) {
			while (p > line && isdigit((unsigned char)p[-1]))
				p--;
			total = (total < 0 ? 0 : total) + atoi(p);
		}
		s = *nl ? nl + 1 : nl;
	}
	return total;
}

/*
 * fsp-bpf --map python [--feature FEATURES] -v -F ITEST_HZ -o JSON
 * --min-pct 0 -- python3.11 -E -s wl_python.py TRUTH PHASES, with exit 0.
 * Returns fsp-bpf's stderr (caller frees).
 */
static char *record(const char *json, const char *truth, const char *features, const char *phases)
{
	char *argv[32] = {NULL, "--map", "python"};
	struct itest_proc p;
	int n = 3;

	if (features) {
		argv[n++] = "--feature";
		argv[n++] = (char *)features;
	}
	argv[n++] = "-v"; /* the probe sites attached */
	argv[n++] = "-F";
	argv[n++] = ITEST_HZ;
	argv[n++] = "-o";
	argv[n++] = (char *)json;
	argv[n++] = "--min-pct";
	argv[n++] = "0";
	argv[n++] = "--";
	argv[n++] = PYTHON;
	argv[n++] = "-E";
	argv[n++] = "-s";
	argv[n++] = (char *)script();
	argv[n++] = (char *)truth;
	argv[n++] = (char *)phases;
	argv[n] = NULL;
	itest_run_fspv(&p, "fsp", ITEST_TIMEOUT_S, argv);
	itest_assert_exit(&p, 0);
	free(p.out);
	return p.err;
}

/* Sites attached (fsp-bpf -v) against the interpreter's notes (readelf). */
static void check_sites(const char *err, const char *const probes[])
{
	int got = sites_attached(err), want = count_notes(probes);

	printf("  probe sites attached %d, notes of these probes in %s %d\n", got, PYTHON, want);
	if (got < 0 || want < 0) {
		printf("  (not compared: %s)\n",
		       got < 0 ? "fsp-bpf -v printed no sites count" : "readelf failed");
		return;
	}
	assert_true(want > 0);
	assert_int_equal(got, want);
}

static bool duration_ok(const char *what, const struct profile_event_stats *ev, double truth,
			double ambig, double extra)
{
	double tol = ambig / 2 + extra + 1000.0 * (ev->leaves / 1000 + 1);
	double got = ev->total_ns;
	bool ok = fabs(got - truth) <= tol;

	printf("  %-26s duration fsp-bpf %13.0f ns  truth %13.0f ns  |diff| %10.0f  tol %10.0f  "
	       "%s\n",
	       what, got, truth, fabs(got - truth), tol, ok ? "ok" : "FAIL");
	return ok;
}

static void assert_counts(const char *what, const struct profile_event_stats *ev, uint64_t enters,
			  uint64_t leaves)
{
	printf("  %-26s enters %7llu (truth %7llu)  leaves %7llu (truth %7llu)\n", what,
	       (unsigned long long)ev->enters, (unsigned long long)enters,
	       (unsigned long long)ev->leaves, (unsigned long long)leaves);
	assert_int_equal(ev->enters, enters);
	assert_int_equal(ev->leaves, leaves);
}

static void print_diags(const struct profile *p)
{
	printf("  diagnostics:");
	for (int d = 0; d < DIAG__COUNT; d++)
		printf(" %s %llu", profile_diag__name(d),
		       (unsigned long long)profile__diag(p, (enum profile_diag)d));
	printf("\n");
}

static const char *const gc_import_probes[] = {
	"gc__start", "gc__done", "import__find__load__start", "import__find__load__done", NULL,
};
static const char *const call_probes[] = {"function__entry", "function__return", NULL};

static void test_py_gc_import(void **state)
{
	const char *json = itest_tmp("prof.json"), *truth = itest_tmp("truth");
	const struct profile_event_stats *ev;
	struct itest_truth *t;
	struct profile *p;
	struct attrib *a;
	uint64_t n, k, startup, count = 0;
	double C, dw, ambig = 0, startup_ns, startup_wall;
	json_object *prof;
	bool ok = true;
	char *err;

	(void)state;
	need_python();
	err = record(json, truth, "gc,import", "gc,import");
	t = itest_truth_load(truth);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	check_sites(err, gc_import_probes);
	free(err);
	p = itest_profile_load(json);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	print_diags(p);
	n = attrib__total_samples(a);
	C = (double)itest_truth_u64(t, "cpu_total_ns");
	dw = ITEST_EXIT_NS / C;
	assert_true(n >= 1000);
	assert_null(itest_find_feature(a, F_CALL));

	/* Every collection of the process, exactly, per generation: those
	 * before the script's first line too. */
	startup = itest_truth_u64(t, "gc.startup.count");
	startup_ns = (double)startup * itest_truth_u64(t, "gc.gen0_max_ns");
	startup_wall = (double)startup * itest_truth_u64(t, "gc.gen0_max_wall_ns");
	printf("  %llu collections before the script's first line (bound %.3f ms CPU, %.3f ms "
	       "wall)\n",
	       (unsigned long long)startup, startup_ns / 1e6, startup_wall / 1e6);
	for (int g = 0; g < 3; g++) {
		char name[32], what[64];
		uint64_t c = itest_truth_u64(t, "gc.count.%d", g);

		snprintf(name, sizeof(name), "generation %d", g);
		snprintf(what, sizeof(what), "gc %s", name);
		ev = events(a, F_GC, name);
		assert_counts(what, ev, c, c);
		/* generation 0: plus the start-up collections */
		ok &= duration_ok(what, ev, itest_truth_u64(t, "gc.%d.wall_ns", g),
				  itest_truth_u64(t, "gc.%d.wall_ambig_ns", g),
				  g ? 0 : startup_wall);
		printf("  %-26s of its ambiguity, %.3f ms off the CPU inside [a, d]\n", what,
		       itest_truth_u64(t, "gc.%d.wall_off_ns", g) / 1e6);
		count += c;
	}
	assert_true(itest_truth_u64(t, "gc.count.2") > 10);
	assert_int_equal(itest_feature(a, F_GC)->events->enters, count);

	/* The sampled share of the collections. */
	k = itest_feature(a, F_GC)->samples;
	ok &= itest_truth_share_ok(F_GC, k, n, t, "gc", C, dw + startup_ns / C);
	/* A profiler charging the whole gc phase (a gc mark never left) would
	 * report at least the phase's share. */
	ok &= itest_share_rejects(F_GC " if the phase were charged", k, n,
				  itest_truth_u64(t, "phase.gc.cpu_ns") / C, dw);
	ambig += (double)itest_truth_u64(t, "gc.ambig_ns");

	/* Every import the script timed: entered and left once, its duration.
	 * The generated modules import nothing: each is the innermost import
	 * while it runs, and together they have their measured share. */
	k = 0;
	for (int i = 0, ni = (int)itest_truth_u64(t, "import.n"); i < ni; i++) {
		const char *name = itest_truth_str(t, "import.%d.name", i);
		double wall = itest_truth_u64(t, "import.%d.wall_ns", i);
		double wall_ambig = itest_truth_u64(t, "import.%d.wall_ambig_ns", i);
		char what[128];

		snprintf(what, sizeof(what), "import %s", name);
		ev = events(a, F_IMPORT, name);
		assert_counts(what, ev, 1, 1);
		ok &= duration_ok(what, ev, wall, wall_ambig, 0);
		ambig += (double)itest_truth_u64(t, "import.%d.ambig_ns", i);
		if (!strcmp(itest_truth_str(t, "import.%d.kind", i), "gen"))
			k += itest_instance(a, F_IMPORT, name)->samples;
	}
	ok &= itest_truth_share_ok(F_IMPORT " (generated)", k, n, t, "import.gen", C, dw);

	prof = itest_json_load(json);
	itest_assert_labels_resolved(prof);
	ok &= itest_count_ok(prof, t, 1, ambig);
	json_object_put(prof);
	assert_int_equal(profile__diag(p, DIAG_UNMATCHED_LEAVES), 0);
	assert_int_equal(profile__diag(p, DIAG_STALE_MARKS), 0);
	assert_int_equal(profile__diag(p, DIAG_OVERFLOWS), 0);
	assert_int_equal(profile__diag(p, DIAG_LABEL_ERRORS), 0);
	assert_int_equal(profile__diag(p, DIAG_ARG_ERRORS), 0);
	assert_int_equal(profile__diag(p, DIAG_ATTACH_ERRORS), 0);
	ITEST_ASSERT_OK(ok);
	attrib__free(a);
	profile__free(p);
	itest_truth_free(t);
}

/* The python:call instance of function fn of the script (truth "call.FN"). */
static const char *call_instance(const struct itest_truth *t, const char *fn)
{
	return itest_truth_str(t, "call.%s.instance", fn);
}

static void test_py_calls(void **state)
{
	static const char *const timed[] = {"hot_a", "hot_b", "gen_steps", "raiser", "after_fn"};
	const char *json = itest_tmp("prof.json"), *truth = itest_tmp("truth");
	const struct profile_event_stats *ev;
	uint64_t n, k, calls, overflows, want;
	struct itest_truth *t;
	struct profile *p;
	struct attrib *a;
	double C, dw, wrong;
	json_object *prof;
	bool ok = true;
	char *err;

	(void)state;
	need_python();
	err = record(json, truth, "call", "call");
	t = itest_truth_load(truth);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	check_sites(err, call_probes);
	free(err);
	p = itest_profile_load(json);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	print_diags(p);
	n = attrib__total_samples(a);
	C = (double)itest_truth_u64(t, "cpu_total_ns");
	dw = ITEST_EXIT_NS / C;
	assert_true(n >= 1000);
	assert_null(itest_find_feature(a, F_GC));
	assert_null(itest_find_feature(a, F_IMPORT));

	/* Entered and left once per call (a generator: per resumption and
	 * yield; raiser: left by the exception), durations, shares. */
	for (size_t i = 0; i < sizeof(timed) / sizeof(timed[0]); i++) {
		char key[64];

		if (!strcmp(timed[i], "gen_steps"))
			calls = itest_truth_u64(t, "call.gen_steps.resumes");
		else
			calls = itest_truth_u64(t, "call.%s.calls", timed[i]);
		ev = events(a, F_CALL, call_instance(t, timed[i]));
		assert_counts(timed[i], ev, calls, calls);
		ok &= duration_ok(timed[i], ev, itest_truth_u64(t, "call.%s.wall_ns", timed[i]),
				  itest_truth_u64(t, "call.%s.wall_ambig_ns", timed[i]), 0);
		snprintf(key, sizeof(key), "call.%s", timed[i]);
		ok &= itest_truth_share_ok(
			timed[i], itest_instance(a, F_CALL, call_instance(t, timed[i]))->samples, n,
			t, key, C, dw);
	}
	/* The caller's inline work after each yield and after each caught
	 * exception runs in a frame without a mark: a generator or raiser
	 * frame left open would be charged with it. */
	k = itest_instance(a, F_CALL, call_instance(t, "gen_steps"))->samples;
	wrong = itest_truth_u64(t, "call.gen_steps.ns") +
		itest_truth_u64(t, "call.gen_consumer.ns");
	ok &= itest_share_rejects("gen_steps if left open", k, n, wrong / C, dw);
	k = itest_instance(a, F_CALL, call_instance(t, "raiser"))->samples;
	wrong = itest_truth_u64(t, "call.raiser.ns") + itest_truth_u64(t, "call.exc_after.ns");
	ok &= itest_share_rejects("raiser if left open", k, n, wrong / C, dw);

	/* deep(): DEPTH + 1 frames and deep_leaf() below, called from a frame
	 * without a mark: each call enters marks_per_call marks, the last
	 * marks_per_call - 64 beyond the mark stack. All are counted as
	 * entered; the overflowed ones are counted as overflows, and the
	 * samples while they run are charged to the innermost recorded frame,
	 * a deep() (the whole of call.deep), and counted as truncated (at least
	 * deep_leaf's work: call.deep_over). */
	calls = itest_truth_u64(t, "call.deep.calls");
	want = calls * (itest_truth_u64(t, "call.deep.marks_per_call") - MAX_DEPTH);
	overflows = profile__diag(p, DIAG_OVERFLOWS);
	printf("  overflows %llu (truth %llu: %llu calls of %llu marks)\n",
	       (unsigned long long)overflows, (unsigned long long)want, (unsigned long long)calls,
	       (unsigned long long)itest_truth_u64(t, "call.deep.marks_per_call"));
	assert_int_equal(overflows, want);
	ev = events(a, F_CALL, call_instance(t, "deep"));
	printf("  deep                       enters %7llu (truth %7llu)  leaves %7llu\n",
	       (unsigned long long)ev->enters,
	       (unsigned long long)itest_truth_u64(t, "call.deep.enters"),
	       (unsigned long long)ev->leaves);
	assert_int_equal(ev->enters, itest_truth_u64(t, "call.deep.enters"));
	assert_true(ev->leaves <= ev->enters);
	ev = events(a, F_CALL, call_instance(t, "deep_leaf"));
	assert_int_equal(ev->enters, calls);
	ok &= itest_truth_share_ok("deep (overflowed below)",
				   itest_instance(a, F_CALL, call_instance(t, "deep"))->samples, n,
				   t, "call.deep", C, dw);
	ok &= itest_truth_share_ok("samples while overflowed", profile__diag(p, DIAG_TRUNCATED), n,
				   t, "call.deep_over", C, dw);
	/* Frames are left by their own returns: none is dropped as unwound,
	 * and once the recursion has returned, hot_a/hot_b (called after it
	 * too: their counts and shares above) are charged right. */
	assert_int_equal(profile__diag(p, DIAG_STALE_MARKS), 0);
	assert_int_equal(profile__diag(p, DIAG_LABEL_ERRORS), 0);
	assert_int_equal(profile__diag(p, DIAG_ARG_ERRORS), 0);
	assert_int_equal(profile__diag(p, DIAG_ATTACH_ERRORS), 0);
	/* Returns without an entry (every Python function that returned before
	 * cProfile was enabled): ignored, counted. */
	assert_true(profile__diag(p, DIAG_UNMATCHED_LEAVES) > 0);
	prof = itest_json_load(json);
	itest_assert_labels_resolved(prof);
	json_object_put(prof);
	ITEST_ASSERT_OK(ok);
	attrib__free(a);
	profile__free(p);
	itest_truth_free(t);
}

static void test_py_call_off_by_default(void **state)
{
	const char *json = itest_tmp("prof.json"), *truth = itest_tmp("truth");
	struct profile_event pe;
	struct profile_stack st;
	struct itest_truth *t;
	struct profile *p;
	struct attrib *a;
	char *err;

	(void)state;
	need_python();
	/* The call phase runs under cProfile: function__entry would fire. */
	err = record(json, truth, NULL, "gc,call");
	t = itest_truth_load(truth);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	printf("  call phase: %.0f ms CPU (no assertion on time)\n",
	       itest_truth_u64(t, "phase.call.cpu_ns") / 1e6);
	check_sites(err, gc_import_probes);
	free(err);
	p = itest_profile_load(json);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	print_diags(p);
	/* Not attached: in no feature list, event record or stack. */
	assert_null(itest_find_feature(a, F_CALL));
	for (size_t i = 0; i < profile__nr_events(p); i++) {
		assert_int_equal(profile__event(p, i, &pe), 0);
		if (!strcmp(pe.feature, F_CALL))
			fail_msg("python:call has events (%s)", pe.instance ? pe.instance : "");
	}
	for (size_t i = 0; i < profile__nr_stacks(p); i++) {
		assert_int_equal(profile__stack(p, i, &st), 0);
		for (size_t d = 0; d < st.depth; d++)
			if (!strcmp(st.frames[d].feature, F_CALL))
				fail_msg("a mark stack has a python:call frame");
	}
	/* The default features are: every collection counted. */
	for (int g = 0; g < 3; g++) {
		char name[32];
		uint64_t c = itest_truth_u64(t, "gc.count.%d", g);

		snprintf(name, sizeof(name), "generation %d", g);
		assert_counts(name, events(a, F_GC, name), c, c);
	}
	assert_int_equal(profile__diag(p, DIAG_UNMATCHED_LEAVES), 0);
	attrib__free(a);
	profile__free(p);
	itest_truth_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_py_gc_import),
		ITEST(test_py_calls),
		ITEST(test_py_call_off_by_default),
	};

	return ITEST_MAIN("python", tests);
}
