/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * itest - helpers of the root integration tests: run fsp-bpf and workloads with
 * timeouts, read fsp-bpf's JSON profile and a workload's ground truth, and
 * compare shares with a tolerance derived from sampling statistics (the
 * derivation is at the top of itest.c).
 *
 * Environment (set by `make integration`):
 *   FSP_BPF  absolute path of the fsp-bpf binary
 *   FSP_OUT  absolute path of .output (workloads are in $FSP_OUT/workloads)
 *   FSP_ABI  v2 (default): the workloads built with usdt/fsp.h as is (probe ABI
 *            v2); v1: those built with -DFSP_ABI_V1 ($FSP_OUT/workloads-v1).
 *            Tests run the same assertions against both.
 *   ITEST_FILTER  optional: run only the tests whose name matches (a glob)
 *
 * Every test must be registered with itest_teardown (ITEST(fn) does it): it
 * kills whatever the test spawned and did not reap (a failed assertion leaves
 * the test function early) and removes the test's scratch directory.
 */
#ifndef ITEST_H
#define ITEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <cmocka.h>
#include <json-c/json.h>

/* Default limit for any fsp-bpf run: a hang fails the test instead of the suite. */
#define ITEST_TIMEOUT_S 20.0

/* Sampling frequency the accuracy tests use: more samples, tighter tolerances. */
#define ITEST_HZ "1999"

#define ITEST(fn) cmocka_unit_test_setup_teardown(fn, itest_setup, itest_teardown)

int itest_setup(void **state);
int itest_teardown(void **state);

/* Runs the group; prints a skip notice and skips everything when not root.
 * It holds the integration lock (itest.c) while it runs. */
int itest_run_group(const char *name, const struct CMUnitTest *tests, size_t n);
/* The same for a long group whose tests take the lock each for itself: their
 * set-up and tear-down are itest_setup_locked and itest_teardown_locked
 * (other checkouts' tests may run between two of them). */
int itest_run_group_each(const char *name, const struct CMUnitTest *tests, size_t n);
int itest_setup_locked(void **state);
int itest_teardown_locked(void **state);
#define ITEST_MAIN(name, tests) itest_run_group(name, tests, sizeof(tests) / sizeof(tests[0]))

/* ---- paths ---------------------------------------------------------------------- */

const char *itest_fsp_bpf(void);
/*
 * Paths are returned in a ring of 64 static buffers: each stays valid for the
 * next 63 calls of itest_workload/itest_tmp, plenty for one test.
 */
/* Are the workloads built with probe ABI v1 (FSP_ABI=v1)? */
bool itest_abi_v1(void);
/* $FSP_OUT/workloads/NAME (workloads-v1 with FSP_ABI=v1), checked to exist. */
const char *itest_workload(const char *name);
/* A path in this test's scratch directory (mode 0755, removed by the teardown;
 * set ITEST_KEEP=1 to keep it). */
const char *itest_tmp(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- processes ------------------------------------------------------------------- */

struct itest_proc {
	pid_t pid;
	bool exited;
	int status; /* wait status, when exited */
	char out_path[4096]; /* captured stdout */
	char err_path[4096]; /* captured stderr */
	double start_s, end_s; /* CLOCK_MONOTONIC */
	char *out, *err; /* contents, after itest_wait */
};

/*
 * Starts argv[0] (a path) in its own process group with stdout and stderr
 * captured in the scratch directory (files named after tag). Fails the test on
 * error. The process group is killed by the teardown if still there.
 */
void itest_spawn(struct itest_proc *p, const char *tag, char *const argv[]);

/*
 * Waits up to timeout_s for p to exit, then reads its output. On timeout the
 * process group is killed and the test fails.
 */
void itest_wait(struct itest_proc *p, double timeout_s);

/* Non-blocking: has p exited? Reaps it if so. */
bool itest_poll(struct itest_proc *p);

/* Sends sig to p's process (not its group). */
void itest_signal(struct itest_proc *p, int sig);

/* A workload waiting for SIGUSR2 (wl_ready_wait_usr2) that fsp-bpf has
 * attached to with -p: lets it go, waits for it to exit 0, then for fsp-bpf,
 * whose session ends with its target, to exit 0. */
void itest_go_attached(struct itest_proc *w, struct itest_proc *fsp);
/* Has process pid blocked sig (SigBlk in /proc/PID/status)? fsp-bpf holds
 * SIGINT and SIGTERM from before it loads its BPF programs. */
bool itest_blocks_signal(pid_t pid, int sig);

/* Kills p's process group and reaps p (no-op if already reaped). */
void itest_kill(struct itest_proc *p);

/* Runs fsp-bpf with the given arguments (NULL-terminated) to completion. */
void itest_run_fsp(struct itest_proc *p, const char *tag, double timeout_s, ...)
	__attribute__((sentinel));
/* The same with an argument vector (argv[0] is replaced by fsp-bpf's path). */
void itest_run_fspv(struct itest_proc *p, const char *tag, double timeout_s, char **argv);

/*
 * Starts fsp-bpf ARGS... -p PID in the background (ARGS NULL-terminated) and
 * waits for its "fsp-bpf: profiling" line; fails the test if it does not come
 * within 15 s. Returns the seconds that took: an upper bound of the attach time.
 */
double itest_attach_fsp(struct itest_proc *p, pid_t pid, ...) __attribute__((sentinel));

/* fsp-bpf's start-up (loading BPF, -a's first /proc scan) on a loaded machine. */
#define ITEST_START_TIMEOUT_S 30.0

/* Starts fsp-bpf with argv (argv[0] is replaced by its path; NULL-terminated)
 * in the background and waits for its "fsp-bpf: profiling" line. */
void itest_start_fsp(struct itest_proc *p, char **argv);
/* Ends it with Ctrl-C: exit 0, the profile written. */
void itest_stop_fsp(struct itest_proc *p);

/*
 * A copy of workload name in the scratch directory's subdirectory dir (same
 * base name, so the same comm): a file no other process maps, whose probes
 * nobody attached before (other test suites may run the workloads of
 * .output at the same time). Returns its path (an itest_tmp slot).
 */
const char *itest_fresh_copy(const char *dir, const char *name);

/* Exit status checks, with the process's stderr in the failure message. */
void itest_assert_exit(const struct itest_proc *p, int code);
void itest_assert_failed_cleanly(const struct itest_proc *p); /* exit != 0, not a signal */

/* Waits until path exists (a workload's ready or dump file). */
bool itest_wait_file(const char *path, double timeout_s);
/* Waits until the file at path contains needle (e.g. fsp-bpf's stderr). */
bool itest_wait_text(const char *path, const char *needle, double timeout_s);

char *itest_slurp(const char *path); /* NULL if unreadable; caller frees */
/* Runs the printf-formatted command with sh -c; true if it exited 0. */
bool itest_shell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double itest_now(void); /* CLOCK_MONOTONIC seconds */
void itest_sleep(double s);

/*
 * Checks fsp-bpf's error output: exactly one line starts with "fsp-bpf: " and
 * it contains every needle (case-insensitive; NULL-terminated list).
 */
void itest_assert_one_error_line(const struct itest_proc *p, ...) __attribute__((sentinel));

/* ---- the JSON profile ---------------------------------------------------------- */

json_object *itest_json_load(const char *path); /* fails the test on error */
uint64_t itest_json_u64(json_object *o, const char *key);
double itest_json_double(json_object *o, const char *key);
uint64_t itest_total_samples(json_object *prof);
uint64_t itest_feature_samples(json_object *prof, const char *feature); /* 0 if absent */
uint64_t itest_instance_samples(json_object *prof, const char *feature, const char *instance);
uint64_t itest_diag(json_object *prof, const char *name); /* fails if absent */
bool itest_has_pid(json_object *prof, pid_t pid);
/* The threads[] entry of tid, NULL if absent. */
json_object *itest_thread(json_object *prof, pid_t tid);
/* Recomputes the attribution of one process from stacks[] and samples[]
 * (frames and sample rows as arrays, labels in strings[]). */
void itest_attrib_pid(json_object *prof, pid_t pid, const char *feature, uint64_t *charged,
		      uint64_t *total);
/* The same for thread tid of process pid only. */
void itest_attrib_thread(json_object *prof, pid_t pid, pid_t tid, const char *feature,
			 uint64_t *charged, uint64_t *total);
/* Fails the test if any feature or instance name, or any label of strings[],
 * looks like an unresolved label. */
void itest_assert_labels_resolved(json_object *prof);

/* ---- the profile through the analysis library ------------------------------ */

struct profile;
struct attrib;
struct attrib_feature;
struct attrib_instance;

/* profile__load, failing the test with the loader's message on error. */
struct profile *itest_profile_load(const char *path);
/* The same with the function features it was recorded with charged, as
 * fsp-bpf report does (funcfeat__apply); fails the test without them. */
struct profile *itest_profile_charged(const char *path);
/* The feature of that exact name, NULL if absent. */
const struct attrib_feature *itest_find_feature(const struct attrib *a, const char *name);
/* The same, failing the test if absent. */
const struct attrib_feature *itest_feature(const struct attrib *a, const char *name);
/* Instance `name` of feature f, failing the test if absent. */
const struct attrib_instance *itest_instance(const struct attrib *a, const char *f,
					     const char *name);

/* ---- a workload's ground truth ----------------------------------------------- */

struct itest_truth;
struct itest_truth *itest_truth_load(const char *path); /* fails the test on error */
void itest_truth_free(struct itest_truth *t);
bool itest_truth_has(const struct itest_truth *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
uint64_t itest_truth_u64(const struct itest_truth *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *itest_truth_str(const struct itest_truth *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- tolerances (see the derivation in itest.c) -------------------------------- */

/* 4 sigma + delta + 1/n for a share p measured with n samples. */
double itest_tolerance(double p, uint64_t n, double delta);
/* Shares are compared with tolerances up to this much rounding: k/n that is
 * exactly one sample (1/n) off must pass a 1/n tolerance. */
#define ITEST_EPS 1e-9

/*
 * Is k/n within itest_tolerance(p, n, delta) of p? Prints the comparison
 * either way, so a failing run shows every number.
 */
bool itest_share_ok(const char *what, uint64_t k, uint64_t n, double p, double delta);

/*
 * The test's power: is k/n *outside* the tolerance around p_wrong (what a
 * broken profiler would report)? Prints the comparison.
 */
bool itest_share_rejects(const char *what, uint64_t k, uint64_t n, double p_wrong, double delta);

/*
 * Compares k (samples charged to what fsp-bpf reports) over n with the truth
 * "<key>.ns" over cpu_total_ns, with delta = "<key>.ambig_ns" / (2 C) (phase
 * boundaries) + delta_window.
 */
bool itest_truth_share_ok(const char *what, uint64_t k, uint64_t n, const struct itest_truth *t,
			  const char *key, double cpu_total_ns, double delta_window);

/*
 * The denominator: total_samples x period_ns must be the CPU time the workload
 * measured, cpu_total_ns. Each stretch a thread runs on one CPU yields its
 * length / T samples give or take one, and there are at most ctx_switches + 1
 * stretches per thread (rusage, all threads); ticks that fall while a uprobe's
 * BPF program runs are skipped (bounded by the ambiguous time ambig_ns); the
 * exit adds up to E_exit; a virtual machine's steal time S during the run
 * makes the timer tick late (itest.c):
 *   |n T - C| <= (ctx_switches + threads) T + ambig_ns + E_exit + S.
 */
bool itest_count_ok(json_object *prof, const struct itest_truth *t, unsigned threads,
		    double ambig_ns);

/* The machine's steal time during the last itest_run_fsp(v), ns, plus one
 * USER_HZ tick per CPU (its resolution): at most so much CPU time of the
 * run went without its samples (itest_count_ok). */
double itest_steal_bound_ns(void);

/* Fails the test if a comparison printed above failed. */
#define ITEST_ASSERT_OK(ok)                                                                        \
	do {                                                                                       \
		if (!(ok))                                                                         \
			fail_msg("%s", "a comparison marked FAIL above is outside its tolerance"); \
	} while (0)

/* E_exit: CPU time after a workload's last clock read (truth file, exit). */
#define ITEST_EXIT_NS 1e6

#endif /* ITEST_H */
