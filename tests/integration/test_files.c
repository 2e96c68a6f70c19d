// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Profile files end to end: record real workloads with -o, render every
 * format with `fsp-bpf report`, check them with their real consumers (go tool
 * pprof; flamegraph.pl's line grammar), merge and diff recordings, and feed
 * the loader bad files.
 *
 *   record_report   the live report equals `report` of the saved file; the
 *                   file read and written again is byte-identical
 *   folded          every line parses as flamegraph.pl and speedscope read
 *                   it; per-feature sums equal the profile's
 *   pprof           go tool pprof -top shows each instance's samples (flat)
 *                   and each feature's (cum)
 *   views           --by thread/process, --order name, --feature
 *   merge           two runs: samples add up, each source keeps its metadata,
 *                   the processes stay apart
 *   diff_scale      wl_scale with N and 2N: diff --scale 2 finds the quadratic
 *                   and the constant feature, against ground truth
 *   bad_files       missing, empty, truncated, not JSON, wrong version, another
 *                   tool's: one error line naming the file and the problem
 *   atomic_write    a full disk leaves the previous file and no temporary
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "itest.h"

/* fsp-bpf -F ITEST_HZ -o JSON --min-pct 0 -- WORKLOAD A1 A2 (exit 0); returns
 * the text report it printed (caller frees). */
static char *record(const char *json, const char *workload, const char *a1, const char *a2)
{
	char *argv[] = {NULL,	    "-F",	  ITEST_HZ,
			"-o",	    (char *)json, "--min-pct",
			"0",	    "--",	  (char *)itest_workload(workload),
			(char *)a1, (char *)a2,	  NULL};
	struct itest_proc p;

	itest_run_fspv(&p, "record", ITEST_TIMEOUT_S, argv);
	itest_assert_exit(&p, 0);
	free(p.err);
	return p.out;
}

/* fsp-bpf ARGS... (NULL-terminated) to completion, exit 0; returns stdout. */
static char *run_ok(const char *tag, ...)
{
	char *argv[32] = {NULL};
	struct itest_proc p;
	va_list ap;
	int n = 1;

	va_start(ap, tag);
	for (char *a; n < 31 && (a = va_arg(ap, char *));)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	itest_run_fspv(&p, tag, ITEST_TIMEOUT_S, argv);
	itest_assert_exit(&p, 0);
	free(p.err);
	return p.out;
}

static void test_record_report(void **state)
{
	const char *json = itest_tmp("prof.json"), *again = itest_tmp("again.json");
	char *live, *saved, *a, *b;

	(void)state;
	live = record(json, "wl_mix", itest_tmp("truth"), "600");
	saved = run_ok("report", "report", "--min-pct", "0", json, NULL);
	if (strcmp(live, saved))
		fail_msg("report of the saved profile differs from the live report:\n--- live\n%s"
			 "--- saved\n%s",
			 live, saved);
	assert_non_null(strstr(live, "parse accounts for"));
	free(run_ok("rewrite", "report", "--format", "json", "-o", again, json, NULL));
	a = itest_slurp(json);
	b = itest_slurp(again);
	assert_non_null(a);
	assert_non_null(b);
	if (strcmp(a, b))
		fail_msg("%s read and written again differs from the original", json);
	free(a);
	free(b);
	free(live);
	free(saved);
}

/* flamegraph.pl reads a line as /^(.*)\s+?(\d+(?:\.\d*)?)$/ and splits the
 * stack on ';'; speedscope splits at the last space. Frames written by
 * fsp-bpf itself ("(no feature)", "name (PID)") may hold spaces; labels are
 * percent-encoded. No empty frame, no control byte. */
static void check_folded(char *text, json_object *prof, bool prefixed)
{
	uint64_t sum_parse = 0, sum_output = 0, lines = 0;

	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *sp = strrchr(line, ' '), *end, *f;
		unsigned long long count;

		lines++;
		if (!sp || sp[1] < '0' || sp[1] > '9')
			fail_msg("folded line without a count: '%s'", line);
		count = strtoull(sp + 1, &end, 10);
		if (*end)
			fail_msg("folded line with a bad count: '%s'", line);
		*sp = 0;
		for (char *c = line; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				fail_msg("folded stack with a control byte: '%s'", line);
		if (!*line || line[0] == ';' || strstr(line, ";;") || line[strlen(line) - 1] == ';')
			fail_msg("folded stack with an empty frame: '%s'", line);
		f = line;
		for (int skip = prefixed ? 2 : 0; skip > 0 && f; skip--) {
			f = strchr(f, ';');
			f = f ? f + 1 : NULL;
		}
		if (!f)
			continue; /* "(no feature)" under a thread */
		if (!strncmp(f, "parse;", 6))
			sum_parse += count;
		if (!strncmp(f, "output;", 7))
			sum_output += count;
	}
	assert_true(lines >= 4);
	assert_int_equal(sum_parse, itest_feature_samples(prof, "parse"));
	assert_int_equal(sum_output, itest_feature_samples(prof, "output"));
}

static void test_folded(void **state)
{
	const char *json = itest_tmp("prof.json");
	json_object *prof;
	char *out;

	(void)state;
	free(record(json, "wl_mix", itest_tmp("truth"), "600"));
	prof = itest_json_load(json);
	out = run_ok("folded", "report", "--format", "folded", json, NULL);
	check_folded(out, prof, false);
	free(out);
	out = run_ok("folded-thread", "report", "--format", "folded", "--by", "thread", json, NULL);
	assert_non_null(strstr(out, "wl_mix ("));
	check_folded(out, prof, true);
	free(out);
	json_object_put(prof);
}

/* A row of go tool pprof -top ("flat flat% sum% cum cum% name"): the flat or
 * cum value, in samples (-sample_index=samples), -1 if there is no such row. */
static long long pprof_value(const char *top, const char *name, bool cum)
{
	for (const char *s = top; s && *s;) {
		const char *nl = strchrnul(s, '\n');
		char row[1024], rname[1024];
		long long flat, cumv;
		double f1, f2, f3;

		snprintf(row, sizeof(row), "%.*s", (int)(nl - s), s);
		s = *nl ? nl + 1 : NULL;
		if (sscanf(row, " %lld %lf%% %lf%% %lld %lf%% %1023[^\n]", &flat, &f1, &f2, &cumv,
			   &f3, rname) == 6 &&
		    !strcmp(rname, name))
			return cum ? cumv : flat;
	}
	return -1;
}

static void test_pprof(void **state)
{
	const char *json = itest_tmp("prof.json"), *pb = itest_tmp("prof.pb.gz");
	const char *home = itest_tmp("home");
	char cmd[8192], *top;
	json_object *prof;
	int rc;

	(void)state;
	if (system("command -v go >/dev/null 2>&1")) {
		fprintf(stderr, "SKIP: go is not installed, go tool pprof cannot check the pprof "
				"output (scripts/install-deps.sh installs golang-go)\n");
		skip();
	}
	free(record(json, "wl_mix", itest_tmp("truth"), "600"));
	prof = itest_json_load(json);
	free(run_ok("pprof", "report", "--format", "pprof", "-o", pb, json, NULL));
	mkdir(home, 0755);
	snprintf(cmd, sizeof(cmd),
		 "HOME=%s GOCACHE=%s/cache go tool pprof -top -nodecount=100000 "
		 "-sample_index=samples %s > %s 2>%s",
		 home, home, pb, itest_tmp("top.txt"), itest_tmp("top.err"));
	rc = system(cmd);
	top = itest_slurp(itest_tmp("top.txt"));
	assert_non_null(top);
	if (rc)
		fail_msg("go tool pprof failed (%d):\n%s", rc, top);
	printf("%s", top);
	assert_int_equal(pprof_value(top, "parse", true), itest_feature_samples(prof, "parse"));
	assert_int_equal(pprof_value(top, "output", true), itest_feature_samples(prof, "output"));
	assert_int_equal(pprof_value(top, "contract", true),
			 itest_feature_samples(prof, "contract"));
	assert_int_equal(pprof_value(top, "parse: tokenizer", false),
			 itest_instance_samples(prof, "parse", "tokenizer"));
	assert_int_equal(pprof_value(top, "output: callback-print", false),
			 itest_instance_samples(prof, "output", "callback-print"));
	free(top);
	json_object_put(prof);
}

static void test_views(void **state)
{
	const char *json = itest_tmp("prof.json");
	char *out, *d, *e, *v;

	(void)state;
	free(record(json, "wl_threads", itest_tmp("truth"), "600"));
	out = run_ok("by-thread", "report", "--by", "thread", "--min-pct", "0", json, NULL);
	assert_non_null(strstr(out, "wl-alpha"));
	assert_non_null(strstr(out, "wl-beta"));
	assert_non_null(strstr(out, "wl-gamma"));
	free(out);
	out = run_ok("by-process", "report", "--by", "process", json, NULL);
	assert_non_null(strstr(out, "wl_threads"));
	free(out);
	out = run_ok("feature", "report", "--feature", "verify", "--min-pct", "0", json, NULL);
	assert_non_null(strstr(out, "verify accounts for"));
	assert_null(strstr(out, "encode accounts for"));
	free(out);
	out = run_ok("order", "report", "--order", "name", "--min-pct", "0", json, NULL);
	d = strstr(out, "decode accounts");
	e = strstr(out, "encode accounts");
	v = strstr(out, "verify accounts");
	assert_true(d && e && v && d < e && e < v);
	free(out);
}

static void test_merge(void **state)
{
	const char *a = itest_tmp("a.json"), *b = itest_tmp("b.json"), *m = itest_tmp("m.json");
	const char *features[] = {"parse", "contract", "output"};
	json_object *pa, *pb, *pm, *sources;
	char *out;
	int n = 0;

	(void)state;
	free(record(a, "wl_mix", itest_tmp("truth-a"), "400"));
	free(record(b, "wl_mix", itest_tmp("truth-b"), "400"));
	free(run_ok("merge", "merge", "-o", m, a, b, NULL));
	pa = itest_json_load(a);
	pb = itest_json_load(b);
	pm = itest_json_load(m);
	assert_int_equal(itest_total_samples(pm),
			 itest_total_samples(pa) + itest_total_samples(pb));
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(itest_feature_samples(pm, features[i]),
				 itest_feature_samples(pa, features[i]) +
					 itest_feature_samples(pb, features[i]));
	assert_true(json_object_object_get_ex(pm, "sources", &sources));
	assert_int_equal(json_object_array_length(sources), 2);
	out = run_ok("merged", "report", "--by", "process", m, NULL);
	for (char *s = out; (s = strstr(s, "(wl_mix)")); s++)
		n++;
	assert_int_equal(n, 2); /* one process per run */
	free(out);
	json_object_put(pa);
	json_object_put(pb);
	json_object_put(pm);
}

static json_object *diff_row(json_object *diff, const char *name, size_t *rank)
{
	json_object *features = json_object_object_get(diff, "features");

	for (size_t i = 0; i < json_object_array_length(features); i++) {
		json_object *row = json_object_array_get_idx(features, i);

		if (!strcmp(json_object_get_string(json_object_object_get(row, "name")), name)) {
			*rank = i;
			return row;
		}
	}
	fail_msg("no row %s in the diff", name);
	return NULL;
}

/*
 * wl_scale N and 2N, N = 80: setup is constant (200 ms), scan linear (4 ms per
 * item), sort quadratic (20 us per item pair: 128 ms, then 512 ms). diff --scale 2 predicts 2 x BASE for
 * every feature; the truth of each deviation is new - 2 base from the
 * workloads' own CPU clocks. Tolerance: each time is a count of samples times
 * T, with sd <= T sqrt(n) (Binomial, itest.c), so the deviation's sd <=
 * T sqrt(n_new + 4 n_base); 4 sd, plus the phase-boundary ambiguity of both
 * runs (ambig_new + 2 ambig_base, each counted half in the truth), plus one
 * sample per run.
 */
static void test_diff_scale(void **state)
{
	const char *base = itest_tmp("n.json"), *new_p = itest_tmp("2n.json");
	const char *features[] = {"sort", "setup", "scan"};
	struct itest_truth *tb, *tn;
	json_object *diff, *pb, *pn;
	double period_ms;
	char *out;
	bool ok = true;

	(void)state;
	free(record(base, "wl_scale", itest_tmp("truth-n"), "80"));
	free(record(new_p, "wl_scale", itest_tmp("truth-2n"), "160"));
	tb = itest_truth_load(itest_tmp("truth-n"));
	tn = itest_truth_load(itest_tmp("truth-2n"));
	pb = itest_json_load(base);
	pn = itest_json_load(new_p);
	out = run_ok("diff", "diff", "--scale", "2", "--format", "json", "-o", itest_tmp("d.json"),
		     base, new_p, NULL);
	free(out);
	diff = itest_json_load(itest_tmp("d.json"));
	period_ms = itest_json_u64(pb, "period_ns") / 1e6;
	for (size_t i = 0; i < 3; i++) {
		const char *f = features[i];
		double truth = (itest_truth_u64(tn, "feature.%s.ns", f) -
				2.0 * itest_truth_u64(tb, "feature.%s.ns", f)) /
			       1e6;
		double ambig = (itest_truth_u64(tn, "feature.%s.ambig_ns", f) +
				2.0 * itest_truth_u64(tb, "feature.%s.ambig_ns", f)) /
			       2e6;
		uint64_t nb = itest_feature_samples(pb, f), nn = itest_feature_samples(pn, f);
		double tol = 4 * period_ms * sqrt((double)nn + 4.0 * nb) + ambig + 3 * period_ms;
		size_t rank;
		json_object *row = diff_row(diff, f, &rank);
		double dev = json_object_get_double(json_object_object_get(row, "deviation_ms"));
		bool good = fabs(dev - truth) <= tol;

		printf("  %-6s deviation from linear: fsp-bpf %+8.1f ms  truth %+8.1f ms  |diff| "
		       "%5.1f  tol %5.1f  rank %zu  %s\n",
		       f, dev, truth, fabs(dev - truth), tol, rank, good ? "ok" : "FAIL");
		ok &= good;
		/* sort grows the most beyond linear, setup falls the most short */
		if (!strcmp(f, "sort"))
			assert_int_equal(rank, 0);
	}
	ITEST_ASSERT_OK(ok);
	/* The text form names the scale and the prediction. */
	out = run_ok("diff-text", "diff", "--scale", "2", base, new_p, NULL);
	assert_non_null(strstr(out, "predicted"));
	free(out);
	json_object_put(diff);
	json_object_put(pb);
	json_object_put(pn);
	itest_truth_free(tb);
	itest_truth_free(tn);
}

static void write_file(const char *path, const char *content, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(content, 1, len, f), len);
	fclose(f);
}

static void test_bad_files(void **state)
{
	const struct {
		const char *name, *content, *needle;
	} cases[] = {
		{"empty.json", "", "empty"},
		{"notjson.json", "hello world\n", "json"},
		{"version.json", "{\"version\": 99, \"tool\": \"fsp-bpf\"}", "version"},
		{"other.json", "{\"version\": 2, \"tool\": \"perf\"}", "fsp-bpf"},
	};
	const char *json = itest_tmp("prof.json");
	struct itest_proc p;
	char *full;

	(void)state;
	itest_run_fsp(&p, "missing", ITEST_TIMEOUT_S, "report", itest_tmp("nope.json"), NULL);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "nope.json", "no such file", NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *path = itest_tmp("%s", cases[i].name);

		write_file(path, cases[i].content, strlen(cases[i].content));
		itest_run_fsp(&p, cases[i].name, ITEST_TIMEOUT_S, "report", path, NULL);
		itest_assert_failed_cleanly(&p);
		itest_assert_one_error_line(&p, cases[i].name, cases[i].needle, NULL);
	}
	/* A real profile cut in half. */
	free(record(json, "wl_mix", itest_tmp("truth"), "300"));
	full = itest_slurp(json);
	assert_non_null(full);
	write_file(itest_tmp("cut.json"), full, strlen(full) / 2);
	itest_run_fsp(&p, "cut", ITEST_TIMEOUT_S, "report", itest_tmp("cut.json"), NULL);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "cut.json", NULL);
	/* merge names the bad input */
	itest_run_fsp(&p, "merge-bad", ITEST_TIMEOUT_S, "merge", "-o", itest_tmp("m.json"), json,
		      itest_tmp("cut.json"), NULL);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "cut.json", NULL);
	assert_int_equal(access(itest_tmp("m.json"), F_OK), -1);
	free(full);
}

/* A full tmpfs: the write fails (no space), the old file survives intact and
 * no temporary is left behind. */
static void test_atomic_write(void **state)
{
	const char *json = itest_tmp("prof.json"), *dir = itest_tmp("small");
	const char *previous = "{\"previous\": true}\n";
	char out[4200], cmd[4400], *after;
	struct itest_proc p;
	int leftover;

	(void)state;
	free(record(json, "wl_threads", itest_tmp("truth"), "300"));
	assert_int_equal(mkdir(dir, 0755), 0);
	if (mount("fsp-itest", dir, "tmpfs", 0, "size=8k")) {
		fprintf(stderr,
			"SKIP: cannot mount a tmpfs (%m): the atomic write is not tested\n");
		skip();
	}
	snprintf(out, sizeof(out), "%s/out.json", dir);
	write_file(out, previous, strlen(previous));
	snprintf(cmd, sizeof(cmd), "dd if=/dev/zero of=%s/filler bs=4k 2>/dev/null", dir);
	assert_int_not_equal(system(cmd), 0); /* dd stops at ENOSPC */
	itest_run_fsp(&p, "full", ITEST_TIMEOUT_S, "report", "--format", "json", "-o", out, json,
		      NULL);
	after = itest_slurp(out);
	snprintf(cmd, sizeof(cmd), "ls -A %s | grep -v '^filler$' | grep -qv '^out.json$'", dir);
	leftover = !system(cmd);
	umount(dir);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "out.json", "space", NULL);
	assert_non_null(after);
	assert_string_equal(after, previous);
	assert_false(leftover);
	free(after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_record_report), ITEST(test_folded),	     ITEST(test_pprof),
		ITEST(test_views),	   ITEST(test_merge),	     ITEST(test_diff_scale),
		ITEST(test_bad_files),	   ITEST(test_atomic_write),
	};

	return ITEST_MAIN("files", tests);
}
