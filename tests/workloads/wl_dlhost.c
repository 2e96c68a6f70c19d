// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_dlhost - a program without fsp probes of its own that loads a library
 * with probes (libwl_dl.so, next to it) with dlopen() after a while, as a
 * plug-in host or an interpreter loading an extension does: for system-wide
 * mode, which must profile it from the dlopen on although the /proc scans
 * saw nothing to profile in it before.
 *
 *   wl_dlhost TRUTH DELAY_MS MS
 *
 * Works unmarked for DELAY_MS ms of CPU time, then dlopens the library and
 * runs its feature "dlfeature" (instance "libwl_dl") for MS ms.
 *
 * Truth keys: cycles, cycles_unarmed, enters_fired, leaves_fired, latency_ns
 * (thread CPU time from the library's start until it saw its probes armed;
 * wl_dl.h), feature.dlfeature.{ns,ambig_ns}, cpu_total_ns.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>

#include "wl_common.h"
#include "wl_dl.h"

int main(int argc, char **argv)
{
	static const struct wl_dl_api api = {wl_thread_ns, wl_burn, wl_rand_range};
	char dir[PATH_MAX], lib[PATH_MAX + 32];
	struct wl_dl_result r;
	uint64_t delay_ms, ms;
	wl_dl_run_fn run;
	void *h;
	FILE *f;

	if (argc != 4)
		wl_die("usage: wl_dlhost TRUTH DELAY_MS MS");
	delay_ms = wl_arg_u64(argv[2], "DELAY_MS");
	ms = wl_arg_u64(argv[3], "MS");
	f = wl_out_open(argv[1]);
	wl_burn(delay_ms * WL_NS_PER_MS);
	wl_self_dir(dir, sizeof(dir));
	snprintf(lib, sizeof(lib), "%s/libwl_dl.so", dir);
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		wl_die("dlopen %s: %s", lib, dlerror());
	run = (wl_dl_run_fn)dlsym(h, WL_DL_RUN);
	if (!run)
		wl_die("dlsym %s: %s", WL_DL_RUN, dlerror());
	run(&api, ms, &r);
	wl_out_u64(f, "cycles", r.cycles);
	wl_out_u64(f, "cycles_unarmed", r.cycles_unarmed);
	wl_out_u64(f, "enters_fired", r.enters_fired);
	wl_out_u64(f, "leaves_fired", r.leaves_fired);
	wl_out_u64(f, "latency_ns", r.latency_ns);
	wl_out_u64(f, "feature.dlfeature.ns", r.feature_ns);
	wl_out_u64(f, "feature.dlfeature.ambig_ns", r.feature_ambig_ns);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
