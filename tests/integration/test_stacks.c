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
 *   payloads      200 threads mark one feature with a payload that changes at
 *                 every call, with room for 128 stacks: the feature's share as
 *                 measured, no unknown stack, and the samples' payloads kept,
 *                 each with the thread that took it
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"
#include "profile.h"

/* fsp-bpf -F ITEST_HZ --max-stacks 128 --json JSON --min-pct 0 -- WORKLOAD
 * TRUTH ARG [ARG2], expecting exit 0. */
static json_object *launch(const char *workload, const char *json, const char *truth,
			   const char *arg, const char *arg2)
{
	struct itest_proc p;
	json_object *prof;

	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "-F", ITEST_HZ, "--max-stacks", "128", "--json",
		      json, "--min-pct", "0", "--", itest_workload(workload), truth, arg, arg2,
		      NULL);
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
	prof = launch("wl_sigalt", json, truth, "1500", NULL);
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
	prof = launch("wl_coro", json, truth, "1500", NULL);
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

/* The samples of "pay" in the profile: kept with their payloads (each
 * naming its thread, checked against the truth's thread ids) or not. */
static void payload_samples(const char *json, struct itest_truth *t, uint64_t *kept, uint64_t *lost,
			    uint64_t *wrong)
{
	struct profile *p = itest_profile_load(json);
	uint64_t threads = itest_truth_u64(t, "threads");
	struct profile_sample sm;
	struct profile_stack st;

	*kept = *lost = *wrong = 0;
	for (size_t i = 0; i < profile__nr_samples(p); i++) {
		const struct profile_frame *top;
		uint64_t idx;

		assert_int_equal(profile__sample(p, i, &sm), 0);
		if (!sm.depth || strcmp(sm.frames[sm.depth - 1].feature, "pay"))
			continue;
		assert_int_equal(profile__stack(p, sm.stack, &st), 0);
		top = &sm.frames[sm.depth - 1];
		if (st.flags & PROFILE_STACK_PAYLOADS_LOST) {
			*lost += sm.count;
			continue;
		}
		idx = top->payload >> 32;
		if (idx >= threads || !(top->payload & 0xffffffffULL) ||
		    itest_truth_u64(t, "thread.%llu.tid", (unsigned long long)idx) != sm.tid)
			*wrong += sm.count;
		else
			*kept += sm.count;
	}
	profile__free(p);
}

static void test_payloads(void **state)
{
	const char *truth = itest_tmp("truth"), *json = itest_tmp("prof.json");
	uint64_t n, pay, kept, lost, wrong;
	struct itest_truth *t;
	json_object *prof;
	bool ok;
	double C;

	(void)state;
	prof = launch("wl_payload", json, truth, "200", "15");
	t = itest_truth_load(truth);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	n = itest_total_samples(prof);
	C = (double)itest_truth_u64(t, "cpu_total_ns");
	pay = itest_feature_samples(prof, "pay");
	assert_true(n >= 1000);
	/* Every sample in the mark has payloads of its own: with them in the
	 * stacks' identity, 128 stacks fill within milliseconds. */
	assert_int_equal(itest_diag(prof, "unknown_stacks"), 0);
	assert_int_equal(itest_diag(prof, "lost_samples"), 0);
	ok = itest_truth_share_ok("pay", pay, n, t, "feature.pay", C, ITEST_EXIT_NS / C);
	payload_samples(json, t, &kept, &lost, &wrong);
	print_message("  %llu samples of pay: %llu with their payloads, %llu not kept, %llu "
		      "wrong\n",
		      (unsigned long long)pay, (unsigned long long)kept, (unsigned long long)lost,
		      (unsigned long long)wrong);
	assert_int_equal(kept + lost + wrong, pay);
	assert_int_equal(wrong, 0);
	/* Far fewer distinct payloads than the bound kept: none is thinned. A
	 * record is lost only when its ring buffer is full. */
	assert_true(lost * 100 <= pay);
	ITEST_ASSERT_OK(ok);
	itest_truth_free(t);
	json_object_put(prof);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_sigaltstack),
		ITEST(test_coroutines),
		ITEST(test_payloads),
	};

	return ITEST_MAIN("stacks", tests);
}
