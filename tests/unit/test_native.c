// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the native-stack model (analysis/model/native.c). */
#include <errno.h>

#include "native_helpers.h"
#include "unit_helpers.h"

static int setup(void **state)
{
	*state = profile__new();
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	profile__free(*state);
	return 0;
}

static int add_loc(struct profile *p, uint32_t mod, uint64_t addr, const char *fn)
{
	struct profile_line l = {.function = fn, .file = NULL, .line = 0};
	struct profile_location loc = {
		.module = mod, .address = addr, .lines = fn ? &l : NULL, .nr_lines = fn ? 1 : 0};

	return profile__add_location(p, &loc);
}

static void test_empty_and_null(void **state)
{
	struct profile *p = *state;
	struct profile_module m = {};
	struct profile_location l = {};
	struct profile_native_stack s = {};
	struct profile_native_sample ns;

	assert_int_equal(profile__nr_modules(p), 0);
	assert_int_equal(profile__nr_locations(p), 0);
	assert_int_equal(profile__nr_native_stacks(p), 0);
	assert_int_equal(profile__nr_native_samples(p), 0);
	assert_int_equal(profile__nr_modules(NULL), 0);
	assert_int_equal(profile__nr_locations(NULL), 0);
	assert_int_equal(profile__nr_native_stacks(NULL), 0);
	assert_int_equal(profile__nr_native_samples(NULL), 0);
	assert_int_equal(profile__module(p, 0, &m), -EINVAL);
	assert_int_equal(profile__location(p, 0, &l), -EINVAL);
	assert_int_equal(profile__native_stack(p, 0, &s), -EINVAL);
	assert_int_equal(profile__native_sample(p, 0, &ns), -EINVAL);
	assert_int_equal(profile__add_module(NULL, &m), -EINVAL);
	assert_int_equal(profile__add_module(p, NULL), -EINVAL);
	assert_int_equal(profile__add_location(NULL, &l), -EINVAL);
	assert_int_equal(profile__add_native_stack(NULL, &s), -EINVAL);
	assert_int_equal(profile__add_native_samples(NULL, 1, 1, 0, 0, 1), -EINVAL);
	assert_int_equal(profile__add_native_samples(p, 1, 1, 0, 0, 1), -EINVAL);
	assert_int_equal(profile__set_location_lines(p, 0, NULL, 0, 0), -EINVAL);
}

static void test_modules_dedup(void **state)
{
	struct profile *p = *state;
	struct profile_module m;
	char *path = test_strdup("/usr/lib/libc.so.6");

	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/usr/lib/libc.so.6", "ab01"), 0);
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/usr/bin/app", NULL), 1);
	/* equal strings at another address: the same module */
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, path, "ab01"), 0);
	/* another build-id, none, another kind: other modules */
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, path, "ab02"), 2);
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, path, NULL), 3);
	assert_int_equal(add_mod(p, PROFILE_MODULE_KERNEL, path, NULL), 4);
	/* "" build-id is no build-id */
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, path, ""), 3);
	assert_int_equal(profile__nr_modules(p), 5);
	assert_int_equal(profile__module(p, 0, &m), 0);
	assert_string_equal(m.path, "/usr/lib/libc.so.6");
	assert_ptr_not_equal(m.path, path); /* interned copy */
	assert_string_equal(m.build_id, "ab01");
	assert_int_equal(m.kind, PROFILE_MODULE_USER);
	assert_int_equal(profile__module(p, 1, &m), 0);
	assert_null(m.build_id);
	assert_int_equal(profile__module(p, 4, &m), 0);
	assert_int_equal(m.kind, PROFILE_MODULE_KERNEL);
	assert_int_equal(profile__module(p, 5, &m), -EINVAL);
	free(path);
}

static void test_modules_invalid(void **state)
{
	struct profile *p = *state;

	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, NULL, NULL), -EINVAL);
	assert_int_equal(add_mod(p, 2, "/x", NULL), -EINVAL);
	assert_int_equal(add_mod(p, -1, "/x", NULL), -EINVAL);
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/x", "AB"), -EINVAL);
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/x", "abc"), -EINVAL);
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/x", "zz"), -EINVAL);
	assert_int_equal(profile__nr_modules(p), 0);
}

static void test_locations(void **state)
{
	struct profile *p = *state;
	struct profile_line lines[] = {
		{"inlined_leaf", "/src/a.c", 10},
		{"outer", "/src/a.c", 42},
	};
	struct profile_location loc = {.module = 0,
				       .address = 0x1234,
				       .lines = lines,
				       .nr_lines = 2,
				       .flags = PROFILE_LOC_DEBUGINFO};
	struct profile_location out;
	char *fn = test_strdup("inlined_leaf");

	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/bin/a", NULL), 0);
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/bin/b", NULL), 1);
	lines[0].function = fn;
	assert_int_equal(profile__add_location(p, &loc), 0);
	/* same address in another module, the same module at another address */
	assert_int_equal(add_loc(p, 1, 0x1234, "b_fn"), 1);
	assert_int_equal(add_loc(p, 0, 0x1235, NULL), 2);
	/* JIT code: no module, runtime address */
	loc = (struct profile_location){
		.module = PROFILE_NO_MODULE, .address = 0x7f0000001000, .flags = PROFILE_LOC_JIT};
	assert_int_equal(profile__add_location(p, &loc), 3);
	assert_int_equal(profile__nr_locations(p), 4);

	assert_int_equal(profile__location(p, 0, &out), 0);
	assert_int_equal(out.module, 0);
	assert_int_equal(out.address, 0x1234);
	assert_int_equal(out.nr_lines, 2);
	assert_int_equal(out.flags, PROFILE_LOC_DEBUGINFO);
	assert_string_equal(out.lines[0].function, "inlined_leaf");
	assert_ptr_not_equal(out.lines[0].function, fn);
	assert_string_equal(out.lines[0].file, "/src/a.c");
	assert_ptr_equal(out.lines[0].file, out.lines[1].file); /* interned */
	assert_int_equal(out.lines[0].line, 10);
	assert_string_equal(out.lines[1].function, "outer");
	assert_int_equal(out.lines[1].line, 42);

	assert_int_equal(profile__location(p, 2, &out), 0);
	assert_null(out.lines);
	assert_int_equal(out.nr_lines, 0);
	assert_int_equal(profile__location(p, 3, &out), 0);
	assert_int_equal(out.module, PROFILE_NO_MODULE);
	assert_int_equal(out.flags, PROFILE_LOC_JIT);
	assert_int_equal(profile__location(p, 4, &out), -EINVAL);
	free(fn);
}

static void test_locations_invalid(void **state)
{
	struct profile *p = *state;
	struct profile_location loc = {.module = 0, .address = 1};

	/* no modules yet: module 0 is out of range */
	assert_int_equal(profile__add_location(p, &loc), -EINVAL);
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/bin/a", NULL), 0);
	loc.module = 1;
	assert_int_equal(profile__add_location(p, &loc), -EINVAL);
	loc.module = 0;
	loc.nr_lines = 1; /* lines NULL */
	assert_int_equal(profile__add_location(p, &loc), -EINVAL);
	loc.nr_lines = 0;
	loc.flags = 4;
	assert_int_equal(profile__add_location(p, &loc), -EINVAL);
	assert_int_equal(profile__nr_locations(p), 0);
	loc.flags = 0;
	assert_int_equal(profile__add_location(p, &loc), 0);
	assert_int_equal(profile__set_location_lines(p, 1, NULL, 0, 0), -EINVAL);
	assert_int_equal(profile__set_location_lines(p, 0, NULL, 1, 0), -EINVAL);
	assert_int_equal(profile__set_location_lines(p, 0, NULL, 0, 8), -EINVAL);
}

static void test_location_lines_replacement(void **state)
{
	struct profile *p = *state;
	struct profile_line two[] = {{"leaf", "a.c", 1}, {"outer", "a.c", 2}};
	struct profile_line one[] = {{"sym_only", NULL, 0}};
	struct profile_line three[] = {{"x", "x.c", 3}, {"y", "y.c", 4}, {"z", "z.c", 5}};
	struct profile_location loc = {.module = 0, .address = 0x10};
	struct profile_location out;

	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/bin/a", NULL), 0);
	/* first unsymbolized, a later symbolization wins */
	assert_int_equal(profile__add_location(p, &loc), 0);
	assert_int_equal(add_loc(p, 0, 0x20, "other"), 1);
	loc.lines = two;
	loc.nr_lines = 2;
	loc.flags = PROFILE_LOC_DEBUGINFO;
	assert_int_equal(profile__add_location(p, &loc), 0);
	assert_int_equal(profile__location(p, 0, &out), 0);
	assert_int_equal(out.nr_lines, 2);
	assert_string_equal(out.lines[1].function, "outer");
	assert_int_equal(out.flags, PROFILE_LOC_DEBUGINFO);
	/* an unsymbolized add does not erase the lines */
	loc.lines = NULL;
	loc.nr_lines = 0;
	loc.flags = 0;
	assert_int_equal(profile__add_location(p, &loc), 0);
	assert_int_equal(profile__location(p, 0, &out), 0);
	assert_int_equal(out.nr_lines, 2);
	assert_int_equal(out.flags, PROFILE_LOC_DEBUGINFO);
	/* fewer lines (in place), then more (moved) */
	assert_int_equal(profile__set_location_lines(p, 0, one, 1, 0), 0);
	assert_int_equal(profile__location(p, 0, &out), 0);
	assert_int_equal(out.nr_lines, 1);
	assert_string_equal(out.lines[0].function, "sym_only");
	assert_null(out.lines[0].file);
	assert_int_equal(out.flags, 0);
	assert_int_equal(profile__set_location_lines(p, 0, three, 3, PROFILE_LOC_DEBUGINFO), 0);
	assert_int_equal(profile__location(p, 0, &out), 0);
	assert_int_equal(out.nr_lines, 3);
	assert_string_equal(out.lines[2].function, "z");
	assert_int_equal(out.lines[2].line, 5);
	/* the other location is untouched */
	assert_int_equal(profile__location(p, 1, &out), 0);
	assert_int_equal(out.nr_lines, 1);
	assert_string_equal(out.lines[0].function, "other");
	/* lines taken from the profile itself (they move when the array grows) */
	assert_int_equal(profile__location(p, 0, &out), 0);
	assert_int_equal(profile__set_location_lines(p, 1, out.lines, out.nr_lines, 0), 0);
	assert_int_equal(profile__location(p, 1, &out), 0);
	assert_int_equal(out.nr_lines, 3);
	assert_string_equal(out.lines[0].function, "x");
	assert_string_equal(out.lines[2].function, "z");
	/* to none */
	assert_int_equal(profile__set_location_lines(p, 1, NULL, 0, 0), 0);
	assert_int_equal(profile__location(p, 1, &out), 0);
	assert_int_equal(out.nr_lines, 0);
	assert_null(out.lines);
	assert_int_equal(profile__location(p, 0, &out), 0);
	assert_int_equal(out.nr_lines, 3);
	assert_string_equal(out.lines[1].function, "y");
}

static void test_native_stacks(void **state)
{
	struct profile *p = *state;
	struct profile_native_stack s;
	uint32_t a[] = {0, 1, 2}, b[] = {0, 1, 2}, c[] = {0, 1}, d[] = {3, 0, 1, 2};

	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/bin/a", NULL), 0);
	assert_int_equal(add_mod(p, PROFILE_MODULE_KERNEL, "[kernel.kallsyms]", NULL), 1);
	for (int i = 0; i < 3; i++)
		assert_int_equal(add_loc(p, 0, 0x100 + i, NULL), i);
	assert_int_equal(add_loc(p, 1, 0xffffffff81000000ULL, "schedule"), 3);

	assert_int_equal(add_nstack(p, a, 3, 0, PROFILE_UNWIND_DWARF, 0), 0);
	assert_int_equal(add_nstack(p, b, 3, 0, PROFILE_UNWIND_DWARF, 0), 0); /* equal content */
	assert_int_equal(add_nstack(p, c, 2, 0, PROFILE_UNWIND_DWARF, 0), 1); /* prefix */
	assert_int_equal(add_nstack(p, a, 3, 0, PROFILE_UNWIND_FP, 0), 2); /* method */
	assert_int_equal(add_nstack(p, a, 3, 0, PROFILE_UNWIND_DWARF, PROFILE_NATIVE_TRUNCATED),
			 3); /* flags */
	assert_int_equal(add_nstack(p, d, 4, 1, PROFILE_UNWIND_DWARF, 0), 4);
	assert_int_equal(add_nstack(p, d, 4, 0, PROFILE_UNWIND_DWARF, 0), 5); /* nr_kernel */
	assert_int_equal(add_nstack(p, d, 1, 1, 0, 0), 6); /* kernel only: no method */
	assert_int_equal(profile__nr_native_stacks(p), 7);

	assert_int_equal(profile__native_stack(p, 4, &s), 0);
	assert_int_equal(s.depth, 4);
	assert_int_equal(s.nr_kernel, 1);
	assert_int_equal(s.method, PROFILE_UNWIND_DWARF);
	assert_int_equal(s.flags, 0);
	assert_memory_equal(s.locs, d, sizeof(d));
	/* the stack's own frames passed back: found, not copied */
	assert_int_equal(profile__add_native_stack(p, &s), 4);
	assert_int_equal(profile__native_stack(p, 3, &s), 0);
	assert_int_equal(s.flags, PROFILE_NATIVE_TRUNCATED);
	/* a suffix of a stored stack's frames: equal to stack 0 */
	assert_int_equal(profile__native_stack(p, 4, &s), 0);
	s.locs++;
	s.depth--;
	s.nr_kernel = 0;
	assert_int_equal(profile__add_native_stack(p, &s), 0);
	/* ... and, with other flags, a new stack copied from the moving array */
	s.method = PROFILE_UNWIND_FP;
	s.flags = PROFILE_NATIVE_TRUNCATED;
	assert_int_equal(profile__add_native_stack(p, &s), 7);
	assert_int_equal(profile__native_stack(p, 7, &s), 0);
	assert_int_equal(s.depth, 3);
	assert_memory_equal(s.locs, a, sizeof(a));
	assert_int_equal(profile__native_stack(p, 8, &s), -EINVAL);
}

static void test_native_stacks_invalid(void **state)
{
	struct profile *p = *state;
	uint32_t ok[] = {0}, bad[] = {0, 1};

	assert_int_equal(add_nstack(p, ok, 1, 0, PROFILE_UNWIND_FP, 0), -EINVAL); /* no locations */
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/bin/a", NULL), 0);
	assert_int_equal(add_loc(p, 0, 0x100, NULL), 0);
	assert_int_equal(add_nstack(p, bad, 2, 0, PROFILE_UNWIND_FP, 0), -EINVAL);
	assert_int_equal(add_nstack(p, ok, 0, 0, PROFILE_UNWIND_FP, 0), -EINVAL); /* empty */
	assert_int_equal(add_nstack(p, NULL, 1, 0, PROFILE_UNWIND_FP, 0), -EINVAL);
	assert_int_equal(add_nstack(p, ok, 1, 2, PROFILE_UNWIND_FP, 0), -EINVAL);
	assert_int_equal(add_nstack(p, ok, 1, 0, 0, 0), -EINVAL); /* user part, no method */
	assert_int_equal(add_nstack(p, ok, 1, 0, 3, 0), -EINVAL);
	assert_int_equal(add_nstack(p, ok, 1, 0, PROFILE_UNWIND_FP, 2), -EINVAL);
	assert_int_equal(profile__nr_native_stacks(p), 0);
	assert_int_equal(add_nstack(p, ok, 1, 0, PROFILE_UNWIND_FP, 0), 0);
}

static void test_native_samples(void **state)
{
	struct profile *p = *state;
	struct profile_native_sample ns;
	uint32_t a[] = {0}, b[] = {1, 0};

	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/bin/a", NULL), 0);
	assert_int_equal(add_loc(p, 0, 0x100, "leaf"), 0);
	assert_int_equal(add_loc(p, 0, 0x200, "main"), 1);
	assert_int_equal(add_nstack(p, a, 1, 0, PROFILE_UNWIND_FP, 0), 0);
	assert_int_equal(add_nstack(p, b, 2, 0, PROFILE_UNWIND_FP, 0), 1);
	ADD_STACK(p, 10, 7, MARK("f", "i"));

	assert_int_equal(profile__add_native_samples(p, 10, 11, 7, 1, 3), 0);
	assert_int_equal(profile__add_native_samples(p, 10, 11, 7, 0, 1), 0);
	assert_int_equal(profile__add_native_samples(p, 10, 11, 7, 1, 2), 0); /* accumulates */
	assert_int_equal(profile__add_native_samples(p, 10, 12, 7, 1, 1), 0); /* other tid */
	assert_int_equal(profile__add_native_samples(p, 10, 11, 0, 1, 1), 0); /* no marks */
	assert_int_equal(profile__add_native_samples(p, 10, 11, 99, 1, 1),
			 0); /* key not (yet) known */
	assert_int_equal(profile__add_native_samples(p, 10, 11, 7, 1, 0), 0); /* count 0: nothing */
	assert_int_equal(profile__add_native_samples(p, 10, 11, 7, 2, 1), -EINVAL);
	assert_int_equal(profile__add_native_samples(p, 10, 11, 7, 1, UINT64_MAX), 0);
	assert_int_equal(profile__nr_native_samples(p), 5);
	/* native samples are not core samples */
	assert_int_equal(profile__nr_samples(p), 0);
	assert_int_equal(profile__total_samples(p), 0);

	/* in order of first addition */
	assert_int_equal(profile__native_sample(p, 0, &ns), 0);
	assert_int_equal(ns.source, 0);
	assert_int_equal(ns.pid, 10);
	assert_int_equal(ns.tid, 11);
	assert_int_equal(ns.key, 7);
	assert_int_equal(ns.stack, 1);
	assert_int_equal(ns.count, UINT64_MAX); /* saturates */
	assert_int_equal(ns.mark_stack, 0);
	assert_int_equal(profile__native_sample(p, 1, &ns), 0);
	assert_int_equal(ns.stack, 0);
	assert_int_equal(ns.count, 1);
	assert_int_equal(profile__native_sample(p, 2, &ns), 0);
	assert_int_equal(ns.tid, 12);
	assert_int_equal(profile__native_sample(p, 3, &ns), 0);
	assert_int_equal(ns.key, 0);
	assert_int_equal(ns.mark_stack, PROFILE_NO_STACK);
	assert_int_equal(profile__native_sample(p, 4, &ns), 0);
	assert_int_equal(ns.mark_stack, PROFILE_NO_STACK);
	/* the mark stack registered after its native samples is found */
	ADD_STACK(p, 10, 99, MARK("g", NULL));
	assert_int_equal(profile__native_sample(p, 4, &ns), 0);
	assert_int_equal(ns.mark_stack, 1);
	assert_int_equal(profile__native_sample(p, 5, &ns), -EINVAL);
}

static void test_native_samples_sources(void **state)
{
	struct profile *p = *state;
	struct profile_meta meta = {.target = "t"};
	struct profile_native_sample ns;
	uint32_t a[] = {0};

	assert_int_equal(profile__add_source(p, &meta, NULL), 0);
	assert_int_equal(profile__add_source(p, &meta, NULL), 1);
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/bin/a", NULL), 0);
	assert_int_equal(add_loc(p, 0, 0x100, "leaf"), 0);
	assert_int_equal(add_nstack(p, a, 1, 0, PROFILE_UNWIND_DWARF, 0), 0);
	ADD_STACK(p, 10, 7, MARK("f", NULL));
	assert_int_equal(profile__add_native_samples(p, 10, 10, 7, 0, 4), 0);
	assert_int_equal(profile__use_source(p, 1), 0);
	/* modules, locations and stacks are shared by the sources */
	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/bin/a", NULL), 0);
	assert_int_equal(add_loc(p, 0, 0x100, NULL), 0);
	assert_int_equal(add_nstack(p, a, 1, 0, PROFILE_UNWIND_DWARF, 0), 0);
	ADD_STACK(p, 10, 8, MARK("g", NULL));
	/* the same (pid, tid, key) of another source is another native sample */
	assert_int_equal(profile__add_native_samples(p, 10, 10, 7, 0, 5), 0);
	assert_int_equal(profile__add_native_samples(p, 10, 10, 8, 0, 6), 0);
	assert_int_equal(profile__nr_native_samples(p), 3);
	assert_int_equal(profile__native_sample(p, 0, &ns), 0);
	assert_int_equal(ns.source, 0);
	assert_int_equal(ns.count, 4);
	assert_int_equal(ns.mark_stack, 0);
	assert_int_equal(profile__native_sample(p, 1, &ns), 0);
	assert_int_equal(ns.source, 1);
	assert_int_equal(ns.count, 5);
	/* key 7 is a stack of source 0 only */
	assert_int_equal(ns.mark_stack, PROFILE_NO_STACK);
	assert_int_equal(profile__native_sample(p, 2, &ns), 0);
	assert_int_equal(ns.source, 1);
	assert_int_equal(ns.mark_stack, 1);
}

/* Stack i of test_many (three pseudo-random locations) and a sample of it. */
static void add_many_stack(struct profile *p, int i)
{
	uint32_t locs[3] = {(uint32_t)i, (uint32_t)((i * 7) % 5000), (uint32_t)((i * 13) % 5000)};

	assert_int_equal(add_nstack(p, locs, 3, 0, PROFILE_UNWIND_DWARF, 0), i);
	assert_int_equal(profile__add_native_samples(p, 1, (uint32_t)i % 4, 0, (size_t)i, 1), 0);
}

/* Many distinct records: dedup through growth of every table and map. */
static void test_many(void **state)
{
	struct profile *p = *state;
	struct profile_native_stack s;
	struct profile_location l;
	char name[32];

	assert_int_equal(add_mod(p, PROFILE_MODULE_USER, "/bin/a", NULL), 0);
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "fn%d", i % 100);
		assert_int_equal(add_loc(p, 0, 0x1000 + 16 * (uint64_t)i, name), i);
	}
	for (int i = 0; i < 5000; i++) {
		add_many_stack(p, i);
	}
	for (int i = 0; i < 5000; i++) {
		add_many_stack(p, i);
		assert_int_equal(add_loc(p, 0, 0x1000 + 16 * (uint64_t)i, NULL), i);
	}
	assert_int_equal(profile__nr_locations(p), 5000);
	assert_int_equal(profile__nr_native_stacks(p), 5000);
	assert_int_equal(profile__nr_native_samples(p), 5000);
	assert_int_equal(profile__native_stack(p, 4999, &s), 0);
	assert_int_equal(s.locs[1], (4999 * 7) % 5000);
	assert_int_equal(profile__location(p, 4999, &l), 0);
	assert_string_equal(l.lines[0].function, "fn99");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_empty_and_null, setup, teardown),
		cmocka_unit_test_setup_teardown(test_modules_dedup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_modules_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_locations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_locations_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_location_lines_replacement, setup, teardown),
		cmocka_unit_test_setup_teardown(test_native_stacks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_native_stacks_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_native_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_native_samples_sources, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
