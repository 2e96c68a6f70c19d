// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * System-wide mode (-a) while processes come and go. The truth is the
 * workloads' own: wl_brief counts the marks it fired (a mark is entered only
 * when its enter probe is armed, left only when entered and its leave is
 * armed) and reads its own USDT semaphores at its first cycle and at its
 * end; libwl_dl (through wl_dlhost) counts its fired marks and the CPU time
 * until it first saw them armed. The event view must count exactly what
 * was fired, in every process, and a process's leaves must be armed no
 * later than its enters. One exception, of the kernel's making: while a
 * file's links are made, each probe's semaphore is raised just before its
 * breakpoint is written, so a thread running then may fire an enter unseen
 * (at most once per thread; its leave is an unmatched leave); a process
 * armed from its start has none (slip()).
 *
 *   sw_short_lived     120 wl_brief processes of 10 ms one after another
 *                      (every third with 3 threads), from a file no process
 *                      mapped before: the first ones decide when the file
 *                      is attached. Every process: enters and leaves
 *                      exactly as fired, fired enters = fired leaves, no
 *                      semaphore of an enter raised while its leave's is
 *                      not. Once one process starts armed, every later one
 *                      does (the links are per file), and most are.
 *   sw_descriptors     fsp-bpf under a descriptor limit of 128 (set before
 *                      its exec; the default of many daemons is 1024), 300
 *                      processes of 15 ms with 2 threads, FSP_RETIRED_KEEP=40
 *                      (exited processes folded after the first 40): its
 *                      open descriptors, counted after every process, stay
 *                      within 3 of their count once the file is attached;
 *                      the workloads' events in the profile sum to what they
 *                      fired (kept and folded ones); every profiled process
 *                      is kept or counted as folded; nothing untracked;
 *                      every sample taken is in the profile (folding lost
 *                      the samples whose marks carried payloads).
 *   sw_attach_failure  a forced failure: fsp-bpf's descriptor limit lowered
 *                      (prlimit) to leave it 3 free descriptors, then
 *                      processes from a new file: its leaves can be linked,
 *                      its enters not. The error (EMFILE) is printed while
 *                      the session runs and counted in attach_errors; the
 *                      file's processes are counted exactly as they fired
 *                      (in fact: not at all, their enters never armed).
 *                      With the limit raised again, processes of another
 *                      new file are profiled exactly.
 *   sw_dlopen_late     wl_dlhost, a program without probes, dlopen()s
 *                      libwl_dl.so 1 s (CPU) after it started: the scans saw
 *                      nothing to profile in it. It must be profiled from
 *                      the dlopen on: its marks armed within 0.5 s of CPU
 *                      time of the library's start (the ld.so hook, not a
 *                      scan) and counted exactly as fired; a second host
 *                      started afterwards has them armed from its first
 *                      cycle.
 *   sw_label_gone      a host that runs and exits while fsp-bpf's userspace
 *                      is stopped (SIGSTOP; the BPF side goes on): its
 *                      labels lie in the library's read-only data, which it
 *                      never touches, so no probe could read them, and
 *                      userspace hears of them when the process is gone.
 *                      Its marks are counted as fired under their names
 *                      ("dlfeature", "libwl_dl"), not as "<label at ...>"
 *                      (they were, before the BPF side said where in the
 *                      file a label it could not read is).
 *
 * Other processes with fsp probes may run on the machine meanwhile: checks
 * name the PIDs the test started, and the workloads run from fresh copies
 * that no other process maps.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itest.h"
#include "profile.h"

/* One wl_brief run, from its truth. */
struct brief {
	pid_t pid;
	unsigned threads;
	uint64_t enters, leaves; /* marks fired */
	bool enter_first, leave_first, enter_end, leave_end; /* semaphores raised */
};

/* Called after each process of a series (i: its index). */
typedef void (*series_cb)(void *ctx, unsigned i);

static void brief_load(struct brief *b, const char *path)
{
	struct itest_truth *t = itest_truth_load(path);

	b->pid = (pid_t)itest_truth_u64(t, "pid");
	b->threads = itest_truth_u64(t, "threads");
	b->enters = itest_truth_u64(t, "fired.enter");
	b->leaves = itest_truth_u64(t, "fired.leave");
	b->enter_first = itest_truth_u64(t, "sema.enter.first");
	b->leave_first = itest_truth_u64(t, "sema.leave.first");
	b->enter_end = itest_truth_u64(t, "sema.enter.end");
	b->leave_end = itest_truth_u64(t, "sema.leave.end");
	itest_truth_free(t);
}

/* Runs `exe TRUTH MS THREADS` n times, one after another; every third
 * process with 3 threads when threads is 0. */
static void run_series(const char *path, const char *tag, unsigned n, unsigned ms, unsigned threads,
		       struct brief *out, series_cb cb, void *ctx)
{
	char exe[PATH_MAX];

	/* Paths from itest_tmp are reused after 63 more. */
	snprintf(exe, sizeof(exe), "%s", path);
	for (unsigned i = 0; i < n; i++) {
		const char *truth = itest_tmp("%s.%u", tag, i);
		char msbuf[16], thbuf[16];
		int status;
		pid_t pid;

		snprintf(msbuf, sizeof(msbuf), "%u", ms);
		snprintf(thbuf, sizeof(thbuf), "%u", threads ? threads : i % 3 == 2 ? 3 : 1);
		pid = fork();
		assert_true(pid >= 0);
		if (!pid) {
			execl(exe, exe, truth, msbuf, thbuf, (char *)NULL);
			_exit(127);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			fail_msg("%s %u exited with status 0x%x", exe, i, status);
		brief_load(&out[i], truth);
		if (cb)
			cb(ctx, i);
	}
}

/* Enters and leaves the event view counted for process pid. */
static void pid_events(const struct profile *p, pid_t pid, uint64_t *enters, uint64_t *leaves)
{
	*enters = *leaves = 0;
	for (size_t i = 0; i < profile__nr_events(p); i++) {
		struct profile_event ev;

		if (!profile__event(p, i, &ev) && ev.pid == (uint32_t)pid) {
			*enters += ev.stats->enters;
			*leaves += ev.stats->leaves;
		}
	}
}

static bool has_process(const struct profile *p, pid_t pid)
{
	for (size_t i = 0; i < profile__nr_pids(p); i++)
		if (profile__pid(p, i) == (uint32_t)pid)
			return true;
	return false;
}

/* What every process must satisfy whatever was attached when: its leaves
 * armed no later than its enters, and every mark it entered left. */
static void assert_consistent(const struct brief *b, unsigned i)
{
	if ((b->enter_first && !b->leave_first) || (b->enter_end && !b->leave_end))
		fail_msg("process %u (pid %d): an enter armed without its leave (semaphores "
			 "enter/leave %d/%d at its start, %d/%d at its end)",
			 i, b->pid, b->enter_first, b->leave_first, b->enter_end, b->leave_end);
	if (b->enters != b->leaves)
		fail_msg("process %u (pid %d) fired %llu enters but %llu leaves", i, b->pid,
			 (unsigned long long)b->enters, (unsigned long long)b->leaves);
}

/*
 * Enters a process fired that no probe saw: when a link is made while the
 * process runs, the kernel raises the probe's semaphore just before it
 * writes the breakpoint, so each thread may fire the enter once in between
 * (its leave is then an unmatched leave). Never for a process armed from
 * its start (the breakpoints are in place before it runs).
 */
static uint64_t slip(const struct brief *b)
{
	return b->enter_first ? 0 : b->threads;
}

/* Each process is counted as it fired (less slip()); returns how many were
 * armed from their first cycle. With attached (the file's probes were
 * attached, not unwound after a failure), checks that after the first such
 * one, every later one is: the links are per file. */
static unsigned assert_exact(const struct profile *p, const struct brief *b, unsigned n,
			     bool attached)
{
	unsigned armed = 0, first_armed = n;

	for (unsigned i = 0; i < n; i++) {
		uint64_t e, l;

		assert_consistent(&b[i], i);
		pid_events(p, b[i].pid, &e, &l);
		if (e > b[i].enters || e + slip(&b[i]) < b[i].enters || l != e ||
		    b[i].leaves != b[i].enters)
			fail_msg("process %u (pid %d): %llu enters, %llu leaves counted; it fired "
				 "%llu and %llu (semaphores at its start %d/%d)",
				 i, b[i].pid, (unsigned long long)e, (unsigned long long)l,
				 (unsigned long long)b[i].enters, (unsigned long long)b[i].leaves,
				 b[i].enter_first, b[i].leave_first);
		if (b[i].enter_first && first_armed == n)
			first_armed = i;
		if (attached && i > first_armed && !b[i].enter_first)
			fail_msg("process %u (pid %d) started unarmed after process %u started "
				 "armed",
				 i, b[i].pid, first_armed);
		armed += b[i].enter_first;
	}
	return armed;
}

static uint64_t diag(const struct profile *p, enum profile_diag d)
{
	uint64_t v = profile__diag(p, d);

	print_message("  %s: %llu\n", profile_diag__name(d), (unsigned long long)v);
	return v;
}

/* ---- short-lived processes ---------------------------------------------------------- */

#define SHORT_N 120

static void test_sw_short_lived(void **state)
{
	char json[PATH_MAX], exe[PATH_MAX];
	char *argv[] = {NULL, "-a", "-F", "999", "-o", json, NULL};
	static struct brief b[SHORT_N];
	struct itest_proc fsp;
	struct profile *p;
	unsigned armed;

	(void)state;
	snprintf(json, sizeof(json), "%s", itest_tmp("prof.json"));
	snprintf(exe, sizeof(exe), "%s", itest_fresh_copy("fresh", "wl_brief"));
	itest_start_fsp(&fsp, argv);
	run_series(exe, "short", SHORT_N, 10, 0, b, NULL, NULL);
	/* The last exits retired, then the end. */
	itest_sleep(0.5);
	itest_stop_fsp(&fsp);
	p = itest_profile_load(json);
	armed = assert_exact(p, b, SHORT_N, true);
	print_message("  %u of %u processes armed from their first cycle\n", armed, SHORT_N);
	/* The file is attached at the first process's ld.so event, at the latest
	 * by the scan within 1 s (70 processes of 10 ms and their exec). */
	assert_true(armed >= SHORT_N / 3);
	assert_int_equal(diag(p, DIAG_UNTRACKED), 0);
	profile__free(p);
	free(fsp.out);
	free(fsp.err);
}

/* ---- descriptors ------------------------------------------------------------------- */

#define FD_N 300
#define FD_LIMIT 128
#define FD_KEEP 40
/* Descriptors fsp-bpf may hold for a moment: /proc, a maps file, an ELF file. */
#define FD_SLACK 3

/* fsp-bpf's open descriptors: the BPF links (probes attached per file, so
 * growing with the files other processes bring along) and the others. */
struct fds {
	int links, other;
};

static struct fds count_fds(pid_t pid)
{
	char dir[64], path[PATH_MAX], target[PATH_MAX];
	struct fds n = {0, 0};
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	if (!d)
		fail_msg("cannot list %s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		ssize_t len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		target[len > 0 ? len : 0] = 0;
		if (strstr(target, "bpf_link"))
			n.links++;
		else
			n.other++;
	}
	closedir(d);
	return n;
}

/* Files whose probes fsp-bpf attached so far (its -v lines). */
static int files_attached(const char *err_path)
{
	char *err = itest_slurp(err_path), *p = err;
	int n = 0;

	while (p && (p = strstr(p, " probe sites in "))) {
		n++;
		p++;
	}
	free(err);
	return n;
}

struct fd_watch {
	pid_t pid;
	const char *err_path;
	struct fds fds[FD_N];
	int files_base; /* files attached when fds[FD_BASE] was taken */
};

/* From this process on, the workload's file is attached. */
#define FD_BASE 9

static void watch_fds(void *ctx, unsigned i)
{
	struct fd_watch *w = ctx;

	w->fds[i] = count_fds(w->pid);
	if (i == FD_BASE)
		w->files_base = files_attached(w->err_path);
}

/* fsp-bpf started with a descriptor limit of FD_LIMIT and FSP_RETIRED_KEEP. */
static void start_limited(struct itest_proc *fsp, char **argv)
{
	struct rlimit old, lim;
	char keep[16];

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	lim = old;
	lim.rlim_cur = FD_LIMIT;
	snprintf(keep, sizeof(keep), "%d", FD_KEEP);
	assert_int_equal(setenv("FSP_RETIRED_KEEP", keep, 1), 0);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &lim), 0);
	itest_start_fsp(fsp, argv);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	unsetenv("FSP_RETIRED_KEEP");
}

/* Descriptors other than links stay within FD_SLACK of their count once
 * the workload's file is attached; links grow only with files attached by
 * then (at most FD_LINKS_PER_FILE each: its probes, runtime hooks). */
#define FD_LINKS_PER_FILE 8

static void check_fds(const struct fd_watch *w, struct fds end, int files)
{
	const struct fds *base = &w->fds[FD_BASE];
	int max_other = 0, max_links = 0;

	for (unsigned i = FD_BASE; i < FD_N; i++) {
		max_other = w->fds[i].other > max_other ? w->fds[i].other : max_other;
		max_links = w->fds[i].links > max_links ? w->fds[i].links : max_links;
	}
	print_message("  descriptors (links + others) after process 1, %d, 100, 200, 300 and at "
		      "the end: %d+%d %d+%d %d+%d %d+%d %d+%d %d+%d; at most %d+%d; files attached "
		      "meanwhile: %d\n",
		      FD_BASE + 1, w->fds[0].links, w->fds[0].other, base->links, base->other,
		      w->fds[99].links, w->fds[99].other, w->fds[199].links, w->fds[199].other,
		      w->fds[299].links, w->fds[299].other, end.links, end.other, max_links,
		      max_other, files - w->files_base);
	assert_true(max_other <= base->other + FD_SLACK);
	assert_true(end.other <= base->other + FD_SLACK);
	assert_true(max_links <= base->links + FD_LINKS_PER_FILE * (files - w->files_base));
}

/* The samples the sampler took of the targets, as -v's last line says. */
static uint64_t samples_taken(const char *err_path)
{
	char *err = itest_slurp(err_path),
	     *at = err ? strstr(err, " samples of the targets") : NULL;
	unsigned long long n = 0;

	while (at && at > err && at[-1] >= '0' && at[-1] <= '9')
		at--;
	if (!at || sscanf(at, "%llu", &n) != 1)
		fail_msg("no count of samples in fsp-bpf's messages:\n%s", err ? err : "");
	free(err);
	return n;
}

static void test_sw_descriptors(void **state)
{
	char json[PATH_MAX], exe[PATH_MAX];
	char *argv[] = {NULL, "-v", "-a", "-F", "999", "-o", json, NULL};
	static struct brief b[FD_N];
	static struct fd_watch w;
	uint64_t fired = 0, left = 0, e_sum = 0, l_sum = 0, slipped = 0, e, l;
	unsigned profiled = 0, present = 0;
	struct itest_proc fsp;
	struct fds end;
	struct profile *p;

	(void)state;
	snprintf(json, sizeof(json), "%s", itest_tmp("prof.json"));
	snprintf(exe, sizeof(exe), "%s", itest_fresh_copy("fresh", "wl_brief"));
	start_limited(&fsp, argv);
	w.pid = fsp.pid;
	w.err_path = fsp.err_path;
	run_series(exe, "fd", FD_N, 15, 2, b, watch_fds, &w);
	itest_sleep(1.0);
	end = count_fds(fsp.pid);
	check_fds(&w, end, files_attached(fsp.err_path));
	itest_stop_fsp(&fsp);

	p = itest_profile_load(json);
	for (unsigned i = 0; i < FD_N; i++) {
		assert_consistent(&b[i], i);
		fired += b[i].enters;
		left += b[i].leaves;
		slipped += b[i].enters ? slip(&b[i]) : 0;
		profiled += b[i].enters > 0;
		present += has_process(p, b[i].pid);
		pid_events(p, b[i].pid, &e, &l);
		e_sum += e;
		l_sum += l;
	}
	print_message("  fired %llu enters, %llu leaves; counted %llu, %llu (slip allowed %llu); "
		      "%u profiled, %u with records of their own\n",
		      (unsigned long long)fired, (unsigned long long)left,
		      (unsigned long long)e_sum, (unsigned long long)l_sum,
		      (unsigned long long)slipped, profiled, present);
	assert_true(e_sum <= fired && e_sum + slipped >= fired);
	assert_int_equal(l_sum, e_sum);
	assert_int_equal(left, fired);
	/* Kept: the first FD_KEEP exited processes (other processes may be among
	 * them) and the record the later ones are folded into. */
	assert_true(present <= FD_KEEP + 1);
	assert_true(diag(p, DIAG_FOLDED_PROCESSES) >= profiled - present);
	assert_int_equal(diag(p, DIAG_UNTRACKED), 0);
	assert_int_equal(diag(p, DIAG_EVENTS_LOST), 0);
	/* Every sample taken of a target is in the profile, folded or not (the
	 * samples with payloads of folded processes were lost: half of them). */
	print_message("  %llu samples taken, %llu in the profile\n",
		      (unsigned long long)samples_taken(fsp.err_path),
		      (unsigned long long)profile__total_samples(p));
	assert_int_equal(profile__total_samples(p) + diag(p, DIAG_LOST_SAMPLES),
			 samples_taken(fsp.err_path));
	profile__free(p);
	free(fsp.out);
	free(fsp.err);
}

/* ---- a forced failure ---------------------------------------------------------------- */

/* The lowest descriptor number that leaves exactly n free below it in pid. */
static rlim_t limit_leaving(pid_t pid, int n)
{
	char path[64];
	static bool used[4096];
	struct dirent *de;
	DIR *d;

	memset(used, 0, sizeof(used));
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	assert_non_null(d);
	while ((de = readdir(d))) {
		long fd = strtol(de->d_name, NULL, 10);

		if (de->d_name[0] != '.' && fd >= 0 && fd < 4096)
			used[fd] = true;
	}
	closedir(d);
	for (int fd = 0; fd < 4096; fd++)
		if (!used[fd] && !--n)
			return fd + 1;
	fail_msg("no free descriptor below 4096 in pid %d", pid);
	return 0;
}

#define FAIL_N 5

static void test_sw_attach_failure(void **state)
{
	char json[PATH_MAX], exe_a[PATH_MAX], exe_b[PATH_MAX];
	char *argv[] = {NULL, "-a", "-F", "999", "-o", json, NULL};
	struct brief a[FAIL_N], b[FAIL_N];
	struct rlimit old, tight;
	struct itest_proc fsp;
	struct profile *p;
	unsigned armed;

	(void)state;
	snprintf(json, sizeof(json), "%s", itest_tmp("prof.json"));
	snprintf(exe_a, sizeof(exe_a), "%s", itest_fresh_copy("fa", "wl_brief"));
	snprintf(exe_b, sizeof(exe_b), "%s", itest_fresh_copy("fb", "wl_brief"));
	itest_start_fsp(&fsp, argv);
	/* Its initial scan is over (the line above comes after it); no file
	 * of this test is attached yet. */
	assert_int_equal(prlimit(fsp.pid, RLIMIT_NOFILE, NULL, &old), 0);
	tight = old;
	tight.rlim_cur = limit_leaving(fsp.pid, 3);
	assert_int_equal(prlimit(fsp.pid, RLIMIT_NOFILE, &tight, NULL), 0);
	run_series(exe_a, "a", FAIL_N, 20, 1, a, NULL, NULL);
	/* Reported at once, not only at the end. */
	if (!itest_wait_text(fsp.err_path, "Too many open files", 3.0))
		fail_msg("no error naming EMFILE while the session runs; stderr:\n%s",
			 itest_slurp(fsp.err_path));
	assert_int_equal(prlimit(fsp.pid, RLIMIT_NOFILE, &old, NULL), 0);
	run_series(exe_b, "b", FAIL_N, 20, 1, b, NULL, NULL);
	itest_sleep(0.5);
	itest_stop_fsp(&fsp);
	print_message("  stderr:\n%s", fsp.err);

	p = itest_profile_load(json);
	for (unsigned i = 0; i < FAIL_N; i++)
		print_message("  failed file, process %u: fired %llu/%llu, semaphores %d/%d at its "
			      "start, %d/%d at its end\n",
			      i, (unsigned long long)a[i].enters, (unsigned long long)a[i].leaves,
			      a[i].enter_first, a[i].leave_first, a[i].enter_end, a[i].leave_end);
	armed = assert_exact(p, a, FAIL_N, false);
	print_message("  failed file: %u of %u processes armed from their start, %llu enters "
		      "fired by the first\n",
		      armed, FAIL_N, (unsigned long long)a[0].enters);
	armed = assert_exact(p, b, FAIL_N, true);
	print_message("  file attached after the limit was raised: %u of %u armed from their "
		      "start\n",
		      armed, FAIL_N);
	assert_true(b[FAIL_N - 1].enter_first && b[FAIL_N - 1].enters > 0);
	assert_true(diag(p, DIAG_ATTACH_ERRORS) >= 1);
	profile__free(p);
	free(fsp.out);
	free(fsp.err);
}

/* ---- a library dlopen()ed late ----------------------------------------------------- */

struct host {
	struct itest_proc p;
	const char *truth;
	struct itest_truth *t;
};

static void start_host(struct host *h, const char *exe, const char *tag, const char *delay_ms,
		       const char *ms)
{
	char *argv[] = {(char *)exe, NULL, (char *)delay_ms, (char *)ms, NULL};

	h->truth = itest_tmp("%s.truth", tag);
	argv[1] = (char *)h->truth;
	itest_spawn(&h->p, tag, argv);
}

static void wait_host(struct host *h)
{
	itest_wait(&h->p, 60);
	itest_assert_exit(&h->p, 0);
	h->t = itest_truth_load(h->truth);
}

/* The host's marks: counted as fired (less one that may slip through while
 * the library's links are made, see slip()), every one left. */
static void check_host(const struct profile *p, const struct host *h, const char *what)
{
	uint64_t fired = itest_truth_u64(h->t, "enters_fired"), e, l;
	uint64_t slipped = itest_truth_u64(h->t, "cycles_unarmed") ? 1 : 0;

	pid_events(p, h->p.pid, &e, &l);
	print_message("  %s (pid %d): %llu of %llu cycles armed (armed after %.1f ms of CPU), "
		      "fired %llu/%llu, counted %llu/%llu\n",
		      what, h->p.pid,
		      (unsigned long long)(itest_truth_u64(h->t, "cycles") -
					   itest_truth_u64(h->t, "cycles_unarmed")),
		      (unsigned long long)itest_truth_u64(h->t, "cycles"),
		      itest_truth_u64(h->t, "latency_ns") / 1e6, (unsigned long long)fired,
		      (unsigned long long)itest_truth_u64(h->t, "leaves_fired"),
		      (unsigned long long)e, (unsigned long long)l);
	assert_true(fired > 0);
	assert_int_equal(itest_truth_u64(h->t, "leaves_fired"), fired);
	assert_true(e <= fired && e + slipped >= fired);
	assert_int_equal(l, e);
}

static void test_sw_dlopen_late(void **state)
{
	const char *json = itest_tmp("prof.json"), *exe;
	char *argv[] = {NULL, "-a", "-F", "999", "-o", (char *)json, NULL};
	struct itest_proc fsp;
	struct host h1 = {0}, h2 = {0};
	struct profile *p;

	(void)state;
	exe = itest_fresh_copy("fdl", "wl_dlhost");
	itest_fresh_copy("fdl", "libwl_dl.so");
	itest_start_fsp(&fsp, argv);
	start_host(&h1, exe, "h1", "1000", "1500");
	wait_host(&h1);
	/* The library's probes are attached for every process by now. */
	start_host(&h2, exe, "h2", "300", "500");
	wait_host(&h2);
	itest_sleep(0.5);
	itest_stop_fsp(&fsp);
	p = itest_profile_load(json);
	check_host(p, &h1, "dlopen 1 s after the start");
	check_host(p, &h2, "a later host");
	/* The ld.so hook, not the next scan (which would never look again at a
	 * process it saw without probes). */
	assert_true(itest_truth_u64(h1.t, "latency_ns") < 500 * 1000000ULL);
	assert_int_equal(itest_truth_u64(h2.t, "cycles_unarmed"), 0);
	profile__free(p);
	itest_truth_free(h1.t);
	itest_truth_free(h2.t);
	free(fsp.out);
	free(fsp.err);
}

/* The events of pid: counted under feature (instance) and in all. */
static void pid_named_events(const struct profile *p, pid_t pid, const char *feature,
			     const char *instance, uint64_t *named, uint64_t *all)
{
	*named = *all = 0;
	for (size_t i = 0; i < profile__nr_events(p); i++) {
		struct profile_event ev;

		if (profile__event(p, i, &ev) || ev.pid != (uint32_t)pid)
			continue;
		print_message("    pid %d: %s / %s: %llu enters\n", pid, ev.feature,
			      ev.instance ? ev.instance : "-",
			      (unsigned long long)ev.stats->enters);
		*all += ev.stats->enters;
		if (!strcmp(ev.feature, feature) && ev.instance && !strcmp(ev.instance, instance))
			*named += ev.stats->enters;
	}
}

static void test_sw_label_gone(void **state)
{
	const char *json = itest_tmp("prof.json"), *exe;
	char *argv[] = {NULL, "-a", "-F", "999", "-o", (char *)json, NULL};
	struct itest_proc fsp;
	struct host h1 = {0}, h2 = {0};
	uint64_t named, all;
	struct profile *p;

	(void)state;
	exe = itest_fresh_copy("flg", "wl_dlhost");
	itest_fresh_copy("flg", "libwl_dl.so");
	itest_start_fsp(&fsp, argv);
	/* The library attached for every process. */
	start_host(&h1, exe, "h1", "1", "100");
	wait_host(&h1);
	itest_signal(&fsp, SIGSTOP);
	start_host(&h2, exe, "h2", "1", "100");
	wait_host(&h2);
	itest_signal(&fsp, SIGCONT);
	itest_stop_fsp(&fsp);
	p = itest_profile_load(json);
	pid_named_events(p, h2.p.pid, "dlfeature", "libwl_dl", &named, &all);
	print_message("  a host gone before userspace heard of it: fired %llu, counted %llu, "
		      "%llu of them under their names\n",
		      (unsigned long long)itest_truth_u64(h2.t, "enters_fired"),
		      (unsigned long long)all, (unsigned long long)named);
	assert_int_equal(itest_truth_u64(h2.t, "cycles_unarmed"), 0);
	assert_true(all > 0);
	assert_int_equal(all, itest_truth_u64(h2.t, "enters_fired"));
	assert_int_equal(named, all);
	profile__free(p);
	itest_truth_free(h1.t);
	itest_truth_free(h2.t);
	free(fsp.out);
	free(fsp.err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_sw_short_lived),    ITEST(test_sw_descriptors),
		ITEST(test_sw_attach_failure), ITEST(test_sw_dlopen_late),
		ITEST(test_sw_label_gone),
	};

	return ITEST_MAIN("syswide", tests);
}
