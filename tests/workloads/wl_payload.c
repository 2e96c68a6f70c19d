// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_payload - many threads marking one feature with a payload that changes
 * at every call, as the guide suggests for an input offset or an actor id.
 *
 *   wl_payload TRUTH THREADS MS   THREADS threads, each running cycles for MS
 *                                 ms of its CPU time
 *
 * One cycle of thread i (0-based):
 *
 *   enter "pay" (instance "loop", payload i << 32 | n, n the cycle's number,
 *   from 1); 20-60 us of work; leave "pay"; 10-30 us unmarked
 *
 * so every sample inside the mark has payloads no other sample has, and the
 * payload says which thread took it.
 *
 * Truth keys: cpu_total_ns, feature.pay.{ns,ambig_ns}, threads, cycles,
 * thread.<i>.tid.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fsp.h"
#include "wl_common.h"

#define US 1000ULL

struct worker {
	pthread_t th;
	uint64_t index;
	pid_t tid;
};

static struct wl_acc pay;
static atomic_uint_fast64_t cycles;
static uint64_t ms;

static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t rng = 0x9e3779b97f4a7c15ULL ^ w->index, start, n = 0;
	struct wl_acc acc = {0, 0};

	w->tid = (pid_t)syscall(SYS_gettid);
	start = wl_thread_ns();
	while (wl_thread_ns() - start < ms * WL_NS_PER_MS) {
		uint64_t a, b, c, d;

		n++;
		a = wl_thread_ns();
		FSP_MARK_ENTER("pay", "loop", w->index << 32 | n);
		b = wl_thread_ns();
		c = wl_burn(wl_rand_range(&rng, 20 * US, 60 * US));
		FSP_MARK_LEAVE("pay", "loop", w->index << 32 | n);
		d = wl_thread_ns();
		wl_acc_span(&acc, a, b, c, d);
		wl_burn(wl_rand_range(&rng, 10 * US, 30 * US));
	}
	wl_acc_add(&pay, &acc);
	atomic_fetch_add(&cycles, n);
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker *w;
	uint64_t nthreads;
	char key[64];
	FILE *f;

	if (argc != 4)
		wl_die("usage: wl_payload TRUTH THREADS MS");
	nthreads = wl_arg_u64(argv[2], "THREADS");
	ms = wl_arg_u64(argv[3], "MS");
	w = calloc(nthreads, sizeof(*w));
	if (!w)
		wl_die("out of memory");
	for (uint64_t i = 0; i < nthreads; i++) {
		w[i].index = i;
		if (pthread_create(&w[i].th, NULL, work, &w[i]))
			wl_die("pthread_create failed");
	}
	for (uint64_t i = 0; i < nthreads; i++)
		if (pthread_join(w[i].th, NULL))
			wl_die("pthread_join failed");

	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_acc(f, "feature.pay", &pay);
	wl_out_u64(f, "threads", nthreads);
	wl_out_u64(f, "cycles", atomic_load(&cycles));
	for (uint64_t i = 0; i < nthreads; i++) {
		snprintf(key, sizeof(key), "thread.%llu.tid", (unsigned long long)i);
		wl_out_u64(f, key, (uint64_t)w[i].tid);
	}
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
