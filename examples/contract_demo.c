// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * contract_demo - a program of three components, app, stats and sort, whose
 * calls across components are checked with libcontract (contract.h).
 *
 *   contract_demo [MS]     run for about MS ms of CPU time (default 2000)
 *
 *   sudo fsp-bpf --plugin boundary -- .output/examples/contract_demo
 *   sudo fsp-bpf --plugin boundary --format dot -- .output/examples/contract_demo \
 *	| dot -Tsvg > boundaries.svg
 *
 * app asks stats for the median of a sample: the boundary app->stats checks
 * that the sample is finite; stats sorts a copy through sort, whose
 * boundary stats->sort checks that the result is sorted (a postcondition of
 * a checked call); the sorting itself is sort's own work, not the check's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "contract.h"

#define N 200000

static struct ct_boundary *app_stats, *stats_sort;

struct sort_args {
	int *v;
	size_t n;
};

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int sort_ints(void *arg)
{
	struct sort_args *s = arg;

	qsort(s->v, s->n, sizeof(*s->v), cmp_int);
	return 0;
}

static bool sorted_after(const void *arg, int result)
{
	const struct sort_args *s = arg;

	return result == 0 && ct_require_sorted(stats_sort, s->v, s->n);
}

/* The stats component: the median of v[0..n). */
static double median(const double *v, size_t n, int *scratch)
{
	struct sort_args s = {scratch, n};

	if (!ct_require_finite(app_stats, v, n))
		return 0;
	for (size_t i = 0; i < n; i++)
		scratch[i] = (int)(v[i] * 1000);
	ct_call(stats_sort, "sort", sort_ints, &s, NULL, sorted_after);
	return scratch[n / 2] / 1000.0;
}

static uint64_t cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000, start = cpu_ms();
	static double sample[N];
	static int scratch[N];
	double sum = 0;
	unsigned int seed = 1;

	app_stats = ct_boundary("app", "stats");
	stats_sort = ct_boundary("stats", "sort");
	if (!app_stats || !stats_sort)
		return 1;
	while (cpu_ms() - start < ms) {
		for (size_t i = 0; i < N; i++) /* app's own work */
			sample[i] = (double)(rand_r(&seed) % 100000) / 7.0;
		sum += median(sample, N, scratch);
	}
	printf("sum of medians %.1f, %lu contract violations\n", sum, ct_violations());
	return 0;
}
