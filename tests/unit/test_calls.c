// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the slow-call view's join (analysis/model/calls.c): each
 * sample goes to the call of the top-most mark of each feature it charges
 * (the attribution rule, charges__stack), by call number: short calls beside
 * long ones, nested calls of one feature, recursion, threads, antimarks,
 * unknown call numbers, the bound, and the duration estimate; the selector's
 * grammar (analysis/model/callsel.c) and the split of a profile's samples
 * into the selected calls' and the others'.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "calls.h"
#include "callsel.h"
#include "native.h"
#include "profile_io.h"

static const char F[] = "F", G[] = "G", A[] = "a", B[] = "b";

#define MK(f, i)                                                                                   \
	{                                                                                          \
		.feature = (f), .instance = (i), .kind = PROFILE_MARK                              \
	}
#define AM(f)                                                                                      \
	{                                                                                          \
		.feature = (f), .kind = PROFILE_ANTIMARK                                           \
	}

/* The call (pid 1, tid, feature, id), or NULL. */
static const struct call_rec *find(const struct calls *c, uint32_t tid, const char *f, uint64_t id)
{
	for (size_t i = 0; i < calls__nr(c); i++) {
		const struct call_rec *r = calls__get(c, i);

		if (r->tid == tid && r->id == id && !strcmp(r->feature, f))
			return r;
	}
	return NULL;
}

/* A long call (3, sampled at 0..40 ms) and short calls around it (2 and 4,
 * one sample each, 1 ms from the long one's): no sample changes call. */
static void test_short_beside_long(void **state)
{
	const struct profile_frame fr[] = {MK(F, A)};
	struct calls *c = calls__new(0);
	const struct call_rec *r;
	uint64_t id;

	(void)state;
	assert_non_null(c);
	id = 2;
	assert_int_equal(calls__add(c, 1, 10, 0, fr, &id, 1, 0, 1), 0);
	id = 3;
	for (uint64_t t = 1; t <= 41; t += 10)
		assert_int_equal(calls__add(c, 1, 10, 0, fr, &id, 1, t * 1000000, 1), 0);
	id = 4;
	assert_int_equal(calls__add(c, 1, 10, 0, fr, &id, 1, 42000000, 1), 0);
	assert_int_equal(calls__nr(c), 3);
	r = find(c, 10, F, 3);
	assert_non_null(r);
	assert_int_equal(r->samples, 5);
	assert_int_equal(r->first_ns, 1000000);
	assert_int_equal(r->last_ns, 41000000);
	assert_int_equal(call_rec__estimate_ns(r, 1000000), 41000000);
	assert_int_equal(find(c, 10, F, 2)->samples, 1);
	assert_int_equal(find(c, 10, F, 4)->samples, 1);
	assert_string_equal(r->instance, A);
	calls__free(c);
}

/* Nested calls of one feature (recursion too): the inner one is charged,
 * the outer one only by the samples taken outside the inner. Another
 * feature nested in between has its own call. */
static void test_nested_and_recursion(void **state)
{
	const struct profile_frame outer[] = {MK(F, A)};
	const struct profile_frame nest[] = {MK(F, A), MK(G, B), MK(F, B)};
	const uint64_t ids_outer[] = {7}, ids_nest[] = {7, 8, 9};
	struct calls *c = calls__new(0);

	(void)state;
	assert_int_equal(calls__add(c, 1, 10, 0, outer, ids_outer, 1, 100, 2), 0);
	assert_int_equal(calls__add(c, 1, 10, 0, nest, ids_nest, 3, 200, 3), 0);
	assert_int_equal(find(c, 10, F, 7)->samples, 2);
	assert_int_equal(find(c, 10, F, 9)->samples, 3);
	assert_string_equal(find(c, 10, F, 9)->instance, B);
	assert_int_equal(find(c, 10, G, 8)->samples, 3);
	assert_int_equal(calls__nr(c), 3);
	calls__free(c);
}

/* The same call number in two threads, or of two features of one thread
 * (numbers are per thread and DSO), is two calls; an antimark on top
 * charges no call; call number 0 is unknown. */
static void test_threads_antimarks_unknown(void **state)
{
	const struct profile_frame fr[] = {MK(F, A)}, gfr[] = {MK(G, A)};
	const struct profile_frame anti[] = {MK(F, A), AM(F)};
	const uint64_t id[] = {5}, ida[] = {5, 6}, zero[] = {0};
	struct calls *c = calls__new(0);

	(void)state;
	assert_int_equal(calls__add(c, 1, 10, 0, fr, id, 1, 1, 1), 0);
	assert_int_equal(calls__add(c, 1, 11, 0, fr, id, 1, 2, 4), 0);
	assert_int_equal(calls__add(c, 1, 10, 0, gfr, id, 1, 3, 2), 0);
	assert_int_equal(calls__add(c, 1, 10, 0, anti, ida, 2, 4, 8), 0);
	assert_int_equal(calls__add(c, 1, 10, 0, fr, zero, 1, 5, 16), 0);
	assert_int_equal(find(c, 10, F, 5)->samples, 1);
	assert_int_equal(find(c, 11, F, 5)->samples, 4);
	assert_int_equal(find(c, 10, G, 5)->samples, 2);
	assert_int_equal(calls__nr(c), 3);
	assert_int_equal(calls__unknown(c), 16);
	assert_int_equal(calls__dropped(c), 0);
	calls__free(c);
}

/* Beyond max calls, new calls' samples are dropped and counted; the kept
 * calls still get theirs. */
static void test_bound(void **state)
{
	const struct profile_frame fr[] = {MK(F, A)};
	struct calls *c = calls__new(2);

	(void)state;
	for (uint64_t id = 1; id <= 4; id++)
		assert_int_equal(calls__add(c, 1, 10, 0, fr, &id, 1, id, id), 0);
	for (uint64_t id = 1; id <= 2; id++)
		assert_int_equal(calls__add(c, 1, 10, 0, fr, &id, 1, 10, 1), 0);
	assert_int_equal(calls__nr(c), 2);
	assert_int_equal(calls__dropped(c), 3 + 4);
	assert_int_equal(find(c, 10, F, 1)->samples, 2);
	assert_int_equal(find(c, 10, F, 2)->samples, 3);
	assert_int_equal(calls__add(NULL, 1, 10, 0, fr, NULL, 1, 0, 1), -EINVAL);
	assert_int_equal(calls__add(c, 1, 10, 0, fr, NULL, 1, 0, 1), -EINVAL);
	assert_null(calls__get(c, 2));
	assert_int_equal(call_rec__estimate_ns(NULL, 5), 0);
	calls__free(c);
	calls__free(NULL);
}

/* 1000 calls of F:a on thread 10, call i lasting i ms (two samples, i - 1
 * ms apart, period 1 ms), from id `from` to `to`. */
static void add_calls(struct calls *c, uint64_t from, uint64_t to)
{
	const struct profile_frame fr[] = {MK(F, A)};

	for (uint64_t id = from; id <= to; id++) {
		uint64_t t = id * 10000000000ULL;

		assert_int_equal(calls__add(c, 1, 10, 0, fr, &id, 1, t, 1), 0);
		assert_int_equal(calls__add(c, 1, 10, 0, fr, &id, 1, t + (id - 1) * 1000000, 1), 0);
	}
}

/* calls whose id is a multiple of 250 are still open */
static bool open_250(void *ctx, const struct call_rec *r)
{
	(void)ctx;
	return r->id % 250 == 0;
}

/* The bound: the slowest ended calls, a uniform sample of the others whose
 * weights stand for the dropped ones, open calls all kept; bounding as the
 * calls come keeps the same calls as bounding once; the weights make a
 * percentile inside the slowest exact. */
static void test_keep_slowest(void **state)
{
	const struct calls_bound b = {.slowest = 10, .sample = 50, .period_ns = 1000000};
	struct calls *c = calls__new(0), *d = calls__new(0);
	double wsum = 0;
	size_t top = 0, open = 0;

	(void)state;
	add_calls(c, 1, 1000);
	assert_int_equal(calls__bound(c, &b, open_250, NULL), 0);
	/* open: 250, 500, 750, 1000; the slowest ended: 989..999 but 1000 */
	assert_int_equal(calls__nr(c), 4 + 10 + 50);
	assert_int_equal(calls__dropped_calls(c), 1000 - 64);
	assert_int_equal(calls__dropped(c), 2 * (1000 - 64));
	for (size_t i = 0; i < calls__nr(c); i++) {
		const struct call_rec *r = calls__get(c, i);

		if (r->id % 250 == 0) {
			open++;
			assert_true(r->weight == 1);
		} else if (r->id >= 989) {
			top++;
			assert_true(r->weight == 1);
		} else {
			/* 986 ended others, 50 of them kept */
			assert_true(r->weight > 19.71 && r->weight < 19.73);
		}
		wsum += r->weight;
		if (i)
			assert_true(calls__get(c, i - 1)->first_ns < r->first_ns);
	}
	assert_int_equal(open, 4);
	assert_int_equal(top, 10);
	assert_true(wsum > 999.99 && wsum < 1000.01);
	/* again: nothing changes */
	assert_int_equal(calls__bound(c, &b, open_250, NULL), 0);
	assert_int_equal(calls__nr(c), 64);
	assert_int_equal(calls__dropped_calls(c), 936);
	/* as the calls come, in three parts: the same calls, the same weights */
	add_calls(d, 1, 300);
	assert_int_equal(calls__bound(d, &b, open_250, NULL), 0);
	add_calls(d, 301, 700);
	assert_int_equal(calls__bound(d, &b, open_250, NULL), 0);
	add_calls(d, 701, 1000);
	assert_int_equal(calls__bound(d, &b, open_250, NULL), 0);
	assert_int_equal(calls__nr(d), calls__nr(c));
	assert_int_equal(calls__dropped_calls(d), calls__dropped_calls(c));
	for (size_t i = 0; i < calls__nr(c); i++) {
		const struct call_rec *x = calls__get(c, i), *y = find(d, 10, F, x->id);

		assert_non_null(y);
		assert_true(x->weight > y->weight - 1e-9 && x->weight < y->weight + 1e-9);
	}
	calls__free(c);
	calls__free(d);
	assert_int_equal(calls__bound(NULL, &b, NULL, NULL), -EINVAL);
}

/* ---- the selector ------------------------------------------------------------------ */

static void parse_ok(const char *s, const char *feature, const char *instance, enum callsel_op op,
		     uint64_t ns, double pct)
{
	struct callsel sel;
	char err[256] = "";

	assert_int_equal(callsel__parse(s, &sel, err, sizeof(err)), 0);
	assert_string_equal(sel.feature, feature);
	assert_int_equal(sel.has_instance, instance != NULL);
	if (instance)
		assert_string_equal(sel.instance, instance);
	assert_int_equal(sel.op, op);
	if (op == CALLSEL_PCT)
		assert_true(sel.pct == pct);
	else
		assert_int_equal(sel.ns, ns);
}

static void parse_bad(const char *s, const char *why)
{
	struct callsel sel;
	char err[512] = "";

	assert_int_equal(callsel__parse(s, &sel, err, sizeof(err)), -EINVAL);
	if (!strstr(err, why))
		fail_msg("'%s': '%s' does not say '%s'", s, err, why);
	assert_null(strchr(err, '\n'));
}

static void test_selector(void **state)
{
	(void)state;
	parse_ok("request>=50ms", "request", NULL, CALLSEL_GE, 50000000, 0);
	parse_ok("request>2.5s", "request", NULL, CALLSEL_GT, 2500000000ULL, 0);
	parse_ok("request<=800us", "request", NULL, CALLSEL_LE, 800000, 0);
	parse_ok("request<120ns", "request", NULL, CALLSEL_LT, 120, 0);
	parse_ok("request:/api/search p99", "request", "/api/search", CALLSEL_PCT, 0, 99);
	parse_ok("request p99.9", "request", NULL, CALLSEL_PCT, 0, 99.9);
	parse_ok("sql query:SELECT 1>=1ms", "sql query", "SELECT 1", CALLSEL_GE, 1000000, 0);
	/* a range: two conditions */
	{
		struct callsel sel;

		assert_int_equal(callsel__parse("request:/a>=2ms<5.5ms", &sel, NULL, 0), 0);
		assert_string_equal(sel.instance, "/a");
		assert_int_equal(sel.op, CALLSEL_GE);
		assert_int_equal(sel.ns, 2000000);
		assert_int_equal(sel.op2, CALLSEL_LT);
		assert_int_equal(sel.ns2, 5500000);
		assert_int_equal(callsel__parse("request>=2ms", &sel, NULL, 0), 0);
		assert_int_equal(sel.op2, 0);
	}
	parse_bad("request>=2ms<5ms<6ms", "is not a condition");
	parse_bad("request>=2<5ms", "is not a condition");
	parse_bad("request>=2ms<", "is not a condition");
	parse_bad("request", "has no condition");
	parse_bad("request>=50", "is not a condition");
	parse_bad("request>=50 ms", "is not a condition");
	parse_bad("request>=ms", "is not a condition");
	parse_bad("request>=-5ms", "is not a condition");
	parse_bad("request p100", "is not a condition");
	parse_bad("request p0", "is not a condition");
	parse_bad("request pfast", "'pfast' is not a condition");
	parse_bad(">=5ms", "feature name is empty");
	parse_bad("request:>=5ms", "instance after ':' is empty");
	parse_bad(NULL, "no selector");
}

/* Native stacks 0 (one frame at 0x10) and 1 (0x20), of module m. */
static void add_native_stacks(struct profile *p)
{
	const struct profile_module m = {.kind = PROFILE_MODULE_USER, .path = "/bin/m"};
	struct profile_location l = {.module = 0, .address = 0x10};
	uint32_t loc;
	struct profile_native_stack ns = {.locs = &loc, .depth = 1, .method = PROFILE_UNWIND_FP};

	assert_int_equal(profile__add_module(p, &m), 0);
	assert_int_equal(profile__add_location(p, &l), 0);
	l.address = 0x20;
	assert_int_equal(profile__add_location(p, &l), 1);
	loc = 0;
	assert_int_equal(profile__add_native_stack(p, &ns), 0);
	loc = 1;
	assert_int_equal(profile__add_native_stack(p, &ns), 1);
}

/* Native samples of p with native stack `stack`. */
static uint64_t native_samples(const struct profile *p, size_t stack)
{
	struct profile_native_sample s;
	uint64_t n = 0;

	for (size_t i = 0; i < profile__nr_native_samples(p); i++) {
		assert_int_equal(profile__native_sample(p, i, &s), 0);
		n += s.stack == stack ? s.count : 0;
	}
	return n;
}

/* A profile with one feature R: 10 calls of thread 7, call i with i + 1
 * samples of stack [R] taken 1 ms apart, and one sample of [R, X] in each
 * call from 6 on (the slow calls do X). Period 1 ms. Each sample has a native
 * stack (--stacks): 1 for the [R, X] ones, 0 for the others, but the last
 * sample of each call has none (its record was lost). */
static struct profile *calls_profile(void)
{
	static const char R[] = "R", X[] = "X", I[] = "i";
	const struct profile_frame r[] = {MK(R, I)}, rx[] = {MK(R, I), MK(X, I)};
	struct profile_meta m = {.frequency_hz = 1000};
	struct profile *p = profile__new();
	struct calls *c = calls__new(0);

	assert_non_null(p);
	assert_non_null(c);
	assert_int_equal(profile__set_meta(p, &m), 0);
	assert_int_equal(profile__add_stack(p, 1, 11, r, 1), 0);
	assert_int_equal(profile__add_stack(p, 1, 12, rx, 2), 0);
	add_native_stacks(p);
	for (uint64_t id = 1; id <= 10; id++) {
		uint64_t ids[] = {id, 100 + id}, t = id * 100 * 1000000;

		for (uint64_t k = 0; k <= id; k++) {
			int x = id >= 6 && k == 0;

			assert_int_equal(profile__add_samples(p, 1, 7, x ? 12 : 11, 1), 0);
			assert_int_equal(calls__add(c, 1, 7, x, x ? rx : r, ids, x ? 2 : 1,
						    t + k * 1000000, 1),
					 0);
			if (k == id)
				continue;
			assert_int_equal(profile__add_native_samples(p, 1, 7, x ? 12 : 11, x, 1),
					 0);
			assert_int_equal(
				calls__add_native(c, 1, 7, x, x ? rx : r, ids, x ? 2 : 1, x, 1), 0);
		}
	}
	/* a native stack of a call that has no record: kept by none */
	{
		uint64_t ids[] = {99};

		assert_int_equal(calls__add_native(c, 1, 7, 0, r, ids, 1, 0, 1), 0);
	}
	profile__set_calls(p, c);
	return p;
}

static void test_split(void **state)
{
	struct profile *p = calls_profile(), *s, *o;
	struct callsel sel;
	struct callsel_info in;

	(void)state;
	/* call i lasts i + 1 ms (first to last sample, plus the period) */
	assert_int_equal(callsel__parse("R>=7ms", &sel, NULL, 0), 0);
	assert_int_equal(callsel__split(p, &sel, &s, &o, &in), 0);
	assert_int_equal(in.calls, 10);
	assert_int_equal(in.selected, 5); /* calls 6..10 */
	assert_int_equal(in.selected_samples, 7 + 8 + 9 + 10 + 11);
	assert_int_equal(in.other_samples, 2 + 3 + 4 + 5 + 6);
	assert_int_equal(in.min_ns, 7000000);
	assert_int_equal(in.max_ns, 11000000);
	assert_int_equal(in.sum_ns, 45000000);
	assert_int_equal(profile__total_samples(s), 45);
	assert_int_equal(profile__total_samples(o), 20);
	/* the native stacks split alike: X's (1) in the selected calls only,
	 * each call's last sample without one */
	assert_int_equal(native_samples(s, 1), 5);
	assert_int_equal(native_samples(s, 0), 45 - 5 - 5);
	assert_int_equal(native_samples(o, 1), 0);
	assert_int_equal(native_samples(o, 0), 20 - 5);
	assert_int_equal(profile__nr_native_stacks(s), 2);
	profile__free(s);
	profile__free(o);
	/* p90: the nearest rank of 10 durations 2..11 ms is the 9th, 10 ms */
	assert_int_equal(callsel__parse("R:i p90", &sel, NULL, 0), 0);
	assert_int_equal(callsel__split(p, &sel, &s, &o, &in), 0);
	assert_int_equal(in.threshold_ns, 10000000);
	assert_int_equal(in.selected, 2);
	profile__free(s);
	profile__free(o);
	/* a range: calls 4..6 (5, 6 and 7 ms) */
	assert_int_equal(callsel__parse("R>=5ms<=7ms", &sel, NULL, 0), 0);
	assert_int_equal(callsel__split(p, &sel, &s, &o, &in), 0);
	assert_int_equal(in.selected, 3);
	assert_int_equal(in.min_ns, 5000000);
	assert_int_equal(in.max_ns, 7000000);
	assert_int_equal(profile__total_samples(s), 5 + 6 + 7);
	assert_int_equal(profile__total_samples(o), 65 - 18);
	profile__free(s);
	profile__free(o);
	assert_int_equal(callsel__parse("R<3ms", &sel, NULL, 0), 0);
	assert_int_equal(callsel__split(p, &sel, &s, &o, &in), 0);
	assert_int_equal(in.selected, 1);
	assert_int_equal(profile__total_samples(s), 2);
	profile__free(s);
	profile__free(o);
	/* no such feature or instance; a profile without calls */
	assert_int_equal(callsel__parse("Q>=1ms", &sel, NULL, 0), 0);
	assert_int_equal(callsel__split(p, &sel, &s, &o, &in), -ENOENT);
	assert_null(s);
	assert_int_equal(callsel__parse("R:j>=1ms", &sel, NULL, 0), 0);
	assert_int_equal(callsel__split(p, &sel, &s, &o, &in), -ENOENT);
	profile__set_calls(p, NULL);
	assert_int_equal(callsel__split(p, &sel, &s, &o, &in), -ENODATA);
	profile__free(p);
}

static void to_json(const struct profile *p, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);

	assert_non_null(f);
	assert_int_equal(profile__write_json(f, p), 0);
	assert_int_equal(fclose(f), 0);
}

/* A bounded profile's split counts each sampled call as the calls it
 * stands for, and the file keeps the weights and the dropped calls. */
static void test_bounded_split(void **state)
{
	const struct calls_bound b = {.slowest = 2, .sample = 3, .period_ns = 1000000};
	struct profile *p = calls_profile(), *s, *o, *q;
	const struct calls *qc;
	struct callsel sel;
	struct callsel_info in;
	char err[512], *text = NULL;
	size_t len, weighted = 0;

	(void)state;
	/* R: calls 9, 10 kept, 3 of 1..8 with weight 8 / 3; X (5 calls of
	 * one sample): 2 of them kept as the slowest, 3 as the sample */
	assert_int_equal(calls__bound((struct calls *)profile__calls(p), &b, NULL, NULL), 0);
	assert_int_equal(calls__dropped_calls(profile__calls(p)), 5);
	assert_int_equal(callsel__parse("R>=10ms", &sel, NULL, 0), 0);
	assert_int_equal(callsel__split(p, &sel, &s, &o, &in), 0);
	assert_int_equal(in.calls, 10);
	assert_int_equal(in.selected, 2);
	assert_int_equal(in.selected_samples, 10 + 11);
	assert_int_equal(in.dropped_calls, 5);
	assert_int_equal(in.sampled, 0);
	profile__free(s);
	profile__free(o);
	/* p90 of the weighted durations is 10 ms as without the bound */
	assert_int_equal(callsel__parse("R p90", &sel, NULL, 0), 0);
	assert_int_equal(callsel__split(p, &sel, &s, &o, &in), 0);
	assert_int_equal(in.threshold_ns, 10000000);
	profile__free(s);
	profile__free(o);
	/* every call shorter than 9 ms: the sample, scaled */
	assert_int_equal(callsel__parse("R<9ms", &sel, NULL, 0), 0);
	assert_int_equal(callsel__split(p, &sel, &s, &o, &in), 0);
	assert_true(in.sampled >= 1);
	assert_int_equal(in.selected, (uint64_t)(in.sampled * 8.0 / 3 + 0.5));
	profile__free(s);
	profile__free(o);
	to_json(p, &text, &len);
	assert_non_null(strstr(text, "\"dropped_calls\": 5"));
	q = profile__parse_json(text, len, "t.json", err, sizeof(err));
	if (!q)
		fail_msg("%s", err);
	qc = profile__calls(q);
	assert_int_equal(calls__dropped_calls(qc), 5);
	assert_int_equal(calls__nr(qc), calls__nr(profile__calls(p)));
	for (size_t i = 0; i < calls__nr(qc); i++) {
		double x = calls__get(profile__calls(p), i)->weight, y = calls__get(qc, i)->weight;

		assert_true(x > y - 1e-6 && x < y + 1e-6);
		weighted += y > 1;
	}
	assert_int_equal(weighted, 3);
	profile__free(q);
	/* a file from before the bound (no dropped_calls, no weights) loads,
	 * every call counting once */
	{
		char *at = strstr(text, "\"dropped_calls\": 5, "),
		     *w = strstr(text, ", \"weights\": [");
		/* the weights' rows end with "\n  ]": drop from ", weights" to it */
		char *end = w ? strstr(w, "\n  ]") : NULL;

		assert_non_null(at);
		assert_non_null(end);
		memmove(w, end + strlen("\n  ]"), strlen(end + strlen("\n  ]")) + 1);
		memmove(at, at + strlen("\"dropped_calls\": 5, "),
			strlen(at + strlen("\"dropped_calls\": 5, ")) + 1);
		q = profile__parse_json(text, strlen(text), "old.json", err, sizeof(err));
		if (!q)
			fail_msg("%s", err);
		qc = profile__calls(q);
		assert_int_equal(calls__dropped_calls(qc), 0);
		assert_int_equal(calls__nr(qc), calls__nr(profile__calls(p)));
		for (size_t i = 0; i < calls__nr(qc); i++)
			assert_true(calls__get(qc, i)->weight == 1);
		profile__free(q);
	}
	free(text);
	profile__free(p);
}

/* Off-CPU intervals (--off-cpu) go to the calls open at their switch-out, by
 * the same rule (nested R in R: the inner), extend their extents to the
 * switch-in, make a call no sample fell in, and split with the calls. */
static void test_offcpu(void **state)
{
	static const char R[] = "R", I[] = "i";
	const struct profile_frame r[] = {MK(R, I)}, rr[] = {MK(R, I), MK(R, I)};
	struct profile *p = calls_profile(), *s, *o;
	struct calls *c = (struct calls *)profile__calls(p);
	uint64_t ids7[] = {7, 107}, in8[] = {8, 50}, ids20[] = {20};
	const struct call_rec *x;
	struct callsel sel;
	struct callsel_info in;

	(void)state;
	assert_int_equal(profile__add_stack(p, 1, 13, rr, 2), 0);
	/* call 7 (samples at 700..707 ms, 8 ms) waits 5 ms from 703 ms */
	assert_int_equal(calls__add_offcpu(c, 1, 7, 0, r, ids7, 1, 703000000, 5000000), 0);
	assert_int_equal(profile__add_offcpu(p, 1, 7, 11, 5000000), 0);
	x = find(c, 7, R, 7);
	assert_int_equal(x->offcpu_ns, 5000000);
	assert_int_equal(x->last_ns, 708000000); /* its extent reaches the switch-in */
	assert_int_equal(call_rec__estimate_ns(x, 1000000), 9000000);
	/* nested: the inner call (50) of R inside call 8, new, 2 ms off CPU */
	assert_int_equal(calls__add_offcpu(c, 1, 7, 2, rr, in8, 2, 900000000, 2000000), 0);
	assert_int_equal(profile__add_offcpu(p, 1, 7, 13, 2000000), 0);
	x = find(c, 7, R, 50);
	assert_non_null(x);
	assert_int_equal(x->samples, 0);
	assert_int_equal(x->offcpu_ns, 2000000);
	assert_int_equal(call_rec__estimate_ns(x, 1000000), 2000000);
	assert_int_equal(find(c, 7, R, 8)->offcpu_ns, 0);
	/* another thread's call 20: no sample of it, its own */
	assert_int_equal(calls__add_offcpu(c, 1, 9, 0, r, ids20, 1, 5, 3000000), 0);
	assert_null(find(c, 7, R, 20));
	assert_int_equal(calls__dropped(c), 0);
	/* the split: calls 7 (9 ms) and 8 selected, 50 (2 ms) not */
	assert_int_equal(callsel__parse("R>=9ms", &sel, NULL, 0), 0);
	assert_int_equal(callsel__split(p, &sel, &s, &o, &in), 0);
	assert_int_equal(in.selected_offcpu_ns, 5000000);
	assert_int_equal(in.other_offcpu_ns, 2000000 + 3000000);
	assert_int_equal(profile__total_offcpu_ns(s), 5000000);
	assert_int_equal(profile__total_offcpu_ns(o), 2000000 + 3000000);
	profile__free(s);
	profile__free(o);
	profile__free(p);
}

/* ---- the profile file ------------------------------------------------------------ */

/* The calls go to version 4's "calls" and come back the same; a file
 * whose version is 3 ignores a "calls" member (unknown then), and one with
 * calls before stacks, or a call twice, is refused with a clear message. */
static void test_file(void **state)
{
	struct profile *p = calls_profile(), *q;
	const struct calls *a, *b;
	char err[512], *text = NULL, *v3, *at;
	size_t len;

	(void)state;
	{
		static const char R[] = "R", I[] = "i";
		const struct profile_frame r[] = {MK(R, I)};
		uint64_t ids3[] = {3};

		assert_int_equal(calls__add_offcpu((struct calls *)profile__calls(p), 1, 7, 0, r,
						   ids3, 1, 300000000, 4000000),
				 0);
	}
	to_json(p, &text, &len);
	assert_non_null(strstr(text, "\"version\": 4"));
	q = profile__parse_json(text, len, "t.json", err, sizeof(err));
	if (!q)
		fail_msg("%s", err);
	a = profile__calls(p);
	b = profile__calls(q);
	assert_non_null(b);
	assert_int_equal(calls__nr(b), calls__nr(a));
	for (size_t i = 0; i < calls__nr(a); i++) {
		const struct call_rec *x = calls__get(a, i), *y = calls__get(b, i);

		assert_int_equal(x->id, y->id);
		assert_int_equal(x->tid, y->tid);
		assert_string_equal(x->feature, y->feature);
		assert_string_equal(x->instance, y->instance);
		assert_int_equal(x->samples, y->samples);
		assert_int_equal(x->first_ns, y->first_ns);
		assert_int_equal(x->last_ns, y->last_ns);
		assert_int_equal(x->nr_stacks, y->nr_stacks);
		for (size_t k = 0; k < x->nr_stacks; k++) {
			assert_int_equal(x->stacks[k].stack, y->stacks[k].stack);
			assert_int_equal(x->stacks[k].count, y->stacks[k].count);
		}
		assert_int_equal(x->offcpu_ns, y->offcpu_ns);
		for (size_t k = 0; k < x->nr_stacks; k++)
			assert_int_equal(x->stacks[k].offcpu_ns, y->stacks[k].offcpu_ns);
		assert_int_equal(x->nr_natives, y->nr_natives);
		assert_true(x->nr_natives > 0);
		for (size_t k = 0; k < x->nr_natives; k++) {
			assert_int_equal(x->natives[k].stack, y->natives[k].stack);
			assert_int_equal(x->natives[k].native, y->natives[k].native);
			assert_int_equal(x->natives[k].count, y->natives[k].count);
		}
	}
	profile__free(q);
	/* version 3: "calls" is not one of its members, skipped */
	v3 = strdup(text);
	at = strstr(v3, "\"version\": 4");
	at[strlen("\"version\": ")] = '3';
	q = profile__parse_json(v3, len, "v3.json", err, sizeof(err));
	if (!q)
		fail_msg("%s", err);
	assert_null(profile__calls(q));
	profile__free(q);
	free(v3);
	/* a call twice */
	at = strstr(text, "\"list\":");
	assert_non_null(at);
	{
		const char *first = strchr(at + strlen("\"list\": ["), '['),
			   *end = strstr(first, "]]");
		size_t n = (size_t)(end + 2 - first), head = (size_t)(first - text);
		char *dup = malloc(len + n + 2);

		memcpy(dup, text, head);
		memcpy(dup + head, first, n);
		dup[head + n] = ',';
		memcpy(dup + head + n + 1, first, len - head);
		q = profile__parse_json(dup, len + n + 1, "dup.json", err, sizeof(err));
		assert_null(q);
		if (!strstr(err, "the same call twice"))
			fail_msg("%s", err);
		free(dup);
	}
	free(text);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_beside_long),
		cmocka_unit_test(test_nested_and_recursion),
		cmocka_unit_test(test_threads_antimarks_unknown),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_keep_slowest),
		cmocka_unit_test(test_bounded_split),
		cmocka_unit_test(test_selector),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_offcpu),
		cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
