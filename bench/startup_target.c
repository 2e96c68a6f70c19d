// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * startup_target - the target of the start-up benchmark (bench/startup.sh).
 *
 *   startup_target FILE SECONDS
 *
 * First of all writes "start=T pid=P" to FILE, T its CLOCK_MONOTONIC time in
 * seconds when main() began (a profiler that launches it has set itself up
 * by then: fsp-bpf, perf record and bpftrace -c start the command last),
 * then runs marked work ("work" and "rest" features, a few ms each) on the
 * CPU for SECONDS, or until killed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "fsp.h"

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __attribute__((noinline)) uint64_t spin(uint64_t n, uint64_t x)
{
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

int main(int argc, char **argv)
{
	double start = mono(), seconds;
	uint64_t x = 88172645463325252u;
	FILE *f;

	if (argc != 3 || !(seconds = atof(argv[2])) || seconds < 0) {
		fprintf(stderr, "usage: %s FILE SECONDS\n", argv[0]);
		return 2;
	}
	f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	fprintf(f, "start=%.6f pid=%d\n", start, (int)getpid());
	fclose(f);
	while (mono() - start < seconds) {
		FSP_MARK_ENTER("work", "spin", 0);
		x = spin(2000000, x);
		FSP_MARK_LEAVE("work", "spin", 0);
		FSP_MARK_ENTER("rest", "spin", 0);
		x = spin(1000000, x);
		FSP_MARK_LEAVE("rest", "spin", 0);
	}
	return x == 42; /* keeps the work */
}
