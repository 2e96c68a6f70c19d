// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_plugin - a program without probes of its own that loads a plug-in
 * carrying them (libwl_dl.so: fsp marks; libwl_prov.so: the wlprov
 * provider) with dlopen() and runs it: fsp-bpf's tests of probes that come
 * after the start (-p --wait-probes, map errors in a late library).
 *
 *   wl_plugin TRUTH MS LIB now            300 ms of unmarked work, then dlopen
 *                                         LIB and run it for MS ms
 *   wl_plugin TRUTH MS LIB wait READY     write READY, wait for SIGUSR2 without
 *                                         using CPU; then dlopen and run
 *   wl_plugin TRUTH MS LIB loaded READY   dlopen first, then as wait
 *
 * LIB is a file name next to the executable. The program includes no fsp.h:
 * its executable carries no fsp probes.
 *
 * Truth keys (written at the end): cpu_total_ns (process CPU), cpu_before_ns
 * (process CPU when it stopped waiting), feature.dlfeature.{ns,ambig_ns}
 * (the plug-in's marked work, whatever its probes), cycles, and of
 * libwl_dl.so latency_ns and cycles_unarmed (wl_dl.h; 0 for libwl_prov.so).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "wl_common.h"
#include "wl_dl.h"

static void *load(const char *name)
{
	char dir[PATH_MAX], lib[PATH_MAX + 256];
	void *h;

	wl_self_dir(dir, sizeof(dir));
	snprintf(lib, sizeof(lib), "%s/%s", dir, name);
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		wl_die("dlopen %s: %s", lib, dlerror());
	return h;
}

static void wait_usr2(const char *ready)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	wl_write_ready(ready);
	if (sigwait(&set, &sig))
		wl_die("sigwait failed");
}

int main(int argc, char **argv)
{
	static const struct wl_dl_api api = {wl_thread_ns, wl_burn, wl_rand_range};
	struct wl_dl_result r;
	uint64_t ms, before = 0;
	wl_dl_run_fn run;
	void *h = NULL;
	FILE *f;

	if (argc < 5 || (strcmp(argv[4], "now") && argc != 6))
		wl_die("usage: wl_plugin TRUTH MS LIB now|wait READY|loaded READY");
	ms = wl_arg_u64(argv[2], "MS");
	if (!strcmp(argv[4], "now")) {
		wl_burn(300 * WL_NS_PER_MS);
	} else if (!strcmp(argv[4], "wait") || !strcmp(argv[4], "loaded")) {
		if (!strcmp(argv[4], "loaded"))
			h = load(argv[3]);
		wait_usr2(argv[5]);
		before = wl_process_ns();
	} else {
		wl_die("unknown mode %s", argv[4]);
	}
	if (!h)
		h = load(argv[3]);
	run = (wl_dl_run_fn)dlsym(h, WL_DL_RUN);
	if (!run)
		wl_die("dlsym %s: %s", WL_DL_RUN, dlerror());
	run(&api, ms, &r);

	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_u64(f, "cpu_before_ns", before);
	wl_out_u64(f, "feature.dlfeature.ns", r.feature_ns);
	wl_out_u64(f, "feature.dlfeature.ambig_ns", r.feature_ambig_ns);
	wl_out_u64(f, "cycles", r.cycles);
	wl_out_u64(f, "latency_ns", r.latency_ns);
	wl_out_u64(f, "cycles_unarmed", r.cycles_unarmed);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
