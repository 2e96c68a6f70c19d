// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_coro - coroutines (makecontext/swapcontext) on heap stacks that yield in
 * the middle of their marks.
 *
 *   wl_coro TRUTH MS   schedule the coroutines for MS ms of CPU time
 *
 * Four coroutines, each on a 64 KiB stack from malloc (neighbours in the heap,
 * a few KiB apart), run in turn from the main thread's scheduler. Coroutine i
 * (0..3) runs, per turn:
 *
 *   enter "coro" (instance "co<i>"); (i + 1) x 200-400 us of work; yield;
 *   (i + 1) x 200-400 us of work; leave "coro"; yield
 *
 * and the scheduler, between two switches, runs its own "sched" mark for
 * 100-200 us. A mark belongs to the coroutine that entered it: while another
 * coroutine (or the scheduler) runs, it is suspended, neither charged nor
 * dropped; when its coroutine resumes, it is charged again. The truth of each
 * instance is the CPU time its coroutine ran inside its mark; a switch inside
 * a mark (the swapcontext out and back) is ambiguous time.
 *
 * Truth keys: cpu_total_ns, feature.coro.{ns,ambig_ns}, instance.co<i>.{ns,
 * ambig_ns}, feature.sched.{ns,ambig_ns}, switches.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

/* fsp-bpf follows swapcontext for ABI v1 marks only (usdt/README.md): this
 * workload checks that, also among the ABI v2 workloads; test_v2 checks what
 * ABI v2 marks do in coroutines. */
#ifndef FSP_ABI_V1
#define FSP_ABI_V1
#endif

#include "fsp.h"
#include "wl_common.h"

#define US 1000ULL
#define NCO 4
#define CO_STACK (64 * 1024)

static const char *const names[NCO] = {"co0", "co1", "co2", "co3"};
static ucontext_t sched_ctx, co_ctx[NCO];
static struct wl_acc inst[NCO], sched;
static uint64_t switches, rng = 0x9e3779b97f4a7c15ULL;

/* Switches to the scheduler and back: returns the thread CPU time spent away
 * (the scheduler, the other coroutines, and the two switches themselves). */
static uint64_t yield(int i)
{
	uint64_t t0 = wl_thread_ns();

	switches++;
	if (swapcontext(&co_ctx[i], &sched_ctx))
		wl_die("swapcontext: %m");
	return wl_thread_ns() - t0;
}

static void coroutine(int i)
{
	for (;;) {
		uint64_t a, b, c, d, away;

		a = wl_thread_ns();
		FSP_MARK_ENTER("coro", names[i], 0);
		b = wl_thread_ns();
		wl_burn((i + 1) * wl_rand_range(&rng, 200 * US, 400 * US));
		away = yield(i);
		wl_burn((i + 1) * wl_rand_range(&rng, 200 * US, 400 * US));
		c = wl_thread_ns();
		FSP_MARK_LEAVE("coro", names[i], 0);
		d = wl_thread_ns();
		/* [b, c] minus the time away: this coroutine's CPU time in its
		 * mark. The switches' own few microseconds are left out of it
		 * (the test allows for them: "switches"). */
		wl_acc_span(&inst[i], a, b, c - away, d - away);
		yield(i);
	}
}

int main(int argc, char **argv)
{
	uint64_t ms, start;
	struct wl_acc all = {0, 0};
	char key[64];
	FILE *f;

	if (argc != 3)
		wl_die("usage: wl_coro TRUTH MS");
	ms = wl_arg_u64(argv[2], "MS");
	for (int i = 0; i < NCO; i++) {
		if (getcontext(&co_ctx[i]))
			wl_die("getcontext: %m");
		co_ctx[i].uc_stack.ss_sp = malloc(CO_STACK);
		co_ctx[i].uc_stack.ss_size = CO_STACK;
		co_ctx[i].uc_link = NULL;
		if (!co_ctx[i].uc_stack.ss_sp)
			wl_die("malloc failed");
		makecontext(&co_ctx[i], (void (*)(void))coroutine, 1, i);
	}
	start = wl_thread_ns();
	while (wl_thread_ns() - start < ms * WL_NS_PER_MS) {
		for (int i = 0; i < NCO; i++) {
			uint64_t a, b, c, d;

			a = wl_thread_ns();
			FSP_MARK_ENTER("sched", "loop", 0);
			b = wl_thread_ns();
			c = wl_burn(wl_rand_range(&rng, 100 * US, 200 * US));
			FSP_MARK_LEAVE("sched", "loop", 0);
			d = wl_thread_ns();
			wl_acc_span(&sched, a, b, c, d);
			switches++;
			if (swapcontext(&sched_ctx, &co_ctx[i]))
				wl_die("swapcontext: %m");
		}
	}

	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	for (int i = 0; i < NCO; i++) {
		snprintf(key, sizeof(key), "instance.%s", names[i]);
		wl_out_acc(f, key, &inst[i]);
		wl_acc_add(&all, &inst[i]);
	}
	wl_out_acc(f, "feature.coro", &all);
	wl_out_acc(f, "feature.sched", &sched);
	wl_out_u64(f, "switches", switches);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
