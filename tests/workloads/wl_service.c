// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_service - a long-running process to attach fsp-bpf to (-p PID).
 *
 *   wl_service READY DUMP [exit-on-attach [US]]
 *
 * Runs until SIGTERM or SIGINT, in cycles of fixed length (no jitter, so that
 * every window of whole cycles has the same mix):
 *
 *   enter "service"
 *     redzone_check(): enter and leave "service" (instance "redzone") in a leaf
 *                      function whose locals are in the red zone
 *     parse    (instance "request")   2 ms
 *     compute  (instance "kernel")    3 ms
 *     1 ms in "service" only
 *   leave "service"
 *   1 ms unmarked
 *
 * It writes READY once it is inside "service" for the first time: whoever
 * attaches then finds it mid-feature. On SIGUSR1 it writes, at the end of the
 * current cycle, DUMP.N (N = 1, 2, ...) with its cumulative counters, so that a
 * test can take the difference over exactly the window it profiled. On
 * SIGTERM/SIGINT it writes DUMP.final and exits: 0 if every integrity check
 * passed, 3 otherwise.
 *
 * With "exit-on-attach" it exits (status 0) US microseconds (default 0) after
 * it sees its USDT semaphore raised, i.e. in the middle of fsp-bpf attaching
 * to it (or after 30 s, if nobody attaches).
 *
 * Dump keys: cpu_total_ns (process CPU so far), cycles, enabled (FSP_ENABLED() now), leaves (mark leaves
 * executed so far), redzone_errors (see redzone_check()),
 * feature.{service,parse,compute}.{ns,ambig_ns}; with probe ABI v2, v2_gen and
 * v2_sema (the record's generation and fsp:v2's semaphore).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsp.h"
#include "wl_common.h"

#define MS WL_NS_PER_MS

static volatile sig_atomic_t dump_requests, stop;
static struct wl_acc service, parse, compute;
static uint64_t cycles, leaves, redzone_errors;
static unsigned dumps;

static void on_usr1(int sig)
{
	(void)sig;
	dump_requests++;
}

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static void dump(const char *prefix, const char *suffix)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.%s", prefix, suffix);
	f = wl_out_open(path);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_u64(f, "cycles", cycles);
	wl_out_u64(f, "leaves", leaves);
	wl_out_u64(f, "enabled", FSP_ENABLED() ? 1 : 0);
	wl_out_u64(f, "redzone_errors", redzone_errors);
#if FSP_ABI_VERSION == 2
	/* The record's generation (raised by a profiler that starts the stacks
	 * afresh) and fsp:v2's semaphore. */
	wl_out_u64(f, "v2_gen", *(volatile uint32_t *)&fsp__v2_rec.gen);
	wl_out_u64(f, "v2_sema", *(volatile uint16_t *)&fsp__v2_rec.sema_v2);
#endif
	wl_out_acc(f, "feature.service", &service);
	wl_out_acc(f, "feature.parse", &parse);
	wl_out_acc(f, "feature.compute", &compute);
	if (wl_out_close(f, path))
		exit(2);
}

/* A phase nested in "service". */
#define PHASE(feat, inst, acc, ns)                                                                 \
	do {                                                                                       \
		uint64_t a_, b_, c_, d_;                                                           \
		a_ = wl_thread_ns();                                                               \
		FSP_MARK_ENTER(feat, inst, 0);                                                     \
		b_ = wl_thread_ns();                                                               \
		c_ = wl_burn(ns);                                                                  \
		FSP_MARK_LEAVE(feat, inst, 0);                                                     \
		d_ = wl_thread_ns();                                                               \
		wl_acc_span(&(acc), a_, b_, c_, d_);                                               \
		leaves++;                                                                          \
	} while (0)

/*
 * A leaf function whose locals live in the x86-64 red zone (below the stack
 * pointer, no frame): a probe mechanism that wrote below the stack pointer of
 * the traced code (as an optimized uprobe's trampoline call does) would
 * clobber them. Returns the number of corrupted values.
 */
static __attribute__((noinline)) unsigned redzone_check(uint64_t seed)
{
	volatile uint64_t v[8];
	unsigned bad = 0;

	for (int i = 0; i < 8; i++)
		v[i] = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i;
	FSP_MARK_ENTER("service", "redzone", seed);
	FSP_MARK_LEAVE("service", "redzone", seed);
	for (int i = 0; i < 8; i++)
		bad += v[i] != seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i;
	return bad;
}

int main(int argc, char **argv)
{
	bool exit_on_attach = (argc == 4 || argc == 5) && !strcmp(argv[3], "exit-on-attach");
	struct sigaction sa = {.sa_handler = on_usr1};
	const char *ready, *prefix;
	char n[16];

	if (argc != 3 && !exit_on_attach)
		wl_die("usage: wl_service READY DUMP [exit-on-attach [US]]");
	ready = argv[1];
	prefix = argv[2];
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	if (exit_on_attach) {
		uint64_t delay = argc == 5 ? strtoull(argv[4], NULL, 10) * 1000 : 0;
		uint64_t deadline = wl_mono_ns() + 30000 * WL_NS_PER_MS, t;

		wl_write_ready(ready);
		/* Spin on the semaphore itself: exit within microseconds of the first
		 * probe being armed, while fsp-bpf still attaches the others. */
		while (!FSP_ENABLED() && !stop && wl_mono_ns() < deadline)
			;
		for (t = wl_mono_ns(); wl_mono_ns() - t < delay;)
			;
		/* The probes only make the process eligible for -p. */
		FSP_MARK_ENTER("service", "never", 0);
		_exit(0);
	}

	while (!stop) {
		uint64_t a, b, c, d;

		a = wl_thread_ns();
		FSP_MARK_ENTER("service", "loop", 0);
		b = wl_thread_ns();
		if (!cycles)
			wl_write_ready(ready);
		redzone_errors += redzone_check(cycles);
		leaves++;
		PHASE("parse", "request", parse, 2 * MS);
		PHASE("compute", "kernel", compute, 3 * MS);
		c = wl_burn(1 * MS);
		FSP_MARK_LEAVE("service", "loop", 0);
		d = wl_thread_ns();
		wl_acc_span(&service, a, b, c, d);
		leaves++;
		wl_burn(1 * MS);
		cycles++;
		while (dumps < (unsigned)dump_requests) {
			snprintf(n, sizeof(n), "%u", ++dumps);
			dump(prefix, n);
		}
	}
	dump(prefix, "final");
	return wl_integrity_errors() || redzone_errors ? 3 : 0;
}
