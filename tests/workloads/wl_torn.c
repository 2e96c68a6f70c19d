// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_torn - marks entered and left back to back, so that a sampler at a high
 * frequency interrupts the thread in the middle of pushes and pops.
 *
 *   wl_torn TRUTH MS [corrupt]   loop for MS ms of CPU time
 *
 * Iteration i, with a = i % 8 and b = (a + 3) % 8, enters "o<a>" (instance
 * "oi<a>", payload a), then one of:
 *   - "n<b>" (instance "ni<b>", payload 100 + b), left in order;
 *   - "n<b>", then "o<a>" left first (out of order), then "n<b>";
 *   - an antimark of "o<a>" entered and left;
 * and leaves "o<a>". So the only stacks that exist at any instant are [o<a>],
 * [o<a>, n<b>], [n<b>] and [o<a>, antimark o<a>], each frame's instance and
 * payload following from its feature. A frame mixing two frames' fields (torn),
 * a frame already left (stale) or any other stack is a profiler's error.
 *
 * With "corrupt" (probe ABI v2 only), inside a mark at the end, the program
 * then overwrites its stack's header and points its TLS pointer at an unmapped
 * address, and spins 300 ms without marking: a profiler reading its stack must
 * count it unreadable, and neither fault nor charge anything from it.
 *
 * Truth keys: iterations, corrupt_ns (CPU time of the spin).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "fsp.h"
#include "wl_common.h"

static const char *const outer[8] = {"o0", "o1", "o2", "o3", "o4", "o5", "o6", "o7"};
static const char *const outer_inst[8] = {"oi0", "oi1", "oi2", "oi3", "oi4", "oi5", "oi6", "oi7"};
static const char *const inner[8] = {"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"};
static const char *const inner_inst[8] = {"ni0", "ni1", "ni2", "ni3", "ni4", "ni5", "ni6", "ni7"};

static __attribute__((noinline)) void iteration(uint64_t i)
{
	unsigned a = i % 8, b = (a + 3) % 8;

	FSP_MARK_ENTER(outer[a], outer_inst[a], a);
	switch (i % 3) {
	case 0:
		FSP_MARK_ENTER(inner[b], inner_inst[b], 100 + b);
		FSP_MARK_LEAVE(inner[b], inner_inst[b], 100 + b);
		FSP_MARK_LEAVE(outer[a], outer_inst[a], a);
		break;
	case 1:
		FSP_MARK_ENTER(inner[b], inner_inst[b], 100 + b);
		FSP_MARK_LEAVE(outer[a], outer_inst[a], a);
		FSP_MARK_LEAVE(inner[b], inner_inst[b], 100 + b);
		break;
	default:
		FSP_ANTIMARK_ENTER(outer[a]);
		FSP_ANTIMARK_LEAVE(outer[a]);
		FSP_MARK_LEAVE(outer[a], outer_inst[a], a);
	}
}

/* Spins 300 ms with the thread's stack unreadable (see above). */
static uint64_t corrupt(void)
{
	uint64_t t0;

#ifdef FSP_ABI_V1
	wl_die("corrupt: probe ABI v2 only");
#else
	FSP_MARK_ENTER(outer[0], outer_inst[0], 0);
	if (!fsp__v2_self)
		wl_die("corrupt: no mark stack (is a profiler attached?)");
	fsp__v2_self->magic = 0;
	fsp__v2_self = (struct fsp_v2_stack *)(uintptr_t)16;
#endif
	t0 = wl_thread_ns();
	wl_burn(300 * WL_NS_PER_MS);
	return wl_thread_ns() - t0;
}

int main(int argc, char **argv)
{
	uint64_t ms, start, i = 0, corrupt_ns = 0;
	FILE *f;

	if (argc != 3 && (argc != 4 || strcmp(argv[3], "corrupt")))
		wl_die("usage: wl_torn TRUTH MS [corrupt]");
	ms = wl_arg_u64(argv[2], "MS");
	start = wl_thread_ns();
	do {
		for (uint64_t k = 0; k < 4096; k++)
			iteration(i++);
	} while (wl_thread_ns() - start < ms * WL_NS_PER_MS);
	if (argc == 4)
		corrupt_ns = corrupt();
	f = wl_out_open(argv[1]);
	wl_out_u64(f, "iterations", i);
	wl_out_u64(f, "corrupt_ns", corrupt_ns);
	return wl_out_close(f, argv[1]) ? 3 : 0;
}
