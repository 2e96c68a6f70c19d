// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libwl_dl.so - a library with its own fsp probes, loaded by wl_dlopen with
 * dlopen(): the program itself has no mark of the feature "dlfeature".
 *
 * wl_dl_run() runs cycles of "dlfeature" (2-4 ms, instance "libwl_dl") and
 * unmarked work (1-3 ms). At the start of every cycle it looks at its own USDT
 * semaphore (FSP_ENABLED(): the copy in this library): until a profiler has
 * armed this library's probes, its marks are skipped, and the thread CPU time
 * until it first sees the semaphore raised is reported as latency_ns. A mark
 * is entered when its enter probe is armed, and left (then) when its leave
 * is: the marks fired are counted (enters_fired, leaves_fired).
 */
/* It looks at and fires the ABI v1 probes itself (what it measures is how
 * they are armed): an ABI v1 build, also among the ABI v2 workloads. */
#ifndef FSP_ABI_V1
#define FSP_ABI_V1
#endif
#include "fsp.h"
#include "wl_dl.h"

#define US 1000ULL

void wl_dl_run(const struct wl_dl_api *api, uint64_t ms, struct wl_dl_result *out);

void wl_dl_run(const struct wl_dl_api *api, uint64_t ms, struct wl_dl_result *out)
{
	uint64_t start = api->thread_ns(), rng = 0x5851f42d4c957f2dULL;
	int armed = 0;

	*out = (struct wl_dl_result){0};
	while (api->thread_ns() - start < ms * 1000000ULL) {
		uint64_t a, b, c, d, ambig;
		int entered;

		if (!armed && FSP_ENABLED()) {
			armed = 1;
			out->latency_ns = api->thread_ns() - start;
		}
		if (!armed)
			out->cycles_unarmed++;
		a = api->thread_ns();
		entered = FSP__ON(mark_enter);
		if (entered) {
			FSP__FIRE3(mark_enter, "dlfeature", "libwl_dl", 7);
			out->enters_fired++;
		}
		b = api->thread_ns();
		c = api->burn(api->rand_range(&rng, 2000 * US, 4000 * US));
		if (entered && FSP__ON(mark_leave)) {
			FSP__FIRE3(mark_leave, "dlfeature", "libwl_dl", 7);
			out->leaves_fired++;
		}
		d = api->thread_ns();
		ambig = (b - a) + (d - c);
		out->feature_ns += (c - b) + ambig / 2;
		out->feature_ambig_ns += ambig;
		api->burn(api->rand_range(&rng, 1000 * US, 3000 * US));
		out->cycles++;
	}
	if (!armed)
		out->latency_ns = api->thread_ns() - start;
}
