// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the Prometheus metrics (analysis/metrics/): escaping, the
 * exposition, differences between snapshots, the cardinality bound, expiry,
 * compaction. */
#include <errno.h>
#include <stdio.h>

#include "metrics.h"
#include "metrics_int.h"
#include "unit_helpers.h"

#define MS 1000000ULL

/* ---- helpers --------------------------------------------------------------------- */

static struct profile *snapshot(void)
{
	struct profile_meta meta = {.target = "test", .period_ns = MS, .frequency_hz = 1000};
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &meta), 0);
	return p;
}

/* One thread per process: pid's main thread named comm. */
static void proc(struct profile *p, uint32_t pid, const char *comm)
{
	assert_int_equal(profile__add_thread(p, pid, pid, comm), 0);
}

/* n samples of pid's main thread with one mark (feature, instance), key k. */
static void marked(struct profile *p, uint32_t pid, uint64_t k, const char *f, const char *i,
		   uint64_t n)
{
	if (profile__find_stack(p, pid, k, NULL))
		ADD_STACK(p, pid, k, MARK(f, i));
	ADD_SAMPLES(p, pid, pid, k, n);
}

static char *render(const struct metrics *m, enum metrics_format f)
{
	struct metrics_info info = {.version = "9.9", .marks = "v2", .period_ns = MS};
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	assert_int_equal(metrics__write(m, out, f, &info), 0);
	assert_int_equal(fclose(out), 0);
	return buf;
}

/* The value of the sample line that starts with `series` followed by a
 * blank, -1 if there is none (fails if there are two). */
static double value_of(const char *text, const char *series)
{
	size_t n = strlen(series);
	double v = -1;
	int found = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, series, n) && l[n] == ' ') {
			v = strtod(l + n + 1, NULL);
			found++;
		}
	}
	assert_true(found <= 1);
	return v;
}

static double metric(const struct metrics *m, const char *series)
{
	char *text = render(m, METRICS_TEXT);
	double v = value_of(text, series);

	free(text);
	return v;
}

static void update(struct metrics *m, const struct profile *p, double t, const uint32_t *alive,
		   size_t n)
{
	assert_int_equal(metrics__update(m, p, t, alive, n), 0);
}

/* ---- escaping and formats ----------------------------------------------------------- */

static void assert_label(const char *in, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	metrics__fputs_label(in, out);
	assert_int_equal(fclose(out), 0);
	assert_string_equal(buf, want);
	free(buf);
}

static void test_escape(void **state)
{
	(void)state;
	assert_label("plain", "plain");
	assert_label("a\"b", "a\\\"b");
	assert_label("back\\slash", "back\\\\slash");
	assert_label("line\nbreak", "line\\nbreak");
	assert_label("x\"} 1\nfake_metric 2", "x\\\"} 1\\nfake_metric 2");
	assert_label("bad\xff\xfe", "bad\xef\xbf\xbd\xef\xbf\xbd");
	assert_label("caf\xc3\xa9", "caf\xc3\xa9");
	assert_label("\xe2\x80\xae", "\xe2\x80\xae"); /* valid: kept */
	assert_label("tab\there", "tab\there");
}

static void test_negotiate(void **state)
{
	(void)state;
	assert_int_equal(metrics__negotiate(NULL), METRICS_TEXT);
	assert_int_equal(metrics__negotiate("*/*"), METRICS_TEXT);
	assert_int_equal(metrics__negotiate("text/plain;version=0.0.4"), METRICS_TEXT);
	/* Prometheus 2.42's header */
	assert_int_equal(
		metrics__negotiate("application/openmetrics-text;version=1.0.0,application/"
				   "openmetrics-text;version=0.0.1;q=0.75,text/"
				   "plain;version=0.0.4;q=0.5,*/*;q=0.1"),
		METRICS_OPENMETRICS);
	assert_int_equal(metrics__negotiate("text/plain;q=0.9, application/openmetrics-text;q=0.5"),
			 METRICS_TEXT);
	assert_int_equal(metrics__negotiate("application/openmetrics-text; q=0"), METRICS_TEXT);
	assert_string_equal(metrics__content_type(METRICS_TEXT),
			    "text/plain; version=0.0.4; charset=utf-8");
}

static void test_exposition(void **state)
{
	struct profile *p = snapshot();
	struct metrics *m = metrics__new(NULL);
	uint32_t alive[] = {10};
	char *text, *om;

	(void)state;
	proc(p, 10, "app");
	marked(p, 10, 1, "parse", "tok", 30);
	marked(p, 10, 2, "out", NULL, 12);
	ADD_SAMPLES(p, 10, 10, 0, 8);
	profile__set_diag(p, DIAG_LOST_SAMPLES, 4);
	update(m, p, 1, alive, 1);
	text = render(m, METRICS_TEXT);
	assert_true(value_of(text, "fsp_feature_samples_total{feature=\"parse\",feature_instance="
				   "\"tok\",process=\"app\"}") == 30);
	assert_true(value_of(text, "fsp_feature_cpu_seconds_total{feature=\"out\",feature_instance="
				   "\"(no instance)\",process=\"app\"}") == 0.012);
	assert_true(value_of(text, "fsp_target_samples_total{process=\"app\"}") == 50);
	assert_true(value_of(text, "fsp_target_cpu_seconds_total{process=\"app\"}") == 0.05);
	assert_true(value_of(text, "fsp_lost_samples_total") == 4);
	assert_true(value_of(text, "fsp_build_info{version=\"9.9\",marks=\"v2\"}") == 1);
	assert_non_null(strstr(text, "# TYPE fsp_feature_samples_total counter\n"));
	assert_non_null(strstr(text, "# HELP fsp_feature_samples_total "));
	assert_null(strstr(text, "# EOF"));
	assert_null(strstr(text, "fsp_feature_offcpu")); /* not asked for */
	om = render(m, METRICS_OPENMETRICS);
	assert_non_null(strstr(om, "# TYPE fsp_feature_samples counter\n"));
	assert_non_null(strstr(om, "# UNIT fsp_feature_cpu_seconds seconds\n"));
	assert_non_null(strstr(om, "# TYPE fsp_build info\n"));
	assert_int_equal(strcmp(om + strlen(om) - 6, "# EOF\n"), 0);
	assert_int_equal(metrics__nr_series(m), 3); /* 2 instances, 1 total */
	free(text);
	free(om);
	metrics__free(m);
	profile__free(p);
}

/* A label cannot end its value or its line: each hostile label is one
 * series, and the text has no line the labels made. */
static void test_hostile_labels(void **state)
{
	static const char *const hostile[] = {"q\"uote",  "back\\",  "new\nline",
					      "brace} 1", "bad\xff", "x\"} 1\nfsp_forged_total 99"};
	struct profile *p = snapshot();
	struct metrics *m = metrics__new(NULL);
	uint32_t alive[] = {10};
	size_t lines = 0;
	char *text;

	(void)state;
	proc(p, 10, "evil\n\"}");
	for (size_t i = 0; i < sizeof(hostile) / sizeof(*hostile); i++)
		marked(p, 10, i + 1, hostile[i], hostile[i], i + 1);
	update(m, p, 1, alive, 1);
	text = render(m, METRICS_OPENMETRICS);
	assert_null(strstr(text, "\nfsp_forged_total"));
	for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
		/* every line is a comment or starts with a metric name, and
		 * every sample line has balanced braces */
		assert_true(*l == '#' || !strncmp(l, "fsp_", 4) || !strncmp(l, "process_", 8));
		lines++;
	}
	assert_true(value_of(text,
			     "fsp_feature_samples_total{feature=\"x\\\"} 1\\nfsp_forged_total "
			     "99\",feature_instance=\"x\\\"} 1\\nfsp_forged_total 99\","
			     "process=\"evil\\n\\\"}\"}") == 6);
	assert_true(value_of(text,
			     "fsp_feature_samples_total{feature=\"bad\xef\xbf\xbd\","
			     "feature_instance=\"bad\xef\xbf\xbd\",process=\"evil\\n\\\"}\"}") ==
		    5);
	assert_true(lines > 10);
	free(text);
	metrics__free(m);
	profile__free(p);
}

/* Two invalid strings that repair to the same text are one series, not two
 * series with the same labels (a scrape error). */
static void test_repaired_collide(void **state)
{
	struct profile *p = snapshot();
	struct metrics *m = metrics__new(NULL);
	uint32_t alive[] = {10};

	(void)state;
	proc(p, 10, "app");
	marked(p, 10, 1, "f", "a\xff", 3);
	marked(p, 10, 2, "f", "a\xfe", 4);
	update(m, p, 1, alive, 1);
	assert_true(metric(m, "fsp_feature_samples_total{feature=\"f\",feature_instance="
			      "\"a\xef\xbf\xbd\",process=\"app\"}") == 7);
	metrics__free(m);
	profile__free(p);
}

static void test_histogram(void **state)
{
	struct profile_event_stats st = {.enters = 5, .leaves = 4, .total_ns = 4100000};
	struct profile *p = snapshot();
	struct metrics *m = metrics__new(NULL);
	uint32_t alive[] = {10};
	char *text;

	(void)state;
	proc(p, 10, "app");
	st.hist[0] = 1; /* < 2 ns */
	st.hist[11] = 2; /* [2048, 4096) ns: le 4.096 us */
	st.hist[21] = 1; /* [2.1, 4.2) ms: le 4.19 ms */
	assert_int_equal(profile__add_events(p, 10, "db", "q1", &st), 0);
	update(m, p, 1, alive, 1);
	text = render(m, METRICS_TEXT);
	assert_true(value_of(text, "fsp_feature_calls_total{feature=\"db\",feature_instance=\"q1\","
				   "process=\"app\"}") == 5);
#define H "fsp_feature_call_duration_seconds"
#define L "feature=\"db\",feature_instance=\"q1\",process=\"app\""
	assert_true(value_of(text, H "_bucket{" L ",le=\"0.000001024\"}") == 1);
	assert_true(value_of(text, H "_bucket{" L ",le=\"0.000004096\"}") == 3);
	assert_true(value_of(text, H "_bucket{" L ",le=\"0.001048576\"}") == 3);
	assert_true(value_of(text, H "_bucket{" L ",le=\"0.004194304\"}") == 4);
	assert_true(value_of(text, H "_bucket{" L ",le=\"+Inf\"}") == 4);
	assert_true(value_of(text, H "_count{" L "}") == 4);
	assert_true(value_of(text, H "_sum{" L "}") == 0.0041);
#undef H
#undef L
	free(text);
	metrics__free(m);
	profile__free(p);
}

/* ---- differences, monotonic counters ----------------------------------------------- */

static void test_counters_follow_snapshots(void **state)
{
	struct profile *p1 = snapshot(), *p2 = snapshot();
	struct metrics *m = metrics__new(NULL);
	uint32_t alive[] = {10};
	const char *s = "fsp_feature_samples_total{feature=\"f\",feature_instance=\"i\","
			"process=\"app\"}";

	(void)state;
	proc(p1, 10, "app");
	marked(p1, 10, 1, "f", "i", 5);
	proc(p2, 10, "app");
	marked(p2, 10, 1, "f", "i", 9);
	update(m, p1, 1, alive, 1);
	assert_true(metric(m, s) == 5);
	update(m, p2, 2, alive, 1);
	assert_true(metric(m, s) == 9);
	/* A snapshot with less (records moved away) does not take back. */
	update(m, p1, 3, alive, 1);
	assert_true(metric(m, s) == 9);
	update(m, p2, 4, alive, 1);
	assert_true(metric(m, s) == 13);
	metrics__free(m);
	profile__free(p1);
	profile__free(p2);
}

/*
 * -a's retirement folds exited process 11 into 20, an exited process of
 * the same name: by name the counter grows only by what 11 did after the
 * last update; by pid, 11 keeps its series, 20 (seen exited) stays as it
 * was, and 11's last part goes to (name, pid "other").
 */
static struct profile *fold_before(void)
{
	struct profile *p = snapshot();

	proc(p, 11, "w");
	proc(p, 20, "w");
	marked(p, 11, 1, "f", "i", 5);
	marked(p, 20, 1, "f", "i", 100);
	return p;
}

static struct profile *fold_after(void)
{
	struct profile *p = snapshot();

	proc(p, 20, "w");
	marked(p, 20, 1, "f", "i", 108); /* 100 + 11's 5 + 3 more */
	return p;
}

static void test_fold_by_name(void **state)
{
	struct profile *a = fold_before(), *b = fold_after();
	struct metrics *m = metrics__new(NULL);
	uint32_t alive[] = {11};

	(void)state;
	update(m, a, 1, alive, 1);
	assert_true(metric(m, "fsp_feature_samples_total{feature=\"f\",feature_instance=\"i\","
			      "process=\"w\"}") == 105);
	update(m, b, 2, NULL, 0);
	assert_true(metric(m, "fsp_feature_samples_total{feature=\"f\",feature_instance=\"i\","
			      "process=\"w\"}") == 108);
	metrics__free(m);
	profile__free(a);
	profile__free(b);
}

static void test_fold_by_pid(void **state)
{
	struct metrics_opts o = {.by_pid = true};
	struct profile *a = fold_before(), *b = fold_after();
	struct metrics *m = metrics__new(&o);
	uint32_t alive[] = {11};

	(void)state;
	update(m, a, 1, alive, 1);
	update(m, b, 2, NULL, 0);
#define S(pid)                                                                                     \
	"fsp_feature_samples_total{feature=\"f\",feature_instance=\"i\",process=\"w\"," pid "}"
	assert_true(metric(m, S("pid=\"11\"")) == 5);
	assert_true(metric(m, S("pid=\"20\"")) == 100);
	assert_true(metric(m, S("pid=\"other\"")) == 3);
#undef S
	metrics__free(m);
	profile__free(a);
	profile__free(b);
}

/* ---- the bound ------------------------------------------------------------------------ */

static void test_instance_cap(void **state)
{
	struct metrics_opts o = {.max_instances = 2};
	struct profile *p1 = snapshot(), *p2 = snapshot();
	struct metrics *m = metrics__new(&o);
	uint32_t alive[] = {10};
	char name[32];

	(void)state;
	proc(p1, 10, "app");
	proc(p2, 10, "app");
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "i%d", i);
		marked(p1, 10, i + 1, "f", name, 10 + i);
		marked(p2, 10, i + 1, "f", name, 20 + i);
	}
	update(m, p1, 1, alive, 1);
#define S(i) "fsp_feature_samples_total{feature=\"f\",feature_instance=\"" i "\",process=\"app\"}"
	assert_true(metric(m, S("i0")) == 10);
	assert_true(metric(m, S("i1")) == 11);
	assert_true(metric(m, S("i2")) == -1);
	assert_true(metric(m, S("other")) == 12 + 13 + 14);
	assert_int_equal(metrics__nr_folded(m), 3);
	/* admitted instances keep their series; totals are unchanged */
	update(m, p2, 2, alive, 1);
	assert_true(metric(m, S("i0")) == 20);
	assert_true(metric(m, S("i1")) == 21);
	assert_true(metric(m, S("other")) == 22 + 23 + 24);
	assert_true(metric(m, "fsp_target_samples_total{process=\"app\"}") == 110);
#undef S
	metrics__free(m);
	profile__free(p1);
	profile__free(p2);
}

static void test_feature_and_process_caps(void **state)
{
	struct metrics_opts o = {.max_features = 1, .max_processes = 1};
	struct profile *p = snapshot();
	struct metrics *m = metrics__new(&o);
	uint32_t alive[] = {10, 11};

	(void)state;
	proc(p, 10, "a");
	proc(p, 11, "b");
	marked(p, 10, 1, "f", "i", 3);
	marked(p, 10, 2, "g", "j", 4);
	marked(p, 11, 1, "f", "i", 5);
	update(m, p, 1, alive, 2);
	assert_true(metric(m, "fsp_feature_samples_total{feature=\"f\",feature_instance=\"i\","
			      "process=\"a\"}") == 3);
	assert_true(metric(m, "fsp_feature_samples_total{feature=\"other\",feature_instance="
			      "\"other\",process=\"a\"}") == 4);
	assert_true(metric(m, "fsp_feature_samples_total{feature=\"f\",feature_instance=\"i\","
			      "process=\"other\"}") == 5);
	assert_true(metric(m, "fsp_target_samples_total{process=\"other\"}") == 5);
	metrics__free(m);
	profile__free(p);
}

/* ---- expiry and compaction --------------------------------------------------------------- */

static void test_expiry(void **state)
{
	struct metrics_opts o = {.expire_s = 10, .max_processes = 1};
	struct profile *p = snapshot(), *q = snapshot();
	struct metrics *m = metrics__new(&o);
	uint32_t both[] = {10, 11}, live[] = {10}, later[] = {12};

	(void)state;
	proc(p, 10, "live");
	proc(p, 11, "gone");
	marked(p, 10, 1, "f", "i", 3);
	update(m, p, 0, live, 1);
	update(m, p, 5, both, 2);
	assert_true(metric(m, "fsp_target_samples_total{process=\"live\"}") == 3);
	/* "live" exits: its series stay expire_s, then go */
	update(m, p, 14, NULL, 0);
	assert_true(metric(m, "fsp_target_samples_total{process=\"live\"}") == 3);
	update(m, p, 16, NULL, 0);
	assert_true(metric(m, "fsp_target_samples_total{process=\"live\"}") == -1);
	assert_int_equal(metrics__nr_series(m), 0);
	/* its place in the bound is free again */
	proc(q, 10, "live");
	proc(q, 12, "new");
	marked(q, 10, 1, "f", "i", 3);
	marked(q, 12, 1, "f", "i", 7);
	update(m, q, 20, later, 1);
	assert_true(metric(m, "fsp_target_samples_total{process=\"new\"}") == 7);
	metrics__free(m);
	profile__free(p);
	profile__free(q);
}

/* Processes with new names come and go (-a with churn, hostile comms): the
 * tables stay bounded by what is alive within the expiry time. */
static void test_churn_bounded(void **state)
{
	struct metrics_opts o = {.expire_s = 5};
	struct metrics *m = metrics__new(&o);
	size_t most = 0;
	char comm[32];

	(void)state;
	for (uint32_t t = 0; t < 400; t++) {
		struct profile *p = snapshot();
		uint32_t alive[20];

		/* 20 processes alive at a time, each a new name, 40 updates each */
		for (uint32_t k = 0; k < 20; k++) {
			uint32_t pid = 1000 + t / 40 * 20 + k;

			snprintf(comm, sizeof(comm), "c%u", pid);
			proc(p, pid, comm);
			snprintf(comm, sizeof(comm), "inst%u", pid);
			marked(p, pid, 1, "f", comm, t + 1);
			alive[k] = pid;
		}
		update(m, p, t, alive, 20);
		profile__free(p);
		if (m->nr_owners + m->nr_insts + m->series.n > most)
			most = m->nr_owners + m->nr_insts + m->series.n;
	}
	assert_true(metrics__nr_series(m) <= 2 * 20 * 2);
	assert_true(most < 2 * 4096 + 1000);
	metrics__free(m);
}

/* A compaction keeps every counter as it was. */
static void test_compaction_keeps_counters(void **state)
{
	struct metrics_opts o = {.expire_s = 1};
	struct metrics *m = metrics__new(&o);
	uint32_t alive[] = {1};
	char name[32];

	(void)state;
	for (uint32_t t = 0; t < 3000; t++) {
		struct profile *p = snapshot();

		proc(p, 1, "keeper");
		marked(p, 1, 1, "f", "stay", t + 1);
		snprintf(name, sizeof(name), "n%u", t);
		marked(p, 1, 2 + t % 7, "g", name, 1);
		update(m, p, t * 2.0, alive, 1);
		profile__free(p);
	}
	assert_true(m->live_at_compaction > 0); /* it compacted */
	assert_true(metric(m, "fsp_feature_samples_total{feature=\"f\",feature_instance=\"stay\","
			      "process=\"keeper\"}") == 3000);
	metrics__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_negotiate),
		cmocka_unit_test(test_exposition),
		cmocka_unit_test(test_hostile_labels),
		cmocka_unit_test(test_repaired_collide),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_counters_follow_snapshots),
		cmocka_unit_test(test_fold_by_name),
		cmocka_unit_test(test_fold_by_pid),
		cmocka_unit_test(test_instance_cap),
		cmocka_unit_test(test_feature_and_process_caps),
		cmocka_unit_test(test_expiry),
		cmocka_unit_test(test_churn_bounded),
		cmocka_unit_test(test_compaction_keeps_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
