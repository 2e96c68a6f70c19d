// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The agent (record --listen) scraped by a real Prometheus (Debian's,
 * started here on 127.0.0.1 with a 1 s scrape interval): feature shares
 * from PromQL against the workload's own truth, monotonic counters, a
 * restart of fsp-bpf as a counter reset rate() survives, the instance cap,
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

/*
 * The shares of the window ending at `at` against the truth (itest.c's
 * derivation, 2b): the window covers W = n T of CPU time (T: the sampling
 * period); each of its `cuts` ends (its own two, and around a restart the end
 * of the first session's last scrape and the start of the second) cuts a cycle
 * short (L_c / W each), and a session that attached inside it counts, for up
 * to att_ns (its start until its "profiling" line), samples no mark can be
 * charged to, and misses the mark open when it attached (one more cycle).
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

		share_at(pr, features[i], at, window, &k, &n);
		snprintf(key, sizeof(key), "feature.%s", features[i]);
		ok &= itest_truth_share_ok(
			features[i], k, n, t, key, cpu,
			n ? (cuts * CYCLE_NS + (att_ns ? att_ns + CYCLE_NS : 0)) / (n * T) : 0);
	}
	return ok;
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
	const char *const extra[] = {"-F", ITEST_HZ, NULL};
	struct itest_proc wl, fsp1, fsp2;
	struct agu_prom pr;
	struct itest_truth *t;
	char listen[32], *cfg;
	unsigned int port = agu_free_port();
	double restart, at, att_s;
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
	agu_start_agent(&fsp2, "fsp2", listen, wl.pid, extra);
	att_s = agu_unix_now() - restart;
	assert_true(agu_prom_wait(&pr, "sum(resets(fsp_target_samples_total{job=\"fsp\"}[1m]))", 1,
				  60));
	/* 10 s more: rate() over 30 s spans both sessions and the gap. */
	assert_true(agu_prom_wait(
		&pr, "count_over_time(fsp_target_samples_total{job=\"fsp\"}[10s])", 9, 60));
	at = agu_unix_now();
	assert_true(at - 30 < restart);
	print_message("shares over 30 s across the restart:\n");
	print_message("(the second session attached within %.3f s)\n", att_s);
	ok &= shares_ok(&pr, t, at, 30, 4, att_s * 1e9);
	itest_stop_fsp(&fsp2);
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
		ITEST(test_prometheus_shares),
		ITEST(test_instance_cap),
		ITEST(test_hostile_labels),
		ITEST(test_tls_bearer),
	};

	return ITEST_MAIN("agent", tests);
}
