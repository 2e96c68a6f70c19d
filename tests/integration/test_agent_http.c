// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The agent's endpoints as clients see them: a pprof window of a session
 * with --stacks read by go tool pprof (native frames under the feature's
 * root frame), concurrent windows served while /metrics still answers,
 * the requests it refuses (bad seconds= and format=, other methods,
 * unknown paths), with the status codes a client can act on, and the
 * agent of a launched command, which ends with it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_util.h"
#include "itest.h"

#define NR_WINDOWS 3

static void spawn_burst(struct itest_proc *wl, const char *ready)
{
	char *argv[] = {(char *)itest_workload("wl_agent"), (char *)ready, "burst", NULL};

	agu_spawn_workload(wl, ready, argv);
}

/* Whether one trace of `go tool pprof -traces` output (blocks between lines
 * of dashes, a frame a line) holds both frames. */
static bool trace_with(const char *traces, const char *a, const char *b)
{
	bool has_a = false, has_b = false;

	for (const char *l = traces; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char frame[256];

		snprintf(frame, sizeof(frame), "%.*s", (int)strcspn(l, "\n"), l);
		if (!strncmp(frame, "-----------+", 12)) {
			if (has_a && has_b)
				return true;
			has_a = has_b = false;
			continue;
		}
		has_a |= strstr(frame, a) != NULL;
		has_b |= strstr(frame, b) != NULL;
	}
	return has_a && has_b;
}

/*
 * record --stacks --listen: go tool pprof -traces on a window over one burst
 * of "alpha" (600 ms in wl_burn) shows a trace with the workload's native
 * function wl_burn and the feature's root frame alpha together.
 */
static void test_pprof_stacks(void **state)
{
	AGU_TMP(ready, "ready");
	char url[128];
	struct itest_proc wl, fsp, go;
	unsigned int port;
	double deadline;

	(void)state;
	spawn_burst(&wl, ready);
	port = agu_start_agent(&fsp, "fsp", "0", wl.pid, (const char *const[]){"--stacks", NULL});
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/debug/pprof/profile?seconds=5", port);
	setenv("PPROF_TMPDIR", itest_tmp("pprof"), 1);
	{
		char *argv[] = {"/usr/bin/go", "tool", "pprof", "-traces", url, NULL};

		itest_spawn(&go, "pprof", argv);
	}
	for (deadline = itest_now() + 20; agu_gauge(port, "fsp_agent_windows") < 1;
	     itest_sleep(0.1))
		if (itest_now() > deadline)
			fail_msg("the window did not start");
	itest_signal(&wl, SIGUSR1);
	assert_true(itest_wait_file(itest_tmp("ready.1"), 30));
	itest_wait(&go, 60);
	itest_assert_exit(&go, 0);
	if (!trace_with(go.out, "wl_burn", "alpha"))
		fail_msg("no trace of go tool pprof -traces holds wl_burn and alpha:\n%.3000s",
			 go.out);
	itest_signal(&wl, SIGTERM);
	itest_wait(&wl, 15);
	itest_stop_fsp(&fsp);
}

/*
 * NR_WINDOWS pprof windows of 3 s at once, and /metrics answered while they
 * are under way (the gauge shows them all); each window a gzipped profile
 * (the gzip magic) that go tool pprof reads. Then what is refused: seconds=
 * out of its range or not a number and an unknown format= (400), a method
 * other than GET and HEAD (405), an unknown path (404); /healthz and the
 * index answer.
 */
static void test_requests(void **state)
{
	static const char *const bad[] = {"seconds=0",	"seconds=601", "seconds=abc",
					  "seconds=-1", "seconds=",    "seconds=1&format=xml"};
	AGU_TMP(ready, "ready");
	struct itest_proc wl, fsp, curl[NR_WINDOWS], go;
	char url[160], path[NR_WINDOWS][4096], *body = NULL;
	unsigned int port;
	double deadline, seen = 0;

	(void)state;
	spawn_burst(&wl, ready);
	port = agu_start_agent(&fsp, "fsp", "0", wl.pid, NULL);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/debug/pprof/profile?seconds=3", port);
	for (int i = 0; i < NR_WINDOWS; i++) {
		char *argv[] = {"/usr/bin/curl", "-s", "-f", "-o", path[i], url, NULL};

		snprintf(path[i], sizeof(path[i]), "%s", itest_tmp("window-%d.pb.gz", i));
		itest_spawn(&curl[i], "curl", argv);
	}
	for (deadline = itest_now() + 20; seen < NR_WINDOWS; itest_sleep(0.1)) {
		double v = agu_gauge(port, "fsp_agent_windows");

		seen = v > seen ? v : seen;
		if (itest_now() > deadline)
			fail_msg("/metrics showed %.0f windows under way, not %d", seen,
				 NR_WINDOWS);
	}
	itest_signal(&wl, SIGUSR1);
	for (int i = 0; i < NR_WINDOWS; i++) {
		unsigned char magic[2] = {0};
		FILE *f;

		itest_wait(&curl[i], 60);
		itest_assert_exit(&curl[i], 0);
		f = fopen(path[i], "rb");
		assert_non_null(f);
		assert_int_equal(fread(magic, 1, 2, f), 2);
		fclose(f);
		assert_true(magic[0] == 0x1f && magic[1] == 0x8b);
	}
	{
		char *argv[] = {"/usr/bin/go", "tool", "pprof", "-raw", path[0], NULL};

		setenv("PPROF_TMPDIR", itest_tmp("pprof"), 1);
		itest_spawn(&go, "pprof", argv);
		itest_wait(&go, 60);
		itest_assert_exit(&go, 0);
		assert_non_null(strstr(go.out, "Samples:"));
	}

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(url, sizeof(url), "http://127.0.0.1:%u/debug/pprof/profile?%s", port,
			 bad[i]);
		assert_int_equal(agu_get(url, &body, NULL), 400);
		print_message("?%s: 400 %s", bad[i], body);
		free(body);
		snprintf(url, sizeof(url), "http://127.0.0.1:%u/profile?%s", port, bad[i]);
		assert_int_equal(agu_get(url, NULL, NULL), 400);
	}
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/metrics", port);
	assert_int_equal(agu_get(url, NULL, "-X", "POST", "-d", "x=1", NULL), 405);
	assert_int_equal(agu_get(url, NULL, "-X", "DELETE", NULL), 405);
	assert_int_equal(agu_get(url, NULL, "-I", NULL), 200);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/metrics/../etc/passwd", port);
	assert_int_equal(agu_get(url, NULL, "--path-as-is", NULL), 404);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/debug/pprof/heap", port);
	assert_int_equal(agu_get(url, NULL, NULL), 404);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/healthz", port);
	assert_int_equal(agu_get(url, &body, NULL), 200);
	assert_string_equal(body, "ok\n");
	free(body);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/", port);
	assert_int_equal(agu_get(url, &body, NULL), 200);
	assert_non_null(strstr(body, "/metrics"));
	free(body);

	itest_signal(&wl, SIGTERM);
	itest_wait(&wl, 15);
	itest_stop_fsp(&fsp);
}

/*
 * --listen with a launched command: served while the command runs; when it
 * exits the session ends, a window still under way is answered 503 (at
 * once, not after its 60 s), and fsp-bpf exits 0 with its report.
 */
static void test_launched(void **state)
{
	AGU_TMP(ready, "ready");
	char *argv[] = {NULL,  "--listen", "0", "--", (char *)itest_workload("wl_agent"),
			ready, "burst",	   NULL};
	char url[128], *body = NULL;
	struct itest_proc fsp, curl;
	unsigned int port;
	double deadline, t0;
	pid_t pid = 0;

	(void)state;
	/* (a launched command's session prints no "profiling" line) */
	argv[0] = (char *)itest_fsp_bpf();
	itest_spawn(&fsp, "fsp", argv);
	port = agu_agent_port(&fsp);
	assert_true(itest_wait_file(ready, 15));
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/metrics", port);
	assert_int_equal(agu_get(url, &body, NULL), 200);
	assert_non_null(strstr(body, "fsp_targets 1\n"));
	free(body);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/debug/pprof/profile?seconds=60", port);
	{
		char *cargv[] = {"/usr/bin/curl", "-s", "-o", "/dev/null", "-w",
				 "%{http_code}",  url,	NULL};

		itest_spawn(&curl, "curl", cargv);
	}
	for (deadline = itest_now() + 20; agu_gauge(port, "fsp_agent_windows") < 1;
	     itest_sleep(0.1))
		if (itest_now() > deadline)
			fail_msg("the window did not start");
	/* The command: fsp-bpf's child. */
	{
		char path[64], *kids;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", fsp.pid, fsp.pid);
		kids = itest_slurp(path);
		assert_non_null(kids);
		pid = (pid_t)atoi(kids);
		free(kids);
	}
	assert_true(pid > 0);
	kill(pid, SIGUSR1);
	assert_true(itest_wait_file(itest_tmp("ready.1"), 30));
	t0 = itest_now();
	kill(pid, SIGTERM);
	itest_wait(&fsp, ITEST_TIMEOUT_S);
	itest_assert_exit(&fsp, 0);
	assert_non_null(strstr(fsp.out, "alpha accounts for"));
	itest_wait(&curl, 30);
	itest_assert_exit(&curl, 0);
	print_message("the window's answer: %s, %.1f s after the command's end\n", curl.out,
		      itest_now() - t0);
	assert_string_equal(curl.out, "503");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_pprof_stacks),
		ITEST(test_requests),
		ITEST(test_launched),
	};

	return ITEST_MAIN("agent_http", tests);
}
