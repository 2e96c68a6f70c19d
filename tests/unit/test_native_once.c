// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * With native stacks (record --stacks) every view counts each sample once: a
 * native stack annotates a core sample, it is never a second sample
 * (report_native.h). The recorder names a family's stack without payloads
 * in its native samples, whichever payload vector the core sample went to
 * (stack_family.h), so the profile here has its core samples on two
 * payload stacks and its native samples on the stack without payloads, as
 * `record --stacks` of the demo writes it. Invariants: the folded total,
 * the pprof total and the HTML page's charges equal the features' samples
 * plus the uncharged (= the sample count, no nesting here); a saved
 * profile renders as the live one; merge(a, a) counts 2a.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "merge.h"
#include "native.h"
#include "pprof_go.h"
#include "profile_io.h"
#include "render_helpers.h"
#include "report_html.h"

/* The samples of the profile: 10 plan/q1 (6 + 4 on two payload stacks),
 * 3 gc/major, 2 in no feature. */
#define NR_SAMPLES 15

static size_t add_nstack(struct profile *p, const uint32_t *locs, size_t depth)
{
	struct profile_native_stack s = {
		.locs = locs, .depth = depth, .method = PROFILE_UNWIND_DWARF};
	int i = profile__add_native_stack(p, &s);

	assert_true(i >= 0);
	return (size_t)i;
}

static uint32_t add_loc(struct profile *p, uint32_t mod, uint64_t addr, const char *fn)
{
	struct profile_line line = {fn, "app.c", 1};
	struct profile_location loc = {
		.module = mod, .address = addr, .lines = &line, .nr_lines = 1};
	int i = profile__add_location(p, &loc);

	assert_true(i >= 0);
	return (uint32_t)i;
}

/*
 * Thread 100: stack key 1 plan/q1 (no payload), keys 5 and 6 plan/q1 with
 * payloads 7 and 8 (its family), key 2 gc/major. Core samples: key 5 6,
 * key 6 4, key 2 3, no mark 2. Native stacks A = leaf_a<main, B =
 * leaf_b<main; native samples: key 1 A 7 and B 2 (9 of the family's 10),
 * key 2 A 3, no mark B 1.
 */
static struct profile *family_profile(void)
{
	struct profile_module app = {PROFILE_MODULE_USER, "/usr/bin/app", NULL};
	struct profile *p = profile__new();
	uint32_t main_l, a_l, b_l;
	size_t a, b;
	int m;

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &demo_meta), 0);
	assert_int_equal(profile__add_thread(p, 100, 100, "app"), 0);
	ADD_STACK(p, 100, 1, MARK("plan", "q1"));
	ADD_STACK(p, 100, 5, MARKP("plan", "q1", 7));
	ADD_STACK(p, 100, 6, MARKP("plan", "q1", 8));
	ADD_STACK(p, 100, 2, MARK("gc", "major"));
	ADD_SAMPLES(p, 100, 100, 5, 6);
	ADD_SAMPLES(p, 100, 100, 6, 4);
	ADD_SAMPLES(p, 100, 100, 2, 3);
	ADD_SAMPLES(p, 100, 100, 0, 2);
	m = profile__add_module(p, &app);
	assert_true(m >= 0);
	main_l = add_loc(p, m, 0x1000, "main");
	a_l = add_loc(p, m, 0x2000, "leaf_a");
	b_l = add_loc(p, m, 0x3000, "leaf_b");
	{
		const uint32_t sa[] = {a_l, main_l}, sb[] = {b_l, main_l};

		a = add_nstack(p, sa, 2);
		b = add_nstack(p, sb, 2);
	}
	assert_int_equal(profile__add_native_samples(p, 100, 100, 1, a, 7), 0);
	assert_int_equal(profile__add_native_samples(p, 100, 100, 1, b, 2), 0);
	assert_int_equal(profile__add_native_samples(p, 100, 100, 2, a, 3), 0);
	assert_int_equal(profile__add_native_samples(p, 100, 100, 0, b, 1), 0);
	return p;
}

static char *render_html_data(const struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report_html__data(f, p, NULL, NULL), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* The sum of the counts of folded text. */
static uint64_t folded_total(const char *text)
{
	uint64_t total = 0;
	const char *nl, *sp;

	for (; (nl = strchr(text, '\n')); text = nl + 1) {
		sp = nl;
		while (sp > text && sp[-1] != ' ')
			sp--;
		total += strtoull(sp, NULL, 10);
	}
	return total;
}

static const char want_folded[] = "(no feature) 1\n"
				  "(no feature);main;leaf_b 1\n"
				  "gc;major;main;leaf_a 3\n"
				  "plan;q1 1\n"
				  "plan;q1;main;leaf_a 7\n"
				  "plan;q1;main;leaf_b 2\n";

/* The family's native samples are joined to its payload stacks' samples:
 * 9 of plan/q1's 10 have a native stack, 1 has none. */
static void test_folded_once(void **state)
{
	struct profile *p = family_profile();
	char *f = render_folded(p, NULL);

	(void)state;
	assert_string_equal(f, want_folded);
	assert_int_equal(folded_total(f), NR_SAMPLES);
	free(f);
	profile__free(p);
}

/* The sum of the pprof samples' first value (samples) and second (ns). */
static void pprof_totals(const struct profile *p, int64_t *samples, int64_t *ns)
{
	Perftools__Profiles__Profile *prof = render_pprof(p, NULL);

	*samples = *ns = 0;
	for (size_t i = 0; i < prof->n_sample; i++) {
		assert_int_equal(prof->sample[i]->n_value, 2);
		*samples += prof->sample[i]->value[0];
		*ns += prof->sample[i]->value[1];
	}
	perftools__profiles__profile__free_unpacked(prof, NULL);
}

static void test_pprof_once(void **state)
{
	struct profile *p = family_profile();
	int64_t samples, ns;

	(void)state;
	pprof_totals(p, &samples, &ns);
	assert_int_equal(samples, NR_SAMPLES);
	assert_int_equal(ns, NR_SAMPLES * demo_meta.period_ns);
	profile__free(p);
}

/* The samples column of `go tool pprof -raw`'s rows ("  COUNT  NS: LOCS"). */
static uint64_t raw_total(const char *raw)
{
	const char *l = strstr(raw, "\nsamples/count");
	unsigned long long n, ns;
	uint64_t total = 0;
	char colon;

	assert_non_null(l);
	for (l = strchr(l + 1, '\n'); l; l = strchr(l + 1, '\n')) {
		if (sscanf(l + 1, " %llu %llu%c", &n, &ns, &colon) == 3 && colon == ':')
			total += n;
	}
	return total;
}

/* The real consumer: `go tool pprof` counts each sample once. */
static void test_go_pprof_once(void **state)
{
	char dir[] = "/tmp/fsp-unit-once-XXXXXX", path[128], cmd[160], *out;
	struct profile *p = family_profile();
	FILE *f;

	(void)state;
	if (!go_pprof_installed("a --stacks profile's pprof")) {
		profile__free(p);
		skip();
	}
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/once.pb.gz", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(report__pprof(f, p, NULL), 0);
	assert_int_equal(fclose(f), 0);
	out = go_pprof(dir, "-raw", path);
	assert_int_equal(raw_total(out), NR_SAMPLES);
	free(out);
	out = go_pprof(dir, "-top -sample_index=samples", path);
	assert_non_null(strstr(out, "Total samples = 15 \n"));
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	profile__free(p);
}

/* The HTML page's data: its charges' samples (column 3) plus the threads'
 * uncharged ones; the threads' samples are the profile's. */
static uint64_t html_total(const struct profile *p)
{
	char *data = render_html_data(p);
	struct json_object *root = json_tokener_parse(data), *rows, *threads, *v;
	uint64_t total = 0, thread_samples = 0;
	size_t i;

	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "charges", &rows));
	for (i = 0; i < json_object_array_length(rows); i++) {
		v = json_object_array_get_idx(json_object_array_get_idx(rows, i), 3);
		total += (uint64_t)json_object_get_int64(v);
	}
	/* threads' rows: [process, tid, comm, samples, offcpu_ns, uncharged, ...] */
	assert_true(json_object_object_get_ex(root, "threads", &threads));
	for (i = 0; i < json_object_array_length(threads); i++) {
		v = json_object_array_get_idx(threads, i);
		total += (uint64_t)json_object_get_int64(json_object_array_get_idx(v, 5));
		thread_samples += (uint64_t)json_object_get_int64(json_object_array_get_idx(v, 3));
	}
	assert_int_equal(thread_samples, profile__total_samples(p));
	json_object_put(root);
	free(data);
	return total;
}

static void test_html_once(void **state)
{
	struct profile *p = family_profile();

	(void)state;
	assert_int_equal(html_total(p), NR_SAMPLES);
	profile__free(p);
}

/* The text report says how many samples have a native stack, of all. */
static void test_text_once(void **state)
{
	struct profile *p = family_profile();
	char *text = render_text(p, NULL);

	(void)state;
	assert_non_null(strstr(text, "Native stacks: 13 of 15 samples"));
	assert_non_null(strstr(text, "plan: 10 samples, 9 with a native stack"));
	free(text);
	profile__free(p);
}

/* Native samples beyond their family's core samples (a profile built in
 * memory; the reader refuses them) add no sample to any view. */
static void test_unjoined(void **state)
{
	struct profile *p = family_profile();
	int64_t samples, ns;
	char *f;

	(void)state;
	assert_int_equal(profile__add_native_samples(p, 100, 100, 2, 1, 5), 0);
	assert_int_equal(profile__add_native_samples(p, 100, 100, 9, 0, 4), 0);
	f = render_folded(p, NULL);
	assert_string_equal(f, want_folded);
	free(f);
	pprof_totals(p, &samples, &ns);
	assert_int_equal(samples, NR_SAMPLES);
	assert_int_equal(html_total(p), NR_SAMPLES);
	f = render_text(p, NULL);
	assert_non_null(strstr(f, "Native stacks: 13 of 15 samples"));
	assert_non_null(strstr(f, "\n9 native samples beyond the samples of their thread and "
				  "mark stack: not shown\n"));
	free(f);
	profile__free(p);
}

/* Saved, then read: the same folded lines (live = saved-then-report). */
static void test_saved_once(void **state)
{
	struct profile *p = family_profile(), *q;
	char *json = NULL, *a, *b, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&json, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(profile__write_json(f, p), 0);
	assert_int_equal(fclose(f), 0);
	q = profile__parse_json(json, len, "t.json", err, sizeof(err));
	if (!q)
		fail_msg("%s", err);
	a = render_folded(p, NULL);
	b = render_folded(q, NULL);
	assert_string_equal(a, b);
	free(a);
	free(b);
	free(json);
	profile__free(q);
	profile__free(p);
}

/* merge(a, a): every line counts twice, the total 2 x the samples. */
static void test_merge_twice(void **state)
{
	struct profile *p = family_profile(), *m = profile__new();
	char err[256], *f;

	(void)state;
	assert_non_null(m);
	assert_int_equal(profile__merge(m, p, err, sizeof(err)), 0);
	assert_int_equal(profile__merge(m, p, err, sizeof(err)), 0);
	assert_int_equal(profile__merge_finish(m, NULL, err, sizeof(err)), 0);
	f = render_folded(m, NULL);
	assert_int_equal(folded_total(f), 2 * NR_SAMPLES);
	assert_int_equal(html_total(m), 2 * NR_SAMPLES);
	free(f);
	profile__free(m);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded_once), cmocka_unit_test(test_pprof_once),
		cmocka_unit_test(test_html_once),   cmocka_unit_test(test_text_once),
		cmocka_unit_test(test_unjoined),    cmocka_unit_test(test_saved_once),
		cmocka_unit_test(test_merge_twice), cmocka_unit_test(test_go_pprof_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
