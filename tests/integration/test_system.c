// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * System-wide profiling (-a, --comm), containers (targets read through
 * /proc/PID/root, PIDs in their own namespace), probe maps over the fsp
 * provider itself, map errors and fsp-bpf list. Profiles are read back
 * through the analysis library (profile__load, attrib__compute, the events
 * and processes of the model), as test_events.c does.
 *
 *   sw_new_processes       -a: three processes with fsp probes started after
 *                          the session began, a sleeping and a busy process
 *                          without probes. wl_service A and wl_mix M are the
 *                          first processes of their files: a /proc scan
 *                          (once a second) must find them. wl_service B
 *                          starts once A's probes are armed (A reports its
 *                          USDT semaphore in its dumps): the links are per
 *                          file, so B is armed from its first instruction
 *                          and must be admitted at its first probe with
 *                          nothing lost: its four instances are entered and
 *                          left exactly once per cycle it ran (its final
 *                          dump). A: every cycle after its first dump that
 *                          saw the semaphore raised is counted, none beyond
 *                          the cycles it ran. M: all four instances
 *                          (tokenizer, both output sites, the contract site
 *                          wl_mix's truth names) within one enter of each
 *                          other (it was found mid-run: a partial first
 *                          cycle) and at most its cycles, and the sampled
 *                          shares of parse, contract and output against its
 *                          truth. The processes without probes are in no
 *                          record of the profile, and `report --by process`
 *                          lists the three workloads.
 *   sw_exec_after_scan     -a: a process that the scan sees *before* it execs
 *                          a program with probes (a launcher shell that
 *                          sleeps, then execs the service, as wrapper
 *                          scripts do) must be profiled once it has exec'd.
 *   sw_comm_filter         -a --comm wl_service: wl_service and wl_mix run;
 *                          only wl_service is in the profile (processes,
 *                          threads, events, samples).
 *   sw_comm_shared_file    -a --comm wl_service: a process named wl_other
 *                          runs the same file (a symbolic link to
 *                          wl_service, whose probes are already attached for
 *                          every process): it fires probes, and must still
 *                          be in no record of the profile.
 *   container              wl_service in new PID and mount namespaces
 *                          (unshare), run from a tmpfs mounted inside the
 *                          namespace only, so that the host cannot open the
 *                          binary at the path the process maps (checked: the
 *                          host directory is empty, and the workload needs
 *                          no library from .output: checked in its maps).
 *                          fsp-bpf list -p HOSTPID shows the file and its
 *                          probes; fsp-bpf -p HOSTPID resolves features and
 *                          instances (the labels come from the file only the
 *                          namespace sees) and counts calls; the process's
 *                          nspid is the PID the workload has itself (its
 *                          ready file, written with getpid(); also
 *                          /proc/HOSTPID/status NSpid); `report --by
 *                          process` says "pid 1 in its namespace", and
 *                          `report --pid 1` selects it.
 *   container_sw           the same with -a: the initial /proc scan finds
 *                          the container's process. (It runs before the
 *                          session starts: one started during the session
 *                          would be a shell when the scan may see it, which
 *                          is sw_exec_after_scan's case.)
 *   map_errors             malformed map files given by path (unknown
 *                          directive, feature without leave, unknown
 *                          placeholder, argument number out of range,
 *                          unterminated placeholder): one error line naming
 *                          FILE:LINE, for record and list; --map postgresql
 *                          on a process with only fsp probes names the
 *                          missing provider; a valid map over the fsp
 *                          provider whose leave is no_such_probe names the
 *                          probe; --map auto with no fitting shipped map;
 *                          --map nosuchmap; --feature bogus --map python.
 *                          Each ends within ITEST_TIMEOUT_S with a non-zero
 *                          status and exactly one "fsp-bpf: " line, and the
 *                          target is left running.
 *   map_fsp_provider       a map over the fsp provider itself (it is a USDT
 *                          provider like any other), on wl_threads, whose
 *                          marks and payloads are known: feature x enters on
 *                          mark_enter, leaves on mark_leave, instance
 *                          "{str:0}/{str:1} #{int:2}" (feature label,
 *                          instance label, payload = the thread's number);
 *                          feature y (default off) instance "{str:0}". x's
 *                          five instances entered and left exactly as the
 *                          truth's cycles say, the same counts as the native
 *                          features, the same durations, and x is charged in
 *                          the samples some native mark is (its frames are
 *                          pushed on the same mark stacks; tolerance
 *                          below); y: "encode" from two call
 *                          sites (wl-alpha's and wl-gamma's) is one
 *                          instance entered c0 + c2 times, "verify" c1 + c2.
 *                          Without --feature y is absent; --feature y
 *                          selects only y; --feature self:x,self:y both.
 *   map_label_not_in_memory  the same map on wl_mix, whose labels are
 *                          string literals the program never reads itself:
 *                          their page is not in its page tables when the
 *                          probes fire. Each instance must read as the
 *                          template says ("parse/tokenizer #1", ...), or,
 *                          if a label could not be copied at the probe,
 *                          the diagnostics must count it (the report
 *                          promises to count labels that could not be
 *                          read); every call is counted either way (4 x
 *                          cycles). A probe cannot fault a page in, so
 *                          such labels read "?" (docs/probe-maps.md).
 *   list_pid               fsp-bpf list -p PID names the workload's file,
 *                          provider fsp and its probes; fsp-bpf list names
 *                          the shipped postgresql and python maps; list
 *                          --map FILE shows a map file's template; list
 *                          --map BADFILE, a missing file and a PID that does
 *                          not exist fail cleanly.
 *
 * Tolerances. Counts are exact where the probes were armed for the whole
 * run (B, launch mode); bounded by the workload's own dumps where a scan
 * found the process mid-run (A); M's counts can only be bounded by its
 * cycles. M's shares: itest_truth_share_ok (4 sigma + delta + 1/n, itest.c)
 * with delta = ambig / (2 C) plus a window term: the profiled window is the
 * part of M's run after the scan found it, and M's mix is the same in every
 * cycle (phase lengths drawn from fixed ranges), so the window's share
 * differs from the whole run's by at most one cycle at each end (2 L_c / W,
 * L_c = C / cycles, W = n T) plus the samples taken between registering M
 * and arming its probes (a generous 50 ms for attaching one small file: / W).
 * map_fsp_provider: a probe hit runs fsp's own program and the map's one
 * after the other, so a sample can fall between them and see one frame
 * without the other; that happens only while a probe runs, which lies inside
 * the workload's brackets (ambig_ns, thread CPU time), so |samples of x -
 * samples in any native mark| <= ambig / T + 4 sqrt(ambig / T) + 1. The
 * durations of x and of the native instance come from the same probe hits:
 * within 1 us per call and 0.1%.
 *
 * Other processes with fsp probes may run on the machine while these tests
 * do (other test suites): -a profiles them too, so every check names the
 * PIDs it started, never "the only process". The -a tests run fresh copies
 * of the workloads (same base names, hence the same comm) that no other
 * process maps, so that "found by a scan" and "armed because its file is
 * attached" are this session's doing. (Another -a session running at the
 * same time would still raise the semaphores of every file with fsp probes:
 * run the suites one at a time, as make integration does.)
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attrib.h"
#include "itest.h"
#include "profile_io.h"

#define UNSHARE "/usr/bin/unshare"
#define PYTHON "/usr/bin/python3.11"

/* ---- the profile ------------------------------------------------------------------ */

/* Enters and leaves of one instance as the event view counted them. */
static void assert_calls(const struct attrib *a, const char *f, const char *inst, uint64_t n)
{
	const struct attrib_instance *in = itest_instance(a, f, inst);

	print_message("  %-12s %-24s enters %6llu leaves %6llu  expected %6llu\n", f, inst,
		      in->events ? (unsigned long long)in->events->enters : 0ULL,
		      in->events ? (unsigned long long)in->events->leaves : 0ULL,
		      (unsigned long long)n);
	assert_non_null(in->events);
	assert_int_equal(in->events->enters, n);
	assert_int_equal(in->events->leaves, n);
}

static void print_instances(const struct attrib *a, const char *f)
{
	const struct attrib_feature *af = itest_find_feature(a, f);

	if (!af) {
		print_message("  %s: not in the profile\n", f);
		return;
	}
	for (size_t i = 0; i < af->nr_instances; i++)
		print_message("  %s [%s]: %llu samples, %llu enters\n", f, af->instances[i].name,
			      (unsigned long long)af->instances[i].samples,
			      af->instances[i].events
				      ? (unsigned long long)af->instances[i].events->enters
				      : 0ULL);
}

/* The process record of host PID pid, if the profile has one. */
static bool find_process(const struct profile *p, pid_t pid, struct profile_process *out)
{
	for (size_t i = 0; i < profile__nr_pids(p); i++) {
		struct profile_process pr;

		if (!profile__process(p, i, &pr) && pr.pid == (uint32_t)pid) {
			if (out)
				*out = pr;
			return true;
		}
	}
	return false;
}

/* Does pid appear in any record: process, thread, event, sample? Prints
 * which. */
static bool in_any_record(const struct profile *p, pid_t pid)
{
	size_t threads = 0, events = 0, samples = 0;
	bool proc = find_process(p, pid, NULL);

	for (size_t i = 0; i < profile__nr_threads(p); i++) {
		struct profile_thread t;

		if (!profile__thread(p, i, &t) && t.pid == (uint32_t)pid)
			threads++;
	}
	for (size_t i = 0; i < profile__nr_events(p); i++) {
		struct profile_event e;

		if (!profile__event(p, i, &e) && e.pid == (uint32_t)pid) {
			events++;
			print_message("  pid %d: event record %s [%s]: %llu enters, %llu leaves\n",
				      pid, e.feature, e.instance ? e.instance : ATTRIB_NO_INSTANCE,
				      (unsigned long long)e.stats->enters,
				      (unsigned long long)e.stats->leaves);
		}
	}
	for (size_t i = 0; i < profile__nr_samples(p); i++) {
		struct profile_sample s;

		if (!profile__sample(p, i, &s) && s.pid == (uint32_t)pid)
			samples += s.count;
	}
	if (proc || threads || events || samples)
		print_message("  pid %d in the profile: process record %s, %zu threads, %zu event "
			      "records, %zu samples\n",
			      pid, proc ? "yes" : "no", threads, events, samples);
	return proc || threads || events || samples;
}

static void print_processes(const struct profile *p)
{
	for (size_t i = 0; i < profile__nr_threads(p); i++) {
		struct profile_thread t;

		if (!profile__thread(p, i, &t))
			print_message("  profiled: pid %u tid %u (%s), %llu samples\n", t.pid,
				      t.tid, t.comm, (unsigned long long)t.samples);
	}
}

/* The attribution of one process. */
static struct attrib *attrib_pid(const struct profile *p, pid_t pid)
{
	struct attrib_opts o = {.pid = (uint32_t)pid};
	struct attrib *a = attrib__compute(p, &o);

	assert_non_null(a);
	return a;
}

/* ---- processes ---------------------------------------------------------------------- */

/* A wl_service: its ready file and dump prefix. */
struct svc {
	struct itest_proc p;
	char ready[PATH_MAX], dump[PATH_MAX];
	unsigned dumps; /* SIGUSR1 dumps asked for and written */
};

static void start_svc_at(struct svc *s, const char *tag, const char *exe)
{
	char *argv[] = {(char *)exe, s->ready, s->dump, NULL};

	snprintf(s->ready, sizeof(s->ready), "%s", itest_tmp("%s.ready", tag));
	snprintf(s->dump, sizeof(s->dump), "%s", itest_tmp("%s.dump", tag));
	s->dumps = 0;
	itest_spawn(&s->p, tag, argv);
	if (!itest_wait_file(s->ready, 10))
		fail_msg("%s did not get ready", tag);
}

static void start_svc(struct svc *s, const char *tag)
{
	start_svc_at(s, tag, itest_workload("wl_service"));
}

/* Asks for a dump and reads it (NULL if none came within 5 s). */
static struct itest_truth *svc_dump(struct svc *s)
{
	char path[PATH_MAX + 16];

	itest_signal(&s->p, SIGUSR1);
	snprintf(path, sizeof(path), "%s.%u", s->dump, ++s->dumps);
	if (!itest_wait_file(path, 5))
		return NULL;
	return itest_truth_load(path);
}

/*
 * Waits up to timeout_s until the service's dump says its USDT semaphore is
 * raised (its probes are armed). Returns the cycles it had completed by that
 * dump, or -1 on timeout.
 */
static int64_t svc_wait_armed(struct svc *s, double timeout_s)
{
	double deadline = itest_now() + timeout_s;

	do {
		struct itest_truth *t = svc_dump(s);
		int64_t cycles = -1;

		if (!t)
			fail_msg("wl_service pid %d wrote no dump", s->p.pid);
		if (itest_truth_u64(t, "enabled"))
			cycles = (int64_t)itest_truth_u64(t, "cycles");
		itest_truth_free(t);
		if (cycles >= 0)
			return cycles;
		itest_sleep(0.05);
	} while (itest_now() < deadline);
	return -1;
}

/* SIGTERM: the service finishes its cycle, writes DUMP.final and exits 0.
 * Returns the final dump. */
static struct itest_truth *stop_svc(struct svc *s)
{
	char path[PATH_MAX + 16];

	itest_signal(&s->p, SIGTERM);
	itest_wait(&s->p, 10);
	itest_assert_exit(&s->p, 0);
	snprintf(path, sizeof(path), "%s.final", s->dump);
	return itest_truth_load(path);
}

/* The parent PID of pid, from /proc/PID/stat (-1 if gone). */
static pid_t parent_of(pid_t pid)
{
	char path[64], *st, *s;
	int ppid = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	st = itest_slurp(path);
	s = st ? strrchr(st, ')') : NULL;
	if (s && sscanf(s + 1, " %*c %d", &ppid) != 1)
		ppid = -1;
	free(st);
	return ppid;
}

/* A child of parent (-1 if none). */
static pid_t child_of(pid_t parent)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t found = -1;

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (parent_of(atoi(de->d_name)) == parent) {
			found = atoi(de->d_name);
			break;
		}
	}
	closedir(d);
	return found;
}

/* The last PID of the NSpid line of /proc/PID/status: its PID in its own
 * namespace (-1 if unreadable). */
static pid_t nspid_of(pid_t pid)
{
	char path[64], *st, *line, *tok, *save = NULL;
	pid_t last = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	st = itest_slurp(path);
	line = st ? strstr(st, "\nNSpid:") : NULL;
	if (line) {
		line[strcspn(line + 1, "\n") + 1] = 0;
		for (tok = strtok_r(line + 7, " \t", &save); tok;
		     tok = strtok_r(NULL, " \t", &save))
			last = atoi(tok);
	}
	free(st);
	return last;
}

/* A PID that names no process. */
static pid_t unused_pid(void)
{
	for (pid_t pid = 99999; pid < 4000000; pid++)
		if (kill(pid, 0) && errno == ESRCH)
			return pid;
	fail_msg("no unused PID found");
	return -1;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Runs `fsp-bpf ARGS...` (NULL-terminated) to completion; the caller checks. */
#define FSP(p, tag, ...) itest_run_fsp(p, tag, ITEST_TIMEOUT_S, __VA_ARGS__, NULL)

static void assert_contains(const char *what, const char *text, const char *needle)
{
	if (!text || !strstr(text, needle))
		fail_msg("%s does not contain \"%s\":\n%s", what, needle, text ? text : "(null)");
}

/* ---- -a: new processes ------------------------------------------------------------ */

static void test_sw_new_processes(void **state)
{
	const char *json = itest_tmp("prof.json"), *truth_m = itest_tmp("truth_m");
	char *fsp_argv[] = {NULL,  "-a", "--events",   "-F",	    "999", "-d",
			    "120", "-o", (char *)json, "--min-pct", "0",   NULL};
	char *sleep_argv[] = {"/bin/sleep", "60", NULL};
	char *busy_argv[] = {"/bin/sh", "-c", "while :; do :; done", NULL};
	char svc_path[PATH_MAX], mix_path[PATH_MAX];
	char *mix_argv[] = {mix_path, (char *)truth_m, "1500", NULL};
	struct itest_proc fsp, sleeper, busy, mix, report;
	struct itest_truth *ta, *tb, *tm;
	struct profile_process pr;
	uint64_t cb, ca, cm, n, e[4], lo, hi;
	const char *names[4][2];
	struct svc a, b;
	int64_t a_armed;
	struct profile *p;
	struct attrib *at;
	double C, T, W, lc, delta;
	char needle[128];
	bool ok = true;

	(void)state;
	snprintf(svc_path, sizeof(svc_path), "%s", itest_fresh_copy("fresh", "wl_service"));
	snprintf(mix_path, sizeof(mix_path), "%s", itest_fresh_copy("fresh", "wl_mix"));
	itest_start_fsp(&fsp, fsp_argv);
	itest_spawn(&sleeper, "sleep", sleep_argv);
	itest_spawn(&busy, "busy", busy_argv);
	/* A: the first process of its file, found by a scan. */
	start_svc_at(&a, "svc_a", svc_path);
	a_armed = svc_wait_armed(&a, 10);
	if (a_armed < 0)
		fail_msg("no /proc scan armed wl_service (pid %d) within 10 s", a.p.pid);
	print_message("  A (pid %d) armed after %lld cycles\n", a.p.pid, (long long)a_armed);
	/* B: the file is attached for every process now. M: a new file. */
	start_svc_at(&b, "svc_b", svc_path);
	itest_spawn(&mix, "mix", mix_argv);
	itest_wait(&mix, 60);
	itest_assert_exit(&mix, 0);
	assert_true(svc_wait_armed(&b, 1) >= 0);
	tb = stop_svc(&b);
	ta = stop_svc(&a);
	itest_stop_fsp(&fsp);
	/* The processes without probes were left alone. */
	assert_false(itest_poll(&sleeper));
	assert_false(itest_poll(&busy));
	itest_kill(&sleeper);
	itest_kill(&busy);

	p = itest_profile_load(json);
	print_processes(p);
	for (int i = 0; i < 3; i++) {
		pid_t pid = i == 0 ? a.p.pid : i == 1 ? b.p.pid : mix.pid;

		if (!find_process(p, pid, &pr))
			fail_msg("process %d (%s) is not in the profile", pid,
				 i == 2 ? "wl_mix" : "wl_service");
		assert_int_equal(pr.nspid, 0); /* the same PID namespace */
	}
	assert_false(in_any_record(p, sleeper.pid));
	assert_false(in_any_record(p, busy.pid));

	/* B: armed from its first instruction, every call counted. */
	cb = itest_truth_u64(tb, "cycles");
	at = attrib_pid(p, b.p.pid);
	assert_calls(at, "service", "loop", cb);
	assert_calls(at, "service", "redzone", cb);
	assert_calls(at, "parse", "request", cb);
	assert_calls(at, "compute", "kernel", cb);
	assert_int_equal(itest_feature(at, "service")->events->leaves +
				 itest_feature(at, "parse")->events->leaves +
				 itest_feature(at, "compute")->events->leaves,
			 itest_truth_u64(tb, "leaves"));
	attrib__free(at);

	/* A: every cycle after the first dump that saw the semaphore. */
	ca = itest_truth_u64(ta, "cycles");
	at = attrib_pid(p, a.p.pid);
	n = itest_instance(at, "service", "loop")->events->enters;
	print_message("  A: service loop entered %llu times, cycles %llu, armed by cycle %lld\n",
		      (unsigned long long)n, (unsigned long long)ca, (long long)a_armed);
	assert_true(n >= ca - (uint64_t)a_armed && n <= ca);
	n = itest_instance(at, "compute", "kernel")->events->enters;
	assert_true(n >= ca - (uint64_t)a_armed && n <= ca);
	attrib__free(at);

	/* M: found mid-run by a scan. */
	tm = itest_truth_load(truth_m);
	cm = itest_truth_u64(tm, "cycles");
	at = attrib_pid(p, mix.pid);
	names[0][0] = "parse";
	names[0][1] = "tokenizer";
	names[1][0] = "contract";
	names[1][1] = itest_truth_str(tm, "instance.contract.0.name");
	names[2][0] = "output";
	names[2][1] = itest_truth_str(tm, "instance.output.0.name");
	names[3][0] = "output";
	names[3][1] = itest_truth_str(tm, "instance.output.1.name");
	lo = UINT64_MAX;
	hi = 0;
	for (int i = 0; i < 4; i++) {
		const struct attrib_instance *in = itest_instance(at, names[i][0], names[i][1]);

		assert_non_null(in->events);
		e[i] = in->events->enters;
		print_message("  M: %-8s %-16s enters %llu (cycles %llu)\n", names[i][0],
			      names[i][1], (unsigned long long)e[i], (unsigned long long)cm);
		lo = e[i] < lo ? e[i] : lo;
		hi = e[i] > hi ? e[i] : hi;
	}
	assert_true(lo >= 1 && hi <= cm && hi - lo <= 1);
	n = attrib__total_samples(at);
	T = (double)profile__meta(p)->period_ns;
	W = n * T;
	C = (double)itest_truth_u64(tm, "cpu_total_ns");
	lc = C / (double)cm;
	print_message("  M: %llu samples (%.0f ms of %.0f ms on CPU), cycle %.2f ms\n",
		      (unsigned long long)n, W / 1e6, C / 1e6, lc / 1e6);
	/* The scan must have found it well before its end (at most a second
	 * after its start, of the 1.5 s CPU it runs). */
	assert_true(n >= 100);
	delta = (2 * lc + 50e6) / W;
	/* The share's truth is over the whole run, C: the window term covers
	 * the difference. */
	ok &= itest_truth_share_ok("M parse", itest_feature(at, "parse")->samples, n, tm,
				   "feature.parse", C, delta);
	ok &= itest_truth_share_ok("M contract", itest_feature(at, "contract")->samples, n, tm,
				   "feature.contract", C, delta);
	ok &= itest_truth_share_ok("M output", itest_feature(at, "output")->samples, n, tm,
				   "feature.output", C, delta);
	attrib__free(at);

	/* The report's process view. */
	FSP(&report, "report", "report", "--by", "process", "--min-pct", "0", (char *)json);
	itest_assert_exit(&report, 0);
	snprintf(needle, sizeof(needle), "process %d (wl_service", a.p.pid);
	assert_contains("report --by process", report.out, needle);
	snprintf(needle, sizeof(needle), "process %d (wl_service", b.p.pid);
	assert_contains("report --by process", report.out, needle);
	snprintf(needle, sizeof(needle), "process %d (wl_mix", mix.pid);
	assert_contains("report --by process", report.out, needle);
	snprintf(needle, sizeof(needle), "process %d (", sleeper.pid);
	assert_null(strstr(report.out, needle));
	free(report.out);
	free(report.err);
	ITEST_ASSERT_OK(ok);
	profile__free(p);
	itest_truth_free(ta);
	itest_truth_free(tb);
	itest_truth_free(tm);
}

/* -a: a shell seen by the scan that later execs a program with probes. */
static void test_sw_exec_after_scan(void **state)
{
	const char *json = itest_tmp("prof.json");
	char *fsp_argv[] = {NULL, "-a", "-F", "999", "-d", "120", "-o", (char *)json, NULL};
	char cmd[3 * PATH_MAX + 64], *sh_argv[] = {"/bin/sh", "-c", cmd, NULL};
	struct itest_proc fsp;
	struct profile *p;
	int64_t armed;
	struct svc s;

	(void)state;
	itest_start_fsp(&fsp, fsp_argv);
	snprintf(s.ready, sizeof(s.ready), "%s", itest_tmp("svc.ready"));
	snprintf(s.dump, sizeof(s.dump), "%s", itest_tmp("svc.dump"));
	s.dumps = 0;
	/* The scans see /bin/sh (no probes) for 2.5 s; then it becomes
	 * wl_service, whose file no process mapped before. */
	snprintf(cmd, sizeof(cmd), "sleep 2.5; exec %s %s %s",
		 itest_fresh_copy("fresh", "wl_service"), s.ready, s.dump);
	itest_spawn(&s.p, "svc", sh_argv);
	if (!itest_wait_file(s.ready, 15))
		fail_msg("wl_service did not get ready");
	armed = svc_wait_armed(&s, 5);
	print_message("  pid %d: /bin/sh for 2.5 s, then exec wl_service: %s\n", s.p.pid,
		      armed >= 0 ? "armed" : "not armed within 5 s of its exec");
	itest_truth_free(stop_svc(&s));
	itest_stop_fsp(&fsp);
	p = itest_profile_load(json);
	print_processes(p);
	if (armed < 0 || !find_process(p, s.p.pid, NULL))
		fail_msg("process %d, which exec'd wl_service after a scan had seen it, was not "
			 "profiled",
			 s.p.pid);
	profile__free(p);
}

/* ---- -a --comm -------------------------------------------------------------------- */

/* Every thread of the profile has comm. */
static void assert_only_comm(const struct profile *p, const char *comm)
{
	for (size_t i = 0; i < profile__nr_threads(p); i++) {
		struct profile_thread t;

		assert_int_equal(profile__thread(p, i, &t), 0);
		if (strcmp(t.comm, comm))
			fail_msg("--comm %s: thread %u of process %u (%s) is in the profile", comm,
				 t.tid, t.pid, t.comm);
	}
}

static void test_sw_comm_filter(void **state)
{
	const char *json = itest_tmp("prof.json"), *truth = itest_tmp("truth_m");
	char *fsp_argv[] = {NULL, "-a",	 "--events", "--comm",	   "wl_service", "-F", "999",
			    "-d", "120", "-o",	     (char *)json, "--min-pct",	 "0",  NULL};
	char *mix_argv[] = {(char *)itest_workload("wl_mix"), (char *)truth, "1000", NULL};
	struct itest_proc fsp, mix;
	struct itest_truth *t;
	struct profile *p;
	struct attrib *a;
	uint64_t cycles, n;
	int64_t armed;
	struct svc s;

	(void)state;
	itest_start_fsp(&fsp, fsp_argv);
	start_svc(&s, "svc");
	armed = svc_wait_armed(&s, 10);
	if (armed < 0)
		fail_msg("wl_service was not armed within 10 s");
	itest_spawn(&mix, "mix", mix_argv);
	itest_wait(&mix, 60);
	itest_assert_exit(&mix, 0);
	t = stop_svc(&s);
	itest_stop_fsp(&fsp);
	assert_contains("the record's report", fsp.out, "wl_service");

	p = itest_profile_load(json);
	print_processes(p);
	assert_true(find_process(p, s.p.pid, NULL));
	assert_false(in_any_record(p, mix.pid));
	assert_only_comm(p, "wl_service");
	cycles = itest_truth_u64(t, "cycles");
	a = attrib_pid(p, s.p.pid);
	n = itest_instance(a, "parse", "request")->events->enters;
	assert_true(n >= cycles - (uint64_t)armed && n <= cycles);
	attrib__free(a);
	profile__free(p);
	itest_truth_free(t);
}

static void test_sw_comm_shared_file(void **state)
{
	const char *json = itest_tmp("prof.json");
	char *fsp_argv[] = {NULL,  "-a", "--comm",     "wl_service", "-F", "999", "-d",
			    "120", "-o", (char *)json, "--min-pct",  "0",  NULL};
	char other_path[PATH_MAX], svc_path[PATH_MAX];
	struct itest_proc fsp;
	struct itest_truth *t;
	struct svc s, o;
	struct profile *p;

	(void)state;
	snprintf(other_path, sizeof(other_path), "%s", itest_tmp("wl_other"));
	snprintf(svc_path, sizeof(svc_path), "%s", itest_fresh_copy("fresh", "wl_service"));
	assert_int_equal(symlink(svc_path, other_path), 0);
	itest_start_fsp(&fsp, fsp_argv);
	start_svc_at(&s, "svc", svc_path);
	if (svc_wait_armed(&s, 10) < 0)
		fail_msg("wl_service was not armed within 10 s");
	/* Same file, comm "wl_other": armed from its first instruction. */
	start_svc_at(&o, "other", other_path);
	assert_true(svc_wait_armed(&o, 2) >= 0); /* its probes do fire */
	itest_sleep(0.5);
	t = stop_svc(&o);
	itest_truth_free(t);
	t = stop_svc(&s);
	itest_truth_free(t);
	itest_stop_fsp(&fsp);

	p = itest_profile_load(json);
	print_processes(p);
	assert_true(find_process(p, s.p.pid, NULL));
	if (in_any_record(p, o.p.pid))
		fail_msg(
			"--comm wl_service: process %d (wl_other), which runs the same file, is in "
			"the profile",
			o.p.pid);
	assert_only_comm(p, "wl_service");
	profile__free(p);
}

/* ---- containers ------------------------------------------------------------------- */

struct ctr {
	struct itest_proc unshare;
	char dir[PATH_MAX], exe[PATH_MAX + 32];
	struct svc s; /* s.p is not spawned by us: only its paths and pid */
	pid_t hostpid, nspid;
};

/*
 * wl_service as the init of new PID and mount namespaces, run from a tmpfs
 * mounted at DIR/bin inside the mount namespace only.
 */
static void start_container(struct ctr *c)
{
	char cmd[4 * PATH_MAX],
		*argv[] = {UNSHARE,	   "--pid",   "--mount", "--fork", "--mount-proc",
			   "--kill-child", "/bin/sh", "-c",	 cmd,	   NULL};
	struct itest_truth *t;
	char path[PATH_MAX + 64], *maps, *exe;
	const char *out = getenv("FSP_OUT");
	ssize_t n;

	if (access(UNSHARE, X_OK)) {
		fprintf(stderr, "SKIP: %s (util-linux) is missing\n", UNSHARE);
		skip();
	}
	snprintf(c->dir, sizeof(c->dir), "%s", itest_tmp("ctr"));
	snprintf(path, sizeof(path), "%s/bin", c->dir);
	assert_int_equal(mkdir(c->dir, 0755), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/out", c->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(c->exe, sizeof(c->exe), "%s/bin/wl_ctr", c->dir);
	if (snprintf(c->s.ready, sizeof(c->s.ready), "%s/out/ready", c->dir) >=
		    (int)sizeof(c->s.ready) ||
	    snprintf(c->s.dump, sizeof(c->s.dump), "%s/out/dump", c->dir) >= (int)sizeof(c->s.dump))
		fail_msg("path too long: %s", c->dir);
	memset(&c->s.p, 0, sizeof(c->s.p));
	c->s.dumps = 0;
	if (snprintf(cmd, sizeof(cmd),
		     "mount -t tmpfs fsp-itest %s/bin && cp %s %s && exec %s %s %s", c->dir,
		     itest_workload("wl_service"), c->exe, c->exe, c->s.ready,
		     c->s.dump) >= (int)sizeof(cmd))
		fail_msg("command too long: %s", c->dir);
	itest_spawn(&c->unshare, "unshare", argv);
	if (!itest_wait_file(c->s.ready, 10)) {
		char *err = itest_slurp(c->unshare.err_path);

		fail_msg("the container's wl_service did not get ready; unshare's stderr:\n%s",
			 err ? err : "");
	}
	/* What the workload sees as its PID, and the host's. */
	t = itest_truth_load(c->s.ready);
	c->nspid = (pid_t)itest_truth_u64(t, "pid");
	itest_truth_free(t);
	c->hostpid = child_of(c->unshare.pid);
	if (c->hostpid < 0)
		fail_msg("no child of unshare (pid %d)", c->unshare.pid);
	c->s.p.pid = c->hostpid;
	print_message("  container: host pid %d, pid %d in its namespace, running %s\n", c->hostpid,
		      c->nspid, c->exe);
	assert_int_equal(nspid_of(c->hostpid), c->nspid);
	assert_true(c->nspid != c->hostpid);
	/* It runs the file on the tmpfs, which the host cannot open. */
	snprintf(path, sizeof(path), "/proc/%d/exe", c->hostpid);
	exe = calloc(1, PATH_MAX);
	assert_non_null(exe);
	n = readlink(path, exe, PATH_MAX - 1);
	assert_true(n > 0);
	assert_string_equal(exe, c->exe);
	free(exe);
	assert_int_equal(access(c->exe, F_OK), -1);
	/* and it maps nothing from .output (no library of ours). */
	snprintf(path, sizeof(path), "/proc/%d/maps", c->hostpid);
	maps = itest_slurp(path);
	assert_non_null(maps);
	if (out && strstr(maps, out))
		fail_msg("the container's workload maps a file of %s:\n%s", out, maps);
	free(maps);
}

static void stop_container(struct ctr *c)
{
	/* The init of the namespace exits on SIGTERM (wl_service handles it). */
	if (kill(c->hostpid, SIGTERM) == 0)
		itest_wait(&c->unshare, 10);
	itest_kill(&c->unshare);
}

/* The container's process in a profile: host pid, nspid, resolved labels. */
static void check_container_profile(const char *json, const struct ctr *c)
{
	struct profile_process pr = {0};
	struct profile *p = itest_profile_load(json);
	struct attrib *a;

	print_processes(p);
	if (!find_process(p, c->hostpid, &pr))
		fail_msg("the container's process %d is not in the profile", c->hostpid);
	print_message("  profile: process %u, nspid %u\n", pr.pid, pr.nspid);
	assert_int_equal(pr.nspid, c->nspid);
	a = attrib_pid(p, c->hostpid);
	print_instances(a, "service");
	print_instances(a, "parse");
	print_instances(a, "compute");
	/* Labels from the file only the namespace can see. */
	assert_non_null(itest_instance(a, "service", "loop")->events);
	assert_true(itest_instance(a, "service", "loop")->events->enters > 10);
	assert_true(itest_instance(a, "parse", "request")->events->enters > 10);
	assert_true(itest_instance(a, "compute", "kernel")->samples > 10);
	attrib__free(a);
	profile__free(p);
}

static void test_container(void **state)
{
	const char *json = itest_tmp("prof.json");
	struct itest_proc fsp, list, report;
	char pid[16], nspid[32], needle[128];
	json_object *j;
	struct ctr c;

	(void)state;
	start_container(&c);
	snprintf(pid, sizeof(pid), "%d", c.hostpid);
	/* list: the file as the process maps it. */
	FSP(&list, "list", "list", "-p", pid);
	itest_assert_exit(&list, 0);
	assert_contains("list -p", list.out, c.exe);
	assert_contains("list -p", list.out, "provider fsp");
	assert_contains("list -p", list.out, "mark_enter");
	free(list.out);
	free(list.err);

	FSP(&fsp, "fsp", "--events", "-F", "999", "-d", "2", "-o", (char *)json, "--min-pct", "0",
	    "-p", pid);
	itest_assert_exit(&fsp, 0);
	assert_true(kill(c.hostpid, 0) == 0); /* still running */
	check_container_profile(json, &c);
	j = itest_json_load(json);
	itest_assert_labels_resolved(j);
	json_object_put(j);

	FSP(&report, "report", "report", "--by", "process", "--min-pct", "0", (char *)json);
	itest_assert_exit(&report, 0);
	printf("%s\n", report.out); /* print_message cuts long text */
	snprintf(needle, sizeof(needle), "process %d (wl_ctr, pid %d in its namespace)", c.hostpid,
		 c.nspid);
	assert_contains("report --by process", report.out, needle);
	free(report.out);
	free(report.err);
	/* --pid accepts the PID in the namespace. */
	snprintf(nspid, sizeof(nspid), "%d", c.nspid);
	FSP(&report, "report2", "report", "--by", "process", "--pid", nspid, (char *)json);
	itest_assert_exit(&report, 0);
	assert_contains("report --pid NSPID", report.out, needle);
	free(report.out);
	free(report.err);
	stop_container(&c);
}

static void test_container_sw(void **state)
{
	const char *json = itest_tmp("prof.json");
	char *fsp_argv[] = {NULL,  "-a", "--events",   "-F",	    "999", "-d",
			    "120", "-o", (char *)json, "--min-pct", "0",   NULL};
	struct itest_proc fsp;
	int64_t armed;
	struct ctr c;

	(void)state;
	start_container(&c);
	itest_start_fsp(&fsp, fsp_argv);
	armed = svc_wait_armed(&c.s, 10);
	if (armed < 0)
		fail_msg("-a did not arm the container's process within 10 s");
	itest_sleep(1.0);
	itest_stop_fsp(&fsp);
	check_container_profile(json, &c);
	stop_container(&c);
}

/* ---- probe maps --------------------------------------------------------------------- */

/* The fsp provider's own probes as a map. */
static const char self_map[] = "# the fsp provider, read through a probe map\n"
			       "map self\n"
			       "provider fsp\n"
			       "description fsp's own marks as map features\n"
			       "\n"
			       "feature x\n"
			       "\tenter mark_enter\n"
			       "\tleave mark_leave\n"
			       "\tinstance \"{str:0}/{str:1} #{int:2}\"\n"
			       "\n"
			       "feature y\n"
			       "\tenter mark_enter\n"
			       "\tleave mark_leave\n"
			       "\tinstance {str:0}\n"
			       "\tdefault off\n";

/* A malformed map: the error line must name path:line and contain needle. */
static void bad_map(const char *name, const char *text, unsigned line, const char *needle,
		    const char *pid)
{
	const char *path = itest_tmp("%s.map", name);
	char where[PATH_MAX + 16], tag[64];
	struct itest_proc p;

	write_file(path, text);
	snprintf(where, sizeof(where), "%s:%u:", path, line);
	snprintf(tag, sizeof(tag), "%s-record", name);
	FSP(&p, tag, "--map", (char *)path, "-p", (char *)pid, "-d", "1");
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, where, needle, NULL);
	free(p.out);
	free(p.err);
	snprintf(tag, sizeof(tag), "%s-list", name);
	FSP(&p, tag, "list", "--map", (char *)path);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, where, needle, NULL);
	free(p.out);
	free(p.err);
}

static void test_map_errors(void **state)
{
	const char *noprobe = itest_tmp("noprobe.map");
	struct itest_proc p;
	char pid[16];
	struct svc s;

	(void)state;
	start_svc(&s, "svc");
	snprintf(pid, sizeof(pid), "%d", s.p.pid);

	bad_map("unknown_directive",
		"map t\nprovider fsp\nfeature x\n\tenter mark_enter\n\tbogus 1\n"
		"\tleave mark_leave\n",
		5, "bogus", pid);
	bad_map("no_leave",
		"map t\nprovider fsp\nfeature x\n\tenter mark_enter\n\tinstance {str:1}\n\n"
		"feature y\n\tenter mark_enter\n\tleave mark_leave\n",
		3, "leave", pid);
	bad_map("bad_placeholder",
		"map t\nprovider fsp\n\nfeature x\n\tenter mark_enter\n\tleave mark_leave\n"
		"\tinstance \"{nope:0} x\"\n",
		7, "{nope:0}", pid);
	bad_map("bad_arg",
		"map t\nprovider fsp\nfeature x\n\tenter mark_enter\n\tleave mark_leave\n"
		"\tinstance {str:12}\n",
		6, "12", pid);
	bad_map("unterminated",
		"map t\nprovider fsp\nfeature x\n\tenter mark_enter\n\tleave mark_leave\n"
		"\tinstance \"{str:0\"\n",
		6, "{", pid);

	/* A shipped map whose provider the process does not carry. */
	FSP(&p, "postgresql", "--map", "postgresql", "-p", pid, "-d", "1");
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "provider", "postgresql", NULL);
	free(p.out);
	free(p.err);

	/* A valid map over the fsp provider naming a probe it lacks. */
	write_file(noprobe, "map nope\nprovider fsp\nfeature x\n\tenter mark_enter\n"
			    "\tleave no_such_probe\n");
	FSP(&p, "noprobe", "--map", (char *)noprobe, "-p", pid, "-d", "1");
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "no_such_probe", NULL);
	free(p.out);
	free(p.err);

	/* No shipped map fits a process with only fsp probes. */
	FSP(&p, "auto", "--map", "auto", "-p", pid, "-d", "1");
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "auto", NULL);
	free(p.out);
	free(p.err);

	FSP(&p, "nosuchmap", "--map", "nosuchmap", "-p", pid, "-d", "1");
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "nosuchmap", NULL);
	free(p.out);
	free(p.err);

	/* The target was left alone through all of that. */
	assert_false(itest_poll(&s.p));
	itest_truth_free(stop_svc(&s));

	if (access(PYTHON, X_OK)) {
		fprintf(stderr, "NOTE: %s is missing: --feature bogus --map python not tested\n",
			PYTHON);
		return;
	}
	FSP(&p, "bogus", "--feature", "bogus", "--map", "python", "--", PYTHON, "-c", "pass");
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "bogus", NULL);
	free(p.out);
	free(p.err);
}

/* fsp-bpf --map FILE [--feature LIST] -o JSON -- wl_threads TRUTH 600, exit 0. */
static struct profile *record_threads(const char *map, const char *features, const char *json,
				      const char *truth)
{
	/* --events: the map's durations are compared with fsp's own counts,
	 * which ABI v2 marks give only then. */
	char *argv[32] = {NULL,	       "--events", "-F",	 ITEST_HZ,    "--map",
			  (char *)map, "-o",	   (char *)json, "--min-pct", "0"};
	struct itest_proc p;
	int n = 10;

	if (features) {
		argv[n++] = "--feature";
		argv[n++] = (char *)features;
	}
	argv[n++] = "--";
	argv[n++] = (char *)itest_workload("wl_threads");
	argv[n++] = (char *)truth;
	argv[n++] = "600";
	argv[n] = NULL;
	itest_run_fspv(&p, "fsp", ITEST_TIMEOUT_S, argv);
	itest_assert_exit(&p, 0);
	free(p.out);
	free(p.err);
	return itest_profile_load(json);
}

struct threads_truth {
	uint64_t c0, c1, c2; /* cycles of wl-alpha, wl-beta, wl-gamma */
	double ambig_ns; /* CPU time of all the probe brackets */
};

static struct threads_truth threads_truth(const char *path)
{
	struct itest_truth *t = itest_truth_load(path);
	struct threads_truth tt = {itest_truth_u64(t, "thread.0.cycles"),
				   itest_truth_u64(t, "thread.1.cycles"),
				   itest_truth_u64(t, "thread.2.cycles"),
				   (double)itest_truth_u64(t, "feature.encode.ambig_ns") +
					   itest_truth_u64(t, "feature.decode.ambig_ns") +
					   itest_truth_u64(t, "feature.verify.ambig_ns")};

	itest_truth_free(t);
	print_message("  cycles: wl-alpha %llu, wl-beta %llu, wl-gamma %llu\n",
		      (unsigned long long)tt.c0, (unsigned long long)tt.c1,
		      (unsigned long long)tt.c2);
	return tt;
}

/* Feature x: "{str:0}/{str:1} #{int:2}", the payload is the thread's number. */
static void check_x(const struct profile *p, const struct attrib *a, const struct threads_truth *t)
{
	static const char *const native[5][2] = {{"encode", "alpha"},
						 {"decode", "beta"},
						 {"verify", "beta-nested"},
						 {"verify", "gamma"},
						 {"encode", "gamma"}};
	static const char *const text[5] = {"encode/alpha #0", "decode/beta #1",
					    "verify/beta-nested #1", "verify/gamma #2",
					    "encode/gamma #2"};
	const uint64_t calls[5] = {t->c0, t->c1, t->c1, t->c2, t->c2};
	const struct attrib_feature *x = itest_feature(a, "self:x");
	double between, tol;
	uint64_t any_mark;

	print_instances(a, "self:x");
	assert_int_equal(x->nr_instances, 5);
	for (int i = 0; i < 5; i++) {
		const struct attrib_instance *in = itest_instance(a, "self:x", text[i]);
		const struct attrib_instance *nat = itest_instance(a, native[i][0], native[i][1]);
		double d = fabs((double)in->events->total_ns - (double)nat->events->total_ns);

		assert_calls(a, "self:x", text[i], calls[i]);
		/* The same probes: the same durations, give or take the clock
		 * reads of two frames (1 us a call). */
		print_message("    duration %.3f ms, native %s/%s %.3f ms\n",
			      in->events->total_ns / 1e6, native[i][0], native[i][1],
			      nat->events->total_ns / 1e6);
		assert_true(d <= 1000.0 * (double)calls[i] + 1e-3 * nat->events->total_ns);
		assert_calls(a, native[i][0], native[i][1], calls[i]);
	}
	/*
	 * x is on every mark stack a native mark is on: charged in the samples
	 * some native feature is. Both frames are pushed (popped) by the same
	 * probe hit, one after the other, and a sample may fall in between:
	 * only while a probe runs, which is inside the workload's brackets
	 * (ambig_ns), so at most about ambig_ns / T samples (+ 4 sigma + 1).
	 */
	any_mark = attrib__total_samples(a) - attrib__uncharged_samples(a);
	between = t->ambig_ns / (double)profile__meta(p)->period_ns;
	tol = between + 4 * sqrt(between) + 1;
	print_message("  self:x %llu samples, samples in any native mark %llu: |diff| %.0f, "
		      "tol %.1f (brackets %.2f ms)\n",
		      (unsigned long long)x->samples, (unsigned long long)any_mark,
		      fabs((double)x->samples - (double)any_mark), tol, t->ambig_ns / 1e6);
	assert_true(fabs((double)x->samples - (double)any_mark) <= tol);
}

/* Feature y: "{str:0}": equal texts from different call sites are one instance. */
static void check_y(const struct attrib *a, const struct threads_truth *t)
{
	print_instances(a, "self:y");
	assert_int_equal(itest_feature(a, "self:y")->nr_instances, 3);
	assert_calls(a, "self:y", "encode", t->c0 + t->c2);
	assert_calls(a, "self:y", "decode", t->c1);
	assert_calls(a, "self:y", "verify", t->c1 + t->c2);
}

static void test_map_fsp_provider(void **state)
{
	const char *map = itest_tmp("self.map"), *json = itest_tmp("prof.json");
	const char *truth = itest_tmp("truth");
	struct threads_truth t;
	struct profile *p;
	struct attrib *a;

	(void)state;
	write_file(map, self_map);

	/* Default: x, not y (default off). */
	p = record_threads(map, NULL, json, truth);
	t = threads_truth(truth);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	check_x(p, a, &t);
	assert_null(itest_find_feature(a, "self:y"));
	attrib__free(a);
	profile__free(p);

	/* --feature y: y alone. */
	p = record_threads(map, "y", json, truth);
	t = threads_truth(truth);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	check_y(a, &t);
	assert_null(itest_find_feature(a, "self:x"));
	attrib__free(a);
	profile__free(p);

	/* Both, by full names. */
	p = record_threads(map, "self:x,self:y", json, truth);
	t = threads_truth(truth);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	check_x(p, a, &t);
	check_y(a, &t);
	attrib__free(a);
	profile__free(p);
}

static void test_map_label_not_in_memory(void **state)
{
	const char *map = itest_tmp("self.map"), *json = itest_tmp("prof.json");
	const char *truth = itest_tmp("truth");
	char *argv[] = {NULL,
			"-F",
			ITEST_HZ,
			"--map",
			(char *)map,
			"-o",
			(char *)json,
			"--min-pct",
			"0",
			"--",
			(char *)itest_workload("wl_mix"),
			(char *)truth,
			"300",
			NULL};
	const struct attrib_feature *x;
	struct itest_proc fsp;
	struct itest_truth *t;
	uint64_t unread = 0, diag;
	char want[4][128];
	struct profile *p;
	struct attrib *a;

	(void)state;
	write_file(map, self_map);
	itest_run_fspv(&fsp, "fsp", ITEST_TIMEOUT_S, argv);
	itest_assert_exit(&fsp, 0);
	t = itest_truth_load(truth);
	snprintf(want[0], sizeof(want[0]), "parse/tokenizer #1");
	snprintf(want[1], sizeof(want[1]), "contract/%s #3",
		 itest_truth_str(t, "instance.contract.0.name"));
	snprintf(want[2], sizeof(want[2]), "output/%s #4",
		 itest_truth_str(t, "instance.output.0.name"));
	snprintf(want[3], sizeof(want[3]), "output/%s #2",
		 itest_truth_str(t, "instance.output.1.name"));
	p = itest_profile_load(json);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	print_instances(a, "self:x");
	x = itest_feature(a, "self:x");
	for (size_t i = 0; i < x->nr_instances; i++) {
		const struct attrib_instance *in = &x->instances[i];
		bool good = false;

		for (int k = 0; k < 4; k++)
			good |= !strcmp(in->name, want[k]);
		if (!good)
			unread += in->events ? in->events->enters : 1;
	}
	diag = profile__diag(p, DIAG_LABEL_ERRORS) + profile__diag(p, DIAG_ARG_ERRORS);
	print_message("  calls with a label not as the template says: %llu; label_errors + "
		      "arg_errors: %llu\n",
		      (unsigned long long)unread, (unsigned long long)diag);
	if (unread > diag)
		fail_msg("%llu calls of self:x have an instance that is not \"{str:0}/{str:1} "
			 "#{int:2}\" of their arguments, and the diagnostics count %llu",
			 (unsigned long long)unread, (unsigned long long)diag);
	/* A string in a page the process never touched cannot be copied by a
	 * probe (no page faults there): such labels read "?" and are counted
	 * (above, docs/probe-maps.md). Labels that could be read must be right,
	 * and every call is counted either way. */
	if (!unread) {
		for (int k = 0; k < 4; k++)
			assert_calls(a, "self:x", want[k], itest_truth_u64(t, "cycles"));
	} else {
		uint64_t enters = 0;

		for (size_t i = 0; i < x->nr_instances; i++)
			enters += x->instances[i].events ? x->instances[i].events->enters : 0;
		print_message("  %llu calls in all, expected 4 x %llu cycles\n",
			      (unsigned long long)enters,
			      (unsigned long long)itest_truth_u64(t, "cycles"));
		assert_int_equal(enters, 4 * itest_truth_u64(t, "cycles"));
	}
	attrib__free(a);
	profile__free(p);
	itest_truth_free(t);
	free(fsp.out);
	free(fsp.err);
}

/* ---- fsp-bpf list --------------------------------------------------------------------- */

static void test_list_pid(void **state)
{
	const char *map = itest_tmp("self.map"), *bad = itest_tmp("bad.map");
	char pid[16], where[PATH_MAX + 16];
	struct itest_proc p;
	struct svc s;

	(void)state;
	start_svc(&s, "svc");
	snprintf(pid, sizeof(pid), "%d", s.p.pid);
	FSP(&p, "list-p", "list", "-p", pid);
	itest_assert_exit(&p, 0);
	printf("%s", p.out);
	assert_contains("list -p", p.out, itest_workload("wl_service"));
	assert_contains("list -p", p.out, "provider fsp");
	assert_contains("list -p", p.out, "mark_enter");
	assert_contains("list -p", p.out, "mark_leave");
	free(p.out);
	free(p.err);
	assert_false(itest_poll(&s.p));
	itest_truth_free(stop_svc(&s));

	/* The shipped maps. */
	FSP(&p, "list", "list");
	itest_assert_exit(&p, 0);
	assert_contains("list", p.out, "postgresql");
	assert_contains("list", p.out, "provider postgresql");
	assert_contains("list", p.out, "python");
	assert_contains("list", p.out, "provider python");
	free(p.out);
	free(p.err);

	/* A map file of ours: checked and shown. */
	write_file(map, self_map);
	FSP(&p, "list-map", "list", "--map", (char *)map);
	itest_assert_exit(&p, 0);
	assert_contains("list --map FILE", p.out, "provider fsp");
	assert_contains("list --map FILE", p.out, "{str:0}/{str:1} #{int:2}");
	assert_contains("list --map FILE", p.out, "default off");
	free(p.out);
	free(p.err);

	/* Broken, missing. */
	write_file(bad, "map t\nprovider fsp\nfeature x\n\tenter mark_enter\n\tleave\n");
	snprintf(where, sizeof(where), "%s:5:", bad);
	FSP(&p, "list-bad", "list", "--map", (char *)bad);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, where, "leave", NULL);
	free(p.out);
	free(p.err);
	FSP(&p, "list-missing", "list", "--map", "/nonexistent/x.map");
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "/nonexistent/x.map", NULL);
	free(p.out);
	free(p.err);
	snprintf(pid, sizeof(pid), "%d", unused_pid());
	FSP(&p, "list-nopid", "list", "-p", pid);
	itest_assert_failed_cleanly(&p);
	itest_assert_one_error_line(&p, "no such process", pid, NULL);
	free(p.out);
	free(p.err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_sw_new_processes),
		ITEST(test_sw_exec_after_scan),
		ITEST(test_sw_comm_filter),
		ITEST(test_sw_comm_shared_file),
		ITEST(test_container),
		ITEST(test_container_sw),
		ITEST(test_map_errors),
		ITEST(test_map_fsp_provider),
		ITEST(test_map_label_not_in_memory),
		ITEST(test_list_pid),
	};

	return ITEST_MAIN("system", tests);
}
