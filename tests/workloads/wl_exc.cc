// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_exc - a mark left by a C++ exception, for fsp-bpf's frame-bound marks
 * (the C++ twin of wl_jmp).
 *
 *   wl_exc TRUTH MS MODE   run cycles for MS ms of CPU time; MODE is shallow or deep
 *
 * One cycle:
 *
 *   enter "catchy"; try
 *     thrower(): enter "inner"; 1-2 ms of work; throw   (no leave of "inner":
 *                a C-style mark, as in C code a C++ exception unwinds)
 *   catch: back in the cycle, still in "catchy": 2-4 ms of work
 *                                                      ("after the catch")
 *   leave "catchy"
 *   2-4 ms unmarked
 *
 * The mark "inner" belongs to thrower()'s frame, which the exception unwound:
 * from then on it must not be charged. The modes differ as in wl_jmp:
 *
 *   shallow  thrower() has a 4 KiB frame and the work after the catch is an
 *            ordinary call: the stack pointer stays above the dead mark's.
 *   deep     thrower() has a small frame and the work after the catch runs in
 *            a function with an 8 KiB frame: the stack pointer goes below the
 *            dead mark's, so only fsp-bpf's hook on __cxa_begin_catch can tell
 *            that the mark is dead.
 *
 * Truth keys: cpu_total_ns, feature.{inner,catchy}.{ns,ambig_ns}, after_catch.ns
 * (what a profiler that kept charging "inner" would add), cycles, caught.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "fsp.h"
extern "C" {
#include "wl_common.h"
}

#define US 1000ULL

struct cycle_error : std::exception {
	const char *what() const noexcept override
	{
		return "cycle";
	}
};

static struct wl_acc inner, catchy, after;
static uint64_t rng = 0x0123456789abcdefULL;

static __attribute__((noinline)) void thrower_deep()
{
	uint64_t a, b, c;

	a = wl_thread_ns();
	FSP_MARK_ENTER("inner", "thrower", 0);
	b = wl_thread_ns();
	c = wl_burn(wl_rand_range(&rng, 1000 * US, 2000 * US));
	/* No leave: the mark dies with this frame, at the throw. */
	wl_acc_span(&inner, a, b, c, c);
	throw cycle_error();
}

static __attribute__((noinline)) void thrower_shallow()
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
	throw cycle_error();
}

static bool cycle(bool deep)
{
	uint64_t a, b, c, d, t0, t1;
	bool caught = false;

	a = wl_thread_ns();
	FSP_MARK_ENTER("catchy", "try-site", 0);
	b = wl_thread_ns();
	try {
		if (deep)
			thrower_deep();
		else
			thrower_shallow();
	} catch (const cycle_error &) {
		caught = true;
	}
	t0 = wl_thread_ns();
	if (deep)
		t1 = wl_burn_deep(wl_rand_range(&rng, 2000 * US, 4000 * US));
	else
		t1 = wl_burn(wl_rand_range(&rng, 2000 * US, 4000 * US));
	after.ns += t1 - t0;
	c = wl_thread_ns();
	FSP_MARK_LEAVE("catchy", "try-site", 0);
	d = wl_thread_ns();
	wl_acc_span(&catchy, a, b, c, d);
	wl_burn(wl_rand_range(&rng, 2000 * US, 4000 * US));
	return caught;
}

int main(int argc, char **argv)
{
	uint64_t ms, start, cycles = 0, caught = 0, total;
	bool deep;
	FILE *f;

	if (argc != 4 || (strcmp(argv[3], "shallow") && strcmp(argv[3], "deep")))
		wl_die("usage: wl_exc TRUTH MS shallow|deep");
	ms = wl_arg_u64(argv[2], "MS");
	deep = !strcmp(argv[3], "deep");
	start = wl_thread_ns();
	while (wl_thread_ns() - start < ms * WL_NS_PER_MS) {
		caught += cycle(deep);
		cycles++;
	}
	total = wl_process_ns();

	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", total);
	wl_out_u64(f, "cycles", cycles);
	wl_out_u64(f, "caught", caught);
	wl_out_acc(f, "feature.inner", &inner);
	wl_out_acc(f, "feature.catchy", &catchy);
	wl_out_u64(f, "after_catch.ns", after.ns);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
