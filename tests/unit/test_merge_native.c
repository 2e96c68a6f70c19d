// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of merging the native stacks of profiles (analysis/model/merge.c). */
#include <errno.h>
#include <stdio.h>

#include "merge.h"
#include "native_helpers.h"
#include "unit_helpers.h"

static struct profile *recording(const char *target)
{
	struct profile_meta m = {.target = target, .frequency_hz = 1000, .period_ns = 1000000};
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &m), 0);
	return p;
}

static int add_loc(struct profile *p, uint32_t mod, uint64_t addr, const char *fn)
{
	struct profile_line l = {.function = fn, .file = fn ? "x.c" : NULL, .line = fn ? 7 : 0};
	struct profile_location loc = {.module = mod,
				       .address = addr,
				       .lines = fn ? &l : NULL,
				       .nr_lines = fn ? 1 : 0,
				       .flags = fn ? PROFILE_LOC_DEBUGINFO : 0};

	return profile__add_location(p, &loc);
}

/* A: app (build-id 01) and libc; work <- libc+0x20 (unsymbolized) */
static struct profile *rec_a(void)
{
	struct profile *p = recording("A");
	uint32_t s0[] = {0, 1}, s1[] = {1};

	ADD_STACK(p, 100, 1, MARK("F", NULL));
	ADD_SAMPLES(p, 100, 100, 1, 10);
	ADD_SAMPLES(p, 100, 100, 0, 3);
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/bin/app", "01"), 0);
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/lib/libc.so.6", "aa"), 1);
	assert_int_equal(add_loc(p, 0, 0x10, "work"), 0);
	assert_int_equal(add_loc(p, 1, 0x20, NULL), 1);
	assert_int_equal(add_nstack(p, s0, 2, 0, PROFILE_UNWIND_DWARF, 0), 0);
	assert_int_equal(add_nstack(p, s1, 1, 0, PROFILE_UNWIND_FP, 0), 1);
	assert_int_equal(profile__add_native_samples(p, 100, 100, 1, 0, 6), 0);
	assert_int_equal(profile__add_native_samples(p, 100, 100, 0, 1, 2), 0);
	return p;
}

/*
 * B: the same pid; its modules in another order, a rebuilt app (build-id
 * 02) and the kernel; libc+0x20 symbolized here, app+0x10 not; one stack
 * equal to A's stack 0 once remapped.
 */
static struct profile *rec_b(void)
{
	struct profile *p = recording("B");
	uint32_t s0[] = {3, 2, 1}, s1[] = {0, 1}, s2[] = {2};

	ADD_STACK(p, 100, 1, MARK("G", NULL));
	ADD_SAMPLES(p, 100, 100, 1, 20);
	assert_int_equal(add_mod(p, PROFILE_MODULE_KERNEL, "[kernel.kallsyms]", NULL), 0);
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/lib/libc.so.6", "aa"), 1);
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/bin/app", "02"), 2);
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/bin/app", "01"), 3);
	assert_int_equal(add_loc(p, 3, 0x10, NULL), 0);
	assert_int_equal(add_loc(p, 1, 0x20, "memcpy"), 1);
	assert_int_equal(add_loc(p, 2, 0x10, "work2"), 2);
	assert_int_equal(add_loc(p, 0, 0xffffffff81000000ULL, "schedule"), 3);
	assert_int_equal(add_nstack(p, s0, 3, 1, PROFILE_UNWIND_DWARF, 0), 0);
	assert_int_equal(add_nstack(p, s1, 2, 0, PROFILE_UNWIND_DWARF, 0), 1);
	assert_int_equal(add_nstack(p, s2, 1, 0, PROFILE_UNWIND_DWARF, PROFILE_NATIVE_TRUNCATED),
			 2);
	assert_int_equal(profile__add_native_samples(p, 100, 100, 1, 0, 5), 0);
	assert_int_equal(profile__add_native_samples(p, 100, 100, 1, 1, 7), 0);
	assert_int_equal(profile__add_native_samples(p, 100, 100, 1, 2, 1), 0);
	return p;
}

static void assert_module(const struct profile *p, size_t i, const char *path, const char *bid)
{
	struct profile_module m;

	assert_int_equal(profile__module(p, i, &m), 0);
	assert_string_equal(m.path, path);
	if (bid)
		assert_string_equal(m.build_id, bid);
	else
		assert_null(m.build_id);
}

static void assert_location(const struct profile *p, size_t i, uint32_t mod, uint64_t addr,
			    const char *fn)
{
	struct profile_location l;

	assert_int_equal(profile__location(p, i, &l), 0);
	assert_int_equal(l.module, mod);
	assert_true(l.address == addr);
	if (!fn) {
		assert_int_equal(l.nr_lines, 0);
		return;
	}
	assert_int_equal(l.nr_lines, 1);
	assert_string_equal(l.lines[0].function, fn);
}

static void assert_nsample(const struct profile *p, size_t i, uint32_t src, size_t stack,
			   uint64_t count)
{
	struct profile_native_sample ns;

	assert_int_equal(profile__native_sample(p, i, &ns), 0);
	assert_int_equal(ns.source, src);
	assert_int_equal(ns.stack, stack);
	assert_true(ns.count == count);
}

static void test_merge_native(void **state)
{
	struct profile *a = rec_a(), *b = rec_b(), *all = profile__new();
	struct profile_native_stack s;
	struct profile_native_sample ns;
	char err[256];

	(void)state;
	assert_int_equal(profile__merge(all, a, err, sizeof(err)), 0);
	assert_int_equal(profile__merge(all, b, err, sizeof(err)), 0);
	/* modules: app 01 and libc once, app 02 and the kernel added */
	assert_int_equal(profile__nr_modules(all), 4);
	assert_module(all, 0, "/bin/app", "01");
	assert_module(all, 1, "/lib/libc.so.6", "aa");
	assert_module(all, 2, "[kernel.kallsyms]", NULL);
	assert_module(all, 3, "/bin/app", "02");
	/* locations by module and address: B's unsymbolized app+0x10 keeps A's
	 * lines; B's symbolized libc+0x20 gives A's its lines; app 02's
	 * 0x10 is another location */
	assert_int_equal(profile__nr_locations(all), 4);
	assert_location(all, 0, 0, 0x10, "work");
	assert_location(all, 1, 1, 0x20, "memcpy");
	assert_location(all, 2, 3, 0x10, "work2");
	assert_location(all, 3, 2, 0xffffffff81000000ULL, "schedule");
	/* stacks remapped: B's stack 1 is A's stack 0 */
	assert_int_equal(profile__nr_native_stacks(all), 4);
	assert_int_equal(profile__native_stack(all, 2, &s), 0);
	assert_int_equal(s.depth, 3);
	assert_int_equal(s.nr_kernel, 1);
	assert_int_equal(s.locs[0], 3);
	assert_int_equal(s.locs[1], 2);
	assert_int_equal(s.locs[2], 1);
	assert_int_equal(profile__native_stack(all, 3, &s), 0);
	assert_int_equal(s.flags, PROFILE_NATIVE_TRUNCATED);
	assert_int_equal(s.locs[0], 2);
	/* samples per source, the same pid kept apart */
	assert_int_equal(profile__nr_native_samples(all), 5);
	assert_nsample(all, 0, 0, 0, 6);
	assert_nsample(all, 1, 0, 1, 2);
	assert_nsample(all, 2, 1, 2, 5);
	assert_nsample(all, 3, 1, 0, 7);
	assert_nsample(all, 4, 1, 3, 1);
	/* the mark stacks are each source's own */
	assert_int_equal(profile__native_sample(all, 3, &ns), 0);
	assert_int_equal(ns.mark_stack, 1);
	assert_int_equal(profile__native_sample(all, 1, &ns), 0);
	assert_int_equal(ns.mark_stack, PROFILE_NO_STACK);
	profile__free(a);
	profile__free(b);
	profile__free(all);
}

/* A merge merged again, or into a recording, keeps its native data whole. */
static void test_merge_native_again(void **state)
{
	struct profile *a = rec_a(), *b = rec_b(), *all = profile__new(), *again = profile__new();
	struct profile_native_sample x, y;
	char err[256];

	(void)state;
	assert_int_equal(profile__merge(all, a, err, sizeof(err)), 0);
	assert_int_equal(profile__merge(all, b, err, sizeof(err)), 0);
	assert_int_equal(profile__merge(again, all, err, sizeof(err)), 0);
	assert_int_equal(profile__nr_modules(again), profile__nr_modules(all));
	assert_int_equal(profile__nr_locations(again), profile__nr_locations(all));
	assert_int_equal(profile__nr_native_stacks(again), profile__nr_native_stacks(all));
	assert_int_equal(profile__nr_native_samples(again), profile__nr_native_samples(all));
	for (size_t i = 0; i < profile__nr_native_samples(all); i++) {
		assert_int_equal(profile__native_sample(all, i, &x), 0);
		assert_int_equal(profile__native_sample(again, i, &y), 0);
		assert_true(x.source == y.source && x.pid == y.pid && x.tid == y.tid &&
			    x.key == y.key && x.mark_stack == y.mark_stack && x.stack == y.stack &&
			    x.count == y.count);
	}
	/* into a recording: A stays source 0, B becomes source 1 */
	assert_int_equal(profile__merge(a, b, err, sizeof(err)), 0);
	assert_int_equal(profile__nr_native_samples(a), 5);
	assert_nsample(a, 0, 0, 0, 6);
	assert_nsample(a, 4, 1, 3, 1);
	profile__free(a);
	profile__free(b);
	profile__free(all);
	profile__free(again);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_native),
		cmocka_unit_test(test_merge_native_again),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
