// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * part_abimix_v1.c - the ABI v1 translation unit of wl_abimix (whatever ABI
 * the program's other unit uses): its feature "inner" is a uprobe trap per
 * mark.
 */
#define FSP_ABI_V1 1
#include "fsp.h"
#include "wl_common.h"

void abimix_inner(uint64_t ns, struct wl_acc *acc);

void abimix_inner(uint64_t ns, struct wl_acc *acc)
{
	uint64_t a, b, c, d;

	a = wl_thread_ns();
	FSP_MARK_ENTER("inner", "part_abimix_v1", 0);
	b = wl_thread_ns();
	c = wl_burn(ns);
	FSP_MARK_LEAVE("inner", "part_abimix_v1", 0);
	d = wl_thread_ns();
	wl_acc_span(acc, a, b, c, d);
}
