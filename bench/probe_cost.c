// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * probe_cost - what one fsp probe hit costs with a tool attached.
 *
 *   probe_cost [-n ITERATIONS] [-r REPS] [-g] [-a]
 *
 * Each iteration is FSP_MARK_ENTER; a one-store body; FSP_MARK_LEAVE, so two
 * probe hits per iteration. The timed loop runs REPS times (after one warm-up
 * run of a tenth of the iterations); each run's ns per probe hit is printed
 * and the last line, for machines, is
 *   probe_cost: ns_per_hit=X min_ns_per_hit=Y reps=R iterations=N attached=0|1
 *               cpu_seconds=C
 * with the median and minimum over the runs and the CPU time of the whole
 * process (for checking a sampler's sample count against it). ns_per_hit is (run time) /
 * (2 * ITERATIONS): with nobody attached it is the loop's own cost per half
 * iteration, the baseline that bench/run.sh subtracts.
 *
 *   -g  wait for SIGUSR1 before the timed runs (prints "probe_cost: pid P waiting")
 *   -a  wait (up to 30 s) until both fsp:mark_enter and fsp:mark_leave are
 *       attached (their USDT semaphores raised), then 0.2 s more, before the
 *       timed runs; exit 3 if they never are
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_attached.h"
#include "fsp.h"

#define MAX_REPS 101

static volatile uint64_t sink;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static __attribute__((noinline)) void loop(uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		FSP_MARK_ENTER("bench", "site", 0);
		sink = i;
		FSP_MARK_LEAVE("bench", "site", 0);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-n ITERATIONS] [-r REPS] [-g] [-a]\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	static double per_hit[MAX_REPS];
	uint64_t n = 500000;
	int reps = 5, go = 0, wait_attach = 0, opt, r;
	struct timespec cpu;
	double med;

	while ((opt = getopt(argc, argv, "n:r:ga")) != -1) {
		switch (opt) {
		case 'n':
			n = strtoull(optarg, NULL, 10);
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 'g':
			go = 1;
			break;
		case 'a':
			wait_attach = 1;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (n == 0 || reps < 1 || reps > MAX_REPS || optind != argc)
		usage(argv[0]);

	if (go) {
		sigset_t set;
		int sig;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		printf("probe_cost: pid %d waiting\n", (int)getpid());
		fflush(stdout);
		sigwait(&set, &sig);
	}
	if (wait_attach) {
		int i;

		for (i = 0; i < 3000 && !bench_attached(); i++)
			usleep(10000);
		if (!bench_attached()) {
			fprintf(stderr, "probe_cost: fsp:mark_enter/leave never attached\n");
			return 3;
		}
		usleep(200000);
	}

	loop(n / 10); /* warm up */
	for (r = 0; r < reps; r++) {
		double t0 = now_ns();

		loop(n);
		per_hit[r] = (now_ns() - t0) / (2.0 * (double)n);
		printf("probe_cost: run %d: %.2f ns per probe hit\n", r, per_hit[r]);
		fflush(stdout); /* bench/run.sh watches for these lines */
	}
	qsort(per_hit, (size_t)reps, sizeof(per_hit[0]), cmp_double);
	med = reps % 2 ? per_hit[reps / 2] : (per_hit[reps / 2 - 1] + per_hit[reps / 2]) / 2;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
	printf("probe_cost: ns_per_hit=%.3f min_ns_per_hit=%.3f reps=%d iterations=%llu "
	       "attached=%d cpu_seconds=%.6f\n",
	       med, per_hit[0], reps, (unsigned long long)n, bench_attached(),
	       cpu.tv_sec + cpu.tv_nsec / 1e9);
	return 0;
}
