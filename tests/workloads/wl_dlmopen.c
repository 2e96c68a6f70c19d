// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_dlmopen - loads libwl_ns.so (next to its executable) twice, with
 * dlopen() and with dlmopen(LM_ID_NEWLM), and runs the feature of each copy
 * in turn: two copies of one file in one process, each with its own record
 * (probe ABI v2) or its own semaphores (ABI v1).
 *
 *   wl_dlmopen TRUTH MS now          load both copies now, then run
 *   wl_dlmopen TRUTH MS wait READY   load both, write READY and wait, without
 *                                    using CPU, for SIGUSR2; then run (-p)
 *
 * Runs ROUNDS rounds of MS/ROUNDS ms in each copy's "nsfeature" and as much
 * unmarked work: each copy's feature is a third of the time.
 *
 * Truth keys: cpu_total_ns, cpu_before_ns (process CPU when it started
 * running the copies), feature.nsfeature.{ns,ambig_ns} (both copies),
 * copy.{0,1}.ns.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "fsp.h"
#include "wl_common.h"
#include "wl_dl.h"

#define ROUNDS 20

int main(int argc, char **argv)
{
	static const struct wl_dl_api api = {wl_thread_ns, wl_burn, wl_rand_range};
	struct wl_dl_result r;
	uint64_t ms, before, ns[2] = {0, 0}, ambig = 0;
	char dir[PATH_MAX], lib[PATH_MAX + 32];
	void (*run[2])(const struct wl_dl_api *, uint64_t, struct wl_dl_result *);
	void *h[2];
	FILE *f;

	if (argc < 4 || (strcmp(argv[3], "now") && strcmp(argv[3], "wait")) ||
	    (!strcmp(argv[3], "wait") && argc != 5))
		wl_die("usage: wl_dlmopen TRUTH MS now | wl_dlmopen TRUTH MS wait READY");
	ms = wl_arg_u64(argv[2], "MS");
	wl_self_dir(dir, sizeof(dir));
	snprintf(lib, sizeof(lib), "%s/libwl_ns.so", dir);
	h[0] = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h[0])
		wl_die("dlopen %s: %s", lib, dlerror());
	h[1] = dlmopen(LM_ID_NEWLM, lib, RTLD_NOW | RTLD_LOCAL);
	if (!h[1])
		wl_die("dlmopen %s: %s", lib, dlerror());
	for (int i = 0; i < 2; i++) {
		*(void **)&run[i] = dlsym(h[i], "wl_ns_run");
		if (!run[i])
			wl_die("dlsym wl_ns_run: %s", dlerror());
	}
	if (run[0] == run[1])
		wl_die("dlmopen gave the same copy");
	if (!strcmp(argv[3], "wait"))
		wl_ready_wait_usr2(argv[4]);
	before = wl_process_ns();
	for (int round = 0; round < ROUNDS; round++) {
		for (int i = 0; i < 2; i++) {
			run[i](&api, ms / ROUNDS, &r);
			ns[i] += r.feature_ns;
			ambig += r.feature_ambig_ns;
		}
		wl_burn(ms / ROUNDS * WL_NS_PER_MS);
	}
	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_u64(f, "cpu_before_ns", before);
	wl_out_u64(f, "feature.nsfeature.ns", ns[0] + ns[1]);
	wl_out_u64(f, "feature.nsfeature.ambig_ns", ambig);
	wl_out_u64(f, "copy.0.ns", ns[0]);
	wl_out_u64(f, "copy.1.ns", ns[1]);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
