// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_sampled - labels read at sample time ("label sample" of a probe map):
 * two global `char *` variables, one of this (PIE) executable and one of
 * libwl_sampled.so, that the program points at a new label between phases
 * while one mark of each stays open, measuring the CPU time spent under
 * each value itself.
 *
 *   wl_sampled TRUTH MS [READY]   run phases for MS ms of CPU time; with
 *                                 READY, write it and wait for SIGUSR2 first
 *                                 (fsp-bpf attaches with -p meanwhile)
 *
 * The extents: wlsx:run__start/run__done (this file's provider) around the
 * phases, wlsx:tls__start/tls__done too (its instance a thread-local
 * variable; a worker thread sets its own to "worker" and burns MS / 2 ms of
 * CPU under its own tls mark meanwhile), wlsl:run__start/run__done (the
 * library's, "frame none") too, and an fsp mark "work" (ABI v2, or v1 with
 * -DFSP_ABI_V1) around each phase's work, so that the mapped frames are
 * merged with the fsp marks' stacks. Each phase points the three variables
 * of the main thread at one value, in turn, with lengths drawn at random:
 * "alpha" (1-3 ms), "beta" (0.5-1.5 ms), "gamma" (the text of one buffer
 * rewritten in place to "gamma-0".."gamma-2" between its phases, 1-2 ms
 * each), NULL (0.3-0.9 ms) and a pointer into a page whose memory is gone
 * (mapped again without access, 0.3-0.9 ms): the last two cannot be read,
 * and are "?" in the profile.
 *
 * Truth keys: cpu_total_ns (process CPU at the end), cpu_before_ns (when it
 * started the phases, after READY's wait), value.NAME.{ns,ambig_ns} for NAME
 * alpha, beta, gamma-0, gamma-1, gamma-2, unreadable (NULL and unmapped
 * together): the main thread's CPU time while its variables pointed at that
 * label (the stores are bracketed by clock reads: the ambiguous time); worker:
 * the worker's time in its tls mark; phases.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fsp.h"
#include "wl_common.h"

#define US 1000ULL

const char *volatile wl_exe_label;
/* Each thread's own: the main thread's follows the phases, the worker's is
 * "worker". */
__thread const char *volatile wl_tls_label;

/* fsp.h's <sys/sdt.h> has semaphores: this provider's probes have them too
 * (they fire whatever their value). */
__extension__ unsigned short wlsx_run__start_semaphore __attribute__((unused))
__attribute__((section(".probes")));
__extension__ unsigned short wlsx_run__done_semaphore __attribute__((unused))
__attribute__((section(".probes")));
__extension__ unsigned short wlsx_tls__start_semaphore __attribute__((unused))
__attribute__((section(".probes")));
__extension__ unsigned short wlsx_tls__done_semaphore __attribute__((unused))
__attribute__((section(".probes")));

enum { V_ALPHA, V_BETA, V_GAMMA0, V_GAMMA1, V_GAMMA2, V_UNREADABLE, V_WORKER, V__COUNT };

static const char *const value_names[V__COUNT] = {"alpha",   "beta",	   "gamma-0", "gamma-1",
						  "gamma-2", "unreadable", "worker"};

static struct wl_acc acc[V__COUNT];
static void (*lib_set)(const char *);
static uint64_t rng = 0x5eed5a3b1e5ULL;

/* The current phase: its value, and the clock reads around its stores. */
static int cur = -1;
static uint64_t cur_a, cur_b;

/* Points both variables at label (value v from now on). */
static void set_label(int v, const char *label)
{
	uint64_t a = wl_thread_ns(), b;

	wl_exe_label = label;
	wl_tls_label = label;
	lib_set(label);
	b = wl_thread_ns();
	if (cur >= 0)
		wl_acc_span(&acc[cur], cur_a, cur_b, a, b);
	cur = v;
	cur_a = a;
	cur_b = b;
}

static void work(uint64_t lo_us, uint64_t hi_us)
{
	FSP_MARK_ENTER("work", NULL, 0);
	wl_burn(wl_rand_range(&rng, lo_us * US, hi_us * US));
	FSP_MARK_LEAVE("work", NULL, 0);
}

/* A pointer into a page whose memory is gone: mapped again without access,
 * so that nothing else is mapped there (reading it faults, as a freed page). */
static const char *unmapped_label(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		wl_die("mmap failed");
	strcpy(p, "freed");
	if (mmap(p, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p)
		wl_die("mmap failed");
	return p;
}

/* The worker: its own thread-local label, under its own wlsx:tls mark, for
 * ms / 2 ms of its CPU time. */
static void *worker(void *arg)
{
	uint64_t ms = *(const uint64_t *)arg, a, b, c, d;
	char label[16];

	strcpy(label, "worker");
	wl_tls_label = label;
	a = wl_thread_ns();
	STAP_PROBE(wlsx, tls__start);
	b = wl_thread_ns();
	c = wl_burn(ms * WL_NS_PER_MS / 2);
	STAP_PROBE(wlsx, tls__done);
	d = wl_thread_ns();
	wl_acc_span(&acc[V_WORKER], a, b, c, d);
	return NULL;
}

static void *load_lib(void)
{
	char dir[PATH_MAX], lib[PATH_MAX + 32];
	void *h;

	wl_self_dir(dir, sizeof(dir));
	snprintf(lib, sizeof(lib), "%s/libwl_sampled.so", dir);
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		wl_die("dlopen %s: %s", lib, dlerror());
	return h;
}

int main(int argc, char **argv)
{
	/* Written by the program (resident pages), as a server's buffers are. */
	static char alpha[16], beta[16], gamma[16];
	void (*lib_enter)(void), (*lib_leave)(void);
	const char *freed = unmapped_label();
	uint64_t ms, start, before, phases = 0;
	pthread_t th;
	void *h;
	FILE *f;

	if (argc < 3 || argc > 4)
		wl_die("usage: wl_sampled TRUTH MS [READY]");
	ms = wl_arg_u64(argv[2], "MS");
	h = load_lib();
	lib_enter = (void (*)(void))dlsym(h, "wl_sampled_lib_enter");
	lib_leave = (void (*)(void))dlsym(h, "wl_sampled_lib_leave");
	lib_set = (void (*)(const char *))dlsym(h, "wl_sampled_lib_set");
	if (!lib_enter || !lib_leave || !lib_set)
		wl_die("libwl_sampled.so lacks its functions");
	strcpy(alpha, "alpha");
	strcpy(beta, "beta");
	if (argc == 4)
		wl_ready_wait_usr2(argv[3]);
	before = wl_process_ns();

	if (pthread_create(&th, NULL, worker, &ms))
		wl_die("pthread_create failed");
	set_label(V_ALPHA, alpha);
	STAP_PROBE(wlsx, run__start);
	STAP_PROBE(wlsx, tls__start);
	lib_enter();
	start = wl_thread_ns();
	while (wl_thread_ns() - start < ms * WL_NS_PER_MS) {
		set_label(V_ALPHA, alpha);
		work(1000, 3000);
		set_label(V_BETA, beta);
		work(500, 1500);
		/* One buffer, its text rewritten while nothing points at it. */
		set_label(V_UNREADABLE, NULL);
		snprintf(gamma, sizeof(gamma), "gamma-%llu", (unsigned long long)(phases % 3));
		work(300, 900);
		set_label(V_GAMMA0 + (int)(phases % 3), gamma);
		work(1000, 2000);
		set_label(V_UNREADABLE, freed);
		work(300, 900);
		phases++;
	}
	set_label(V_ALPHA, alpha);
	lib_leave();
	STAP_PROBE(wlsx, tls__done);
	STAP_PROBE(wlsx, run__done);
	if (pthread_join(th, NULL))
		wl_die("pthread_join failed");

	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", wl_process_ns());
	wl_out_u64(f, "cpu_before_ns", before);
	wl_out_u64(f, "phases", phases);
	for (int v = 0; v < V__COUNT; v++) {
		char key[64];

		snprintf(key, sizeof(key), "value.%s", value_names[v]);
		wl_out_acc(f, key, &acc[v]);
	}
	return wl_out_close(f, argv[1]) ? 1 : 0;
}
