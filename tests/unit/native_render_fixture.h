/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The profile the unit tests of the views of native stacks share
 * (test_native_render.c, test_native_pprof.c): known counts over inlined,
 * recursive, unsymbolized, JIT and kernel frames.
 */
#ifndef FSP_UNIT_NATIVE_RENDER_FIXTURE_H
#define FSP_UNIT_NATIVE_RENDER_FIXTURE_H

#include "native.h"
#include "unit_helpers.h"

/* ---- the fixture ---------------------------------------------------------------- */

static const struct profile_meta meta = {
	.target = "pid 100 (app)",
	.tool_version = "0.1.0",
	.frequency_hz = 1000,
	.period_ns = 1000000,
	.duration_s = 1.0,
};

/* Location indexes of the fixture. */
enum { L_INL, L_MAIN, L_MEMCPY, L_NOSYM, L_JIT, L_KERNEL, L_REC, NR_LOCS };

static uint32_t add_loc(struct profile *p, uint32_t mod, uint64_t addr,
			const struct profile_line *lines, size_t n, unsigned int flags)
{
	struct profile_location loc = {
		.module = mod, .address = addr, .lines = lines, .nr_lines = n, .flags = flags};
	int i = profile__add_location(p, &loc);

	assert_true(i >= 0);
	return (uint32_t)i;
}

static size_t add_nstack(struct profile *p, const uint32_t *locs, size_t depth, size_t nr_kernel,
			 int method, unsigned int flags)
{
	struct profile_native_stack s = {.locs = locs,
					 .depth = depth,
					 .nr_kernel = nr_kernel,
					 .method = method,
					 .flags = flags};
	int i = profile__add_native_stack(p, &s);

	assert_true(i >= 0);
	return (size_t)i;
}

#define ADD_NATIVE(p, pid, tid, key, stack, n)                                                     \
	assert_int_equal(profile__add_native_samples((p), (pid), (tid), (key), (stack), (n)), 0)

/* The fixture's core samples alone: the same profile without native stacks. */
static inline struct profile *core_profile(void)
{
	struct profile *p = profile__new();

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &meta), 0);
	assert_int_equal(profile__add_thread(p, 100, 100, "app"), 0);
	ADD_STACK(p, 100, 1, MARK("plan", "q1"));
	ADD_STACK(p, 100, 2, MARK("plan", "q2"));
	ADD_STACK(p, 100, 3, MARK("plan", "q1"), MARK("gc", "major"));
	ADD_SAMPLES(p, 100, 100, 1, 10);
	ADD_SAMPLES(p, 100, 100, 2, 5);
	ADD_SAMPLES(p, 100, 100, 3, 4);
	ADD_SAMPLES(p, 100, 100, 0, 1);
	return p;
}

/*
 * Process 100 (thread 100 "app"), 20 samples. Modules: /usr/bin/app
 * (build-id abcd), /lib/x86_64-linux-gnu/libc.so.6, [kernel.kallsyms].
 * Locations: inl_helper (app.c:10) inlined into outer_fn (app.c:20), main,
 * memcpy (symbol table), app+0x3000 (no symbol), JIT code, do_syscall_64
 * (kernel), rec (app.c:40). Native stacks (leaf first):
 *   S0 inl_helper<outer_fn<main            DWARF
 *   S1 memcpy<inl_helper<outer_fn<main     DWARF
 *   S2 rec<rec<rec<main                    DWARF (recursion)
 *   S3 do_syscall_64 [k]<app+0x3000<main   frame pointers
 *   S4 [jit]<main                          DWARF, truncated
 * Core samples: key 1 plan/q1 10 (S0 4, S1 3, S2 2, 1 without a stack),
 * key 2 plan/q2 5 (S3 5), key 3 plan/q1 with gc/major inside 4 (S4 2, S2
 * 2), no mark 1 (S0 1).
 */
static struct profile *native_profile(void)
{
	static const struct profile_line inl[] = {{"inl_helper", "app.c", 10},
						  {"outer_fn", "app.c", 20}};
	static const struct profile_line mainl[] = {{"main", "app.c", 30}};
	static const struct profile_line memcpyl[] = {{"memcpy", NULL, 0}};
	static const struct profile_line kern[] = {{"do_syscall_64", NULL, 0}};
	static const struct profile_line rec[] = {{"rec", "app.c", 40}};
	struct profile_module app = {PROFILE_MODULE_USER, "/usr/bin/app", "abcd"};
	struct profile_module libc = {PROFILE_MODULE_USER, "/lib/x86_64-linux-gnu/libc.so.6", NULL};
	struct profile_module kmod = {PROFILE_MODULE_KERNEL, "[kernel.kallsyms]", NULL};
	struct profile *p = core_profile();
	uint32_t l[NR_LOCS];
	size_t s[5];
	int ma, mc, mk;

	ma = profile__add_module(p, &app);
	mc = profile__add_module(p, &libc);
	mk = profile__add_module(p, &kmod);
	assert_true(ma >= 0 && mc >= 0 && mk >= 0);
	l[L_INL] = add_loc(p, ma, 0x1000, inl, 2, PROFILE_LOC_DEBUGINFO);
	l[L_MAIN] = add_loc(p, ma, 0x2000, mainl, 1, PROFILE_LOC_DEBUGINFO);
	l[L_MEMCPY] = add_loc(p, mc, 0x500, memcpyl, 1, 0);
	l[L_NOSYM] = add_loc(p, ma, 0x3000, NULL, 0, 0);
	l[L_JIT] = add_loc(p, PROFILE_NO_MODULE, 0x7f0000001000, NULL, 0, PROFILE_LOC_JIT);
	l[L_KERNEL] = add_loc(p, mk, 0xffffffff81000010, kern, 1, 0);
	l[L_REC] = add_loc(p, ma, 0x4000, rec, 1, PROFILE_LOC_DEBUGINFO);
	{
		const uint32_t s0[] = {l[L_INL], l[L_MAIN]};
		const uint32_t s1[] = {l[L_MEMCPY], l[L_INL], l[L_MAIN]};
		const uint32_t s2[] = {l[L_REC], l[L_REC], l[L_REC], l[L_MAIN]};
		const uint32_t s3[] = {l[L_KERNEL], l[L_NOSYM], l[L_MAIN]};
		const uint32_t s4[] = {l[L_JIT], l[L_MAIN]};

		s[0] = add_nstack(p, s0, 2, 0, PROFILE_UNWIND_DWARF, 0);
		s[1] = add_nstack(p, s1, 3, 0, PROFILE_UNWIND_DWARF, 0);
		s[2] = add_nstack(p, s2, 4, 0, PROFILE_UNWIND_DWARF, 0);
		s[3] = add_nstack(p, s3, 3, 1, PROFILE_UNWIND_FP, 0);
		s[4] = add_nstack(p, s4, 2, 0, PROFILE_UNWIND_DWARF, PROFILE_NATIVE_TRUNCATED);
	}
	ADD_NATIVE(p, 100, 100, 1, s[0], 4);
	ADD_NATIVE(p, 100, 100, 1, s[1], 3);
	ADD_NATIVE(p, 100, 100, 1, s[2], 2);
	ADD_NATIVE(p, 100, 100, 2, s[3], 5);
	ADD_NATIVE(p, 100, 100, 3, s[4], 2);
	ADD_NATIVE(p, 100, 100, 3, s[2], 2);
	ADD_NATIVE(p, 100, 100, 0, s[0], 1);
	return p;
}

static int setup(void **state)
{
	*state = native_profile();
	return 0;
}

static int teardown(void **state)
{
	profile__free(*state);
	return 0;
}

#endif /* FSP_UNIT_NATIVE_RENDER_FIXTURE_H */
