// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_matrix - the workloads of the consistency matrix (tests/integration/
 * test_matrix.c): one program, one shape of marks per run, built with probe
 * ABI v2 (workloads/) and v1 (workloads-v1/).
 *
 *   wl_matrix SHAPE MS now|attached [LIB|READY]
 *
 * (test_attach also runs the armed shape.)
 *
 * SHAPE:
 *   main     one thread: "request" (instances "GET /a", "GET /b") around
 *            "parse" (instance "tokenizer", with a nested "parse" of instance
 *            "inner": the inner-most instance is charged) and "contract"
 *            (instance "app->lib:check", the boundary plug-in's label) whose
 *            antimark runs unmarked user code and a nested "output" (instance
 *            "callback"); then "output" (instance "wl_matrix.c:LINE"), "io"
 *            (instance "sleep") around a 300 us sleep (off-CPU time inside a
 *            feature), unmarked work and an unmarked 200 us sleep
 *   pool     three worker threads (the main thread only waits for them) run
 *            "task" (instances "small", "large"; every third task blocks
 *            200 us inside it) with "alloc" (instance "arena") nested in the
 *            large ones, and unmarked work between tasks
 *   payload  the main thread and one worker run "task" marks whose payload is
 *            a task id (the tasks plug-in's convention: kind "request" with
 *            a child of kind "step" nested inside it), and "pay" (instance
 *            "loop") whose payload is the cycle's number on odd cycles and
 *            0 on even ones: one stack of frames has samples without
 *            payloads and samples with many payload vectors
 *   armed    enters "armed" (instance "first") as soon as it runs, i.e. the
 *            moment a profiler armed the marks ("attached": it spins until
 *            then, to see the instant), stays in it for
 *            200 ms of wall time (sleeping: the profiler sets up meanwhile),
 *            enters and leaves "armed" (instance "nested") inside it, leaves
 *            it; then the cycles of main. Every leave has its enter: a
 *            profiler that started the marks' stacks afresh after arming
 *            them would lose "first" and count its leave as unmatched
 *   late     armed's marks, with the ABI v2 record's "ready" cleared at the
 *            start (as a profiler sees a program whose constructor has not
 *            run yet) and "cleared" printed, then set again right after the
 *            first enter (as by a constructor that ran before the profiler
 *            armed the marks, and so announced nothing); "first" lasts 1.5 s
 *            (a profiler's rescans come every second). ABI v2 builds only
 *   inside   enters "held" (instance "before") at once, before any profiler
 *            attached, writes READY (the path after "attached") and waits
 *            for SIGUSR2 (the test sends it once the profiler attached);
 *            then, in "held", "held" (instance "nested") around 20 ms, a
 *            leave of "ghost" (never entered) in a function it calls, and
 *            leaves "before"; then a new thread enters "held" (instance
 *            "thread"), leaves "ghost" there, stays 50 ms and leaves; then
 *            the cycles of main. A profiler sees two unmatched leaves (the
 *            ghosts: one below every mark it saw the thread make, one in a
 *            thread that started after the attach), and "before" left
 *            without its enter, which it must not count: it was entered
 *            before the attach
 *   churn    "churn" (instance "outer") around "nest" (instance "inner"),
 *            each in a function of its own, with no work between them: as
 *            many marks a second as the probes allow (a session's end
 *            detaches the enters and the leaves at nearly the same instant)
 *   prov     "host" (instance "loop") around 10 ms of libwl_prov.so's
 *            wlprov:work__start / work__done probes (a probe map's feature,
 *            instance "unit"), then unmarked work; LIB is the library's path
 *
 * MS is the CPU time each working thread spends in its cycles (at least one
 * cycle). "attached": first wait (up to 30 s, without using CPU) until a
 * profiler has attached, i.e. FSP_ENABLED() and, for prov, the library's
 * wlprov:work__start semaphore (fsp-bpf -p and -a attach to a running
 * process: nothing is entered before the probes are armed, so no leave can
 * be unmatched). Exits 0, or 2 on a usage error or when nobody attached, 3
 * when the burn checks found corrupted state.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fsp.h"
#include "wl_common.h"
#include "wl_dl.h"

#define US 1000ULL
#define NR_POOL 3

static uint64_t ms;
static void *prov_lib;

static void sleep_us(uint64_t us)
{
	struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000 * 1000)};

	while (nanosleep(&ts, &ts))
		;
}

/* ---- main: nesting, recursion, an antimark ----------------------------------------- */

static void main_parse(uint64_t *rng)
{
	FSP_MARK_ENTER("parse", "tokenizer", 0);
	wl_burn(wl_rand_range(rng, 100 * US, 300 * US));
	FSP_MARK_ENTER("parse", "inner", 0);
	wl_burn(wl_rand_range(rng, 50 * US, 150 * US));
	FSP_MARK_LEAVE("parse", "inner", 0);
	FSP_MARK_LEAVE("parse", "tokenizer", 0);
}

static void main_contract(uint64_t *rng)
{
	FSP_MARK_ENTER("contract", "app->lib:check", 0);
	wl_burn(wl_rand_range(rng, 100 * US, 300 * US));
	FSP_ANTIMARK_ENTER("contract");
	wl_burn(wl_rand_range(rng, 50 * US, 150 * US));
	FSP_MARK_ENTER("output", "callback", 0);
	wl_burn(wl_rand_range(rng, 50 * US, 150 * US));
	FSP_MARK_LEAVE("output", "callback", 0);
	FSP_ANTIMARK_LEAVE("contract");
	wl_burn(wl_rand_range(rng, 50 * US, 100 * US));
	FSP_MARK_LEAVE("contract", "app->lib:check", 0);
}

static void shape_main(void)
{
	static const char *const site = FSP_HERE;
	uint64_t rng = 0x1234567887654321ULL, start = wl_thread_ns(), n = 0;

	do {
		const char *req = n++ % 2 ? "GET /b" : "GET /a";

		FSP_MARK_ENTER("request", req, 0);
		main_parse(&rng);
		main_contract(&rng);
		FSP_MARK_LEAVE("request", req, 0);
		FSP_MARK_ENTER("output", site, 0);
		wl_burn(wl_rand_range(&rng, 100 * US, 300 * US));
		FSP_MARK_LEAVE("output", site, 0);
		FSP_MARK_ENTER("io", "sleep", 0);
		sleep_us(300);
		FSP_MARK_LEAVE("io", "sleep", 0);
		wl_burn(wl_rand_range(&rng, 50 * US, 200 * US));
		sleep_us(200);
	} while (wl_thread_ns() - start < ms * WL_NS_PER_MS);
}

/* ---- pool: worker threads ------------------------------------------------------------ */

static void pool_task(uint64_t *rng, uint64_t n)
{
	const char *kind = n % 2 ? "large" : "small";

	FSP_MARK_ENTER("task", kind, 0);
	wl_burn(wl_rand_range(rng, 100 * US, 300 * US));
	if (n % 2) {
		FSP_MARK_ENTER("alloc", "arena", 0);
		wl_burn(wl_rand_range(rng, 50 * US, 150 * US));
		FSP_MARK_LEAVE("alloc", "arena", 0);
	}
	if (n % 3 == 0)
		sleep_us(200);
	FSP_MARK_LEAVE("task", kind, 0);
}

static void *pool_worker(void *arg)
{
	uint64_t rng = 0x9e3779b97f4a7c15ULL ^ (uintptr_t)arg, start = wl_thread_ns(), n = 0;

	do {
		pool_task(&rng, n++);
		wl_burn(wl_rand_range(&rng, 50 * US, 150 * US));
	} while (wl_thread_ns() - start < ms * WL_NS_PER_MS);
	return NULL;
}

static void shape_pool(void)
{
	pthread_t th[NR_POOL];

	for (uintptr_t i = 0; i < NR_POOL; i++)
		if (pthread_create(&th[i], NULL, pool_worker, (void *)i))
			wl_die("pthread_create failed");
	for (int i = 0; i < NR_POOL; i++)
		if (pthread_join(th[i], NULL))
			wl_die("pthread_join failed");
}

/* ---- payload: task ids, and payloads that are sometimes 0 ----------------------------- */

static void payload_task(uint64_t *rng, uint64_t id)
{
	FSP_MARK_ENTER("task", "request", id);
	wl_burn(wl_rand_range(rng, 100 * US, 200 * US));
	FSP_MARK_ENTER("task", "step", id + 1);
	wl_burn(wl_rand_range(rng, 100 * US, 200 * US));
	FSP_MARK_LEAVE("task", "step", id + 1);
	FSP_MARK_LEAVE("task", "request", id);
}

static void *payload_thread(void *arg)
{
	uint64_t index = (uintptr_t)arg, rng = 0x2545f4914f6cdd1dULL ^ index;
	uint64_t start = wl_thread_ns(), n = 0;

	do {
		n++;
		/* ids unique in the process: the thread in the top bits */
		payload_task(&rng, index << 40 | n << 1);
		FSP_MARK_ENTER("pay", "loop", n % 2 ? n : 0);
		wl_burn(wl_rand_range(&rng, 100 * US, 300 * US));
		FSP_MARK_LEAVE("pay", "loop", n % 2 ? n : 0);
		wl_burn(wl_rand_range(&rng, 50 * US, 150 * US));
	} while (wl_thread_ns() - start < ms * WL_NS_PER_MS);
	return NULL;
}

static void shape_payload(void)
{
	pthread_t th;

	if (pthread_create(&th, NULL, payload_thread, (void *)1))
		wl_die("pthread_create failed");
	payload_thread((void *)0);
	if (pthread_join(th, NULL))
		wl_die("pthread_join failed");
}

/* ---- armed: a mark entered the moment the marks are armed --------------------------- */

/* The ABI v2 record's "ready" (the constructor's mark that it ran). */
static void record_ready(uint32_t ready)
{
#ifdef FSP_ABI_V1
	(void)ready;
	wl_die("late needs the ABI v2 build");
#else
	__atomic_store_n(&fsp__v2_rec.ready, ready, __ATOMIC_SEQ_CST);
#endif
}

/* "first" for us of wall time (late: the record ready again once it is
 * entered) with "nested" inside; then main's cycles. */
static void armed_marks(uint64_t us, bool late)
{
	FSP_MARK_ENTER("armed", "first", 0);
	if (late)
		record_ready(1);
	sleep_us(us);
	FSP_MARK_ENTER("armed", "nested", 0);
	wl_burn(20000 * US);
	FSP_MARK_LEAVE("armed", "nested", 0);
	FSP_MARK_LEAVE("armed", "first", 0);
	shape_main();
}

static void shape_armed(void)
{
	armed_marks(200000, false);
}

static void shape_late(void)
{
	armed_marks(1500000, true);
}

/* ---- inside: attached in mid-feature ----------------------------------------------------- */

static const char *ready_path;

/* A leave of a mark never entered, below its caller's marks. */
static __attribute__((noinline)) void leave_ghost(void)
{
	FSP_MARK_LEAVE("ghost", "below", 0);
	__asm__ __volatile__("" ::: "memory"); /* not a tail call */
}

static void *inside_thread(void *arg)
{
	(void)arg;
	FSP_MARK_ENTER("held", "thread", 0);
	FSP_MARK_LEAVE("ghost", "thread", 0);
	wl_burn(50000 * US);
	FSP_MARK_LEAVE("held", "thread", 0);
	return NULL;
}

static void shape_inside(void)
{
	pthread_t th;

	FSP_MARK_ENTER("held", "before", 0);
	wl_ready_wait_usr2(ready_path);
	FSP_MARK_ENTER("held", "nested", 0);
	wl_burn(20000 * US);
	FSP_MARK_LEAVE("held", "nested", 0);
	leave_ghost();
	FSP_MARK_LEAVE("held", "before", 0);
	if (pthread_create(&th, NULL, inside_thread, NULL))
		wl_die("pthread_create failed");
	pthread_join(th, NULL);
	shape_main();
}

/* ---- churn: marks and nothing else ------------------------------------------------------ */

static __attribute__((noinline)) void churn_inner(void)
{
	FSP_MARK_ENTER("nest", "inner", 0);
	FSP_MARK_LEAVE("nest", "inner", 0);
	__asm__ __volatile__("" ::: "memory"); /* not a tail call */
}

static __attribute__((noinline)) void churn_outer(void)
{
	FSP_MARK_ENTER("churn", "outer", 0);
	churn_inner();
	FSP_MARK_LEAVE("churn", "outer", 0);
	__asm__ __volatile__("" ::: "memory");
}

static void shape_churn(void)
{
	uint64_t start = wl_thread_ns();

	do {
		for (int i = 0; i < 64; i++)
			churn_outer();
	} while (wl_thread_ns() - start < ms * WL_NS_PER_MS);
}

/* ---- prov: a probe map's provider in a library ------------------------------------------ */

static void shape_prov(void)
{
	static const struct wl_dl_api api = {wl_thread_ns, wl_burn, wl_rand_range};
	wl_dl_run_fn run = (wl_dl_run_fn)dlsym(prov_lib, WL_DL_RUN);
	uint64_t rng = 0x5851f42d4c957f2dULL, start = wl_thread_ns();
	struct wl_dl_result r;

	if (!run)
		wl_die("%s: %s", WL_DL_RUN, dlerror());
	do {
		FSP_MARK_ENTER("host", "loop", 0);
		run(&api, 10, &r);
		FSP_MARK_LEAVE("host", "loop", 0);
		wl_burn(wl_rand_range(&rng, 1000 * US, 3000 * US));
	} while (wl_thread_ns() - start < ms * WL_NS_PER_MS);
}

/* ---- main ------------------------------------------------------------------------------ */

/* Waits without using CPU until a profiler armed the marks (and the
 * provider's probes when there is a library). */
static void wait_attached(void)
{
	wl_prov_armed_fn armed = NULL;
	uint64_t deadline = wl_mono_ns() + 30000 * WL_NS_PER_MS;

	if (prov_lib) {
		armed = (wl_prov_armed_fn)dlsym(prov_lib, WL_PROV_ARMED);
		if (!armed)
			wl_die("%s: %s", WL_PROV_ARMED, dlerror());
	}
	while (!FSP_ENABLED() || (armed && !armed())) {
		if (wl_mono_ns() > deadline)
			wl_die("no profiler attached within 30 s");
		sleep_us(1000);
	}
}

/* The same, spinning: armed enters its mark the instant the marks are armed. */
static void spin_attached(void)
{
	uint64_t deadline = wl_mono_ns() + 30000 * WL_NS_PER_MS;

	while (!FSP_ENABLED())
		if (wl_mono_ns() > deadline)
			wl_die("no profiler attached within 30 s");
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(void);
	} shapes[] = {
		{"main", shape_main},	  {"pool", shape_pool},	  {"payload", shape_payload},
		{"armed", shape_armed},	  {"late", shape_late},	  {"prov", shape_prov},
		{"inside", shape_inside}, {"churn", shape_churn},
	};
	size_t i;

	if (argc < 4 || argc > 5 || (strcmp(argv[3], "now") && strcmp(argv[3], "attached")))
		wl_die("usage: wl_matrix main|pool|payload|armed|late|prov|inside|churn MS "
		       "now|attached "
		       "[LIB|READY]");
	ms = wl_arg_u64(argv[2], "MS");
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		if (!strcmp(argv[1], shapes[i].name))
			break;
	if (i == sizeof(shapes) / sizeof(shapes[0]))
		wl_die("unknown shape %s", argv[1]);
	if (!strcmp(argv[1], "prov")) {
		if (argc != 5)
			wl_die("prov needs the path of libwl_prov.so");
		prov_lib = dlopen(argv[4], RTLD_NOW | RTLD_LOCAL);
		if (!prov_lib)
			wl_die("dlopen %s: %s", argv[4], dlerror());
	}
	if (shapes[i].run == shape_inside) {
		if (argc != 5)
			wl_die("inside needs the path of its readiness file");
		ready_path = argv[4];
	}
	if (shapes[i].run == shape_late) {
		record_ready(0);
		printf("cleared\n");
		fflush(stdout);
	}
	if (!strcmp(argv[3], "attached") &&
	    (shapes[i].run == shape_armed || shapes[i].run == shape_late))
		spin_attached();
	else if (!strcmp(argv[3], "attached") && shapes[i].run != shape_inside)
		wait_attached();
	shapes[i].run();
	return wl_integrity_errors() ? 3 : 0;
}
