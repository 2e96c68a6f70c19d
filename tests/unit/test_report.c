// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the renderers (analysis/render/text/report_text.c, the JSON profile of analysis/io/profile_write.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attrib.h"
#include "profile_io.h"
#include "render_fixture.h"
#include "report.h"

/* The text report as a string (free it). */
static char *render_text(const struct profile *p, const struct attrib *a, double min_pct)
{
	struct report_opts o = {.min_pct = min_pct};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report__text(f, p, a, &o), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static char *render_json(const struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(profile__write_json(f, p), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static struct json_object *parse(const char *text)
{
	struct json_object *o = json_tokener_parse(text);

	assert_non_null(o);
	assert_true(json_object_is_type(o, json_type_object));
	return o;
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no key \"%s\"", key);
	return v;
}

static const char *get_str(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	assert_true(json_object_is_type(v, json_type_string));
	return json_object_get_string(v);
}

static uint64_t get_u64(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	assert_true(json_object_is_type(v, json_type_int));
	return json_object_get_uint64(v);
}

static double get_double(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	assert_true(json_object_is_type(v, json_type_double) ||
		    json_object_is_type(v, json_type_int));
	return json_object_get_double(v);
}

static int near(double a, double b)
{
	return a - b < 1e-9 && b - a < 1e-9;
}

/* Element i of array a (sample rows and frames are arrays). */
static struct json_object *at(struct json_object *a, size_t i)
{
	assert_true(json_object_is_type(a, json_type_array));
	assert_true(i < json_object_array_length(a));
	return json_object_array_get_idx(a, i);
}

static uint64_t at_u64(struct json_object *a, size_t i)
{
	struct json_object *v = at(a, i);

	assert_true(json_object_is_type(v, json_type_int));
	return json_object_get_uint64(v);
}

/* The label element i of frame or event field v refers to (NULL: null). */
static const char *label(struct json_object *o, struct json_object *v)
{
	if (!v || json_object_is_type(v, json_type_null))
		return NULL;
	assert_true(json_object_is_type(v, json_type_int));
	v = at(get(o, "strings"), json_object_get_uint64(v));
	assert_true(json_object_is_type(v, json_type_string));
	return json_object_get_string(v);
}

/* Element i of a frame, NULL when the frame has no element i. */
static struct json_object *frame_elem(struct json_object *fr, size_t i)
{
	assert_true(json_object_is_type(fr, json_type_array));
	return i < json_object_array_length(fr) ? json_object_array_get_idx(fr, i) : NULL;
}

/* ---- text ---------------------------------------------------------------------- */

static const char demo_text[] =
	"fsp-bpf 0.1.0: feature profile of pid 1234 (demo)\n"
	"  3.00 s, 1000 Hz (1.000 ms per sample), 100 samples = 100.0 ms on CPU, 1 process, "
	"2 threads\n"
	"\n"
	"Output accounts for 80.00% of running time (80.0 / 100.0 ms, 80 samples)\n"
	"      70.0 ms  70.00%  fizzbuzz.c:8\n"
	"      10.0 ms  10.00%  fizzbuzz.c:7\n"
	"Generic sequences accounts for 20.00% of running time (20.0 / 100.0 ms, 20 samples)\n"
	"      20.0 ms  20.00%  fizzbuzz.c:3\n"
	"\n"
	"Note: each sample is charged to every feature with a live mark in its thread, so the "
	"shares above\n"
	"may sum to more than 100%, and samples in no feature (here 20.00%) make them sum to "
	"less.\n"
	"\n"
	"Diagnostics: all counters are zero (no samples lost, no unknown stacks, no unmatched "
	"leaves, no overflows, no stale marks, no errors)\n";

static void test_text_exact(void **state)
{
	struct profile *p = *state;
	struct attrib *a = attrib__compute(p, NULL);
	char *text;

	assert_non_null(a);
	text = render_text(p, a, 0);
	assert_string_equal(text, demo_text);
	free(text);
	/* without an attribution the renderer computes one */
	text = render_text(p, NULL, 0);
	assert_string_equal(text, demo_text);
	free(text);
	attrib__free(a);
}

static void remove_tree(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * Switches LC_NUMERIC to a locale with a decimal comma: an installed one, else
 * one compiled with localedef into a temporary LOCPATH (dir, removed by the
 * caller when set). 0 on success.
 */
static int comma_locale(char *dir, size_t size)
{
	char cmd[256];

	dir[0] = 0;
	if (setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "fr_FR.UTF-8"))
		return 0;
	snprintf(dir, size, "/tmp/fsp-unit-locale-XXXXXX");
	if (!mkdtemp(dir)) {
		dir[0] = 0;
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' >/dev/null 2>&1",
		 dir);
	if (system(cmd))
		return -1;
	setenv("LOCPATH", dir, 1);
	return setlocale(LC_NUMERIC, "de_DE.UTF-8") ? 0 : -1;
}

static void test_locale_independent(void **state)
{
	struct profile *p = *state;
	char *saved, *text, *json, buf[16], dir[64];
	struct json_object *o;
	int err;

	saved = strdup(setlocale(LC_NUMERIC, NULL));
	assert_non_null(saved);
	err = comma_locale(dir, sizeof(dir));
	if (err) {
		free(saved);
		if (dir[0])
			remove_tree(dir);
		skip();
	}
	snprintf(buf, sizeof(buf), "%.1f", 1.5);
	text = render_text(p, NULL, 0);
	json = render_json(p);
	setlocale(LC_NUMERIC, saved);
	free(saved);
	if (dir[0]) {
		unsetenv("LOCPATH");
		remove_tree(dir);
	}
	assert_string_equal(buf, "1,5"); /* the locale was really in effect */
	assert_string_equal(text, demo_text);
	o = parse(json);
	assert_true(get_double(o, "start_time") == 1700000000.25);
	assert_true(
		near(get_double(json_object_array_get_idx(get(o, "features"), 0), "pct"), 80.0));
	json_object_put(o);
	free(text);
	free(json);
}

static void test_text_min_pct(void **state)
{
	struct profile *p = *state;
	struct attrib *a = attrib__compute(p, NULL);
	char *text;

	assert_non_null(a);
	/* 10% instance folded; 20% feature and its 20% instance kept (not below) */
	text = render_text(p, a, 15);
	assert_non_null(strstr(text, "      70.0 ms  70.00%  fizzbuzz.c:8\n"
				     "      ... 1 more instance below 15.00% (10.0 ms)\n"
				     "Generic sequences accounts for 20.00%"));
	assert_null(strstr(text, "fizzbuzz.c:7"));
	assert_non_null(strstr(text, "      20.0 ms  20.00%  fizzbuzz.c:3\n\nNote:"));
	assert_null(strstr(text, "more feature"));
	free(text);

	text = render_text(p, a, 20);
	assert_non_null(strstr(text, "fizzbuzz.c:3\n\nNote:"));
	free(text);

	/* the whole second feature folded */
	text = render_text(p, a, 20.01);
	assert_null(strstr(text, "Generic sequences"));
	assert_null(strstr(text, "fizzbuzz.c:3"));
	assert_non_null(strstr(text, "      ... 1 more instance below 20.01% (10.0 ms)\n"
				     "... 1 more feature below 20.01% of running time\n"
				     "\nNote:"));
	/* the note still gives the share of uncharged samples */
	assert_non_null(strstr(text, "(here 20.00%)"));
	free(text);

	/* everything folded */
	text = render_text(p, a, 90);
	assert_null(strstr(text, "accounts for"));
	assert_non_null(strstr(text, "\n... 2 features below 90.00% of running time\n"));
	free(text);
	attrib__free(a);
}

static void test_text_min_pct_many_instances(void **state)
{
	struct profile *p = profile__new();
	char inst[16], *text;
	uint64_t k;

	(void)state;
	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &demo_meta), 0);
	/* one instance of 60, six of 5..10: 60 + 45 = 105 samples */
	ADD_STACK(p, 1, 100, MARK("F", "big"));
	ADD_SAMPLES(p, 1, 1, 100, 60);
	for (k = 5; k <= 10; k++) {
		struct profile_frame fr;

		snprintf(inst, sizeof(inst), "small%u", (unsigned int)k);
		fr = MARK("F", inst);
		assert_int_equal(profile__add_stack(p, 1, k, &fr, 1), 0);
		ADD_SAMPLES(p, 1, 1, k, k);
	}
	text = render_text(p, NULL, 8); /* 8% of 105 = 8.4 samples: 9 and 10 shown */
	assert_non_null(strstr(text, "F accounts for 100.00% of running time (105.0 / 105.0 ms, "
				     "105 samples)\n"
				     "      60.0 ms  57.14%  big\n"
				     "      10.0 ms   9.52%  small10\n"
				     "       9.0 ms   8.57%  small9\n"
				     "      ... 4 more instances below 8.00% (26.0 ms)\n"));
	free(text);
	/* instances all below, feature above */
	text = render_text(p, NULL, 60);
	assert_non_null(strstr(text, "F accounts for 100.00%"));
	assert_non_null(strstr(text, "      ... 7 instances below 60.00% (105.0 ms)\n"));
	free(text);
	profile__free(p);
}

static void test_text_zero_samples(void **state)
{
	struct profile *p = profile__new();
	char *text;

	(void)state;
	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &demo_meta), 0);
	assert_int_equal(profile__add_pid(p, 1234), 0);
	text = render_text(p, NULL, 0);
	assert_string_equal(
		text, "fsp-bpf 0.1.0: feature profile of pid 1234 (demo)\n"
		      "  3.00 s, 1000 Hz (1.000 ms per sample), 0 samples = 0.0 ms on CPU, "
		      "1 process, 0 threads\n"
		      "\n"
		      "no samples were taken of the target (was it running on a CPU?)\n"
		      "\n"
		      "Diagnostics: all counters are zero (no samples lost, no unknown stacks, "
		      "no unmatched leaves, no overflows, no stale marks, no errors)\n");
	free(text);
	profile__free(p);
}

static void test_text_no_feature(void **state)
{
	struct profile *p = profile__new();
	char *text;

	(void)state;
	assert_non_null(p);
	ADD_SAMPLES(p, 7, 7, 0, 3);
	ADD_SAMPLES(p, 7, 8, 0, 1);
	text = render_text(p, NULL, 0);
	/* no meta: defaults, period derived from nothing */
	assert_non_null(strstr(text, ": feature profile of an unnamed target\n"));
	assert_non_null(strstr(text, "4 samples = 0.0 ms on CPU, 1 process, 2 threads\n"));
	assert_non_null(strstr(text, "\nno feature was charged: none of the 4 samples had a live "
				     "mark\n"));
	assert_null(strstr(text, "Note:"));
	free(text);
	profile__free(p);
}

static void test_text_period_from_frequency(void **state)
{
	struct profile *p = *state;
	struct profile_meta m = demo_meta;
	char *text;

	m.frequency_hz = 999;
	m.period_ns = 0;
	assert_int_equal(profile__set_meta(p, &m), 0);
	text = render_text(p, NULL, 0);
	assert_non_null(strstr(text, "999 Hz (1.001 ms per sample), 100 samples = 100.1 ms on "
				     "CPU"));
	assert_non_null(strstr(text, "(80.1 / 100.1 ms, 80 samples)"));
	free(text);
	/* the JSON profile gives the period it used */
	{
		char *json = render_json(p);
		struct json_object *o = parse(json);

		assert_int_equal(get_u64(o, "period_ns"), 1001001);
		assert_true(near(get_double(o, "total_ms"), 100.1001));
		json_object_put(o);
		free(json);
	}
}

static void test_text_diagnostics(void **state)
{
	struct profile *p = *state;
	char *text, *diag;
	int d, n = 0;

	profile__set_diag(p, DIAG_LOST_SAMPLES, 12);
	profile__set_diag(p, DIAG_STALE_MARKS, 3);
	profile__set_diag(p, DIAG_ATTACH_ERRORS, 1);
	text = render_text(p, NULL, 0);
	diag = strstr(text, "\nDiagnostics:\n");
	assert_non_null(diag);
	assert_string_equal(diag, "\nDiagnostics:\n"
				  "  lost_samples: 12 (samples the kernel side could not record)\n"
				  "  stale_marks: 3 (marks dropped because their frame was unwound "
				  "without a leave)\n"
				  "  attach_errors: 1 (probe sites or processes fsp-bpf failed to "
				  "attach to)\n");
	assert_null(strstr(text, "all counters are zero"));
	free(text);

	/* --off-cpu's: intervals recovered after a missed sched_switch, and lost */
	profile__set_diag(p, DIAG_OFFCPU_RECOVERED, 2);
	profile__set_diag(p, DIAG_OFFCPU_LOST, 1);
	text = render_text(p, NULL, 0);
	assert_non_null(strstr(text,
			       "  attach_errors: 1 (probe sites or processes fsp-bpf failed to "
			       "attach to)\n"
			       "  offcpu_recovered: 2 (off-CPU intervals whose end (or start) "
			       "the kernel's sched_switch tracepoint did not report, recovered "
			       "from the thread's CPU clock)\n"
			       "  offcpu_lost: 1 (off-CPU intervals not recorded: the counts map "
			       "was full or their thread had no off-CPU record)\n"));
	free(text);
	profile__set_diag(p, DIAG_OFFCPU_RECOVERED, 0);
	profile__set_diag(p, DIAG_OFFCPU_LOST, 0);

	/* event_drops counts enters (the BPF side counts each enter it cannot
	 * count; their leaves then count nowhere): the footer says so */
	profile__set_diag(p, DIAG_LOST_SAMPLES, 0);
	profile__set_diag(p, DIAG_STALE_MARKS, 0);
	profile__set_diag(p, DIAG_ATTACH_ERRORS, 0);
	profile__set_diag(p, DIAG_EVENT_DROPS, 7);
	text = render_text(p, NULL, 0);
	diag = strstr(text, "\nDiagnostics:\n");
	assert_non_null(diag);
	assert_string_equal(diag, "\nDiagnostics:\n"
				  "  event_drops: 7 (enters not counted, nor then their leaves, "
				  "because the event map was full; raise --max-events)\n");
	assert_null(strstr(text, "enters and leaves"));
	free(text);

	/* every counter gets its line with its description */
	for (d = 0; d < DIAG__COUNT; d++)
		profile__set_diag(p, d, 1000 + d);
	text = render_text(p, NULL, 0);
	for (d = 0; d < DIAG__COUNT; d++) {
		char line[256];

		snprintf(line, sizeof(line), "  %s: %d (%s)\n", profile_diag__name(d), 1000 + d,
			 profile_diag__describe(d));
		assert_non_null(strstr(text, line));
		n++;
	}
	assert_int_equal(n, DIAG__COUNT);
	free(text);
}

static void test_text_selection(void **state)
{
	struct profile *p = *state;
	struct attrib_opts o = {.tid = 1235};
	struct attrib *a = attrib__compute(p, &o);
	char *text;

	assert_non_null(a);
	text = render_text(p, a, 0);
	assert_non_null(strstr(text, "  selection: 15 of these 100 samples (15.0 ms)\n"));
	assert_non_null(strstr(text, "Output accounts for 66.67% of running time (10.0 / 15.0 ms, "
				     "10 samples)\n"
				     "      10.0 ms  66.67%  fizzbuzz.c:7\n"));
	assert_null(strstr(text, "Generic"));
	assert_non_null(strstr(text, "(here 33.33%)"));
	free(text);
	attrib__free(a);
}

static void test_text_write_error(void **state)
{
	struct profile *p = *state;
	FILE *f = fopen("/dev/full", "w");

	if (!f)
		skip();
	assert_int_equal(report__text(f, p, NULL, NULL), -ENOSPC);
	fclose(f);
	assert_int_equal(report__text(NULL, p, NULL, NULL), -EINVAL);
	assert_int_equal(report__text(stdout, NULL, NULL, NULL), -EINVAL);
}

/* ---- JSON ---------------------------------------------------------------------- */

static void test_json_fields(void **state)
{
	struct profile *p = *state;
	struct json_object *o, *v, *f, *i, *d;
	char *text;
	int k;

	profile__set_diag(p, DIAG_UNMATCHED_LEAVES, 4);
	profile__set_diag(p, DIAG_LOST_SAMPLES, UINT64_MAX);
	text = render_json(p);
	o = parse(text);

	assert_int_equal(get_u64(o, "version"), 4);
	assert_string_equal(get_str(o, "tool"), "fsp-bpf");
	assert_string_equal(get_str(o, "tool_version"), "0.1.0");
	assert_string_equal(get_str(o, "target"), "pid 1234 (demo)");
	assert_string_equal(get_str(o, "command_line"), "fsp-bpf -p 1234 -o demo.json");
	assert_string_equal(get_str(o, "host"), "testhost");
	assert_string_equal(get_str(o, "kernel"), "6.1.0-test");
	assert_true(get_double(o, "start_time") == 1700000000.25);
	assert_true(get_double(o, "end_time") == 1700000003.25);
	assert_true(get_double(o, "duration_s") == 3.0);
	assert_int_equal(get_u64(o, "frequency_hz"), 1000);
	assert_true(get_double(o, "period_ns") == 1000000);

	v = get(o, "pids");
	assert_int_equal(json_object_array_length(v), 1);
	assert_int_equal(json_object_get_int64(json_object_array_get_idx(v, 0)), 1234);
	assert_int_equal(get_u64(o, "total_samples"), 100);
	assert_true(near(get_double(o, "total_ms"), 100.0));
	assert_int_equal(get_u64(o, "attributed_samples"), 100);
	assert_int_equal(get_u64(o, "uncharged_samples"), 20);

	v = get(o, "features");
	assert_int_equal(json_object_array_length(v), 2);
	f = json_object_array_get_idx(v, 0);
	assert_string_equal(get_str(f, "name"), "Output");
	assert_int_equal(get_u64(f, "samples"), 80);
	assert_true(near(get_double(f, "time_ms"), 80.0));
	assert_true(near(get_double(f, "pct"), 80.0));
	assert_int_equal(json_object_array_length(get(f, "instances")), 2);
	i = json_object_array_get_idx(get(f, "instances"), 1);
	assert_string_equal(get_str(i, "name"), "fizzbuzz.c:7");
	assert_int_equal(get_u64(i, "samples"), 10);
	assert_true(near(get_double(i, "time_ms"), 10.0));
	assert_true(near(get_double(i, "pct"), 10.0));
	f = json_object_array_get_idx(v, 1);
	assert_string_equal(get_str(f, "name"), "Generic sequences");
	assert_int_equal(get_u64(f, "samples"), 20);

	v = get(o, "threads");
	assert_int_equal(json_object_array_length(v), 2);
	f = json_object_array_get_idx(v, 1);
	assert_int_equal(get_u64(f, "pid"), 1234);
	assert_int_equal(get_u64(f, "tid"), 1235);
	assert_string_equal(get_str(f, "comm"), "worker");
	assert_int_equal(get_u64(f, "samples"), 15);
	assert_true(near(get_double(f, "time_ms"), 15.0));

	v = get(o, "stacks");
	assert_int_equal(json_object_array_length(v), 4);
	for (k = 0; k < 4; k++)
		assert_int_equal(get_u64(json_object_array_get_idx(v, k), "id"), k);
	f = json_object_array_get_idx(v, 2);
	assert_int_equal(get_u64(f, "pid"), 1234);
	assert_int_equal(json_object_array_length(get(f, "frames")), 2);
	/* frames: ["m", feature, instance, payload], labels in "strings" */
	i = at(get(f, "frames"), 1);
	assert_int_equal(json_object_array_length(i), 4);
	assert_string_equal(json_object_get_string(at(i, 0)), "m");
	assert_string_equal(label(o, at(i, 1)), "Output");
	assert_string_equal(label(o, at(i, 2)), "fizzbuzz.c:8");
	assert_true(at_u64(i, 3) == UINT64_MAX);
	/* an antimark without instance and payload: ["a", feature] */
	i = at(get(json_object_array_get_idx(v, 3), "frames"), 1);
	assert_int_equal(json_object_array_length(i), 2);
	assert_string_equal(json_object_get_string(at(i, 0)), "a");
	assert_string_equal(label(o, at(i, 1)), "Generic sequences");

	/* sample rows: [source, pid, tid, stack, count] */
	v = get(o, "samples");
	assert_int_equal(json_object_array_length(v), 5);
	f = at(v, 2);
	assert_int_equal(json_object_array_length(f), 5);
	assert_int_equal(at_u64(f, 0), 0);
	assert_int_equal(at_u64(f, 1), 1234);
	assert_int_equal(at_u64(f, 2), 1234);
	assert_int_equal(at_u64(f, 3), 2);
	assert_int_equal(at_u64(f, 4), 20);
	f = at(v, 4);
	assert_true(json_object_is_type(at(f, 3), json_type_null));
	assert_int_equal(at_u64(f, 4), 15);

	d = get(o, "diagnostics");
	assert_int_equal(json_object_object_length(d), DIAG__COUNT);
	for (k = 0; k < DIAG__COUNT; k++) {
		uint64_t want = k == DIAG_UNMATCHED_LEAVES ? 4
				: k == DIAG_LOST_SAMPLES   ? UINT64_MAX
							   : 0;

		assert_true(get_u64(d, profile_diag__name(k)) == want);
	}
	json_object_put(o);
	free(text);
}

static void test_json_null_meta_and_unknown(void **state)
{
	struct profile *p = profile__new();
	struct json_object *o, *s;
	char *text;

	(void)state;
	assert_non_null(p);
	ADD_STACK(p, 5, 9, MARK("F", NULL));
	ADD_SAMPLES(p, 5, 6, 9, 2);
	assert_int_equal(profile__add_samples(p, 5, 6, 0xbad, 3), -ENOENT);
	text = render_json(p);
	o = parse(text);
	assert_true(json_object_is_type(get(o, "target"), json_type_null));
	assert_true(json_object_is_type(get(o, "host"), json_type_null));
	assert_string_equal(get_str(o, "tool_version"), FSP_VERSION);
	assert_int_equal(get_u64(o, "total_samples"), 5);
	assert_int_equal(get_u64(o, "uncharged_samples"), 3);
	/* the unknown stack is written as its key; diagnostics are the caller's */
	s = at(get(o, "samples"), 1);
	assert_string_equal(json_object_get_string(at(s, 3)), "0xbad");
	assert_int_equal(at_u64(s, 4), 3);
	assert_int_equal(get_u64(get(o, "diagnostics"), "unknown_stacks"), 0);
	/* the NULL instance: null in the stack, the label in the features */
	s = at(get(at(get(o, "stacks"), 0), "frames"), 0);
	assert_int_equal(json_object_array_length(s), 3);
	assert_true(json_object_is_type(at(s, 2), json_type_null));
	s = json_object_array_get_idx(
		get(json_object_array_get_idx(get(o, "features"), 0), "instances"), 0);
	assert_string_equal(get_str(s, "name"), ATTRIB_NO_INSTANCE);
	assert_string_equal(get_str(json_object_array_get_idx(get(o, "threads"), 0), "comm"), "");
	json_object_put(o);
	free(text);
	profile__free(p);
}

static void test_json_escaping(void **state)
{
	static const char weird[] = "a\"b\\c\nd\te\x01/\xc3\xa9";
	struct profile *p = profile__new();
	struct profile_meta m = {.target = "say \"hi\"\r\n"};
	struct json_object *o, *f;
	char *text;

	(void)state;
	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &m), 0);
	ADD_STACK(p, 1, 1, MARK(weird, "bad \xff\xfe utf8 \xe2\x82"));
	ADD_SAMPLES(p, 1, 1, 1, 1);
	text = render_json(p);
	o = parse(text);
	assert_string_equal(get_str(o, "target"), "say \"hi\"\r\n");
	f = json_object_array_get_idx(get(o, "features"), 0);
	assert_string_equal(get_str(f, "name"), weird);
	f = json_object_array_get_idx(get(f, "instances"), 0);
	/* invalid UTF-8 becomes U+FFFD, the output stays valid JSON */
	assert_string_equal(get_str(f, "name"),
			    "bad \xef\xbf\xbd\xef\xbf\xbd utf8 \xef\xbf\xbd\xef\xbf\xbd");
	json_object_put(o);
	free(text);
	profile__free(p);
}

/* Recomputes a profile from the JSON core samples alone, as a reader would. */
static struct profile *profile_from_json(struct json_object *o)
{
	struct json_object *stacks = get(o, "stacks"), *samples = get(o, "samples");
	struct profile *p = profile__new();
	size_t i, j;

	assert_non_null(p);
	for (i = 0; i < json_object_array_length(stacks); i++) {
		struct json_object *st = json_object_array_get_idx(stacks, i);
		struct json_object *frames = get(st, "frames");
		struct profile_frame fr[16];
		size_t depth = json_object_array_length(frames);

		assert_true(depth <= 16);
		for (j = 0; j < depth; j++) {
			struct json_object *f = at(frames, j), *pl = frame_elem(f, 3);

			fr[j].kind = strcmp(json_object_get_string(at(f, 0)), "m")
					     ? PROFILE_ANTIMARK
					     : PROFILE_MARK;
			fr[j].feature = label(o, at(f, 1));
			fr[j].instance = label(o, frame_elem(f, 2));
			fr[j].payload = pl ? json_object_get_uint64(pl) : 0;
		}
		assert_int_equal(get_u64(st, "id"), i);
		/* version 2 keeps the stacks' keys, as "0x" hex strings */
		assert_int_equal(profile__add_stack(p, get_u64(st, "pid"),
						    strtoull(get_str(st, "key"), NULL, 16), fr,
						    depth),
				 0);
	}
	/* rows: the stack's id (its key is the stack's), null (0) or a key */
	for (i = 0; i < json_object_array_length(samples); i++) {
		struct json_object *s = at(samples, i), *st = at(s, 3);
		uint64_t key = 0;

		if (json_object_is_type(st, json_type_int))
			key = strtoull(get_str(at(stacks, json_object_get_uint64(st)), "key"), NULL,
				       16);
		else if (json_object_is_type(st, json_type_string))
			key = strtoull(json_object_get_string(st), NULL, 16);
		ADD_SAMPLES(p, at_u64(s, 1), at_u64(s, 2), key, at_u64(s, 4));
	}
	return p;
}

static void test_json_round_trip(void **state)
{
	struct profile *p = *state, *q;
	struct attrib *a, *b;
	struct json_object *o;
	char *text, *t1, *t2;
	size_t i, j;

	/* a second process whose key 0x1 is another stack */
	ADD_STACK(p, 99, 0x1, MARK("Regex", "re:1"), ANTI("Regex"), MARK("Output", NULL));
	ADD_SAMPLES(p, 99, 100, 0x1, 7);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	text = render_json(p);
	o = parse(text);
	q = profile_from_json(o);
	b = attrib__compute(q, NULL);
	assert_non_null(b);

	assert_int_equal(attrib__total_samples(b), attrib__total_samples(a));
	assert_int_equal(attrib__uncharged_samples(b), attrib__uncharged_samples(a));
	assert_int_equal(attrib__nr_features(b), attrib__nr_features(a));
	for (i = 0; i < attrib__nr_features(a); i++) {
		const struct attrib_feature *fa = attrib__feature(a, i),
					    *fb = attrib__feature(b, i);

		assert_string_equal(fa->name, fb->name);
		assert_int_equal(fa->samples, fb->samples);
		assert_int_equal(fa->nr_instances, fb->nr_instances);
		for (j = 0; j < fa->nr_instances; j++) {
			assert_string_equal(fa->instances[j].name, fb->instances[j].name);
			assert_int_equal(fa->instances[j].samples, fb->instances[j].samples);
		}
	}
	/* and the JSON of the copy has the same core samples (and string table) */
	assert_int_equal(profile__set_meta(q, profile__meta(p)), 0);
	for (i = 0; i < profile__nr_threads(p); i++) {
		struct profile_thread t;

		assert_int_equal(profile__thread(p, i, &t), 0);
		assert_int_equal(profile__add_thread(q, t.pid, t.tid, t.comm), 0);
	}
	t1 = strstr(text, "\"strings\"");
	t2 = render_json(q);
	assert_non_null(t1);
	assert_non_null(strstr(t2, "\"strings\""));
	assert_string_equal(t1, strstr(t2, "\"strings\""));
	free(t2);

	json_object_put(o);
	free(text);
	attrib__free(a);
	attrib__free(b);
	profile__free(q);
}

static void test_json_features_not_pruned_and_pct(void **state)
{
	struct profile *p = profile__new();
	struct json_object *o, *f;
	char *text;

	(void)state;
	assert_non_null(p);
	ADD_STACK(p, 1, 1, MARK("Big", "b"));
	ADD_STACK(p, 1, 2, MARK("Tiny", "t"));
	ADD_SAMPLES(p, 1, 1, 1, 2999);
	ADD_SAMPLES(p, 1, 1, 2, 1);
	text = render_json(p);
	o = parse(text);
	assert_int_equal(json_object_array_length(get(o, "features")), 2);
	f = json_object_array_get_idx(get(o, "features"), 1);
	assert_string_equal(get_str(f, "name"), "Tiny");
	assert_true(near(get_double(f, "pct"), 100.0 / 3000));
	/* no period known: times are 0 */
	assert_true(get_double(f, "time_ms") == 0);
	json_object_put(o);
	free(text);
	profile__free(p);
}

static void test_json_write_error(void **state)
{
	struct profile *p = *state;
	FILE *f = fopen("/dev/full", "w");

	if (!f)
		skip();
	assert_int_equal(profile__write_json(f, p), -ENOSPC);
	fclose(f);
	assert_int_equal(profile__write_json(NULL, p), -EINVAL);
	assert_int_equal(profile__write_json(stdout, NULL), -EINVAL);
}

/* ---- the atomic file writer ------------------------------------------------------- */

static char tmpdir[64];

static int dir_setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/fsp-unit-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	return setup(state);
}

static int dir_teardown(void **state)
{
	remove_tree(tmpdir);
	return teardown(state);
}

/* Names in tmpdir, sorted, joined by spaces. */
static void list_dir(char *buf, size_t size)
{
	struct dirent **names;
	size_t len = 0;
	int n, i;

	n = scandir(tmpdir, &names, NULL, alphasort);
	assert_true(n >= 0);
	buf[0] = 0;
	for (i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, ".."))
			len += snprintf(buf + len, size - len, "%s%s", len ? " " : "",
					names[i]->d_name);
		free(names[i]);
	}
	free(names);
}

static char *read_file(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *in = fopen(path, "r"), *out = open_memstream(&buf, &len);
	int c;

	assert_non_null(in);
	assert_non_null(out);
	while ((c = getc(in)) != EOF)
		putc(c, out);
	fclose(in);
	fclose(out);
	return buf;
}

static void test_json_file_atomic(void **state)
{
	struct profile *p = *state;
	char path[128], names[512], *text, *direct;
	struct json_object *o;
	struct stat st;

	snprintf(path, sizeof(path), "%s/profile.json", tmpdir);
	assert_int_equal(profile__save(path, p, NULL, 0), 0);
	list_dir(names, sizeof(names));
	assert_string_equal(names, "profile.json");
	text = read_file(path);
	direct = render_json(p);
	assert_string_equal(text, direct);
	o = parse(text);
	assert_int_equal(get_u64(o, "total_samples"), 100);
	json_object_put(o);
	free(text);
	free(direct);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600); /* private (outfile.h) */

	/* replacing keeps the old file's mode */
	assert_int_equal(chmod(path, 0640), 0);
	ADD_SAMPLES(p, 1234, 1234, 0, 1);
	assert_int_equal(profile__save(path, p, NULL, 0), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	text = read_file(path);
	o = parse(text);
	assert_int_equal(get_u64(o, "total_samples"), 101);
	json_object_put(o);
	free(text);
	list_dir(names, sizeof(names));
	assert_string_equal(names, "profile.json");
}

static void test_json_file_relative_path(void **state)
{
	struct profile *p = *state;
	char names[512], cwd[4096];

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(tmpdir), 0);
	assert_int_equal(profile__save("rel.json", p, NULL, 0), 0);
	assert_int_equal(chdir(cwd), 0);
	list_dir(names, sizeof(names));
	assert_string_equal(names, "rel.json");
}

static void test_json_file_errors(void **state)
{
	struct profile *p = *state;
	char path[128], names[512];

	snprintf(path, sizeof(path), "%s/missing/profile.json", tmpdir);
	assert_int_equal(profile__save(path, p, NULL, 0), -ENOENT);
	list_dir(names, sizeof(names));
	assert_string_equal(names, "");

	/* a directory in the way: the rename fails, nothing is left behind */
	snprintf(path, sizeof(path), "%s/sub", tmpdir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(profile__save(path, p, NULL, 0), -EISDIR);
	snprintf(path, sizeof(path), "%s/", tmpdir);
	assert_int_equal(profile__save(path, p, NULL, 0), -EISDIR);
	list_dir(names, sizeof(names));
	assert_string_equal(names, "sub");

	assert_int_equal(profile__save(NULL, p, NULL, 0), -EINVAL);
	assert_int_equal(profile__save(path, NULL, NULL, 0), -EINVAL);
}

static void test_json_file_failed_write_keeps_old(void **state)
{
	struct profile *p = *state, *big;
	char path[128], names[512], *before, *after;
	struct rlimit saved, lim;
	void (*old_handler)(int);
	uint64_t k;
	int err;

	snprintf(path, sizeof(path), "%s/profile.json", tmpdir);
	assert_int_equal(profile__save(path, p, NULL, 0), 0);
	before = read_file(path);

	/* a profile far larger than the file size limit set below */
	big = demo_profile();
	for (k = 1; k <= 5000; k++)
		ADD_SAMPLES(big, 1234, (uint32_t)k, 0x1, k);

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
	lim = saved;
	lim.rlim_cur = 64 * 1024;
	old_handler = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	err = profile__save(path, big, NULL, 0);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
	signal(SIGXFSZ, old_handler);
	assert_int_equal(err, -EFBIG);

	after = read_file(path);
	assert_string_equal(after, before);
	list_dir(names, sizeof(names));
	assert_string_equal(names, "profile.json");
	free(before);
	free(after);
	profile__free(big);
}

static void test_json_file_stdout(void **state)
{
	struct profile *p = *state;
	char path[128], *text, *direct;
	int fd, saved;

	snprintf(path, sizeof(path), "%s/stdout.json", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fd, STDOUT_FILENO) >= 0);
	close(fd);
	assert_int_equal(profile__save("-", p, NULL, 0), 0);
	fflush(stdout);
	assert_true(dup2(saved, STDOUT_FILENO) >= 0);
	close(saved);
	text = read_file(path);
	direct = render_json(p);
	assert_string_equal(text, direct);
	free(text);
	free(direct);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_text_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_locale_independent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_min_pct, setup, teardown),
		cmocka_unit_test(test_text_min_pct_many_instances),
		cmocka_unit_test(test_text_zero_samples),
		cmocka_unit_test(test_text_no_feature),
		cmocka_unit_test_setup_teardown(test_text_period_from_frequency, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_diagnostics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_selection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_write_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_fields, setup, teardown),
		cmocka_unit_test(test_json_null_meta_and_unknown),
		cmocka_unit_test(test_json_escaping),
		cmocka_unit_test_setup_teardown(test_json_round_trip, setup, teardown),
		cmocka_unit_test(test_json_features_not_pruned_and_pct),
		cmocka_unit_test_setup_teardown(test_json_write_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_file_atomic, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_json_file_relative_path, dir_setup,
						dir_teardown),
		cmocka_unit_test_setup_teardown(test_json_file_errors, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_json_file_failed_write_keeps_old, dir_setup,
						dir_teardown),
		cmocka_unit_test_setup_teardown(test_json_file_stdout, dir_setup, dir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
