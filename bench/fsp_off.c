// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fsp_off - what a mark costs when no profiler is attached.
 *
 *   fsp_off [-n ITERATIONS] [-r REPS]   measure (defaults: 20000000, 11)
 *   fsp_off --spin SECONDS              run the marked loop for SECONDS of wall
 *                                       time, e.g. to attach fsp-bpf to it, and
 *                                       report its speed
 *
 * The same small loop body (an xorshift step stored to a volatile) runs
 *   base     with no marks,
 *   marked   between FSP_MARK_ENTER and FSP_MARK_LEAVE,
 *   costly   the same, with a payload expression that would cost ~100 ns;
 * and a store-only body runs without and with marks. The variants run
 * interleaved, REPS times each, and the median per iteration is reported;
 * marked - base is the cost of one enter+leave pair with nobody attached (two
 * semaphore loads and two not-taken branches), and costly = marked shows that
 * the payload is not evaluated. The xorshift body is latency-bound, so an
 * out-of-order core hides the marks almost entirely; the store-only body is
 * throughput-bound and shows their instruction cost. The last line is for
 * machines:
 *   fsp_off: base_ns=X marked_ns=Y overhead_ns=Z costly_ns=W store_base_ns=..
 *            store_marked_ns=.. store_overhead_ns=..
 * In --spin mode, with a profiler attached, the difference to base_ns is the
 * attached cost of a mark pair; the last line is then
 *   fsp_off_spin: seconds=S iterations=N ns_per_iteration=X attached=0|1
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fsp.h"

#define MAX_REPS 101

static volatile uint64_t sink;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline uint64_t xorshift(uint64_t x)
{
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

static __attribute__((noinline)) uint64_t loop_base(uint64_t n, uint64_t x)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		x = xorshift(x);
		sink = x;
	}
	return x;
}

static __attribute__((noinline)) uint64_t loop_marked(uint64_t n, uint64_t x)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		FSP_MARK_ENTER("bench", "fsp_off", i);
		x = xorshift(x);
		sink = x;
		FSP_MARK_LEAVE("bench", "fsp_off", i);
	}
	return x;
}

/* A payload that takes ~100 ns to compute, if anyone computed it. */
static __attribute__((noinline)) uint64_t costly_payload(uint64_t x)
{
	int i;

	for (i = 0; i < 100; i++)
		x = xorshift(x) + (uint64_t)i;
	return x;
}

static __attribute__((noinline)) uint64_t loop_costly(uint64_t n, uint64_t x)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		FSP_MARK_ENTER("bench", "fsp_off costly", costly_payload(x));
		x = xorshift(x);
		sink = x;
		FSP_MARK_LEAVE("bench", "fsp_off costly", 0);
	}
	return x;
}

/* The smallest body: one store. Throughput-bound, so extra instructions show. */
static __attribute__((noinline)) void loop_store(uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		sink = i;
}

static __attribute__((noinline)) void loop_store_marked(uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		FSP_MARK_ENTER("bench", "fsp_off store", i);
		sink = i;
		FSP_MARK_LEAVE("bench", "fsp_off store", i);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int spin(double seconds)
{
	const uint64_t chunk = 4096; /* ~6 us unattached, ~15 ms attached */
	double t0 = now_ns(), t;
	uint64_t iters = 0, x = 88172645463325252u;
	int attached = 0;

	printf("fsp_off: pid %d spinning for %.1f s in marked loop (fsp:mark_enter/leave "
	       "each iteration)\n",
	       (int)getpid(), seconds);
	fflush(stdout);
	do {
		x = loop_marked(chunk, x);
		iters += chunk;
		attached |= FSP_ENABLED() != 0;
		t = now_ns();
	} while (t - t0 < seconds * 1e9);
	printf("fsp_off_spin: seconds=%.3f iterations=%llu ns_per_iteration=%.3f attached=%d\n",
	       (t - t0) / 1e9, (unsigned long long)iters, (t - t0) / (double)iters, attached);
	return 0;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-n ITERATIONS] [-r REPS] | --spin SECONDS\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	static double base[MAX_REPS], marked[MAX_REPS], costly[MAX_REPS];
	static double store[MAX_REPS], store_marked[MAX_REPS];
	uint64_t n = 20000000, x = 88172645463325252u;
	double b, m, c, sb, sm;
	int reps = 11, r, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--spin") && i + 1 < argc)
			return spin(atof(argv[++i]));
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-r") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else
			usage(argv[0]);
	}
	if (n == 0 || reps < 1 || reps > MAX_REPS)
		usage(argv[0]);
	if (FSP_ENABLED())
		fprintf(stderr, "fsp_off: warning: a profiler is attached; this measures the "
				"attached cost\n");

	x = loop_marked(n / 10, loop_base(n / 10, x)); /* warm up */
	for (r = 0; r < reps; r++) {
		/* Interleaved, rotating the order so no variant always runs first. */
		for (i = 0; i < 5; i++) {
			double t0 = now_ns();

			switch ((r + i) % 5) {
			case 0:
				x = loop_base(n, x);
				base[r] = (now_ns() - t0) / (double)n;
				break;
			case 1:
				x = loop_marked(n, x);
				marked[r] = (now_ns() - t0) / (double)n;
				break;
			case 2:
				x = loop_costly(n, x);
				costly[r] = (now_ns() - t0) / (double)n;
				break;
			case 3:
				loop_store(n);
				store[r] = (now_ns() - t0) / (double)n;
				break;
			default:
				loop_store_marked(n);
				store_marked[r] = (now_ns() - t0) / (double)n;
				break;
			}
		}
	}
	b = median(base, reps);
	m = median(marked, reps);
	c = median(costly, reps);
	sb = median(store, reps);
	sm = median(store_marked, reps);

	printf("fsp_off: median of %d interleaved reps x %llu iterations, ns per iteration\n", reps,
	       (unsigned long long)n);
	printf("  base (no marks)                        %7.3f\n", b);
	printf("  marked, nobody attached                %7.3f  (+%.3f ns per enter+leave)\n", m,
	       m - b);
	printf("  marked, ~100 ns payload, not attached  %7.3f  (payload not evaluated)\n", c);
	printf("  store-only body, no marks              %7.3f\n", sb);
	printf("  store-only body, marked                %7.3f  (+%.3f ns per enter+leave)\n", sm,
	       sm - sb);
	printf("fsp_off: base_ns=%.3f marked_ns=%.3f overhead_ns=%.3f costly_ns=%.3f "
	       "store_base_ns=%.3f store_marked_ns=%.3f store_overhead_ns=%.3f\n",
	       b, m, m - b, c, sb, sm, sm - sb);
	return x == 0; /* use x; an xorshift state is never 0 */
}
