// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fsp-bpf --map jvm against OpenJDK 17's HotSpot probes (maps/jvm.map),
 * measured against what the JVM measures itself: tests/workloads/java/
 * WlJvm.java writes its GarbageCollectorMXBean counts and times, its
 * CompilationMXBean time, its CPU time and the CPU time of its "GC Thread#*"
 * threads (/proc/self/task/TID/schedstat).
 *
 *   jvm_serial  -XX:+UseSerialGC: the collections run in the VM thread.
 *               jvm:gc counts every collection the beans count (young
 *               GenCollectForAllocation, and the System.gc() calls as
 *               GenCollectFull), each left (frame none: gc__begin/__end fire
 *               in two helper functions); its time contains the beans' and
 *               its sampled share is theirs; no other thread is charged.
 *   jvm_g1      -XX:+UseG1GC -XX:+ExplicitGCInvokesConcurrent: the pauses'
 *               work runs in the GC Thread#N workers. Every pause the beans
 *               count is counted (System.gc() starts a concurrent cycle
 *               with a young pause), the cycle's Remark and Cleanup pauses,
 *               which no bean counts, are muted by the map's "when"
 *               conditions (they appear as vm-op instances only), and the
 *               samples the workers take meanwhile are charged to jvm:gc
 *               as samples of other threads: their share is the workers'
 *               CPU time. Without "charge threads" jvm:gc would get the VM
 *               thread's few percent: the test checks that it can tell.
 *   both        jvm:jit's time contains CompilationMXBean's; no unmatched
 *               leave, no stale mark, no overflow with the default features.
 *
 * Tolerances.
 * - Counts are exact: fsp-bpf launches the JVM, so every probe is armed
 *   before its first collection or compilation.
 * - Durations: a bean's time is a timer HotSpot runs inside the probes'
 *   bracket (TraceMemoryManagerStats in the GC's VM operation, between
 *   SvcGCMarker's gc__begin and gc__end; the compile broker's TraceTime
 *   around the compiler, between method__compile__begin and __end), summed
 *   in ns and read in whole ms: the event view's total is at least the
 *   bean's ms, and the bean's time plus 1 ms plus what the bracket holds
 *   outside the timer at most. For a collection that is set-up and
 *   tear-down in the VM thread (measured 24-25 us per collection, serial
 *   and G1, on an idle 2-vCPU VM): bounded by 100 us per collection, plus
 *   20 ms for the times the VM thread is preempted in those parts on a
 *   loaded machine (five 4 ms time slices). For a compilation the bracket
 *   also holds the compiler thread's transitions to and from native code,
 *   where it waits while a safepoint is in progress: bounded by 100 us per
 *   compilation plus the whole time spent in safepoints (jvm:safepoint,
 *   exact), plus the same 20 ms.
 * - Shares (itest_share_ok: 4 sigma + delta + 1/n): the share of jvm:gc in
 *   the VM thread against the beans' time over the process's CPU time C
 *   (serial), and of its samples on other threads against the GC workers'
 *   CPU time over C (G1). delta: C is read by the JVM in 10 ms ticks
 *   (+10 ms), the JVM's exit after it (ITEST_EXIT_NS), and for the serial
 *   share the bracket's excess above (n x 100 us + 20 ms); for G1 the
 *   workers' CPU in the muted Remark and Cleanup pauses, which the truth
 *   has and jvm:gc does not: at most the pauses' length (vm-op's event
 *   view) times the number of workers.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attrib.h"
#include "itest.h"
#include "profile_io.h"

#define JAVA "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
#define US 1000.0
#define MS 1000000.0
#define PER_GC_NS (100 * US) /* a collection's bracket outside the bean's timer */
#define PREEMPT_NS (20 * MS) /* preemptions in those parts on a loaded machine */

/* The workload's class directory, skipping the test without a JDK. */
static const char *classes(void)
{
	static char dir[PATH_MAX];
	const char *out = getenv("FSP_OUT");
	char cls[PATH_MAX + 32];

	if (access(JAVA, X_OK)) {
		fprintf(stderr, "SKIP: %s is not installed: the jvm probe map is not tested\n",
			JAVA);
		skip();
	}
	snprintf(dir, sizeof(dir), "%s/workloads/java", out ? out : ".output");
	snprintf(cls, sizeof(cls), "%s/WlJvm.class", dir);
	if (access(cls, R_OK))
		fail_msg("%s is missing (make workloads builds it with javac)", cls);
	return dir;
}

/* fsp-bpf --map jvm -F ITEST_HZ -o JSON -- java GC_FLAGS... WlJvm TRUTH 3 3 */
static void record(const char *json, const char *truth, const char *gc_flag, const char *extra)
{
	char *argv[32] = {NULL, "--map",	 "jvm",	      "-F",	 ITEST_HZ,
			  "-o", (char *)json,	 "--min-pct", "0",	 "--",
			  JAVA, (char *)gc_flag, "-Xms256m",  "-Xmx256m"};
	int n = 14;
	struct itest_proc p;

	if (extra)
		argv[n++] = (char *)extra;
	argv[n++] = "-cp";
	argv[n++] = (char *)classes();
	argv[n++] = "WlJvm";
	argv[n++] = (char *)truth;
	argv[n++] = "3";
	argv[n++] = "3";
	argv[n] = NULL;
	itest_run_fspv(&p, "fsp", 60.0, argv);
	itest_assert_exit(&p, 0);
	free(p.out);
	free(p.err);
}

static const struct profile_event_stats *events_of(const struct attrib *a, const char *f)
{
	const struct attrib_feature *feat = itest_feature(a, f);

	if (!feat->events)
		fail_msg("%s has no events", f);
	return feat->events;
}

/* The calls of instance inst of feature f, 0 when absent. */
static uint64_t calls_of(const struct attrib *a, const char *f, const char *inst)
{
	const struct attrib_feature *feat = itest_find_feature(a, f);

	for (size_t i = 0; feat && i < feat->nr_instances; i++)
		if (!strcmp(feat->instances[i].name, inst) && feat->instances[i].events)
			return feat->instances[i].events->enters;
	return 0;
}

/* total_ns within [ms, ms + 1 ms + excess] of a bean's time. */
static void assert_contains(const char *what, uint64_t total_ns, uint64_t ms, double excess)
{
	double lo = ms * MS, hi = (ms + 1) * MS + excess;
	bool ok = total_ns >= lo && total_ns <= hi;

	printf("  %-22s fsp-bpf %10.3f ms  JVM %6llu ms  allowed [%.3f, %.3f] ms  %s\n", what,
	       total_ns / MS, (unsigned long long)ms, lo / MS, hi / MS, ok ? "ok" : "FAIL");
	assert_true(ok);
}

static void assert_clean(const struct profile *p)
{
	printf("  diagnostics: unmatched %llu, stale %llu, overflows %llu, charge drops %llu\n",
	       (unsigned long long)profile__diag(p, DIAG_UNMATCHED_LEAVES),
	       (unsigned long long)profile__diag(p, DIAG_STALE_MARKS),
	       (unsigned long long)profile__diag(p, DIAG_OVERFLOWS),
	       (unsigned long long)profile__diag(p, DIAG_CHARGE_DROPS));
	assert_int_equal(profile__diag(p, DIAG_UNMATCHED_LEAVES), 0);
	assert_int_equal(profile__diag(p, DIAG_STALE_MARKS), 0);
	assert_int_equal(profile__diag(p, DIAG_OVERFLOWS), 0);
	assert_int_equal(profile__diag(p, DIAG_CHARGE_DROPS), 0);
}

/* The collections: counted as the beans count them, left, timed. */
static void check_gc_counts(const struct attrib *a, const struct itest_truth *t)
{
	const struct profile_event_stats *gc = events_of(a, "jvm:gc");
	uint64_t young = itest_truth_u64(t, "gc.young.count"),
		 old = itest_truth_u64(t, "gc.old.count");
	uint64_t ms = itest_truth_u64(t, "gc.young.ms") + itest_truth_u64(t, "gc.old.ms");

	printf("  jvm:gc calls %llu left %llu  beans: young %llu + old %llu\n",
	       (unsigned long long)gc->enters, (unsigned long long)gc->leaves,
	       (unsigned long long)young, (unsigned long long)old);
	assert_int_equal(gc->enters, young + old);
	assert_int_equal(gc->leaves, gc->enters);
	assert_contains("jvm:gc time", gc->total_ns, ms, gc->enters * PER_GC_NS + PREEMPT_NS);
}

static void check_jit(const struct attrib *a, const struct itest_truth *t)
{
	const struct profile_event_stats *jit = events_of(a, "jvm:jit");
	const struct profile_event_stats *sp = events_of(a, "jvm:safepoint");

	printf("  jvm:jit calls %llu left %llu; safepoints %.1f ms\n",
	       (unsigned long long)jit->enters, (unsigned long long)jit->leaves, sp->total_ns / MS);
	assert_true(jit->enters > 0);
	assert_contains("jvm:jit time", jit->total_ns, itest_truth_u64(t, "jit.ms"),
			jit->enters * PER_GC_NS + (double)sp->total_ns + PREEMPT_NS);
}

static void test_jvm_serial(void **state)
{
	const char *json = itest_tmp("serial.json"), *tp = itest_tmp("serial.truth");
	const struct attrib_feature *gc;
	struct itest_truth *t;
	struct profile *p;
	struct attrib *a;
	double C, delta;
	uint64_t ms, n;

	(void)state;
	record(json, tp, "-XX:+UseSerialGC", NULL);
	t = itest_truth_load(tp);
	p = itest_profile_load(json);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	assert_clean(p);
	check_gc_counts(a, t);
	assert_int_equal(calls_of(a, "jvm:gc", "GenCollectFull"), itest_truth_u64(t, "full_gcs"));
	assert_int_equal(calls_of(a, "jvm:gc", "GenCollectForAllocation"),
			 itest_truth_u64(t, "gc.young.count"));
	check_jit(a, t);
	gc = itest_feature(a, "jvm:gc");
	assert_int_equal(gc->other_samples, 0); /* no GC Thread#N */
	C = (double)itest_truth_u64(t, "cpu_total_ns");
	ms = itest_truth_u64(t, "gc.young.ms") + itest_truth_u64(t, "gc.old.ms");
	n = events_of(a, "jvm:gc")->enters;
	delta = (10 * MS + ITEST_EXIT_NS + 1 * MS + n * PER_GC_NS + PREEMPT_NS) / C;
	assert_true(itest_share_ok("jvm:gc (VM thread)", gc->samples, attrib__total_samples(a),
				   ms * MS / C, delta));
	attrib__free(a);
	profile__free(p);
	itest_truth_free(t);
}

static void test_jvm_g1(void **state)
{
	const char *json = itest_tmp("g1.json"), *tp = itest_tmp("g1.truth");
	const struct attrib_feature *gc;
	struct itest_truth *t;
	struct profile *p;
	struct attrib *a;
	double C, muted_ns = 0, delta, workers;
	uint64_t remarks, N;

	(void)state;
	record(json, tp, "-XX:+UseG1GC", "-XX:+ExplicitGCInvokesConcurrent");
	t = itest_truth_load(tp);
	p = itest_profile_load(json);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	assert_clean(p);
	check_gc_counts(a, t);
	check_jit(a, t);
	/* System.gc() started concurrent cycles: their Remark and Cleanup
	 * pauses were VM operations, muted in jvm:gc. */
	remarks = calls_of(a, "jvm:vm-op", "G1PauseRemark");
	printf("  G1PauseRemark %llu, G1PauseCleanup %llu (vm-op); in jvm:gc %llu, %llu\n",
	       (unsigned long long)remarks,
	       (unsigned long long)calls_of(a, "jvm:vm-op", "G1PauseCleanup"),
	       (unsigned long long)calls_of(a, "jvm:gc", "G1PauseRemark"),
	       (unsigned long long)calls_of(a, "jvm:gc", "G1PauseCleanup"));
	assert_true(remarks >= 1);
	assert_int_equal(calls_of(a, "jvm:gc", "G1PauseRemark"), 0);
	assert_int_equal(calls_of(a, "jvm:gc", "G1PauseCleanup"), 0);
	for (size_t i = 0; i < itest_feature(a, "jvm:vm-op")->nr_instances; i++) {
		const struct attrib_instance *in = &itest_feature(a, "jvm:vm-op")->instances[i];

		if (in->events &&
		    (!strcmp(in->name, "G1PauseRemark") || !strcmp(in->name, "G1PauseCleanup")))
			muted_ns += in->events->total_ns;
	}
	/* The workers' samples, charged while the VM thread's mark is open. */
	gc = itest_feature(a, "jvm:gc");
	C = (double)itest_truth_u64(t, "cpu_total_ns");
	N = attrib__total_samples(a);
	workers = (double)itest_truth_u64(t, "gcthreads.n");
	assert_true(workers >= 1);
	delta = (10 * MS + ITEST_EXIT_NS + muted_ns * workers) / C;
	assert_true(itest_share_ok("jvm:gc on GC Thread#N", gc->other_samples, N,
				   itest_truth_u64(t, "gcthreads.ns") / C, delta));
	/* Power: without charge threads, only the VM thread's samples. */
	assert_true(itest_share_rejects("jvm:gc, workers not charged", gc->samples, N,
					(double)(gc->samples - gc->other_samples) / (double)N, 0));
	attrib__free(a);
	profile__free(p);
	itest_truth_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_jvm_serial),
		ITEST(test_jvm_g1),
	};

	return ITEST_MAIN("jvm", tests);
}
