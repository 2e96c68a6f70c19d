// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The HTML report in a real browser: Debian's chromium, headless, driven by
 * tests/integration/html_browser.mjs (playwright-core, from the npm ci of
 * analysis/render/html). Screenshots are kept in
 * $FSP_OUT/test-artifacts/html/TEST/.
 *
 *   html_profile   a real recording (examples/demo_mt, --off-cpu): the table
 *                  equals the text report, sorting, the source view of a
 *                  FILE:LINE instance, the histogram, a thread filter, the
 *                  flame graph's zoom and search; record --format html -o
 *   html_diff      two runs of examples/demo, diff --scale 2: the table
 *                  equals the text table, sorting, a source line colored
 *   html_hostile   a profile whose labels, target and source are markup:
 *                  shown as text, nothing of theirs runs
 *   html_extend    plug-in sections and native frames put into a page's data
 *                  render (the extension points of docs/output-formats.md)
 *   html_native    a profile with native stacks (made with the analysis API,
 *                  saved and reported by fsp-bpf): the Native functions tab
 *                  equals the text report, the flame graph has the frames
 *   html_1m        1,000,000 samples over 100,000 stacks (bench/gen_profile):
 *                  a file under 20 MB, drawn in under 3 s
 *   html_calls     tests/workloads/wl_requests recorded with
 *                  --calls=request>=6ms --off-cpu --stacks (record --format
 *                  html: the live page has its calls and opens at the
 *                  selection): the page of the saved profile opened at
 *                  #calls=request>=6ms, a drag, a click, keys and a typed
 *                  selector on the histogram; the tables and the flame graph
 *                  equal report --calls's JSON of each selection
 *                  (html_browser.mjs calls), and the page's numbers of the
 *                  slow requests and of the others against the workload's
 *                  truth as test_calls checks report --calls: the shares of
 *                  parse, compute and rare within max(2 pp, 4 sigma), rare
 *                  none in the others, the lock wait's off-CPU time
 *   html_calls_keep  wl_requests recorded with --calls-keep 10 (bounded: the
 *                  slowest calls of each instance and a weighted sample of
 *                  the others): for request>=6ms and the p90 button, the
 *                  tables (selected and other calls), the flame graph, the
 *                  histogram's call counts and the Calls tab's lines equal
 *                  report --calls's (html_browser.mjs callskeep)
 *
 * Every browser run fails on a console error, an exception or a request.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "itest.h"
#include "native.h"
#include "profile.h"
#include "profile_io.h"

#define HTML_MAX_BYTES (20u << 20)
#define HTML_MAX_MS "3000"

static const char *out_dir(void)
{
	const char *out = getenv("FSP_OUT");

	return out ? out : ".output";
}

/* The source tree: FSP_OUT's parent. */
static const char *root_path(const char *rel)
{
	static char buf[4][4096];
	static int slot;
	char *b = buf[slot++ % 4];

	snprintf(b, sizeof(buf[0]), "%s/../%s", out_dir(), rel);
	return b;
}

/*
 * The examples' sources copied to the scratch directory: the page embeds only
 * files every user could read, on a path every user can walk, which the
 * checkout's may not be (a clone in /root, a 0700 home).
 */
static const char *public_sources(void)
{
	const char *dir = itest_tmp("src");
	char cmd[8192];

	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s' && cp '%s'/*.c '%s'/*.h '%s' && chmod 0644 '%s'/*", dir,
		 root_path("examples"), root_path("examples"), dir, dir);
	assert_int_equal(system(cmd), 0);
	return dir;
}

/* $FSP_OUT/test-artifacts/html/NAME, created. */
static const char *shots_dir(const char *name)
{
	static char buf[4096];
	char cmd[4200];

	snprintf(buf, sizeof(buf), "%s/test-artifacts/html/%s", out_dir(), name);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", buf);
	assert_int_equal(system(cmd), 0);
	return buf;
}

/* fsp-bpf ARGS... (NULL-terminated), exit 0; returns stdout (caller frees). */
static char *fsp_ok(const char *tag, ...)
{
	char *argv[40] = {NULL};
	struct itest_proc p;
	va_list ap;
	int n = 1;

	va_start(ap, tag);
	for (char *a; n < 39 && (a = va_arg(ap, char *));)
		argv[n++] = a;
	va_end(ap);
	itest_run_fspv(&p, tag, 60, argv);
	itest_assert_exit(&p, 0);
	free(p.err);
	return p.out;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* node html_browser.mjs MODE ARGS... (NULL-terminated); fails the test with
 * the script's output unless it exits 0. */
static void browser(const char *mode, ...)
{
	char *argv[16] = {"/usr/bin/env", "node",
			  (char *)root_path("tests/integration/html_browser.mjs"), (char *)mode};
	char modules[4200];
	struct itest_proc p;
	va_list ap;
	int n = 4;

	if (access("/usr/bin/chromium", X_OK))
		fail_msg("/usr/bin/chromium is missing: scripts/install-deps.sh installs it");
	snprintf(modules, sizeof(modules), "%s/html/node_modules", out_dir());
	setenv("FSP_NODE_MODULES", modules, 1);
	va_start(ap, mode);
	for (char *a; n < 15 && (a = va_arg(ap, char *));)
		argv[n++] = a;
	va_end(ap);
	itest_spawn(&p, mode, argv);
	itest_wait(&p, 120);
	printf("%s", p.out ? p.out : "");
	if (!WIFEXITED(p.status) || WEXITSTATUS(p.status))
		fail_msg("html_browser.mjs %s failed:\n%s%s", mode, p.out ? p.out : "",
			 p.err ? p.err : "");
	free(p.out);
	free(p.err);
}

static void assert_page(const char *path)
{
	char *page = itest_slurp(path);

	assert_non_null(page);
	if (strncmp(page, "<!DOCTYPE html>", 15) || !strstr(page, "id=\"fsp-data\""))
		fail_msg("%s is not fsp-bpf's HTML report", path);
	free(page);
}

/* Records examples/demo_mt with --off-cpu into JSON. */
static void record_demo_mt(const char *json)
{
	char demo[4200];

	snprintf(demo, sizeof(demo), "%s/examples/demo_mt", out_dir());
	/* --events: the page shows the event view (ABI v2 marks trap only then) */
	free(fsp_ok("record", "-F", ITEST_HZ, "--off-cpu", "--events", "-o", json, "--", demo, "3",
		    "400", NULL));
}

static void test_html_profile(void **state)
{
	const char *json = itest_tmp("prof.json"), *html = itest_tmp("prof.html"),
		   *text = itest_tmp("prof.txt"), *live = itest_tmp("live.html");
	char demo[4200], *out;

	(void)state;
	record_demo_mt(json);
	out = fsp_ok("report", "report", "--min-pct", "0", json, NULL);
	write_text(text, out);
	free(out);
	free(fsp_ok("html", "report", "--format", "html", "--source-dir", public_sources(), "-o",
		    html, json, NULL));
	assert_page(html);
	browser("profile", html, text, shots_dir("profile"), NULL);
	/* record --format html -o: the page to the file, the text report to stdout */
	snprintf(demo, sizeof(demo), "%s/examples/demo_mt", out_dir());
	out = fsp_ok("record-html", "--format", "html", "-o", live, "--", demo, "2", "200", NULL);
	assert_non_null(strstr(out, "accounts for"));
	free(out);
	assert_page(live);
}

static void test_html_diff(void **state)
{
	const char *base = itest_tmp("base.json"), *new_p = itest_tmp("new.json"),
		   *html = itest_tmp("diff.html"), *text = itest_tmp("diff.txt");
	char demo[4200], *out;

	(void)state;
	snprintf(demo, sizeof(demo), "%s/examples/demo", out_dir());
	free(fsp_ok("base", "-F", ITEST_HZ, "-o", base, "--", demo, "400", NULL));
	free(fsp_ok("new", "-F", ITEST_HZ, "-o", new_p, "--", demo, "800", NULL));
	out = fsp_ok("diff", "diff", "--scale", "2", "--min-pct", "0", base, new_p, NULL);
	write_text(text, out);
	free(out);
	free(fsp_ok("diff-html", "diff", "--scale", "2", "--format", "html", "--source-dir",
		    public_sources(), "-o", html, base, new_p, NULL));
	assert_page(html);
	browser("diff", html, text, shots_dir("diff"), NULL);
}

/* A profile made with the analysis API: labels, target, a comm and a
 * source file that are markup. */
static void test_html_hostile(void **state)
{
	static const struct profile_meta meta = {
		.target = "<b>bold</b> target",
		.tool_version = "0.1.0",
		.frequency_hz = 1000,
		.period_ns = 1000000,
		.duration_s = 1.0,
	};
	const struct profile_frame s1[] = {
		{PROFILE_MARK, "</script><script>window.__pwned=1</script>", "evil.c:2", 0},
	};
	const struct profile_frame s2[] = {
		{PROFILE_MARK, "<img src=x onerror=\"window.__pwned=1\">", "<!-- <script>", 0},
	};
	const char *json = itest_tmp("evil.json"), *html = itest_tmp("evil.html"),
		   *src = itest_tmp("evil.c");
	struct profile *p = profile__new();
	char err[256];

	(void)state;
	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &meta), 0);
	assert_int_equal(profile__add_thread(p, 7, 7, "<i>comm</i>"), 0);
	assert_int_equal(profile__add_stack(p, 7, 1, s1, 1), 0);
	assert_int_equal(profile__add_stack(p, 7, 2, s2, 1), 0);
	assert_int_equal(profile__add_samples(p, 7, 7, 1, 60), 0);
	assert_int_equal(profile__add_samples(p, 7, 7, 2, 40), 0);
	assert_int_equal(profile__save(json, p, err, sizeof(err)), 0);
	profile__free(p);
	write_text(src, "int x;\n<script>window.__pwned=1</script> </pre></div>\n");
	assert_int_equal(chmod(src, 0644), 0);
	free(fsp_ok("evil-html", "report", "--format", "html", "--source-dir", itest_tmp("."), "-o",
		    html, json, NULL));
	browser("hostile", html, shots_dir("hostile"), NULL);
}

static void test_html_extend(void **state)
{
	const char *json = itest_tmp("prof.json"), *html = itest_tmp("prof.html");

	(void)state;
	record_demo_mt(json);
	free(fsp_ok("html", "report", "--format", "html", "-o", html, json, NULL));
	browser("extend", html, shots_dir("extend"), NULL);
}

/* 300 samples of two threads in features plan (q1, q2) and gc (nested in
 * plan/q1), with native stacks over 12 functions of 2 modules (a kernel
 * one; inlined frames, a frame without a symbol), some samples without. */
static void native_profile(const char *json)
{
	static const struct profile_meta meta = {
		.target = "native stacks", .frequency_hz = 1000, .period_ns = 1000000};
	static const char *const names[] = {"main",	"run",	 "plan_query", "cost_path",
					    "memcpy",	"hash",	 "inl_cmp",    "gc_mark",
					    "gc_sweep", "alloc", "schedule",   "read"};
	const struct profile_frame q1[] = {{PROFILE_MARK, "plan", "q1", 0}};
	const struct profile_frame q2[] = {{PROFILE_MARK, "plan", "q2", 0}};
	const struct profile_frame gc[] = {{PROFILE_MARK, "plan", "q1", 0},
					   {PROFILE_MARK, "gc", "major", 0}};
	struct profile_module app = {PROFILE_MODULE_USER, "/usr/bin/app", "0123abcd"};
	struct profile_module kern = {PROFILE_MODULE_KERNEL, "[kernel.kallsyms]", NULL};
	struct profile *p = profile__new();
	uint32_t locs[16], stack[8];
	uint64_t seed = 7;
	int ma, mk, i, k, s, depth;
	char err[256];

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &meta), 0);
	assert_int_equal(profile__add_thread(p, 10, 10, "app"), 0);
	assert_int_equal(profile__add_thread(p, 10, 11, "worker"), 0);
	assert_int_equal(profile__add_stack(p, 10, 1, q1, 1), 0);
	assert_int_equal(profile__add_stack(p, 10, 2, q2, 1), 0);
	assert_int_equal(profile__add_stack(p, 10, 3, gc, 2), 0);
	ma = profile__add_module(p, &app);
	mk = profile__add_module(p, &kern);
	assert_true(ma >= 0 && mk >= 0);
	for (i = 0; i < 13; i++) {
		struct profile_line lines[2] = {{names[i % 12], "app.c", 10 + i},
						{names[(i + 1) % 12], "app.c", 100 + i}};
		struct profile_location loc = {.module = (uint32_t)(i == 10 ? mk : ma),
					       .address = 0x1000 + 16 * i,
					       .lines = lines,
					       .nr_lines = i == 12  ? 0
							   : i == 6 ? 2
								    : 1};

		locs[i] = (uint32_t)profile__add_location(p, &loc);
	}
	for (i = 0; i < 40; i++) {
		uint32_t tid = 10 + (uint32_t)(i % 2), key = 1 + (uint32_t)(i % 3);
		struct profile_native_stack st = {.locs = stack, .method = PROFILE_UNWIND_DWARF};

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		depth = 2 + (int)(seed >> 60) % 6;
		for (k = 0; k < depth; k++)
			stack[k] = locs[(seed >> (4 * k + 8)) % 13];
		stack[depth - 1] = locs[0]; /* main at the root */
		st.depth = (size_t)depth;
		s = profile__add_native_stack(p, &st);
		assert_true(s >= 0);
		assert_int_equal(profile__add_samples(p, 10, tid, key, 8), 0);
		assert_int_equal(profile__add_native_samples(p, 10, tid, key, (size_t)s,
							     7 - (uint64_t)(i % 3)),
				 0);
	}
	assert_int_equal(profile__save(json, p, err, sizeof(err)), 0);
	profile__free(p);
}

static void test_html_native(void **state)
{
	const char *json = itest_tmp("native.json"), *html = itest_tmp("native.html"),
		   *text = itest_tmp("native.txt");
	char *out;

	(void)state;
	native_profile(json);
	out = fsp_ok("report", "report", "--min-pct", "0", "--top-functions", "20", json, NULL);
	assert_non_null(strstr(out, "\nNative stacks: "));
	write_text(text, out);
	free(out);
	free(fsp_ok("html", "report", "--format", "html", "-o", html, json, NULL));
	assert_page(html);
	browser("native", html, text, shots_dir("native"), NULL);
}

static void test_html_1m(void **state)
{
	const char *json = itest_tmp("big.json"), *html = itest_tmp("big.html");
	char gen[4200];
	struct itest_proc p;
	struct stat st;

	(void)state;
	snprintf(gen, sizeof(gen), "%s/bench/gen_profile", out_dir());
	char *argv[] = {gen,  "-n", "1000000", "-k", "100000",	   "-t",
			"64", "-s", "1",       "-o", (char *)json, NULL};
	itest_spawn(&p, "gen", argv);
	itest_wait(&p, 120);
	itest_assert_exit(&p, 0);
	free(p.out);
	free(p.err);
	free(fsp_ok("html", "report", "--format", "html", "-o", html, json, NULL));
	assert_int_equal(stat(html, &st), 0);
	printf("1M samples: %s is %.1f MB\n", html, (double)st.st_size / 1e6);
	if ((uint64_t)st.st_size >= HTML_MAX_BYTES)
		fail_msg("the page of 1M samples is %lld bytes, not under 20 MiB",
			 (long long)st.st_size);
	browser("perf", html, HTML_MAX_MS, NULL);
}

/* report --calls SEL --format FORMAT of prof into out. */
static void calls_view(const char *prof, const char *sel, const char *format, const char *out)
{
	free(fsp_ok("calls-view", "report", "--min-pct", "0", "--calls", sel, "--format", format,
		    "-o", out, prof, NULL));
}

/* The page's samples (or off-CPU ns) of feature f in group g of page.json. */
static uint64_t page_u64(json_object *page, const char *g, const char *f, const char *what)
{
	json_object *grp, *feat, *v;

	if (!json_object_object_get_ex(page, g, &grp) || !json_object_object_get_ex(grp, f, &feat))
		return 0;
	return json_object_object_get_ex(feat, what, &v) ? json_object_get_uint64(v) : 0;
}

/* The page's shares of parse, compute and rare in a group's request
 * samples (and its lock wait off CPU) against the truth's group. */
static bool page_group_ok(json_object *page, const char *g, const struct itest_truth *t,
			  const char *tg)
{
	static const char *const parts[] = {"parse", "compute", "rare"};
	uint64_t n = page_u64(page, g, "request", "samples");
	double cpu = (double)itest_truth_u64(t, "%s.cpu_ns", tg), tol;
	bool ok = n > 0 && cpu > 0;

	for (size_t i = 0; i < 3; i++) {
		uint64_t k = page_u64(page, g, parts[i], "samples");
		double want = (double)itest_truth_u64(t, "%s.%s_ns", tg, parts[i]) / cpu;
		double got = (double)k / (double)(n ? n : 1);
		bool one;

		tol = fmax(0.02, itest_tolerance(want, n, 0));
		one = n && fabs(got - want) <= tol + ITEST_EPS;
		print_message("  page, %s calls: %-8s %6.2f%% (%llu of %llu), truth %6.2f%%, "
			      "tolerance %.2f pp: %s\n",
			      g, parts[i], 100 * got, (unsigned long long)k, (unsigned long long)n,
			      100 * want, 100 * tol, one ? "ok" : "FAIL");
		ok &= one;
	}
	{
		/* as test_calls slow_calls_offcpu: 0.1 ms a lock-path request, and
		 * the lock wait of the requests within 1 ms of the threshold */
		double got = (double)page_u64(page, g, "lockwait", "offcpu_ns") / 1e6;
		double want = (double)itest_truth_u64(t, "%s.lockwait_ns", tg) / 1e6;
		bool one;

		tol = 0.1 * (double)itest_truth_u64(t, "paths.lock") +
		      (double)itest_truth_u64(t, "near.lockwait_ns") / 1e6;
		one = fabs(got - want) <= tol;
		print_message(
			"  page, %s calls: lockwait %.2f ms off CPU, truth %.2f ms, tolerance "
			"%.2f ms: %s\n",
			g, got, want, tol, one ? "ok" : "FAIL");
		ok &= one;
	}
	return ok;
}

static void test_html_calls(void **state)
{
	const char *prof = itest_tmp("p.json"), *truth = itest_tmp("truth"),
		   *live = itest_tmp("live.html"), *html = itest_tmp("p.html");
	char dir[4200], path[4300], *out, *page;
	struct itest_truth *t;
	json_object *pj;
	bool ok = true;

	(void)state;
	snprintf(dir, sizeof(dir), "%s", itest_tmp("calls"));
	snprintf(path, sizeof(path), "mkdir -p '%s'", dir);
	assert_int_equal(system(path), 0);
	/* live: record --calls --format html, the profile saved beside */
	out = fsp_ok("record", "--calls=request>=6ms", "--off-cpu", "--stacks", "-F", ITEST_HZ,
		     "--json", prof, "--format", "html", "-o", live, "--",
		     itest_workload("wl_requests"), truth, "300", "6000", NULL);
	free(out);
	page = itest_slurp(live);
	assert_non_null(page);
	if (!strstr(page, "\"state\":\"ok\"") || strstr(page, "\"call_list\": []"))
		fail_msg("the live page has no calls");
	if (!strstr(page, "\"call_selection\": \"request\\u003e=6ms\""))
		fail_msg("the live page (record --calls=request>=6ms) does not open at the "
			 "selection");
	free(page);
	free(fsp_ok("html", "report", "--format", "html", "-o", html, prof, NULL));
	assert_page(html);
	snprintf(path, sizeof(path), "%s/sel.json", dir);
	calls_view(prof, "request>=6ms", "json", path);
	snprintf(path, sizeof(path), "%s/oth.json", dir);
	calls_view(prof, "request<6ms", "json", path);
	snprintf(path, sizeof(path), "%s/range.json", dir);
	calls_view(prof, "request>=2ms<3ms", "json", path);
	snprintf(path, sizeof(path), "%s/sel.txt", dir);
	calls_view(prof, "request>=6ms", "text", path);
	snprintf(path, sizeof(path), "%s/sel.html", dir);
	calls_view(prof, "request>=6ms", "html", path);
	browser("calls", html, dir, shots_dir("calls"), NULL);
	snprintf(path, sizeof(path), "%s/page.json", dir);
	pj = itest_json_load(path);
	t = itest_truth_load(truth);
	ok &= page_group_ok(pj, "selected", t, "slow");
	ok &= page_group_ok(pj, "others", t, "other");
	ok &= page_u64(pj, "others", "rare", "samples") == 0;
	json_object_put(pj);
	itest_truth_free(t);
	ITEST_ASSERT_OK(ok);
}

/* A bounded profile: sampled calls counted as report --calls counts them. */
static void test_html_calls_keep(void **state)
{
	const char *prof = itest_tmp("k.json"), *truth = itest_tmp("ktruth"),
		   *html = itest_tmp("k.html");
	static const char *const views[][3] = {{"request>=6ms", "json", "sel.json"},
					       {"request<6ms", "json", "oth.json"},
					       {"request>=6ms", "text", "sel.txt"},
					       {"request p90", "json", "p90.json"},
					       {"request p90", "text", "p90.txt"}};
	char dir[4200], path[4300];

	(void)state;
	snprintf(dir, sizeof(dir), "%s", itest_tmp("keep"));
	snprintf(path, sizeof(path), "mkdir -p '%s'", dir);
	assert_int_equal(system(path), 0);
	free(fsp_ok("record", "--calls-keep", "10", "--off-cpu", "--stacks", "-F", ITEST_HZ,
		    "--json", prof, "--", itest_workload("wl_requests"), truth, "150", "6000",
		    NULL));
	free(fsp_ok("html", "report", "--format", "html", "-o", html, prof, NULL));
	assert_page(html);
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, views[i][2]);
		calls_view(prof, views[i][0], views[i][1], path);
	}
	browser("callskeep", html, dir, shots_dir("calls-keep"), NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_html_profile), ITEST(test_html_diff),       ITEST(test_html_hostile),
		ITEST(test_html_extend),  ITEST(test_html_native),     ITEST(test_html_1m),
		ITEST(test_html_calls),	  ITEST(test_html_calls_keep),
	};

	return ITEST_MAIN("html", tests);
}
