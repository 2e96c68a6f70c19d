// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Labels read at sample time ("label sample" of a probe map,
 * bpf/samplelabel.bpf.h), against tests/workloads/wl_sampled, which points a
 * global `char *` of its PIE executable, one of libwl_sampled.so and a
 * thread-local one of the executable at a new label between phases while a
 * mark of each is open, and measures the CPU time under each value itself;
 * a worker thread holds its own thread-local value ("worker") under its own
 * mark meanwhile:
 *
 *   sampled_launch  -- CMD: each value's share of the samples, for the three
 *                   variables (the worker's value in the thread-local one's
 *                   feature only), within itest_tolerance of the time the
 *                   workload spent under it; the phases with a NULL pointer
 *                   and a pointer into a page without access are "?", as
 *                   many samples as the sample_label_errors diagnostic
 *                   counts (one per variable and sample), never another
 *                   value; the enter's value names the one call of the
 *                   event view; a label read at the probe ("alpha" for the
 *                   whole run) is outside the tolerance.
 *   sampled_attach  the same with -p.
 *
 * make integration runs them against the ABI v2 and the ABI v1 builds: the
 * fsp mark "work" around each phase is merged with the mapped frames (v2) or
 * pushed on the same stack (v1).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "itest.h"
#include "profile_io.h"

static const char *const values[] = {"alpha", "beta", "gamma-0", "gamma-1", "gamma-2"};
static const char *const features[] = {"wlsx:run", "wlsl:run", "wlsx:tls"};

static const char exe_map[] = "map wlsx\n"
			      "provider wlsx\n"
			      "feature run\n"
			      "\tenter run__start\n"
			      "\tleave run__done\n"
			      "\tinstance {global:wl_exe_label}\n"
			      "\tlabel sample\n"
			      "feature tls\n"
			      "\tenter tls__start\n"
			      "\tleave tls__done\n"
			      "\tinstance {global:wl_tls_label}\n"
			      "\tlabel sample\n";

/* The library's enter and leave fire in two functions that return. */
static const char lib_map[] = "map wlsl\n"
			      "provider wlsl\n"
			      "feature run\n"
			      "\tenter run__start\n"
			      "\tleave run__done\n"
			      "\tframe none\n"
			      "\tinstance {global:wl_lib_label}\n"
			      "\tlabel sample\n";

/* The two maps, written to the scratch directory: "--map A,B". */
static const char *write_maps(void)
{
	const char *exe = itest_tmp("wlsx.map"), *lib = itest_tmp("wlsl.map");
	static char both[8300];
	FILE *f;

	f = fopen(exe, "w");
	assert_non_null(f);
	fputs(exe_map, f);
	assert_int_equal(fclose(f), 0);
	f = fopen(lib, "w");
	assert_non_null(f);
	fputs(lib_map, f);
	assert_int_equal(fclose(f), 0);
	snprintf(both, sizeof(both), "%s,%s", exe, lib);
	return both;
}

/* The event view: one call of each feature, under the value at the enter. */
static void check_calls(const char *json)
{
	struct profile *pr = itest_profile_load(json);
	struct attrib *a = attrib__compute(pr, NULL);

	assert_non_null(a);
	for (size_t f = 0; f < sizeof(features) / sizeof(features[0]); f++) {
		const struct attrib_instance *in = itest_instance(a, features[f], "alpha");

		if (!in->events)
			fail_msg("%s/alpha has no events", features[f]);
		assert_int_equal(in->events->enters, 1);
		assert_int_equal(in->events->leaves, 1);
	}
	attrib__free(a);
	profile__free(pr);
}

/* The share of the whole run, all values together. */
static double run_share(struct itest_truth *t, double C)
{
	double ns = itest_truth_u64(t, "value.unreadable.ns");

	for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++)
		ns += itest_truth_u64(t, "value.%s.ns", values[v]);
	return ns / C;
}

/* Every value's share against the workload's time under it. */
static void check_shares(json_object *prof, struct itest_truth *t, double C)
{
	uint64_t n = itest_total_samples(prof), unread = 0;
	double dw = ITEST_EXIT_NS / C;
	bool ok = true;

	printf("  %llu samples, %llu phases\n", (unsigned long long)n,
	       (unsigned long long)itest_truth_u64(t, "phases"));
	assert_true(n >= 1000);
	for (size_t f = 0; f < sizeof(features) / sizeof(features[0]); f++) {
		uint64_t k;

		printf("  %s (\"?\": unreadable)\n", features[f]);
		for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
			char key[64], what[64];

			snprintf(key, sizeof(key), "value.%s", values[v]);
			snprintf(what, sizeof(what), "%s/%s", features[f], values[v]);
			ok &= itest_truth_share_ok(
				what, itest_instance_samples(prof, features[f], values[v]), n, t,
				key, C, dw);
		}
		k = itest_instance_samples(prof, features[f], "?");
		unread += k;
		ok &= itest_truth_share_ok(features[f], k, n, t, "value.unreadable", C, dw);
		/* The worker's thread-local variable, in its own thread only. */
		k = itest_instance_samples(prof, features[f], "worker");
		if (!strcmp(features[f], "wlsx:tls"))
			ok &= itest_truth_share_ok("wlsx:tls/worker", k, n, t, "value.worker", C,
						   dw);
		else
			assert_int_equal(k, 0);
		/* Read at the enter, the whole run would be "alpha". */
		if (strcmp(features[f], "wlsx:tls"))
			ok &= itest_share_rejects(
				"alpha if read at the enter",
				itest_instance_samples(prof, features[f], "alpha"), n,
				run_share(t, C), dw);
	}
	ITEST_ASSERT_OK(ok);
	/* Each unreadable read is counted, and only those are "?". */
	printf("  sample_label_errors %llu, samples charged to \"?\" %llu\n",
	       (unsigned long long)itest_diag(prof, "sample_label_errors"),
	       (unsigned long long)unread);
	assert_int_equal(itest_diag(prof, "sample_label_errors"), unread);
	assert_true(unread > 0);
	assert_int_equal(itest_diag(prof, "label_errors"), 0);
	assert_int_equal(itest_diag(prof, "unknown_stacks"), 0);
}

static void test_sampled_launch(void **state)
{
	const char *truth = itest_tmp("truth"), *json = itest_tmp("prof.json");
	const char *maps = write_maps();
	struct itest_truth *t;
	struct itest_proc p;
	json_object *prof;

	(void)state;
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "--map", maps, "-F", ITEST_HZ, "--json", json,
		      "--min-pct", "0", "--", itest_workload("wl_sampled"), truth, "1500", NULL);
	itest_assert_exit(&p, 0);
	free(p.out);
	free(p.err);
	t = itest_truth_load(truth);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	prof = itest_json_load(json);
	itest_assert_labels_resolved(prof);
	check_shares(prof, t, (double)itest_truth_u64(t, "cpu_total_ns"));
	check_calls(json);
	itest_truth_free(t);
	json_object_put(prof);
}

static void test_sampled_attach(void **state)
{
	const char *truth = itest_tmp("truth"), *json = itest_tmp("prof.json"),
		   *ready = itest_tmp("ready");
	char *wargv[5] = {(char *)itest_workload("wl_sampled"), (char *)truth, "1500",
			  (char *)ready};
	const char *maps = write_maps();
	struct itest_proc w, p;
	struct itest_truth *t;
	json_object *prof;

	(void)state;
	itest_spawn(&w, "wl_sampled", wargv);
	if (!itest_wait_file(ready, 10))
		fail_msg("wl_sampled did not get ready");
	itest_attach_fsp(&p, w.pid, "--map", maps, "-F", ITEST_HZ, "--json", json, "--min-pct", "0",
			 NULL);
	itest_go_attached(&w, &p);
	t = itest_truth_load(truth);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	prof = itest_json_load(json);
	itest_assert_labels_resolved(prof);
	/* Only the CPU after the go counts: before it the process slept, unsampled. */
	check_shares(
		prof, t,
		(double)(itest_truth_u64(t, "cpu_total_ns") - itest_truth_u64(t, "cpu_before_ns")));
	check_calls(json);
	itest_truth_free(t);
	json_object_put(prof);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_sampled_launch),
		ITEST(test_sampled_attach),
	};

	return ITEST_MAIN("samplelabels", tests);
}
