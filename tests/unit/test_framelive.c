// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the frame liveness rule (bpf/framelive.h), the pure function
 * the BPF probes and sampler use: same stack, the alternate signal stack on
 * either side of the thread's stack, and stacks far apart. */
#include <linux/types.h>
#include <stdbool.h>

#include "framelive.h"
#include "unit_helpers.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)
#define WINDOW (8 * MiB)

/* A thread stack [0x7f0000000000, +8 MiB) and a 256 KiB alternate stack
 * right above it, as when the alternate stack is mapped before the thread. */
#define STK_TOP 0x7f0000800000ULL
#define ALT_SP STK_TOP
#define ALT_SIZE (256 * KiB)

static const struct fsp_stack_bounds alt_above = {ALT_SP, ALT_SIZE, WINDOW};
static const struct fsp_stack_bounds none = {0, 0, WINDOW};

static void test_same_stack(void **state)
{
	(void)state;
	/* Called deeper: the frame is above the stack pointer, live. */
	assert_false(fsp_frame_dead(STK_TOP - 4 * KiB, STK_TOP - 64 * KiB, &none));
	/* Equal: the probe of the same frame. */
	assert_false(fsp_frame_dead(STK_TOP - 4 * KiB, STK_TOP - 4 * KiB, &none));
	/* Returned: the stack pointer went above the frame. */
	assert_true(fsp_frame_dead(STK_TOP - 64 * KiB, STK_TOP - 4 * KiB, &none));
	/* Farther apart than the window: another stack, left alone. */
	assert_false(fsp_frame_dead(STK_TOP - 16 * MiB, STK_TOP - 4 * KiB, &none));
	assert_true(fsp_frame_dead(STK_TOP - WINDOW + 1, STK_TOP, &none));
	assert_false(fsp_frame_dead(STK_TOP - WINDOW, STK_TOP, &none));
}

static void test_on_alt_stack(void **state)
{
	(void)state;
	/* The kernel's on_sig_stack(): (sp, sp + size]. */
	assert_false(fsp_on_alt_stack(ALT_SP, &alt_above));
	assert_true(fsp_on_alt_stack(ALT_SP + 1, &alt_above));
	assert_true(fsp_on_alt_stack(ALT_SP + ALT_SIZE, &alt_above));
	assert_false(fsp_on_alt_stack(ALT_SP + ALT_SIZE + 1, &alt_above));
	/* No alternate stack: nothing is on it, not even address 0 + 1. */
	assert_false(fsp_on_alt_stack(1, &none));
}

static void test_handler_above(void **state)
{
	uint64_t interrupted = STK_TOP - 8 * KiB, handler = ALT_SP + ALT_SIZE - 2 * KiB;

	(void)state;
	/* The handler runs above the interrupted frame, a few KiB away: the
	 * plain rule took it for returned. */
	assert_true(fsp_frame_dead(interrupted, handler, &none));
	assert_false(fsp_frame_dead(interrupted, handler, &alt_above));
	/* The handler's own frames are compared among themselves. */
	assert_false(fsp_frame_dead(handler, handler - 512, &alt_above));
	assert_true(fsp_frame_dead(handler - 512, handler, &alt_above));
	/* Back on the thread's stack: the handler's frames are gone, the
	 * interrupted ones live. */
	assert_true(fsp_frame_dead(handler, interrupted, &alt_above));
	assert_false(fsp_frame_dead(interrupted, interrupted, &alt_above));
}

static void test_handler_below(void **state)
{
	/* An alternate stack far below the thread's stack (main thread). */
	const struct fsp_stack_bounds b = {0x7e0000000000ULL, ALT_SIZE, WINDOW};
	uint64_t interrupted = STK_TOP - 8 * KiB, handler = b.alt_sp + ALT_SIZE - 2 * KiB;

	(void)state;
	assert_false(fsp_frame_dead(interrupted, handler, &b));
	assert_true(fsp_frame_dead(handler, interrupted, &b));
	assert_true(fsp_frame_dead(handler - 512, handler, &b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_stack),
		cmocka_unit_test(test_on_alt_stack),
		cmocka_unit_test(test_handler_above),
		cmocka_unit_test(test_handler_below),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
