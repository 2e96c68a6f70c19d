// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The agent (record --listen) scraped by a real Prometheus (Debian's,
 * started here on 127.0.0.1 with a 1 s scrape interval): feature shares
 * from PromQL against the workload's own truth, monotonic counters, a
 * restart of fsp-bpf as a counter reset rate() survives, the instance cap,
 * function features (the counters and windows charge them as report does),
 * hostile labels, TLS with a bearer token (and a wrong one refused).
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent_util.h"
#include "attrib.h"
#include "itest.h"

/* The rate() window of the share checks, and wl_service's cycle (7 ms, fixed:
 * a window cuts at most one cycle short at each end). */
#define WINDOW_S 20
#define CYCLE_NS 7e6
/* Across the restart: the window, and the second session's part of it (the
 * window starts after the first session's first scrape: WINDOW_S - 2 +
 * SECOND_S > RESTART_WINDOW_S). */
#define RESTART_WINDOW_S 25
#define SECOND_S 10

static char *job(const char *name, unsigned int port, const char *extra)
{
	char *s = NULL;

	assert_true(asprintf(&s,
			     "  - job_name: %s\n    static_configs:\n      - targets: "
			     "['127.0.0.1:%u']\n%s",
			     name, port, extra ? extra : "") > 0);
	return s;
}

/* The share of feature over the window ending at `at`: rate() of its
 * counter over the target's; n: the window's samples (increase()). */
static void share_at(struct agu_prom *pr, const char *feature, double at, int window, uint64_t *k,
		     uint64_t *n)
{
	char q[512];
	double total, part;

	snprintf(q, sizeof(q), "sum(increase(fsp_target_samples_total{job=\"fsp\"}[%ds]))", window);
	total = agu_prom_value(pr, q, at);
	snprintf(q, sizeof(q),
		 "sum(rate(fsp_feature_samples_total{job=\"fsp\",feature=\"%s\"}[%ds])) / "
		 "sum(rate(fsp_target_samples_total{job=\"fsp\"}[%ds]))",
		 feature, window, window);
	part = agu_prom_value(pr, q, at);
	if (isnan(total) || isnan(part))
		fail_msg("no share of %s at %.1f", feature, at);
	*n = (uint64_t)llround(total);
	*k = (uint64_t)llround(part * total);
}

/* What Prometheus stored of a counter over [at - window, at], without
 * rate(): each series' increase split at its reset (a value lower than the
 * one before: the restart) into the first session's part and the second's
 * (from 0), summed over the series; and the first and last points' times. */
struct raw_window {
	double before, after;
	double first_t, last_t;
};

static void raw_point(json_object *pt, double *t, double *v)
{
	*t = json_object_get_double(json_object_array_get_idx(pt, 0));
	*v = strtod(json_object_get_string(json_object_array_get_idx(pt, 1)), NULL);
}

static void raw_window(struct agu_prom *pr, const char *sel, double at, int window,
		       struct raw_window *w)
{
	char q[512];
	json_object *r, *vals;

	snprintf(q, sizeof(q), "%s[%ds]", sel, window);
	r = agu_prom_query_at(pr, q, at);
	*w = (struct raw_window){0, 0, INFINITY, -INFINITY};
	for (size_t i = 0; i < json_object_array_length(r); i++) {
		double first = NAN, prev = NAN, t, v;
		bool reset = false;

		assert_true(json_object_object_get_ex(json_object_array_get_idx(r, i), "values",
						      &vals));
		for (size_t j = 0; j < json_object_array_length(vals); j++) {
			raw_point(json_object_array_get_idx(vals, j), &t, &v);
			w->first_t = fmin(w->first_t, t);
			w->last_t = fmax(w->last_t, t);
			if (isnan(first))
				first = v;
			if (!isnan(prev) && v < prev && !reset) {
				w->before += prev - first;
				reset = true;
			}
			prev = v;
		}
		if (reset)
			w->after += prev;
		else if (!isnan(prev))
			w->before += prev - first;
	}
	json_object_put(r);
}

/* Each session's own counts of the window, beside rate()'s share: the raw
 * share (what the sessions counted) and rate()'s differ only by rate()'s
 * extrapolation. Returns whether the feature's series span the window as
 * the target's do (first and last points at the same scrapes). */
static bool raw_shares(struct agu_prom *pr, const char *feature, double at, int window)
{
	char sel[256];
	struct raw_window f, t;

	snprintf(sel, sizeof(sel), "fsp_feature_samples_total{job=\"fsp\",feature=\"%s\"}",
		 feature);
	raw_window(pr, sel, at, window, &f);
	raw_window(pr, "fsp_target_samples_total{job=\"fsp\"}", at, window, &t);
	print_message("  %-8s counted: first session %.0f/%.0f = %.2f%%, second %.0f/%.0f = "
		      "%.2f%%, both %.2f%%\n",
		      feature, f.before, t.before, t.before ? 100 * f.before / t.before : 0,
		      f.after, t.after, t.after ? 100 * f.after / t.after : 0,
		      t.before + t.after ? 100 * (f.before + f.after) / (t.before + t.after) : 0);
	return f.first_t == t.first_t && f.last_t == t.last_t;
}

/*
 * The shares of the window ending at `at` against the truth (itest.c's
 * derivation, 2b): the window covers W = n T of CPU time (T: the sampling
 * period); each of its `cuts` ends (its own two, and around a restart the end
 * of the first session's last scrape and the start of the second) cuts a cycle
 * short (L_c / W each), and a session that attached inside it counts, for up
 * to att_ns (its start until its "profiling" line), samples no mark can be
 * charged to, and misses the mark open when it attached (one more cycle).
 *
 * rate() is not the sessions' counts: it extrapolates each series' increase
 * from its first and last points in the window to the window's ends, by a
 * factor of its own. The share is rate(feature) / rate(target), so it is the
 * share the sessions counted only when every series has its first and last
 * points at the same scrapes: a feature's series that has no point yet in
 * the second session (charged nothing before its first scrape) ends at the
 * restart while the target's goes on, and is extrapolated further: 0.7-0.8 pp
 * off with a second session of a few scrapes, and a window that held only
 * the restart's first scrapes failed this test twice (90.28% and 83.9%
 * against 85.6%) while each session's own counts were right. So the windows
 * are chosen where every series spans them (checked: spans).
 */
static bool shares_ok(struct agu_prom *pr, const struct itest_truth *t, double at, int window,
		      int cuts, double att_ns)
{
	static const char *const features[] = {"service", "parse", "compute"};
	double cpu = (double)itest_truth_u64(t, "cpu_total_ns"), T = 1e9 / atof(ITEST_HZ);
	bool ok = true;

	for (size_t i = 0; i < 3; i++) {
		char key[64];
		uint64_t k, n;

		if (!raw_shares(pr, features[i], at, window))
			fail_msg("the series of %s do not span the window as the target's: "
				 "rate() extrapolates them differently",
				 features[i]);
		share_at(pr, features[i], at, window, &k, &n);
		snprintf(key, sizeof(key), "feature.%s", features[i]);
		ok &= itest_truth_share_ok(
			features[i], k, n, t, key, cpu,
			n ? (cuts * CYCLE_NS + (att_ns ? att_ns + CYCLE_NS : 0)) / (n * T) : 0);
	}
	return ok;
}

/* A whole session's shares, from its saved profile. */
static void session_shares(const char *what, const char *path)
{
	struct profile *p = itest_profile_load(path);
	struct attrib *a = attrib__compute(p, NULL);
	uint64_t n = attrib__total_samples(a);

	print_message("%s: %llu samples", what, (unsigned long long)n);
	for (size_t i = 0; i < attrib__nr_features(a); i++)
		print_message(", %s %.2f%%", attrib__feature(a, i)->name,
			      n ? 100.0 * attrib__feature(a, i)->samples / n : 0);
	print_message("\n");
	attrib__free(a);
	profile__free(p);
}

/*
 * wl_service (fixed cycles of known mix) profiled with --listen, scraped
 * every second: the shares rate() gives over 20 s, up, counters that never
 * go down; then fsp-bpf restarts on the same port: Prometheus sees a
 * counter reset, and rate() over a window across the restart still gives
 * the shares.
 */
static void test_prometheus_shares(void **state)
{
	AGU_TMP(ready, "ready");
	AGU_TMP(dump, "dump");
	char *wl_argv[] = {(char *)itest_workload("wl_service"), ready, dump, NULL};
	AGU_TMP(prof1, "prof1.json");
	AGU_TMP(prof2, "prof2.json");
	const char *const extra[] = {"-F", ITEST_HZ, "-o", prof1, NULL};
	const char *const extra2[] = {"-F", ITEST_HZ, "-o", prof2, NULL};
	struct itest_proc wl, fsp1, fsp2;
	struct agu_prom pr;
	struct itest_truth *t;
	char listen[32], *cfg;
	unsigned int port = agu_free_port();
	double restart, at, att_s;
	char q[256];
	bool ok = true;

	(void)state;
	snprintf(listen, sizeof(listen), "127.0.0.1:%u", port);
	agu_spawn_workload(&wl, ready, wl_argv);
	agu_start_agent(&fsp1, "fsp1", listen, wl.pid, extra);
	cfg = job("fsp", port, NULL);
	agu_prom_start(&pr, cfg);
	free(cfg);
	/* WINDOW_S seconds of scrapes */
	assert_true(agu_prom_wait(&pr,
				  "count_over_time(fsp_target_samples_total{job=\"fsp\"}[20s])",
				  WINDOW_S - 1, 90));
	assert_true(agu_prom_value(&pr, "up{job=\"fsp\"}", 0) == 1);
	at = agu_unix_now();
	/* The truth: wl_service's mix is the same in every window of whole cycles. */
	itest_signal(&wl, SIGUSR1);
	assert_true(itest_wait_file(itest_tmp("dump.1"), 15));
	t = itest_truth_load(itest_tmp("dump.1"));
	print_message("shares over %d s scraped by Prometheus:\n", WINDOW_S);
	ok &= shares_ok(&pr, t, at, WINDOW_S, 2, 0);
	/* Counters never went down. */
	assert_true(agu_prom_value(&pr,
				   "sum(resets(fsp_feature_samples_total{job=\"fsp\"}[1m])) + "
				   "sum(resets(fsp_target_samples_total{job=\"fsp\"}[1m]))",
				   0) == 0);

	/* fsp-bpf restarts on the same port: a counter reset. */
	itest_stop_fsp(&fsp1);
	restart = agu_unix_now();
	agu_start_agent(&fsp2, "fsp2", listen, wl.pid, extra2);
	att_s = agu_unix_now() - restart;
	assert_true(agu_prom_wait(&pr, "sum(resets(fsp_target_samples_total{job=\"fsp\"}[1m]))", 1,
				  60));
	/* SECOND_S s of the second session's scrapes (the first session's
	 * points do not count: count_over_time would have them), so that
	 * every feature's series has points in it. */
	snprintf(q, sizeof(q), "max(timestamp(fsp_target_samples_total{job=\"fsp\"})) - %.3f",
		 restart);
	assert_true(agu_prom_wait(&pr, q, SECOND_S, 60));
	at = agu_unix_now();
	/* The window starts after the first session's first scrape (at least
	 * WINDOW_S - 2 s before its stop, then SECOND_S more): every series
	 * has points before it. */
	assert_true(at - RESTART_WINDOW_S < restart);
	print_message("shares over %d s across the restart:\n", RESTART_WINDOW_S);
	print_message("(the second session attached within %.3f s)\n", att_s);
	ok &= shares_ok(&pr, t, at, RESTART_WINDOW_S, 4, att_s * 1e9);
	itest_stop_fsp(&fsp2);
	session_shares("first session", prof1);
	session_shares("second session", prof2);
	itest_signal(&wl, SIGTERM);
	itest_wait(&wl, 15);
	itest_assert_exit(&wl, 0);
	itest_truth_free(t);
	agu_prom_stop(&pr);
	ITEST_ASSERT_OK(ok);
}

/* Prometheus has scraped the agent after `since` (unix seconds). */
static void wait_scrape_after(struct agu_prom *pr, double since)
{
	char q[128];

	snprintf(q, sizeof(q), "timestamp(fsp_targets{job=\"fsp\"}) - %.3f", since);
	if (!agu_prom_wait(pr, q, 0.5, 30))
		fail_msg("Prometheus did not scrape the agent again");
}

/* The samples of feature f (and of its instance i, unless NULL) in a profile file. */
static uint64_t profile_samples(const char *path, const char *f, const char *i)
{
	struct profile *p = itest_profile_load(path);
	struct attrib *a = attrib__compute(p, NULL);
	uint64_t n = i ? itest_instance(a, f, i)->samples : itest_feature(a, f)->samples;

	attrib__free(a);
	profile__free(p);
	return n;
}

/* Prometheus scrapes the agent on port (job "fsp") until the workload has
 * finished (its ready.done) and once more after. */
static void scrape_finished(struct agu_prom *pr, unsigned int port)
{
	char *cfg = job("fsp", port, NULL);

	agu_prom_start(pr, cfg);
	free(cfg);
	if (!itest_wait_file(itest_tmp("ready.done"), 60))
		fail_msg("the workload did not finish");
	wait_scrape_after(pr, agu_unix_now());
}

/*
 * --metrics-max-instances 5 with 20 instances of a feature: 5 instances get
 * series of their own, the rest are summed into "other", and every
 * series's value, their sum included, is the profile's.
 */
static void test_instance_cap(void **state)
{
	AGU_TMP(ready, "ready");
	AGU_TMP(prof, "prof.json");
	char *wl_argv[] = {(char *)itest_workload("wl_agent"), ready, "many", "20", "2500", NULL};
	const char *const extra[] = {"--metrics-max-instances", "5", "-o", prof, NULL};
	struct itest_proc wl, fsp;
	struct agu_prom pr;
	json_object *r;
	unsigned int port;
	double sum = 0, other = -1;

	(void)state;
	agu_spawn_workload(&wl, ready, wl_argv);
	port = agu_start_agent(&fsp, "fsp", "0", wl.pid, extra);
	scrape_finished(&pr, port);
	r = agu_prom_query(&pr, "fsp_feature_samples_total{job=\"fsp\",feature=\"site\"}");
	print_message("feature site: %zu series\n", json_object_array_length(r));
	assert_int_equal(json_object_array_length(r), 6);
	/* nothing runs any more: the profile will hold the same counts */
	itest_signal(&wl, SIGTERM);
	itest_wait(&wl, 15);
	itest_wait(&fsp, ITEST_TIMEOUT_S);
	itest_assert_exit(&fsp, 0);
	for (size_t i = 0; i < json_object_array_length(r); i++) {
		json_object *s = json_object_array_get_idx(r, i);
		const char *inst = agu_sample_label(s, "feature_instance");
		double v = agu_sample_value(s);

		sum += v;
		if (!strcmp(inst, "other"))
			other = v;
		else
			assert_true(v == (double)profile_samples(prof, "site", inst));
	}
	print_message("sum %.0f, other %.0f, profile %llu\n", sum, other,
		      (unsigned long long)profile_samples(prof, "site", NULL));
	assert_true(other > 0);
	assert_true(sum == (double)profile_samples(prof, "site", NULL));
	assert_true(agu_prom_value(&pr, "fsp_feature_samples_total{job=\"fsp\",feature=\"fixed\"}",
				   0) == (double)profile_samples(prof, "fixed", "one"));
	json_object_put(r);
	agu_prom_stop(&pr);
}

/* ---- function features ----------------------------------------------------------------- */

#define FF_FEATURE "fn:burn"
#define FF_WINDOW_S "10"

/* What `fsp-bpf report` says of a profile file: feature's samples and, for
 * instance (unless NULL), that instance's. */
static uint64_t reported(const char *path, const char *feature, const char *instance)
{
	const char *json = itest_tmp("reported.json");
	json_object *doc, *fs, *is;
	struct itest_proc p;
	uint64_t n = 0;

	itest_run_fsp(&p, "report", ITEST_TIMEOUT_S, "report", "--format", "json", "-o", json, path,
		      NULL);
	itest_assert_exit(&p, 0);
	doc = itest_json_load(json);
	assert_true(json_object_object_get_ex(doc, "features", &fs));
	for (size_t i = 0; i < json_object_array_length(fs); i++) {
		json_object *f = json_object_array_get_idx(fs, i);

		if (strcmp(json_object_get_string(json_object_object_get(f, "name")), feature))
			continue;
		n = instance ? 0 : itest_json_u64(f, "samples");
		assert_true(json_object_object_get_ex(f, "instances", &is));
		for (size_t j = 0; instance && j < json_object_array_length(is); j++) {
			json_object *in = json_object_array_get_idx(is, j);

			if (!strcmp(json_object_get_string(json_object_object_get(in, "name")),
				    instance))
				n = itest_json_u64(in, "samples");
		}
	}
	json_object_put(doc);
	free(p.out);
	free(p.err);
	return n;
}

/* The samples of root frame `root` in a pprof file, as go tool pprof -top
 * counts them (its cumulative samples). */
static uint64_t pprof_root(const char *pb, const char *root)
{
	char *argv[] = {"/usr/bin/go",		 "tool",     "pprof", "-top", "-nodecount=100000",
			"-sample_index=samples", (char *)pb, NULL};
	struct itest_proc go;
	uint64_t n = 0;

	setenv("PPROF_TMPDIR", itest_tmp("pprof"), 1);
	itest_spawn(&go, "pprof-top", argv);
	itest_wait(&go, 60);
	itest_assert_exit(&go, 0);
	for (const char *l = go.out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		double flat, flat_pct, sum_pct, cum;
		char name[256];

		if (sscanf(l, "%lf %lf%% %lf%% %lf %*f%% %255s", &flat, &flat_pct, &sum_pct, &cum,
			   name) == 5 &&
		    !strcmp(name, root))
			n = (uint64_t)cum;
	}
	return n;
}

/*
 * A function feature (wl_burn of wl_agent, where every burst spends its
 * time) in the agent: one burst inside a pprof window (read by go tool
 * pprof) and a profile-file window running at once, then scraped by
 * Prometheus; the feature's samples are the same in the pprof window, in
 * report of the window's profile file, in the counter (and its instance's
 * series) and in report of the session's saved profile: the only work of
 * the session is the burst. Its counters never went down.
 */
static void test_function_features(void **state)
{
	AGU_TMP(ready, "ready");
	AGU_TMP(prof, "prof.json");
	AGU_TMP(pb, "window.pb.gz");
	AGU_TMP(win, "window.json");
	char *wl_argv[] = {(char *)itest_workload("wl_agent"), ready, "burst", NULL};
	const char *const extra[] = {
		"-F", ITEST_HZ, "--function-feature", "burn=wl_agent:wl_burn", "-o", prof, NULL};
	struct itest_proc wl, fsp, c1, c2;
	struct agu_prom pr;
	char u1[128], u2[128], sel[128], *cfg;
	unsigned int port;
	uint64_t in_report, in_window, in_pprof;
	double deadline, counter;
	json_object *r;

	(void)state;
	agu_spawn_workload(&wl, ready, wl_argv);
	port = agu_start_agent(&fsp, "fsp", "0", wl.pid, extra);
	cfg = job("fsp", port, NULL);
	agu_prom_start(&pr, cfg);
	free(cfg);
	snprintf(u1, sizeof(u1), "http://127.0.0.1:%u/debug/pprof/profile?seconds=" FF_WINDOW_S,
		 port);
	snprintf(u2, sizeof(u2), "http://127.0.0.1:%u/profile?seconds=" FF_WINDOW_S "&format=json",
		 port);
	itest_spawn(&c1, "curl-pprof", (char *[]){"/usr/bin/curl", "-sSf", "-o", pb, u1, NULL});
	itest_spawn(&c2, "curl-json", (char *[]){"/usr/bin/curl", "-sSf", "-o", win, u2, NULL});
	for (deadline = itest_now() + 20; agu_gauge(port, "fsp_agent_windows") < 2;
	     itest_sleep(0.1))
		if (itest_now() > deadline)
			fail_msg("the windows did not start");
	itest_signal(&wl, SIGUSR1);
	assert_true(itest_wait_file(itest_tmp("ready.1"), 30));
	wait_scrape_after(&pr, agu_unix_now());
	itest_wait(&c1, 60);
	itest_assert_exit(&c1, 0);
	itest_wait(&c2, 60);
	itest_assert_exit(&c2, 0);
	snprintf(sel, sizeof(sel), "fsp_feature_samples_total{job=\"fsp\",feature=\"%s\"}",
		 FF_FEATURE);
	r = agu_prom_query(&pr, sel);
	/* charged at each snapshot, the counters never went down */
	assert_true(agu_prom_value(&pr, "sum(resets(fsp_feature_samples_total{job=\"fsp\"}[5m]))",
				   0) == 0);
	itest_signal(&wl, SIGTERM);
	itest_wait(&wl, 15);
	itest_stop_fsp(&fsp);

	in_report = reported(prof, FF_FEATURE, NULL);
	in_window = reported(win, FF_FEATURE, NULL);
	in_pprof = pprof_root(pb, FF_FEATURE);
	counter = 0;
	for (size_t i = 0; i < json_object_array_length(r); i++)
		counter += agu_sample_value(json_object_array_get_idx(r, i));
	print_message("%s: report %llu, window's report %llu, pprof window %llu, Prometheus %.0f "
		      "samples\n",
		      FF_FEATURE, (unsigned long long)in_report, (unsigned long long)in_window,
		      (unsigned long long)in_pprof, counter);
	/* 1 s of CPU in wl_burn: hundreds of samples */
	assert_true(in_report > 100);
	assert_true(in_window == in_report);
	assert_true(in_pprof == in_report);
	assert_true(counter == (double)in_report);
	assert_true(json_object_array_length(r) >= 1);
	for (size_t i = 0; i < json_object_array_length(r); i++) {
		json_object *sm = json_object_array_get_idx(r, i);
		const char *inst = agu_sample_label(sm, "feature_instance");

		print_message("  instance %s: %.0f, report %llu\n", inst, agu_sample_value(sm),
			      (unsigned long long)reported(prof, FF_FEATURE, inst));
		assert_true(agu_sample_value(sm) == (double)reported(prof, FF_FEATURE, inst));
	}
	json_object_put(r);
	agu_prom_stop(&pr);
}

/* ---- hostile labels ----------------------------------------------------------------- */

/* wl_agent's hostile labels (tests/workloads/wl_agent.c), as Prometheus
 * must store them: invalid bytes as U+FFFD. */
static const char *const hostile_series[][2] = {
	{"q\"uote\\back}", "new\nline\"} 1\nfsp_forged_total 99"},
	{"q\"uote\\back}", "bad\xef\xbf\xbd\xef\xbf\xbdutf8"},
	{"brace}{,le=\"1\"", "x\\\"\\n"},
};

static size_t sample_lines(const char *text)
{
	size_t n = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += *l != '#' && *l != '\n';
	return n;
}

/* The text format through promtool (Prometheus's own parser and linter). */
static void promtool_check(const char *text)
{
	const char *file = itest_tmp("metrics.txt");
	char cmd[2 * 4096];
	FILE *f = fopen(file, "w");
	int rc;

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s 2>&1", file);
	rc = system(cmd);
	assert_int_equal(rc, 0);
}

static void test_hostile_labels(void **state)
{
	AGU_TMP(ready, "ready");
	char *wl_argv[] = {(char *)itest_workload("wl_agent"), ready, "hostile", "1500", NULL};
	struct itest_proc wl, fsp;
	struct agu_prom pr;
	char url[96], *om = NULL, *text = NULL;
	unsigned int port;
	json_object *r;
	size_t found = 0;

	(void)state;
	agu_spawn_workload(&wl, ready, wl_argv);
	port = agu_start_agent(&fsp, "fsp", "0", wl.pid, NULL);
	scrape_finished(&pr, port);
	assert_true(agu_prom_value(&pr, "up{job=\"fsp\"}", 0) == 1);
	/* Every line Prometheus read is one we wrote: none was split or forged. */
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/metrics", port);
	assert_int_equal(agu_get(url, &om, "-H",
				 "Accept: application/openmetrics-text; version=1.0.0", NULL),
			 200);
	assert_true(agu_prom_value(&pr, "scrape_samples_scraped{job=\"fsp\"}", 0) ==
		    (double)sample_lines(om));
	r = agu_prom_query(&pr, "{job=\"fsp\",__name__=~\".*forged.*\"}");
	assert_int_equal(json_object_array_length(r), 0);
	json_object_put(r);
	r = agu_prom_query(&pr, "fsp_feature_samples_total{job=\"fsp\"}");
	assert_int_equal(json_object_array_length(r), 3);
	for (size_t i = 0; i < json_object_array_length(r); i++) {
		json_object *s = json_object_array_get_idx(r, i);

		assert_string_equal(agu_sample_label(s, "process"), "ev\"il}\nx");
		for (size_t k = 0; k < 3; k++)
			found += !strcmp(agu_sample_label(s, "feature"), hostile_series[k][0]) &&
				 !strcmp(agu_sample_label(s, "feature_instance"),
					 hostile_series[k][1]);
		assert_true(agu_sample_value(s) > 0);
	}
	assert_int_equal(found, 3);
	json_object_put(r);
	/* The text format (0.0.4) parses and lints with promtool. */
	assert_int_equal(agu_get(url, &text, "-H", "Accept: text/plain", NULL), 200);
	assert_null(strstr(text, "# EOF"));
	promtool_check(text);
	free(om);
	free(text);
	itest_signal(&wl, SIGTERM);
	itest_wait(&wl, 15);
	itest_stop_fsp(&fsp);
	agu_prom_stop(&pr);
}

/* ---- TLS and a bearer token -------------------------------------------------------------- */

static void write_private(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0600), 0);
}

/* A self-signed certificate for 127.0.0.1 (openssl). */
static void make_cert(const char *cert, const char *key)
{
	char cmd[3 * 4096];

	snprintf(cmd, sizeof(cmd),
		 "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
		 "-keyout %s -out %s -days 2 -subj /CN=127.0.0.1 -addext "
		 "subjectAltName=IP:127.0.0.1 >/dev/null 2>&1",
		 key, cert);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(chmod(key, 0600), 0);
}

static void test_tls_bearer(void **state)
{
	AGU_TMP(ready, "ready");
	AGU_TMP(dump, "dump");
	AGU_TMP(cert, "cert.pem");
	AGU_TMP(key, "key.pem");
	AGU_TMP(auth, "auth");
	AGU_TMP(good, "good");
	AGU_TMP(bad, "bad");
	char *wl_argv[] = {(char *)itest_workload("wl_service"), ready, dump, NULL};
	const char *const extra[] = {"--tls-cert",  cert, "--tls-key", key,
				     "--auth-file", auth, NULL};
	char url[96], tls[4096 * 3], *cfg, *cfg2, *both, *targets = NULL, header[64];
	struct itest_proc wl, fsp;
	struct agu_prom pr;
	unsigned int port;

	(void)state;
	make_cert(cert, key);
	write_private(auth, "# the scrapers' token\nBearer right-Token_1\n");
	write_private(good, "right-Token_1\n");
	write_private(bad, "wrong-token\n");
	agu_spawn_workload(&wl, ready, wl_argv);
	port = agu_start_agent(&fsp, "fsp", "127.0.0.1:0", wl.pid, extra);
	snprintf(tls, sizeof(tls),
		 "    scheme: https\n    tls_config:\n      ca_file: %s\n    authorization:\n"
		 "      credentials_file: %s\n",
		 cert, good);
	cfg = job("fsp", port, tls);
	snprintf(tls, sizeof(tls),
		 "    scheme: https\n    tls_config:\n      ca_file: %s\n    authorization:\n"
		 "      credentials_file: %s\n",
		 cert, bad);
	cfg2 = job("wrong", port, tls);
	assert_true(asprintf(&both, "%s%s", cfg, cfg2) > 0);
	agu_prom_start(&pr, both);
	assert_true(agu_prom_wait(&pr, "fsp_target_samples_total{job=\"fsp\"}", 1, 60));
	assert_true(agu_prom_value(&pr, "up{job=\"fsp\"}", 0) == 1);
	assert_true(agu_prom_wait(&pr, "count(up{job=\"wrong\"} == 0)", 1, 30));
	/* Prometheus says why: the agent answered 401. */
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/api/v1/targets", pr.port);
	assert_int_equal(agu_get(url, &targets, NULL), 200);
	assert_non_null(strstr(targets, "401"));
	/* The same by hand: no token, a wrong one, plain HTTP. */
	snprintf(url, sizeof(url), "https://127.0.0.1:%u/metrics", port);
	assert_int_equal(agu_get(url, NULL, "--cacert", cert, NULL), 401);
	assert_int_equal(
		agu_get(url, NULL, "--cacert", cert, "-H", "Authorization: Bearer wrong", NULL),
		401);
	snprintf(header, sizeof(header), "Authorization: Bearer right-Token_1");
	assert_int_equal(agu_get(url, NULL, "--cacert", cert, "-H", header, NULL), 200);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/metrics", port);
	assert_int_equal(agu_get(url, NULL, "-H", header, NULL), 0);
	free(targets);
	free(cfg);
	free(cfg2);
	free(both);
	itest_stop_fsp(&fsp);
	itest_signal(&wl, SIGTERM);
	itest_wait(&wl, 15);
	agu_prom_stop(&pr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_prometheus_shares), ITEST(test_instance_cap),
		ITEST(test_function_features), ITEST(test_hostile_labels),
		ITEST(test_tls_bearer),
	};

	return ITEST_MAIN("agent", tests);
}
