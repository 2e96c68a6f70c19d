// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The HTML report (report_html.h): the embedded data gives back the numbers
 * of the JSON profile (per feature, instance and thread, off-CPU time and the
 * event view), hostile labels cannot end the data's element nor change a
 * byte of what the page reads, the source view embeds only files every user
 * may read, the diff page embeds diff__json's document, plug-in sections
 * are carried as given.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attrib.h"
#include "diff.h"
#include "profile_io.h"
#include "report_html.h"
#include "report_html_int.h"
#include "unit_helpers.h"

/* Labels a hostile target could choose (NR_HOSTILE of them, all used). */
static const char *const hostile[] = {
	"</script><script>window.__pwned=1</script>",
	"<img src=x onerror=\"window.__pwned=1\">",
	"<!-- <script>",
	"&lt;b&gt; & \"quotes\" 'single' \\backslash",
	"line\nbreak\ttab\x01\x7f",
	"\xff\xfe invalid UTF-8 \xc3",
	"caf\xc3\xa9 \xe2\x86\x92 \xe2\x80\xa8 sep",
	"</SCRIPT >",
};
#define NR_HOSTILE (sizeof(hostile) / sizeof(hostile[0]))

static const struct profile_meta meta = {
	.target = "./demo <b>3</b>",
	.command_line = "fsp-bpf -- ./demo",
	.host = "host&co",
	.kernel = "6.1.0",
	.tool_version = "0.1.0",
	.frequency_hz = 1000,
	.period_ns = 1000000,
	.start_time = 1700000000.0,
	.end_time = 1700000003.0,
	.duration_s = 3.0,
};

static void add_events(struct profile *p, uint32_t pid, const char *f, const char *i,
		       uint64_t enters, uint64_t ns)
{
	struct profile_event_stats st = {.enters = enters, .leaves = enters, .total_ns = ns};

	st.max_ns = ns / (enters ? enters : 1) * 2;
	st.hist[profile_hist_bucket(ns / (enters ? enters : 1))] = enters;
	assert_int_equal(profile__add_events(p, pid, f, i, &st), 0);
}

/* Two processes, three threads, nested features, an antimark, a NULL
 * instance, off-CPU time, events (one feature with events only), hostile
 * labels, an uncharged and an unknown stack. */
static struct profile *rich_profile(void)
{
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &meta), 0);
	assert_int_equal(profile__add_thread(p, 10, 10, "main<>"), 0);
	assert_int_equal(profile__add_thread(p, 10, 11, "worker"), 0);
	assert_int_equal(profile__add_thread(p, 20, 20, "other"), 0);
	ADD_STACK(p, 10, 1, MARK("Output", "demo.c:8"));
	ADD_STACK(p, 10, 2, MARK("Output", "demo.c:8"), MARK("Parse", "demo.c:3"));
	ADD_STACK(p, 10, 3, MARK("Contract", "demo.c:5"), ANTI("Contract"));
	ADD_STACK(p, 10, 4, MARK("Output", NULL), MARK(hostile[0], hostile[1]));
	ADD_STACK(p, 20, 1, MARK(hostile[2], hostile[3]), MARK(hostile[4], hostile[5]));
	ADD_STACK(p, 20, 2, MARK(hostile[6], hostile[7]), MARK("Output", "demo.c:8"));
	ADD_SAMPLES(p, 10, 10, 1, 70);
	ADD_SAMPLES(p, 10, 11, 1, 5);
	ADD_SAMPLES(p, 10, 10, 2, 20);
	ADD_SAMPLES(p, 10, 11, 3, 9);
	ADD_SAMPLES(p, 10, 11, 4, 4);
	ADD_SAMPLES(p, 10, 10, 0, 11);
	ADD_SAMPLES(p, 20, 20, 1, 6);
	ADD_SAMPLES(p, 20, 20, 2, 3);
	/* an unknown stack: counted, charged to nothing */
	assert_int_equal(profile__add_samples(p, 20, 20, 0x5eed, 2), -ENOENT);
	assert_int_equal(profile__add_offcpu(p, 10, 10, 1, 40000000), 0);
	assert_int_equal(profile__add_offcpu(p, 10, 11, 0, 7000000), 0);
	assert_int_equal(profile__add_offcpu(p, 20, 20, 2, 3000000), 0);
	add_events(p, 10, "Output", "demo.c:8", 1000, 75000000);
	add_events(p, 20, "Output", "demo.c:8", 10, 3000000);
	add_events(p, 10, "Output", NULL, 5, 4000);
	add_events(p, 10, "Quick", "demo.c:12", 5000, 200000);
	add_events(p, 20, hostile[0], hostile[1], 3, 300);
	profile__set_diag(p, DIAG_STALE_MARKS, 3);
	return p;
}

/* What a renderer wrote to a memory stream, NUL-terminated; *rc its result. */
struct captured {
	char *buf;
	size_t len;
	int rc;
};

static struct captured capture_data(const struct profile *p, const struct report_opts *o,
				    const struct report_html_opts *h)
{
	struct captured c = {0};
	FILE *f = open_memstream(&c.buf, &c.len);

	assert_non_null(f);
	c.rc = report_html__data(f, p, o, h);
	fclose(f);
	return c;
}

static struct captured capture_page(const struct profile *p, const struct diff *d,
				    const struct report_opts *o, const struct report_html_opts *h)
{
	struct captured c = {0};
	FILE *f = open_memstream(&c.buf, &c.len);

	assert_non_null(f);
	c.rc = d ? diff__html(f, d, h) : report__html(f, p, o, h);
	fclose(f);
	return c;
}

static struct json_object *parse(const char *s)
{
	struct json_object *o = json_tokener_parse(s);

	if (!o)
		fail_msg("the data is not JSON: %.300s", s);
	return o;
}

static struct json_object *get(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, k, &v))
		fail_msg("no member %s", k);
	return v;
}

static uint64_t u64_at(struct json_object *arr, size_t i)
{
	return json_object_get_uint64(json_object_array_get_idx(arr, i));
}

static const char *str_of(struct json_object *strings, struct json_object *row, size_t col)
{
	return json_object_get_string(json_object_array_get_idx(strings, u64_at(row, col)));
}

/* The sum of the charges rows of (feature, instance) (instance NULL: all of
 * the feature), column col (3: samples, 4: off-CPU ns). */
static uint64_t charges_sum(struct json_object *d, const char *f, const char *i, size_t col)
{
	struct json_object *rows = get(d, "charges"), *strs = get(d, "strings");
	uint64_t sum = 0;

	for (size_t k = 0; k < json_object_array_length(rows); k++) {
		struct json_object *r = json_object_array_get_idx(rows, k);

		if (!strcmp(str_of(strs, r, 1), f) && (!i || !strcmp(str_of(strs, r, 2), i)))
			sum += u64_at(r, col);
	}
	return sum;
}

/* The event rows of (feature, instance) summed: column col (3 enters, 4
 * leaves, 5 total_ns). */
static uint64_t events_sum(struct json_object *d, const char *f, const char *i, size_t col)
{
	struct json_object *rows = get(d, "events"), *strs = get(d, "strings");
	uint64_t sum = 0;

	for (size_t k = 0; k < json_object_array_length(rows); k++) {
		struct json_object *r = json_object_array_get_idx(rows, k);

		if (!strcmp(str_of(strs, r, 1), f) && !strcmp(str_of(strs, r, 2), i))
			sum += u64_at(r, col);
	}
	return sum;
}

/* The labels of an event record of the profile file. */
static void event_labels(struct json_object *pj, struct json_object *e, const char **f,
			 const char **i)
{
	struct json_object *strs = get(pj, "strings"), *inst = get(e, "instance");

	*f = json_object_get_string(
		json_object_array_get_idx(strs, json_object_get_uint64(get(e, "feature"))));
	*i = inst ? json_object_get_string(
			    json_object_array_get_idx(strs, json_object_get_uint64(inst)))
		  : ATTRIB_NO_INSTANCE;
}

/* The profile file's JSON of p, parsed. */
static struct json_object *profile_json(const struct profile *p)
{
	struct captured c = {0};
	FILE *f = open_memstream(&c.buf, &c.len);
	struct json_object *o;

	assert_non_null(f);
	assert_int_equal(profile__write_json(f, p), 0);
	fclose(f);
	o = parse(c.buf);
	free(c.buf);
	return o;
}

/* Labels go through JSON as valid UTF-8 (invalid bytes become U+FFFD): the
 * profile file's version of a label is what the page must show. */
static void test_data_roundtrip(void **state)
{
	struct profile *p = rich_profile();
	struct captured c = capture_data(p, NULL, NULL);
	struct json_object *d, *pj, *feats, *threads, *events;
	struct attrib *a = attrib__compute(p, NULL);
	size_t i, j, nr_inst = 0;

	(void)state;
	assert_int_equal(c.rc, 0);
	d = parse(c.buf);
	pj = profile_json(p);
	assert_string_equal(json_object_get_string(get(d, "format")), "fsp-bpf-html");
	assert_int_equal(json_object_get_int(get(d, "version")), REPORT_HTML_DATA_VERSION);
	assert_string_equal(json_object_get_string(get(d, "kind")), "profile");
	assert_int_equal(json_object_get_uint64(get(get(d, "totals"), "samples")),
			 json_object_get_uint64(get(pj, "total_samples")));
	assert_int_equal(json_object_get_uint64(get(get(d, "totals"), "offcpu_ns")),
			 json_object_get_uint64(get(pj, "total_offcpu_ns")));
	assert_int_equal(json_object_get_uint64(get(get(d, "meta"), "period_ns")),
			 json_object_get_uint64(get(pj, "period_ns")));
	/* every feature and instance of the profile file: the same samples */
	feats = get(pj, "features");
	assert_true(json_object_array_length(feats) >= 6);
	for (i = 0; i < json_object_array_length(feats); i++) {
		struct json_object *f = json_object_array_get_idx(feats, i), *insts;
		const char *fn = json_object_get_string(get(f, "name"));

		assert_int_equal(charges_sum(d, fn, NULL, 3),
				 json_object_get_uint64(get(f, "samples")));
		insts = get(f, "instances");
		for (j = 0; j < json_object_array_length(insts); j++, nr_inst++) {
			struct json_object *in = json_object_array_get_idx(insts, j);

			assert_int_equal(
				charges_sum(d, fn, json_object_get_string(get(in, "name")), 3),
				json_object_get_uint64(get(in, "samples")));
		}
	}
	/* off-CPU time, by the attribution (the profile file has no per-feature
	 * off-CPU sums), of the features whose labels are plain ASCII */
	for (i = 0; i < attrib__nr_features(a); i++) {
		const struct attrib_feature *f = attrib__feature(a, i);

		if (strcmp(f->name, "Output") && strcmp(f->name, "Parse") &&
		    strcmp(f->name, "Contract"))
			continue;
		assert_int_equal(charges_sum(d, f->name, NULL, 4), f->offcpu_ns);
		for (j = 0; j < f->nr_instances; j++)
			assert_int_equal(charges_sum(d, f->name, f->instances[j].name, 4),
					 f->instances[j].offcpu_ns);
	}
	assert_int_equal(charges_sum(d, "Output", "demo.c:8", 4), 43000000);
	/* the event view: the profile file's events, summed per (feature, instance) */
	events = get(pj, "events");
	for (i = 0; i < json_object_array_length(events); i++) {
		const char *fn, *in;
		uint64_t want = 0;

		event_labels(pj, json_object_array_get_idx(events, i), &fn, &in);
		for (j = 0; j < json_object_array_length(events); j++) {
			struct json_object *e2 = json_object_array_get_idx(events, j);
			const char *fn2, *in2;

			event_labels(pj, e2, &fn2, &in2);
			if (!strcmp(fn, fn2) && !strcmp(in, in2))
				want += json_object_get_uint64(get(e2, "enters"));
		}
		assert_int_equal(events_sum(d, fn, in, 3), want);
	}
	assert_int_equal(events_sum(d, "Output", "demo.c:8", 3), 1010);
	assert_int_equal(events_sum(d, "Output", "demo.c:8", 5), 78000000);
	assert_int_equal(events_sum(d, "Output", ATTRIB_NO_INSTANCE, 3), 5);
	assert_int_equal(events_sum(d, "Quick", "demo.c:12", 4), 5000);
	/* threads: samples as the profile file's; uncharged samples */
	threads = get(d, "threads");
	assert_int_equal(json_object_array_length(threads),
			 json_object_array_length(get(pj, "threads")));
	for (i = 0; i < json_object_array_length(threads); i++)
		assert_int_equal(
			u64_at(json_object_array_get_idx(threads, i), 3),
			json_object_get_uint64(
				get(json_object_array_get_idx(get(pj, "threads"), i), "samples")));
	uint64_t uncharged = 0;
	for (i = 0; i < json_object_array_length(threads); i++)
		uncharged += u64_at(json_object_array_get_idx(threads, i), 5);
	assert_int_equal(uncharged, json_object_get_uint64(get(pj, "uncharged_samples")));
	assert_true(nr_inst >= 8);
	attrib__free(a);
	json_object_put(pj);
	json_object_put(d);
	free(c.buf);
	profile__free(p);
}

/* The page: the data between its element's tags is the data, escaped; no
 * label ends the element; the labels read back byte for byte (as JSON made
 * them valid UTF-8). */
static void test_page_escaping(void **state)
{
	struct profile *p = rich_profile();
	struct captured page = capture_page(p, NULL, NULL, NULL),
			data = capture_data(p, NULL, NULL);
	const char *open = "<script type=\"application/json\" id=\"fsp-data\">", *s, *e;
	struct json_object *d, *strs;
	size_t i, n = 0;

	(void)state;
	assert_int_equal(page.rc, 0);
	assert_int_equal(data.rc, 0);
	s = strstr(page.buf, open);
	assert_non_null(s);
	s += strlen(open);
	e = strstr(s, "</script>");
	assert_non_null(e);
	/* nothing in the data that HTML reads as markup */
	assert_null(memchr(s, '<', (size_t)(e - s)));
	assert_null(memchr(s, '>', (size_t)(e - s)));
	assert_null(memchr(s, '&', (size_t)(e - s)));
	/* two </script in the page, whatever the labels: the data's and the script's */
	for (const char *q = page.buf; (q = strcasestr(q, "</script")); q++)
		n++;
	assert_int_equal(n, 2);
	assert_null(strstr(page.buf, "@FSP_DATA@"));
	/* the escaped data parses to the same document as the raw data */
	char *copy = strndup(s, (size_t)(e - s));
	struct json_object *raw = parse(data.buf);

	d = parse(copy);
	assert_true(json_object_equal(d, raw));
	/* every feature and instance label of the profile file, as it spells
	 * them (valid UTF-8), is a string of the data: the hostile ones too,
	 * byte for byte */
	strs = get(d, "strings");
	struct json_object *pj = profile_json(p), *pf = get(pj, "features");
	size_t nr_labels = 0;

	for (i = 0; i < json_object_array_length(pf); i++) {
		struct json_object *f = json_object_array_get_idx(pf, i);
		struct json_object *insts = get(f, "instances");

		for (size_t k = 0; k <= json_object_array_length(insts); k++) {
			const char *want = json_object_get_string(
				get(k ? json_object_array_get_idx(insts, k - 1) : f, "name"));
			bool found = false;

			for (size_t m = 0; m < json_object_array_length(strs) && !found; m++)
				found = !strcmp(
					json_object_get_string(json_object_array_get_idx(strs, m)),
					want);
			if (!found)
				fail_msg("label \"%s\" is not in the data", want);
			n += strstr(want, "</script><script>") != NULL;
			nr_labels++;
		}
	}
	assert_true(nr_labels >= NR_HOSTILE + 4); /* all hostile labels and more */
	assert_int_equal(n, 3); /* the two </script of the page and hostile[0] */
	json_object_put(pj);
	assert_non_null(strstr(json_object_get_string(get(get(d, "meta"), "target")), "<b>3</b>"));
	json_object_put(raw);
	json_object_put(d);
	free(copy);
	free(page.buf);
	free(data.buf);
	profile__free(p);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static struct json_object *source_of(struct json_object *d, const char *file)
{
	struct json_object *srcs = get(d, "sources");

	for (size_t i = 0; i < json_object_array_length(srcs); i++) {
		struct json_object *s = json_object_array_get_idx(srcs, i);

		if (!strcmp(json_object_get_string(get(s, "file")), file))
			return s;
	}
	fail_msg("no source %s", file);
	return NULL;
}

/* The source view embeds files every user may read, from --source-dir or
 * the label's path, and says why others are not there: a file not readable
 * by all, or in a directory not open to all. */
static void test_sources(void **state)
{
	char dir[] = "/tmp/fsp-html-XXXXXX", path[128], sub[64], hidden[160];
	struct profile *p = profile__new();
	struct json_object *d, *s;
	struct captured c;
	const char *dirs[1];
	struct report_html_opts h = {.source_dirs = dirs, .nr_source_dirs = 1};

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/src", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(path, sizeof(path), "%s/a.c", sub);
	write_file(path, "int a;\n</script><script>x()</script>\nreturn;\n", 0644);
	snprintf(path, sizeof(path), "%s/secret.c", sub);
	write_file(path, "password\n", 0600);
	snprintf(path, sizeof(path), "%s/bin.c", sub);
	write_file(path, "", 0644);
	{
		FILE *f = fopen(path, "w");

		fwrite("a\0b", 1, 3, f);
		fclose(f);
	}
	/* world-readable, in a directory only its owner may enter */
	snprintf(path, sizeof(path), "%s/hidden", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/hidden/pub.c", dir);
	write_file(path, "private\n", 0644);
	snprintf(hidden, sizeof(hidden), "%s:1", path);
	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &meta), 0);
	ADD_STACK(p, 1, 7, MARK("F", hidden));
	ADD_STACK(p, 1, 1, MARK("F", "lib/a.c:2"));
	ADD_STACK(p, 1, 2, MARK("F", "secret.c:1"));
	ADD_STACK(p, 1, 3, MARK("F", "missing.c:1"));
	ADD_STACK(p, 1, 4, MARK("F", "bin.c:1"));
	ADD_STACK(p, 1, 5, MARK("F", "not a file label"));
	ADD_STACK(p, 1, 6, MARK("F", "lib/a.c:3"));
	for (uint64_t k = 1; k <= 7; k++)
		ADD_SAMPLES(p, 1, 1, k, k);
	dirs[0] = sub;
	c = capture_data(p, NULL, &h);
	assert_int_equal(c.rc, 0);
	d = parse(c.buf);
	assert_int_equal(json_object_array_length(get(d, "sources")), 5); /* a.c once */
	s = source_of(d, "lib/a.c"); /* found by its base name in the source dir */
	assert_string_equal(json_object_get_string(get(s, "text")),
			    "int a;\n</script><script>x()</script>\nreturn;\n");
	assert_null(get(s, "error"));
	s = source_of(d, "secret.c");
	assert_null(get(s, "text"));
	assert_non_null(
		strstr(json_object_get_string(get(s, "error")), "not readable by every user"));
	s = source_of(d, "missing.c");
	assert_null(get(s, "text"));
	assert_non_null(strstr(json_object_get_string(get(s, "error")), "not found"));
	s = source_of(d, "bin.c");
	assert_non_null(strstr(json_object_get_string(get(s, "error")), "not a text file"));
	*strrchr(hidden, ':') = 0;
	s = source_of(d, hidden);
	assert_null(get(s, "text"));
	assert_non_null(strstr(json_object_get_string(get(s, "error")), "not open to every user"));
	json_object_put(d);
	free(c.buf);
	/* the page: the file's "</script>" is escaped too */
	c = capture_page(p, NULL, NULL, &h);
	assert_int_equal(c.rc, 0);
	assert_null(strstr(c.buf, "</script><script>x()"));
	free(c.buf);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
	profile__free(p);
}

static void test_file_of(void **state)
{
	char buf[64];

	(void)state;
	assert_true(html_source__file_of("demo.c:8", buf, sizeof(buf)));
	assert_string_equal(buf, "demo.c");
	assert_true(html_source__file_of("/a/b:c.c:123456789", buf, sizeof(buf)));
	assert_string_equal(buf, "/a/b:c.c");
	assert_false(html_source__file_of(":8", buf, sizeof(buf)));
	assert_false(html_source__file_of("demo.c:", buf, sizeof(buf)));
	assert_false(html_source__file_of("demo.c:8x", buf, sizeof(buf)));
	assert_false(html_source__file_of("demo.c:1234567890", buf, sizeof(buf)));
	assert_false(html_source__file_of("rle", buf, sizeof(buf)));
	assert_false(html_source__file_of("a-very-long-file-name.c:1", buf, 8));
	assert_false(html_source__file_of(NULL, buf, sizeof(buf)));
}

/* --comm/--pid keep their processes, --feature its features; a feature that
 * is not there is -ENOENT, with nothing written. */
static void test_filters(void **state)
{
	struct profile *p = rich_profile();
	struct report_opts o = {.pid = "20"};
	struct json_object *d;
	struct captured c;

	(void)state;
	c = capture_data(p, &o, NULL);
	assert_int_equal(c.rc, 0);
	d = parse(c.buf);
	assert_int_equal(json_object_array_length(get(d, "processes")), 1);
	assert_int_equal(json_object_get_uint64(get(get(d, "totals"), "samples")), 11);
	assert_int_equal(json_object_get_uint64(get(get(d, "filter"), "whole_samples")), 130);
	assert_string_equal(json_object_get_string(get(get(d, "filter"), "pid")), "20");
	assert_int_equal(charges_sum(d, "Output", "demo.c:8", 3), 3);
	json_object_put(d);
	free(c.buf);
	o = (struct report_opts){.feature = "Parse"};
	c = capture_data(p, &o, NULL);
	assert_int_equal(c.rc, 0);
	d = parse(c.buf);
	assert_int_equal(json_object_array_length(get(d, "charges")), 1);
	assert_int_equal(charges_sum(d, "Parse", "demo.c:3", 3), 20);
	assert_int_equal(json_object_array_length(get(get(d, "filter"), "features")), 1);
	json_object_put(d);
	free(c.buf);
	o = (struct report_opts){.feature = "Nope"};
	c = capture_page(p, NULL, &o, NULL);
	assert_int_equal(c.rc, -ENOENT);
	assert_int_equal(c.len, 0);
	free(c.buf);
	profile__free(p);
}

/* Plug-in sections are carried as given (labels and all) in "plugins". */
static void test_plugins(void **state)
{
	static const char *const cols[] = {"blame <pair>", "ms"};
	static const char *const cells[] = {"<script>a</script>", "1.0", "b & c", "2.5"};
	const struct report_html_section secs[] = {
		{.title = "Summary", .text = "line 1\n<b>not bold</b>"},
		{.title = "Pairs", .nr_columns = 2, .nr_rows = 2, .columns = cols, .cells = cells},
	};
	const struct report_html_plugin pl = {
		.name = "contracts", .nr_sections = 2, .sections = secs};
	struct report_html_opts h = {.plugins = &pl, .nr_plugins = 1};
	struct profile *p = rich_profile();
	struct captured c = capture_data(p, NULL, &h);
	struct json_object *d, *plug, *s;

	(void)state;
	assert_int_equal(c.rc, 0);
	d = parse(c.buf);
	assert_int_equal(json_object_array_length(get(d, "plugins")), 1);
	plug = json_object_array_get_idx(get(d, "plugins"), 0);
	assert_string_equal(json_object_get_string(get(plug, "name")), "contracts");
	s = json_object_array_get_idx(get(plug, "sections"), 0);
	assert_string_equal(json_object_get_string(get(s, "text")), "line 1\n<b>not bold</b>");
	assert_null(get(s, "columns"));
	s = json_object_array_get_idx(get(plug, "sections"), 1);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(get(s, "columns"), 0)),
			    "blame <pair>");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(
				    json_object_array_get_idx(get(s, "rows"), 1), 0)),
			    "b & c");
	json_object_put(d);
	free(c.buf);
	/* without plug-ins: an empty array */
	c = capture_data(p, NULL, NULL);
	d = parse(c.buf);
	assert_int_equal(json_object_array_length(get(d, "plugins")), 0);
	assert_int_equal(json_object_array_length(get(d, "native_stacks")), 0);
	json_object_put(d);
	free(c.buf);
	profile__free(p);
}

/* The diff page embeds diff__json's document as its "diff" member. */
static void test_diff_page(void **state)
{
	struct profile *base = rich_profile(), *new_p = rich_profile();
	struct diff_opts dopts = {.scale = 2};
	struct captured c, j = {0};
	struct json_object *d, *want;
	struct diff *df;
	FILE *f;

	(void)state;
	ADD_STACK(new_p, 10, 9, MARK("Fresh", "new.c:1"));
	ADD_SAMPLES(new_p, 10, 10, 9, 50);
	df = diff__compute(base, new_p, &dopts);
	assert_non_null(df);
	f = open_memstream(&j.buf, &j.len);
	assert_int_equal(diff__json(f, df), 0);
	fclose(f);
	f = open_memstream(&c.buf, &c.len);
	assert_int_equal(diff_html__data(f, df, NULL), 0);
	fclose(f);
	d = parse(c.buf);
	want = parse(j.buf);
	assert_string_equal(json_object_get_string(get(d, "kind")), "diff");
	assert_true(json_object_equal(get(d, "diff"), want));
	assert_int_equal(json_object_array_length(get(d, "sources")), 2); /* demo.c, new.c */
	json_object_put(d);
	json_object_put(want);
	free(c.buf);
	free(j.buf);
	c = capture_page(NULL, df, NULL, NULL);
	assert_int_equal(c.rc, 0);
	size_t n = 0;
	for (const char *q = c.buf; (q = strcasestr(q, "</script")); q++)
		n++;
	assert_int_equal(n, 2);
	free(c.buf);
	diff__free(df);
	profile__free(base);
	profile__free(new_p);
}

/* A write error is reported, not swallowed. */
static void test_write_error(void **state)
{
	struct profile *p = rich_profile();
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	if (!f)
		skip();
	assert_true(report__html(f, p, NULL, NULL) < 0);
	fclose(f);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_roundtrip), cmocka_unit_test(test_page_escaping),
		cmocka_unit_test(test_sources),	       cmocka_unit_test(test_file_of),
		cmocka_unit_test(test_filters),	       cmocka_unit_test(test_plugins),
		cmocka_unit_test(test_diff_page),      cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
