// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libwl_prov.so - a plug-in with USDT probes of its own provider, "wlprov",
 * and no fsp probes: what a probe map (--map) profiles. Loaded by wl_plugin
 * with dlopen(), through the same entry point as libwl_dl.so (wl_dl.h).
 *
 *   wlprov:work__start(const char *name)   entering a unit of work ("unit")
 *   wlprov:work__done()                    leaving it: no arguments
 *
 * A map whose feature says "match instance" cannot compute the leave's
 * instance (it has no argument 0): the map error fsp-bpf must find when the
 * plug-in is loaded, whatever the mode.
 *
 * The probes have semaphores (the probes fire whatever their value): a
 * program that must not start its work before a profiler armed them asks
 * wl_prov_armed() (WL_PROV_ARMED in wl_dl.h).
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include "wl_dl.h"

__extension__ unsigned short wlprov_work__start_semaphore __attribute__((unused))
__attribute__((section(".probes")));
__extension__ unsigned short wlprov_work__done_semaphore __attribute__((unused))
__attribute__((section(".probes")));

unsigned short wl_prov_armed(void);

unsigned short wl_prov_armed(void)
{
	return *(volatile unsigned short *)&wlprov_work__start_semaphore;
}

#define US 1000ULL

void wl_dl_run(const struct wl_dl_api *api, uint64_t ms, struct wl_dl_result *out);

void wl_dl_run(const struct wl_dl_api *api, uint64_t ms, struct wl_dl_result *out)
{
	uint64_t start = api->thread_ns(), rng = 0x2545f4914f6cdd1dULL;
	/* On the stack: a string in a page of .rodata the program never reads
	 * itself may not be mapped in yet when the probe copies it (the
	 * program's own strings, which it uses, are). */
	char name[] = "unit";

	*out = (struct wl_dl_result){0};
	while (api->thread_ns() - start < ms * 1000000ULL) {
		uint64_t a, b, c, d, ambig;

		a = api->thread_ns();
		STAP_PROBE1(wlprov, work__start, name);
		b = api->thread_ns();
		c = api->burn(api->rand_range(&rng, 2000 * US, 4000 * US));
		STAP_PROBE(wlprov, work__done);
		d = api->thread_ns();
		ambig = (b - a) + (d - c);
		out->feature_ns += (c - b) + ambig / 2;
		out->feature_ambig_ns += ambig;
		api->burn(api->rand_range(&rng, 1000 * US, 3000 * US));
		out->cycles++;
	}
}
