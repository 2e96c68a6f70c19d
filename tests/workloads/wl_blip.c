// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_blip - a short-lived process with marks of the build's ABI (v2 by
 * default: no trap), for the soak of system-wide mode (bench/soak.sh) beside
 * wl_brief's ABI v1 marks.
 *
 *   wl_blip TRUTH MS [THREADS]
 *
 * Each of THREADS threads (default 1) runs cycles of mark "blip" (instance
 * "cycle", payload the cycle's number, 100-300 us of work) with an antimark
 * "blip" around 20 us of it every fourth cycle, then 50-150 us unmarked, for
 * MS ms of wall time. A cycle counts in the feature's time when the marks
 * were armed at its start (FSP_ENABLED(): a profiler reads the stacks), as a
 * profiler sees it.
 *
 * Truth keys: cycles, cycles_unarmed, feature.blip.{ns,ambig_ns},
 * cpu_total_ns, threads.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "fsp.h"
#include "wl_common.h"

#define US 1000ULL
#define MAX_THREADS 64

struct worker {
	pthread_t th;
	uint64_t deadline_ns, seed, cycles, unarmed;
	struct wl_acc acc;
};

static void one_cycle(struct worker *w)
{
	uint64_t a, b, c, d, x, y;
	int armed = FSP_ENABLED();

	a = wl_thread_ns();
	FSP_MARK_ENTER("blip", "cycle", w->cycles + 1);
	b = wl_thread_ns();
	c = wl_burn(wl_rand_range(&w->seed, 100 * US, 300 * US));
	if (w->cycles % 4 == 3) {
		x = wl_thread_ns();
		FSP_ANTIMARK_ENTER("blip");
		wl_burn(20 * US);
		FSP_ANTIMARK_LEAVE("blip");
		y = wl_thread_ns();
		/* Not the feature's: out of its time, brackets included. */
		c -= y - x;
	}
	FSP_MARK_LEAVE("blip", "cycle", w->cycles + 1);
	d = wl_thread_ns();
	if (armed)
		wl_acc_span(&w->acc, a, b, c, d);
	else
		w->unarmed++;
	wl_burn(wl_rand_range(&w->seed, 50 * US, 150 * US));
	w->cycles++;
}

static void *work(void *arg)
{
	struct worker *w = arg;

	while (wl_mono_ns() < w->deadline_ns)
		one_cycle(w);
	return NULL;
}

int main(int argc, char **argv)
{
	static struct worker w[MAX_THREADS];
	uint64_t ms, nthreads = 1, deadline, cycles = 0, unarmed = 0;
	struct wl_acc sum = {0, 0};
	FILE *f;

	if (argc < 3 || argc > 4)
		wl_die("usage: wl_blip TRUTH MS [THREADS]");
	ms = wl_arg_u64(argv[2], "MS");
	if (argc > 3)
		nthreads = wl_arg_u64(argv[3], "THREADS");
	if (!nthreads || nthreads > MAX_THREADS)
		wl_die("1 to %d threads", MAX_THREADS);
	f = wl_out_open(argv[1]);
	deadline = wl_mono_ns() + ms * WL_NS_PER_MS;
	for (uint64_t i = 0; i < nthreads; i++) {
		w[i].deadline_ns = deadline;
		w[i].seed = 0x9e3779b97f4a7c15ULL * (i + 1) ^ (uint64_t)getpid();
		if (i && pthread_create(&w[i].th, NULL, work, &w[i]))
			wl_die("pthread_create failed");
	}
	work(&w[0]);
	for (uint64_t i = 0; i < nthreads; i++) {
		if (i && pthread_join(w[i].th, NULL))
			wl_die("pthread_join failed");
		cycles += w[i].cycles;
		unarmed += w[i].unarmed;
		wl_acc_add(&sum, &w[i].acc);
	}
	wl_out_u64(f, "cycles", cycles);
	wl_out_u64(f, "cycles_unarmed", unarmed);
	wl_out_acc(f, "feature.blip", &sum);
	wl_out_u64(f, "threads", nthreads);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
