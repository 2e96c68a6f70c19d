// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_ffcalls - calls of its own functions that count themselves, for the
 * exact calls of function features (record --events,
 * tests/integration/test_funcfeat.c, test_events_calls).
 *
 *   wl_ffcalls TRUTH
 *
 *   nest   ff_outer() calls ff_inner() twice: NEST calls of ff_outer
 *   rec    ff_rec() recurses 6 deep: REC outer calls; its innermost call
 *          spins, measured inside (rec.own_ns), each outer call measured
 *          around by its caller (rec.outer_ns)
 *   apply  ff_apply() spins (apply.own_ns, inside) and calls back ff_cb(),
 *          which spins (apply.cb_ns, measured inside ff_cb); each call of
 *          ff_apply measured around (apply.outer_ns): APPLY calls
 *   jump   ff_jump() longjmp()s out of itself: JUMP calls, none returns
 *   work   ff_work() called WORK times by each of THREADS threads, after
 *          the jumps
 *   tail   ff_tail_a() jumps to ff_tail_b() (a sibling call: B returns to
 *          A's caller, main): TAIL calls
 * Truth keys: nest.calls, rec.calls, rec.own_ns, rec.outer_ns, apply.calls,
 * apply.own_ns, apply.cb_ns, apply.outer_ns, jump.calls, work.calls,
 * tail.calls; wall
 * clock (CLOCK_MONOTONIC, the clock the BPF side reads).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>

#include "wl_common.h"

#define NEST 300
#define REC 200
#define REC_DEPTH 6
#define APPLY 100
#define JUMP 50
#define WORK 400
#define THREADS 4
#define TAIL 120

#define NOINLINE __attribute__((noinline, noclone, used))

static uint64_t sink, rec_own_ns, apply_own_ns, apply_cb_ns;
static jmp_buf jump_buf;

static uint64_t spin(uint64_t n)
{
	uint64_t x = n;

	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

NOINLINE uint64_t ff_inner(uint64_t n)
{
	return spin(n) + 1;
}

NOINLINE uint64_t ff_outer(uint64_t n)
{
	uint64_t x = ff_inner(n);

	x += ff_inner(n);
	return x + 1;
}

NOINLINE uint64_t ff_rec(unsigned int depth)
{
	uint64_t x, t;

	if (!depth) {
		t = wl_mono_ns();
		x = spin(20000);
		rec_own_ns += wl_mono_ns() - t;
		return x;
	}
	x = ff_rec(depth - 1);
	return x + depth; /* not a tail call */
}

NOINLINE uint64_t ff_cb(uint64_t n)
{
	uint64_t t = wl_mono_ns(), x = spin(n);

	apply_cb_ns += wl_mono_ns() - t;
	return x;
}

NOINLINE uint64_t ff_apply(uint64_t (*cb)(uint64_t), uint64_t n)
{
	uint64_t t = wl_mono_ns(), x = spin(n);

	apply_own_ns += wl_mono_ns() - t;
	return cb(4 * n) + x;
}

NOINLINE void ff_jump(uint64_t n)
{
	sink += spin(n);
	longjmp(jump_buf, 1);
}

NOINLINE uint64_t ff_work(uint64_t n)
{
	return spin(n) + 3;
}

NOINLINE uint64_t ff_tail_b(uint64_t n)
{
	return spin(n) + 5;
}

/* Its call of ff_tail_b is a jump (sibling call), whatever the build's -O. */
__attribute__((noinline, noclone, used, optimize("optimize-sibling-calls"))) uint64_t
ff_tail_a(uint64_t n)
{
	sink += 1;
	return ff_tail_b(n + 1);
}

static void *worker(void *arg)
{
	uint64_t x = 0;

	(void)arg;
	for (int i = 0; i < WORK; i++)
		x += ff_work(500);
	__atomic_fetch_add(&sink, x, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	static uint64_t rec_outer, apply_outer; /* not clobbered by longjmp */
	uint64_t t;
	pthread_t th[THREADS];
	volatile int jumps = 0;
	FILE *f;

	if (argc != 2)
		wl_die("usage: wl_ffcalls TRUTH");
	for (int i = 0; i < NEST; i++)
		sink += ff_outer(1000);
	for (int i = 0; i < REC; i++) {
		t = wl_mono_ns();
		sink += ff_rec(REC_DEPTH);
		rec_outer += wl_mono_ns() - t;
	}
	for (int i = 0; i < APPLY; i++) {
		t = wl_mono_ns();
		sink += ff_apply(ff_cb, 20000);
		apply_outer += wl_mono_ns() - t;
	}
	if (setjmp(jump_buf))
		jumps++;
	if (jumps < JUMP)
		ff_jump(1000);
	for (int i = 0; i < TAIL; i++)
		sink += ff_tail_a(500);
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&th[i], NULL, worker, NULL))
			wl_die("pthread_create failed");
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	f = wl_out_open(argv[1]);
	wl_out_u64(f, "nest.calls", NEST);
	wl_out_u64(f, "rec.calls", REC);
	wl_out_u64(f, "rec.own_ns", rec_own_ns);
	wl_out_u64(f, "rec.outer_ns", rec_outer);
	wl_out_u64(f, "apply.calls", APPLY);
	wl_out_u64(f, "apply.own_ns", apply_own_ns);
	wl_out_u64(f, "apply.cb_ns", apply_cb_ns);
	wl_out_u64(f, "apply.outer_ns", apply_outer);
	wl_out_u64(f, "jump.calls", (uint64_t)jumps);
	wl_out_u64(f, "work.calls", THREADS * WORK);
	wl_out_u64(f, "tail.calls", TAIL);
	wl_out_u64(f, "checksum", sink);
	return wl_out_close(f, argv[1]) ? 3 : 0;
}
