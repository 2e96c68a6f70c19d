// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_dlopen - loads libwl_dl.so (next to its executable) with dlopen() and runs
 * the library's feature, for fsp-bpf's tests of libraries loaded after attach.
 *
 *   wl_dlopen TRUTH MS now          300 ms of unmarked work, then dlopen and run
 *                                   the library for MS ms (launch mode)
 *   wl_dlopen TRUTH MS wait READY   write READY and wait, without using CPU, for
 *                                   SIGUSR2; then dlopen and run (attach mode)
 *
 * The program's only marks are "host" (instance "dlopen") around the dlopen()
 * call, so that fsp-bpf -p accepts it before the library is loaded.
 *
 * Truth keys: cpu_total_ns (process CPU at the end), cpu_before_ns (process CPU
 * when it stopped waiting: nothing of it is in an attached session), feature.
 * dlfeature.{ns,ambig_ns}, feature.host.{ns,ambig_ns}, latency_ns,
 * cycles_unarmed, cycles (see wl_dl.h).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsp.h"
#include "wl_common.h"
#include "wl_dl.h"

int main(int argc, char **argv)
{
	static const struct wl_dl_api api = {wl_thread_ns, wl_burn, wl_rand_range};
	struct wl_acc host = {0, 0};
	struct wl_dl_result r;
	char dir[PATH_MAX], lib[PATH_MAX + 32];
	uint64_t ms, before = 0, a, b, c, d;
	wl_dl_run_fn run;
	void *h;
	FILE *f;

	if (argc < 4 || (strcmp(argv[3], "now") && strcmp(argv[3], "wait")) ||
	    (!strcmp(argv[3], "wait") && argc != 5))
		wl_die("usage: wl_dlopen TRUTH MS now | wl_dlopen TRUTH MS wait READY");
	ms = wl_arg_u64(argv[2], "MS");
	if (!strcmp(argv[3], "wait")) {
		wl_ready_wait_usr2(argv[4]);
		before = wl_process_ns();
	} else {
		wl_burn(300 * WL_NS_PER_MS);
	}

	wl_self_dir(dir, sizeof(dir));
	snprintf(lib, sizeof(lib), "%s/libwl_dl.so", dir);
	a = wl_thread_ns();
	FSP_MARK_ENTER("host", "dlopen", 0);
	b = wl_thread_ns();
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		wl_die("dlopen %s: %s", lib, dlerror());
	c = wl_thread_ns();
	FSP_MARK_LEAVE("host", "dlopen", 0);
	d = wl_thread_ns();
	wl_acc_span(&host, a, b, c, d);
	run = (wl_dl_run_fn)dlsym(h, WL_DL_RUN);
	if (!run)
		wl_die("dlsym %s: %s", WL_DL_RUN, dlerror());
	run(&api, ms, &r);

	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_u64(f, "cpu_before_ns", before);
	wl_out_u64(f, "feature.dlfeature.ns", r.feature_ns);
	wl_out_u64(f, "feature.dlfeature.ambig_ns", r.feature_ambig_ns);
	wl_out_acc(f, "feature.host", &host);
	wl_out_u64(f, "latency_ns", r.latency_ns);
	wl_out_u64(f, "cycles", r.cycles);
	wl_out_u64(f, "cycles_unarmed", r.cycles_unarmed);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
