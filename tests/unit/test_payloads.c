// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the payload records of sampled stacks
 * (userspace/session/payloads.c): counting per (thread, stack, payloads),
 * malformed records, and the thinning that bounds them. */
#include <errno.h>

#include "payloads.h"
#include "unit_helpers.h"

/* Adds one record of thread tid, stack hash, with depth payloads v..v+depth-1. */
static void add(struct payloads *pl, uint32_t tid, uint64_t hash, uint64_t depth, uint64_t v)
{
	struct fsp_payload_rec r = {.tgid = 100, .tid = tid, .hash = hash, .depth = depth};

	for (uint64_t i = 0; i < depth; i++)
		r.payload[i] = v + i;
	assert_int_equal(payloads__add(pl, &r, 24 + depth * 8), 0);
}

static uint64_t count_sum(const struct payloads *pl, uint32_t tid, uint64_t hash)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < payloads__nr(pl); i++) {
		const struct payload_rec *r = payloads__rec(pl, i);

		if (r->a == ((uint64_t)100 << 32 | tid) && r->hash == hash)
			sum += r->count;
	}
	return sum;
}

static void test_counts(void **state)
{
	struct payloads *pl = payloads__new(1000);
	struct fsp_payload_rec bad = {.tgid = 100, .tid = 1, .hash = 5, .depth = 3};
	const struct payload_rec *r;

	(void)state;
	assert_non_null(pl);
	add(pl, 1, 5, 2, 10);
	add(pl, 1, 5, 2, 10);
	add(pl, 1, 5, 2, 20);
	add(pl, 2, 5, 2, 10);
	add(pl, 1, 6, 1, 10);
	assert_int_equal(payloads__nr(pl), 4);
	r = payloads__rec(pl, 0);
	assert_int_equal(r->count, 2);
	assert_int_equal(r->depth, 2);
	assert_int_equal(payloads__values(pl, r)[0], 10);
	assert_int_equal(payloads__values(pl, r)[1], 11);
	assert_int_equal(payloads__kept(pl, 100, 1, 5), 3);
	assert_int_equal(payloads__kept(pl, 100, 2, 5), 1);
	assert_int_equal(payloads__kept(pl, 100, 1, 6), 1);
	assert_int_equal(payloads__kept(pl, 100, 3, 5), 0);
	/* A record shorter than its depth says, or deeper than a stack can be,
	 * is ignored. */
	assert_int_equal(payloads__add(pl, &bad, 24 + 2 * 8), 0);
	bad.depth = FSP_MAX_DEPTH + 1;
	assert_int_equal(payloads__add(pl, &bad, sizeof(bad)), 0);
	assert_int_equal(payloads__add(pl, &bad, 8), 0);
	assert_int_equal(payloads__nr(pl), 4);
	assert_int_equal(payloads__shift(pl), 0);
	assert_null(payloads__rec(pl, 4));
	payloads__free(pl);
	payloads__free(NULL);
}

/* Beyond the bound, about half the vectors go at each step; the kept ones
 * keep their exact counts, and the group sums follow. */
static void test_thinning(void **state)
{
	struct payloads *pl = payloads__new(64);
	size_t nr;

	(void)state;
	assert_non_null(pl);
	for (uint64_t n = 0; n < 4000; n++) {
		add(pl, 1, 5, 1, n);
		add(pl, 2, 5, 1, n); /* the same vector: kept or gone for both */
		assert_true(payloads__nr(pl) <= 64);
	}
	nr = payloads__nr(pl);
	print_message("%zu records kept at shift %u\n", nr, payloads__shift(pl));
	/* 8000 records of 4000 vectors at 2^-shift: 2 x 4000 / 2^shift expected. */
	assert_true(payloads__shift(pl) >= 7 && payloads__shift(pl) <= 9);
	assert_true(nr >= 8 && nr % 2 == 0);
	assert_int_equal(count_sum(pl, 1, 5), payloads__kept(pl, 100, 1, 5));
	assert_int_equal(payloads__kept(pl, 100, 1, 5), payloads__kept(pl, 100, 2, 5));
	assert_int_equal(payloads__kept(pl, 100, 1, 5), nr / 2);
	/* A vector kept once is counted again; it comes back as the same record. */
	for (size_t i = 0; i < nr; i++) {
		const struct payload_rec *r = payloads__rec(pl, i);

		assert_int_equal(r->count, 1);
		if (i == 0)
			add(pl, (uint32_t)r->a, 5, 1, payloads__values(pl, r)[0]);
	}
	assert_int_equal(payloads__nr(pl), nr);
	assert_int_equal(payloads__rec(pl, 0)->count, 2);
	payloads__free(pl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_thinning),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
