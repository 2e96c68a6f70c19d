// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_abimix - one executable whose translation units use different probe
 * ABIs: this file the one it is built with (ABI v2 by default), and
 * part_abimix_v1.c always ABI v1 (-DFSP_ABI_V1), linked in after this file
 * (wl_abimix) or before it (wl_abimix_r: the linker keeps the first
 * definition of a symbol the two ABIs' headers both define, so the order
 * matters).
 *
 *   wl_abimix TRUTH MS
 *
 * One cycle: "outer" (this file's ABI) 1 ms alone, then "inner" (ABI v1,
 * the other unit) 1 ms inside it; 1 ms unmarked; "inner" 1 ms alone.
 *
 * Truth keys: cpu_total_ns, cycles, feature.{outer,inner}.{ns,ambig_ns}.
 */
#include <stdio.h>

#include "fsp.h"
#include "wl_common.h"

#define US 1000ULL

/* part_abimix_v1.c: "inner" around ns of work, its time added to acc. */
void abimix_inner(uint64_t ns, struct wl_acc *acc);

int main(int argc, char **argv)
{
	struct wl_acc outer = {0, 0}, inner = {0, 0};
	uint64_t ms, start, cycles = 0;
	FILE *f;

	if (argc != 3)
		wl_die("usage: wl_abimix TRUTH MS");
	ms = wl_arg_u64(argv[2], "MS");
	start = wl_thread_ns();
	while (wl_thread_ns() - start < ms * WL_NS_PER_MS) {
		uint64_t a, b, c, d;

		a = wl_thread_ns();
		FSP_MARK_ENTER("outer", "wl_abimix", 0);
		b = wl_thread_ns();
		wl_burn(1000 * US);
		abimix_inner(1000 * US, &inner);
		c = wl_thread_ns();
		FSP_MARK_LEAVE("outer", "wl_abimix", 0);
		d = wl_thread_ns();
		wl_acc_span(&outer, a, b, c, d);
		wl_burn(1000 * US);
		abimix_inner(1000 * US, &inner);
		cycles++;
	}
	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_u64(f, "cycles", cycles);
	wl_out_acc(f, "feature.outer", &outer);
	wl_out_acc(f, "feature.inner", &inner);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
