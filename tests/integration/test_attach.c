// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Attaching to running processes (-p PID) and ending the session by signal.
 *
 *   attach_mid_feature  -p PID -d 2 on a process that is inside a feature: shares
 *                       over the profiled window, diagnostics (no unmatched
 *                       leave: those of the marks open at the attach are not
 *                       the target's errors), and the process
 *                       works on after fsp-bpf detaches (semaphores lowered,
 *                       integrity checks pass, exit 0)
 *   sigint, sigterm     -p PID without -d, ended by a signal: report, JSON, exit 0
 *   armed_at_once       -p PID and -a of a process that enters a mark the
 *                       moment fsp-bpf arms its marks (wl_matrix armed): the
 *                       mark is kept, no leave is unmatched (the ABI v2
 *                       records' stacks are started afresh before they are
 *                       armed, not after; an ABI v1 enter may pass its site
 *                       after the kernel raised its semaphore and before it
 *                       wrote the breakpoint: its leave is that of a mark
 *                       entered unseen, not unmatched)
 *   late_record         -p PID of wl_matrix late: the record looked not ready
 *                       when fsp-bpf prepared the file and is ready at its
 *                       next scan, never announced (a constructor that ran
 *                       between the two): its stacks are not started afresh
 *                       then, under the marks already running (its first
 *                       mark was dropped at the nested enter and its leave
 *                       counted unmatched; 1 matrix session in ~260)
 *   inside_mark_pid     -p PID (and with --events) of a process inside a mark
 *                       it entered before the attach and leaves after, with
 *                       a mark nested in it: that leave is not unmatched, two
 *                       leaves of a mark never entered are (one below the
 *                       marks seen in its thread, one in a thread started
 *                       after the attach)
 *   detach_busy         -p PID -d of a process making ~10^5 marks a second
 *                       (wl_matrix churn), session after session, with and
 *                       without --events: the session's end detaches the
 *                       enters' and the leaves' links on threads, in no
 *                       order; a mark entered after its leave's link went
 *                       (a stale mark) or left after its enter's (unmatched)
 *                       is the detach's doing, and none is counted (ABI v1:
 *                       ~1 attach_mid_feature session in 30 had a stale mark)
 *   armed_events_pid    armed_at_once with --events, several sessions: the
 *                       ABI v1 probes of an ABI v2 file (the event view's
 *                       shadows) share a semaphore with the stacks' in the
 *                       word FSP_ENABLED() reads; armed first, it said
 *                       "attached" before the stacks were (the first mark
 *                       was not pushed, its leave found only the nested
 *                       one's frame gone: unmatched; ~1 matrix -p --events
 *                       session in 10)
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

/* armed_events_pid's sessions */
#define ARMED_ROUNDS 3
/* inside_mark_pid's sessions of each kind */
#define INSIDE_ROUNDS 2
/* detach_busy's sessions */
#define DETACH_ROUNDS 6

struct service {
	struct itest_proc proc;
	const char *ready;
	const char *dump;
	unsigned dumps;
};

static void service_start(struct service *s)
{
	char *argv[4];

	s->ready = itest_tmp("ready");
	s->dump = itest_tmp("dump");
	s->dumps = 0;
	argv[0] = (char *)itest_workload("wl_service");
	argv[1] = (char *)s->ready;
	argv[2] = (char *)s->dump;
	argv[3] = NULL;
	itest_spawn(&s->proc, "service", argv);
	if (!itest_wait_file(s->ready, 10))
		fail_msg("wl_service did not get ready within 10 s");
}

/* Asks for a dump of the counters (SIGUSR1) and reads it. */
static struct itest_truth *service_dump(struct service *s)
{
	const char *path;

	itest_signal(&s->proc, SIGUSR1);
	path = itest_tmp("dump.%u", ++s->dumps);
	if (!itest_wait_file(path, 10))
		fail_msg("wl_service did not answer SIGUSR1 within 10 s (dump %s)", path);
	return itest_truth_load(path);
}

/* SIGTERM: the service must stop cleanly, with its integrity checks passed. */
static void service_stop(struct service *s)
{
	struct itest_truth *t;

	itest_signal(&s->proc, SIGTERM);
	itest_wait(&s->proc, 10);
	itest_assert_exit(&s->proc, 0);
	t = itest_truth_load(itest_tmp("dump.final"));
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	itest_truth_free(t);
}

static void test_attach_mid_feature(void **state)
{
	static const char *const feats[] = {"service", "parse", "compute"};
	const char *json = itest_tmp("prof.json");
	struct itest_truth *a, *mid, *b;
	struct service s;
	struct itest_proc p;
	json_object *prof;
	double l_att, dC, l_c, W, T, delta;
	uint64_t n, unmatched, leaves;
	bool ok = true;

	(void)state;
	service_start(&s);
	a = service_dump(&s);
	assert_int_equal(itest_truth_u64(a, "enabled"), 0);
	l_att = itest_attach_fsp(&p, s.proc.pid, "-F", ITEST_HZ, "-d", "2", "--json", json,
				 "--min-pct", "0", NULL);
	/* While attached the semaphores are raised. */
	mid = service_dump(&s);
	assert_int_equal(itest_truth_u64(mid, "enabled"), 1);
	itest_wait(&p, ITEST_TIMEOUT_S);
	itest_assert_exit(&p, 0);
	/* After detaching they are lowered again: the marks cost nothing. */
	b = service_dump(&s);
	assert_int_equal(itest_truth_u64(b, "enabled"), 0);
	/* Nothing was written below the stack pointer of the traced code. */
	assert_int_equal(itest_truth_u64(b, "redzone_errors"), 0);
	assert_int_equal(itest_truth_u64(b, "integrity_errors"), 0);

	prof = itest_json_load(json);
	itest_assert_labels_resolved(prof);
	assert_true(itest_has_pid(prof, s.proc.pid));
	n = itest_total_samples(prof);
	T = (double)itest_json_u64(prof, "period_ns");
	W = n * T;
	dC = (double)(itest_truth_u64(b, "cpu_total_ns") - itest_truth_u64(a, "cpu_total_ns"));
	l_c = dC / (double)(itest_truth_u64(b, "cycles") - itest_truth_u64(a, "cycles"));
	delta = (2 * l_c + l_att * 1e9) / W;
	print_message("  window: %.0f ms of CPU between the dumps, %.0f ms sampled; cycle %.2f ms, "
		      "attach <= %.0f ms: delta_b %.2f%%\n",
		      dC / 1e6, W / 1e6, l_c / 1e6, l_att * 1e3, 100 * delta);
	/* -d 2 on a busy thread: up to 2 s of samples (less on a loaded machine). */
	assert_true(n >= 500);
	for (size_t i = 0; i < 3; i++) {
		double ns = (double)(itest_truth_u64(b, "feature.%s.ns", feats[i]) -
				     itest_truth_u64(a, "feature.%s.ns", feats[i]));
		double ambig = (double)(itest_truth_u64(b, "feature.%s.ambig_ns", feats[i]) -
					itest_truth_u64(a, "feature.%s.ambig_ns", feats[i]));

		ok &= itest_share_ok(feats[i], itest_feature_samples(prof, feats[i]), n, ns / dC,
				     ambig / (2 * dC) + delta);
	}
	/* Attached mid-feature: the leaves of marks opened before the attach
	 * match nothing, and are not the target's errors (docs/attribution.md,
	 * "Attaching in mid-feature"): none is counted. */
	unmatched = itest_diag(prof, "unmatched_leaves");
	leaves = itest_truth_u64(b, "leaves") - itest_truth_u64(a, "leaves");
	print_message("  unmatched_leaves %llu (of %llu leaves in the window)\n",
		      (unsigned long long)unmatched, (unsigned long long)leaves);
	assert_int_equal(unmatched, 0);
	assert_int_equal(itest_diag(prof, "stale_marks"), 0);
	ITEST_ASSERT_OK(ok);
	/* The process works on after fsp-bpf left. */
	itest_truth_free(service_dump(&s));
	service_stop(&s);
	itest_truth_free(a);
	itest_truth_free(mid);
	itest_truth_free(b);
	json_object_put(prof);
	free(p.out);
	free(p.err);
}

static void signal_case(int sig)
{
	const char *json = itest_tmp("prof.json");
	struct service s;
	struct itest_proc p;
	json_object *prof;
	double dur, t_sig;

	service_start(&s);
	itest_attach_fsp(&p, s.proc.pid, "--json", json, NULL);
	itest_sleep(1.0);
	t_sig = itest_now();
	itest_signal(&p, sig);
	itest_wait(&p, ITEST_TIMEOUT_S);
	print_message("  fsp-bpf exited %.2f s after signal %d\n", p.end_s - t_sig, sig);
	itest_assert_exit(&p, 0);
	/* The text report, with the features it saw. */
	if (!strstr(p.out, "parse") || !strstr(p.out, "compute"))
		fail_msg("no report with the features on stdout:\n%s", p.out);
	prof = itest_json_load(json);
	itest_assert_labels_resolved(prof);
	assert_true(itest_has_pid(prof, s.proc.pid));
	assert_true(itest_feature_samples(prof, "parse") > 0);
	assert_true(itest_feature_samples(prof, "compute") > 0);
	/* It profiled until the signal: ~1 s of a busy thread. */
	dur = itest_json_double(prof, "duration_s");
	print_message("  duration_s %.3f, total_samples %llu\n", dur,
		      (unsigned long long)itest_total_samples(prof));
	assert_true(dur >= 0.9 && dur <= 5);
	assert_true(itest_total_samples(prof) >= 100);
	/* The target is not harmed by the signal to fsp-bpf. */
	assert_false(itest_poll(&s.proc));
	itest_truth_free(service_dump(&s));
	service_stop(&s);
	json_object_put(prof);
	free(p.out);
	free(p.err);
}

/* The profile of a wl_matrix armed or inside session (feature: its first
 * mark's) has unmatched leaves, no stale mark, and the nested instance's
 * 20 ms of CPU inside the first mark. */
static void check_leaves(json_object *prof, const char *feature, uint64_t unmatched)
{
	print_message("  %s: %llu samples, %llu unmatched leaves (%llu expected), %llu stale "
		      "marks\n",
		      feature, (unsigned long long)itest_feature_samples(prof, feature),
		      (unsigned long long)itest_diag(prof, "unmatched_leaves"),
		      (unsigned long long)unmatched,
		      (unsigned long long)itest_diag(prof, "stale_marks"));
	assert_int_equal(itest_diag(prof, "unmatched_leaves"), unmatched);
	assert_int_equal(itest_diag(prof, "stale_marks"), 0);
	assert_true(itest_instance_samples(prof, feature, "nested") > 0);
}

/* wl_matrix SHAPE (armed or late), attached by -p or (syswide) -a --comm,
 * with --events when events: its first mark, entered at once, is charged
 * and left. */
static void armed_case(const char *shape, bool syswide, bool events)
{
	const char *json = itest_tmp("prof.json"), *prog = itest_workload("wl_matrix");
	char pid[16], comm[16], *argv[16] = {NULL, "-o", (char *)json};
	struct itest_proc wl, fsp;
	json_object *prof;
	int n = 3;

	if (itest_abi_v1() && !strcmp(shape, "late")) {
		print_message("  SKIP: late clears an ABI v2 record; ABI v1 has none\n");
		skip();
	}
	if (events)
		argv[n++] = "--events";
	if (syswide) {
		snprintf(comm, sizeof(comm), "armed%d", (int)getpid() % 100000);
		prog = itest_fresh_copy("a", "wl_matrix");
		assert_int_equal(rename(prog, itest_tmp("a/%s", comm)), 0);
		prog = itest_tmp("a/%s", comm);
		argv[n++] = "-a";
		argv[n++] = "--comm";
		argv[n++] = comm;
		itest_start_fsp(&fsp, argv);
	}
	itest_spawn(&wl, "armed", (char *[]){(char *)prog, (char *)shape, "100", "attached", NULL});
	/* late: its record is not ready before fsp-bpf looks at it */
	if (!strcmp(shape, "late"))
		assert_true(itest_wait_text(wl.out_path, "cleared", ITEST_TIMEOUT_S));
	if (!syswide) {
		snprintf(pid, sizeof(pid), "%d", wl.pid);
		argv[n++] = "-p";
		argv[n++] = pid;
		itest_run_fspv(&fsp, "fsp", ITEST_TIMEOUT_S, argv);
	}
	itest_wait(&wl, ITEST_TIMEOUT_S);
	itest_assert_exit(&wl, 0);
	if (syswide)
		itest_stop_fsp(&fsp);
	itest_assert_exit(&fsp, 0);
	prof = itest_json_load(json);
	check_leaves(prof, "armed", 0);
	json_object_put(prof);
}

static void test_armed_at_once_pid(void **state)
{
	(void)state;
	armed_case("armed", false, false);
}

static void test_armed_at_once_syswide(void **state)
{
	(void)state;
	armed_case("armed", true, false);
}

static void test_late_record(void **state)
{
	(void)state;
	armed_case("late", false, false);
}

/* The same with --events: an ABI v2 file's ABI v1 probes (the shadows that
 * count events) share one semaphore, which FSP_ENABLED() reads with the
 * stacks' own. Several sessions, one after the other. */
static void test_armed_events_pid(void **state)
{
	(void)state;
	for (int i = 0; i < ARMED_ROUNDS; i++)
		armed_case("armed", false, true);
}

/* wl_matrix inside, attached by -p (with --events when events) while it is
 * inside a mark it leaves after the attach, with a mark nested in it: that
 * leave is not unmatched (the mark was entered before the attach); the
 * workload's two leaves of a mark never entered (below the marks seen in
 * its thread, and in a thread started after the attach) are. */
static void inside_case(bool events)
{
	const char *json = itest_tmp("prof.json"), *ready = itest_tmp("inside.ready");
	char *argv[] = {(char *)itest_workload("wl_matrix"),
			"inside",
			"100",
			"attached",
			(char *)ready,
			NULL};
	struct itest_proc wl, fsp;
	json_object *prof;

	unlink(ready);
	itest_spawn(&wl, "inside", argv);
	assert_true(itest_wait_file(ready, ITEST_TIMEOUT_S));
	if (events)
		itest_attach_fsp(&fsp, wl.pid, "-F", ITEST_HZ, "--events", "-o", json, NULL);
	else
		itest_attach_fsp(&fsp, wl.pid, "-F", ITEST_HZ, "-o", json, NULL);
	itest_signal(&wl, SIGUSR2);
	itest_wait(&wl, ITEST_TIMEOUT_S);
	itest_assert_exit(&wl, 0);
	itest_wait(&fsp, ITEST_TIMEOUT_S);
	itest_assert_exit(&fsp, 0);
	prof = itest_json_load(json);
	if (events)
		print_message("  with --events\n");
	check_leaves(prof, "held", 2); /* the ghosts */
	json_object_put(prof);
}

/* Several sessions, with and without --events. */
static void test_inside_mark_pid(void **state)
{
	(void)state;
	for (int i = 0; i < 2 * INSIDE_ROUNDS; i++)
		inside_case(i % 2);
}

/* Session after session on one process busy with marks: no probe counts
 * once the session ended, while its links are being detached. */
static void test_detach_busy(void **state)
{
	const char *json = itest_tmp("prof.json");
	char *argv[] = {(char *)itest_workload("wl_matrix"), "churn", "60000", "attached", NULL};
	struct itest_proc wl, fsp;
	json_object *prof;

	(void)state;
	itest_spawn(&wl, "churn", argv);
	for (int i = 0; i < DETACH_ROUNDS; i++) {
		bool events = i % 2;

		if (events)
			itest_attach_fsp(&fsp, wl.pid, "-F", ITEST_HZ, "-d", "0.3", "--events",
					 "-o", json, NULL);
		else
			itest_attach_fsp(&fsp, wl.pid, "-F", ITEST_HZ, "-d", "0.3", "-o", json,
					 NULL);
		itest_wait(&fsp, ITEST_TIMEOUT_S);
		itest_assert_exit(&fsp, 0);
		prof = itest_json_load(json);
		print_message("  session %d%s: %llu samples, %llu unmatched leaves, %llu stale "
			      "marks\n",
			      i, events ? " (--events)" : "",
			      (unsigned long long)itest_feature_samples(prof, "churn"),
			      (unsigned long long)itest_diag(prof, "unmatched_leaves"),
			      (unsigned long long)itest_diag(prof, "stale_marks"));
		assert_true(itest_feature_samples(prof, "churn") > 0);
		assert_int_equal(itest_diag(prof, "unmatched_leaves"), 0);
		assert_int_equal(itest_diag(prof, "stale_marks"), 0);
		json_object_put(prof);
		free(fsp.out);
		free(fsp.err);
	}
	/* The target ran on through every attach and detach. */
	assert_false(itest_poll(&wl));
	itest_kill(&wl);
}

static void test_sigint(void **state)
{
	(void)state;
	signal_case(SIGINT);
}

static void test_sigterm(void **state)
{
	(void)state;
	signal_case(SIGTERM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_attach_mid_feature),
		ITEST(test_sigint),
		ITEST(test_sigterm),
		ITEST(test_armed_at_once_pid),
		ITEST(test_armed_at_once_syswide),
		ITEST(test_late_record),
		ITEST(test_armed_events_pid),
		ITEST(test_inside_mark_pid),
		ITEST(test_detach_busy),
	};

	return ITEST_MAIN("attach", tests);
}
