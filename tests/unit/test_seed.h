/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The seed of a randomized unit test: $FSP_SEED when set, else a new one
 * each run (the clock and the process id). It is printed either way, before
 * the test uses it, so that a failure can be replayed:
 *
 *     FSP_SEED=1234 .output/tests/unit/test_merge
 *
 * (tests/unit/fixtures are built in each checkout and embed its paths: a
 * test that changes their bytes replays in the same build tree.)
 */
#ifndef FSP_TEST_SEED_H
#define FSP_TEST_SEED_H

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t test_seed(const char *test)
{
	const char *env = getenv("FSP_SEED");
	struct timespec ts;
	uint64_t seed;
	char *end;

	if (env && *env) {
		errno = 0;
		seed = strtoull(env, &end, 0);
		if (errno || *end || *env == '-') {
			fprintf(stderr, "FSP_SEED=%s: expected an unsigned integer\n", env);
			exit(2);
		}
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = ((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec) ^
		       ((uint64_t)getpid() << 32);
		seed %= 1000000000000ULL; /* short enough to copy */
	}
	printf("%s: seed %" PRIu64 " (FSP_SEED=%" PRIu64 " replays it)\n", test, seed, seed);
	fflush(stdout);
	return seed;
}

#endif /* FSP_TEST_SEED_H */
