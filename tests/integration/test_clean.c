// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A clean run has clean diagnostics: programs that carry USDT probes nothing
 * uses (CPython's "python" provider, libstdc++'s "libstdcxx", HotSpot's)
 * are profiled without an error line and with attach_errors 0, and a probe
 * map that is right draws no warning.
 *
 *   unused_probes_launch  -- python3.11 -c pass; -- wl_exc (C++: libstdc++
 *                         carries libstdcxx probes) with --events, and its
 *                         ABI v1 build (FSP_ABI=v1)
 *   unused_probes_attach  -p of a python3.11 process (--wait-probes) and of
 *                         wl_exc
 *   unused_probes_jvm     -- java -version (skipped without a JDK)
 *   map_one_function      --map python -- python3.11-dbg -c pass: gc and
 *                         import enter and leave in one function each (the
 *                         debug build's code changes its stack-pointer rules
 *                         between them): no "different functions" warning
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

#define JAVA "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"

/* No "fsp-bpf: " line of p's stderr says cannot, warning or error. */
static void assert_no_error_line(const struct itest_proc *p)
{
	static const char *const bad[] = {"cannot", "warning", "error", "Success"};

	for (const char *s = p->err; *s;) {
		const char *nl = strchrnul(s, '\n');

		if (!strncmp(s, "fsp-bpf: ", 9))
			for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
				if (memmem(s, nl - s, bad[i], strlen(bad[i])))
					fail_msg("a clean run printed: %.*s", (int)(nl - s), s);
		s = *nl ? nl + 1 : nl;
	}
}

/* The run p wrote json: exit 0, no error line, attach_errors 0. */
static void assert_clean(struct itest_proc *p, const char *json, const char *what)
{
	json_object *prof;

	itest_assert_exit(p, 0);
	assert_no_error_line(p);
	prof = itest_json_load(json);
	printf("  %s: %llu samples, attach_errors %llu\n", what,
	       (unsigned long long)itest_total_samples(prof),
	       (unsigned long long)itest_diag(prof, "attach_errors"));
	assert_int_equal(itest_diag(prof, "attach_errors"), 0);
	json_object_put(prof);
	free(p->out);
	free(p->err);
}

static void test_unused_probes_launch(void **state)
{
	const char *json = itest_tmp("p.json");
	struct itest_proc p;

	(void)state;
	itest_run_fsp(&p, "python", ITEST_TIMEOUT_S, "-o", json, "--", "/usr/bin/python3.11", "-c",
		      "pass", NULL);
	assert_clean(&p, json, "python3.11 -c pass");
	itest_run_fsp(&p, "cxx", ITEST_TIMEOUT_S, "--events", "-o", json, "--",
		      itest_workload("wl_exc"), itest_tmp("truth"), "300", "shallow", NULL);
	assert_clean(&p, json, "wl_exc --events");
}

/* fsp-bpf -d 1 [extra] -p the process p runs: a clean run. */
static void attach_clean(struct itest_proc *w, const char *extra, const char *what)
{
	const char *json = itest_tmp("a.json");
	struct itest_proc p;

	if (extra)
		itest_attach_fsp(&p, w->pid, "-d", "1", "-o", json, extra, NULL);
	else
		itest_attach_fsp(&p, w->pid, "-d", "1", "-o", json, NULL);
	itest_wait(&p, ITEST_TIMEOUT_S);
	assert_clean(&p, json, what);
}

static void test_unused_probes_attach(void **state)
{
	char *py[] = {"/usr/bin/python3.11", "-c", "import time\nwhile True: time.sleep(0.01)",
		      NULL};
	char *cxx[] = {(char *)itest_workload("wl_exc"), (char *)itest_tmp("truth"), "600000",
		       "shallow", NULL};
	struct itest_proc w;

	(void)state;
	itest_spawn(&w, "python", py);
	attach_clean(&w, "--wait-probes", "-p python3.11");
	itest_kill(&w);
	itest_spawn(&w, "cxx", cxx);
	attach_clean(&w, NULL, "-p wl_exc");
	itest_kill(&w);
}

static void test_unused_probes_jvm(void **state)
{
	const char *json = itest_tmp("j.json");
	struct itest_proc p;

	(void)state;
	if (access(JAVA, X_OK)) {
		fprintf(stderr, "SKIP: %s is not installed: no JVM run is checked\n", JAVA);
		skip();
	}
	itest_run_fsp(&p, "java", 60, "-o", json, "--", JAVA, "-Xshare:auto", "-version", NULL);
	assert_clean(&p, json, "java -version");
}

static void test_map_one_function(void **state)
{
	const char *json = itest_tmp("d.json");
	struct itest_proc p;

	(void)state;
	itest_run_fsp(&p, "pydbg", ITEST_TIMEOUT_S, "--map", "python", "-o", json, "--",
		      "/usr/bin/python3.11-dbg", "-c", "import json", NULL);
	assert_clean(&p, json, "--map python -- python3.11-dbg");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_unused_probes_launch),
		ITEST(test_unused_probes_attach),
		ITEST(test_unused_probes_jvm),
		ITEST(test_map_one_function),
	};

	return ITEST_MAIN("clean", tests);
}
