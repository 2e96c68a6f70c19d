// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Launch mode (fsp-bpf [OPTIONS] -- CMD): how the command starts and ends.
 * As perf record does with its workload, a session that ends before the
 * command (its -d, SIGINT or SIGTERM sent to fsp-bpf alone, as kill, timeout
 * and systemd do) ends the command with SIGTERM and waits for it; nothing is
 * left running unprofiled or stopped.
 *
 *   duration_ends_command  -d 1 on wl_service: the command gets SIGTERM at
 *                          the end of the second (it writes its final dump
 *                          on SIGTERM: it did) and exits before fsp-bpf
 *   sigint_ends_command,   SIGINT (SIGTERM) to fsp-bpf alone while the
 *   sigterm_ends_command   command runs wl_dlloop, which fsp-bpf stops at
 *                          each dlopen: it ends, never left stopped
 *   signal_while_loading   SIGTERM while fsp-bpf loads its BPF programs: the
 *                          session ends with its report as soon as the
 *                          command started, and the command with it (it
 *                          was left stopped, state T)
 *   script_exec            a #! script (and an env -S one) that execs
 *                          python3.11: every import of the program it
 *                          execs is counted (--map python) as python's own
 *                          -X importtime counts them (three runs each):
 *                          each exec of the command is held until its
 *                          probes are attached
 *
 * What a launched command leaves is read from fsp-bpf's process group (the
 * command inherits it), after fsp-bpf exited and before it is reaped (the
 * teardown kills the group when it reaps). The test is the subreaper of
 * what fsp-bpf leaves, as a container's init, tmux or a systemd user manager
 * would be: otherwise the kernel would continue a stopped leftover and send
 * it SIGHUP, its process group being orphaned, and hide it.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attrib.h"
#include "itest.h"
#include "profile_io.h"

/* Waits up to timeout_s for p to exit, without reaping it: its process
 * group is still there to look at. */
static void wait_exit_unreaped(struct itest_proc *p, double timeout_s)
{
	double deadline = itest_now() + timeout_s;
	siginfo_t si;

	for (;;) {
		memset(&si, 0, sizeof(si));
		if (!waitid(P_PID, p->pid, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid == p->pid)
			return;
		if (itest_now() > deadline)
			fail_msg("fsp-bpf (pid %d) did not exit within %.0f s", p->pid, timeout_s);
		itest_sleep(0.005);
	}
}

/* The state letter of process pid and its process group; 0 if gone. */
static char proc_state(pid_t pid, pid_t *pgrp)
{
	char path[64], buf[512], state = 0, *s;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	s = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	if (!s || sscanf(s + 1, " %c %*d %d", &state, pgrp) != 2)
		state = 0;
	fclose(f);
	return state;
}

/* The live processes of process group pgid but its leader (zombies aside);
 * how many of them are stopped in *stopped, their list in what. */
static int group_left(pid_t pgid, int *stopped, char *what, size_t size)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	*stopped = 0;
	what[0] = 0;
	while (d && (e = readdir(d))) {
		pid_t pid = atoi(e->d_name), pg = 0;
		char st;
		size_t len = strlen(what);

		if (pid <= 0 || pid == pgid)
			continue;
		st = proc_state(pid, &pg);
		if (!st || pg != pgid || st == 'Z' || st == 'X')
			continue;
		n++;
		*stopped += st == 'T' || st == 't';
		snprintf(what + len, size - len, " %d(%c)", pid, st);
	}
	if (d)
		closedir(d);
	return n;
}

/* fsp-bpf exited and left nothing of its command behind. */
static void assert_nothing_left(struct itest_proc *p, double timeout_s)
{
	char what[512];
	int stopped, n;

	wait_exit_unreaped(p, timeout_s);
	n = group_left(p->pid, &stopped, what, sizeof(what));
	if (n) {
		/* Reparented to this test (main()): killed and reaped. */
		kill(-p->pid, SIGKILL);
		kill(-p->pid, SIGCONT);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		fail_msg("fsp-bpf exited and left %d process%s of its command (%d stopped):%s", n,
			 n > 1 ? "es" : "", stopped, what);
	}
	itest_wait(p, 5);
}

/* Is a process of group pgid running exe (a base name)? */
static bool group_runs(pid_t pgid, const char *exe)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		pid_t pid = atoi(e->d_name), pg = 0;
		char path[64], target[4096];
		ssize_t len;

		if (pid <= 0 || !proc_state(pid, &pg) || pg != pgid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/exe", pid);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = 0;
		found = strrchr(target, '/') && !strcmp(strrchr(target, '/') + 1, exe);
	}
	if (d)
		closedir(d);
	return found;
}

/* fsp-bpf's stderr says needle. */
static void assert_said(const struct itest_proc *p, const char *needle)
{
	if (!strstr(p->err, needle))
		fail_msg("fsp-bpf did not say \"%s\"; its stderr:\n%s", needle, p->err);
}

static void test_duration_ends_command(void **state)
{
	const char *json = itest_tmp("d.json"), *ready = itest_tmp("ready"),
		   *dump = itest_tmp("dump");
	char *argv[] = {NULL,
			"-d",
			"1",
			"-o",
			(char *)json,
			"--",
			(char *)itest_workload("wl_service"),
			(char *)ready,
			(char *)dump,
			NULL};
	struct itest_truth *t;
	struct itest_proc p;
	json_object *prof;

	(void)state;
	argv[0] = (char *)itest_fsp_bpf();
	itest_spawn(&p, "fsp", argv);
	assert_nothing_left(&p, ITEST_TIMEOUT_S);
	itest_assert_exit(&p, 0);
	/* The command took SIGTERM as its own: its final dump, all checks passed. */
	t = itest_truth_load(itest_tmp("dump.final"));
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	itest_truth_free(t);
	assert_said(&p, "the session's 1 s are over: ending the command (SIGTERM)");
	prof = itest_json_load(json);
	assert_true(itest_feature_samples(prof, "service") > 0);
	printf("  -d 1: %.2f s, %llu samples, the command ended by SIGTERM\n", p.end_s - p.start_s,
	       (unsigned long long)itest_total_samples(prof));
	json_object_put(prof);
	free(p.out);
	free(p.err);
}

/* sig to fsp-bpf alone while it profiles wl_dlloop, a command it stops at
 * each of its dlopen()s. */
static void signal_ends_command(int sig)
{
	const char *json = itest_tmp("s.json"), *truth = itest_tmp("truth");
	char *argv[] = {
		NULL,	       "-o",	    (char *)json, "--", (char *)itest_workload("wl_dlloop"),
		(char *)truth, "100000000", "1",	  NULL};
	double deadline = itest_now() + ITEST_START_TIMEOUT_S;
	struct itest_proc p;
	json_object *prof;
	char want[64];

	argv[0] = (char *)itest_fsp_bpf();
	itest_spawn(&p, "fsp", argv);
	while (!group_runs(p.pid, "wl_dlloop")) {
		if (itest_now() > deadline || itest_poll(&p))
			fail_msg("the command did not start within %.0f s", ITEST_START_TIMEOUT_S);
		itest_sleep(0.01);
	}
	/* Well into its loop of dlopen, stop, attach, continue. */
	itest_sleep(0.2);
	itest_signal(&p, sig);
	assert_nothing_left(&p, ITEST_TIMEOUT_S);
	itest_assert_exit(&p, 0);
	snprintf(want, sizeof(want), "killed by signal %d", SIGTERM);
	assert_said(&p, want);
	prof = itest_json_load(json);
	assert_true(itest_total_samples(prof) > 0);
	json_object_put(prof);
	free(p.out);
	free(p.err);
}

static void test_sigint_ends_command(void **state)
{
	(void)state;
	signal_ends_command(SIGINT);
}

static void test_sigterm_ends_command(void **state)
{
	(void)state;
	signal_ends_command(SIGTERM);
}

static void test_signal_while_loading(void **state)
{
	const char *ready = itest_tmp("ready"), *dump = itest_tmp("dump");
	char *argv[] = {NULL,	       "--",	     (char *)itest_workload("wl_service"),
			(char *)ready, (char *)dump, NULL};
	double deadline = itest_now() + ITEST_START_TIMEOUT_S;
	struct itest_proc p;

	(void)state;
	argv[0] = (char *)itest_fsp_bpf();
	itest_spawn(&p, "fsp", argv);
	while (!itest_blocks_signal(p.pid, SIGTERM)) {
		if (itest_now() > deadline || itest_poll(&p))
			fail_msg("fsp-bpf never held SIGTERM (its loading phase)");
		itest_sleep(0.001);
	}
	itest_signal(&p, SIGTERM);
	assert_nothing_left(&p, ITEST_TIMEOUT_S);
	itest_assert_exit(&p, 0);
	if (!strstr(p.out, "feature profile of"))
		fail_msg("no report:\n%s", p.out);
	free(p.out);
	free(p.err);
}

/* Writes an executable file at path. */
static void write_script(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0755), 0);
}

/* Imports in python's -X importtime output (err): one line per import,
 * after a header line. */
static uint64_t importtime_imports(const char *err)
{
	const char *l = err;
	uint64_t n = 0;

	while ((l = strstr(l, "import time:"))) {
		n++;
		l++;
	}
	if (n < 2)
		fail_msg("python's -X importtime wrote no import:\n%s", err);
	return n - 1;
}

/* fsp-bpf --map python -- script: the imports it counted against python's
 * own count (the command writes it to fsp-bpf's stderr, which it inherits). */
static void script_imports(const char *script)
{
	const char *json = itest_tmp("py.json");
	const struct attrib_feature *f;
	struct itest_proc p;
	struct profile *pr;
	struct attrib *a;
	uint64_t truth;

	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "--map", "python", "--feature", "import", "-o",
		      json, "--", script, NULL);
	itest_assert_exit(&p, 0);
	truth = importtime_imports(p.err);
	pr = itest_profile_load(json);
	a = attrib__compute(pr, NULL);
	assert_non_null(a);
	f = itest_feature(a, "python:import");
	assert_non_null(f->events);
	printf("  %s: %llu imports counted, python counted %llu\n", strrchr(script, '/') + 1,
	       (unsigned long long)f->events->enters, (unsigned long long)truth);
	assert_int_equal(f->events->enters, truth);
	assert_int_equal(f->events->leaves, truth);
	attrib__free(a);
	profile__free(pr);
	free(p.out);
	free(p.err);
}

static void test_script_exec(void **state)
{
	const char *sh = itest_tmp("imports.sh"), *py = itest_tmp("imports.py");

	(void)state;
	/* The shell runs, then execs the probed program. */
	write_script(sh, "#!/bin/bash\n"
			 "exec /usr/bin/python3.11 -X importtime -c "
			 "'import json, decimal, email.mime.text'\n");
	/* env execs python, which runs the script. */
	write_script(py, "#!/usr/bin/env -S /usr/bin/python3.11 -X importtime\n"
			 "import json, decimal, email.mime.text\n");
	/* Without the hold at each exec, about every other run lost imports
	 * (the first ones, up to all of them): three runs of each. */
	for (int i = 0; i < 3; i++) {
		script_imports(sh);
		script_imports(py);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_duration_ends_command), ITEST(test_sigint_ends_command),
		ITEST(test_sigterm_ends_command),  ITEST(test_signal_while_loading),
		ITEST(test_script_exec),
	};

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	return ITEST_MAIN("launch", tests);
}
