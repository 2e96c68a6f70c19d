// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_calljoin - calls whose samples the slow-call view's join must keep
 * apart (record --calls; issue 30), each with its own instance label, so
 * that the profile's calls are matched to the workload's one by one.
 *
 *   wl_calljoin TRUTH
 *
 * Two threads (t = 0, 1) each make, one after the other:
 *   job L<t>.<k> / S<t>.<k>  8 pairs of a long call (20 ms of CPU) and a
 *                            short one (0.1 ms: shorter than a sampling
 *                            period), each right after the other
 *   job N<t> around job M<t> a call of the same feature nested in another:
 *                            N burns 20 ms, M 40 ms inside it, N 20 ms more
 *   rec R<t>.<d>             a recursive function, a mark per level d = 0..3,
 *                            each burning 10 ms before it recurses
 * then the main thread enters tail "open", burns 30 ms, writes the truth and
 * exits inside it: a call still open when the session ends.
 *
 * The truth, per call NAME: NAME.cpu_ns (CPU time of the call outside the
 * calls nested in it: what its samples measure), NAME.wall_ns (enter to
 * leave, monotonic clock; the open call: to the truth's writing) and
 * NAME.tid; thread.<t>.tid.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fsp.h"
#include "wl_common.h"

#define PAIRS 8
#define LEVELS 4
#define MAX_CALLS (2 * (2 * PAIRS + 2 + LEVELS) + 1)

/* One call: its label (static storage, as the probe ABI asks) and truth. */
struct call {
	char name[16];
	uint64_t cpu_ns, wall_ns;
	long tid;
};

static struct call calls[MAX_CALLS];
static long tids[2];
static size_t nr_calls;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* A new call named fmt... (the slots are taken before the threads start
 * making their calls, so labels never change while they are in use). */
static struct call *new_call(const char *fmt, int a, int b)
{
	struct call *c;

	pthread_mutex_lock(&lock);
	if (nr_calls == MAX_CALLS)
		wl_die("too many calls");
	c = &calls[nr_calls++];
	pthread_mutex_unlock(&lock);
	snprintf(c->name, sizeof(c->name), fmt, a, b);
	c->tid = syscall(SYS_gettid);
	return c;
}

/* Burns ns of CPU time, added to c->cpu_ns. */
static void burn(struct call *c, uint64_t ns)
{
	uint64_t t = wl_thread_ns();

	c->cpu_ns += wl_burn(ns) - t;
}

static void pair(int t, int k)
{
	struct call *l = new_call("L%d.%d", t, k), *s = new_call("S%d.%d", t, k);
	uint64_t w;

	w = wl_mono_ns();
	FSP_MARK_ENTER("job", l->name, 0);
	burn(l, 20 * WL_NS_PER_MS);
	FSP_MARK_LEAVE("job", l->name, 0);
	l->wall_ns = wl_mono_ns() - w;
	w = wl_mono_ns();
	FSP_MARK_ENTER("job", s->name, 0);
	burn(s, 100 * 1000);
	FSP_MARK_LEAVE("job", s->name, 0);
	s->wall_ns = wl_mono_ns() - w;
}

static void nested(int t)
{
	struct call *n = new_call("N%d%.0d", t, 0), *m = new_call("M%d%.0d", t, 0);
	uint64_t w = wl_mono_ns(), wm;

	FSP_MARK_ENTER("job", n->name, 0);
	burn(n, 20 * WL_NS_PER_MS);
	wm = wl_mono_ns();
	FSP_MARK_ENTER("job", m->name, 0);
	burn(m, 40 * WL_NS_PER_MS);
	FSP_MARK_LEAVE("job", m->name, 0);
	m->wall_ns = wl_mono_ns() - wm;
	burn(n, 20 * WL_NS_PER_MS);
	FSP_MARK_LEAVE("job", n->name, 0);
	n->wall_ns = wl_mono_ns() - w;
}

/* Not inlined: each level a frame of its own, as its mark must be. */
static __attribute__((noinline)) void recurse(int t, int d)
{
	struct call *r = new_call("R%d.%d", t, d);
	uint64_t w = wl_mono_ns();

	FSP_MARK_ENTER("rec", r->name, 0);
	burn(r, 10 * WL_NS_PER_MS);
	if (d + 1 < LEVELS)
		recurse(t, d + 1);
	FSP_MARK_LEAVE("rec", r->name, 0);
	r->wall_ns = wl_mono_ns() - w;
	__asm__ volatile("" ::: "memory");
}

static void *worker(void *arg)
{
	int t = (int)(uintptr_t)arg;

	tids[t] = syscall(SYS_gettid);
	for (int k = 0; k < PAIRS; k++)
		pair(t, k);
	nested(t);
	recurse(t, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w[2];
	struct call *open;
	uint64_t t0;
	char key[64];
	FILE *f;

	if (argc != 2)
		wl_die("usage: wl_calljoin TRUTH");
	for (uintptr_t i = 0; i < 2; i++)
		if (pthread_create(&w[i], NULL, worker, (void *)i))
			wl_die("cannot start a worker");
	for (int i = 0; i < 2; i++)
		pthread_join(w[i], NULL);
	open = new_call("open%.0d%.0d", 0, 0);
	t0 = wl_mono_ns();
	FSP_MARK_ENTER("tail", open->name, 0);
	burn(open, 30 * WL_NS_PER_MS);
	open->wall_ns = wl_mono_ns() - t0;
	f = wl_out_open(argv[1]);
	for (size_t i = 0; i < nr_calls; i++) {
		snprintf(key, sizeof(key), "%.15s.cpu_ns", calls[i].name);
		wl_out_u64(f, key, calls[i].cpu_ns);
		snprintf(key, sizeof(key), "%.15s.wall_ns", calls[i].name);
		wl_out_u64(f, key, calls[i].wall_ns);
		snprintf(key, sizeof(key), "%.15s.tid", calls[i].name);
		wl_out_u64(f, key, (uint64_t)calls[i].tid);
	}
	for (int i = 0; i < 2; i++) {
		snprintf(key, sizeof(key), "thread.%d.tid", i);
		wl_out_u64(f, key, (uint64_t)tids[i]);
	}
	wl_out_u64(f, "calls", nr_calls);
	if (wl_out_close(f, argv[1]))
		_exit(1);
	/* inside "tail": the call is open when the session ends */
	_exit(0);
}
