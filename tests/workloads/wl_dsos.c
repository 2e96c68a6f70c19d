// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_dsos - an executable with ABI v2 marks of its own linked with ten
 * libraries that have theirs (libwl_dso0..9.so): eleven records, more than
 * fsp-bpf reads of a process (8). Their constructors run before the
 * executable's: announced in that order, the executable's came last.
 *
 *   wl_dsos TRUTH MS
 *
 * Runs cycles of feature "own" (2 ms) and of each library's feature in turn
 * (0.2 ms), for MS ms of CPU time.
 *
 * Truth keys: feature.own.{ns,ambig_ns}, cpu_total_ns, cycles.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "fsp.h"
#include "wl_common.h"
#include "wl_dl.h"

#define DSO(n) void wl_dso##n##_run(const struct wl_dl_api *api, uint64_t ns)
DSO(0);
DSO(1);
DSO(2);
DSO(3);
DSO(4);
DSO(5);
DSO(6);
DSO(7);
DSO(8);
DSO(9);
#undef DSO

static void (*const runs[10])(const struct wl_dl_api *, uint64_t) = {
	wl_dso0_run, wl_dso1_run, wl_dso2_run, wl_dso3_run, wl_dso4_run,
	wl_dso5_run, wl_dso6_run, wl_dso7_run, wl_dso8_run, wl_dso9_run,
};

int main(int argc, char **argv)
{
	static const struct wl_dl_api api = {wl_thread_ns, wl_burn, wl_rand_range};
	struct wl_acc own = {0, 0};
	uint64_t ms, start, cycles = 0;
	FILE *f;

	if (argc != 3)
		wl_die("usage: wl_dsos TRUTH MS");
	ms = wl_arg_u64(argv[2], "MS");
	start = wl_thread_ns();
	while (wl_thread_ns() - start < ms * WL_NS_PER_MS) {
		uint64_t a, b, c, d;

		a = wl_thread_ns();
		FSP_MARK_ENTER("own", "wl_dsos", 0);
		b = wl_thread_ns();
		c = wl_burn(2 * WL_NS_PER_MS);
		FSP_MARK_LEAVE("own", "wl_dsos", 0);
		d = wl_thread_ns();
		wl_acc_span(&own, a, b, c, d);
		runs[cycles % 10](&api, WL_NS_PER_MS / 5);
		cycles++;
	}
	f = wl_out_open(argv[1]);
	wl_out_acc(f, "feature.own", &own);
	wl_out_u64(f, "cycles", cycles);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
