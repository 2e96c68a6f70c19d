// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_mixed - one process with marks of both probe ABIs and a mapped provider,
 * nested: the program's feature "outer" (the ABI it is built with), around a
 * call into libwl_mixv1.so (loaded with dlopen; ABI v1, which times its own
 * mark) whose feature "middle" is around a callback into the program, whose
 * own USDT probes
 * wlmix:begin/wlmix:end delimit work that a probe map names (the test's map:
 * feature "inner").
 *
 *   wl_mixed TRUTH MS
 *
 * One cycle: "outer" 1 ms alone, "middle" 1 ms inside it, "inner" 1 ms inside
 * both, then 1 ms unmarked.
 *
 * Truth keys: cpu_total_ns, cycles, feature.{outer,middle,inner}.{ns,ambig_ns}.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>

#include "fsp.h"
#include "wl_common.h"
#include "wl_dl.h"

#define US 1000ULL

/* The semaphores of the program's own provider (fsp.h turns them on). */
unsigned short wlmix_begin_semaphore __attribute__((section(".probes"), used));
unsigned short wlmix_end_semaphore __attribute__((section(".probes"), used));

typedef void (*wl_mixv1_run_fn)(const struct wl_dl_api *api, uint64_t ns, void (*cb)(void),
				uint64_t acc[2]);

static struct wl_acc outer, middle, inner;

static void callback(void)
{
	uint64_t a, b, c, d;

	a = wl_thread_ns();
	STAP_PROBE(wlmix, begin);
	b = wl_thread_ns();
	c = wl_burn(1000 * US);
	STAP_PROBE(wlmix, end);
	d = wl_thread_ns();
	wl_acc_span(&inner, a, b, c, d);
}

int main(int argc, char **argv)
{
	static const struct wl_dl_api api = {wl_thread_ns, wl_burn, wl_rand_range};
	uint64_t ms, start, cycles = 0;
	char dir[PATH_MAX], lib[PATH_MAX + 32];
	wl_mixv1_run_fn run;
	void *h;
	FILE *f;

	if (argc != 3)
		wl_die("usage: wl_mixed TRUTH MS");
	ms = wl_arg_u64(argv[2], "MS");
	wl_self_dir(dir, sizeof(dir));
	snprintf(lib, sizeof(lib), "%s/libwl_mixv1.so", dir);
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		wl_die("dlopen %s: %s", lib, dlerror());
	run = (wl_mixv1_run_fn)(uintptr_t)dlsym(h, "wl_mixv1_run");
	if (!run)
		wl_die("dlsym wl_mixv1_run: %s", dlerror());
	start = wl_thread_ns();
	while (wl_thread_ns() - start < ms * WL_NS_PER_MS) {
		uint64_t a, b, c, d, acc[2] = {0, 0};

		a = wl_thread_ns();
		FSP_MARK_ENTER("outer", "wl_mixed", 0);
		b = wl_thread_ns();
		wl_burn(1000 * US);
		run(&api, 1000 * US, callback, acc);
		c = wl_thread_ns();
		FSP_MARK_LEAVE("outer", "wl_mixed", 0);
		d = wl_thread_ns();
		wl_acc_span(&outer, a, b, c, d);
		middle.ns += acc[0];
		middle.ambig_ns += acc[1];
		wl_burn(1000 * US);
		cycles++;
	}
	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_u64(f, "cycles", cycles);
	wl_out_acc(f, "feature.outer", &outer);
	wl_out_acc(f, "feature.middle", &middle);
	wl_out_acc(f, "feature.inner", &inner);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
