// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cpu_work - a CPU-bound target with few marks and a fixed amount of work,
 * for measuring what sampling costs the profiled program.
 *
 *   cpu_work [-u UNITS] [-n ITERATIONS] [-a] [-s SECONDS]
 *
 * UNITS times (default 100), one mark encloses ITERATIONS (default 10000000)
 * steps of an xorshift generator that also updates a 256 KiB table, so the
 * work touches L2 as well as registers; about 15 ms per unit, 200 probe hits
 * in all. The program times the work alone (CLOCK_MONOTONIC, and its own CPU
 * time), and each unit, and prints, for machines:
 *   cpu_work: seconds=X cpu_seconds=Y unit_ns=M units=U iterations=N attached=0|1
 * unit_ns is the median time of a unit: a sampler's cost is spread evenly
 * over the units, while another process taking the CPU for a while or an
 * interrupt storm hits only some of them, so the median resists that noise
 * better than the total.
 *
 *   -a  wait (up to 30 s) until fsp:mark_enter and fsp:mark_leave are attached
 *       (their USDT semaphores raised) before the work; exit 3 if they never are
 *
 * Before the work it prints "cpu_work: pid P working" and sleeps 0.2 s (-s:
 * SECONDS, e.g. for a profiler to attach with -p), with or without -a, so
 * that both conditions start alike.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bench_attached.h"
#include "fsp.h"

#define TABLE_SIZE (1u << 15) /* 8-byte entries: 256 KiB */
#define MAX_UNITS 100000

static uint64_t table[TABLE_SIZE];
static double unit_ns[MAX_UNITS];

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __attribute__((noinline)) uint64_t work(uint64_t n, uint64_t x)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		table[x & (TABLE_SIZE - 1)] += x;
	}
	return x;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-u UNITS] [-n ITERATIONS] [-a] [-s SECONDS]\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t n = 10000000, x = 88172645463325252u, u;
	double t0, c0, t1, c1, tu, med;
	int units = 100, wait_attach = 0, opt;
	double delay_s = 0.2;

	while ((opt = getopt(argc, argv, "u:n:as:")) != -1) {
		switch (opt) {
		case 'u':
			units = atoi(optarg);
			break;
		case 'n':
			n = strtoull(optarg, NULL, 10);
			break;
		case 'a':
			wait_attach = 1;
			break;
		case 's':
			delay_s = atof(optarg);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (units < 1 || units > MAX_UNITS || n == 0 || optind != argc || !(delay_s >= 0) ||
	    delay_s > 60)
		usage(argv[0]);
	if (wait_attach) {
		int i;

		for (i = 0; i < 3000 && !bench_attached(); i++)
			usleep(10000);
		if (!bench_attached()) {
			fprintf(stderr, "cpu_work: fsp:mark_enter/leave never attached\n");
			return 3;
		}
	}
	printf("cpu_work: pid %d working\n", (int)getpid());
	fflush(stdout);
	usleep((useconds_t)(delay_s * 1e6));

	t0 = clock_s(CLOCK_MONOTONIC);
	c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	tu = t0;
	for (u = 0; u < (uint64_t)units; u++) {
		double t;

		FSP_MARK_ENTER("bench", "cpu_work unit", 0);
		x = work(n, x);
		FSP_MARK_LEAVE("bench", "cpu_work unit", 0);
		t = clock_s(CLOCK_MONOTONIC);
		unit_ns[u] = (t - tu) * 1e9;
		tu = t;
	}
	t1 = tu;
	c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	qsort(unit_ns, (size_t)units, sizeof(unit_ns[0]), cmp_double);
	med = units % 2 ? unit_ns[units / 2] : (unit_ns[units / 2 - 1] + unit_ns[units / 2]) / 2;
	printf("cpu_work: seconds=%.6f cpu_seconds=%.6f unit_ns=%.0f units=%d iterations=%llu "
	       "attached=%d\n",
	       t1 - t0, c1 - c0, med, units, (unsigned long long)n, bench_attached());
	return x == 0; /* use x; an xorshift state is never 0 */
}
