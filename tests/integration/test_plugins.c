// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The analysis plug-ins against ground truth the workloads measure
 * themselves, each driving one of the example libraries:
 *
 *   boundary    wl_contract (examples/libcontract): CPU time of the checks on
 *               each boundary and of each check; the graph renders with dot
 *   tasks       wl_tasks (examples/libtasks): each task's self and inclusive
 *               CPU time, each kind's (a recursive kind counted once)
 *   backtrack   wl_peg (examples/libpeg): per choice and branch, the time in
 *               the branch and the time in attempts later abandoned
 *
 * Figures must be within max(2 pp, 4 sigma + delta + 1/n) of the truth
 * (itest.c derives 4 sigma + delta + 1/n; delta here is the workload's
 * ambiguous time, library overhead and probes, over its CPU time, plus the
 * exit's). Where a broken plug-in would report something else (an ignored
 * antimark, a recursive kind counted at every depth, visits that ignore
 * the input offset), the test checks that it would be told apart.
 *
 * Also: plug-ins on a live session (record) and on saved and merged
 * profiles (report), a plug-in shared object (examples/libpayloads.so),
 * and bad input: an unknown plug-in, a shared object that is not a plug-in
 * or of another ABI version, a profile without the plug-in's feature; a
 * plug-in whose analysis never returns (libwl_loopplugin.so), which SIGTERM
 * and a second Ctrl-C still end once the profile is saved (they were
 * blocked for the session's loop: fsp-bpf could only be killed).
 */
#include <math.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

#define EX_USAGE 64
#define MIN_TOL 0.02 /* 2 percentage points */

/* fsp-bpf -F ITEST_HZ -o JSON [--plugin P] -- WORKLOAD TRUTH MS (exit 0);
 * the text report on stdout into *text when not NULL. */
static void launch(const char *workload, const char *json, const char *truth, const char *ms,
		   const char *plugin, char **text)
{
	/* --events: the plug-ins count calls from the event view (ABI v2 marks
	 * trap only then) */
	char *argv[16] = {NULL, "-F", ITEST_HZ, "-o", (char *)json, "--min-pct", "0", "--events"};
	struct itest_proc p;
	int argc = 8;

	if (plugin) {
		argv[argc++] = "--plugin";
		argv[argc++] = (char *)plugin;
	}
	argv[argc++] = "--";
	argv[argc++] = (char *)itest_workload(workload);
	argv[argc++] = (char *)truth;
	argv[argc++] = (char *)ms;
	argv[argc] = NULL;
	itest_run_fspv(&p, "fsp", ITEST_TIMEOUT_S, argv);
	itest_assert_exit(&p, 0);
	if (text)
		*text = p.out;
	else
		free(p.out);
	free(p.err);
}

/* fsp-bpf ARGS... (NULL-terminated: a subcommand and its options), expecting
 * exit 0. */
static void fsp(const char *tag, ...) __attribute__((sentinel));
static void fsp(const char *tag, ...)
{
	char *argv[24] = {NULL};
	struct itest_proc p;
	int argc = 1;
	va_list ap;

	va_start(ap, tag);
	for (const char *a; (a = va_arg(ap, const char *)) && argc < 23;)
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	itest_run_fspv(&p, tag, ITEST_TIMEOUT_S, argv);
	itest_assert_exit(&p, 0);
	free(p.out);
	free(p.err);
}

/* The "result" of plug-in `name` in a JSON profile (owned by prof). */
static json_object *plugin_result(json_object *prof, const char *name)
{
	json_object *plugins, *rec, *v;

	if (!json_object_object_get_ex(prof, "plugins", &plugins))
		fail_msg("the JSON profile has no \"plugins\"");
	for (size_t i = 0; i < json_object_array_length(plugins); i++) {
		rec = json_object_array_get_idx(plugins, i);
		if (json_object_object_get_ex(rec, "name", &v) &&
		    !strcmp(json_object_get_string(v), name) &&
		    json_object_object_get_ex(rec, "result", &v))
			return v;
	}
	fail_msg("no plug-in %s in the JSON profile", name);
	return NULL;
}

static json_object *member(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no member \"%s\" in %s", key, json_object_to_json_string(o));
	return v;
}

static const char *str_member(json_object *o, const char *key)
{
	const char *s = json_object_get_string(member(o, key));

	return s ? s : "";
}

/* The element of array a whose string members k1, k2 are v1, v2. */
static json_object *find2(json_object *a, const char *k1, const char *v1, const char *k2,
			  const char *v2)
{
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i);

		if (!strcmp(str_member(e, k1), v1) && (!k2 || !strcmp(str_member(e, k2), v2)))
			return e;
	}
	fail_msg("no element %s=%s %s=%s", k1, v1, k2 ? k2 : "", k2 ? v2 : "");
	return NULL;
}

/*
 * Is k/n within max(2 pp, 4 sigma + delta + 1/n) of truth share p?
 * Prints the comparison either way.
 */
static bool close_to(const char *what, uint64_t k, uint64_t n, double p, double delta)
{
	double ph = n ? (double)k / (double)n : 0;
	double tol = fmax(MIN_TOL, itest_tolerance(p, n, delta));
	bool ok = n && fabs(ph - p) <= tol + ITEST_EPS;

	print_message("  %-30s plug-in %6.2f%% (%llu/%llu)  truth %6.2f%%  |diff| %5.2f%%  tol "
		      "%5.2f%% (max of 2%%, 4sigma + delta %.2f%% + 1/n)  %s\n",
		      what, 100 * ph, (unsigned long long)k, (unsigned long long)n, 100 * p,
		      100 * fabs(ph - p), 100 * tol, 100 * delta, ok ? "ok" : "FAIL");
	return ok;
}

/* The opposite: is k/n told apart from what a broken plug-in would give? */
static bool far_from(const char *what, uint64_t k, uint64_t n, double p_wrong, double delta)
{
	double ph = n ? (double)k / (double)n : 0;
	double tol = fmax(MIN_TOL, itest_tolerance(p_wrong, n, delta));
	bool ok = n && fabs(ph - p_wrong) > tol;

	print_message("  %-30s plug-in %6.2f%% vs broken plug-in %6.2f%%: |diff| %5.2f%% %s tol "
		      "%5.2f%%  %s\n",
		      what, 100 * ph, 100 * p_wrong, 100 * fabs(ph - p_wrong),
		      ok ? ">" : "<=", 100 * tol, ok ? "distinguishable" : "FAIL");
	return ok;
}

/* The plug-in's samples in member `key` of o. */
static uint64_t samples_of(json_object *o, const char *key)
{
	return json_object_get_uint64(member(o, key));
}

static void check_dot(const char *prof, const char *plugin)
{
	const char *dot = itest_tmp("%s.dot", plugin), *svg = itest_tmp("%s.svg", plugin);
	char *argv[] = {"/usr/bin/dot", "-Tsvg", (char *)dot, "-o", (char *)svg, NULL};
	struct itest_proc p;
	char *text;

	if (access(argv[0], X_OK))
		fail_msg("Graphviz's dot is missing: install graphviz (scripts/install-deps.sh)");
	fsp("dot", "report", "--plugin", plugin, "--format", "dot", "-o", dot, prof, NULL);
	itest_spawn(&p, "graphviz", argv);
	itest_wait(&p, ITEST_TIMEOUT_S);
	itest_assert_exit(&p, 0);
	if (p.err && *p.err)
		fail_msg("dot -Tsvg warned about the %s graph:\n%s", plugin, p.err);
	text = itest_slurp(svg);
	if (!text || !strstr(text, "<svg"))
		fail_msg("dot wrote no SVG for the %s graph", plugin);
	print_message("  %s graph: %s rendered by dot -Tsvg without a warning\n", plugin, svg);
	free(text);
	free(p.out);
	free(p.err);
}

/* ---- boundary ------------------------------------------------------------------ */

static bool boundary_checks(json_object *res, uint64_t n, const struct itest_truth *t, double C,
			    double dw)
{
	static const char *const edges[][3] = {
		{"app", "matrix", "edge.app.matrix"},
		{"matrix", "blas", "edge.matrix.blas"},
	};
	static const char *const checks[][4] = {
		{"app", "matrix", "finite", "check.app.matrix.finite"},
		{"app", "matrix", "mul", "check.app.matrix.mul"},
		{"matrix", "blas", "sorted", "check.matrix.blas.sorted"},
	};
	json_object *e, *c;
	char what[64];
	bool ok = true;

	for (size_t i = 0; i < 2; i++) {
		e = find2(member(res, "edges"), "client", edges[i][0], "server", edges[i][1]);
		snprintf(what, sizeof(what), "%s -> %s", edges[i][0], edges[i][1]);
		ok &= close_to(what, samples_of(e, "samples"), n,
			       itest_truth_u64(t, "%s.ns", edges[i][2]) / C,
			       itest_truth_u64(t, "%s.ambig_ns", edges[i][2]) / (2 * C) + dw);
	}
	for (size_t i = 0; i < 3; i++) {
		e = find2(member(res, "edges"), "client", checks[i][0], "server", checks[i][1]);
		c = find2(member(e, "checks"), "name", checks[i][2], NULL, NULL);
		snprintf(what, sizeof(what), "%s -> %s: %s", checks[i][0], checks[i][1],
			 checks[i][2]);
		ok &= close_to(what, samples_of(c, "samples"), n,
			       itest_truth_u64(t, "%s.ns", checks[i][3]) / C,
			       itest_truth_u64(t, "%s.ambig_ns", checks[i][3]) / (2 * C) + dw);
		/* the event view counts every call: one per cycle */
		assert_int_equal(samples_of(c, "calls"), itest_truth_u64(t, "cycles"));
	}
	/* the antimark around the server's work is what makes "mul" right */
	c = find2(
		member(find2(member(res, "edges"), "client", "app", "server", "matrix"), "checks"),
		"name", "mul", NULL, NULL);
	ok &= far_from("mul if the antimark were ignored", samples_of(c, "samples"), n,
		       itest_truth_u64(t, "mul_whole.ns") / C, dw);
	return ok;
}

static void test_boundary(void **state)
{
	const char *prof = itest_tmp("prof.json"), *truth = itest_tmp("truth");
	const char *out = itest_tmp("plugins.json"), *merged = itest_tmp("merged.json");
	struct itest_truth *t;
	json_object *j, *res, *j2, *res2;
	char *text;
	double C, dw;
	uint64_t n;
	bool ok;

	(void)state;
	launch("wl_contract", prof, truth, "2000", "boundary", &text);
	/* the live session's report has the plug-in's section */
	if (!strstr(text, "Plug-in boundary (feature contract)") ||
	    !strstr(text, "app -> matrix") || !strstr(text, "matrix -> blas"))
		fail_msg("the live report has no boundary section:\n%s", text);
	free(text);
	t = itest_truth_load(truth);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	assert_int_equal(itest_truth_u64(t, "violations"), 0);
	C = (double)itest_truth_u64(t, "cpu_total_ns");
	dw = ITEST_EXIT_NS / C;

	fsp("report", "report", "--plugin", "boundary", "--format", "json", "-o", out, prof, NULL);
	j = itest_json_load(out);
	n = itest_total_samples(j);
	assert_true(n >= 1000);
	res = plugin_result(j, "boundary");
	ok = boundary_checks(res, n, t, C, dw);
	ITEST_ASSERT_OK(ok);

	/* a merged profile of two copies: twice the samples and calls of each */
	fsp("merge", "merge", "-o", merged, prof, prof, NULL);
	fsp("report-merged", "report", "--plugin", "boundary", "--format", "json", "-o", out,
	    merged, NULL);
	j2 = itest_json_load(out);
	assert_int_equal(itest_total_samples(j2), 2 * n);
	res2 = plugin_result(j2, "boundary");
	assert_int_equal(samples_of(res2, "samples"), 2 * samples_of(res, "samples"));
	for (size_t i = 0; i < json_object_array_length(member(res, "edges")); i++) {
		json_object *e = json_object_array_get_idx(member(res, "edges"), i);
		json_object *e2 = find2(member(res2, "edges"), "client", str_member(e, "client"),
					"server", str_member(e, "server"));

		assert_int_equal(samples_of(e2, "samples"), 2 * samples_of(e, "samples"));
		assert_int_equal(samples_of(e2, "calls"), 2 * samples_of(e, "calls"));
	}
	print_message("  merged with itself: every boundary has twice the samples and calls\n");
	json_object_put(j2);
	json_object_put(j);
	check_dot(prof, "boundary");
	itest_truth_free(t);
}

/* ---- tasks ------------------------------------------------------------------------ */

static json_object *task_of(json_object *res, uint64_t id)
{
	json_object *tasks = member(res, "tasks");

	for (size_t i = 0; i < json_object_array_length(tasks); i++) {
		json_object *e = json_object_array_get_idx(tasks, i);

		if (samples_of(e, "id") == id)
			return e;
	}
	fail_msg("no task %llu", (unsigned long long)id);
	return NULL;
}

/* The HTML page of prof with plug-in name carries its text section (the
 * page's data holds it as a JSON string: text, never markup). */
static void check_html(const char *prof, const char *name, const char *text)
{
	const char *page = itest_tmp("%s.html", name);
	char *html;

	fsp("html", "report", "--plugin", name, "--format", "html", "-o", page, prof, NULL);
	html = itest_slurp(page);
	assert_non_null(html);
	assert_non_null(strstr(html, "Plug-in sections"));
	assert_non_null(strstr(html, text));
	free(html);
}

static void test_tasks(void **state)
{
	const char *prof = itest_tmp("prof.json"), *truth = itest_tmp("truth");
	const char *out = itest_tmp("plugins.json");
	struct itest_truth *t;
	json_object *j, *res, *k;
	double C, d;
	uint64_t n, nr;
	char what[64];
	bool ok = true;

	(void)state;
	launch("wl_tasks", prof, truth, "1530", NULL, NULL);
	t = itest_truth_load(truth);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	C = (double)itest_truth_u64(t, "cpu_total_ns");
	/* the runtime's own time inside the marks may land on any task */
	d = (double)itest_truth_u64(t, "overhead_ns") / C + ITEST_EXIT_NS / C;
	fsp("report", "report", "--plugin", "tasks", "--format", "json", "-o", out, prof, NULL);
	j = itest_json_load(out);
	n = itest_total_samples(j);
	assert_true(n >= 1000);
	res = plugin_result(j, "tasks");
	nr = itest_truth_u64(t, "tasks");
	assert_int_equal(json_object_array_length(member(res, "tasks")), nr);
	for (uint64_t i = 0; i < nr; i++) {
		json_object *e =
			task_of(res, itest_truth_u64(t, "task.%llu.id", (unsigned long long)i));
		const char *kind = itest_truth_str(t, "task.%llu.kind", (unsigned long long)i);

		assert_string_equal(str_member(e, "label"), kind);
		snprintf(what, sizeof(what), "%s#%llu self", kind,
			 (unsigned long long)samples_of(e, "id"));
		ok &= close_to(what, samples_of(e, "self_samples"), n,
			       itest_truth_u64(t, "task.%llu.self_ns", (unsigned long long)i) / C,
			       d);
		snprintf(what, sizeof(what), "%s#%llu inclusive", kind,
			 (unsigned long long)samples_of(e, "id"));
		ok &= close_to(what, samples_of(e, "samples"), n,
			       itest_truth_u64(t, "task.%llu.total_ns", (unsigned long long)i) / C,
			       d);
	}
	for (const char *const *kind =
		     (const char *const[]){"server", "conn", "request", "split", NULL};
	     *kind; kind++) {
		k = find2(member(res, "kinds"), "label", *kind, NULL, NULL);
		assert_int_equal(samples_of(k, "tasks"),
				 itest_truth_u64(t, "kind.%s.tasks", *kind));
		snprintf(what, sizeof(what), "kind %s inclusive", *kind);
		ok &= close_to(what, samples_of(k, "samples"), n,
			       itest_truth_u64(t, "kind.%s.total_ns", *kind) / C, d);
		snprintf(what, sizeof(what), "kind %s self", *kind);
		ok &= close_to(what, samples_of(k, "self_samples"), n,
			       itest_truth_u64(t, "kind.%s.self_ns", *kind) / C, d);
	}
	/* a recursive kind counted at every depth would be far off */
	k = find2(member(res, "kinds"), "label", "split", NULL, NULL);
	ok &= far_from("split counted at every depth", samples_of(k, "samples"), n,
		       itest_truth_u64(t, "split_summed_ns") / C, d);
	json_object_put(j);
	ITEST_ASSERT_OK(ok);
	check_dot(prof, "tasks");
	check_html(prof, "tasks", "Tasks take ");
	itest_truth_free(t);
}

/* A plug-in shared object on the same profile: its per-(instance, payload)
 * samples are the tasks' self samples. */
static void test_shared_object(void **state)
{
	const char *prof = itest_tmp("prof.json"), *truth = itest_tmp("truth");
	const char *out = itest_tmp("plugins.json");
	char so[4096], spec[4200];
	json_object *j, *rows, *tasks;

	(void)state;
	snprintf(so, sizeof(so), "%s/examples/libpayloads.so", getenv("FSP_OUT"));
	snprintf(spec, sizeof(spec), "%s=task", so);
	launch("wl_tasks", prof, truth, "600", NULL, NULL);
	fsp("report", "report", "--plugin", spec, "--plugin", "tasks", "--format", "json", "-o",
	    out, prof, NULL);
	j = itest_json_load(out);
	rows = plugin_result(j, "payloads");
	tasks = plugin_result(j, "tasks");
	assert_int_equal(json_object_array_length(rows),
			 json_object_array_length(member(tasks, "tasks")));
	for (size_t i = 0; i < json_object_array_length(rows); i++) {
		json_object *r = json_object_array_get_idx(rows, i);
		json_object *task = task_of(tasks, samples_of(r, "payload"));

		assert_string_equal(str_member(r, "instance"), str_member(task, "label"));
		assert_int_equal(samples_of(r, "samples"), samples_of(task, "self_samples"));
	}
	print_message("  libpayloads.so: %zu (instance, payload) rows, each the self samples of "
		      "its task\n",
		      json_object_array_length(rows));
	json_object_put(j);
}

/* ---- backtrack ------------------------------------------------------------------------ */

static void test_backtrack(void **state)
{
	const char *prof = itest_tmp("prof.json"), *truth = itest_tmp("truth");
	const char *out = itest_tmp("plugins.json");
	struct itest_truth *t;
	json_object *j, *res;
	double C, d;
	uint64_t n;
	char what[64];
	bool ok = true;

	(void)state;
	launch("wl_peg", prof, truth, "2000", NULL, NULL);
	t = itest_truth_load(truth);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	C = (double)itest_truth_u64(t, "cpu_total_ns");
	d = (double)itest_truth_u64(t, "overhead_ns") / C + ITEST_EXIT_NS / C;
	fsp("report", "report", "--plugin", "backtrack", "--format", "json", "-o", out, prof, NULL);
	j = itest_json_load(out);
	n = itest_total_samples(j);
	assert_true(n >= 1000);
	res = plugin_result(j, "backtrack");
	for (const char *const *site = (const char *const[]){"list", "item", NULL}; *site; site++) {
		for (int b = 0; b < 2; b++) {
			json_object *e = NULL, *all = member(res, "branches");

			for (size_t i = 0; i < json_object_array_length(all) && !e; i++) {
				json_object *x = json_object_array_get_idx(all, i);

				if (!strcmp(str_member(x, "choice"), *site) &&
				    samples_of(x, "branch") == (uint64_t)b)
					e = x;
			}
			if (!e)
				fail_msg("no branch %s/%d", *site, b);
			snprintf(what, sizeof(what), "%s branch %d", *site, b);
			ok &= close_to(what, samples_of(e, "samples"), n,
				       itest_truth_u64(t, "branch.%s.%d.ns", *site, b) / C, d);
			snprintf(what, sizeof(what), "%s branch %d abandoned", *site, b);
			ok &= close_to(
				what, samples_of(e, "abandoned_samples"), n,
				itest_truth_u64(t, "branch.%s.%d.abandoned_ns", *site, b) / C, d);
			/* visits told apart by offset: else all of list 0 is abandoned */
			if (!strcmp(*site, "list") && !b)
				ok &= far_from("list 0 if offsets were ignored",
					       samples_of(e, "abandoned_samples"), n,
					       itest_truth_u64(t, "visit_blind_ns") / C, d);
		}
	}
	json_object_put(j);
	ITEST_ASSERT_OK(ok);
	itest_truth_free(t);
}

/* ---- bad input ------------------------------------------------------------------------- */

/*
 * Exactly one line of stderr starts with "fsp-bpf" (fsp-bpf: or, for a
 * usage error, fsp-bpf report:) and contains every needle; any other line
 * is argp's pointer to --help.
 */
static void assert_one_line(const struct itest_proc *p, const char *n1, const char *n2)
{
	const char *err = p->err ? p->err : "", *line = NULL;
	int count = 0;

	for (const char *s = err; *s;) {
		const char *nl = strchrnul(s, '\n');

		if (!strncmp(s, "fsp-bpf", 7) && !count++)
			line = s;
		else if (strncmp(s, "Try `", 5))
			fail_msg("an unexpected line on stderr:\n%s", err);
		s = *nl ? nl + 1 : nl;
	}
	if (count != 1)
		fail_msg("expected one error line, found %d:\n%s", count, err);
	if (!strstr(line, n1) || (n2 && !strstr(line, n2)))
		fail_msg("the error line does not mention \"%s\"%s%s: %s", n1, n2 ? " and " : "",
			 n2 ? n2 : "", err);
	print_message("  error line: %.*s\n", (int)(strchrnul(line, '\n') - line), line);
}

static void bad_report(const char *plugin, const char *prof, int status, const char *n1,
		       const char *n2)
{
	struct itest_proc p;

	itest_run_fsp(&p, "bad", ITEST_TIMEOUT_S, "report", "--plugin", plugin, prof, NULL);
	if (status)
		itest_assert_exit(&p, status);
	else
		itest_assert_failed_cleanly(&p);
	assert_one_line(&p, n1, n2);
	free(p.out);
	free(p.err);
}

static void test_bad_input(void **state)
{
	const char *prof = itest_tmp("prof.json"), *truth = itest_tmp("truth");
	char lib[4096], bad[4096];
	struct itest_proc p;

	(void)state;
	snprintf(lib, sizeof(lib), "%s/examples/libtasks.so", getenv("FSP_OUT"));
	snprintf(bad, sizeof(bad), "%s/workloads/libwl_badplugin.so", getenv("FSP_OUT"));
	launch("wl_peg", prof, truth, "300", NULL, NULL);
	bad_report("nosuch", prof, EX_USAGE, "unknown plug-in 'nosuch'", "list --plugins");
	bad_report(lib, prof, EX_USAGE, "is not an fsp-bpf plug-in", "fsp_plugin_entry");
	bad_report(bad, prof, EX_USAGE, "ABI version 2", "loads version 1");
	bad_report("./no/such/libx.so", prof, EX_USAGE, "cannot load plug-in ./no/such/libx.so",
		   NULL);
	/* a profile of the parser has no "task" frames */
	bad_report("tasks", prof, 0, "plug-in tasks: the profile has no samples of feature 'task'",
		   "--plugin tasks=FEATURE");
	/* the same, live: the report is shown, then the error */
	itest_run_fsp(&p, "live", ITEST_TIMEOUT_S, "--plugin", "boundary", "--",
		      itest_workload("wl_peg"), itest_tmp("truth2"), "200", NULL);
	itest_assert_failed_cleanly(&p);
	assert_one_line(&p, "plug-in boundary: the profile has no samples of feature 'contract'",
			NULL);
	if (!strstr(p.out, "choice accounts for"))
		fail_msg("the live report is missing:\n%s", p.out);
	free(p.out);
	free(p.err);
	/* the plug-ins are listed */
	itest_run_fsp(&p, "list", ITEST_TIMEOUT_S, "list", "--plugins", NULL);
	itest_assert_exit(&p, 0);
	assert_non_null(strstr(p.out, "backtrack"));
	assert_non_null(strstr(p.out, "boundary"));
	assert_non_null(strstr(p.out, "tasks"));
	free(p.out);
	free(p.err);
}

/* record with the looping plug-in, its profile saved: sig, then again if
 * twice, and it exits with 128 + sig. */
static void looping_case(int sig, bool twice)
{
	const char *json = itest_tmp("loop.%d.json", sig);
	char plugin[4096];
	char *argv[] = {(char *)itest_fsp_bpf(),
			"-F",
			ITEST_HZ,
			"-o",
			(char *)json,
			"--plugin",
			plugin,
			"--",
			(char *)itest_workload("wl_short"),
			(char *)itest_tmp("truth.%d", sig),
			NULL};
	struct itest_proc p;
	json_object *prof;

	snprintf(plugin, sizeof(plugin), "%s/workloads/libwl_loopplugin.so=short_feature",
		 getenv("FSP_OUT"));
	itest_spawn(&p, "loop", argv);
	/* Saved (renamed into place) before the report and its plug-ins. */
	if (!itest_wait_file(json, ITEST_TIMEOUT_S))
		fail_msg("no profile saved within %.0f s", ITEST_TIMEOUT_S);
	itest_signal(&p, sig);
	if (twice) {
		if (!itest_wait_text(p.err_path, "the report is being made", 10))
			fail_msg("no word after the first signal %d", sig);
		itest_signal(&p, sig);
	}
	itest_wait(&p, 10);
	if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 128 + sig)
		fail_msg("fsp-bpf ended with status 0x%x, not exit %d", p.status, 128 + sig);
	prof = itest_json_load(json);
	assert_true(itest_total_samples(prof) > 0);
	json_object_put(prof);
	free(p.out);
	free(p.err);
}

static void test_looping_plugin(void **state)
{
	(void)state;
	looping_case(SIGTERM, false);
	looping_case(SIGINT, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_boundary),  ITEST(test_tasks),     ITEST(test_shared_object),
		ITEST(test_backtrack), ITEST(test_bad_input), ITEST(test_looping_plugin),
	};

	return ITEST_MAIN("test_plugins", tests);
}
