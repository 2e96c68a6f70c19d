// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What fsp-bpf record does around a session:
 *
 *   output_checked_first  an -o that cannot be written fails at once, before
 *                         anything runs, not after the session
 *   save_fallback         a save that fails at the end (a full device) keeps
 *                         the profile in $TMPDIR and says where
 *   file_permissions      new profiles and rendered files are 0600, under sudo
 *                         the invoking user's; --file-mode; a replaced file
 *                         keeps its owner and mode
 *   early_signal          Ctrl-C or SIGTERM while the BPF programs load ends
 *                         with the report, not by the default action
 *   high_frequency        -F above 10000 Hz says what it costs
 *   pid_twice             -p P,P is one target, with no warning about it
 *   output_format         -o is --format's output, as in report: record
 *                         --format folded|pprof -o F writes that to F (the
 *                         text report to stdout), --json J the profile too,
 *                         and F is what report renders from J, byte for byte
 *   pid_exits_at_start    -p of a process that exits while fsp-bpf loads says
 *                         so (was: "no such process ... check the PID")
 *   feature_typo          --feature naming no feature of the profile (a typo
 *                         fsp-bpf cannot see before the session) still gets
 *                         the report, of every feature, and one error line
 *   verbose_phases        -v says what it does while it starts and ends, in
 *                         order, with its times: the BPF maps, each part of
 *                         the programs (the ABI v1 probes' only for a target
 *                         with such marks), the sampler, the command, the
 *                         end, the detach
 *   few_descriptors       under a descriptor limit (110) too low for the parts to
 *                         load side by side (each holds every map while it
 *                         loads), a part that runs out loads again alone:
 *                         the session starts and reports
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itest.h"
#include "profile.h"
#include "profile_io.h"

/* A profile in path that loads and has samples. */
static void assert_profile(const char *path)
{
	struct profile *p = itest_profile_load(path);

	assert_true(profile__total_samples(p) > 0);
	profile__free(p);
}

static void assert_mode_owner(const char *path, unsigned int mode, uid_t uid, gid_t gid)
{
	struct stat st;

	if (stat(path, &st))
		fail_msg("%s: missing", path);
	if ((st.st_mode & 07777) != mode || st.st_uid != uid || st.st_gid != gid)
		fail_msg("%s: mode %04o owner %d:%d, want %04o %d:%d", path, st.st_mode & 07777,
			 st.st_uid, st.st_gid, mode, uid, gid);
}

static void test_output_checked_first(void **state)
{
	const char *marker = itest_tmp("ran"), *dir = itest_tmp(".");
	struct itest_proc p;

	(void)state;
	/* A missing directory: refused before the half-hour session, and before
	 * the command runs. */
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "-o", "/nonexistent/dir/p.json", "-d", "1800",
		      "--", "/usr/bin/touch", marker, NULL);
	itest_assert_failed_cleanly(&p);
	print_message("  refused after %.3f s\n", p.end_s - p.start_s);
	assert_true(p.end_s - p.start_s < 5);
	itest_assert_one_error_line(&p, "/nonexistent/dir/p.json", "no such file or directory",
				    "nothing was profiled", NULL);
	assert_int_equal(access(marker, F_OK), -1);
	/* A directory in the way */
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "-o", dir, "-d", "1800", "--", "/usr/bin/touch",
		      marker, NULL);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "is a directory", NULL);
	assert_int_equal(access(marker, F_OK), -1);
}

static void test_save_fallback(void **state)
{
	const char *keep = itest_tmp("keep");
	char *saved = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL, *at, path[4096];
	struct itest_proc p;
	size_t n;

	(void)state;
	assert_int_equal(mkdir(keep, 0700), 0);
	setenv("TMPDIR", keep, 1);
	/* /dev/full passes the check (it can be opened for writing) and fails
	 * the write: as a disk that fills up during the session */
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "-o", "/dev/full", "--",
		      itest_workload("wl_short"), itest_tmp("truth"), NULL);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "/dev/full", "no space left on device", "saved in", keep,
				    NULL);
	/* the report is printed all the same */
	assert_non_null(strstr(p.out, "feature profile of"));
	at = strstr(p.err, keep);
	n = strcspn(at, " \n");
	snprintf(path, sizeof(path), "%.*s", (int)n, at);
	print_message("  kept in %s\n", path);
	assert_non_null(strstr(path, "/fsp-bpf-full-"));
	assert_profile(path);
	assert_mode_owner(path, 0600, 0, getegid());
	unlink(path);
}

/* fsp-bpf ARGS -- wl_short (exit 0); env: "NAME=VALUE" set for the run. */
static void record_with_env(const char *env_uid, const char *env_gid, char **args)
{
	char *argv[32] = {NULL};
	struct itest_proc p;
	int n = 1;

	for (int i = 0; args[i] && n < 28; i++)
		argv[n++] = args[i];
	argv[n++] = "--";
	argv[n++] = (char *)itest_workload("wl_short");
	argv[n++] = (char *)itest_tmp("truth");
	argv[n] = NULL;
	if (env_uid) {
		setenv("SUDO_UID", env_uid, 1);
		setenv("SUDO_GID", env_gid, 1);
	}
	itest_run_fspv(&p, "fsp", ITEST_TIMEOUT_S, argv);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	itest_assert_exit(&p, 0);
	free(p.out);
	free(p.err);
}

static void test_file_permissions(void **state)
{
	const char *json = itest_tmp("p.json"), *folded = itest_tmp("p.folded"),
		   *open_json = itest_tmp("open.json");
	char *plain[] = {"-o", (char *)json, NULL};
	char *asked[] = {"-o", (char *)open_json, "--file-mode", "644", NULL};
	char *unset_uid = getenv("SUDO_UID") ? strdup(getenv("SUDO_UID")) : NULL;
	char *unset_gid = getenv("SUDO_GID") ? strdup(getenv("SUDO_GID")) : NULL;
	struct itest_proc p;

	(void)state;
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	/* root, not under sudo: root's, private */
	record_with_env(NULL, NULL, plain);
	assert_mode_owner(json, 0600, 0, getegid());
	assert_profile(json);
	/* the user asked otherwise */
	record_with_env(NULL, NULL, asked);
	assert_mode_owner(open_json, 0644, 0, getegid());
	/* a replaced file keeps its owner and mode */
	assert_int_equal(chown(json, 4321, 4322), 0);
	assert_int_equal(chmod(json, 0640), 0);
	record_with_env(NULL, NULL, plain);
	assert_mode_owner(json, 0640, 4321, 4322);
	unlink(json);
	/* under sudo: the invoking user's */
	record_with_env("65534", "65533", plain);
	assert_mode_owner(json, 0600, 65534, 65533);
	/* rendered files too (report -o) */
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65533", 1);
	itest_run_fsp(&p, "report", ITEST_TIMEOUT_S, "report", "--format", "folded", "-o", folded,
		      json, NULL);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	itest_assert_exit(&p, 0);
	assert_mode_owner(folded, 0600, 65534, 65533);
	if (unset_uid)
		setenv("SUDO_UID", unset_uid, 1);
	if (unset_gid)
		setenv("SUDO_GID", unset_gid, 1);
	free(unset_uid);
	free(unset_gid);
}

/* Is pid loading its BPF objects (a BPF map among its open files)? */
static bool loading_bpf(pid_t pid)
{
	char dir[64], path[320], link[128];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	while (d && !found && (de = readdir(d))) {
		ssize_t n;

		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = 0;
			found = strstr(link, "bpf-map") != NULL;
		}
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * The signal arrives as soon as fsp-bpf holds it, or once it has started
 * loading its BPF objects (its first BPF map: the session is ~60 ms away),
 * or a little later: the run ends normally (exit 0, not killed by the
 * signal) with its report.
 */
static void test_early_signal(void **state)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGINT, SIGTERM, SIGINT};
	static const bool at_load[] = {false, false, true, true, false};
	static const double delay_s[] = {0, 0, 0, 0, 0.03};
	char *argv[] = {NULL, "--", "/bin/sleep", "10", NULL};

	(void)state;
	argv[0] = (char *)itest_fsp_bpf();
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct itest_proc p;
		double t0;

		itest_spawn(&p, "fsp", argv);
		t0 = itest_now();
		while (!(at_load[i] ? loading_bpf(p.pid) : itest_blocks_signal(p.pid, sigs[i])) &&
		       !itest_poll(&p) && itest_now() - t0 < 10)
			itest_sleep(0.0002);
		assert_false(p.exited);
		itest_sleep(delay_s[i]);
		itest_signal(&p, sigs[i]);
		itest_wait(&p, ITEST_TIMEOUT_S);
		print_message("  signal %d %s, +%.0f ms: %s\n", sigs[i],
			      at_load[i] ? "while loading BPF" : "once held", delay_s[i] * 1e3,
			      WIFEXITED(p.status) ? "exited" : "killed");
		itest_assert_exit(&p, 0);
		assert_non_null(strstr(p.out, "feature profile of /bin/sleep 10"));
		itest_kill(&p); /* the command it started */
	}
}

static void test_high_frequency(void **state)
{
	struct itest_proc p;

	(void)state;
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "-F", "20000", "--", "/bin/true", NULL);
	itest_assert_exit(&p, 0);
	if (!strstr(p.err, "fsp-bpf: -F 20000: every sample interrupts the CPU") ||
	    !strstr(p.err, "slows the target"))
		fail_msg("no word about the cost of -F 20000:\n%s", p.err);
	free(p.out);
	free(p.err);
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "-F", "10000", "--", "/bin/true", NULL);
	itest_assert_exit(&p, 0);
	if (strstr(p.err, "interrupts the CPU"))
		fail_msg("a note at 10000 Hz:\n%s", p.err);
}

static void test_pid_twice(void **state)
{
	const char *truth = itest_tmp("truth"), *ready = itest_tmp("ready");
	char *wargv[] = {(char *)itest_workload("wl_dlopen"),
			 (char *)truth,
			 "300",
			 "wait",
			 (char *)ready,
			 NULL};
	char pids[64], one[48];
	struct itest_proc w, p;

	(void)state;
	itest_spawn(&w, "wl_dlopen", wargv);
	if (!itest_wait_file(ready, 10))
		fail_msg("wl_dlopen did not get ready");
	snprintf(pids, sizeof(pids), "%d,%d,%d", w.pid, w.pid, w.pid);
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "-p", pids, "-d", "0.5", NULL);
	itest_assert_exit(&p, 0);
	if (strstr(p.err, "no fsp probes loaded yet"))
		fail_msg("a warning about a PID named twice:\n%s", p.err);
	snprintf(one, sizeof(one), "profiling pid %d (wl_dlopen): ", w.pid);
	if (!strstr(p.err, one))
		fail_msg("the process is not named once:\n%s", p.err);
	assert_non_null(strstr(p.out, "1 process,"));
	itest_kill(&w);
}

static const char *demo(void)
{
	static char path[4096];
	const char *out = getenv("FSP_OUT");

	snprintf(path, sizeof(path), "%s/examples/demo", out ? out : ".output");
	return path;
}

/* path's bytes (n of them), which must be there. */
static char *read_bytes(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	if (!f)
		fail_msg("%s: missing", path);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc(len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, len, f), (size_t)len);
	buf[len] = 0;
	fclose(f);
	*n = len;
	return buf;
}

/* record --format FMT -o out --json json -- demo: out is what report
 * --format FMT -o again writes from json, and stdout has the text report. */
static void record_rendering(const char *fmt, bool with_json)
{
	const char *out = itest_tmp("rec.%s", fmt), *json = itest_tmp("rec-%s.json", fmt),
		   *again = itest_tmp("again.%s", fmt);
	char *a, *b;
	size_t na, nb;
	struct itest_proc p;

	unlink(json);
	if (with_json)
		itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "--format", fmt, "-o", out, "--json",
			      json, "--", demo(), "300", NULL);
	else
		itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "--format", fmt, "-o", out, "--", demo(),
			      "300", NULL);
	itest_assert_exit(&p, 0);
	if (!strstr(p.out, "feature profile of") || !strstr(p.out, "accounts for"))
		fail_msg("record --format %s -o FILE: no text report on stdout:\n%s", fmt, p.out);
	free(p.out);
	free(p.err);
	a = read_bytes(out, &na);
	if (!strcmp(fmt, "pprof"))
		assert_true(na > 2 && (unsigned char)a[0] == 0x1f && (unsigned char)a[1] == 0x8b);
	else
		assert_null(strstr(a, "\"format\""));
	if (!with_json) {
		assert_int_equal(access(json, F_OK), -1);
		free(a);
		return;
	}
	assert_profile(json);
	itest_run_fsp(&p, "report", ITEST_TIMEOUT_S, "report", "--format", fmt, "-o", again, json,
		      NULL);
	itest_assert_exit(&p, 0);
	free(p.out);
	free(p.err);
	b = read_bytes(again, &nb);
	print_message("  --format %s: %zu bytes to -o, the same as report's of --json's profile\n",
		      fmt, na);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	free(a);
	free(b);
}

static void test_output_format(void **state)
{
	struct itest_proc p;

	(void)state;
	record_rendering("folded", true);
	record_rendering("pprof", true);
	record_rendering("pprof", false);
	/* two saves of one profile, two renderings on stdout: refused */
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "-o", itest_tmp("a.json"), "--json",
		      itest_tmp("b.json"), "--", "/bin/true", NULL);
	itest_assert_exit(&p, 64);
	itest_assert_one_error_line(&p, "-o and --json both save the profile", NULL);
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "--format", "folded", "--json", "-", "--",
		      "/bin/true", NULL);
	itest_assert_exit(&p, 64);
	itest_assert_one_error_line(&p, "would both go to stdout", NULL);
}

static void test_pid_exits_at_start(void **state)
{
	char *wargv[] = {"/bin/sleep", "600", NULL}, pid[16];
	char *argv[] = {NULL, "-p", pid, "-d", "30", NULL};
	struct itest_proc w, p;
	double t0;

	(void)state;
	argv[0] = (char *)itest_fsp_bpf();
	itest_spawn(&w, "sleep", wargv);
	snprintf(pid, sizeof(pid), "%d", w.pid);
	itest_spawn(&p, "fsp", argv);
	t0 = itest_now();
	while (!loading_bpf(p.pid) && !itest_poll(&p) && itest_now() - t0 < 30)
		itest_sleep(0.0002);
	assert_false(p.exited);
	itest_kill(&w); /* gone, reaped, while fsp-bpf loads */
	itest_wait(&p, ITEST_TIMEOUT_S);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, pid, "(sleep) exited while fsp-bpf was starting", NULL);
	free(p.out);
	free(p.err);
}

static void test_feature_typo(void **state)
{
	const char *folded = itest_tmp("typo.folded");
	struct itest_proc p;
	char *f;
	size_t n;

	(void)state;
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "--feature", "parze", "--", demo(), "300", NULL);
	itest_assert_exit(&p, 1);
	itest_assert_one_error_line(&p, "--feature parze names no feature",
				    "the report shows every feature", NULL);
	if (!strstr(p.out, "parse accounts for") || !strstr(p.out, "output accounts for"))
		fail_msg("no report of the features recorded:\n%s", p.out);
	free(p.out);
	free(p.err);
	/* a rendering to a file: written, of every feature */
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "--feature", "parze", "--format", "folded", "-o",
		      folded, "--", demo(), "300", NULL);
	itest_assert_exit(&p, 1);
	if (!strstr(p.err, "fsp-bpf: --feature parze names no feature"))
		fail_msg("no error about --feature parze:\n%s", p.err);
	f = read_bytes(folded, &n);
	if (!strstr(f, "parse;parse_numbers ") || !strstr(f, "output;"))
		fail_msg("folded stacks without the features recorded:\n%s", f);
	free(f);
	free(p.out);
	free(p.err);
}

/* The phase lines ("fsp-bpf: 0.123 s: WHAT") of err, in order: each of
 * phases (NULL-terminated) after the previous one. */
static void assert_phases(const char *err, const char *const *phases)
{
	const char *at = err;

	for (size_t i = 0; phases[i]; i++) {
		char line[256];
		const char *hit;

		snprintf(line, sizeof(line), " s: %s", phases[i]);
		hit = strstr(at, line);
		if (!hit)
			fail_msg("-v: no phase \"%s\" (after the previous ones):\n%s", phases[i],
				 err);
		/* Its time since the start: "fsp-bpf: SECONDS s: ...". */
		while (hit > err && hit[-1] != '\n')
			hit--;
		if (strncmp(hit, "fsp-bpf: ", 9) || !strchr("0123456789", hit[9]))
			fail_msg("-v: the phase \"%s\" has no time:\n%s", phases[i], err);
		at = hit + 1;
	}
}

static void test_verbose_phases(void **state)
{
	static const char *const phases[] = {"opened the BPF object",
					     "created the BPF maps in",
					     "loaded the sampler in",
					     "loaded the hooks in",
					     "attached the tracepoints",
					     "started the sampler on",
					     "started the command",
					     "the session ended",
					     "collected the profile",
					     "detached",
					     "unloaded the BPF programs and maps",
					     NULL};
	static const char *const v1[] = {"loaded the ABI v1 probes in", NULL};
	const char *truth = itest_tmp("truth");
	struct itest_proc p;

	(void)state;
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "-v", "--", itest_workload("wl_mix"), truth,
		      "200", NULL);
	itest_assert_exit(&p, 0);
	assert_phases(p.err, phases);
	/* Each part names its programs: instructions verified and time. */
	if (!strstr(p.err, ": sample ") || !strstr(p.err, " insns ") ||
	    !strstr(p.err, ", on_longjmp "))
		fail_msg("-v: the parts do not name their programs:\n%s", p.err);
	/* The ABI v1 probes' programs load for a command that has them
	 * (with the others), else only when a library with them comes. */
	if (itest_abi_v1())
		assert_phases(p.err, v1);
	else if (strstr(p.err, "loaded the ABI v1 probes"))
		fail_msg("-v: the ABI v1 probes were loaded for an ABI v2 target:\n%s", p.err);
	free(p.out);
	free(p.err);
}

static void test_few_descriptors(void **state)
{
	/* Below what the parts need loaded side by side, above what one
	 * needs alone: with the maps of sample-time labels, calls and exit
	 * stacks a session needs 98 descriptors loading its parts in turn
	 * (measured: 95 fails, 98 starts), and 105-150 start with one part
	 * loaded again alone. */
	struct rlimit old, lim;
	const char *truth = itest_tmp("truth");
	struct itest_proc p;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	lim = old;
	lim.rlim_cur = 110;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &lim), 0);
	itest_run_fsp(&p, "fsp", ITEST_TIMEOUT_S, "-v", "--", itest_workload("wl_mix"), truth,
		      "200", NULL);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	itest_assert_exit(&p, 0);
	if (!strstr(p.err, "started the command") || !strstr(p.out, "accounts for"))
		fail_msg("with 110 descriptors the session did not start and report:\n%s", p.err);
	print_message("  %s", strstr(p.err, "Too many open files")
				      ? "a part ran out and loaded again alone\n"
				      : "the parts fit\n");
	free(p.out);
	free(p.err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_output_checked_first), ITEST(test_save_fallback),
		ITEST(test_file_permissions),	  ITEST(test_early_signal),
		ITEST(test_high_frequency),	  ITEST(test_pid_twice),
		ITEST(test_output_format),	  ITEST(test_pid_exits_at_start),
		ITEST(test_feature_typo),	  ITEST(test_verbose_phases),
		ITEST(test_few_descriptors),
	};

	return ITEST_MAIN("record_cli", tests);
}
