// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_jmp - a mark left by longjmp, for fsp-bpf's frame-bound marks.
 *
 *   wl_jmp TRUTH MS MODE   run cycles for MS ms of CPU time; MODE is shallow or deep
 *
 * One cycle:
 *
 *   enter "jumpy"; setjmp
 *     thrower(): enter "inner"; 1-2 ms of work; longjmp   (no leave of "inner")
 *   back in the cycle, still in "jumpy": 2-4 ms of work        ("after the longjmp")
 *   leave "jumpy"
 *   2-4 ms unmarked
 *
 * The mark "inner" belongs to thrower()'s frame, which the longjmp unwound:
 * from then on it must not be charged. What differs between the modes is where
 * the work after the longjmp runs relative to the dead frame:
 *
 *   shallow  thrower() has a 4 KiB frame and the work after the longjmp is an
 *            ordinary call: the stack pointer stays above the dead mark's.
 *   deep     thrower() has a small frame and the work after the longjmp runs in
 *            a function with an 8 KiB frame: the stack pointer goes below the
 *            dead mark's, as any deeper call chain after a longjmp would.
 *
 * Truth keys: cpu_total_ns, feature.{inner,jumpy}.{ns,ambig_ns}, after_longjmp.ns
 * (what a profiler that kept charging "inner" would add), cycles.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsp.h"
#include "wl_common.h"

#define US 1000ULL

static jmp_buf jb;
static struct wl_acc inner, jumpy, after;
static uint64_t rng = 0x0123456789abcdefULL;

static __attribute__((noinline, noreturn)) void thrower_deep(void)
{
	uint64_t a, b, c;

	a = wl_thread_ns();
	FSP_MARK_ENTER("inner", "thrower", 0);
	b = wl_thread_ns();
	c = wl_burn(wl_rand_range(&rng, 1000 * US, 2000 * US));
	/* No leave: the mark dies with this frame, at the longjmp. */
	wl_acc_span(&inner, a, b, c, c);
	longjmp(jb, 1);
}

static __attribute__((noinline, noreturn)) void thrower_shallow(void)
{
	volatile char pad[4096];
	uint64_t a, b, c;

	pad[0] = 1;
	pad[sizeof(pad) - 1] = 1;
	a = wl_thread_ns();
	FSP_MARK_ENTER("inner", "thrower", 0);
	b = wl_thread_ns();
	c = wl_burn(wl_rand_range(&rng, 1000 * US, 2000 * US));
	wl_acc_span(&inner, a, b, c, c);
	if (pad[0] != 1 || pad[sizeof(pad) - 1] != 1)
		abort();
	longjmp(jb, 1);
}

static void cycle(bool deep)
{
	uint64_t a, b, c, d, t0, t1;

	a = wl_thread_ns();
	FSP_MARK_ENTER("jumpy", "setjmp-site", 0);
	b = wl_thread_ns();
	if (!setjmp(jb)) {
		if (deep)
			thrower_deep();
		else
			thrower_shallow();
	}
	t0 = wl_thread_ns();
	if (deep)
		t1 = wl_burn_deep(wl_rand_range(&rng, 2000 * US, 4000 * US));
	else
		t1 = wl_burn(wl_rand_range(&rng, 2000 * US, 4000 * US));
	after.ns += t1 - t0;
	c = wl_thread_ns();
	FSP_MARK_LEAVE("jumpy", "setjmp-site", 0);
	d = wl_thread_ns();
	wl_acc_span(&jumpy, a, b, c, d);
	wl_burn(wl_rand_range(&rng, 2000 * US, 4000 * US));
}

int main(int argc, char **argv)
{
	uint64_t ms, start, cycles = 0, total;
	bool deep;
	FILE *f;

	if (argc != 4 || (strcmp(argv[3], "shallow") && strcmp(argv[3], "deep")))
		wl_die("usage: wl_jmp TRUTH MS shallow|deep");
	ms = wl_arg_u64(argv[2], "MS");
	deep = !strcmp(argv[3], "deep");
	start = wl_thread_ns();
	while (wl_thread_ns() - start < ms * WL_NS_PER_MS) {
		cycle(deep);
		cycles++;
	}
	total = wl_process_ns();

	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", total);
	wl_out_u64(f, "cycles", cycles);
	wl_out_acc(f, "feature.inner", &inner);
	wl_out_acc(f, "feature.jumpy", &jumpy);
	wl_out_u64(f, "after_longjmp.ns", after.ns);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
