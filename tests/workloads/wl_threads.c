// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_threads - three named threads with different feature mixes, for fsp-bpf's tests.
 *
 *   wl_threads TRUTH MS   the threads together use about MS ms of CPU time
 *                         (1/6, 2/6 and 3/6 of it), then the truth goes to TRUTH
 *
 *   wl-alpha  encode 60%, unmarked 40%
 *   wl-beta   decode 50% (with verify nested inside for 30% of the time), unmarked 50%
 *   wl-gamma  verify 40%, encode 20%, unmarked 40%
 *
 * Each thread carries its name from its first instruction: the main thread
 * takes the worker's name before pthread_create() (a new thread inherits its
 * creator's name) and gives its own back afterwards.
 *
 * Truth keys: cpu_total_ns (process CPU, all threads), feature.{encode,decode,
 * verify}.{ns,ambig_ns}, thread.N.{tid,comm,cpu_ns,cycles} for N = 0..2 (a
 * cycle enters each of its thread's marks once),
 * main.{tid,comm}.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "fsp.h"
#include "wl_common.h"

#define NTHREADS 3
#define US 1000ULL

struct worker {
	int id;
	const char *name;
	uint64_t budget_ns;
	pid_t tid;
	uint64_t cpu_ns;
	uint64_t rng;
	uint64_t cycles;
	struct wl_acc encode, decode, verify;
	pthread_t th;
};

static struct wl_acc encode, decode, verify;

/* One marked phase of about lo..hi us. */
#define PHASE(w, feat, acc, inst, lo, hi)                                                          \
	do {                                                                                       \
		uint64_t a_, b_, c_, d_;                                                           \
		a_ = wl_thread_ns();                                                               \
		FSP_MARK_ENTER(feat, inst, (uint64_t)(w)->id);                                     \
		b_ = wl_thread_ns();                                                               \
		c_ = wl_burn(wl_rand_range(&(w)->rng, (lo)*US, (hi)*US));                          \
		FSP_MARK_LEAVE(feat, inst, (uint64_t)(w)->id);                                     \
		d_ = wl_thread_ns();                                                               \
		wl_acc_span(&(w)->acc, a_, b_, c_, d_);                                            \
	} while (0)

static void alpha_cycle(struct worker *w)
{
	PHASE(w, "encode", encode, "alpha", 900, 2700);
	wl_burn(wl_rand_range(&w->rng, 600 * US, 1800 * US));
}

static void beta_cycle(struct worker *w)
{
	uint64_t a, b, c, d;

	/* decode 1 ms, verify nested 1.5 ms, decode 0.5 ms: 3 of 5 ms */
	a = wl_thread_ns();
	FSP_MARK_ENTER("decode", "beta", (uint64_t)w->id);
	b = wl_thread_ns();
	wl_burn(wl_rand_range(&w->rng, 500 * US, 1500 * US));
	PHASE(w, "verify", verify, "beta-nested", 750, 2250);
	c = wl_burn(wl_rand_range(&w->rng, 250 * US, 750 * US));
	FSP_MARK_LEAVE("decode", "beta", (uint64_t)w->id);
	d = wl_thread_ns();
	wl_acc_span(&w->decode, a, b, c, d);
	wl_burn(wl_rand_range(&w->rng, 1000 * US, 3000 * US));
}

static void gamma_cycle(struct worker *w)
{
	PHASE(w, "verify", verify, "gamma", 1000, 3000);
	PHASE(w, "encode", encode, "gamma", 500, 1500);
	wl_burn(wl_rand_range(&w->rng, 1000 * US, 3000 * US));
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t t;

	w->tid = gettid();
	do {
		switch (w->id) {
		case 0:
			alpha_cycle(w);
			break;
		case 1:
			beta_cycle(w);
			break;
		default:
			gamma_cycle(w);
			break;
		}
		w->cycles++;
		t = wl_thread_ns();
	} while (t < w->budget_ns);
	w->cpu_ns = wl_thread_ns();
	wl_acc_add(&encode, &w->encode);
	wl_acc_add(&decode, &w->decode);
	wl_acc_add(&verify, &w->verify);
	return NULL;
}

int main(int argc, char **argv)
{
	static const char *const names[NTHREADS] = {"wl-alpha", "wl-beta", "wl-gamma"};
	struct worker w[NTHREADS];
	char comm[16] = "", key[64];
	uint64_t ms, total;
	FILE *f;
	int i;

	if (argc != 3)
		wl_die("usage: wl_threads TRUTH MS");
	ms = wl_arg_u64(argv[2], "MS");
	prctl(PR_GET_NAME, comm);
	memset(w, 0, sizeof(w));
	for (i = 0; i < NTHREADS; i++) {
		w[i].id = i;
		w[i].name = names[i];
		w[i].budget_ns = ms * WL_NS_PER_MS * (uint64_t)(i + 1) / 6;
		w[i].rng = 0x2545f4914f6cdd1dULL * (uint64_t)(i + 1);
		prctl(PR_SET_NAME, names[i]);
		if (pthread_create(&w[i].th, NULL, worker_main, &w[i]))
			wl_die("pthread_create failed");
	}
	prctl(PR_SET_NAME, comm);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(w[i].th, NULL);
	total = wl_process_ns();

	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", total);
	wl_out_acc(f, "feature.encode", &encode);
	wl_out_acc(f, "feature.decode", &decode);
	wl_out_acc(f, "feature.verify", &verify);
	for (i = 0; i < NTHREADS; i++) {
		snprintf(key, sizeof(key), "thread.%d.tid", i);
		wl_out_u64(f, key, (uint64_t)w[i].tid);
		snprintf(key, sizeof(key), "thread.%d.comm", i);
		wl_out_str(f, key, w[i].name);
		snprintf(key, sizeof(key), "thread.%d.cpu_ns", i);
		wl_out_u64(f, key, w[i].cpu_ns);
		snprintf(key, sizeof(key), "thread.%d.cycles", i);
		wl_out_u64(f, key, w[i].cycles);
	}
	wl_out_u64(f, "main.tid", (uint64_t)getpid());
	wl_out_str(f, "main.comm", comm);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
