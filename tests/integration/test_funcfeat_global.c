// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Function features whose instance is a variable read at sample time
 * ("instance {global:S}", docs/function-features.md), against
 * tests/workloads/wl_sampled, which points a global `char *` of its PIE
 * executable, one of libwl_sampled.so and a thread-local one of the
 * executable at a new label between phases, each phase's work in its
 * function work(), and measures the CPU time under each value itself:
 *
 *   ffglobal_launch  -- CMD, a probe map's three function features on work()
 *                    (one per variable) and one of --function-feature
 *                    (...@{global:wl_exe_label}): each value's share within
 *                    itest_tolerance of the workload's time under it, "?"
 *                    for the NULL and unmapped pointers, never another
 *                    value; every unreadable read counted: the saved
 *                    samples' "?" frames of the variables, one per variable
 *                    and sample, are exactly sample_label_errors; a label
 *                    read once ("alpha", the first value) is rejected;
 *                    `fsp-bpf report` of the saved file is record's report
 *                    line for line; a rule given to report whose variable
 *                    was not recorded says so and charges "(not read)".
 *   ffglobal_attach  the same shares with -p.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "funcfeat.h"
#include "itest.h"
#include "profile_io.h"

static const char *const values[] = {"alpha", "beta", "gamma-0", "gamma-1", "gamma-2"};
static const char *const features[] = {"wlsf:exe", "wlsf:lib", "wlsf:tls", "fn:cli"};

static const char map_text[] = "map wlsf\n"
			       "feature exe\n"
			       "\tfunction wl_sampled:work\n"
			       "\tinstance {global:wl_exe_label}\n"
			       "feature lib\n"
			       "\tfunction wl_sampled:work\n"
			       "\tinstance {global:wl_lib_label}\n"
			       "feature tls\n"
			       "\tfunction wl_sampled:work\n"
			       "\tinstance {global:wl_tls_label}\n";

#define CLI_RULE "cli=wl_sampled:work@{global:wl_exe_label}"

static const char *write_map(void)
{
	const char *path = itest_tmp("wlsf.map");
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(map_text, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* Samples of the saved (uncharged) profile times their variables' frames
 * read as "?": what sample_label_errors counts. */
static uint64_t unread_frames(const char *json)
{
	struct profile *p = itest_profile_load(json);
	struct profile_sample s;
	struct profile_stack st;
	uint64_t n = 0;

	for (size_t i = 0; i < profile__nr_samples(p); i++) {
		assert_int_equal(profile__sample(p, i, &s), 0);
		if (s.stack == PROFILE_NO_STACK)
			continue;
		assert_int_equal(profile__stack(p, s.stack, &st), 0);
		for (size_t j = 0; j < st.depth; j++)
			if (funcfeat__is_var_feature(st.frames[j].feature) &&
			    st.frames[j].instance && !strcmp(st.frames[j].instance, "?"))
				n += s.count;
	}
	profile__free(p);
	return n;
}

/* Samples of instance i of feature f (0: none). */
static uint64_t inst(const struct attrib *a, const char *f, const char *i)
{
	for (size_t k = 0; k < attrib__nr_features(a); k++) {
		const struct attrib_feature *af = attrib__feature(a, k);

		for (size_t j = 0; !strcmp(af->name, f) && j < af->nr_instances; j++)
			if (!strcmp(af->instances[j].name, i))
				return af->instances[j].samples;
	}
	return 0;
}

/* Every value's share of every feature against the workload's time under it. */
static void check_shares(const char *json, struct itest_truth *t, double C)
{
	struct profile *p = itest_profile_charged(json);
	struct attrib *a = attrib__compute(p, NULL);
	uint64_t n = attrib__total_samples(a), unread = 0;
	double dw = ITEST_EXIT_NS / C, all = itest_truth_u64(t, "value.unreadable.ns") / C;
	json_object *prof = itest_json_load(json);
	bool ok = true;

	assert_non_null(a);
	printf("  %llu samples, %llu phases\n", (unsigned long long)n,
	       (unsigned long long)itest_truth_u64(t, "phases"));
	assert_true(n >= 1000);
	for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++)
		all += itest_truth_u64(t, "value.%s.ns", values[v]) / C;
	for (size_t f = 0; f < sizeof(features) / sizeof(features[0]); f++) {
		printf("  %s (\"?\": unreadable)\n", features[f]);
		for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
			char key[64], what[64];

			snprintf(key, sizeof(key), "value.%s", values[v]);
			snprintf(what, sizeof(what), "%s/%s", features[f], values[v]);
			ok &= itest_truth_share_ok(what, inst(a, features[f], values[v]), n, t, key,
						   C, dw);
		}
		ok &= itest_truth_share_ok(features[f], inst(a, features[f], "?"), n, t,
					   "value.unreadable", C, dw);
		if (f < 3) /* the three variables (fn:cli reads the first again) */
			unread += inst(a, features[f], "?");
		/* the worker's value is its own thread's; it never runs work() */
		assert_int_equal(inst(a, features[f], "worker"), 0);
		/* read once, the whole run would be its first value */
		ok &= itest_share_rejects("alpha if read once", inst(a, features[f], "alpha"), n,
					  all, dw);
	}
	ITEST_ASSERT_OK(ok);
	/* every sample of the process reads the variables, in work() or not */
	printf("  sample_label_errors %llu, variables' frames read \"?\" %llu, of which in "
	       "work() %llu\n",
	       (unsigned long long)itest_diag(prof, "sample_label_errors"),
	       (unsigned long long)unread_frames(json), (unsigned long long)unread);
	assert_int_equal(itest_diag(prof, "sample_label_errors"), unread_frames(json));
	assert_true(unread > 0);
	assert_true(unread <= unread_frames(json));
	assert_int_equal(itest_diag(prof, "unknown_stacks"), 0);
	json_object_put(prof);
	attrib__free(a);
	profile__free(p);
}

/* `fsp-bpf report JSON [ARG]`: its stdout; its stderr in *err. */
static char *report(const char *json, const char *a1, const char *a2, char **err)
{
	char *argv[] = {NULL, "report", (char *)json, (char *)a1, (char *)a2, NULL};
	struct itest_proc p;

	itest_run_fspv(&p, "report", ITEST_TIMEOUT_S, argv);
	itest_assert_exit(&p, 0);
	*err = p.err;
	return p.out;
}

static void test_ffglobal_launch(void **state)
{
	const char *truth = itest_tmp("truth"), *json = itest_tmp("prof.json");
	char *argv[] = {NULL,
			"--map",
			(char *)write_map(),
			"--function-feature",
			CLI_RULE,
			"-F",
			ITEST_HZ,
			"--json",
			(char *)json,
			"--min-pct",
			"0",
			"--",
			(char *)itest_workload("wl_sampled"),
			(char *)truth,
			"1500",
			NULL};
	struct itest_truth *t;
	struct itest_proc p;
	char *after, *err;

	(void)state;
	itest_run_fspv(&p, "fsp", ITEST_TIMEOUT_S, argv);
	itest_assert_exit(&p, 0);
	t = itest_truth_load(truth);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	check_shares(json, t, (double)itest_truth_u64(t, "cpu_total_ns"));
	/* after the fact: the same report, from the values read then */
	after = report(json, "--min-pct", "0", &err);
	assert_string_equal(p.out, after);
	free(after);
	free(err);
	/* a rule whose variable was not read then: said, and "(not read)" */
	after = report(json, "--function-feature", "late=wl_sampled:work@{global:wl_late}", &err);
	if (!strstr(err, "recorded without it") || !strstr(after, FUNCFEAT_NOT_READ))
		fail_msg("report with a variable not recorded:\n%s\n%s", err, after);
	free(after);
	free(err);
	free(p.out);
	free(p.err);
	itest_truth_free(t);
}

static void test_ffglobal_attach(void **state)
{
	const char *truth = itest_tmp("truth"), *json = itest_tmp("prof.json"),
		   *ready = itest_tmp("ready");
	char *wargv[5] = {(char *)itest_workload("wl_sampled"), (char *)truth, "1500",
			  (char *)ready};
	struct itest_proc w, p;
	struct itest_truth *t;

	(void)state;
	itest_spawn(&w, "wl_sampled", wargv);
	if (!itest_wait_file(ready, 10))
		fail_msg("wl_sampled did not get ready");
	itest_attach_fsp(&p, w.pid, "--map", write_map(), "--function-feature", CLI_RULE, "-F",
			 ITEST_HZ, "--json", json, "--min-pct", "0", NULL);
	itest_go_attached(&w, &p);
	t = itest_truth_load(truth);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	/* Only the CPU after the go counts: before it the process slept, unsampled. */
	check_shares(
		json, t,
		(double)(itest_truth_u64(t, "cpu_total_ns") - itest_truth_u64(t, "cpu_before_ns")));
	itest_truth_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_ffglobal_launch),
		ITEST(test_ffglobal_attach),
	};

	return ITEST_MAIN("funcfeat_global", tests);
}
