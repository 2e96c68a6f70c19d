// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_short - a program that is over in about 50 ms, for fsp-bpf's labels of a
 * process that has exited by the time the report is written.
 *
 *   wl_short TRUTH
 *
 * Runs "short_feature" (instance "quick-instance") for 20 ms and "short_other"
 * (instance wl_short.c:LINE) for 20 ms, then 10 ms unmarked. The labels of
 * "short_other" live in a page of their own that the program never reads, so
 * that they are not in memory unless the profiler faults them in or reads the
 * file.
 *
 * Truth keys: feature.N.name, instance.N.name (N = 0, 1), cpu_total_ns.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "fsp.h"
#include "wl_common.h"

#define PAGE_LABEL __attribute__((section(".rodata.wl_labels"), aligned(4096)))

static const char other_feature[] PAGE_LABEL = "short_other";
static const char other_instance[] PAGE_LABEL = FSP_HERE;

int main(int argc, char **argv)
{
	FILE *f;

	if (argc != 2)
		wl_die("usage: wl_short TRUTH");
	FSP_MARK_ENTER("short_feature", "quick-instance", 0);
	wl_burn(20 * WL_NS_PER_MS);
	FSP_MARK_LEAVE("short_feature", "quick-instance", 0);
	FSP_MARK_ENTER(other_feature, other_instance, 0);
	wl_burn(20 * WL_NS_PER_MS);
	FSP_MARK_LEAVE(other_feature, other_instance, 0);
	wl_burn(10 * WL_NS_PER_MS);

	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_str(f, "feature.0.name", "short_feature");
	wl_out_str(f, "instance.0.name", "quick-instance");
	/* Reading the labels pages them in, but only now that every probe has fired. */
	wl_out_str(f, "feature.1.name", other_feature);
	wl_out_str(f, "instance.1.name", other_instance);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
