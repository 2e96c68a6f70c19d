// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fsp-bpf --map libstdcxx (maps/libstdcxx.map): C++ exceptions thrown per
 * type, against the counts tests/workloads/wl_throw.cc keeps as it throws.
 *
 *   cxx_throw_counts  every throw counted per type (the type_info's name,
 *                     read through a pointer: {str:1[8]}), every rethrow;
 *                     the throw -> catch extent (frame none: the catch runs
 *                     in an outer frame) entered and left once per throw,
 *                     with no stale mark; the second catch of each rethrown
 *                     exception, which has no throw open, is the only
 *                     unmatched leave.
 *
 * Counts are exact: fsp-bpf launches the program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "itest.h"
#include "profile_io.h"

static const char *const types[] = {"St13runtime_error", "St12out_of_range", "9app_error", "i"};

static uint64_t enters(const struct attrib *a, const char *f, const char *inst)
{
	const struct attrib_instance *in = itest_instance(a, f, inst);

	if (!in->events)
		fail_msg("instance %s of %s has no events", inst, f);
	return in->events->enters;
}

static void test_cxx_throw_counts(void **state)
{
	const char *json = itest_tmp("throw.json"), *tp = itest_tmp("throw.truth");
	struct itest_truth *t;
	struct itest_proc p;
	struct profile *pr;
	struct attrib *a;
	uint64_t rethrows;

	(void)state;
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "--map", "libstdcxx", "-F", ITEST_HZ, "-o", json,
		      "--min-pct", "0", "--", itest_workload("wl_throw"), tp, "20000", NULL);
	itest_assert_exit(&p, 0);
	free(p.out);
	free(p.err);
	t = itest_truth_load(tp);
	pr = itest_profile_load(json);
	a = attrib__compute(pr, NULL);
	assert_non_null(a);
	assert_true(itest_feature(a, "libstdcxx:throw")->events->point);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		uint64_t want = itest_truth_u64(t, "throw.%s", types[i]);
		const struct attrib_instance *u = itest_instance(a, "libstdcxx:unwind", types[i]);

		printf("  %-18s thrown %7llu (truth %7llu)  unwound %7llu, left %7llu\n", types[i],
		       (unsigned long long)enters(a, "libstdcxx:throw", types[i]),
		       (unsigned long long)want, (unsigned long long)u->events->enters,
		       (unsigned long long)u->events->leaves);
		assert_int_equal(enters(a, "libstdcxx:throw", types[i]), want);
		assert_int_equal(u->events->enters, want);
		assert_int_equal(u->events->leaves, want);
	}
	rethrows = itest_truth_u64(t, "rethrow.St13runtime_error");
	assert_int_equal(enters(a, "libstdcxx:rethrow", "St13runtime_error"), rethrows);
	printf("  unmatched leaves %llu (rethrows %llu), stale marks %llu\n",
	       (unsigned long long)profile__diag(pr, DIAG_UNMATCHED_LEAVES),
	       (unsigned long long)rethrows,
	       (unsigned long long)profile__diag(pr, DIAG_STALE_MARKS));
	assert_int_equal(profile__diag(pr, DIAG_UNMATCHED_LEAVES), rethrows);
	assert_int_equal(profile__diag(pr, DIAG_STALE_MARKS), 0);
	attrib__free(a);
	profile__free(pr);
	itest_truth_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_cxx_throw_counts),
	};

	return ITEST_MAIN("libstdcxx", tests);
}
