// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Marks across stack switches, against the workloads' own truth (tolerances:
 * see the top of itest.c).
 *
 *   sigaltstack   a handler with its own mark on an alternate signal stack
 *                 right above the interrupted thread's stack: the interrupted
 *                 mark stays live, the handler's is charged too
 *   coroutines    swapcontext coroutines on neighbouring heap stacks yield
 *                 inside their marks: each mark is charged only while its
 *                 coroutine runs, and none is dropped
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

/* fsp-bpf -F ITEST_HZ --json JSON --min-pct 0 -- WORKLOAD TRUTH MS, expecting exit 0. */
static json_object *launch(const char *workload, const char *json, const char *truth,
			   const char *ms)
{
	struct itest_proc p;
	json_object *prof;

	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "-F", ITEST_HZ, "--json", json, "--min-pct", "0",
		      "--", itest_workload(workload), truth, ms, NULL);
	itest_assert_exit(&p, 0);
	prof = itest_json_load(json);
	itest_assert_labels_resolved(prof);
	free(p.out);
	free(p.err);
	return prof;
}

static void test_sigaltstack(void **state)
{
	const char *truth = itest_tmp("truth"), *json = itest_tmp("prof.json");
	struct itest_truth *t;
	json_object *prof;
	bool ok = true;
	uint64_t n;
	double C;

	(void)state;
	prof = launch("wl_sigalt", json, truth, "1500");
	t = itest_truth_load(truth);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	/* The case under test: the alternate stack right above the thread's. */
	print_message("  alternate stack %llu bytes above the thread's stack, %llu signals\n",
		      (unsigned long long)itest_truth_u64(t, "alt_gap"),
		      (unsigned long long)itest_truth_u64(t, "signals"));
	assert_true(itest_truth_u64(t, "alt_gap") < (1 << 20));
	assert_true(itest_truth_u64(t, "signals") >= 500);
	n = itest_total_samples(prof);
	C = (double)itest_truth_u64(t, "cpu_total_ns");
	assert_true(n >= 1000);
	ok &= itest_truth_share_ok("outer", itest_feature_samples(prof, "outer"), n, t,
				   "feature.outer", C, ITEST_EXIT_NS / C);
	ok &= itest_truth_share_ok("handler", itest_feature_samples(prof, "handler"), n, t,
				   "feature.handler", C, ITEST_EXIT_NS / C);
	/* Taking the handler for a return killed "outer" at every signal. */
	assert_int_equal(itest_diag(prof, "stale_marks"), 0);
	assert_int_equal(itest_diag(prof, "unmatched_leaves"), 0);
	ITEST_ASSERT_OK(ok);
	itest_truth_free(t);
	json_object_put(prof);
}

/* CPU time of one switch in and out of a coroutine, hooks included, that the
 * truth leaves out (it cannot measure it apart from the time away). */
#define SWITCH_NS 10e3

static void test_coroutines(void **state)
{
	const char *truth = itest_tmp("truth"), *json = itest_tmp("prof.json");
	struct itest_truth *t;
	json_object *prof;
	double C, dw;
	bool ok = true;
	uint64_t n;

	(void)state;
	prof = launch("wl_coro", json, truth, "1500");
	t = itest_truth_load(truth);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	n = itest_total_samples(prof);
	C = (double)itest_truth_u64(t, "cpu_total_ns");
	assert_true(n >= 1000);
	dw = (ITEST_EXIT_NS + itest_truth_u64(t, "switches") * SWITCH_NS) / C;
	for (int i = 0; i < 4; i++) {
		char name[8], key[32];

		snprintf(name, sizeof(name), "co%d", i);
		snprintf(key, sizeof(key), "instance.co%d", i);
		ok &= itest_truth_share_ok(name, itest_instance_samples(prof, "coro", name), n, t,
					   key, C, dw);
	}
	ok &= itest_truth_share_ok("coro", itest_feature_samples(prof, "coro"), n, t,
				   "feature.coro", C, dw);
	ok &= itest_truth_share_ok("sched", itest_feature_samples(prof, "sched"), n, t,
				   "feature.sched", C, dw);
	/* Suspended marks are kept, not taken for unwound. */
	assert_int_equal(itest_diag(prof, "stale_marks"), 0);
	assert_int_equal(itest_diag(prof, "unmatched_leaves"), 0);
	ITEST_ASSERT_OK(ok);
	itest_truth_free(t);
	json_object_put(prof);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_sigaltstack),
		ITEST(test_coroutines),
	};

	return ITEST_MAIN("stacks", tests);
}
