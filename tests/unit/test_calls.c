// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the slow-call view's join (analysis/model/calls.c): each
 * sample goes to the call of the top-most mark of each feature it charges
 * (the attribution rule, charges__stack), by call number: short calls beside
 * long ones, nested calls of one feature, recursion, threads, antimarks,
 * unknown call numbers, the bound, and the duration estimate.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "calls.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_beside_long),
		cmocka_unit_test(test_nested_and_recursion),
		cmocka_unit_test(test_threads_antimarks_unknown),
		cmocka_unit_test(test_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
