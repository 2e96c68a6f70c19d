// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Bad input: every case must end within ITEST_TIMEOUT_S with a non-zero exit
 * status (not a signal) and exactly one "fsp-bpf: " line on stderr that names
 * the problem.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itest.h"

#define EX_USAGE 64

/* A PID that names no process. */
static pid_t unused_pid(void)
{
	for (pid_t pid = 999999; pid < 4000000; pid++)
		if (kill(pid, 0) && errno == ESRCH)
			return pid;
	fail_msg("no unused PID found");
	return -1;
}

static void test_no_such_pid(void **state)
{
	struct itest_proc p;
	char pid[16];

	(void)state;
	snprintf(pid, sizeof(pid), "%d", unused_pid());
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "-p", pid, "-d", "1", NULL);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "no such process", pid, NULL);
}

static void test_pid_without_probes(void **state)
{
	char *argv[] = {"/bin/sleep", "30", NULL};
	struct itest_proc s, p;
	char pid[16];

	(void)state;
	itest_spawn(&s, "sleep", argv);
	/* Wait until it is sleep (not still our fork, which has no probes either). */
	for (int i = 0; i < 500; i++) {
		char path[64], *exe;

		snprintf(path, sizeof(path), "/proc/%d/comm", s.pid);
		exe = itest_slurp(path);
		if (exe && !strncmp(exe, "sleep", 5)) {
			free(exe);
			break;
		}
		free(exe);
		itest_sleep(0.002);
	}
	snprintf(pid, sizeof(pid), "%d", s.pid);
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "-p", pid, "-d", "1", NULL);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "no fsp", "probes", NULL);
	/* And the process is left alone. */
	assert_false(itest_poll(&s));
	itest_kill(&s);
}

static void bad_option(const char *opt, const char *value, const char *needle)
{
	struct itest_proc p;

	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, opt, value, "-p", "1", NULL);
	itest_assert_exit(&p, EX_USAGE);
	itest_assert_one_error_line(&p, needle, value, NULL);
}

static void test_bad_frequency(void **state)
{
	(void)state;
	bad_option("-F", "0", "frequency");
	bad_option("-F", "abc", "frequency");
	bad_option("-F", "100001", "frequency");
}

static void test_bad_duration(void **state)
{
	(void)state;
	bad_option("-d", "-1", "duration");
	bad_option("-d", "x", "duration");
	bad_option("-d", "0", "duration");
}

/*
 * --listen's bad input: an address reachable from other hosts without TLS,
 * an authorization file or --listen-insecure is refused before anything is
 * loaded; so are a bad port and a bad --metrics-by; a port in use fails at
 * once, naming the address.
 */
static void test_bad_listen(void **state)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sa);
	struct itest_proc p;
	char port[16], self[16];
	int fd;

	(void)state;
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "--listen", "0.0.0.0:9464", "-p", "1", NULL);
	itest_assert_exit(&p, EX_USAGE);
	itest_assert_one_error_line(&p, "0.0.0.0:9464", "--tls-cert", "--auth-file",
				    "--listen-insecure", NULL);
	itest_run_fsp(&p, "fsp6", ITEST_TIMEOUT_S, "--listen", "[::]:9464", "-p", "1", NULL);
	itest_assert_exit(&p, EX_USAGE);
	itest_assert_one_error_line(&p, "[::]:9464", "--listen-insecure", NULL);
	bad_option("--listen", "65536", "--listen");
	bad_option("--listen", "myhost:9464", "--listen");
	itest_run_fsp(&p, "fsp-by", ITEST_TIMEOUT_S, "--listen", "0", "--metrics-by", "tid", "-p",
		      "1", NULL);
	itest_assert_exit(&p, EX_USAGE);
	itest_assert_one_error_line(&p, "--metrics-by", "tid", NULL);
	/* A port some other program holds. */
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	snprintf(port, sizeof(port), "%u", ntohs(sa.sin_port));
	/* -p of a process fsp-bpf may read (this one): the port is the error */
	snprintf(self, sizeof(self), "%d", (int)getpid());
	itest_run_fsp(&p, "fsp-busy", ITEST_TIMEOUT_S, "--listen", port, "-p", self, NULL);
	close(fd);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "cannot listen", port, "in use", NULL);
}

static void test_not_root(void **state)
{
	struct itest_proc p;
	char *argv[] = {"/usr/bin/setpriv",
			"--reuid=65534",
			"--regid=65534",
			"--clear-groups",
			(char *)itest_fsp_bpf(),
			"-p",
			"1",
			"-d",
			"1",
			NULL};

	(void)state;
	if (access(argv[0], X_OK))
		skip();
	itest_spawn(&p, "fsp", argv);
	itest_wait(&p, ITEST_TIMEOUT_S);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "CAP_BPF", "CAP_PERFMON", "root", NULL);
}

static void test_command_not_found(void **state)
{
	struct itest_proc p;

	(void)state;
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "--", "/nonexistent/wl-command", "arg", NULL);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "/nonexistent/wl-command", "no such file", NULL);
	/* Same through PATH. */
	itest_run_fsp(&p, "fsp2", ITEST_TIMEOUT_S, "--", "wl-no-such-command-xyz", NULL);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "wl-no-such-command-xyz", NULL);
}

static void test_command_not_executable(void **state)
{
	const char *junk = itest_tmp("junk"), *plain = itest_tmp("plain");
	struct itest_proc p;
	FILE *f;

	(void)state;
	/* Executable bit, but not a program: exec() fails with ENOEXEC. */
	f = fopen(junk, "w");
	assert_non_null(f);
	fputs("\x7f"
	      "ELF garbage\n",
	      f);
	fclose(f);
	chmod(junk, 0755);
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "--", junk, NULL);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, junk, NULL);
	/* No executable bit. */
	f = fopen(plain, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\n", f);
	fclose(f);
	chmod(plain, 0644);
	itest_run_fsp(&p, "fsp2", ITEST_TIMEOUT_S, "--", plain, NULL);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, plain, "permission denied", NULL);
}

/* A process that has exited but was not reaped yet. */
static void test_pid_zombie(void **state)
{
	char *argv[] = {"/bin/true", NULL};
	struct itest_proc z, p;
	char pid[16], path[64], *st;

	(void)state;
	itest_spawn(&z, "true", argv);
	/* Wait until it is a zombie, without reaping it. */
	snprintf(path, sizeof(path), "/proc/%d/stat", z.pid);
	for (int i = 0;; i++) {
		char *s;

		st = itest_slurp(path);
		s = st ? strrchr(st, ')') : NULL;
		if (s && s[1] == ' ' && s[2] == 'Z')
			break;
		free(st);
		if (i > 2000)
			fail_msg("/bin/true did not exit");
		itest_sleep(0.002);
	}
	free(st);
	snprintf(pid, sizeof(pid), "%d", z.pid);
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "-p", pid, "-d", "1", NULL);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, pid, "exited", NULL);
	itest_wait(&z, 5);
}

struct reaper {
	pid_t pid;
	int status;
};

static void *reap(void *arg)
{
	struct reaper *r = arg;

	while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
		;
	return NULL;
}

/*
 * A target that exits in the middle of the attach: wl_service exit-on-attach
 * exits US microseconds after its first probe is armed, and a thread of ours
 * reaps it at once (as a shell would), so the process is gone while fsp-bpf
 * attaches the rest. The window is narrow, so the test tries a few delays.
 * Each time fsp-bpf must say that the process exited (or, if it finished
 * attaching first, report the little it saw), and never hang or crash.
 */
static void exits_during_attach(unsigned attempt, const char *delay_us)
{
	const char *ready = itest_tmp("ready%u", attempt), *dump = itest_tmp("dump%u", attempt);
	const char *wl = itest_workload("wl_service");
	struct reaper r = {0, -1};
	struct itest_proc p;
	char pid[16], tag[16];
	pthread_t th;

	r.pid = fork();
	assert_true(r.pid >= 0);
	if (r.pid == 0) {
		execl(wl, "wl_service", ready, dump, "exit-on-attach", delay_us, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(pthread_create(&th, NULL, reap, &r), 0);
	if (!itest_wait_file(ready, 10)) {
		kill(r.pid, SIGKILL);
		pthread_join(th, NULL);
		fail_msg("wl_service did not get ready");
	}
	snprintf(pid, sizeof(pid), "%d", r.pid);
	snprintf(tag, sizeof(tag), "fsp%u", attempt);
	itest_run_fsp(&p, tag, ITEST_TIMEOUT_S, "-p", pid, "-d", "5", NULL);
	kill(r.pid, SIGKILL); /* in case it did not see the attach */
	pthread_join(th, NULL);
	print_message("  exit %4s us after the attach: fsp-bpf status 0x%x after %.2f s: %s\n",
		      delay_us, p.status, p.end_s - p.start_s,
		      WIFEXITED(p.status) && !WEXITSTATUS(p.status) ? "finished attaching first"
								    : p.err);
	assert_true(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	if (WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0) {
		/* It won the race: a report of a process that ended at once. */
		if (!strstr(p.out, "feature profile"))
			fail_msg("exit 0 but no report:\n%s", p.out);
		/* -d 5: it must have stopped because the target exited. */
		assert_true(p.end_s - p.start_s < 4.5);
	} else {
		itest_assert_failed_cleanly(&p);
		itest_assert_one_error_line(&p, pid, "exited", NULL);
	}
	free(p.out);
	free(p.err);
}

static void test_pid_exits_during_attach(void **state)
{
	static const char *const delays[] = {"0", "0", "0", "20", "50", "100", "200", "500"};

	(void)state;
	for (unsigned i = 0; i < sizeof(delays) / sizeof(delays[0]); i++)
		exits_during_attach(i, delays[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_no_such_pid),       ITEST(test_pid_without_probes),
		ITEST(test_bad_frequency),     ITEST(test_bad_duration),
		ITEST(test_bad_listen),	       ITEST(test_not_root),
		ITEST(test_command_not_found), ITEST(test_command_not_executable),
		ITEST(test_pid_zombie),	       ITEST(test_pid_exits_during_attach),
	};

	return ITEST_MAIN("errors", tests);
}
