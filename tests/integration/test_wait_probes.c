// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Probes that come with a plug-in the target loads after it started
 * (wl_plugin, whose executable has none, dlopen()s libwl_dl.so with fsp
 * marks or libwl_prov.so with the wlprov provider):
 *
 *   wait_probes        -p refuses the process (a wrong PID, most likely);
 *                      --wait-probes accepts it and profiles the plug-in's
 *                      feature once loaded, share as measured
 *   wait_probes_limit  --wait-probes=S gives up after S seconds with an error
 *                      and leaves the process alone
 *   map_error_late     a probe map that does not fit the plug-in ("match
 *                      instance" on a leave without arguments) fails the run
 *                      the same way with -p and with a command, at once: the
 *                      command is not left to run unprofiled
 *   map_auto_once      --map auto with two map files of one map name on the
 *                      search path attaches one: counts are not doubled
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attrib.h"
#include "itest.h"
#include "profile_io.h"

/* fsp-bpf must notice a dlopen() "within ms": we allow 100 ms of CPU time. */
#define DLOPEN_LATENCY_MAX_NS 100e6

/* The map error: "match instance" needs the leave's argument 0, which
 * wlprov:work__done does not have. */
static const char bad_map[] = "map wlprov\nprovider wlprov\nfeature work\n\tenter work__start\n"
			      "\tleave work__done\n\tinstance {str:0}\n\tmatch instance\n";
static const char good_map[] = "map wlprov\nprovider wlprov\nfeature work\n\tenter "
			       "work__start\n\tleave work__done\n\tinstance {str:0}\n";

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Starts wl_plugin TRUTH MS LIB MODE READY and waits until it is ready. */
static void start_plugin(struct itest_proc *w, const char *truth, const char *ms, const char *lib,
			 const char *mode)
{
	const char *ready = itest_tmp("ready.%s", mode);
	char *argv[] = {(char *)itest_workload("wl_plugin"),
			(char *)truth,
			(char *)ms,
			(char *)lib,
			(char *)mode,
			(char *)ready,
			NULL};

	itest_spawn(w, "wl_plugin", argv);
	if (!itest_wait_file(ready, 10))
		fail_msg("wl_plugin did not get ready");
}

static void test_wait_probes(void **state)
{
	const char *truth = itest_tmp("truth"), *json = itest_tmp("prof.json");
	struct itest_proc w, p;
	struct itest_truth *t;
	json_object *prof;
	char pid[16];
	uint64_t n, latency;
	double C;
	bool ok;

	(void)state;
	start_plugin(&w, truth, "1500", "libwl_dl.so", "wait");
	snprintf(pid, sizeof(pid), "%d", w.pid);
	/* the default: refused, and the message says what to do */
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "-p", pid, "-d", "1", NULL);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "no fsp", "--wait-probes", NULL);
	free(p.out);
	free(p.err);
	/* --wait-probes: accepted, sampled, the plug-in's probes attached */
	itest_attach_fsp(&p, w.pid, "--wait-probes", "-F", ITEST_HZ, "-o", json, "--min-pct", "0",
			 NULL);
	itest_signal(&w, SIGUSR2);
	itest_wait(&w, ITEST_TIMEOUT_S);
	itest_assert_exit(&w, 0);
	itest_wait(&p, ITEST_TIMEOUT_S);
	itest_assert_exit(&p, 0);
	assert_non_null(strstr(p.err, "waiting for them (--wait-probes)"));
	t = itest_truth_load(truth);
	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	prof = itest_json_load(json);
	itest_assert_labels_resolved(prof);
	latency = itest_truth_u64(t, "latency_ns");
	print_message("  plug-in armed after %.2f ms of its CPU time\n", latency / 1e6);
	assert_true(latency <= DLOPEN_LATENCY_MAX_NS);
	/* only the CPU after the go counts: before it the process slept */
	C = (double)(itest_truth_u64(t, "cpu_total_ns") - itest_truth_u64(t, "cpu_before_ns"));
	n = itest_total_samples(prof);
	assert_true(n >= 1000);
	ok = itest_truth_share_ok("dlfeature", itest_feature_samples(prof, "dlfeature"), n, t,
				  "feature.dlfeature", C, (ITEST_EXIT_NS + (double)latency) / C);
	ITEST_ASSERT_OK(ok);
	assert_int_equal(itest_diag(prof, "attach_errors"), 0);
	itest_truth_free(t);
	json_object_put(prof);
}

static void test_wait_probes_limit(void **state)
{
	struct itest_proc w, p;
	char pid[16];
	double took;

	(void)state;
	start_plugin(&w, itest_tmp("truth"), "100", "libwl_dl.so", "wait");
	snprintf(pid, sizeof(pid), "%d", w.pid);
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "--wait-probes=1", "-p", pid, NULL);
	took = p.end_s - p.start_s;
	print_message("  gave up after %.2f s\n", took);
	itest_assert_failed_cleanly(&p);
	assert_true(took >= 1.0 && took < 10);
	if (!strstr(p.err, "fsp-bpf: no probes appeared in pid ") ||
	    !strstr(p.err, "within 1 s (--wait-probes=1)"))
		fail_msg("no clear error:\n%s", p.err);
	assert_null(strstr(p.out, "feature profile"));
	assert_false(itest_poll(&w)); /* left alone */
	itest_kill(&w);
}

/* The line of stderr naming the map file (the map error), without the path
 * (which differs between runs). */
static char *map_error_line(const struct itest_proc *p, const char *map)
{
	const char *at = p->err ? strstr(p->err, map) : NULL;

	if (!at)
		fail_msg("no error naming %s:\n%s", map, p->err ? p->err : "");
	at += strlen(map);
	return strndup(at, strcspn(at, "\n"));
}

static void test_map_error_late(void **state)
{
	const char *map = itest_tmp("bad.map"), *truth_cmd = itest_tmp("truth.cmd");
	char *line_cmd, *line_pid, *line_wait, pid[16];
	struct itest_proc w, p;

	(void)state;
	write_text(map, bad_map);
	/* A command that loads the plug-in after 300 ms: stopped at the dlopen,
	 * killed, the run fails. */
	itest_run_fsp(&p, "fsp-cmd", ITEST_TIMEOUT_S, "--map", map, "--",
		      itest_workload("wl_plugin"), truth_cmd, "800", "libwl_prov.so", "now", NULL);
	itest_assert_failed_cleanly(&p);
	print_message("  command: exit %d after %.2f s\n", WEXITSTATUS(p.status),
		      p.end_s - p.start_s);
	line_cmd = map_error_line(&p, map);
	assert_non_null(strstr(p.err, "killed the command before it ran that file's code"));
	/* said once, in words (was: "the session ended early: No message of
	 * desired type") */
	if (strstr(p.err, "No message of desired type") || strstr(p.err, "ended early"))
		fail_msg("an errno's text for the map error:\n%s", p.err);
	/* the plug-in never ran: its work would have written the truth file */
	assert_int_equal(access(truth_cmd, F_OK), -1);
	free(p.out);
	free(p.err);

	/* -p on a process that has loaded it: refused, the process left alone */
	start_plugin(&w, itest_tmp("truth.pid"), "300", "libwl_prov.so", "loaded");
	snprintf(pid, sizeof(pid), "%d", w.pid);
	itest_run_fsp(&p, "fsp-pid", ITEST_TIMEOUT_S, "--map", map, "-p", pid, "-d", "5", NULL);
	itest_assert_failed_cleanly(&p);
	line_pid = map_error_line(&p, map);
	assert_false(itest_poll(&w));
	itest_kill(&w);
	free(p.out);
	free(p.err);

	/* -p --wait-probes, the plug-in loaded during the session: it ends at once */
	start_plugin(&w, itest_tmp("truth.wait"), "3000", "libwl_prov.so", "wait");
	itest_attach_fsp(&p, w.pid, "--wait-probes", "--map", map, NULL);
	itest_signal(&w, SIGUSR2);
	itest_wait(&p, 2.5); /* long before the plug-in's 3 s of work are over */
	itest_assert_failed_cleanly(&p);
	line_wait = map_error_line(&p, map);
	itest_kill(&w);

	/* the same error, whichever way the plug-in came */
	print_message("  %s%s\n", map, line_cmd);
	assert_string_equal(line_cmd, line_pid);
	assert_string_equal(line_cmd, line_wait);
	assert_non_null(strstr(line_cmd, "argument 0 of wlprov:work__done"));
	free(line_cmd);
	free(line_pid);
	free(line_wait);
}

static void test_map_auto_once(void **state)
{
	const char *a = itest_tmp("maps-a"), *b = itest_tmp("maps-b"), *json = itest_tmp("p.json");
	const char *truth = itest_tmp("truth");
	char *saved = getenv("FSP_MAP_PATH") ? strdup(getenv("FSP_MAP_PATH")) : NULL, env[8192];
	const struct attrib_instance *in;
	struct itest_truth *t;
	struct itest_proc w, p;
	struct profile *prof;
	struct attrib *at;

	(void)state;
	assert_int_equal(mkdir(a, 0755), 0);
	assert_int_equal(mkdir(b, 0755), 0);
	write_text(itest_tmp("maps-a/wlprov-copy.map"), good_map);
	write_text(itest_tmp("maps-b/wlprov.map"), good_map);
	snprintf(env, sizeof(env), "%s:%s", a, b);
	setenv("FSP_MAP_PATH", env, 1);
	start_plugin(&w, truth, "600", "libwl_prov.so", "loaded");
	itest_attach_fsp(&p, w.pid, "--map", "auto", "-F", ITEST_HZ, "-o", json, NULL);
	if (saved)
		setenv("FSP_MAP_PATH", saved, 1);
	else
		unsetenv("FSP_MAP_PATH");
	free(saved);
	itest_signal(&w, SIGUSR2);
	itest_wait(&w, ITEST_TIMEOUT_S);
	itest_assert_exit(&w, 0);
	itest_wait(&p, ITEST_TIMEOUT_S);
	itest_assert_exit(&p, 0);
	if (!strstr(p.err, "are both map 'wlprov'") || !strstr(p.err, "wlprov.map only"))
		fail_msg("no word about the second map:\n%s", p.err);
	t = itest_truth_load(truth);
	prof = itest_profile_load(json);
	at = attrib__compute(prof, NULL);
	assert_non_null(at);
	in = itest_instance(at, "wlprov:work", "unit");
	assert_non_null(in->events);
	print_message("  calls %llu, truth %llu\n", (unsigned long long)in->events->enters,
		      (unsigned long long)itest_truth_u64(t, "cycles"));
	/* attached before the go: every call counted, once */
	assert_int_equal(in->events->enters, itest_truth_u64(t, "cycles"));
	assert_int_equal(in->events->leaves, itest_truth_u64(t, "cycles"));
	attrib__free(at);
	profile__free(prof);
	itest_truth_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_wait_probes),
		ITEST(test_wait_probes_limit),
		ITEST(test_map_error_late),
		ITEST(test_map_auto_once),
	};

	return ITEST_MAIN("wait_probes", tests);
}
