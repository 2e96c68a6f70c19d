// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_mix - one thread, three features with a known mix, for fsp-bpf's tests.
 *
 *   wl_mix TRUTH MS    run cycles for MS ms of CPU time, write the truth to TRUTH
 *
 * One cycle (phase lengths drawn from the ranges, so that sampling instants
 * are not locked to the phases):
 *
 *   parse    (instance "tokenizer")       1-3 ms
 *   contract (instance wl_mix.c:LINE)     0.5-1.5 ms of checks, then a callback under
 *                                         the contract's antimark:
 *       user code, unmarked                0.5-1.5 ms
 *       output (instance "callback-print") 0.5-1.5 ms   nested, charged to output only
 *   contract                              0.2-0.8 ms more checks
 *   output   (instance wl_mix.c:LINE)     1-3 ms
 *   unmarked                              0.5-2.5 ms
 *
 * Truth keys: cpu_total_ns (process CPU from fork to the end of the last cycle),
 * feature.{parse,contract,output}.{ns,ambig_ns}, contract_whole.{ns,ambig_ns}
 * (the contract *including* its callback: what a profiler ignoring the antimark
 * would charge), instance.output.{0,1}.{name,ns,ambig_ns}, cycles.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "fsp.h"
#include "wl_common.h"

#define US 1000ULL

static const char *const contract_site = FSP_HERE;
static const char *const output_site = FSP_HERE;
static const char *const callback_site = "callback-print";

static struct wl_acc parse, contract, contract_whole, output_main, output_cb;
static uint64_t rng = 0x1234567887654321ULL;

static uint64_t jitter(uint64_t lo_us, uint64_t hi_us)
{
	return wl_rand_range(&rng, lo_us * US, hi_us * US);
}

/* User code called back by the contract: not the contract's cost. */
static void callback(void)
{
	uint64_t a, b, c, d;

	wl_burn(jitter(500, 1500));
	a = wl_thread_ns();
	FSP_MARK_ENTER("output", callback_site, 2);
	b = wl_thread_ns();
	c = wl_burn(jitter(500, 1500));
	FSP_MARK_LEAVE("output", callback_site, 2);
	d = wl_thread_ns();
	wl_acc_span(&output_cb, a, b, c, d);
}

static void cycle(void)
{
	uint64_t a, b, c, d, ca, cb, cc, cd;

	a = wl_thread_ns();
	FSP_MARK_ENTER("parse", "tokenizer", 1);
	b = wl_thread_ns();
	c = wl_burn(jitter(1000, 3000));
	FSP_MARK_LEAVE("parse", "tokenizer", 1);
	d = wl_thread_ns();
	wl_acc_span(&parse, a, b, c, d);

	ca = wl_thread_ns();
	FSP_MARK_ENTER("contract", contract_site, 3);
	cb = wl_thread_ns();
	wl_burn(jitter(500, 1500));
	a = wl_thread_ns();
	FSP_ANTIMARK_ENTER("contract");
	b = wl_thread_ns();
	callback();
	c = wl_thread_ns();
	FSP_ANTIMARK_LEAVE("contract");
	d = wl_thread_ns();
	wl_acc_unspan(&contract, a, b, c, d);
	cc = wl_burn(jitter(200, 800));
	FSP_MARK_LEAVE("contract", contract_site, 3);
	cd = wl_thread_ns();
	wl_acc_span(&contract, ca, cb, cc, cd);
	wl_acc_span(&contract_whole, ca, cb, cc, cd);

	a = wl_thread_ns();
	FSP_MARK_ENTER("output", output_site, 4);
	b = wl_thread_ns();
	c = wl_burn(jitter(1000, 3000));
	FSP_MARK_LEAVE("output", output_site, 4);
	d = wl_thread_ns();
	wl_acc_span(&output_main, a, b, c, d);

	wl_burn(jitter(500, 2500));
}

int main(int argc, char **argv)
{
	struct wl_acc output = {0, 0};
	uint64_t ms, start, cycles = 0, total;
	FILE *f;

	if (argc != 3)
		wl_die("usage: wl_mix TRUTH MS");
	ms = wl_arg_u64(argv[2], "MS");
	start = wl_thread_ns();
	while (wl_thread_ns() - start < ms * WL_NS_PER_MS) {
		cycle();
		cycles++;
	}
	total = wl_process_ns();

	wl_acc_add(&output, &output_main);
	wl_acc_add(&output, &output_cb);
	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", total);
	wl_out_u64(f, "cycles", cycles);
	wl_out_acc(f, "feature.parse", &parse);
	wl_out_acc(f, "feature.contract", &contract);
	wl_out_acc(f, "feature.output", &output);
	wl_out_acc(f, "contract_whole", &contract_whole);
	wl_out_str(f, "instance.output.0.name", output_site);
	wl_out_acc(f, "instance.output.0", &output_main);
	wl_out_str(f, "instance.output.1.name", callback_site);
	wl_out_acc(f, "instance.output.1", &output_cb);
	wl_out_str(f, "instance.contract.0.name", contract_site);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
