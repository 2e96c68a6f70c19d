// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_events - known counts, durations and sleeps, for the event view
 * (exact enter/leave counts and durations) and for --off-cpu.
 *
 *   wl_events TRUTH [COUNT [BUSY [SLEEPS]]]
 *
 * Phases, one thread, in order:
 *   ev_count   COUNT empty marks of instance "empty", and COUNT / 10 with a
 *              NULL instance (default COUNT 100000)
 *   ev_busy    BUSY marks of instance "20us", each spinning 20 us of wall time
 *              (default BUSY 10000)
 *   ev_anti    BUSY / 10 marks of instance "outer": 10 us, an antimark of
 *              ev_anti around 30 us, 10 us; so 20 us each is the feature's
 *   ev_sleep   SLEEPS marks of instance "5ms", each around usleep(5000)
 *   ev_pipe    SLEEPS / 4 marks of instance "slow-reader", each around the
 *              write of 64 KiB to a full pipe that a reader thread (unmarked)
 *              drains by 64 KiB every 5 ms: the writes block
 *              (default SLEEPS 100)
 *   ev_stale   1000 marks of instance "leaky" entered by a function that
 *              returns without leaving them: entered, never left (dropped as
 *              stale by the next probe, a mark of instance "main")
 *
 * Truth keys, per phase P (wall-clock CLOCK_MONOTONIC, see wl_common.h on the
 * ambiguous time of the probe brackets):
 *   P.enters, P.leaves    what the probes must count
 *   P.ns, P.ambig_ns      time inside the marks (minus antimarks), brackets
 *   ev_count_null.enters  the NULL-instance marks
 *   ev_sleep.slept_ns     time in usleep() inside the marks (wall clock)
 *   ev_sleep.cpu_ns       thread CPU time over the same spans: slept_ns - cpu_ns
 *                         is the off-CPU time [ev_sleep 5ms] must get with --off-cpu
 *   ev_pipe.wall_ns, ev_pipe.cpu_ns   wall-clock and thread CPU time inside the
 *                         ev_pipe marks: wall - cpu is the time blocked
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsp.h"
#include "wl_common.h"

struct phase {
	uint64_t enters, leaves;
	struct wl_acc acc;
};

static void spin_wall(uint64_t ns)
{
	uint64_t t0 = wl_mono_ns();

	while (wl_mono_ns() - t0 < ns)
		;
}

/* Enters a mark in this frame and returns without leaving it. */
static __attribute__((noinline)) void leaky(void)
{
	FSP_MARK_ENTER("ev_stale", "leaky", 0);
	__asm__ __volatile__("" ::: "memory");
}

#define PIPE_CHUNK (64 * 1024)

static int pipefd[2];

/* Drains the pipe slowly: 64 KiB, then 5 ms asleep, until the writer closes. */
static void *slow_reader(void *arg)
{
	static char buf[PIPE_CHUNK];

	(void)arg;
	while (read(pipefd[0], buf, sizeof(buf)) > 0)
		usleep(5000);
	return NULL;
}

/* n blocking writes of 64 KiB, each inside an ev_pipe mark. */
static void pipe_phase(struct phase *pp, uint64_t n, uint64_t *wall, uint64_t *cpu)
{
	static char buf[PIPE_CHUNK];
	uint64_t a, b, c, d, tb, tc;
	pthread_t th;

	if (pipe(pipefd) || pthread_create(&th, NULL, slow_reader, NULL))
		wl_die("pipe/pthread_create: %s", strerror(errno));
	memset(buf, 'x', sizeof(buf));
	for (uint64_t i = 0; i < n; i++) {
		size_t done = 0;

		a = wl_mono_ns();
		FSP_MARK_ENTER("ev_pipe", "slow-reader", 0);
		b = wl_mono_ns();
		tb = wl_thread_ns();
		while (done < sizeof(buf)) {
			ssize_t w = write(pipefd[1], buf + done, sizeof(buf) - done);

			if (w < 0 && errno != EINTR)
				wl_die("write: %s", strerror(errno));
			done += w > 0 ? (size_t)w : 0;
		}
		tc = wl_thread_ns();
		c = wl_mono_ns();
		FSP_MARK_LEAVE("ev_pipe", "slow-reader", 0);
		d = wl_mono_ns();
		wl_acc_span(&pp->acc, a, b, c, d);
		*wall += c - b;
		*cpu += tc - tb;
	}
	pp->enters = pp->leaves = n;
	close(pipefd[1]);
	pthread_join(th, NULL);
	close(pipefd[0]);
}

static void out_phase(FILE *f, const char *name, const struct phase *p)
{
	char key[64];

	snprintf(key, sizeof(key), "%s.enters", name);
	wl_out_u64(f, key, p->enters);
	snprintf(key, sizeof(key), "%s.leaves", name);
	wl_out_u64(f, key, p->leaves);
	wl_out_acc(f, name, &p->acc);
	printf("%-10s enters %8llu leaves %8llu ns %12llu ambig_ns %10llu\n", name,
	       (unsigned long long)p->enters, (unsigned long long)p->leaves,
	       (unsigned long long)p->acc.ns, (unsigned long long)p->acc.ambig_ns);
}

int main(int argc, char **argv)
{
	uint64_t count = argc > 2 ? wl_arg_u64(argv[2], "COUNT") : 100000;
	uint64_t busy = argc > 3 ? wl_arg_u64(argv[3], "BUSY") : 10000;
	uint64_t sleeps = argc > 4 ? wl_arg_u64(argv[4], "SLEEPS") : 100;
	struct phase pc = {0}, pb = {0}, pa = {0}, ps = {0}, pl = {0}, pp = {0};
	uint64_t pipe_wall = 0, pipe_cpu = 0, sleep_cpu = 0, tb;
	uint64_t a, b, c, d, slept = 0, i, null_enters = 0;
	FILE *f;

	if (argc < 2 || argc > 5)
		wl_die("usage: wl_events TRUTH [COUNT [BUSY [SLEEPS]]]");

	for (i = 0; i < count; i++) {
		a = wl_mono_ns();
		FSP_MARK_ENTER("ev_count", "empty", 0);
		b = wl_mono_ns();
		c = wl_mono_ns();
		FSP_MARK_LEAVE("ev_count", "empty", 0);
		d = wl_mono_ns();
		wl_acc_span(&pc.acc, a, b, c, d);
	}
	pc.enters = pc.leaves = count;
	for (i = 0; i < count / 10; i++) {
		FSP_MARK_ENTER("ev_count", NULL, 0);
		FSP_MARK_LEAVE("ev_count", NULL, 0);
	}
	null_enters = count / 10;

	for (i = 0; i < busy; i++) {
		a = wl_mono_ns();
		FSP_MARK_ENTER("ev_busy", "20us", 0);
		b = wl_mono_ns();
		spin_wall(20000);
		c = wl_mono_ns();
		FSP_MARK_LEAVE("ev_busy", "20us", 0);
		d = wl_mono_ns();
		wl_acc_span(&pb.acc, a, b, c, d);
	}
	pb.enters = pb.leaves = busy;

	for (i = 0; i < busy / 10; i++) {
		uint64_t aa, ab, ac, ad;

		a = wl_mono_ns();
		FSP_MARK_ENTER("ev_anti", "outer", 0);
		b = wl_mono_ns();
		spin_wall(10000);
		aa = wl_mono_ns();
		FSP_ANTIMARK_ENTER("ev_anti");
		ab = wl_mono_ns();
		spin_wall(30000);
		ac = wl_mono_ns();
		FSP_ANTIMARK_LEAVE("ev_anti");
		ad = wl_mono_ns();
		spin_wall(10000);
		c = wl_mono_ns();
		FSP_MARK_LEAVE("ev_anti", "outer", 0);
		d = wl_mono_ns();
		wl_acc_span(&pa.acc, a, b, c, d);
		wl_acc_unspan(&pa.acc, aa, ab, ac, ad);
	}
	pa.enters = pa.leaves = busy / 10;

	for (i = 0; i < sleeps; i++) {
		a = wl_mono_ns();
		FSP_MARK_ENTER("ev_sleep", "5ms", 0);
		b = wl_mono_ns();
		tb = wl_thread_ns();
		usleep(5000);
		sleep_cpu += wl_thread_ns() - tb;
		c = wl_mono_ns();
		FSP_MARK_LEAVE("ev_sleep", "5ms", 0);
		d = wl_mono_ns();
		wl_acc_span(&ps.acc, a, b, c, d);
		slept += c - b;
	}
	ps.enters = ps.leaves = sleeps;
	pipe_phase(&pp, sleeps / 4, &pipe_wall, &pipe_cpu);

	/* A probe in this frame, above leaky()'s, drops its mark each time (the
	 * next leaky() call alone could not tell: same stack pointer). */
	for (i = 0; i < 1000; i++) {
		leaky();
		FSP_MARK_ENTER("ev_stale", "main", 0);
		FSP_MARK_LEAVE("ev_stale", "main", 0);
	}
	pl.enters = 1000;

	f = wl_out_open(argv[1]);
	out_phase(f, "ev_count", &pc);
	wl_out_u64(f, "ev_count_null.enters", null_enters);
	out_phase(f, "ev_busy", &pb);
	out_phase(f, "ev_anti", &pa);
	out_phase(f, "ev_sleep", &ps);
	out_phase(f, "ev_stale", &pl);
	wl_out_u64(f, "ev_sleep.slept_ns", slept);
	wl_out_u64(f, "ev_sleep.cpu_ns", sleep_cpu);
	out_phase(f, "ev_pipe", &pp);
	wl_out_u64(f, "ev_pipe.wall_ns", pipe_wall);
	wl_out_u64(f, "ev_pipe.cpu_ns", pipe_cpu);
	printf("ev_sleep.slept_ns %llu\n", (unsigned long long)slept);
	return wl_out_close(f, argv[1]) ? 3 : 0;
}
