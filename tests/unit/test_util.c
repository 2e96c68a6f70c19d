// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the shared helpers of analysis/common/util.h that more than
 * one part of fsp-bpf computes with: the FNV-1a hash (userspace stores label
 * hashes the BPF side compares with its own, bpf/labels.bpf.h) and the
 * sampling period (the session's, a profile's, the plug-ins'). */
#include "hashmap.h"
#include "rowtab.h"
#include "unit_helpers.h"
#include "util.h"

/* FNV-1a 64-bit test vectors (Fowler, Noll, Vo: "FNV-1a" of the octets). */
static void test_fnv1a_vectors(void **state)
{
	(void)state;
	assert_true(fsp_fnv1a("", 0, FSP_FNV_OFFSET) == 0xcbf29ce484222325ULL);
	assert_true(fsp_fnv1a("a", 1, FSP_FNV_OFFSET) == 0xaf63dc4c8601ec8cULL);
	assert_true(fsp_fnv1a("foobar", 6, FSP_FNV_OFFSET) == 0x85944171f73967e8ULL);
	/* in pieces: each continues from the hash so far */
	assert_true(fsp_fnv1a("bar", 3, fsp_fnv1a("foo", 3, FSP_FNV_OFFSET)) ==
		    0x85944171f73967e8ULL);
	/* a byte step is a step of its value */
	assert_true(fsp_fnv1a_step(FSP_FNV_OFFSET, 'a') == 0xaf63dc4c8601ec8cULL);
	/* the bytes are unsigned */
	assert_true(fsp_fnv1a("\xff", 1, FSP_FNV_OFFSET) == fsp_fnv1a_step(FSP_FNV_OFFSET, 0xff));
}

/* fsp_hash_str is FNV-1a of the string, then mixed. */
static void test_hash_str(void **state)
{
	static const char *const s[] = {"", "a", "foobar", "output", "\xc3\xa9t\xc3\xa9"};

	(void)state;
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		assert_true(fsp_hash_str(s[i]) ==
			    fsp_hash_u64(fsp_fnv1a(s[i], strlen(s[i]), FSP_FNV_OFFSET)));
}

/* 1e9 / Hz nanoseconds, rounded to the nearest. */
static void test_period(void **state)
{
	(void)state;
	assert_int_equal(fsp_period_ns(999), 1001001); /* 1001001.001 */
	assert_int_equal(fsp_period_ns(1000), 1000000);
	assert_int_equal(fsp_period_ns(7), 142857143); /* 142857142.86 */
	assert_int_equal(fsp_period_ns(3), 333333333); /* 333333333.33 */
	assert_int_equal(fsp_period_ns(1), 1000000000);
	assert_int_equal(fsp_period_ns(100000), 10000);
	assert_int_equal(fsp_period_ns(0), 0);
}

/* fsp_grow doubles from 16 elements, fsp_grow_from from the number given. */
static void test_grow(void **state)
{
	size_t cap = 0;
	int *a = NULL;

	(void)state;
	assert_int_equal(fsp_grow((void **)&a, &cap, 1, sizeof(*a)), 0);
	assert_int_equal(cap, 16);
	assert_int_equal(fsp_grow((void **)&a, &cap, 17, sizeof(*a)), 0);
	assert_int_equal(cap, 32);
	free(a);
	a = NULL;
	cap = 0;
	assert_int_equal(fsp_grow_from((void **)&a, &cap, 1, sizeof(*a), 1), 0);
	assert_int_equal(cap, 1);
	assert_int_equal(fsp_grow_from((void **)&a, &cap, 3, sizeof(*a), 1), 0);
	assert_int_equal(cap, 4);
	free(a);
}

/*
 * A row table holds as many rows as it has, to the next power of two: the
 * analysis keeps one per feature for its instances, most often of one row,
 * and 16 rows each made a diff of 10^6 features take gigabytes (issue 26).
 */
static void test_rowtab_room(void **state)
{
	struct hashmap map = HASHMAP_INIT;
	struct row {
		uint64_t v[12];
	} *rows = NULL;
	size_t nr = 0, cap = 0, idx = 99;
	struct rowtab t = ROWTAB(&map, rows, nr, cap);

	(void)state;
	assert_int_equal(rowtab__find_or_add(&t, 1, 2, &idx), 0);
	assert_int_equal(idx, 0);
	assert_int_equal(cap, 1);
	assert_int_equal(rowtab__find_or_add(&t, 1, 2, &idx), 1);
	assert_int_equal(idx, 0);
	for (uint64_t k = 3; k < 8; k++)
		assert_int_equal(rowtab__find_or_add(&t, 1, k, &idx), 0);
	assert_int_equal(nr, 6);
	assert_int_equal(cap, 8);
	assert_int_equal(rows[5].v[0], 0); /* zeroed */
	free(rows);
	hashmap__fini(&map);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fnv1a_vectors), cmocka_unit_test(test_hash_str),
		cmocka_unit_test(test_period),	      cmocka_unit_test(test_grow),
		cmocka_unit_test(test_rowtab_room),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
