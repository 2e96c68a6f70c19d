// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Function features (docs/function-features.md) on real processes, against
 * the truth wl_funcfeat measures itself (CLOCK_THREAD_CPUTIME_ID around each
 * call): every feature's and call site's share of all samples within
 * max(2 pp, 4 sigma) (itest_tolerance), the ambiguous time at the
 * comparator's clock reads included.
 *
 *   shares_fp, shares_nofp  wl_funcfeat with and without frame pointers,
 *                  the features of a probe map written here (libc's
 *                  snprintf as fmt; qsort as sort with the comparator as
 *                  antimark, and as sortall without) and of
 *                  --function-feature (a function of libwl_native.so):
 *                  - each feature and call site against its truth;
 *                  - sort against qsort's time less the comparator's, and
 *                    rejected against qsort's whole time (the antimark is
 *                    what makes the difference);
 *                  - nesting both ways: the samples of the marked feature
 *                    phase that are also fmt's against the snprintf loop
 *                    inside phase; every sample of the comparator's mark
 *                    also sortall's and never sort's;
 *                  - marks placed by stack pointer among native frames:
 *                    the comparator's mark is of the name of a function
 *                    feature (inner: qsort, the comparator its antimark)
 *                    and charges it, being above the comparator's frame
 *   map_libc       the shipped libc map on the same workload: output (snprintf)
 *                  and sorting (qsort, its comparator an antimark as a
 *                  function of another file) against the truth; the live
 *                  view (--interval) shows them too
 *   no_probes      -p on dd, which has no probe or mark: accepted with a
 *                  function feature alone (libc's read and write), charged
 *   no_samples     -p on sleep: no samples, said, and no advice to record
 *                  with --stacks (given) from record or report
 *   syswide        -a with function features alone: a program without probes
 *                  (dd) started during the session is found and charged;
 *                  of 260 processes mapping the rule's file, 256 are
 *                  profiled and the others are said to be left out
 *   events         --events: the calls of fn:lib and of m:sort, m:sortall
 *                  counted by uprobes, exactly the workload's rounds, at the
 *                  call site the samples name; fn:lib's time at least the
 *                  CPU time the workload measured around its calls; m:sort's
 *                  time without its antimark (the comparator) a small part
 *                  of m:sortall's; the samples charged as the truth says
 *                  (the probes' traps do not change the unwound stacks); a
 *                  function named without a pattern that is not in its file
 *                  is a one-line error
 *   events_calls   wl_ffcalls: exact outer-most calls of nested and of
 *                  recursive functions, an antimark's time (a callback)
 *                  not the call's, calls left by longjmp, threads
 *   after_the_fact  the text report of `fsp-bpf report` on the saved profile
 *                  is record's own report, line for line; a profile recorded
 *                  with --stacks alone, given the same rules by report --map
 *                  and --function-feature, charges them as the truth says
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"
#include "attrib.h"
#include "charges.h"
#include "funcfeat_apply.h"
#include "probemap.h"
#include "profile.h"

#define FF_MS "1500"

static const char map_text[] = "map m\n"
			       "description function features of wl_funcfeat\n"
			       "feature fmt\n"
			       "\tfunction libc.so.6:*snprintf\n"
			       "feature sort\n"
			       "\tfunction libc.so.6:*qsort*\n"
			       "\tantimark wl_funcfeat*:cmp_slow\n"
			       "feature sortall\n"
			       "\tfunction libc.so.6:*qsort*\n"
			       "feature inner\n"
			       "\tfunction libc.so.6:*qsort*\n"
			       "\tantimark wl_funcfeat*:cmp_slow\n";

#define LIB_RULE "lib=libwl_native.so:wl_native_lib_spin"

static const char *write_map(void)
{
	const char *path = itest_tmp("m.map");
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(map_text, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* fsp-bpf -F ITEST_HZ [rules] --json JSON -- WORKLOAD TRUTH FF_MS: its stdout
 * (record's text report). */
static char *record(const char *workload, bool rules, const char *json, const char *truth)
{
	char *argv[20] = {NULL, "-F", ITEST_HZ, "--json", (char *)json};
	int argc = 5;
	struct itest_proc p;
	char *out;

	if (rules) {
		argv[argc++] = "--map";
		argv[argc++] = (char *)write_map();
		argv[argc++] = "--function-feature";
		argv[argc++] = LIB_RULE;
	} else {
		argv[argc++] = "--stacks";
	}
	argv[argc++] = "--";
	argv[argc++] = (char *)workload;
	argv[argc++] = (char *)truth;
	argv[argc++] = FF_MS;
	argv[argc] = NULL;
	itest_run_fspv(&p, "fsp", ITEST_TIMEOUT_S, argv);
	itest_assert_exit(&p, 0);
	if (rules) /* said once: the rules need native stacks */
		assert_non_null(strstr(p.err, "recording with --stacks"));
	out = p.out;
	free(p.err);
	return out;
}

/* The saved profile with its function features charged, as report does. */
static struct profile *load_charged(const char *json, const struct funcfeat *extra)
{
	struct profile *p = itest_profile_load(json);
	struct funcfeat *ff = funcfeat__new();
	const char *text = profile__meta(p)->function_features;
	char err[256];

	assert_non_null(ff);
	if (text)
		assert_int_equal(funcfeat__parse(ff, text, err, sizeof(err)), 0);
	assert_int_equal(funcfeat__merge(ff, extra), 0);
	assert_int_equal(funcfeat__apply(ff, p), 0);
	funcfeat__free(ff);
	return p;
}

/* Samples charged to both features a (instance ia, NULL: any) and b. */
static uint64_t both_inst(const struct profile *p, const char *a, const char *ia, const char *b)
{
	struct charges c;
	struct profile_sample s;
	uint64_t n = 0;

	assert_int_equal(charges__init(&c, p), 0);
	for (size_t i = 0; i < profile__nr_samples(p); i++) {
		const struct charge *ch;
		bool ha = false, hb = false;
		size_t k;

		assert_int_equal(profile__sample(p, i, &s), 0);
		ch = charges__of(&c, s.stack, &k);
		for (size_t j = 0; j < k; j++) {
			ha |= !strcmp(ch[j].feature, a) && (!ia || !strcmp(ch[j].instance, ia));
			hb |= !strcmp(ch[j].feature, b);
		}
		if (ha && hb)
			n += s.count;
	}
	charges__fini(&c);
	return n;
}

static uint64_t both(const struct profile *p, const char *a, const char *b)
{
	return both_inst(p, a, NULL, b);
}

static uint64_t feature_samples(const struct attrib *a, const char *name)
{
	const struct attrib_feature *f = itest_find_feature(a, name);

	return f ? f->samples : 0;
}

/*
 * A call site's samples; 0 when its feature or the site has none (m:sort's
 * true share is about 0.3%: a run may give it no sample at all, which the
 * share check judges, rather than failing on the feature's absence).
 */
static uint64_t site_samples(const struct attrib *a, const char *f, const struct itest_truth *t,
			     const char *key)
{
	const struct attrib_feature *af = itest_find_feature(a, f);
	const char *name = itest_truth_str(t, "%s", key);

	for (size_t i = 0; af && i < af->nr_instances; i++)
		if (!strcmp(af->instances[i].name, name))
			return af->instances[i].samples;
	return 0;
}

/* Every share of a charged profile against the truth. With --events
 * (events), sort's share is not compared: each of the ~90,000 calls of its
 * antimark (the comparator) returns through a uretprobe whose trap, once
 * the kernel has handled it, runs back in qsort's code, while the truth
 * puts it in the comparator (its cost per call is measured on calls that
 * trap too); docs/function-features.md, Limits. */
static bool check_truth(const struct profile *p, const struct itest_truth *t, const char *workload,
			bool events)
{
	struct attrib *a = attrib__compute(p, NULL);
	uint64_t n = attrib__total_samples(a), phase_fmt, cm;
	double C = (double)itest_truth_u64(t, "cpu_total_ns"), w = ITEST_EXIT_NS / C, sortall;
	bool ok = true;

	assert_non_null(a);
	/* 1.5 s at ~2 kHz: fewer would make the tolerances meaningless */
	assert_true(n >= 2000);
	ok &= itest_truth_share_ok("m:fmt", feature_samples(a, "m:fmt"), n, t, "fmt", C, w);
	ok &= itest_truth_share_ok("  site fmt_a", site_samples(a, "m:fmt", t, "site.fmt_a"), n, t,
				   "fmt_a", C, w);
	ok &= itest_truth_share_ok("  site fmt_b", site_samples(a, "m:fmt", t, "site.fmt_b"), n, t,
				   "fmt_b", C, w);
	if (!events) {
		ok &= itest_truth_share_ok("m:sort", feature_samples(a, "m:sort"), n, t, "sort", C,
					   w);
		ok &= itest_truth_share_ok("  site sort", site_samples(a, "m:sort", t, "site.sort"),
					   n, t, "sort", C, w);
	}
	sortall = (double)itest_truth_u64(t, "sortall.ns") / C;
	ok &= itest_share_rejects("m:sort without its antimark", feature_samples(a, "m:sort"), n,
				  sortall, w);
	ok &= itest_truth_share_ok("m:sortall", feature_samples(a, "m:sortall"), n, t, "sortall", C,
				   w);
	ok &= itest_truth_share_ok("fn:lib", feature_samples(a, "fn:lib"), n, t, "lib", C, w);
	ok &= itest_truth_share_ok("  site lib", site_samples(a, "fn:lib", t, "site.lib"), n, t,
				   "lib", C, w);
	ok &= itest_truth_share_ok("phase (marked)", feature_samples(a, "phase"), n, t, "phase", C,
				   w);
	/* a function feature inside a marked one: both charged */
	phase_fmt = both(p, "phase", "m:fmt");
	ok &= itest_truth_share_ok("phase and m:fmt", phase_fmt, n, t, "fmt_a", C, w);
	/* a marked feature inside a function feature, under its antimark:
	 * the comparator's mark "m:inner" (instance "spin"), of the name of
	 * the function feature m:inner (qsort; cmp_slow its antimark),
	 * charges it only if it is placed above the comparator's frame, by
	 * its stack pointer; and it is always inside m:sortall, never m:sort.
	 * (The ABI v1 build has no mark there: it would trap at every call.) */
	if (itest_abi_v1() && strstr(workload, "workloads-v1/")) {
		attrib__free(a);
		return ok;
	}
	cm = itest_instance(a, "m:inner", "spin")->samples;
	printf("  m:inner/spin: %llu samples, %llu also m:sortall, %llu also m:sort\n",
	       (unsigned long long)cm,
	       (unsigned long long)both_inst(p, "m:inner", "spin", "m:sortall"),
	       (unsigned long long)both_inst(p, "m:inner", "spin", "m:sort"));
	assert_true(cm >= 100);
	ok &= itest_share_ok("m:inner/spin also m:sortall",
			     both_inst(p, "m:inner", "spin", "m:sortall"), cm, 1.0, 0);
	ok &= both_inst(p, "m:inner", "spin", "m:sort") == 0;
	attrib__free(a);
	return ok;
}

static void check_shares(const char *workload)
{
	const char *truth_path = itest_tmp("truth"), *json = itest_tmp("prof.json");
	struct itest_truth *t;
	struct profile *p;
	char *out;

	out = record(workload, true, json, truth_path);
	t = itest_truth_load(truth_path);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	p = load_charged(json, NULL);
	printf("  %s:\n", workload);
	ITEST_ASSERT_OK(check_truth(p, t, workload, false));
	/* the live report shows them */
	assert_non_null(strstr(out, "m:sortall accounts for"));
	assert_non_null(strstr(out, itest_truth_str(t, "site.lib")));
	assert_int_equal(profile__diag(p, DIAG_NATIVE_FAILED), 0);
	profile__free(p);
	itest_truth_free(t);
	free(out);
}

static void test_shares_fp(void **state)
{
	(void)state;
	check_shares(itest_workload("wl_funcfeat"));
}

/* Without frame pointers (as Debian builds): the probe ABI v2 build under
 * either ABI's run (there is no ABI v1 build of it). */
static void test_shares_nofp(void **state)
{
	const char *out = getenv("FSP_OUT");
	char path[4096];

	(void)state;
	snprintf(path, sizeof(path), "%s/workloads/wl_funcfeat_nofp", out ? out : ".output");
	check_shares(path);
}

/* `fsp-bpf report FILE ARGS...`: its stdout. */
static char *report(const char *json, const char *a1, const char *a2, const char *a3,
		    const char *a4)
{
	char *argv[] = {NULL, "report", (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL, NULL};
	struct itest_proc p;
	int i = 2;

	while (argv[i])
		i++;
	argv[i] = (char *)json;
	itest_run_fspv(&p, "report", ITEST_TIMEOUT_S, argv);
	itest_assert_exit(&p, 0);
	free(p.err);
	return p.out;
}

static void test_after_the_fact(void **state)
{
	const char *truth_path = itest_tmp("truth"), *json = itest_tmp("prof.json");
	struct funcfeat *ff = funcfeat__new();
	struct itest_truth *t;
	struct profile *p;
	const char *workload = itest_workload("wl_funcfeat");
	char *live, *after, err[256];

	(void)state;
	/* the same rules, live and from the file */
	live = record(workload, true, json, truth_path);
	after = report(json, NULL, NULL, NULL, NULL);
	assert_string_equal(live, after);
	free(live);
	free(after);

	/* recorded with --stacks alone: the rules given afterwards */
	live = record(workload, false, json, truth_path);
	assert_null(strstr(live, "m:sortall"));
	after = report(json, "--map", write_map(), "--function-feature", LIB_RULE);
	assert_non_null(strstr(after, "m:sortall accounts for"));
	assert_non_null(strstr(after, "fn:lib accounts for"));
	t = itest_truth_load(truth_path);
	assert_int_equal(funcfeat__parse_option(ff, LIB_RULE, err, sizeof(err)), 0);
	{
		struct probemap *m;

		assert_int_equal(
			probemap__parse(map_text, strlen(map_text), "m.map", &m, err, sizeof(err)),
			0);
		assert_int_equal(probemap__function_rules(m, NULL, ff, err, sizeof(err)), 4);
		probemap__free(m);
	}
	p = load_charged(json, ff);
	printf("  after the fact:\n");
	ITEST_ASSERT_OK(check_truth(p, t, workload, false));
	profile__free(p);
	funcfeat__free(ff);
	itest_truth_free(t);
	free(live);
	free(after);
}

/* The shipped libc map: its output and sorting features (the comparator
 * its antimark as a function of another file) against the truth. */
static void test_map_libc(void **state)
{
	const char *truth_path = itest_tmp("truth"), *json = itest_tmp("prof.json");
	char *argv[] = {NULL,
			"-F",
			ITEST_HZ,
			"--json",
			(char *)json,
			"--map",
			"libc",
			"--interval",
			"0.5",
			"--",
			(char *)itest_workload("wl_funcfeat"),
			(char *)truth_path,
			FF_MS,
			NULL};
	const char *o;
	int live = 0;
	struct itest_truth *t;
	struct itest_proc proc;
	struct profile *p;
	struct attrib *a;
	double C, w;
	bool ok = true;

	(void)state;
	itest_run_fspv(&proc, "fsp", ITEST_TIMEOUT_S, argv);
	itest_assert_exit(&proc, 0);
	/* the live view (--interval) charges them too, before the final report */
	for (o = proc.out; (o = strstr(o, "libc:output accounts for")); o++)
		live++;
	printf("  libc:output in %d reports (live ones and the final)\n", live);
	assert_true(live >= 2);
	free(proc.out);
	free(proc.err);
	t = itest_truth_load(truth_path);
	p = load_charged(json, NULL);
	a = attrib__compute(p, NULL);
	C = (double)itest_truth_u64(t, "cpu_total_ns");
	w = ITEST_EXIT_NS / C;
	ok &= itest_truth_share_ok("libc:output", feature_samples(a, "libc:output"),
				   attrib__total_samples(a), t, "fmt", C, w);
	ok &= itest_truth_share_ok("  site fmt_a", site_samples(a, "libc:output", t, "site.fmt_a"),
				   attrib__total_samples(a), t, "fmt_a", C, w);
	ok &= itest_truth_share_ok("libc:sorting", feature_samples(a, "libc:sorting"),
				   attrib__total_samples(a), t, "sort", C, w);
	ok &= itest_share_rejects("libc:sorting without its antimark",
				  feature_samples(a, "libc:sorting"), attrib__total_samples(a),
				  (double)itest_truth_u64(t, "sortall.ns") / C, w);
	ITEST_ASSERT_OK(ok);
	attrib__free(a);
	profile__free(p);
	itest_truth_free(t);
}

/* The same program launched: its report has fn:rw, and fsp-bpf does not
 * say that nothing could be charged to features (it could: function
 * features need no probe). */
static void no_probes_launched(void)
{
	char *argv[] = {"fsp-bpf",
			"-F",
			ITEST_HZ,
			"--function-feature",
			"rw=libc.so.6:*read,*write",
			"--",
			"/bin/dd",
			"if=/dev/zero",
			"of=/dev/null",
			"bs=64k",
			"count=200000",
			NULL};
	struct itest_proc p;

	itest_run_fspv(&p, "fsp", ITEST_TIMEOUT_S, argv);
	itest_assert_exit(&p, 0);
	assert_non_null(strstr(p.out, "fn:rw accounts for"));
	if (strstr(p.err, "nothing could be charged")) {
		printf("  launched dd: fsp-bpf said nothing could be charged:\n%s", p.err);
		fail();
	}
	free(p.out);
	free(p.err);
}

/* dd's profile at json has at least min samples, most of them (with 64 KiB
 * blocks its time is in the kernel under the libc wrappers) in fn:rw. */
static void check_rw(const char *what, const char *json, uint64_t min)
{
	struct profile *prof = load_charged(json, NULL);
	struct attrib *a = attrib__compute(prof, NULL);
	uint64_t n = attrib__total_samples(a), rw = feature_samples(a, "fn:rw");

	printf("  %s: %llu samples, %llu in fn:rw\n", what, (unsigned long long)n,
	       (unsigned long long)rw);
	assert_true(n >= min);
	assert_true(rw * 2 >= n);
	attrib__free(a);
	profile__free(prof);
}

/* A running program without any probe or mark (dd), by -p: accepted with a
 * function feature alone, which is charged its read and write calls (with
 * 64 KiB blocks most of dd's time, in the kernel under the libc wrappers). */
static void test_no_probes(void **state)
{
	const char *json = itest_tmp("prof.json");
	char *dd[] = {"/bin/dd", "if=/dev/zero", "of=/dev/null", "bs=64k", NULL};
	struct itest_proc p, fsp;

	(void)state;
	itest_spawn(&p, "dd", dd);
	itest_attach_fsp(&fsp, p.pid, "-F", ITEST_HZ, "-d", "1", "--json", json,
			 "--function-feature", "rw=libc.so.6:*read,*write", NULL);
	itest_wait(&fsp, ITEST_TIMEOUT_S);
	itest_kill(&p);
	itest_assert_exit(&fsp, 0);
	check_rw("dd", json, 500);
	assert_non_null(strstr(fsp.err, "recording with --stacks"));
	free(fsp.out);
	free(fsp.err);
	no_probes_launched();
}

/* A target that never runs (sleep) with function features: no samples, and
 * the report says so; neither the recording nor a report given more rules
 * tells the user to record with --stacks, which they did. */
static void test_no_samples(void **state)
{
	const char *json = itest_tmp("idle.json");
	char *sleeper[] = {"/bin/sleep", "60", NULL};
	struct itest_proc p, fsp, rep;

	(void)state;
	itest_spawn(&p, "sleep", sleeper);
	itest_attach_fsp(&fsp, p.pid, "-F", ITEST_HZ, "-d", "1", "--json", json,
			 "--function-feature", "rw=libc.so.6:*read,*write", NULL);
	itest_wait(&fsp, ITEST_TIMEOUT_S);
	itest_kill(&p);
	itest_assert_exit(&fsp, 0);
	assert_non_null(strstr(fsp.out, "no samples were taken"));
	assert_null(strstr(fsp.err, "record it with --stacks"));
	itest_run_fsp(&rep, "report", ITEST_TIMEOUT_S, "report", json, "--function-feature",
		      "sort=libc.so.6:*qsort*", NULL);
	itest_assert_exit(&rep, 0);
	assert_null(strstr(rep.err, "record it with --stacks"));
	free(fsp.out);
	free(fsp.err);
	free(rep.out);
	free(rep.err);
}

/* A copy of program in the scratch directory under a name of its own (so
 * that -a --comm picks its processes and no others): its path. */
static const char *own_copy(const char *program, const char *prefix)
{
	char name[16], cmd[2 * 4096];
	const char *path;

	snprintf(name, sizeof(name), "%s%d", prefix, (int)getpid() % 100000);
	path = itest_tmp("%s", name);
	snprintf(cmd, sizeof(cmd), "cp %s %s", program, path);
	assert_int_equal(system(cmd), 0);
	return path;
}

/* -a --comm of a program without probes (dd, copied), started after the
 * session: found when it maps libc (its ld.so's link map, or a scan) and
 * charged its reads and writes. */
static void syswide_found(void)
{
	const char *dd = own_copy("/bin/dd", "ffa"), *json = itest_tmp("sw.json");
	char *fsp_argv[] = {NULL,
			    "-F",
			    ITEST_HZ,
			    "-a",
			    "--comm",
			    (char *)strrchr(dd, '/') + 1,
			    "--function-feature",
			    "rw=libc.so.6:*read,*write",
			    "--json",
			    (char *)json,
			    NULL};
	char *dd_argv[] = {(char *)dd, "if=/dev/zero", "of=/dev/null",
			   "bs=64k",   "count=300000", NULL};
	struct itest_proc fsp, p;

	itest_start_fsp(&fsp, fsp_argv);
	assert_non_null(
		strstr(itest_slurp(fsp.err_path), "or mapping a file of the function features"));
	itest_spawn(&p, "dd", dd_argv);
	itest_wait(&p, ITEST_TIMEOUT_S);
	itest_assert_exit(&p, 0);
	itest_stop_fsp(&fsp);
	check_rw("-a, dd started after", json, 200);
}

/* Processes mapping a file of the function features, and no probes: the
 * first SESSION_SW_MAX_FUNCTION_PROCESSES (256) found, the others left out,
 * said. NR_SLEEPERS copies of sleep, all running before the session. */
#define NR_SLEEPERS 260

static void syswide_bound(void)
{
	const char *sleeper = own_copy("/bin/sleep", "ffb"), *pids = itest_tmp("sleepers");
	char script[4096], *sh[] = {"/bin/sh", "-c", script, NULL};
	char *fsp_argv[] = {NULL,
			    "-a",
			    "--comm",
			    (char *)strrchr(sleeper, '/') + 1,
			    "--function-feature",
			    "nap=libc.so.6:*nanosleep*",
			    "-d",
			    "1",
			    NULL};
	struct itest_proc shell, fsp;
	char *err, *line;
	size_t n = 0;
	FILE *f;

	snprintf(script, sizeof(script),
		 "for i in $(seq %d); do %s 120 & echo $!; done > %s; echo done >> %s; wait",
		 NR_SLEEPERS, sleeper, pids, pids);
	itest_spawn(&shell, "sleepers", sh);
	assert_true(itest_wait_text(pids, "done", 60));
	f = fopen(pids, "r");
	assert_non_null(f);
	for (pid_t pid; fscanf(f, "%d", &pid) == 1; n++) {
		char comm[64] = "";
		/* each has exec'd the copy (its comm), before the session */
		for (double until = itest_now() + 30; itest_now() < until; itest_sleep(0.05)) {
			char path[64], *c;

			snprintf(path, sizeof(path), "/proc/%d/comm", pid);
			c = itest_slurp(path);
			snprintf(comm, sizeof(comm), "%s", c ? c : "");
			free(c);
			if (!strncmp(comm, strrchr(sleeper, '/') + 1,
				     strlen(strrchr(sleeper, '/') + 1)))
				break;
		}
	}
	assert_int_equal(n, NR_SLEEPERS);
	itest_start_fsp(&fsp, fsp_argv);
	itest_wait(&fsp, ITEST_TIMEOUT_S);
	itest_assert_exit(&fsp, 0);
	err = itest_slurp(fsp.err_path);
	line = strstr(err, "profiling system-wide: ");
	printf("  %d sleepers: %.*s\n", NR_SLEEPERS, line ? (int)strcspn(line, "\n") : 0,
	       line ? line : "");
	assert_non_null(line);
	assert_int_equal(atoi(line + strlen("profiling system-wide: ")), 256);
	assert_non_null(strstr(err, "more than 256 processes without probes map a file of the "
				    "function features; the first 256 found are profiled"));
	free(err);
	/* the sleepers, by their PIDs */
	rewind(f);
	for (pid_t pid; fscanf(f, "%d", &pid) == 1;)
		kill(pid, SIGTERM);
	fclose(f);
	itest_wait(&shell, 30);
}

/* -a with function features alone: their processes are profiled, bounded. */
static void test_syswide(void **state)
{
	(void)state;
	syswide_found();
	syswide_bound();
}

/* The events of feature f at instance inst (NULL: all its instances),
 * summed over processes. */
static struct profile_event_stats event_of(const struct profile *p, const char *f, const char *inst)
{
	struct profile_event_stats st = {0};
	struct profile_event e;

	for (size_t i = 0; i < profile__nr_events(p); i++) {
		if (profile__event(p, i, &e) || strcmp(e.feature, f) ||
		    (inst && (!e.instance || strcmp(e.instance, inst))))
			continue;
		st.enters += e.stats->enters;
		st.leaves += e.stats->leaves;
		st.total_ns += e.stats->total_ns;
	}
	printf("  events %s @ %s: %llu calls, %llu returned, %.3f ms\n", f, inst ? inst : "*",
	       (unsigned long long)st.enters, (unsigned long long)st.leaves, st.total_ns / 1e6);
	return st;
}

/* The probe ABI v2 build under either ABI's run: with the ABI v1 build
 * the marks would trap as well as the function features' probes, and its
 * few rounds (29 in 1.5 s) leave the shares without samples to judge. */
static void test_events(void **state)
{
	const char *truth_path = itest_tmp("truth"), *json = itest_tmp("prof.json");
	const char *out = getenv("FSP_OUT");
	char wl[4096];
	char *argv[] = {NULL,
			"-F",
			ITEST_HZ,
			"--events=m:fmt,m:sort,m:sortall,m:inner,fn:lib",
			"--json",
			(char *)json,
			"--map",
			(char *)write_map(),
			"--function-feature",
			LIB_RULE,
			"--",
			wl,
			(char *)truth_path,
			FF_MS,
			NULL};
	struct profile_event_stats lib, sort, sortall;
	struct itest_truth *t;
	struct itest_proc proc;
	struct profile *p;
	uint64_t rounds;

	(void)state;
	snprintf(wl, sizeof(wl), "%s/workloads/wl_funcfeat", out ? out : ".output");
	itest_run_fspv(&proc, "fsp", ITEST_TIMEOUT_S, argv);
	itest_assert_exit(&proc, 0);
	t = itest_truth_load(truth_path);
	rounds = itest_truth_u64(t, "rounds");
	assert_true(rounds > 10);
	/* the saved profile, read back */
	p = load_charged(json, NULL);
	lib = event_of(p, "fn:lib", itest_truth_str(t, "site.lib"));
	sort = event_of(p, "m:sort", itest_truth_str(t, "site.sort"));
	sortall = event_of(p, "m:sortall", itest_truth_str(t, "site.sort"));
	assert_int_equal(lib.enters, rounds);
	assert_int_equal(lib.leaves, rounds);
	assert_int_equal(sort.enters, rounds);
	assert_int_equal(sort.leaves, rounds);
	assert_int_equal(sortall.leaves, rounds);
	/* wall-clock time between the probes holds the CPU time the
	 * workload's clock read around each call */
	assert_true(lib.total_ns >= itest_truth_u64(t, "lib.ns") * 99 / 100);
	/* the comparator (sort's antimark) is most of qsort's time */
	assert_true(sort.total_ns * 2 < sortall.total_ns);
	/* the text report shows them; the samples are charged as the truth
	 * says (fmt: 14,000 calls a second, each trapping twice): the
	 * trampoline in place of return addresses, the breakpoints' traps and
	 * the out-of-line steps do not change the unwound stacks */
	assert_non_null(strstr(proc.out, "fn:lib accounts for"));
	ITEST_ASSERT_OK(check_truth(p, t, wl, true));
	profile__free(p);
	itest_truth_free(t);
	free(proc.out);
	free(proc.err);
}

static const char ffcalls_map[] = "map ffc\n"
				  "description wl_ffcalls's callback\n"
				  "feature apply\n"
				  "\tfunction wl_ffcalls:ff_apply\n"
				  "\tantimark wl_ffcalls:ff_cb\n"
				  "\tinstance none\n";

/* wl_ffcalls: nesting, recursion, an antimark, longjmp, threads. */
static void test_events_calls(void **state)
{
	const char *truth_path = itest_tmp("truth"), *json = itest_tmp("prof.json"),
		   *map = itest_tmp("ffc.map");
	char *argv[] = {NULL,
			"--events=ffc:apply,fn:nest,fn:rec,fn:jump,fn:work",
			"--json",
			(char *)json,
			"--map",
			(char *)map,
			"--function-feature",
			"nest=wl_ffcalls:ff_outer,ff_inner",
			"--function-feature",
			"rec=wl_ffcalls:ff_rec",
			"--function-feature",
			"jump=wl_ffcalls:ff_jump",
			"--function-feature",
			"work=wl_ffcalls:ff_work",
			"--",
			(char *)itest_workload("wl_ffcalls"),
			(char *)truth_path,
			NULL};
	struct profile_event_stats nest, rec, apply, jump, work;
	struct itest_truth *t;
	struct itest_proc proc;
	struct profile *p;
	FILE *f = fopen(map, "w");

	(void)state;
	assert_non_null(f);
	fputs(ffcalls_map, f);
	assert_int_equal(fclose(f), 0);
	itest_run_fspv(&proc, "fsp", ITEST_TIMEOUT_S, argv);
	itest_assert_exit(&proc, 0);
	t = itest_truth_load(truth_path);
	p = itest_profile_load(json);
	nest = event_of(p, "fn:nest", NULL);
	rec = event_of(p, "fn:rec", NULL);
	apply = event_of(p, "ffc:apply", NULL);
	jump = event_of(p, "fn:jump", NULL);
	work = event_of(p, "fn:work", NULL);
	/* outer-most calls only: nested and recursive ones are part of them */
	assert_int_equal(nest.enters, itest_truth_u64(t, "nest.calls"));
	assert_int_equal(nest.leaves, nest.enters);
	assert_int_equal(rec.enters, itest_truth_u64(t, "rec.calls"));
	assert_int_equal(rec.leaves, rec.enters);
	/* the recursion's time lies between its innermost spin's and the
	 * caller's clock reads around it (the same clock) */
	assert_true(rec.total_ns >= itest_truth_u64(t, "rec.own_ns"));
	assert_true(rec.total_ns <= itest_truth_u64(t, "rec.outer_ns"));
	/* the callback is an antimark: its time is not apply's */
	assert_int_equal(apply.leaves, itest_truth_u64(t, "apply.calls"));
	assert_true(apply.total_ns >= itest_truth_u64(t, "apply.own_ns"));
	assert_true(apply.total_ns <=
		    itest_truth_u64(t, "apply.outer_ns") - itest_truth_u64(t, "apply.cb_ns"));
	/* calls left by longjmp: entered, never returned, dropped (stale) and
	 * not taken for an outer call of the next one */
	assert_int_equal(jump.enters, itest_truth_u64(t, "jump.calls"));
	assert_int_equal(jump.leaves, 0);
	assert_true(profile__diag(p, DIAG_STALE_MARKS) >= jump.enters - 1);
	/* threads: each its own calls */
	assert_int_equal(work.enters, itest_truth_u64(t, "work.calls"));
	assert_int_equal(work.leaves, work.enters);
	profile__free(p);
	itest_truth_free(t);
	free(proc.out);
	free(proc.err);
}

/* A function named without a pattern that its file does not have. */
static void test_events_missing(void **state)
{
	char *argv[] = {NULL,
			"--events=fn:x",
			"--function-feature",
			"x=libwl_native.so:no_such_function",
			"--",
			(char *)itest_workload("wl_funcfeat"),
			(char *)itest_tmp("truth"),
			"100",
			NULL};
	struct itest_proc proc;

	(void)state;
	itest_run_fspv(&proc, "fsp", ITEST_TIMEOUT_S, argv);
	printf("%s", proc.err);
	assert_int_not_equal(proc.status, 0);
	assert_non_null(strstr(proc.err, "fn:x: no function no_such_function in "));
	free(proc.out);
	free(proc.err);
}

/* wl_ffcalls under record --events=EVENTS --function-feature RULE (one or
 * two): its saved profile, and its truth in *t. */
static struct profile *run_ffcalls(const char *events, const char *rule, const char *rule2,
				   struct itest_truth **t)
{
	const char *truth_path = itest_tmp("truth"), *json = itest_tmp("prof.json");
	char *argv[] = {NULL,
			(char *)events,
			"--json",
			(char *)json,
			"--function-feature",
			(char *)rule,
			"--function-feature",
			(char *)rule2,
			"--",
			(char *)itest_workload("wl_ffcalls"),
			(char *)truth_path,
			NULL};
	struct itest_proc proc;

	if (!rule2) /* its --function-feature left out */
		memmove(&argv[6], &argv[8], 4 * sizeof(*argv));
	itest_run_fspv(&proc, "fsp", ITEST_TIMEOUT_S, argv);
	printf("%s", proc.err);
	itest_assert_exit(&proc, 0);
	free(proc.out);
	free(proc.err);
	*t = itest_truth_load(truth_path);
	return itest_profile_load(json);
}

/* A function named exactly in any file (FILE a pattern): the files that
 * do not have it (ld.so, libc) are no error; its calls are counted where
 * it is. Before: "no function ff_work in .../ld-linux-x86-64.so.2", the
 * command killed. */
static void test_events_any_file(void **state)
{
	struct itest_truth *t;
	struct profile *p = run_ffcalls("--events=fn:work", "work=*:ff_work", NULL, &t);
	struct profile_event_stats work = event_of(p, "fn:work", NULL);

	(void)state;
	assert_int_equal(work.enters, itest_truth_u64(t, "work.calls"));
	assert_int_equal(work.leaves, work.enters);
	profile__free(p);
	itest_truth_free(t);
}

/* The one instance of feature f's calls (asserted one), strdup'ed. */
static char *only_instance(const struct profile *p, const char *f)
{
	struct profile_event e;
	char *inst = NULL;

	for (size_t i = 0; i < profile__nr_events(p); i++) {
		if (profile__event(p, i, &e) || strcmp(e.feature, f))
			continue;
		assert_non_null(e.instance);
		if (inst)
			assert_string_equal(inst, e.instance);
		else
			inst = strdup(e.instance);
	}
	assert_non_null(inst);
	printf("  events %s: at %s\n", f, inst);
	return inst;
}

/* A tail call from one feature's function to another's (ff_tail_a jumps
 * to ff_tail_b): B's return address is A's uretprobe trampoline; its call
 * site is A's caller, as A's is. Before: "?+0x..." (the trampoline). */
static void test_events_tail_call(void **state)
{
	struct itest_truth *t;
	struct profile *p = run_ffcalls("--events=fn:a,fn:b", "a=wl_ffcalls:ff_tail_a",
					"b=wl_ffcalls:ff_tail_b", &t);
	struct profile_event_stats a = event_of(p, "fn:a", NULL), b = event_of(p, "fn:b", NULL);
	char *site_a, *site_b;

	(void)state;
	assert_int_equal(a.enters, itest_truth_u64(t, "tail.calls"));
	assert_int_equal(b.enters, a.enters);
	assert_int_equal(b.leaves, b.enters);
	site_a = only_instance(p, "fn:a");
	site_b = only_instance(p, "fn:b");
	assert_non_null(strstr(site_a, "main (wl_ffcalls.c:"));
	assert_string_equal(site_b, site_a);
	free(site_a);
	free(site_b);
	profile__free(p);
	itest_truth_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_shares_fp),	     ITEST(test_shares_nofp),
		ITEST(test_after_the_fact),  ITEST(test_map_libc),
		ITEST(test_no_probes),	     ITEST(test_no_samples),
		ITEST(test_syswide),	     ITEST(test_events),
		ITEST(test_events_calls),    ITEST(test_events_missing),
		ITEST(test_events_any_file), ITEST(test_events_tail_call),
	};

	return ITEST_MAIN("funcfeat", tests);
}
