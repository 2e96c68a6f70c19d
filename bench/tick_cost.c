// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tick_cost - the time a sampler's ticks take from a CPU-bound program,
 * measured as the gaps they leave in a loop that does nothing but read the
 * clock (the method of OS-noise tools such as sysjitter and osnoise).
 *
 *   tick_cost [-s SECONDS] [-t THRESHOLD_NS] [-c CAP_NS] [-a]
 *
 * For SECONDS of wall time (default 2) the program reads CLOCK_MONOTONIC in a
 * tight loop, in chunks of 10 ms each enclosed in one mark (200 probe hits a
 * second; the probes themselves are kept out of the accounting). Any step
 * between two reads longer than THRESHOLD_NS (default 1000; a read takes tens
 * of ns) is a gap: the CPU was taken away, by an interrupt, a sampler tick,
 * another task. Gaps up to CAP_NS (default 200000) are counted as interrupts;
 * longer ones are another task running (the scheduler's slices are
 * milliseconds) and are counted apart, as they only add noise here. The
 * interrupt gaps' count and total time, compared with and without a sampler
 * attached, give the sampler's ticks per second and the CPU share they take,
 * without depending on how fast the CPU happens to run the program's own work
 * (which drifts by several percent on a shared virtual machine). It does not
 * see indirect costs (caches and TLB refilled after a tick). Prints:
 *   tick_cost: seconds=S irq_gaps_per_s=G irq_lost_pct=L irq_gap_median_ns=M
 *              long_gaps=N long_lost_pct=K attached=0|1
 *
 *   -a  wait (up to 30 s) until fsp:mark_enter and fsp:mark_leave are attached
 *       (their USDT semaphores raised), then 0.2 s more, before measuring
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bench_attached.h"
#include "fsp.h"

#define MAX_GAPS 1000000
#define CHUNK_NS 10000000ull

static uint64_t gaps[MAX_GAPS];

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-s SECONDS] [-t THRESHOLD_NS] [-c CAP_NS] [-a]\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t threshold = 1000, cap = 200000, nr_gaps = 0, gap_ns = 0, nr_long = 0, long_ns = 0;
	uint64_t start, end, t, prev, median = 0;
	double seconds = 2;
	int wait_attach = 0, opt;

	while ((opt = getopt(argc, argv, "s:t:c:a")) != -1) {
		switch (opt) {
		case 's':
			seconds = atof(optarg);
			break;
		case 't':
			threshold = strtoull(optarg, NULL, 10);
			break;
		case 'c':
			cap = strtoull(optarg, NULL, 10);
			break;
		case 'a':
			wait_attach = 1;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (seconds <= 0 || threshold == 0 || cap <= threshold || optind != argc)
		usage(argv[0]);
	if (wait_attach) {
		int i;

		for (i = 0; i < 3000 && !bench_attached(); i++)
			usleep(10000);
		if (!bench_attached()) {
			fprintf(stderr, "tick_cost: fsp:mark_enter/leave never attached\n");
			return 3;
		}
	}
	usleep(200000);

	start = now_ns();
	end = start + (uint64_t)(seconds * 1e9);
	t = start;
	while (t < end) {
		uint64_t chunk_end, measured = 0;

		FSP_MARK_ENTER("bench", "tick_cost chunk", 0);
		prev = now_ns(); /* the probe's own time is not a gap */
		chunk_end = prev + CHUNK_NS;
		do {
			t = now_ns();
			if (t - prev > cap) {
				nr_long++;
				long_ns += t - prev;
			} else if (t - prev > threshold) {
				if (nr_gaps < MAX_GAPS)
					gaps[nr_gaps] = t - prev;
				nr_gaps++;
				gap_ns += t - prev;
			}
			prev = t;
			measured++;
		} while (t < chunk_end);
		FSP_MARK_LEAVE("bench", "tick_cost chunk", measured);
		t = now_ns();
	}
	if (nr_gaps) {
		uint64_t n = nr_gaps < MAX_GAPS ? nr_gaps : MAX_GAPS;

		qsort(gaps, n, sizeof(gaps[0]), cmp_u64);
		median = gaps[n / 2];
	}
	seconds = (double)(t - start) / 1e9;
	printf("tick_cost: seconds=%.6f irq_gaps_per_s=%.1f irq_lost_pct=%.4f "
	       "irq_gap_median_ns=%llu "
	       "long_gaps=%llu long_lost_pct=%.4f attached=%d\n",
	       seconds, (double)nr_gaps / seconds, (double)gap_ns / (double)(t - start) * 100,
	       (unsigned long long)median, (unsigned long long)nr_long,
	       (double)long_ns / (double)(t - start) * 100, bench_attached());
	return 0;
}
