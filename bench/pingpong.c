// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pingpong - a context-switch-heavy workload, for the cost of --off-cpu.
 *
 *   pingpong [-a] [-i] [-r REPS] ITERATIONS
 *
 * Two threads pass one byte back and forth over two pipes, ITERATIONS round
 * trips per timed run: every round trip blocks and wakes each thread once
 * (two context switches when both run on one CPU, e.g. under taskset -c N).
 * Each write is inside an fsp mark, so the process carries probes and a
 * profiler attaches to it like to any target. Prints per run
 *   pingpong: run R: elapsed_ns=E ns_per_round_trip=X cpu_ns_per_round_trip=C
 * and last, for machines (medians over the runs),
 *   pingpong: elapsed_ns=E ns_per_round_trip=X cpu_ns_per_round_trip=C reps=R
 *             iterations=N attached=0|1
 * C is the CPU time of both threads (CLOCK_PROCESS_CPUTIME_ID), less
 * disturbed than the elapsed time by other programs running on the CPU.
 *
 *   -a  wait (up to 30 s) until fsp:mark_enter and fsp:mark_leave are
 *       attached, then 0.2 s more, before the timed runs; exit 3 if never
 *   -i  each thread also blocks inside the mark (its read before the leave):
 *       every context switch leaves the CPU inside a mark, so --off-cpu
 *       charges every interval and --calls sends its call records at each
 *   -r  timed runs (default 1), after one untimed warm-up of a tenth
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bench_attached.h"
#include "fsp.h"

#define MAX_REPS 101

static int ping[2], pong[2]; /* ping: main -> echo thread; pong: back */
static int inside; /* -i: the read inside the mark too */

static double now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void xfer(int rfd, int wfd, const char *who)
{
	char c = 0;

	FSP_MARK_ENTER("pipe write", who, 0);
	if (write(wfd, &c, 1) != 1) {
		perror("pingpong: write");
		exit(2);
	}
	if (inside && rfd >= 0 && read(rfd, &c, 1) != 1) {
		perror("pingpong: read");
		exit(2);
	}
	FSP_MARK_LEAVE("pipe write", who, 0);
	if (!inside && rfd >= 0 && read(rfd, &c, 1) != 1) {
		perror("pingpong: read");
		exit(2);
	}
}

/* Echoes every byte until main closes the ping pipe. */
static void *echo(void *arg)
{
	char c;

	(void)arg;
	for (;;) {
		ssize_t r;

		if (inside) {
			FSP_MARK_ENTER("pipe read", "pong", 0);
		}
		r = read(ping[0], &c, 1);
		if (inside) {
			FSP_MARK_LEAVE("pipe read", "pong", 0);
		}
		if (r != 1)
			break;
		xfer(-1, pong[1], "pong");
	}
	return NULL;
}

static void round_trips(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		xfer(pong[0], ping[1], "ping");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-a] [-i] [-r REPS] ITERATIONS\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	static double elapsed[MAX_REPS], cpu[MAX_REPS];
	int reps = 1, wait_attach = 0, opt, r;
	pthread_t th;
	double med, cpu_med;
	uint64_t n;

	while ((opt = getopt(argc, argv, "air:")) != -1) {
		switch (opt) {
		case 'a':
			wait_attach = 1;
			break;
		case 'i':
			inside = 1;
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (optind != argc - 1 || reps < 1 || reps > MAX_REPS)
		usage(argv[0]);
	n = strtoull(argv[optind], NULL, 10);
	if (n == 0)
		usage(argv[0]);
	if (pipe(ping) || pipe(pong)) {
		perror("pingpong: pipe");
		return 2;
	}
	if (pthread_create(&th, NULL, echo, NULL)) {
		fprintf(stderr, "pingpong: cannot create a thread\n");
		return 2;
	}
	if (wait_attach) {
		int i;

		for (i = 0; i < 3000 && !bench_attached(); i++)
			usleep(10000);
		if (!bench_attached()) {
			fprintf(stderr, "pingpong: fsp:mark_enter/leave never attached\n");
			return 3;
		}
		usleep(200000);
	}

	round_trips(n / 10 ? n / 10 : 1); /* warm up */
	for (r = 0; r < reps; r++) {
		double t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);

		round_trips(n);
		elapsed[r] = now_ns(CLOCK_MONOTONIC) - t0;
		cpu[r] = now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
		printf("pingpong: run %d: elapsed_ns=%.0f ns_per_round_trip=%.1f "
		       "cpu_ns_per_round_trip=%.1f\n",
		       r, elapsed[r], elapsed[r] / (double)n, cpu[r] / (double)n);
		fflush(stdout);
	}
	close(ping[1]);
	pthread_join(th, NULL);
	qsort(elapsed, (size_t)reps, sizeof(elapsed[0]), cmp_double);
	qsort(cpu, (size_t)reps, sizeof(cpu[0]), cmp_double);
	med = reps % 2 ? elapsed[reps / 2] : (elapsed[reps / 2 - 1] + elapsed[reps / 2]) / 2;
	cpu_med = reps % 2 ? cpu[reps / 2] : (cpu[reps / 2 - 1] + cpu[reps / 2]) / 2;
	printf("pingpong: elapsed_ns=%.0f ns_per_round_trip=%.1f cpu_ns_per_round_trip=%.1f "
	       "reps=%d iterations=%llu attached=%d\n",
	       med, med / (double)n, cpu_med / (double)n, reps, (unsigned long long)n,
	       bench_attached());
	return 0;
}
