// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Accuracy of fsp-bpf against ground truth the workloads measure themselves
 * (tolerances: see the top of itest.c).
 *
 *   launch_mix        -- CMD, one thread, three features, an antimark
 *   threads           -- CMD, three named threads with different mixes
 *   longjmp_shallow   a mark left by longjmp; the code after it runs above the
 *                     dead mark's stack frame
 *   longjmp_deep      the same, but the code after the longjmp calls deeper
 *                     than the dead mark's frame was
 *   exception_shallow,
 *   exception_deep    the same with a C++ exception (wl_exc) instead of a
 *                     longjmp: a C-style mark that a throw unwinds
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

/* fsp-bpf -F ITEST_HZ --json JSON --min-pct 0 -- WORKLOAD ARGS..., expecting exit 0. */
static json_object *launch(const char *workload, const char *json, const char *a1, const char *a2,
			   const char *a3)
{
	char *argv[16] = {NULL, "-F", ITEST_HZ, "--json", (char *)json, "--min-pct", "0", "--"};
	const char *args[] = {itest_workload(workload), a1, a2, a3};
	int argc = 8;
	struct itest_proc p;
	json_object *prof;

	for (size_t i = 0; i < 4 && args[i]; i++)
		argv[argc++] = (char *)args[i];
	argv[argc] = NULL;
	itest_run_fspv(&p, "fsp", ITEST_TIMEOUT_S, argv);
	itest_assert_exit(&p, 0);
	prof = itest_json_load(json);
	itest_assert_labels_resolved(prof);
	if (strstr(p.out, "<label"))
		fail_msg("unresolved label in the text report:\n%s", p.out);
	free(p.out);
	free(p.err);
	return prof;
}

static void test_launch_mix(void **state)
{
	const char *truth_path = itest_tmp("truth"), *json = itest_tmp("prof.json");
	struct itest_truth *t;
	json_object *prof;
	double C, dw;
	uint64_t n;
	bool ok = true;

	(void)state;
	prof = launch("wl_mix", json, truth_path, "1500", NULL);
	t = itest_truth_load(truth_path);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);

	n = itest_total_samples(prof);
	C = (double)itest_truth_u64(t, "cpu_total_ns");
	dw = ITEST_EXIT_NS / C;
	/* At least 1000 samples (1.5 s at ~2 kHz), or the tolerances are meaningless. */
	assert_true(n >= 1000);
	/* The session's metadata (docs/profile-format.md). */
	assert_int_equal(itest_json_u64(prof, "version"), 4);
	assert_int_equal(itest_json_u64(prof, "frequency_hz"), atoi(ITEST_HZ));
	assert_int_equal(itest_json_u64(prof, "period_ns"),
			 (uint64_t)llround(1e9 / atoi(ITEST_HZ)));
	{
		pid_t pid = (pid_t)itest_truth_u64(t, "pid");
		json_object *th = itest_thread(prof, pid), *c;

		assert_true(itest_has_pid(prof, pid));
		if (!th || !json_object_object_get_ex(th, "comm", &c) ||
		    strcmp(json_object_get_string(c), "wl_mix"))
			fail_msg("thread %d is missing or not named wl_mix", pid);
		assert_int_equal(itest_json_u64(th, "samples"), n);
	}

	ok &= itest_truth_share_ok("parse", itest_feature_samples(prof, "parse"), n, t,
				   "feature.parse", C, dw);
	ok &= itest_truth_share_ok("contract (antimark excl.)",
				   itest_feature_samples(prof, "contract"), n, t,
				   "feature.contract", C, dw);
	ok &= itest_truth_share_ok("output", itest_feature_samples(prof, "output"), n, t,
				   "feature.output", C, dw);
	/* Instances: the labels the workload passed, charged with their own share. */
	for (int i = 0; i < 2; i++) {
		const char *name = itest_truth_str(t, "instance.output.%d.name", i);
		char key[64], what[128];

		snprintf(key, sizeof(key), "instance.output.%d", i);
		snprintf(what, sizeof(what), "output/%s", name);
		ok &= itest_truth_share_ok(what, itest_instance_samples(prof, "output", name), n, t,
					   key, C, dw);
	}
	/* The antimark is what makes contract's share right: charging the callback
	 * would give contract_whole, which must be far outside the tolerance. */
	ok &= itest_share_rejects("contract if antimark ignored",
				  itest_feature_samples(prof, "contract"), n,
				  itest_truth_u64(t, "contract_whole.ns") / C, dw);
	/* The denominator is the process's CPU time. */
	ok &= itest_count_ok(prof, t, 1,
			     itest_truth_u64(t, "feature.parse.ambig_ns") +
				     itest_truth_u64(t, "feature.contract.ambig_ns") +
				     itest_truth_u64(t, "feature.output.ambig_ns"));
	assert_int_equal(itest_diag(prof, "unmatched_leaves"), 0);
	assert_int_equal(itest_diag(prof, "stale_marks"), 0);
	assert_int_equal(itest_diag(prof, "label_errors"), 0);
	ITEST_ASSERT_OK(ok);
	/* The contract's only instance carries all of it, under its FSP_HERE label. */
	assert_int_equal(itest_instance_samples(prof, "contract",
						itest_truth_str(t, "instance.contract.0.name")),
			 itest_feature_samples(prof, "contract"));
	itest_truth_free(t);
	json_object_put(prof);
}

static void test_threads(void **state)
{
	const char *truth_path = itest_tmp("truth"), *json = itest_tmp("prof.json");
	static const char *const feats[] = {"encode", "decode", "verify"};
	struct itest_truth *t;
	json_object *prof;
	double C, dw, ambig = 0;
	pid_t pid;
	uint64_t n;
	bool ok = true;

	(void)state;
	prof = launch("wl_threads", json, truth_path, "2400", NULL);
	t = itest_truth_load(truth_path);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	pid = (pid_t)itest_truth_u64(t, "pid");
	n = itest_total_samples(prof);
	C = (double)itest_truth_u64(t, "cpu_total_ns");
	dw = ITEST_EXIT_NS / C;
	assert_true(n >= 1000);

	for (size_t i = 0; i < 3; i++) {
		char key[64];

		snprintf(key, sizeof(key), "feature.%s", feats[i]);
		ok &= itest_truth_share_ok(feats[i], itest_feature_samples(prof, feats[i]), n, t,
					   key, C, dw);
		ambig += (double)itest_truth_u64(t, "%s.ambig_ns", key);
	}
	/* Per thread: its tid with its name, and its share of the samples. */
	for (int i = 0; i < 3; i++) {
		pid_t tid = (pid_t)itest_truth_u64(t, "thread.%d.tid", i);
		const char *comm = itest_truth_str(t, "thread.%d.comm", i);
		json_object *th = itest_thread(prof, tid), *c;
		char what[64];

		if (!th)
			fail_msg("thread %d (%s) is not in the JSON threads list", tid, comm);
		assert_int_equal(itest_json_u64(th, "pid"), pid);
		assert_true(json_object_object_get_ex(th, "comm", &c));
		if (strcmp(json_object_get_string(c), comm))
			fail_msg("thread %d: comm \"%s\", expected \"%s\"", tid,
				 json_object_get_string(c), comm);
		snprintf(what, sizeof(what), "thread %s", comm);
		ok &= itest_share_ok(what, itest_json_u64(th, "samples"), n,
				     itest_truth_u64(t, "thread.%d.cpu_ns", i) / C, dw);
	}
	ok &= itest_count_ok(prof, t, 4, ambig);
	assert_true(itest_has_pid(prof, pid));
	assert_int_equal(itest_diag(prof, "unmatched_leaves"), 0);
	assert_int_equal(itest_diag(prof, "stale_marks"), 0);
	ITEST_ASSERT_OK(ok);
	itest_truth_free(t);
	json_object_put(prof);
}

/* A mark left by an unwinding (wl_jmp: longjmp, wl_exc: a C++ exception)
 * inside the feature outer; after is the truth key of the work done after it. */
static void unwound_case(const char *workload, const char *outer, const char *after,
			 const char *mode)
{
	const char *truth_path = itest_tmp("truth"), *json = itest_tmp("prof.json");
	struct itest_truth *t;
	json_object *prof;
	uint64_t n, inner, cycles, stale;
	char key[64];
	double C, dw;
	bool ok = true;

	prof = launch(workload, json, truth_path, "1500", mode);
	t = itest_truth_load(truth_path);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	n = itest_total_samples(prof);
	C = (double)itest_truth_u64(t, "cpu_total_ns");
	dw = ITEST_EXIT_NS / C;
	cycles = itest_truth_u64(t, "cycles");
	assert_true(n >= 1000);

	inner = itest_feature_samples(prof, "inner");
	snprintf(key, sizeof(key), "feature.%s", outer);
	ok &= itest_truth_share_ok(outer, itest_feature_samples(prof, outer), n, t, key, C, dw);
	ok &= itest_truth_share_ok("inner (left by the unwinding)", inner, n, t, "feature.inner", C,
				   dw);
	/* A profiler that keeps charging the dead mark until something prunes it
	 * adds the time after the unwinding: that must be clearly rejected. */
	ok &= itest_share_rejects(
		"inner if still charged", inner, n,
		(itest_truth_u64(t, "feature.inner.ns") + itest_truth_u64(t, after)) / C, dw);
	/* Every cycle leaves one "inner" mark behind: each is dropped once. */
	stale = itest_diag(prof, "stale_marks");
	print_message("  stale_marks %llu, cycles %llu\n", (unsigned long long)stale,
		      (unsigned long long)cycles);
	ITEST_ASSERT_OK(ok);
	if (stale < cycles / 2 || stale > cycles)
		fail_msg("stale_marks %llu: expected about one per cycle (%llu)",
			 (unsigned long long)stale, (unsigned long long)cycles);
	itest_truth_free(t);
	json_object_put(prof);
}

static void longjmp_case(const char *mode)
{
	unwound_case("wl_jmp", "jumpy", "after_longjmp.ns", mode);
}

static void exception_case(const char *mode)
{
	unwound_case("wl_exc", "catchy", "after_catch.ns", mode);
}

static void test_longjmp_shallow(void **state)
{
	(void)state;
	longjmp_case("shallow");
}

static void test_longjmp_deep(void **state)
{
	(void)state;
	longjmp_case("deep");
}

static void test_exception_shallow(void **state)
{
	(void)state;
	exception_case("shallow");
}

static void test_exception_deep(void **state)
{
	(void)state;
	exception_case("deep");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_launch_mix),	       ITEST(test_threads),
		ITEST(test_longjmp_shallow),   ITEST(test_longjmp_deep),
		ITEST(test_exception_shallow), ITEST(test_exception_deep),
	};

	return ITEST_MAIN("accuracy", tests);
}
