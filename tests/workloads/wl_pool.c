// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_pool - worker threads in a feature, some started before a profiler
 * attaches and some after.
 *
 *   wl_pool READY DUMP
 *
 * Starts two workers (threads "pool-N") and writes READY once both are
 * inside their first mark; the main thread then waits for signals only.
 * Each worker runs cycles of "pool" (instance "worker", 2 ms) and 1 ms
 * unmarked until SIGTERM. SIGUSR2 starts two more workers; SIGUSR1 writes
 * DUMP.N (N = 1, 2, ...) with the counters so far; SIGTERM stops the workers
 * and writes DUMP.final. A worker adds its cycle to the counters when the
 * cycle ends, so a dump misses at most one cycle per worker.
 *
 * Dump keys: cpu_total_ns, cycles, threads, thread.<i>.tid, feature.pool.
 * {ns,ambig_ns}.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "fsp.h"
#include "wl_common.h"

#define MAX_WORKERS 8
#define MS WL_NS_PER_MS

static struct wl_acc pool;
static atomic_uint_fast64_t cycles, inside;
static atomic_bool stop;
static pthread_t workers[MAX_WORKERS];
static pid_t tids[MAX_WORKERS];
static atomic_int nr_workers;

static void *worker(void *arg)
{
	int i = (int)(intptr_t)arg;
	char name[16];

	/* Named apart from the process (its main thread): a report names the
	 * process by the main thread, which never runs a mark. */
	snprintf(name, sizeof(name), "pool-%d", i);
	pthread_setname_np(pthread_self(), name);
	tids[i] = (pid_t)syscall(SYS_gettid);
	while (!atomic_load(&stop)) {
		struct wl_acc mine = {0, 0};
		uint64_t a, b, c, d;

		a = wl_thread_ns();
		FSP_MARK_ENTER("pool", "worker", 0);
		b = wl_thread_ns();
		atomic_fetch_add(&inside, 1);
		c = wl_burn(2 * MS);
		FSP_MARK_LEAVE("pool", "worker", 0);
		d = wl_thread_ns();
		wl_acc_span(&mine, a, b, c, d);
		wl_burn(1 * MS);
		wl_acc_add(&pool, &mine);
		atomic_fetch_add(&cycles, 1);
	}
	return NULL;
}

static void start_workers(int n)
{
	for (int k = 0; k < n && atomic_load(&nr_workers) < MAX_WORKERS; k++) {
		int i = atomic_fetch_add(&nr_workers, 1);

		if (pthread_create(&workers[i], NULL, worker, (void *)(intptr_t)i))
			wl_die("pthread_create failed");
	}
}

static void dump(const char *prefix, const char *suffix)
{
	char path[4096], key[64];
	int n = atomic_load(&nr_workers);
	FILE *f;

	snprintf(path, sizeof(path), "%s.%s", prefix, suffix);
	f = wl_out_open(path);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_u64(f, "cycles", atomic_load(&cycles));
	wl_out_u64(f, "threads", (uint64_t)n);
	for (int i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "thread.%d.tid", i);
		wl_out_u64(f, key, (uint64_t)tids[i]);
	}
	wl_out_acc(f, "feature.pool", &pool);
	if (wl_out_close(f, path))
		exit(2);
}

int main(int argc, char **argv)
{
	unsigned dumps = 0;
	char n[16];
	sigset_t set;
	int sig;

	if (argc != 3)
		wl_die("usage: wl_pool READY DUMP");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	start_workers(2);
	while (atomic_load(&inside) < 2)
		usleep(1000);
	wl_write_ready(argv[1]);
	while (!sigwait(&set, &sig) && sig != SIGTERM && sig != SIGINT) {
		if (sig == SIGUSR2) {
			start_workers(2);
			continue;
		}
		snprintf(n, sizeof(n), "%u", ++dumps);
		dump(argv[2], n);
	}
	atomic_store(&stop, true);
	for (int i = 0; i < atomic_load(&nr_workers); i++)
		pthread_join(workers[i], NULL);
	dump(argv[2], "final");
	return wl_integrity_errors() ? 3 : 0;
}
