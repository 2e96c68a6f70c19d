// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fsp-bpf run by capabilities instead of root (README, "Capabilities"): as
 * user nobody with exactly the documented set, CAP_BPF, CAP_PERFMON,
 * CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH, given through setpriv as ambient
 * capabilities (what systemd's AmbientCapabilities= does).
 *
 *   caps_launch         -- CMD (the command runs as nobody too): the shares
 *                       against the workload's own truth, and the command
 *                       does not inherit the capabilities
 *   caps_pid            -p PID of root's process: the shares over the
 *                       profiled window
 *   caps_one_fewer      the set without one capability, in a case that needs
 *                       it: a non-zero exit and a message naming it
 *   caps_capsh_two      through capsh (libcap's own tool): nobody with only
 *                       CAP_BPF and CAP_PERFMON profiles a command of its
 *                       own, the shares against its truth
 *   caps_capsh_root     root whose bounding set lacks CAP_BPF, CAP_PERFMON
 *                       and CAP_SYS_ADMIN (a container's root): refused,
 *                       naming both, without suggesting sudo
 */
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "itest.h"

#define SETPRIV "/usr/bin/setpriv"
#define CAPSH "/usr/sbin/capsh"
#define NOBODY "65534"

/* The documented set (setpriv's names). */
static const char *const caps[] = {"bpf", "perfmon", "sys_ptrace", "dac_read_search"};
#define NR_CAPS (sizeof(caps) / sizeof(caps[0]))

/* Skips, saying why, where the test cannot run. */
static void need_setpriv(void)
{
	if (access(SETPRIV, X_OK) || !getpwuid(65534)) {
		fprintf(stderr,
			"SKIP: %s or user 65534 (nobody) missing: the capability tests "
			"do not run\n",
			SETPRIV);
		skip();
	}
}

/* A directory nobody may write: for the profile and the truth. */
static const char *nobody_dir(void)
{
	const char *d = itest_tmp("nobody");

	if (mkdir(d, 0777) && errno != EEXIST)
		fail_msg("mkdir %s: %s", d, strerror(errno));
	chmod(d, 0777);
	return d;
}

/* argv to run fsp-bpf ARGS... as nobody with the documented capabilities,
 * but the one at index `without` (-1: all of them), and its strings. */
struct caps_argv {
	char *argv[48];
	char inh[128], amb[128];
};

static void caps_argv(struct caps_argv *c, int without, char *const args[])
{
	size_t n = 0, len = 0;
	char set[96] = "-all";

	for (size_t i = 0; i < NR_CAPS; i++)
		if ((int)i != without)
			len += snprintf(set + 4 + len, sizeof(set) - 4 - len, ",+%s", caps[i]);
	snprintf(c->inh, sizeof(c->inh), "--inh-caps=%s", set);
	snprintf(c->amb, sizeof(c->amb), "--ambient-caps=%s", set);
	c->argv[n++] = SETPRIV;
	c->argv[n++] = "--reuid=" NOBODY;
	c->argv[n++] = "--regid=" NOBODY;
	c->argv[n++] = "--clear-groups";
	c->argv[n++] = c->inh;
	c->argv[n++] = c->amb;
	c->argv[n++] = "--";
	c->argv[n++] = (char *)itest_fsp_bpf();
	for (size_t i = 0; args[i] && n < sizeof(c->argv) / sizeof(c->argv[0]) - 1; i++)
		c->argv[n++] = args[i];
	c->argv[n] = NULL;
}

/* wl_mix's profile (json) against its truth: every feature's share. */
static void check_mix(const char *json, const char *truth)
{
	static const char *const feats[] = {"parse", "contract", "output"};
	json_object *prof = itest_json_load(json);
	struct itest_truth *t = itest_truth_load(truth);
	uint64_t n = itest_total_samples(prof);
	double C = (double)itest_truth_u64(t, "cpu_total_ns");
	char key[64];
	bool ok = true;

	assert_int_equal(itest_truth_u64(t, "integrity_errors"), 0);
	assert_true(n >= 1000);
	assert_true(itest_has_pid(prof, (pid_t)itest_truth_u64(t, "pid")));
	for (size_t i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
		snprintf(key, sizeof(key), "feature.%s", feats[i]);
		ok &= itest_truth_share_ok(feats[i], itest_feature_samples(prof, feats[i]), n, t,
					   key, C, ITEST_EXIT_NS / C);
	}
	ITEST_ASSERT_OK(ok);
	itest_truth_free(t);
	json_object_put(prof);
}

static void test_caps_launch(void **state)
{
	const char *truth = itest_tmp("nobody/truth"), *json = itest_tmp("nobody/prof.json");
	const char *caps_out = itest_tmp("nobody/caps");
	char *args[] = {"-F",	       ITEST_HZ, "-o", (char *)json,
			"--min-pct",   "0",	 "--", (char *)itest_workload("wl_mix"),
			(char *)truth, "1500",	 NULL};
	char sh[512];
	char *args2[] = {"-d", "5", "--", "/bin/sh", "-c", sh, NULL};
	struct caps_argv c;
	struct itest_proc p;
	char *got;

	(void)state;
	need_setpriv();
	nobody_dir();
	caps_argv(&c, -1, args);
	itest_spawn(&p, "fsp", c.argv);
	itest_wait(&p, ITEST_TIMEOUT_S);
	itest_assert_exit(&p, 0);
	check_mix(json, truth);
	free(p.out);
	free(p.err);

	/* The command runs as nobody without fsp-bpf's capabilities. */
	snprintf(sh, sizeof(sh), "grep ^Cap /proc/self/status > %s", caps_out);
	caps_argv(&c, -1, args2);
	itest_spawn(&p, "fsp2", c.argv);
	itest_wait(&p, ITEST_TIMEOUT_S);
	itest_assert_exit(&p, 0);
	got = itest_slurp(caps_out);
	if (!got || !strstr(got, "CapEff:\t0000000000000000") ||
	    !strstr(got, "CapAmb:\t0000000000000000"))
		fail_msg("the command kept capabilities:\n%s", got ? got : "(no output)");
	free(got);
	free(p.out);
	free(p.err);
}

/* wl_service (as root), ready: see test_attach.c. */
static void service_start(struct itest_proc *s, const char *exe)
{
	const char *ready = itest_tmp("ready");
	char *argv[] = {(char *)exe, (char *)ready, (char *)itest_tmp("dump"), NULL};

	itest_spawn(s, "service", argv);
	if (!itest_wait_file(ready, 10))
		fail_msg("wl_service did not get ready within 10 s");
}

static struct itest_truth *service_dump(struct itest_proc *s, unsigned int n)
{
	const char *path = itest_tmp("dump.%u", n);

	itest_signal(s, SIGUSR1);
	if (!itest_wait_file(path, 10))
		fail_msg("wl_service did not answer SIGUSR1 within 10 s (dump %s)", path);
	return itest_truth_load(path);
}

static void test_caps_pid(void **state)
{
	static const char *const feats[] = {"service", "parse", "compute"};
	const char *json = itest_tmp("nobody/prof.json");
	char pid[16];
	char *args[] = {"-F",	     ITEST_HZ, "-d", "2", "-o", (char *)json,
			"--min-pct", "0",      "-p", pid, NULL};
	struct itest_truth *a, *b;
	struct itest_proc s, p;
	struct caps_argv c;
	json_object *prof;
	double dC, W, delta, t0, l_att;
	uint64_t n;
	bool ok = true;

	(void)state;
	need_setpriv();
	nobody_dir();
	service_start(&s, itest_workload("wl_service"));
	snprintf(pid, sizeof(pid), "%d", s.pid);
	a = service_dump(&s, 1);
	caps_argv(&c, -1, args);
	t0 = itest_now();
	itest_spawn(&p, "fsp", c.argv);
	if (!itest_wait_text(p.err_path, "fsp-bpf: profiling", ITEST_START_TIMEOUT_S))
		fail_msg("fsp-bpf did not start profiling pid %s; stderr:\n%s", pid,
			 itest_slurp(p.err_path));
	l_att = itest_now() - t0;
	itest_wait(&p, ITEST_TIMEOUT_S);
	itest_assert_exit(&p, 0);
	b = service_dump(&s, 2);
	prof = itest_json_load(json);
	assert_true(itest_has_pid(prof, s.pid));
	n = itest_total_samples(prof);
	assert_true(n >= 500);
	W = n * (double)itest_json_u64(prof, "period_ns");
	dC = (double)(itest_truth_u64(b, "cpu_total_ns") - itest_truth_u64(a, "cpu_total_ns"));
	/* The window's edges: a cycle each side, and the attach (as test_attach). */
	delta = (2 * dC / (double)(itest_truth_u64(b, "cycles") - itest_truth_u64(a, "cycles")) +
		 l_att * 1e9) /
		W;
	for (size_t i = 0; i < 3; i++) {
		double ns = (double)(itest_truth_u64(b, "feature.%s.ns", feats[i]) -
				     itest_truth_u64(a, "feature.%s.ns", feats[i]));
		double ambig = (double)(itest_truth_u64(b, "feature.%s.ambig_ns", feats[i]) -
					itest_truth_u64(a, "feature.%s.ambig_ns", feats[i]));

		ok &= itest_share_ok(feats[i], itest_feature_samples(prof, feats[i]), n, ns / dC,
				     ambig / (2 * dC) + delta);
	}
	ITEST_ASSERT_OK(ok);
	itest_truth_free(a);
	itest_truth_free(b);
	json_object_put(prof);
	free(p.out);
	free(p.err);
	itest_kill(&s);
}

/* fsp-bpf -d 1 -p PID without caps[without]: fails, naming it. */
static void one_fewer(int without, pid_t pid, const char *name)
{
	char pidbuf[16];
	char *args[] = {"-d", "1", "-p", pidbuf, NULL};
	struct caps_argv c;
	struct itest_proc p;

	snprintf(pidbuf, sizeof(pidbuf), "%d", pid);
	caps_argv(&c, without, args);
	itest_spawn(&p, "fsp", c.argv);
	itest_wait(&p, ITEST_TIMEOUT_S);
	itest_assert_failed_cleanly(&p);
	print_message("  without %s: %s", name, p.err);
	if (!strstr(p.err, name))
		fail_msg("without %s, the message does not name it:\n%s", name, p.err);
	free(p.out);
	free(p.err);
}

static void test_caps_one_fewer(void **state)
{
	const char *priv = itest_tmp("private");
	struct itest_proc s, hidden;

	(void)state;
	need_setpriv();
	service_start(&s, itest_workload("wl_service"));
	one_fewer(0, s.pid, "CAP_BPF");
	one_fewer(1, s.pid, "CAP_PERFMON");
	one_fewer(2, s.pid, "CAP_SYS_PTRACE");
	/* A program in a directory only root may enter. */
	itest_fresh_copy("private", "wl_service");
	if (chmod(priv, 0700))
		fail_msg("chmod %s: %s", priv, strerror(errno));
	{
		const char *ready = itest_tmp("ready2");
		char *argv[] = {(char *)itest_tmp("private/wl_service"), (char *)ready,
				(char *)itest_tmp("dump2"), NULL};

		itest_spawn(&hidden, "hidden", argv);
		if (!itest_wait_file(ready, 10))
			fail_msg("wl_service did not get ready within 10 s");
	}
	one_fewer(3, hidden.pid, "CAP_DAC_READ_SEARCH");
	itest_kill(&hidden);
	itest_kill(&s);
}

/* Skips, saying why, where capsh is missing. */
static void need_capsh(void)
{
	if (access(CAPSH, X_OK) || !getpwuid(65534)) {
		fprintf(stderr,
			"SKIP: %s (libcap2-bin) or user 65534 (nobody) missing: the "
			"capsh tests do not run\n",
			CAPSH);
		skip();
	}
}

/* capsh runs bash -c 'exec "$0" "$@"' fsp-bpf ARGS...: fsp-bpf with ARGS. */
static size_t capsh_tail(char **argv, size_t n, char *const args[])
{
	argv[n++] = "--";
	argv[n++] = "-c";
	argv[n++] = "exec \"$0\" \"$@\"";
	argv[n++] = (char *)itest_fsp_bpf();
	for (size_t i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return n;
}

static void test_caps_capsh_two(void **state)
{
	const char *truth = itest_tmp("nobody/truth2"), *json = itest_tmp("nobody/prof2.json");
	char *args[] = {"-F",	       ITEST_HZ, "-o", (char *)json,
			"--min-pct",   "0",	 "--", (char *)itest_workload("wl_mix"),
			(char *)truth, "1500",	 NULL};
	/* Permitted, inheritable and ambient: exactly the two; what capsh
	 * needs to change users, only until it has. */
	char *argv[32] = {CAPSH,
			  "--caps=cap_bpf,cap_perfmon+eip cap_setpcap,cap_setuid,cap_setgid+ep",
			  "--keep=1", "--user=nobody", "--addamb=cap_bpf,cap_perfmon"};
	struct itest_proc p;

	(void)state;
	need_capsh();
	nobody_dir();
	capsh_tail(argv, 5, args);
	itest_spawn(&p, "fsp", argv);
	itest_wait(&p, ITEST_TIMEOUT_S);
	itest_assert_exit(&p, 0);
	check_mix(json, truth);
	free(p.out);
	free(p.err);
}

static void test_caps_capsh_root(void **state)
{
	char *args[] = {"-d", "1", "--", "/bin/true", NULL};
	char *argv[16] = {CAPSH, "--drop=cap_bpf,cap_perfmon,cap_sys_admin"};
	struct itest_proc p;

	(void)state;
	need_capsh();
	capsh_tail(argv, 2, args);
	itest_spawn(&p, "fsp", argv);
	itest_wait(&p, ITEST_TIMEOUT_S);
	itest_assert_failed_cleanly(&p);
	print_message("  root without them: %s", p.err);
	if (!strstr(p.err, "CAP_BPF, CAP_PERFMON"))
		fail_msg("the message does not name CAP_BPF and CAP_PERFMON:\n%s", p.err);
	if (strstr(p.err, "sudo"))
		fail_msg("root is told to use sudo:\n%s", p.err);
	free(p.out);
	free(p.err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_caps_launch),    ITEST(test_caps_pid),	 ITEST(test_caps_one_fewer),
		ITEST(test_caps_capsh_two), ITEST(test_caps_capsh_root),
	};

	return ITEST_MAIN("caps", tests);
}
