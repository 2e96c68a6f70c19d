/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * wl_common - shared code of the integration-test workloads.
 *
 * Workloads measure their own ground truth: the CPU time (CLOCK_THREAD_CPUTIME_ID)
 * each thread spends inside each feature, and the CPU time of the whole window,
 * and write it as "key value" lines to a truth file that the integration tests
 * (tests/integration/itest.c) compare with fsp-bpf's profile.
 *
 * Phase accounting. A marked phase is bracketed by four clock reads:
 *
 *     a = now; ENTER; b = now; ...work...; c = now; LEAVE; d = now;
 *
 * [b, c] is certainly inside the mark. [a, b] and [c, d] hold the probe itself
 * (a uprobe trap, the BPF handler) and one clock read: where a sampler puts that
 * time is not defined, so it is *ambiguous*. A feature's truth is [b, c] plus
 * half the ambiguous time, and the ambiguous time is reported separately
 * ("<prefix>.ambig_ns"), so that the tests can add it to their tolerance
 * instead of guessing a phase-boundary error.
 *
 * Burning. wl_burn() spins on a fixed integer computation in chunks of about
 * 20 us and checks every chunk's result against a reference computed at start:
 * a profiler that corrupted registers or the stack of its target would show up
 * as wl_integrity_errors() != 0.
 */
#ifndef WL_COMMON_H
#define WL_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define WL_NS_PER_MS 1000000ULL

/* Clocks, in nanoseconds. */
uint64_t wl_thread_ns(void); /* CPU time of the calling thread */
uint64_t wl_process_ns(void); /* CPU time of the whole process (all threads, past ones too) */
uint64_t wl_mono_ns(void); /* CLOCK_MONOTONIC */

/* Spins until the calling thread has used ns more CPU time. Returns the
 * thread CPU time at the end (wl_thread_ns()). */
uint64_t wl_burn(uint64_t ns);

/* The same, from a function whose frame is at least 8 KiB deep: everything it
 * does happens far below its caller's stack pointer. */
uint64_t wl_burn_deep(uint64_t ns);

/* Chunks whose result differed from the reference, over all threads. */
uint64_t wl_integrity_errors(void);

/* A small deterministic PRNG for phase jitter: uniform in [lo, hi]. */
uint64_t wl_rand_range(uint64_t *state, uint64_t lo, uint64_t hi);

/* Per-feature CPU time: see "Phase accounting" above. */
struct wl_acc {
	uint64_t ns; /* inside the mark, plus half the ambiguous time */
	uint64_t ambig_ns; /* time of the enter/leave brackets */
};

/* A mark's phase: a before enter, b after enter, c before leave, d after leave. */
void wl_acc_span(struct wl_acc *acc, uint64_t a, uint64_t b, uint64_t c, uint64_t d);
/* An antimark's phase inside a mark of the same feature: takes it off again. */
void wl_acc_unspan(struct wl_acc *acc, uint64_t a, uint64_t b, uint64_t c, uint64_t d);
/* acc += other (thread-safe: atomics). */
void wl_acc_add(struct wl_acc *acc, const struct wl_acc *other);

/*
 * Truth files: written to PATH.tmp, then renamed to PATH, so that a reader that
 * waits for PATH never sees half a file. wl_out_open() exits the program on error.
 */
FILE *wl_out_open(const char *path);
void wl_out_u64(FILE *f, const char *key, uint64_t v);
void wl_out_str(FILE *f, const char *key, const char *v);
void wl_out_acc(FILE *f, const char *prefix, const struct wl_acc *acc);
/* Writes the common trailer (pid, integrity, rusage) and renames. Returns 0 or -1. */
int wl_out_close(FILE *f, const char *path);

/* Writes "<path>" containing "pid N\n" (readiness flag for the tests). */
void wl_write_ready(const char *path);

/* Writes the readiness flag at path, then waits, without using CPU, for
 * SIGUSR2 (blocked from then on): a test attaches meanwhile. */
void wl_ready_wait_usr2(const char *path);

/* The directory of /proc/self/exe, e.g. to dlopen a library next to it. */
void wl_self_dir(char *buf, size_t size);

/* Prints "NAME: message" to stderr and exits with status 2. */
void wl_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Parses a positive integer argument or dies. */
uint64_t wl_arg_u64(const char *s, const char *what);

#endif /* WL_COMMON_H */
