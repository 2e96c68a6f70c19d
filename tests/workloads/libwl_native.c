// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libwl_native - the shared library of wl_native: a function whose samples
 * must be found in this file (tests/integration/test_native.c).
 */
#include <stdint.h>

/* Spins n rounds of an LCG in this function's own code (no calls). */
__attribute__((noinline, visibility("default"))) uint64_t wl_native_lib_spin(uint64_t n, uint64_t x)
{
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}
