// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_native - a feature whose CPU time goes to known functions, for native
 * stacks (record --stacks; tests/integration/test_native.c). Built twice from
 * this file at -O2: wl_native with frame pointers, wl_native_nofp without.
 *
 *   wl_native TRUTH MS
 *
 * Rounds of the feature "native" (instance "round") until MS ms of CPU time;
 * each round calls, inside the mark,
 *   work_self        spins in its own code
 *   work_parent      spins in hot_inline(), inlined into it
 *   wl_native_lib_spin  spins in libwl_native.so
 *   work_mid         calls work_leaf, which spins
 * in proportions 30:25:25:20 of spin rounds. Each call's CPU time is measured
 * around it (CLOCK_THREAD_CPUTIME_ID; the calls are ~1 ms, the clock reads
 * ~50 ns), so the truth is what each function really took.
 *
 * Truth keys: native.ns, native.ambig_ns (wl_common.h), fn.NAME.ns for
 * work_self, hot_inline, wl_native_lib_spin, work_leaf, cpu_total_ns.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>

#include "fsp.h"
#include "wl_common.h"

uint64_t wl_native_lib_spin(uint64_t n, uint64_t x);

enum { FN_SELF, FN_INLINE, FN_LIB, FN_LEAF, NR_FN };
static const char *const fn_names[NR_FN] = {"work_self", "hot_inline", "wl_native_lib_spin",
					    "work_leaf"};
static const unsigned int fn_weight[NR_FN] = {30, 25, 25, 20};

#define SPIN_BODY(n, x)                                                                            \
	for (uint64_t i_ = 0; i_ < (n); i_++) {                                                    \
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;                           \
		__asm__ volatile("" : "+r"(x));                                                    \
	}

__attribute__((noinline)) uint64_t work_self(uint64_t n, uint64_t x)
{
	SPIN_BODY(n, x);
	return x;
}

static inline __attribute__((always_inline)) uint64_t hot_inline(uint64_t n, uint64_t x)
{
	SPIN_BODY(n, x);
	return x ^ (x >> 7);
}

__attribute__((noinline)) uint64_t work_parent(uint64_t n, uint64_t x)
{
	return hot_inline(n, x) + 1;
}

__attribute__((noinline)) uint64_t work_leaf(uint64_t n, uint64_t x)
{
	SPIN_BODY(n, x);
	return x;
}

__attribute__((noinline)) uint64_t work_mid(uint64_t n, uint64_t x)
{
	return work_leaf(n, x) * 3;
}

static uint64_t call(int fn, uint64_t n, uint64_t x)
{
	switch (fn) {
	case FN_SELF:
		return work_self(n, x);
	case FN_INLINE:
		return work_parent(n, x);
	case FN_LIB:
		return wl_native_lib_spin(n, x);
	default:
		return work_mid(n, x);
	}
}

/* Spin rounds per ms of CPU time on this machine. */
static uint64_t calibrate(void)
{
	uint64_t n = 1 << 16, t0, t, x = 1;

	for (;;) {
		t0 = wl_thread_ns();
		x = work_self(n, x);
		t = wl_thread_ns() - t0;
		if (t > 20 * WL_NS_PER_MS || x == 42)
			return n * WL_NS_PER_MS / t;
		n *= 2;
	}
}

int main(int argc, char **argv)
{
	uint64_t fn_ns[NR_FN] = {0}, per_ms, budget, x = 7, a, b, c, d;
	struct wl_acc acc = {0};
	char key[64];
	FILE *f;

	if (argc != 3)
		wl_die("usage: wl_native TRUTH MS");
	budget = wl_arg_u64(argv[2], "MS") * WL_NS_PER_MS;
	per_ms = calibrate();
	while (acc.ns < budget) {
		a = wl_thread_ns();
		FSP_MARK_ENTER("native", "round", 0);
		b = wl_thread_ns();
		for (int fn = 0; fn < NR_FN; fn++) {
			uint64_t t0 = wl_thread_ns();

			/* about 4 ms a round: 1.2, 1, 1, 0.8 ms */
			x = call(fn, per_ms * fn_weight[fn] / 25, x);
			fn_ns[fn] += wl_thread_ns() - t0;
		}
		c = wl_thread_ns();
		FSP_MARK_LEAVE("native", "round", 0);
		d = wl_thread_ns();
		wl_acc_span(&acc, a, b, c, d);
	}
	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_acc(f, "native", &acc);
	for (int fn = 0; fn < NR_FN; fn++) {
		snprintf(key, sizeof(key), "fn.%s.ns", fn_names[fn]);
		wl_out_u64(f, key, fn_ns[fn]);
	}
	wl_out_u64(f, "checksum", x);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
