// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_dlstart - a program without marks that dlopen()s a library of its own
 * (libwl_native.so, next to its executable) first thing in main and then
 * spends its time in that library's function: a launched command whose
 * library is mapped while fsp-bpf unwinds its first samples (native stacks,
 * test_native's dlopen_start).
 *
 *   wl_dlstart TRUTH MS     MS ms of thread CPU time in rounds of
 *                           wl_native_lib_spin, called from main
 *
 * Truth keys: cpu_total_ns (process CPU at the end), lib.{ns,ambig_ns} (thread
 * CPU time inside the library's calls; the clock reads around them are the
 * ambiguous part), rounds.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>

#include "wl_common.h"

typedef uint64_t (*spin_fn)(uint64_t n, uint64_t x);

int main(int argc, char **argv)
{
	char dir[PATH_MAX], path[PATH_MAX + 32];
	uint64_t ms, start, rounds = 0, x = 1;
	struct wl_acc lib = {0, 0};
	spin_fn spin;
	void *h;
	FILE *f;

	if (argc != 3)
		wl_die("usage: wl_dlstart TRUTH MS");
	ms = wl_arg_u64(argv[2], "MS");
	wl_self_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/libwl_native.so", dir);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		wl_die("dlopen %s: %s", path, dlerror());
	spin = (spin_fn)dlsym(h, "wl_native_lib_spin");
	if (!spin)
		wl_die("dlsym wl_native_lib_spin: %s", dlerror());
	start = wl_thread_ns();
	while (wl_thread_ns() - start < ms * WL_NS_PER_MS) {
		uint64_t a = wl_thread_ns(), b = wl_thread_ns(), c, d;

		x = spin(200000, x);
		c = wl_thread_ns();
		d = wl_thread_ns();
		wl_acc_span(&lib, a, b, c, d);
		rounds++;
	}

	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_acc(f, "lib", &lib);
	wl_out_u64(f, "rounds", rounds);
	wl_out_u64(f, "spin_result", x);
	return wl_out_close(f, argv[1]) ? 3 : 0;
}
