// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_torn - marks entered and left back to back, so that a sampler at a high
 * frequency interrupts the thread in the middle of pushes and pops.
 *
 *   wl_torn TRUTH MS    loop for MS ms of CPU time
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
 * Truth keys: iterations.
 */
#define _GNU_SOURCE
#include <stdio.h>

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

int main(int argc, char **argv)
{
	uint64_t ms, start, i = 0;
	FILE *f;

	if (argc != 3)
		wl_die("usage: wl_torn TRUTH MS");
	ms = wl_arg_u64(argv[2], "MS");
	start = wl_thread_ns();
	do {
		for (uint64_t k = 0; k < 4096; k++)
			iteration(i++);
	} while (wl_thread_ns() - start < ms * WL_NS_PER_MS);
	f = wl_out_open(argv[1]);
	wl_out_u64(f, "iterations", i);
	return wl_out_close(f, argv[1]) ? 3 : 0;
}
