// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * demo_mt - a multi-threaded program with marked features, for fsp-bpf.
 *
 *   demo_mt [THREADS] [MS]   THREADS workers (default 4, at most 64), each
 *                            running for about MS ms of its own CPU time
 *                            (default 2000), then print each worker's
 *                            per-feature CPU time as measured by itself
 *
 * Features: "hash" (FNV-1a over a buffer), "compress" (run-length encoding)
 * and "format" (snprintf of table rows). Each worker (thread name "worker-N")
 * runs the same three with a different mix: worker N spends about 60% in
 * feature N mod 3, 30% in the next one and 10% in the one after, so a
 * per-thread breakdown of the profile should show the rotation. The payload of
 * every mark is the worker's number.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fsp/fsp.h>

#define NFEAT 3
#define MAX_THREADS 64
#define BUF_SIZE (32 * 1024)

static const char *const feature_name[NFEAT] = {"hash", "compress", "format"};

/* Work units per round given to feature (id + k) % NFEAT. */
static const int mix[NFEAT] = {6, 3, 1};

struct worker {
	int id;
	long ms;
	pthread_t thread;
	uint64_t ns[NFEAT]; /* ground truth: thread CPU time per feature */
	uint64_t total;
	long rounds;
	uint64_t sink; /* keeps the work observable */
	uint8_t in[BUF_SIZE], out[2 * BUF_SIZE];
};

static uint64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the features -------------------------------------------------------------- */

static uint64_t hash_buf(const struct worker *w)
{
	uint64_t h = 1469598103934665603u;
	size_t i;

	FSP_SCOPED_MARK("hash", "fnv1a", (uint64_t)w->id);
	for (i = 0; i < BUF_SIZE; i++)
		h = (h ^ w->in[i]) * 1099511628211u;
	return h;
}

static size_t compress_buf(struct worker *w)
{
	size_t i, o = 0, run;
	int pass;

	FSP_SCOPED_MARK("compress", "rle", (uint64_t)w->id);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0, o = 0; i < BUF_SIZE; i += run) {
			for (run = 1; i + run < BUF_SIZE && run < 255 && w->in[i + run] == w->in[i];
			     run++)
				;
			w->out[o++] = (uint8_t)run;
			w->out[o++] = w->in[i];
		}
	}
	return o;
}

static size_t format_rows(struct worker *w)
{
	size_t len = 0;
	int i;

	FSP_SCOPED_MARK("format", FSP_HERE, (uint64_t)w->id);
	for (i = 0; i < 160; i++)
		len += (size_t)snprintf((char *)w->out + len % BUF_SIZE, 128, "%4d %10.4f %08x\n",
					i, w->in[i] * 0.37, (unsigned)w->in[i] * 2654435761u);
	return len;
}

/* ---- the workers ------------------------------------------------------------------- */

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char name[16];
	uint32_t x = 2463534242u + (uint32_t)w->id;
	uint64_t t0;
	size_t i;
	int k, u;

	snprintf(name, sizeof(name), "worker-%d", w->id);
	pthread_setname_np(pthread_self(), name);

	/* Input with runs, so compression has something to do. */
	for (i = 0; i < BUF_SIZE; i++) {
		if (i % 4 == 0)
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		w->in[i] = (uint8_t)(x >> (8 * (i % 4 / 2)));
	}

	do {
		for (k = 0; k < NFEAT; k++) {
			int f = (w->id + k) % NFEAT;

			t0 = thread_ns();
			for (u = 0; u < mix[k]; u++) {
				if (f == 0)
					w->sink += hash_buf(w);
				else if (f == 1)
					w->sink += compress_buf(w);
				else
					w->sink += format_rows(w);
			}
			w->ns[f] += thread_ns() - t0;
		}
		w->rounds++;
	} while (thread_ns() < (uint64_t)w->ms * 1000000u);
	w->total = thread_ns();
	return NULL;
}

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 4;
	long ms = argc > 2 ? strtol(argv[2], NULL, 10) : 2000;
	struct worker *w;
	int i, k;

	if (argc > 3 || nthreads < 1 || nthreads > MAX_THREADS || ms <= 0) {
		fprintf(stderr, "usage: %s [THREADS] [MS]\n", argv[0]);
		return 2;
	}
	w = calloc((size_t)nthreads, sizeof(*w));
	if (!w) {
		perror("calloc");
		return 1;
	}
	for (i = 0; i < nthreads; i++) {
		w[i].id = i;
		w[i].ms = ms;
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(w[i].thread, NULL);

	/* One line per worker: its features' CPU time as shares of its own CPU time. */
	for (i = 0; i < nthreads; i++) {
		printf("demo_mt ground truth: worker-%d cpu %.0f ms, %ld rounds", i,
		       w[i].total / 1e6, w[i].rounds);
		for (k = 0; k < NFEAT; k++)
			printf("; %s %.1f%% (%.0f ms)", feature_name[k],
			       100.0 * w[i].ns[k] / w[i].total, w[i].ns[k] / 1e6);
		printf("\n");
	}
	free(w);
	return 0;
}
