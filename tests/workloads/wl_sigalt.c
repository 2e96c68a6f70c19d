// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_sigalt - a signal handler with its own mark, running on an alternate
 * signal stack that lies just above the interrupted thread's stack.
 *
 *   wl_sigalt TRUTH MS   a worker thread runs cycles for MS ms of its CPU time
 *
 * The alternate stack is mapped before the worker is created, so that the
 * worker's stack (mapped next, top-down) ends right below it: the handler's
 * stack pointer is above the interrupted code's, a few KiB away, as if the
 * interrupted code had returned. One cycle of the worker:
 *
 *   enter "outer"; 2-4 ms of work; leave "outer"; 1-2 ms unmarked
 *
 * A timer (CLOCK_MONOTONIC, signalling the worker thread) interrupts it about
 * every millisecond; the handler, on the alternate stack, runs "handler" for
 * about 150 us and re-arms the timer 0.5-1.5 ms later (a jittered period: a
 * fixed one would beat against the profiler's sampling period, and the
 * samples would see the handler at a few phases only):
 *
 *   enter "handler"; 150 us of work; leave "handler"
 *
 * The handler is nested in whatever it interrupted, so a handler that lands in
 * "outer" is charged to both features; its time is in "outer"'s truth because
 * the worker's CPU clock runs on in the handler.
 *
 * Truth keys: cpu_total_ns, feature.{outer,handler}.{ns,ambig_ns}, signals,
 * alt_gap (bytes between the worker's stack top and the alternate stack).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fsp.h"
#include "wl_common.h"

#define US 1000ULL
#define ALT_SIZE (256 * 1024)

static struct wl_acc outer, handler;
static volatile uint64_t signals;
static void *alt;
static uint64_t ms, alt_gap, tick_rng = 0x853c49e6748fea9bULL;
static timer_t tick;

/* Arms the timer to fire once, 0.5-1.5 ms from now. */
static void tick_arm(void)
{
	struct itimerspec its = {.it_value = {0, wl_rand_range(&tick_rng, 500 * US, 1500 * US)}};

	if (timer_settime(tick, 0, &its, NULL))
		wl_die("timer_settime: %m");
}

static void on_tick(int sig)
{
	uint64_t a, b, c, d;

	(void)sig;
	a = wl_thread_ns();
	FSP_MARK_ENTER("handler", "on_tick", 0);
	b = wl_thread_ns();
	c = wl_burn(150 * US);
	FSP_MARK_LEAVE("handler", "on_tick", 0);
	d = wl_thread_ns();
	wl_acc_span(&handler, a, b, c, d);
	signals++;
	tick_arm();
}

/* The timer (monotonic clock: precise) signalling the calling thread. */
static void tick_start(void)
{
	struct sigevent sev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGPROF};

	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &tick))
		wl_die("timer_create: %m");
	tick_arm();
}

static void *worker(void *arg)
{
	stack_t ss = {.ss_sp = alt, .ss_size = ALT_SIZE};
	uint64_t rng = 0x2545f4914f6cdd1dULL, start;
	pthread_attr_t attr;
	void *stk;
	size_t size;

	(void)arg;
	if (pthread_getattr_np(pthread_self(), &attr) || pthread_attr_getstack(&attr, &stk, &size))
		wl_die("pthread_getattr_np failed");
	pthread_attr_destroy(&attr);
	alt_gap = (uint64_t)((char *)alt - ((char *)stk + size));
	if (sigaltstack(&ss, NULL))
		wl_die("sigaltstack: %m");
	tick_start();
	start = wl_thread_ns();
	while (wl_thread_ns() - start < ms * WL_NS_PER_MS) {
		uint64_t a, b, c, d;

		a = wl_thread_ns();
		FSP_MARK_ENTER("outer", "cycle", 0);
		b = wl_thread_ns();
		c = wl_burn(wl_rand_range(&rng, 2000 * US, 4000 * US));
		FSP_MARK_LEAVE("outer", "cycle", 0);
		d = wl_thread_ns();
		wl_acc_span(&outer, a, b, c, d);
		wl_burn(wl_rand_range(&rng, 1000 * US, 2000 * US));
	}
	timer_delete(tick);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_tick, .sa_flags = SA_ONSTACK | SA_RESTART};
	pthread_t th;
	FILE *f;

	if (argc != 3)
		wl_die("usage: wl_sigalt TRUTH MS");
	ms = wl_arg_u64(argv[2], "MS");
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL))
		wl_die("sigaction: %m");
	/* Mapped first: the worker's stack, mapped next, ends right below it. */
	alt = mmap(NULL, ALT_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (alt == MAP_FAILED)
		wl_die("mmap: %m");
	if (pthread_create(&th, NULL, worker, NULL) || pthread_join(th, NULL))
		wl_die("pthread failed");

	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_acc(f, "feature.outer", &outer);
	wl_out_acc(f, "feature.handler", &handler);
	wl_out_u64(f, "signals", signals);
	wl_out_u64(f, "alt_gap", alt_gap);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
