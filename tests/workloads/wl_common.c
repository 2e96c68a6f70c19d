// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Shared code of the integration-test workloads: see wl_common.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "wl_common.h"

/* Iterations of one burn chunk: about 20 us, far above a clock read's cost. */
#define CHUNK_ITERS 20000

static uint64_t chunk_ref;
static atomic_uint_fast64_t integrity_errors;
static volatile uint64_t chunk_seed = 0x9e3779b97f4a7c15ULL;

static uint64_t ts_ns(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts))
		wl_die("clock_gettime: %s", strerror(errno));
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t wl_thread_ns(void)
{
	return ts_ns(CLOCK_THREAD_CPUTIME_ID);
}

uint64_t wl_process_ns(void)
{
	return ts_ns(CLOCK_PROCESS_CPUTIME_ID);
}

uint64_t wl_mono_ns(void)
{
	return ts_ns(CLOCK_MONOTONIC);
}

/* One chunk: a dependent multiply/xor chain the compiler cannot shorten. */
static __attribute__((noinline)) uint64_t chunk(void)
{
	uint64_t x = chunk_seed;

	for (int i = 0; i < CHUNK_ITERS; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		x ^= x >> 29;
	}
	return x;
}

static __attribute__((constructor)) void wl_init(void)
{
	chunk_ref = chunk();
}

uint64_t wl_burn(uint64_t ns)
{
	uint64_t start = wl_thread_ns(), t = start;

	while (t - start < ns) {
		if (chunk() != chunk_ref)
			atomic_fetch_add(&integrity_errors, 1);
		t = wl_thread_ns();
	}
	return t;
}

uint64_t wl_burn_deep(uint64_t ns)
{
	volatile char pad[8192];
	uint64_t t;

	pad[0] = 1;
	pad[sizeof(pad) - 1] = 1;
	t = wl_burn(ns);
	/* Keeps pad (and this frame) alive across the call. */
	if (pad[0] != 1 || pad[sizeof(pad) - 1] != 1)
		atomic_fetch_add(&integrity_errors, 1);
	return t;
}

uint64_t wl_integrity_errors(void)
{
	return atomic_load(&integrity_errors);
}

uint64_t wl_rand_range(uint64_t *state, uint64_t lo, uint64_t hi)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return hi > lo ? lo + x % (hi - lo + 1) : lo;
}

void wl_acc_span(struct wl_acc *acc, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	uint64_t ambig = (b - a) + (d - c);

	acc->ns += (c - b) + ambig / 2;
	acc->ambig_ns += ambig;
}

void wl_acc_unspan(struct wl_acc *acc, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	uint64_t ambig = (b - a) + (d - c);

	acc->ns -= (c - b) + ambig / 2;
	acc->ambig_ns += ambig;
}

void wl_acc_add(struct wl_acc *acc, const struct wl_acc *other)
{
	__atomic_fetch_add(&acc->ns, other->ns, __ATOMIC_RELAXED);
	__atomic_fetch_add(&acc->ambig_ns, other->ambig_ns, __ATOMIC_RELAXED);
}

FILE *wl_out_open(const char *path)
{
	char tmp[PATH_MAX];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		wl_die("cannot write %s: %s", tmp, strerror(errno));
	return f;
}

void wl_out_u64(FILE *f, const char *key, uint64_t v)
{
	fprintf(f, "%s %llu\n", key, (unsigned long long)v);
}

void wl_out_str(FILE *f, const char *key, const char *v)
{
	fprintf(f, "%s %s\n", key, v);
}

void wl_out_acc(FILE *f, const char *prefix, const struct wl_acc *acc)
{
	fprintf(f, "%s.ns %llu\n%s.ambig_ns %llu\n", prefix, (unsigned long long)acc->ns, prefix,
		(unsigned long long)acc->ambig_ns);
}

int wl_out_close(FILE *f, const char *path)
{
	char tmp[PATH_MAX];
	struct rusage ru;

	wl_out_u64(f, "pid", (uint64_t)getpid());
	wl_out_u64(f, "integrity_errors", wl_integrity_errors());
	if (!getrusage(RUSAGE_SELF, &ru))
		wl_out_u64(f, "ctx_switches", (uint64_t)(ru.ru_nvcsw + ru.ru_nivcsw));
	wl_out_str(f, "end", "1");
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

void wl_write_ready(const char *path)
{
	FILE *f = wl_out_open(path);

	wl_out_u64(f, "ready", 1);
	if (wl_out_close(f, path))
		exit(2);
}

void wl_ready_wait_usr2(const char *path)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	wl_write_ready(path);
	if (sigwait(&set, &sig))
		wl_die("sigwait failed");
}

void wl_self_dir(char *buf, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		wl_die("readlink /proc/self/exe: %s", strerror(errno));
	exe[n] = 0;
	snprintf(buf, size, "%s", dirname(exe));
}

void wl_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

uint64_t wl_arg_u64(const char *s, const char *what)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s ? s : "", &end, 10);
	if (!s || !*s || *end || errno || !v)
		wl_die("invalid %s '%s': expected a positive integer", what, s ? s : "");
	return v;
}
