// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libwl_sampled.so - the shared-library half of wl_sampled: a global
 * `char *` of a library, which a probe map reads at sample time ("label
 * sample"), and the probes of its own provider, "wlsl", around its extent:
 *
 *   wlsl:run__start()   the run starts (in wl_sampled_lib_enter)
 *   wlsl:run__done()    it ends (in wl_sampled_lib_leave; "frame none")
 *
 * wl_sampled_lib_set() points the variable at a label.
 */
#include <sys/sdt.h>

const char *volatile wl_lib_label;

void wl_sampled_lib_enter(void);
void wl_sampled_lib_leave(void);
void wl_sampled_lib_set(const char *label);

void wl_sampled_lib_enter(void)
{
	STAP_PROBE(wlsl, run__start);
}

void wl_sampled_lib_leave(void)
{
	STAP_PROBE(wlsl, run__done);
}

void wl_sampled_lib_set(const char *label)
{
	wl_lib_label = label;
}
