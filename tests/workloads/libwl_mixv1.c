// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libwl_mixv1.so - a library built with probe ABI v1 (whatever the program
 * loading it uses): its feature "middle" is a uprobe trap per mark. wl_mixed
 * loads it to mix both ABIs (and a probe map) in one process.
 */
#define FSP_ABI_V1 1
#include "fsp.h"
#include "wl_dl.h"

typedef void (*wl_mix_cb)(void);

void wl_mixv1_run(const struct wl_dl_api *api, uint64_t ns, wl_mix_cb cb, uint64_t acc[2]);

/*
 * "middle" around ns of its own work, then the callback (inside "middle").
 * Adds its time in the mark, with half the ambiguous time of the brackets, to
 * acc[0] and that ambiguous time to acc[1] (wl_common.h's phase accounting).
 */
void wl_mixv1_run(const struct wl_dl_api *api, uint64_t ns, wl_mix_cb cb, uint64_t acc[2])
{
	uint64_t a, b, c, d, ambig;

	a = api->thread_ns();
	FSP_MARK_ENTER("middle", "libwl_mixv1", 0);
	b = api->thread_ns();
	api->burn(ns);
	cb();
	c = api->thread_ns();
	FSP_MARK_LEAVE("middle", "libwl_mixv1", 0);
	d = api->thread_ns();
	ambig = (b - a) + (d - c);
	acc[0] += (c - b) + ambig / 2;
	acc[1] += ambig;
}
