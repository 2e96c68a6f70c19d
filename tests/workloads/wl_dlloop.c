// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_dlloop - loads and unloads libwl_dl.so (next to its executable) in a
 * loop, for fsp-bpf's tests of libraries that come and go.
 *
 *   wl_dlloop TRUTH CYCLES MS   CYCLES times: dlopen, run the library's
 *                               feature for MS ms, dlclose
 *
 * The library's labels are never read by the library itself (it only passes
 * their addresses), so their page need not be mapped in when its first mark
 * fires, and the library is gone by the end of the session.
 *
 * Truth keys: cpu_total_ns, feature.dlfeature.{ns,ambig_ns}, cycles,
 * cycles_unarmed (cycles of the library before it saw its probes armed), dl_ns
 * (wall-clock time in dlopen and dlclose, all cycles), dl_median_ns (the
 * median of the cycles' dlopen + dlclose: what one costs, apart from the
 * cycles another process on the machine held up), voluntary_switches (times
 * the process gave up the CPU: it never blocks by itself, but a profiler that
 * stops it, e.g. at its link-map changes, makes it).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "fsp.h"
#include "wl_common.h"
#include "wl_dl.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static const struct wl_dl_api api = {wl_thread_ns, wl_burn, wl_rand_range};
	struct wl_acc feat = {0, 0};
	uint64_t cycles, ms, unarmed = 0, dl_ns = 0, *dl;
	char dir[PATH_MAX], lib[PATH_MAX + 32];
	struct rusage ru;
	FILE *f;

	if (argc != 4)
		wl_die("usage: wl_dlloop TRUTH CYCLES MS");
	cycles = wl_arg_u64(argv[2], "CYCLES");
	ms = wl_arg_u64(argv[3], "MS");
	dl = calloc(cycles, sizeof(*dl));
	if (!dl)
		wl_die("out of memory");
	wl_self_dir(dir, sizeof(dir));
	snprintf(lib, sizeof(lib), "%s/libwl_dl.so", dir);
	for (uint64_t i = 0; i < cycles; i++) {
		uint64_t t0, t1, t2, t3;
		struct wl_dl_result r;
		wl_dl_run_fn run;
		void *h;

		t0 = wl_mono_ns();
		h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
		t1 = wl_mono_ns();
		if (!h)
			wl_die("dlopen %s: %s", lib, dlerror());
		run = (wl_dl_run_fn)dlsym(h, WL_DL_RUN);
		if (!run)
			wl_die("dlsym %s: %s", WL_DL_RUN, dlerror());
		run(&api, ms, &r);
		feat.ns += r.feature_ns;
		feat.ambig_ns += r.feature_ambig_ns;
		unarmed += r.cycles_unarmed;
		t2 = wl_mono_ns();
		if (dlclose(h))
			wl_die("dlclose: %s", dlerror());
		t3 = wl_mono_ns();
		dl[i] = (t1 - t0) + (t3 - t2);
		dl_ns += dl[i];
	}
	qsort(dl, cycles, sizeof(*dl), cmp_u64);
	if (getrusage(RUSAGE_SELF, &ru))
		wl_die("getrusage: %m");

	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_acc(f, "feature.dlfeature", &feat);
	wl_out_u64(f, "cycles", cycles);
	wl_out_u64(f, "cycles_unarmed", unarmed);
	wl_out_u64(f, "dl_ns", dl_ns);
	wl_out_u64(f, "dl_median_ns", dl[cycles / 2]);
	wl_out_u64(f, "voluntary_switches", (uint64_t)ru.ru_nvcsw);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
