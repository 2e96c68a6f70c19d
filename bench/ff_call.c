// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ff_call - what one call of a function feature's function costs (bench/ffevents.sh).
 *
 *   ff_call [-n CALLS] [-r REPS]
 *
 * Times CALLS calls of ff_bench_fn() (a noinline function of a few
 * instructions), REPS times after a warm-up of a tenth; prints each run's ns
 * per call and, last, "ff_call: ns_per_call=X min_ns_per_call=Y reps=R calls=N"
 * (median and minimum over the runs). Launched under fsp-bpf, it runs once
 * its probes are attached (the command is held until then).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REPS 101

static volatile uint64_t sink;

__attribute__((noinline, used)) uint64_t ff_bench_fn(uint64_t x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double run(uint64_t n)
{
	double t = now_ns();
	uint64_t x = 1;

	for (uint64_t i = 0; i < n; i++)
		x = ff_bench_fn(x);
	sink = x;
	return (now_ns() - t) / (double)n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	uint64_t n = 200000;
	double ns[MAX_REPS];
	int reps = 5;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-n"))
			n = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "-r"))
			reps = atoi(argv[i + 1]);
	}
	if (!n || reps < 1 || reps > MAX_REPS) {
		fprintf(stderr, "usage: ff_call [-n CALLS] [-r REPS (1-%d)]\n", MAX_REPS);
		return 64;
	}
	run(n / 10 + 1);
	for (int r = 0; r < reps; r++) {
		ns[r] = run(n);
		printf("ff_call: run %d: %.2f ns per call\n", r, ns[r]);
	}
	qsort(ns, reps, sizeof(ns[0]), cmp_double);
	printf("ff_call: ns_per_call=%.2f min_ns_per_call=%.2f reps=%d calls=%llu\n", ns[reps / 2],
	       ns[0], reps, (unsigned long long)n);
	return 0;
}
