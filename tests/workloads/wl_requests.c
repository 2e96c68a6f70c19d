// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_requests - a request-serving workload with rare slow paths, for the
 * slow-call view (record --calls, report --calls; issue 30).
 *
 *   wl_requests TRUTH N THRESH_US   two worker threads serve N requests each,
 *                                   then the truth goes to TRUTH
 *
 * Each request is a mark "request" (instance "/api/search" or "/api/item",
 * alternately) around a mark "parse" (0.3 ms of CPU, +-20%) and a mark
 * "compute" (1.2 ms, +-20%). One request in 50 each takes one slow path:
 *   rare      a mark "rare" around 10 ms of CPU in rare_expensive() (a rare
 *             expensive function: its own frame in native stacks, --stacks)
 *   longparse parse takes 10 ms instead of 0.3
 *   lock      a mark "lockwait" around a mutex a third thread holds for about
 *             10 ms at a time (off CPU)
 * A request is slow when its wall time (monotonic clock around its marks) is
 * at least THRESH_US; the truth splits the requests so, as the slow-call view
 * does by their durations:
 *   slow.{count,wall_ns,cpu_ns,parse_ns,compute_ns,rare_ns,lockwait_ns} and
 *   other.{...}: CPU time of each part (thread CPU clock; lockwait_ns is wall
 *   time), summed over the group's requests; paths.{rare,longparse,lock}: how
 *   many requests took each; near.count: the requests of wall time in
 *   [THRESH - 1 ms, THRESH); near.lockwait_ns: the lock wait of the requests
 *   of wall time within 1 ms of THRESH (either side).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fsp.h"
#include "wl_common.h"

#define PARSE_NS (300 * 1000ULL)
#define COMPUTE_NS (1200 * 1000ULL)
#define SLOW_NS (10 * WL_NS_PER_MS)

enum path { NORMAL, RARE, LONGPARSE, LOCK };

struct group {
	uint64_t count, wall_ns, cpu_ns, parse_ns, compute_ns, rare_ns, lockwait_ns;
};

static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t acc_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int done;
static struct group slow, other;
static uint64_t paths[4];
static uint64_t near; /* requests of wall time in [THRESH - 1 ms, THRESH) */
static uint64_t near_lockwait; /* lock wait of requests within 1 ms of THRESH */
static uint64_t n_requests, thresh_ns;

/* Holds the mutex ~10 ms at a time until the workers are done. */
static void *holder(void *arg)
{
	struct timespec hold = {0, (long)SLOW_NS}, gap = {0, 20000};

	(void)arg;
	while (!done) {
		pthread_mutex_lock(&big);
		nanosleep(&hold, NULL);
		pthread_mutex_unlock(&big);
		nanosleep(&gap, NULL);
	}
	return NULL;
}

/* The rare path's expensive function. Not inlined and not a tail call (the
 * barrier after wl_burn): its frame is in the native stacks of its samples. */
static __attribute__((noinline)) uint64_t rare_expensive(uint64_t ns)
{
	uint64_t end = wl_burn(ns);

	__asm__ volatile("" ::: "memory");
	return end;
}

/* One request of the given path; its parts' times added to g's fields.
 * The normal parts' lengths vary by +-20% (rng): a cycle of a fixed length,
 * a multiple of the sampling period, would alias with the sampler. */
static void serve(uint64_t r, enum path path, struct group *g, uint64_t *rng)
{
	uint64_t parse = wl_rand_range(rng, PARSE_NS * 4 / 5, PARSE_NS * 6 / 5);
	uint64_t compute = wl_rand_range(rng, COMPUTE_NS * 4 / 5, COMPUTE_NS * 6 / 5);
	const char *inst = r % 2 ? "/api/item" : "/api/search";
	uint64_t t0, c0, c, w;

	t0 = wl_mono_ns();
	c0 = wl_thread_ns();
	FSP_MARK_ENTER("request", inst, 0);
	FSP_MARK_ENTER("parse", inst, 0);
	c = wl_thread_ns();
	g->parse_ns += wl_burn(path == LONGPARSE ? SLOW_NS : parse) - c;
	FSP_MARK_LEAVE("parse", inst, 0);
	if (path == RARE) {
		FSP_MARK_ENTER("rare", inst, 0);
		c = wl_thread_ns();
		g->rare_ns += rare_expensive(SLOW_NS) - c;
		FSP_MARK_LEAVE("rare", inst, 0);
	}
	if (path == LOCK) {
		FSP_MARK_ENTER("lockwait", inst, 0);
		w = wl_mono_ns();
		pthread_mutex_lock(&big);
		pthread_mutex_unlock(&big);
		g->lockwait_ns += wl_mono_ns() - w;
		FSP_MARK_LEAVE("lockwait", inst, 0);
	}
	FSP_MARK_ENTER("compute", inst, 0);
	c = wl_thread_ns();
	g->compute_ns += wl_burn(compute) - c;
	FSP_MARK_LEAVE("compute", inst, 0);
	FSP_MARK_LEAVE("request", inst, 0);
	g->cpu_ns += wl_thread_ns() - c0;
	g->wall_ns += wl_mono_ns() - t0;
}

static void add(struct group *dst, const struct group *src)
{
	dst->count += src->count;
	dst->wall_ns += src->wall_ns;
	dst->cpu_ns += src->cpu_ns;
	dst->parse_ns += src->parse_ns;
	dst->compute_ns += src->compute_ns;
	dst->rare_ns += src->rare_ns;
	dst->lockwait_ns += src->lockwait_ns;
}

static void *worker(void *arg)
{
	uint64_t id = (uint64_t)(uintptr_t)arg, local_paths[4] = {0}, rng = 0x9e3779b9 + id;
	uint64_t local_near = 0, local_near_lockwait = 0;
	struct group s = {0}, o = {0};

	for (uint64_t r = 0; r < n_requests; r++) {
		/* one in 50 each, at different places in the two threads */
		uint64_t k = (r + 17 * id) % 50;
		enum path path = k == 7 ? RARE : k == 23 ? LONGPARSE : k == 41 ? LOCK : NORMAL;
		struct group one = {.count = 1};

		serve(r, path, &one, &rng);
		add(one.wall_ns >= thresh_ns ? &s : &o, &one);
		local_near += one.wall_ns < thresh_ns && one.wall_ns + WL_NS_PER_MS >= thresh_ns;
		if (one.wall_ns + WL_NS_PER_MS > thresh_ns &&
		    one.wall_ns < thresh_ns + WL_NS_PER_MS)
			local_near_lockwait += one.lockwait_ns;
		local_paths[path]++;
	}
	pthread_mutex_lock(&acc_lock);
	add(&slow, &s);
	add(&other, &o);
	for (int i = 0; i < 4; i++)
		paths[i] += local_paths[i];
	near += local_near;
	near_lockwait += local_near_lockwait;
	pthread_mutex_unlock(&acc_lock);
	return NULL;
}

static void out_group(FILE *f, const char *name, const struct group *g)
{
	char key[64];

#define OUT(field)                                                                                 \
	do {                                                                                       \
		snprintf(key, sizeof(key), "%s." #field, name);                                    \
		wl_out_u64(f, key, g->field);                                                      \
	} while (0)
	OUT(count);
	OUT(wall_ns);
	OUT(cpu_ns);
	OUT(parse_ns);
	OUT(compute_ns);
	OUT(rare_ns);
	OUT(lockwait_ns);
#undef OUT
}

int main(int argc, char **argv)
{
	pthread_t w[2], h;
	FILE *f;

	if (argc != 4)
		wl_die("usage: wl_requests TRUTH N THRESH_US");
	n_requests = wl_arg_u64(argv[2], "N");
	thresh_ns = wl_arg_u64(argv[3], "THRESH_US") * 1000;
	if (pthread_create(&h, NULL, holder, NULL))
		wl_die("cannot start the lock holder");
	for (uintptr_t i = 0; i < 2; i++)
		if (pthread_create(&w[i], NULL, worker, (void *)i))
			wl_die("cannot start a worker");
	for (int i = 0; i < 2; i++)
		pthread_join(w[i], NULL);
	done = 1;
	pthread_join(h, NULL);
	f = wl_out_open(argv[1]);
	out_group(f, "slow", &slow);
	out_group(f, "other", &other);
	wl_out_u64(f, "paths.rare", paths[RARE]);
	wl_out_u64(f, "paths.longparse", paths[LONGPARSE]);
	wl_out_u64(f, "paths.lock", paths[LOCK]);
	wl_out_u64(f, "near.count", near);
	wl_out_u64(f, "near.lockwait_ns", near_lockwait);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	return wl_out_close(f, argv[1]) ? 1 : 0;
}
