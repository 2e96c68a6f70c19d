// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A process is named by its main thread's comm, also when that thread takes
 * no sample: wl_pool's main thread waits in sigwait while its workers
 * ("pool-0", "pool-1") run the marks. --comm must find the process and
 * --by process must name it.
 *
 *   attach_unsampled_main   -p PID --comm wl_pool --by process
 *   syswide_unsampled_main  -a --comm NAME --by process (a copy of wl_pool
 *                           under a name of its own)
 *
 * (Launched, a command's main thread runs its start-up under the sampler:
 * it is sampled, and named, anyway.)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

/* Starts wl_pool (the program at path) and waits until it is ready. */
static void pool_start(struct itest_proc *w, const char *path)
{
	const char *ready = itest_tmp("ready");
	char *argv[] = {(char *)path, (char *)ready, (char *)itest_tmp("dump"), NULL};

	itest_spawn(w, "pool", argv);
	if (!itest_wait_file(ready, 10))
		fail_msg("wl_pool did not get ready within 10 s");
}

/* The report and profile of a session on the pool process w, named name. */
static void assert_named(const struct itest_proc *p, const struct itest_proc *w, const char *name,
			 const char *json)
{
	char want[128];
	json_object *prof, *main_thread;

	snprintf(want, sizeof(want), "comm %s: 1 of 1 process", name);
	if (!strstr(p->out, want))
		fail_msg("--comm %s did not find the process; the report:\n%s", name, p->out);
	snprintf(want, sizeof(want), "process %d (%s)", w->pid, name);
	if (!strstr(p->out, want))
		fail_msg("--by process does not say \"%s\"; the report:\n%s", want, p->out);
	prof = itest_json_load(json);
	main_thread = itest_thread(prof, w->pid);
	if (!main_thread)
		fail_msg("the profile has no main thread %d", w->pid);
	assert_string_equal(json_object_get_string(json_object_object_get(main_thread, "comm")),
			    name);
	printf("  process %d (%s): main thread %llu samples, %llu in all\n", w->pid, name,
	       (unsigned long long)itest_json_u64(main_thread, "samples"),
	       (unsigned long long)itest_total_samples(prof));
	json_object_put(prof);
}

static void test_attach_unsampled_main(void **state)
{
	const char *json = itest_tmp("a.json");
	struct itest_proc w, p;

	(void)state;
	pool_start(&w, itest_workload("wl_pool"));
	itest_attach_fsp(&p, w.pid, "-d", "1", "--comm", "wl_pool", "--by", "process", "-o", json,
			 NULL);
	itest_wait(&p, ITEST_TIMEOUT_S);
	itest_assert_exit(&p, 0);
	assert_named(&p, &w, "wl_pool", json);
	itest_kill(&w);
	free(p.out);
	free(p.err);
}

static void test_syswide_unsampled_main(void **state)
{
	const char *json = itest_tmp("s.json");
	char name[16], cmd[8192];
	const char *copy;
	struct itest_proc w, p;
	char *argv[] = {NULL,	"-a",	   "-d", "1",	       "--comm", name,
			"--by", "process", "-o", (char *)json, NULL};

	(void)state;
	snprintf(name, sizeof(name), "wlpool%d", (int)getpid());
	copy = itest_tmp("%s", name);
	snprintf(cmd, sizeof(cmd), "cp %s %s", itest_workload("wl_pool"), copy);
	if (system(cmd))
		fail_msg("cannot copy wl_pool to %s", copy);
	pool_start(&w, copy);
	itest_start_fsp(&p, argv);
	itest_wait(&p, ITEST_TIMEOUT_S);
	itest_assert_exit(&p, 0);
	assert_named(&p, &w, name, json);
	itest_kill(&w);
	free(p.out);
	free(p.err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_attach_unsampled_main),
		ITEST(test_syswide_unsampled_main),
	};

	return ITEST_MAIN("process_names", tests);
}
