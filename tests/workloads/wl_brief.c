// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_brief - a short-lived process with fsp probes, for system-wide mode's
 * tests of processes that come and go (a shell's commands, a pool's workers).
 *
 *   wl_brief TRUTH MS [THREADS]
 *
 * Each of THREADS threads (default 1: the main thread alone) runs cycles of
 * mark "brief" (instance "cycle", 100-300 us of work) with an antimark
 * "brief" inside it every fourth cycle, then 50-150 us unmarked, for MS ms
 * of wall time.
 *
 * A mark is entered only when its enter probe's semaphore is raised and left
 * only when its enter was: the workload counts what it fired, and reads its
 * own semaphores (the copies in this executable) at its first cycle and at
 * its end, so that a test sees what the kernel armed and when.
 *
 * Truth keys: cycles (all threads), fired.enter, fired.leave (marks entered
 * and left with the probe firing), fired.anti (antimarks entered and left),
 * sema.{enter,leave,anti_enter,anti_leave}.first and .end (0 or not),
 * feature.brief.{ns,ambig_ns}, cpu_total_ns, threads.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* It looks at and fires the ABI v1 probes itself (what it measures is how
 * they are armed): an ABI v1 build, also among the ABI v2 workloads. */
#ifndef FSP_ABI_V1
#define FSP_ABI_V1
#endif
#include "fsp.h"
#include "wl_common.h"

#define US 1000ULL
#define MAX_THREADS 64

struct sema_view {
	int enter, leave, anti_enter, anti_leave;
};

static struct sema_view sema_now(void)
{
	return (struct sema_view){FSP__ON(mark_enter), FSP__ON(mark_leave), FSP__ON(antimark_enter),
				  FSP__ON(antimark_leave)};
}

struct worker {
	pthread_t th;
	uint64_t deadline_ns, seed;
	uint64_t cycles, enters, leaves, antis;
	struct wl_acc acc;
};

static struct sema_view first;

static void one_cycle(struct worker *w)
{
	uint64_t a, b, c, d, x, y;
	int entered = 0;

	a = wl_thread_ns();
	if (FSP__ON(mark_enter)) {
		FSP__FIRE3(mark_enter, "brief", "cycle", w->cycles);
		entered = 1;
		w->enters++;
	}
	b = wl_thread_ns();
	c = wl_burn(wl_rand_range(&w->seed, 100 * US, 300 * US));
	if (w->cycles % 4 == 3 && FSP__ON(antimark_enter) && FSP__ON(antimark_leave)) {
		x = wl_thread_ns();
		FSP__FIRE1(antimark_enter, "brief");
		wl_burn(20 * US);
		FSP__FIRE1(antimark_leave, "brief");
		y = wl_thread_ns();
		/* Not the feature's: out of its time, brackets included. */
		c -= y - x;
		w->antis++;
	}
	if (entered && FSP__ON(mark_leave)) {
		FSP__FIRE3(mark_leave, "brief", "cycle", w->cycles);
		w->leaves++;
	}
	d = wl_thread_ns();
	if (entered)
		wl_acc_span(&w->acc, a, b, c, d);
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

static void out_sema(FILE *f, const char *when, const struct sema_view *v)
{
	char key[64];

	snprintf(key, sizeof(key), "sema.enter.%s", when);
	wl_out_u64(f, key, v->enter);
	snprintf(key, sizeof(key), "sema.leave.%s", when);
	wl_out_u64(f, key, v->leave);
	snprintf(key, sizeof(key), "sema.anti_enter.%s", when);
	wl_out_u64(f, key, v->anti_enter);
	snprintf(key, sizeof(key), "sema.anti_leave.%s", when);
	wl_out_u64(f, key, v->anti_leave);
}

static void run_threads(FILE *f, uint64_t ms, uint64_t nthreads)
{
	static struct worker w[MAX_THREADS];
	uint64_t deadline = wl_mono_ns() + ms * WL_NS_PER_MS;
	struct worker sum = {0};

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
		sum.cycles += w[i].cycles;
		sum.enters += w[i].enters;
		sum.leaves += w[i].leaves;
		sum.antis += w[i].antis;
		wl_acc_add(&sum.acc, &w[i].acc);
	}
	wl_out_u64(f, "cycles", sum.cycles);
	wl_out_u64(f, "fired.enter", sum.enters);
	wl_out_u64(f, "fired.leave", sum.leaves);
	wl_out_u64(f, "fired.anti", sum.antis);
	wl_out_acc(f, "feature.brief", &sum.acc);
}

int main(int argc, char **argv)
{
	uint64_t ms, nthreads = 1;
	struct sema_view end;
	FILE *f;

	if (argc < 3 || argc > 4)
		wl_die("usage: wl_brief TRUTH MS [THREADS]");
	first = sema_now();
	ms = wl_arg_u64(argv[2], "MS");
	if (argc > 3)
		nthreads = wl_arg_u64(argv[3], "THREADS");
	if (nthreads > MAX_THREADS)
		wl_die("at most %d threads", MAX_THREADS);
	/* Opened first: its name is fixed before the work, and a failure costs nothing. */
	f = wl_out_open(argv[1]);
	run_threads(f, ms, nthreads);
	end = sema_now();
	out_sema(f, "first", &first);
	out_sema(f, "end", &end);
	wl_out_u64(f, "threads", nthreads);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
