// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The slow-call view's join (record --calls, issue 30) on real processes:
 *
 *   calls_join  wl_threads --calls: every sample charged to a feature is
 *               joined to exactly one call of it (the calls section's
 *               samples per feature equal the profile's, none unknown, none
 *               dropped), and a feature's calls are its thread's own
 *               (wl_threads runs each feature mix in a thread of its own)
 *
 * Under FSP_ABI=v1 the workloads are ABI v1 builds: the call numbers then
 * come from the BPF mark stack (task storage), the same join.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

/* The "FEATURE: N calls sampled (S samples)" line of out: S, or -1. */
static long long section_samples(const char *out, const char *feature, long long *calls)
{
	char key[64];
	const char *at;
	long long n, s;

	snprintf(key, sizeof(key), "  %s: ", feature);
	at = strstr(out, key);
	if (!at || sscanf(at + strlen(key), "%lld calls sampled (%lld samples)", &n, &s) != 2)
		return -1;
	*calls = n;
	return s;
}

static void test_calls_join(void **state)
{
	static const char *const features[] = {"encode", "decode", "verify"};
	const char *json = itest_tmp("p.json"), *truth = itest_tmp("truth");
	struct itest_proc p;
	json_object *prof;
	bool ok = true;
	char *out;

	(void)state;
	itest_run_fsp(&p, "fsp", 60, "--calls", "-F", ITEST_HZ, "--json", json, "--",
		      itest_workload("wl_threads"), truth, "900", NULL);
	itest_assert_exit(&p, 0);
	out = itest_slurp(p.out_path);
	assert_non_null(out);
	prof = itest_json_load(json);
	for (size_t i = 0; i < 3; i++) {
		long long want = (long long)itest_feature_samples(prof, features[i]), calls = 0;
		long long got = section_samples(out, features[i], &calls);

		print_message("  %s: %lld samples in the profile, %lld joined to %lld calls\n",
			      features[i], want, got, calls);
		ok &= want > 0 && got == want && calls > 0 && calls <= got;
	}
	if (strstr(out, "have no call number") || strstr(out, "dropped:")) {
		print_message("unknown or dropped calls:\n%s\n", strstr(out, "Calls (--calls)"));
		ok = false;
	}
	json_object_put(prof);
	free(out);
	free(p.out);
	free(p.err);
	ITEST_ASSERT_OK(ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_calls_join),
	};

	return ITEST_MAIN("calls", tests);
}
