// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_observer - what marking a fine-grained feature costs the profiled
 * program, and whether its profile describes it or the profiler.
 *
 *   wl_observer TRUTH MODE [ITERS]
 *
 * MODE fine1us: 1,000,000 calls of a feature "fine" of about 1 us each, in
 * phases of 1000 calls; fine100ns: 5,000,000 calls of about 100 ns, in phases
 * of 10000. After each phase of fine calls, a phase of the same work in one
 * call of the feature "coarse". So "fine" and "coarse" each take half of the
 * unprofiled program's time, unmarked code next to nothing.
 *
 * First, EMPTY_CALLS calls of "fine" with an empty body: what a call costs
 * outside its body (the loop, the call, the marks as this run has them),
 * i.e. at most the time between two calls' marks that a profile shows in no
 * feature. Their time is part of the fine phases.
 *
 * A call's body is ITERS steps of a dependent multiply/xor chain; without
 * ITERS the program calibrates it to the mode's duration and reports it, so
 * that a second run (under a profiler) does exactly the same work.
 *
 * Truth keys: cpu_total_ns (process CPU at the end), calibrate_ns (the
 * calibration's thread CPU time, 0 with ITERS: work the second run does not
 * do), phase.fine.ns and phase.coarse.ns (thread CPU time of all phases of
 * each kind, read once at each phase's ends: the marks inside are not timed
 * one by one), calls, iters, cycles, empty_calls and empty.ns (the empty
 * calls and their thread CPU time, in phase.fine.ns too).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsp.h"
#include "wl_common.h"

static volatile uint64_t seed = 0x9e3779b97f4a7c15ULL;
static uint64_t sink, mismatches;

static inline __attribute__((always_inline)) uint64_t steps(uint64_t x, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		x ^= x >> 29;
	}
	return x;
}

/* One call of the fine feature. */
static __attribute__((noinline)) uint64_t fine(uint64_t x, uint64_t iters)
{
	FSP_MARK_ENTER("fine", "call", 0);
	x = steps(x, iters);
	FSP_MARK_LEAVE("fine", "call", 0);
	return x;
}

static __attribute__((noinline)) uint64_t coarse(uint64_t x, uint64_t iters)
{
	FSP_MARK_ENTER("coarse", "phase", 0);
	x = steps(x, iters);
	FSP_MARK_LEAVE("coarse", "phase", 0);
	return x;
}

#define EMPTY_CALLS 1000000

/* Keeps x's computation between the clock reads around it. */
#define PIN(x) __asm__ __volatile__("" : "+r"(x)::"memory")

/* Steps for target_ns of CPU time, measured over many of them (the best of
 * five, so that a preemption does not skew it). */
static uint64_t calibrate(uint64_t target_ns)
{
	uint64_t n = 2000000, best = UINT64_MAX, x = seed;

	for (int r = 0; r < 5; r++) {
		uint64_t t0 = wl_thread_ns(), dt;

		PIN(x);
		x = steps(x, n);
		PIN(x);
		dt = wl_thread_ns() - t0;
		if (dt && dt < best)
			best = dt;
	}
	sink = x;
	n = n * target_ns / best;
	return n ? n : 1;
}

int main(int argc, char **argv)
{
	uint64_t calls, per_phase, iters, fine_ns = 0, coarse_ns = 0, cycles = 0, calibrate_ns;
	uint64_t empty_ns;
	uint64_t x = seed, y = seed, t0, t1;
	bool hundred;
	FILE *f;

	if (argc < 3 || argc > 4 || (strcmp(argv[2], "fine1us") && strcmp(argv[2], "fine100ns")))
		wl_die("usage: wl_observer TRUTH fine1us|fine100ns [ITERS]");
	hundred = !strcmp(argv[2], "fine100ns");
	calls = hundred ? 5000000 : 1000000;
	per_phase = hundred ? 10000 : 1000;
	t0 = wl_thread_ns();
	iters = argc == 4 ? wl_arg_u64(argv[3], "ITERS") : calibrate(hundred ? 100 : 1000);
	calibrate_ns = argc == 4 ? 0 : wl_thread_ns() - t0;
	t0 = wl_thread_ns();
	for (uint64_t i = 0; i < EMPTY_CALLS; i++)
		x = fine(x, 0); /* x unchanged: y need not follow */
	empty_ns = wl_thread_ns() - t0;
	fine_ns += empty_ns;
	for (uint64_t done = 0; done < calls; done += per_phase, cycles++) {
		t0 = wl_thread_ns();
		for (uint64_t i = 0; i < per_phase; i++)
			x = fine(x, iters);
		t1 = wl_thread_ns();
		fine_ns += t1 - t0;
		y = coarse(y, iters * per_phase);
		coarse_ns += wl_thread_ns() - t1;
		/* The same chain twice: a profiler that corrupted registers breaks it. */
		mismatches += x != y;
	}
	sink = x;
	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_u64(f, "calibrate_ns", calibrate_ns);
	wl_out_u64(f, "phase.fine.ns", fine_ns);
	wl_out_u64(f, "phase.coarse.ns", coarse_ns);
	wl_out_u64(f, "calls", calls);
	wl_out_u64(f, "empty_calls", EMPTY_CALLS);
	wl_out_u64(f, "empty.ns", empty_ns);
	wl_out_u64(f, "iters", iters);
	wl_out_u64(f, "cycles", cycles);
	wl_out_u64(f, "mismatches", mismatches);
	return wl_out_close(f, argv[1]) || mismatches ? 3 : 0;
}
