// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libwl_ns.so - a library with marks of the build's ABI (v2 by default),
 * loaded by wl_dlmopen twice: with dlopen() and with dlmopen() into a new
 * link-map namespace, so that the process has two copies of it, each with
 * its own record, semaphores and thread-local stack pointer.
 *
 * wl_ns_run() runs cycles of "nsfeature" (instance "libwl_ns", 2-4 ms) and
 * unmarked work (0.5-1 ms) for ms ms of thread CPU time, and reports the
 * time in the feature with half the ambiguous time of its enter and leave.
 */
#include "fsp.h"
#include "wl_dl.h"

#define US 1000ULL

void wl_ns_run(const struct wl_dl_api *api, uint64_t ms, struct wl_dl_result *out);

void wl_ns_run(const struct wl_dl_api *api, uint64_t ms, struct wl_dl_result *out)
{
	uint64_t start = api->thread_ns(), rng = 0x2545f4914f6cdd1dULL;

	*out = (struct wl_dl_result){0};
	while (api->thread_ns() - start < ms * 1000000ULL) {
		uint64_t a, b, c, d, ambig;

		a = api->thread_ns();
		FSP_MARK_ENTER("nsfeature", "libwl_ns", 0);
		b = api->thread_ns();
		c = api->burn(api->rand_range(&rng, 2000 * US, 4000 * US));
		FSP_MARK_LEAVE("nsfeature", "libwl_ns", 0);
		d = api->thread_ns();
		ambig = (b - a) + (d - c);
		out->feature_ns += (c - b) + ambig / 2;
		out->feature_ambig_ns += ambig;
		api->burn(api->rand_range(&rng, 500 * US, 1000 * US));
		out->cycles++;
	}
}
