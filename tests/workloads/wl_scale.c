// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_scale - a program whose features grow differently with its input size,
 * for `fsp-bpf diff --scale` (tests/integration/test_files.c).
 *
 *   wl_scale TRUTH N    process N items, write the truth to TRUTH
 *
 *   setup  (instance "tables")   200 ms, whatever N: constant
 *   scan   (instance "items")    N x 4 ms: linear
 *   sort   (instance "pairs")    N x N x 20 us: quadratic
 *
 * Run with N and 2N, a profiler that predicts linear growth should find sort
 * growing faster (+ N x N x 20 us more than predicted) and setup slower
 * (- 200 ms). Truth keys: feature.{setup,scan,sort}.{ns,ambig_ns}, cpu_total_ns.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "fsp.h"
#include "wl_common.h"

#define US 1000ULL

static struct wl_acc setup, scan, sort;

static void phase(struct wl_acc *acc, const char *feature, const char *instance, uint64_t ns)
{
	uint64_t a, b, c, d;

	a = wl_thread_ns();
	FSP_MARK_ENTER(feature, instance, 0);
	b = wl_thread_ns();
	c = wl_burn(ns);
	FSP_MARK_LEAVE(feature, instance, 0);
	d = wl_thread_ns();
	wl_acc_span(acc, a, b, c, d);
}

int main(int argc, char **argv)
{
	uint64_t n, start;
	FILE *f;

	if (argc != 3)
		wl_die("usage: wl_scale TRUTH N");
	n = wl_arg_u64(argv[2], "N");
	start = wl_process_ns();
	phase(&setup, "setup", "tables", 200000 * US);
	for (uint64_t i = 0; i < n; i++)
		phase(&scan, "scan", "items", 4000 * US);
	for (uint64_t i = 0; i < n; i++)
		phase(&sort, "sort", "pairs", n * 20 * US);
	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns() - start);
	wl_out_acc(f, "feature.setup", &setup);
	wl_out_acc(f, "feature.scan", &scan);
	wl_out_acc(f, "feature.sort", &sort);
	return wl_out_close(f, argv[1]) ? 1 : 0;
}
