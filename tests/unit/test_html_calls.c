// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The HTML page's calls (report_html_calls.c): the calls of record --calls in
 * the page's data give back, for any duration range, what report --calls
 * makes of the same selection (callsel__split): the samples, off-CPU time
 * and native samples of each feature and instance of the selected calls;
 * each call's duration is the one report --calls selects by; --feature keeps
 * its features' calls; a filtered page and a profile without calls say so;
 * the bound keeps the slowest calls of each feature, an equal share each.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>

#include "calls.h"
#include "callsel.h"
#include "native.h"
#include "report_html.h"
#include "unit_helpers.h"

static const char R[] = "R", X[] = "X", I[] = "i", J[] = "j";

#define MK(f, i)                                                                                   \
	{                                                                                          \
		.feature = (f), .instance = (i), .kind = PROFILE_MARK                              \
	}

/* The page data of p (opts may be NULL), parsed. */
static struct json_object *page_data(const struct profile *p, const struct report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json_object *d;

	assert_non_null(f);
	assert_int_equal(report_html__data(f, p, o, NULL), 0);
	fclose(f);
	d = json_tokener_parse(buf);
	if (!d)
		fail_msg("the data is not JSON: %.300s", buf);
	free(buf);
	return d;
}

static struct json_object *get(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, k, &v))
		fail_msg("no member %s", k);
	return v;
}

static uint64_t at(struct json_object *arr, size_t i)
{
	return json_object_get_uint64(json_object_array_get_idx(arr, i));
}

static const char *str(struct json_object *d, uint64_t i)
{
	return json_object_get_string(json_object_array_get_idx(get(d, "strings"), i));
}

/* Whether string index s of d is name (NULL: any). */
static bool is(struct json_object *d, uint64_t s, const char *name)
{
	return !name || !strcmp(str(d, s), name);
}

/* The charges rows of (f, i) summed, column col (3: samples, 4: off-CPU ns;
 * 5: the samples of rows with a native stack). */
static uint64_t charges_sum(struct json_object *d, const char *f, const char *i, size_t col)
{
	struct json_object *rows = get(d, "charges");
	uint64_t sum = 0;

	for (size_t k = 0; k < json_object_array_length(rows); k++) {
		struct json_object *r = json_object_array_get_idx(rows, k);

		if (!is(d, at(r, 1), f) || !is(d, at(r, 2), i))
			continue;
		if (col == 5)
			sum += json_object_array_length(r) > 5 ? at(r, 3) : 0;
		else
			sum += at(r, col);
	}
	return sum;
}

/* A count of a call that stands for w calls, as the page scales it
 * (callsel.js, as callsel.c): rounded, native samples (col 8) rounded down. */
static uint64_t weighed(uint64_t n, double w, size_t col)
{
	if (w == 1)
		return n;
	return (uint64_t)((double)n * w + (col == 8 ? 0 : 0.5));
}

/*
 * What the page sums for the calls of feature `of` with durations in [lo,
 * hi) (out: those outside it): per call, its pairs (col 7: samples, 9:
 * off-CPU ns) or triples (col 8: native samples) by mark stack, charged to
 * (f, i) by "call_stacks", each scaled by the call's weight (col 10).
 */
static uint64_t calls_sum_of(struct json_object *d, const char *of, uint64_t lo, uint64_t hi,
			     bool out, const char *f, const char *i, size_t col)
{
	struct json_object *list = get(d, "call_list"), *stacks = get(d, "call_stacks");
	size_t step = col == 8 ? 3 : 2;
	uint64_t sum = 0;

	for (size_t k = 0; k < json_object_array_length(list); k++) {
		struct json_object *c = json_object_array_get_idx(list, k);
		struct json_object *v = json_object_array_get_idx(c, col);
		double w = json_object_get_double(json_object_array_get_idx(c, 10));

		if (!is(d, at(c, 1), of) || (at(c, 3) < lo || at(c, 3) >= hi) != out)
			continue;
		for (size_t q = 0; q < json_object_array_length(v); q += step) {
			struct json_object *ch = json_object_array_get_idx(stacks, at(v, q));

			for (size_t z = 0; z < json_object_array_length(ch); z += 2)
				if (is(d, at(ch, z), f) && is(d, at(ch, z + 1), i))
					sum += weighed(at(v, q + step - 1), w, col);
		}
	}
	return sum;
}

static uint64_t calls_sum(struct json_object *d, const char *of, uint64_t lo, uint64_t hi,
			  const char *f, const char *i, size_t col)
{
	return calls_sum_of(d, of, lo, hi, false, f, i, col);
}

/*
 * Feature R on threads 7 and 8 (pid 1): 12 calls, call n (1..12) with n + 1
 * samples 1 ms apart (n + 1 ms), instance i for odd n, j for even; from call
 * 6 on its first sample is in a nested X (instance i) and it waits 2 ms off
 * CPU inside X at its end; every sample but each call's last has a native
 * stack (0, or 1 in X).
 */
static struct profile *calls_profile(void)
{
	const struct profile_frame ri[] = {MK(R, I)}, rj[] = {MK(R, J)},
				   rix[] = {MK(R, I), MK(X, I)}, rjx[] = {MK(R, J), MK(X, I)};
	const struct profile_frame *st[] = {ri, rj, rix, rjx};
	const struct profile_module m = {.kind = PROFILE_MODULE_USER, .path = "/bin/m"};
	struct profile_location l = {.module = 0, .address = 0x10};
	struct profile_meta meta = {.frequency_hz = 1000, .target = "calls"};
	struct profile_native_stack ns = {.depth = 1, .method = PROFILE_UNWIND_FP};
	struct profile *p = profile__new();
	struct calls *c = calls__new(0);
	uint32_t loc;

	assert_non_null(p);
	assert_non_null(c);
	assert_int_equal(profile__set_meta(p, &meta), 0);
	assert_int_equal(profile__add_thread(p, 1, 7, "w7"), 0);
	assert_int_equal(profile__add_thread(p, 1, 8, "w8"), 0);
	for (size_t s = 0; s < 4; s++)
		assert_int_equal(profile__add_stack(p, 1, 10 + s, st[s], s < 2 ? 1 : 2), 0);
	assert_int_equal(profile__add_module(p, &m), 0);
	assert_int_equal(profile__add_location(p, &l), 0);
	l.address = 0x20;
	assert_int_equal(profile__add_location(p, &l), 1);
	ns.locs = &loc;
	loc = 0;
	assert_int_equal(profile__add_native_stack(p, &ns), 0);
	loc = 1;
	assert_int_equal(profile__add_native_stack(p, &ns), 1);
	for (uint64_t n = 1; n <= 12; n++) {
		uint32_t tid = 7 + (uint32_t)(n % 2);
		uint64_t ids[] = {n, 100 + n}, t = n * 100 * 1000000;

		for (uint64_t k = 0; k <= n; k++) {
			size_t s = (n % 2 ? 0 : 1) + (n >= 6 && k == 0 ? 2 : 0);
			size_t depth = s < 2 ? 1 : 2;

			assert_int_equal(profile__add_samples(p, 1, tid, 10 + s, 1), 0);
			assert_int_equal(
				calls__add(c, 1, tid, s, st[s], ids, depth, t + k * 1000000, 1), 0);
			if (k == n)
				continue;
			assert_int_equal(profile__add_native_samples(p, 1, tid, 10 + s, s >= 2, 1),
					 0);
			assert_int_equal(
				calls__add_native(c, 1, tid, s, st[s], ids, depth, s >= 2, 1), 0);
		}
		if (n >= 6) {
			size_t s = (n % 2 ? 0 : 1) + 2;

			assert_int_equal(profile__add_offcpu(p, 1, tid, 10 + s, 2000000), 0);
			assert_int_equal(calls__add_offcpu(c, 1, tid, s, st[s], ids, 2,
							   t + n * 1000000, 2000000),
					 0);
		}
	}
	profile__set_calls(p, c);
	return p;
}

/* The page's calls of R in [lo, hi) (out: the others) give what the split
 * profile sp of report --calls gives (its own page's charges). */
static void check_side(struct json_object *d, const struct profile *sp, uint64_t lo, uint64_t hi,
		       bool out)
{
	static const char *const fi[][2] = {{R, I}, {R, J}, {X, I}, {R, NULL}, {X, NULL}};
	struct json_object *sd = page_data(sp, NULL);

	for (size_t k = 0; k < sizeof(fi) / sizeof(fi[0]); k++) {
		const char *f = fi[k][0], *i = fi[k][1];

		assert_int_equal(calls_sum_of(d, R, lo, hi, out, f, i, 7),
				 charges_sum(sd, f, i, 3));
		assert_int_equal(calls_sum_of(d, R, lo, hi, out, f, i, 9),
				 charges_sum(sd, f, i, 4));
		assert_int_equal(calls_sum_of(d, R, lo, hi, out, f, i, 8),
				 charges_sum(sd, f, i, 5));
	}
	json_object_put(sd);
}

/* For a selection of R, the page's calls give what report --calls's split
 * profiles give: the selected calls' and the other calls'. */
static void check_selection(const struct profile *p, struct json_object *d, const char *sel_text,
			    uint64_t lo, uint64_t hi)
{
	struct profile *s, *o;
	struct callsel sel;
	struct callsel_info in;

	assert_int_equal(callsel__parse(sel_text, &sel, NULL, 0), 0);
	assert_int_equal(callsel__split(p, &sel, &s, &o, &in), 0);
	check_side(d, s, lo, hi, false);
	check_side(d, o, lo, hi, true);
	assert_true(calls_sum(d, R, lo, hi, R, NULL, 7) > 0);
	profile__free(s);
	profile__free(o);
}

static void test_selections(void **state)
{
	struct profile *p = calls_profile();
	struct json_object *d = page_data(p, NULL), *c = get(d, "calls"), *list;
	uint64_t period = 1000000;

	(void)state;
	assert_string_equal(json_object_get_string(get(c, "state")), "ok");
	assert_int_equal(json_object_get_uint64(get(c, "bound")), REPORT_HTML_MAX_CALLS);
	/* 12 calls of R, 7 of X (calls 6..12) */
	assert_int_equal(json_object_get_uint64(get(c, "total")), 19);
	assert_int_equal(json_object_get_uint64(get(c, "kept")), 19);
	list = get(d, "call_list");
	assert_int_equal(json_object_array_length(list), 19);
	/* each call's duration is the one report --calls selects by */
	for (size_t k = 0; k < calls__nr(profile__calls(p)); k++) {
		const struct call_rec *r = calls__get(profile__calls(p), k);
		struct json_object *row = json_object_array_get_idx(list, k);

		assert_string_equal(str(d, at(row, 1)), r->feature);
		assert_string_equal(str(d, at(row, 2)), r->instance);
		assert_int_equal(at(row, 3), call_rec__duration_ns(r, period));
		assert_int_equal(at(row, 5), r->samples);
		assert_int_equal(at(row, 6), r->offcpu_ns);
	}
	check_selection(p, d, "R>=7ms", 7000000, UINT64_MAX);
	check_selection(p, d, "R<7ms", 0, 7000000);
	check_selection(p, d, "R>=4ms<9ms", 4000000, 9000000);
	check_selection(p, d, "R>=1ns", 0, UINT64_MAX);
	json_object_put(d);
	profile__free(p);
}

static void test_scope(void **state)
{
	struct profile *p = calls_profile();
	struct report_opts o = {.feature = "X"};
	struct json_object *d = page_data(p, &o), *list, *stacks;

	(void)state;
	/* --feature X: X's calls, and the stacks charge X alone */
	list = get(d, "call_list");
	assert_int_equal(json_object_array_length(list), 7);
	for (size_t k = 0; k < 7; k++)
		assert_string_equal(str(d, at(json_object_array_get_idx(list, k), 1)), "X");
	stacks = get(d, "call_stacks");
	for (size_t k = 0; k < json_object_array_length(stacks); k++) {
		struct json_object *ch = json_object_array_get_idx(stacks, k);

		assert_int_equal(json_object_array_length(ch), 2);
		assert_string_equal(str(d, at(ch, 0)), "X");
	}
	json_object_put(d);
	/* a process filter: no calls, said */
	o = (struct report_opts){.pid = "1"};
	d = page_data(p, &o);
	assert_string_equal(json_object_get_string(get(get(d, "calls"), "state")), "filtered");
	assert_int_equal(json_object_array_length(get(d, "call_list")), 0);
	json_object_put(d);
	/* the selection a page opens at (report --calls SEL --format html) */
	{
		const struct report_html_opts h = {.call_selection = "R>=7ms"};
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(f);
		assert_int_equal(report_html__data(f, p, NULL, &h), 0);
		fclose(f);
		d = json_tokener_parse(buf);
		free(buf);
		assert_string_equal(json_object_get_string(get(d, "call_selection")), "R>=7ms");
		json_object_put(d);
		d = page_data(p, NULL);
		assert_null(get(d, "call_selection"));
		json_object_put(d);
	}
	/* no calls recorded */
	profile__set_calls(p, NULL);
	d = page_data(p, NULL);
	assert_string_equal(json_object_get_string(get(get(d, "calls"), "state")), "none");
	assert_int_equal(json_object_array_length(get(d, "call_list")), 0);
	assert_int_equal(json_object_get_uint64(get(get(d, "calls"), "total")), 0);
	json_object_put(d);
	profile__free(p);
}

/* More calls than the bound: the slowest of each feature are kept, an
 * equal share each (a feature with fewer calls keeps all of them). */
static void test_bound(void **state)
{
	const size_t n = REPORT_HTML_MAX_CALLS + 6;
	const struct profile_frame r[] = {MK(R, I)}, x[] = {MK(X, I)};
	struct profile_meta meta = {.frequency_hz = 1000};
	struct profile *p = profile__new();
	struct calls *c = calls__new(0);
	struct json_object *d, *list;
	size_t nr_r = 0, nr_x = 0;

	(void)state;
	assert_int_equal(profile__set_meta(p, &meta), 0);
	assert_int_equal(profile__add_thread(p, 1, 7, "w"), 0);
	assert_int_equal(profile__add_stack(p, 1, 10, r, 1), 0);
	assert_int_equal(profile__add_stack(p, 1, 11, x, 1), 0);
	/* R's calls 1..n: two samples 2 ms apart (3 ms), but every 20000th (6
	 * of them, the first included) one sample (1 ms); X: 10 calls of 1 ms */
	for (uint64_t id = 1; id <= n + 10; id++) {
		uint64_t ids[] = {id}, t = id * 10000000, k = (id - 1) % 20000 && id <= n ? 2 : 1;

		assert_int_equal(profile__add_samples(p, 1, 7, id <= n ? 10 : 11, k), 0);
		for (uint64_t s = 0; s < k; s++)
			assert_int_equal(calls__add(c, 1, 7, id <= n ? 0 : 1, id <= n ? r : x, ids,
						    1, t + s * 2000000, 1),
					 0);
	}
	profile__set_calls(p, c);
	d = page_data(p, NULL);
	assert_int_equal(json_object_get_uint64(get(get(d, "calls"), "total")), n + 10);
	assert_int_equal(json_object_get_uint64(get(get(d, "calls"), "kept")),
			 REPORT_HTML_MAX_CALLS);
	list = get(d, "call_list");
	assert_int_equal(json_object_array_length(list), REPORT_HTML_MAX_CALLS);
	/* R's one-sample calls (1 ms) are the ones left out, X's all kept */
	for (size_t k = 0; k < REPORT_HTML_MAX_CALLS; k++) {
		struct json_object *row = json_object_array_get_idx(list, k);

		if (!strcmp(str(d, at(row, 1)), R)) {
			assert_int_equal(at(row, 3), 3000000);
			assert_int_equal(at(row, 5), 2);
			nr_r++;
		} else {
			assert_int_equal(at(row, 3), 1000000);
			nr_x++;
		}
	}
	assert_int_equal(nr_x, 10);
	assert_int_equal(nr_r, REPORT_HTML_MAX_CALLS - 10);
	/* call_features: [feature, total, kept] */
	list = get(d, "call_features");
	assert_int_equal(json_object_array_length(list), 2);
	for (size_t k = 0; k < 2; k++) {
		struct json_object *row = json_object_array_get_idx(list, k);
		bool is_r = !strcmp(str(d, at(row, 0)), R);

		assert_int_equal(at(row, 1), is_r ? n : 10);
		assert_int_equal(at(row, 2), is_r ? REPORT_HTML_MAX_CALLS - 10 : 10);
	}
	json_object_put(d);
	profile__free(p);
}

/*
 * A bounded profile (record --calls-keep: calls__bound): per instance the
 * slowest calls and a weighted sample of the others. The page writes each
 * call's weight (call_list's last column) and its weighted sums are the
 * split profiles' of report --calls, selected and other calls alike; the
 * dropped calls are in "calls".
 */
static void test_weights(void **state)
{
	const struct calls_bound bounds[] = {{.slowest = 1, .sample = 2, .period_ns = 1000000},
					     {.slowest = 1, .sample = 3, .period_ns = 1000000}};

	(void)state;
	for (size_t b = 0; b < sizeof(bounds) / sizeof(bounds[0]); b++) {
		struct profile *p = calls_profile();
		struct calls *c = (struct calls *)profile__calls(p);
		struct json_object *d, *list;
		double sum = 0, weights = 0;

		assert_int_equal(calls__bound(c, &bounds[b], NULL, NULL), 0);
		assert_true(calls__dropped_calls(c) > 0);
		d = page_data(p, NULL);
		assert_int_equal(json_object_get_uint64(get(get(d, "calls"), "dropped_calls")),
				 calls__dropped_calls(c));
		list = get(d, "call_list");
		assert_int_equal(json_object_array_length(list), calls__nr(c));
		for (size_t k = 0; k < calls__nr(c); k++) {
			double w = json_object_get_double(
				json_object_array_get_idx(json_object_array_get_idx(list, k), 10));
			double r = calls__get(c, k)->weight;

			assert_true(w == (r > 1 ? r : 1));
			sum += w;
			weights += w > 1;
		}
		/* every call of the profile: the kept ones and those they stand for */
		assert_true(sum > calls__nr(c) + calls__dropped_calls(c) - 0.5 &&
			    sum < calls__nr(c) + calls__dropped_calls(c) + 0.5);
		assert_true(weights > 0);
		check_selection(p, d, "R>=7ms", 7000000, UINT64_MAX);
		check_selection(p, d, "R<7ms", 0, 7000000);
		check_selection(p, d, "R>=4ms<9ms", 4000000, 9000000);
		json_object_put(d);
		profile__free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selections),
		cmocka_unit_test(test_scope),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_weights),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
