// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_signals - marks made by signal handlers and by a coroutine, for the
 * documented behaviour of the mark stacks there.
 *
 *   wl_signals TRUTH MS MODE    run cycles for MS ms of CPU time
 *
 * MODE handler or altstack: cycles of "main" (instance "work", 2 ms) and 1 ms
 * unmarked; a CPU-time timer of the thread sends it SIGUSR1 every 1 ms of its
 * CPU time (in practice at the kernel's tick), whose handler marks "handler" (instance "tick") around 400 us of
 * work; altstack runs the handler on an alternate signal stack (sigaltstack,
 * a heap buffer). The handler's time while the thread is inside "main" counts
 * for both features, as a call from inside "main" would.
 *
 * MODE coroutine: a coroutine on its own heap stack (makecontext/swapcontext)
 * marks "coro" (instance "gen") around two 1 ms spans, yielding to the main
 * context between them; the main context marks "main" around 1 ms of its own
 * between the coroutine's spans, then runs 1 ms unmarked.
 *
 * Truth keys: cpu_total_ns, cycles, feature.<f>.{ns,ambig_ns} for main,
 * handler and coro (thread CPU time of each context inside its mark; see
 * wl_common.h), signals, skipped (handler calls whose marks the header did
 * not record: the signal came in the middle of one of main's marks).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "fsp.h"
#include "wl_common.h"

#define US 1000ULL
#define CORO_STACK (256 * 1024)

static struct wl_acc main_acc, handler_acc, coro_acc;
static volatile uint64_t signals;
static uint64_t skipped;
static ucontext_t main_ctx, coro_ctx;

static void spin(uint64_t ns)
{
	uint64_t t0 = wl_thread_ns();

	while (wl_thread_ns() - t0 < ns)
		;
}

static void on_tick(int sig)
{
	uint64_t a, b, c, d;
#ifndef FSP_ABI_V1
	uint64_t before = fsp__v2_self ? fsp__v2_self->skipped : 0;
#endif

	(void)sig;
	a = wl_thread_ns();
	FSP_MARK_ENTER("handler", "tick", 0);
	b = wl_thread_ns();
	spin(400 * US);
	c = wl_thread_ns();
	FSP_MARK_LEAVE("handler", "tick", 0);
	d = wl_thread_ns();
#ifndef FSP_ABI_V1
	if (fsp__v2_self && fsp__v2_self->skipped != before) {
		skipped++; /* not in a mark: no truth for "handler" */
		signals++;
		return;
	}
#endif
	wl_acc_span(&handler_acc, a, b, c, d);
	signals++;
}

static void start_ticks(bool altstack)
{
	struct sigaction sa = {.sa_handler = on_tick, .sa_flags = SA_RESTART};
	struct sigevent sev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGUSR1};
	struct itimerspec its = {{0, 1000000}, {0, 1000000}};
	timer_t timer;

	if (altstack) {
		stack_t ss = {.ss_sp = malloc(SIGSTKSZ * 8), .ss_size = SIGSTKSZ * 8};

		if (!ss.ss_sp || sigaltstack(&ss, NULL))
			wl_die("sigaltstack failed");
		sa.sa_flags |= SA_ONSTACK;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &timer) ||
	    timer_settime(timer, 0, &its, NULL))
		wl_die("timer_create failed");
}

static void signal_cycle(void)
{
	uint64_t a, b, c, d;

	a = wl_thread_ns();
	FSP_MARK_ENTER("main", "work", 0);
	b = wl_thread_ns();
	c = wl_burn(2000 * US);
	FSP_MARK_LEAVE("main", "work", 0);
	d = wl_thread_ns();
	wl_acc_span(&main_acc, a, b, c, d);
	wl_burn(1000 * US);
}

/* The coroutine: "coro" around two spans, yielding between and after. */
static void coroutine(void)
{
	for (;;) {
		uint64_t a, b, c, d, y0, y1;

		a = wl_thread_ns();
		FSP_MARK_ENTER("coro", "gen", 0);
		b = wl_thread_ns();
		wl_burn(1000 * US);
		y0 = wl_thread_ns();
		swapcontext(&coro_ctx, &main_ctx);
		y1 = wl_thread_ns();
		c = wl_burn(1000 * US);
		FSP_MARK_LEAVE("coro", "gen", 0);
		d = wl_thread_ns();
		/* Its mark spans the main context's turn: not its time. */
		wl_acc_span(&coro_acc, a, b, c, d);
		coro_acc.ns -= y1 - y0;
		swapcontext(&coro_ctx, &main_ctx);
	}
}

static void coroutine_cycle(void)
{
	uint64_t a, b, c, d;

	swapcontext(&main_ctx, &coro_ctx); /* the coroutine's first span */
	a = wl_thread_ns();
	FSP_MARK_ENTER("main", "work", 0);
	b = wl_thread_ns();
	c = wl_burn(1000 * US);
	FSP_MARK_LEAVE("main", "work", 0);
	d = wl_thread_ns();
	wl_acc_span(&main_acc, a, b, c, d);
	swapcontext(&main_ctx, &coro_ctx); /* its second span */
	wl_burn(1000 * US);
}

int main(int argc, char **argv)
{
	/* volatile: swapcontext returns twice, as setjmp does */
	volatile uint64_t cycles = 0;
	uint64_t ms, start;
	bool coro;
	FILE *f;

	if (argc != 4 || (strcmp(argv[3], "handler") && strcmp(argv[3], "altstack") &&
			  strcmp(argv[3], "coroutine")))
		wl_die("usage: wl_signals TRUTH MS handler|altstack|coroutine");
	ms = wl_arg_u64(argv[2], "MS");
	coro = !strcmp(argv[3], "coroutine");
	if (coro) {
		getcontext(&coro_ctx);
		coro_ctx.uc_stack.ss_sp = malloc(CORO_STACK);
		coro_ctx.uc_stack.ss_size = CORO_STACK;
		coro_ctx.uc_link = NULL;
		if (!coro_ctx.uc_stack.ss_sp)
			wl_die("out of memory");
		makecontext(&coro_ctx, coroutine, 0);
	} else {
		start_ticks(!strcmp(argv[3], "altstack"));
	}
	start = wl_thread_ns();
	while (wl_thread_ns() - start < ms * WL_NS_PER_MS) {
		if (coro)
			coroutine_cycle();
		else
			signal_cycle();
		cycles++;
	}
	signal(SIGUSR1, SIG_IGN);
	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_u64(f, "cycles", cycles);
	wl_out_acc(f, "feature.main", &main_acc);
	wl_out_acc(f, "feature.handler", &handler_acc);
	wl_out_acc(f, "feature.coro", &coro_acc);
	wl_out_u64(f, "signals", signals);
	wl_out_u64(f, "skipped", skipped);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
