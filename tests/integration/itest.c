// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * itest - helpers of the root integration tests (see itest.h).
 *
 * ===================================================================================
 * How close must fsp-bpf's share of a feature be to the workload's ground truth?
 * ===================================================================================
 *
 * Notation. The workload measures, with CLOCK_THREAD_CPUTIME_ID, C = CPU time of
 * its process over a window, and C_F = CPU time inside feature F (by the
 * attribution rule: the top-most frame of F is a mark). Truth share p = C_F / C.
 * fsp-bpf reports n = total_samples and k = samples charged to F; p^ = k / n.
 *
 * 1. Random error. The sampler fires every T = period_ns on every CPU and
 *    records the thread running there, so a target that runs C ns yields
 *    n ~ C / T samples, and each falls in F with probability p: the workloads
 *    vary their phase lengths (or run at a period unrelated to T) so that the
 *    sampling instants are not locked to the phases. Then k ~ Binomial(n, p) and
 *    sd(p^) = sigma = sqrt(p (1 - p) / n). (Evenly spaced sampling of an unlocked
 *    signal has a variance no larger than random sampling, so this is
 *    conservative: the differences observed are typically a tenth of sigma.)
 *    We accept |p^ - p| <= 4 sigma: a correct profiler fails one comparison
 *    with probability 6e-5 (normal tail), i.e. the ~30 comparisons of a suite
 *    run fail spuriously with probability < 0.2%. Counts are whole
 *    numbers, so we add 1/n (continuity correction; it matters only for p near
 *    0 or 1, where the normal approximation is poor).
 *
 * 2. Systematic error delta, computed per test from measurements:
 *
 *    a) Phase boundaries. Each enter/leave is bracketed by two clock reads; the
 *       time between them (the uprobe trap, the BPF program, a clock read) may
 *       be charged either way, and the sampler skips ticks while a uprobe's BPF
 *       program runs. The workload counts half of that ambiguous time in C_F and
 *       reports all of it (ambig_F), so the charged time lies within
 *       ambig_F / 2 of C_F: delta_a = ambig_F / (2 C).
 *
 *    b) Window misalignment. Samples the profiler takes outside the truth window
 *       are charged to no feature of the window and inflate n: if E ns of the
 *       profiled CPU time lie outside it, p^ -> p C / (C + E), an error of at most
 *       p E / C <= E / C. In launch mode (-- CMD) the truth window is the whole
 *       process (its CPU clock counts from fork, through exec and ld.so) up to
 *       the workload's last clock read; what follows is writing the truth file
 *       and exit(), bounded by E_exit = 1 ms (it takes ~0.1 ms; 1 ms is a
 *       10x margin): delta_b = E_exit / C.
 *
 *       Attaching (-p) the truth window is [A, B], two dumps the test asks for
 *       (SIGUSR1) before starting fsp-bpf and after it exits, both at a cycle
 *       boundary of a workload whose cycle (CPU length L_c) is always the same.
 *       Any window of CPU length W holds whole cycles plus a remainder r < L_c,
 *       so its share differs from the per-cycle share p by at most r / W < L_c / W.
 *       Besides, fsp-bpf cannot know the marks that were open when it attached
 *       (at most one cycle goes uncharged: L_c / W), and between registering the
 *       target (sampling starts) and arming its probes, at most the attach time
 *       L_att, samples are counted that no mark can be charged to. L_att is
 *       bounded by the time from starting fsp-bpf to its "profiling ..." line,
 *       which the test measures; W = n T. delta_b = (2 L_c + L_att) / W.
 *
 *    c) Late probes. A library dlopen()ed while attached (-p) runs before its
 *       probes are armed; it measures the CPU time lambda until it first sees
 *       its own USDT semaphore raised (its marks are skipped until then):
 *       delta_c = lambda / C. (Launch mode stops the process at the link-map
 *       change, so lambda is 0, and the test checks that.) A forked child
 *       sleeps 200 ms before working, so that fork-following needs no term; the
 *       test then fails if fsp-bpf takes longer than that to follow.
 *
 *    Tolerance: |p^ - p| <= 4 sigma + delta + 1/n.
 *
 * 3. The denominator itself (launch mode): n T must be the CPU time C. Each
 *    stretch a thread runs on a CPU yields its length / T samples give or take
 *    one; there are at most (context switches + threads) stretches (getrusage);
 *    ticks skipped while a uprobe's BPF program runs lie in the ambiguous time;
 *    the exit adds up to E_exit; and on a virtual machine, while the
 *    hypervisor runs something else (steal time) the guest's timer ticks late,
 *    one sample for several periods, while the thread's CPU clock goes on: at
 *    most the machine's steal time S during the run (/proc/stat, resolution
 *    one USER_HZ tick per CPU):
 *        |n T - C| <= (ctx_switches + threads) T + sum(ambig) + E_exit + S.
 *
 * Each accuracy test also checks its own power where it matters: the share a
 * broken profiler would report (antimark time charged, a stale mark charged
 * after a longjmp) must lie outside the tolerance, otherwise the test could not
 * tell correct from broken.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"
#include "attrib.h"
#include "funcfeat_apply.h"
#include "profile_io.h"

#define MAX_PROCS 32
#define NR_PATHS 64

static char tmpdir[256];
static struct itest_proc *procs[MAX_PROCS];
static pid_t proc_pids[MAX_PROCS];

/* ---- setup ------------------------------------------------------------------------ */

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

int itest_setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/fsp-itest.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
		return -1;
	}
	/* Readable by the unprivileged user of the not-root test. */
	chmod(tmpdir, 0755);
	memset(procs, 0, sizeof(procs));
	memset(proc_pids, 0, sizeof(proc_pids));
	return 0;
}

int itest_teardown(void **state)
{
	(void)state;
	for (int i = 0; i < MAX_PROCS; i++) {
		pid_t pid = proc_pids[i];

		if (!pid)
			continue;
		/* Our own children only: their process group, then reap. */
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		proc_pids[i] = 0;
		procs[i] = NULL;
	}
	if (tmpdir[0] && !getenv("ITEST_KEEP"))
		nftw(tmpdir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	else if (tmpdir[0])
		fprintf(stderr, "kept %s\n", tmpdir);
	tmpdir[0] = 0;
	return 0;
}

/*
 * Integration tests profile system-wide (-a), count the processes with probes
 * and compare CPU shares with the workloads' own clocks: two runs at once (two
 * checkouts of the project) would see each other's workloads and CPU load. Each
 * test program holds an exclusive lock for as long as it runs (released when it
 * exits); bench/soak.sh takes the same one. FSP_ITEST_LOCK names another file.
 * A long group (itest_run_group_each) takes it for each of its tests instead.
 */
static int lock_fd = -1;

static int itest_lock(const char *name)
{
	const char *path = getenv("FSP_ITEST_LOCK") ? getenv("FSP_ITEST_LOCK")
						    : "/run/lock/fsp-integration.lock";
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0) {
		fprintf(stderr, "%s: cannot open the integration lock %s: %s\n", name, path,
			strerror(errno));
		return -1;
	}
	if (!flock(fd, LOCK_EX | LOCK_NB)) {
		lock_fd = fd; /* held until itest_unlock or the exit */
		return 0;
	}
	fprintf(stderr, "%s: waiting for %s (another integration test is running)\n", name, path);
	if (flock(fd, LOCK_EX)) {
		fprintf(stderr, "%s: cannot take %s: %s\n", name, path, strerror(errno));
		close(fd);
		return -1;
	}
	lock_fd = fd;
	return 0;
}

static void itest_unlock(void)
{
	if (lock_fd >= 0)
		close(lock_fd);
	lock_fd = -1;
}

int itest_setup_locked(void **state)
{
	return itest_lock("itest") ? -1 : itest_setup(state);
}

int itest_teardown_locked(void **state)
{
	int r = itest_teardown(state);

	itest_unlock();
	return r;
}

static int run_group(const char *group, const struct CMUnitTest *tests, size_t n, bool each)
{
	const char *abi = getenv("FSP_ABI");
	char name[128];

	if (abi && strcmp(abi, "v1") && strcmp(abi, "v2")) {
		fprintf(stderr, "%s: FSP_ABI=%s: expected v1 or v2\n", group, abi);
		return 1;
	}
	snprintf(name, sizeof(name), "%s (probe ABI %s workloads)", group,
		 itest_abi_v1() ? "v1" : "v2");
	if (geteuid() != 0) {
		/* cmocka has no group-level skip: report each test as skipped. */
		printf("[==========] %s: not root, skipping %zu test(s)\n", name, n);
		printf("[  SKIPPED ] %zu test(s).\n", n);
		return 0;
	}
	if (!getenv("FSP_BPF") || !getenv("FSP_OUT")) {
		fprintf(stderr, "%s: FSP_BPF and FSP_OUT must be set (run `make integration`)\n",
			name);
		return 1;
	}
	if (!each && itest_lock(name))
		return 1;
	/* Unbuffered, so that the numbers of a failing comparison come before
	 * cmocka's verdict. */
	setvbuf(stdout, NULL, _IONBF, 0);
	/* ITEST_FILTER=test_x (a glob): run only the tests it matches. */
	if (getenv("ITEST_FILTER"))
		cmocka_set_test_filter(getenv("ITEST_FILTER"));
	return _cmocka_run_group_tests(name, tests, n, NULL, NULL);
}

int itest_run_group(const char *group, const struct CMUnitTest *tests, size_t n)
{
	return run_group(group, tests, n, false);
}

int itest_run_group_each(const char *group, const struct CMUnitTest *tests, size_t n)
{
	return run_group(group, tests, n, true);
}

/* ---- paths ------------------------------------------------------------------------ */

static char *path_slot(void)
{
	static char paths[NR_PATHS][PATH_MAX];
	static int next;

	return paths[next++ % NR_PATHS];
}

const char *itest_fsp_bpf(void)
{
	const char *p = getenv("FSP_BPF");

	if (!p || access(p, X_OK))
		fail_msg("FSP_BPF (%s) is not an executable fsp-bpf", p ? p : "unset");
	return p;
}

bool itest_abi_v1(void)
{
	const char *abi = getenv("FSP_ABI");

	return abi && !strcmp(abi, "v1");
}

const char *itest_workload(const char *name)
{
	const char *out = getenv("FSP_OUT");
	char *buf = path_slot();

	snprintf(buf, PATH_MAX, "%s/%s/%s", out ? out : ".output",
		 itest_abi_v1() ? "workloads-v1" : "workloads", name);
	if (access(buf, R_OK))
		fail_msg("workload %s is missing (make workloads)", buf);
	return buf;
}

const char *itest_tmp(const char *fmt, ...)
{
	char *buf = path_slot(), name[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	snprintf(buf, PATH_MAX, "%s/%s", tmpdir, name);
	return buf;
}

/* ---- processes ------------------------------------------------------------------- */

double itest_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void itest_sleep(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void track(struct itest_proc *p)
{
	for (int i = 0; i < MAX_PROCS; i++) {
		if (!proc_pids[i]) {
			proc_pids[i] = p->pid;
			procs[i] = p;
			return;
		}
	}
	fail_msg("itest: more than %d processes in one test", MAX_PROCS);
}

static void untrack(struct itest_proc *p)
{
	for (int i = 0; i < MAX_PROCS; i++) {
		if (proc_pids[i] == p->pid) {
			proc_pids[i] = 0;
			procs[i] = NULL;
		}
	}
}

void itest_spawn(struct itest_proc *p, const char *tag, char *const argv[])
{
	int out, err;

	memset(p, 0, sizeof(*p));
	snprintf(p->out_path, sizeof(p->out_path), "%s", itest_tmp("%s.stdout", tag));
	snprintf(p->err_path, sizeof(p->err_path), "%s", itest_tmp("%s.stderr", tag));
	out = open(p->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	err = open(p->err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0 || err < 0)
		fail_msg("cannot create %s: %s", p->out_path, strerror(errno));
	p->start_s = itest_now();
	p->pid = fork();
	if (p->pid < 0)
		fail_msg("fork: %s", strerror(errno));
	if (p->pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		dup2(null, 0);
		dup2(out, 1);
		dup2(err, 2);
		/* Signals the test blocked or ignored must not leak into the child. */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execv(argv[0], argv);
		fprintf(stderr, "itest: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(p->pid, p->pid); /* both sides, so the group exists before we kill it */
	close(out);
	close(err);
	track(p);
}

static void collect(struct itest_proc *p, int status)
{
	p->exited = true;
	p->status = status;
	p->end_s = itest_now();
	untrack(p);
	/* Anything it left in its process group (a launched command) goes too. */
	kill(-p->pid, SIGKILL);
	free(p->out);
	free(p->err);
	p->out = itest_slurp(p->out_path);
	p->err = itest_slurp(p->err_path);
	if (!p->out)
		p->out = strdup("");
	if (!p->err)
		p->err = strdup("");
}

bool itest_poll(struct itest_proc *p)
{
	int status;

	if (p->exited)
		return true;
	if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
		collect(p, status);
		return true;
	}
	return false;
}

void itest_wait(struct itest_proc *p, double timeout_s)
{
	double deadline = itest_now() + timeout_s;

	while (!itest_poll(p)) {
		if (itest_now() > deadline) {
			char *err;

			kill(-p->pid, SIGKILL);
			kill(p->pid, SIGKILL);
			waitpid(p->pid, NULL, 0);
			untrack(p);
			p->exited = true;
			err = itest_slurp(p->err_path);
			fail_msg("pid %d did not exit within %.0f s (hang); its stderr:\n%s",
				 p->pid, timeout_s, err ? err : "");
		}
		itest_sleep(0.005);
	}
}

void itest_signal(struct itest_proc *p, int sig)
{
	if (p->exited || kill(p->pid, sig))
		fail_msg("cannot send signal %d to pid %d: %s", sig, p->pid,
			 p->exited ? "it has exited" : strerror(errno));
}

void itest_go_attached(struct itest_proc *w, struct itest_proc *fsp)
{
	itest_signal(w, SIGUSR2);
	itest_wait(w, ITEST_TIMEOUT_S);
	itest_assert_exit(w, 0);
	/* The session ends by itself when the target exits. */
	itest_wait(fsp, ITEST_TIMEOUT_S);
	itest_assert_exit(fsp, 0);
}

bool itest_blocks_signal(pid_t pid, int sig)
{
	char path[64], *status, *line;
	unsigned long long mask = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	status = itest_slurp(path);
	line = status ? strstr(status, "\nSigBlk:") : NULL;
	if (line)
		mask = strtoull(line + 8, NULL, 16);
	free(status);
	return mask & (1ULL << (sig - 1));
}

void itest_kill(struct itest_proc *p)
{
	if (p->exited)
		return;
	kill(-p->pid, SIGKILL);
	kill(p->pid, SIGKILL);
	waitpid(p->pid, NULL, 0);
	p->exited = true;
	p->status = -1;
	untrack(p);
}

/* The machine's steal time so far (/proc/stat, all CPUs), ns; 0 if unknown. */
static double steal_ns(void)
{
	unsigned long long v[8] = {0};
	FILE *f = fopen("/proc/stat", "re");
	int n = 0;

	if (f) {
		n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7]);
		fclose(f);
	}
	return n == 8 ? (double)v[7] * 1e9 / sysconf(_SC_CLK_TCK) : 0;
}

/* Steal time during the last itest_run_fspv (see itest_count_ok). */
static double last_steal_ns;

void itest_run_fspv(struct itest_proc *p, const char *tag, double timeout_s, char **argv)
{
	double s0 = steal_ns();

	argv[0] = (char *)itest_fsp_bpf();
	itest_spawn(p, tag, argv);
	itest_wait(p, timeout_s);
	last_steal_ns = steal_ns() - s0;
}

void itest_run_fsp(struct itest_proc *p, const char *tag, double timeout_s, ...)
{
	char *argv[64];
	int argc = 1;
	va_list ap;

	va_start(ap, timeout_s);
	for (char *a; (a = va_arg(ap, char *)) && argc < 63;)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	itest_run_fspv(p, tag, timeout_s, argv);
}

double itest_attach_fsp(struct itest_proc *p, pid_t pid, ...)
{
	char *argv[64] = {(char *)itest_fsp_bpf()}, pidbuf[16];
	double t0 = itest_now();
	int argc = 1;
	va_list ap;

	va_start(ap, pid);
	for (char *a; (a = va_arg(ap, char *)) && argc < 60;)
		argv[argc++] = a;
	va_end(ap);
	snprintf(pidbuf, sizeof(pidbuf), "%d", pid);
	argv[argc++] = "-p";
	argv[argc++] = pidbuf;
	argv[argc] = NULL;
	itest_spawn(p, "fsp", argv);
	if (!itest_wait_text(p->err_path, "fsp-bpf: profiling", 15)) {
		char *err = itest_slurp(p->err_path);

		fail_msg("fsp-bpf did not start profiling pid %d within 15 s; stderr:\n%s", pid,
			 err ? err : "");
	}
	return itest_now() - t0;
}

void itest_start_fsp(struct itest_proc *p, char **argv)
{
	argv[0] = (char *)itest_fsp_bpf();
	itest_spawn(p, "fsp", argv);
	if (!itest_wait_text(p->err_path, "fsp-bpf: profiling", ITEST_START_TIMEOUT_S)) {
		char *err = itest_slurp(p->err_path);

		fail_msg("fsp-bpf did not start profiling within %.0f s; stderr:\n%s",
			 ITEST_START_TIMEOUT_S, err ? err : "");
	}
}

void itest_stop_fsp(struct itest_proc *p)
{
	itest_signal(p, SIGINT);
	itest_wait(p, ITEST_TIMEOUT_S);
	itest_assert_exit(p, 0);
}

const char *itest_fresh_copy(const char *dir, const char *name)
{
	const char *d = itest_tmp("%s", dir), *dst = itest_tmp("%s/%s", dir, name);
	char cmd[3 * PATH_MAX];

	if (mkdir(d, 0755) && errno != EEXIST)
		fail_msg("mkdir %s: %s", d, strerror(errno));
	if (snprintf(cmd, sizeof(cmd), "cp %s %s", itest_workload(name), dst) >= (int)sizeof(cmd) ||
	    system(cmd))
		fail_msg("cannot copy %s to %s", name, dst);
	return dst;
}

static const char *describe_status(int status, char *buf, size_t size)
{
	if (WIFEXITED(status))
		snprintf(buf, size, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, size, "status 0x%x", status);
	return buf;
}

void itest_assert_exit(const struct itest_proc *p, int code)
{
	char buf[64];

	if (!p->exited || !WIFEXITED(p->status) || WEXITSTATUS(p->status) != code)
		fail_msg("pid %d: expected exit %d, got %s; stderr:\n%s", p->pid, code,
			 p->exited ? describe_status(p->status, buf, sizeof(buf)) : "running",
			 p->err ? p->err : "");
}

void itest_assert_failed_cleanly(const struct itest_proc *p)
{
	char buf[64];

	if (!p->exited || !WIFEXITED(p->status) || WEXITSTATUS(p->status) == 0)
		fail_msg("pid %d: expected a non-zero exit, got %s; stderr:\n%s", p->pid,
			 p->exited ? describe_status(p->status, buf, sizeof(buf)) : "running",
			 p->err ? p->err : "");
}

bool itest_wait_file(const char *path, double timeout_s)
{
	double deadline = itest_now() + timeout_s;

	while (access(path, F_OK)) {
		if (itest_now() > deadline)
			return false;
		itest_sleep(0.002);
	}
	return true;
}

bool itest_wait_text(const char *path, const char *needle, double timeout_s)
{
	double deadline = itest_now() + timeout_s;

	for (;;) {
		char *s = itest_slurp(path);
		bool found = s && strstr(s, needle);

		free(s);
		if (found)
			return true;
		if (itest_now() > deadline)
			return false;
		itest_sleep(0.002);
	}
}

bool itest_shell(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd) == 0;
}

char *itest_slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap + 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap += 65536;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	buf[len] = 0;
	fclose(f);
	return buf;
}

void itest_assert_one_error_line(const struct itest_proc *p, ...)
{
	const char *err = p->err ? p->err : "";
	char first[1024] = "", lower[1024];
	int count = 0;
	va_list ap;

	for (const char *s = err; *s;) {
		const char *nl = strchrnul(s, '\n');

		if (!strncmp(s, "fsp-bpf: ", 9) && !count++)
			snprintf(first, sizeof(first), "%.*s", (int)(nl - s), s);
		s = *nl ? nl + 1 : nl;
	}
	if (count != 1)
		fail_msg("expected exactly one \"fsp-bpf: \" line on stderr, found %d:\n%s", count,
			 err);
	for (size_t i = 0;; i++) {
		lower[i] = (char)tolower((unsigned char)first[i]);
		if (!first[i])
			break;
	}
	va_start(ap, p);
	for (const char *needle; (needle = va_arg(ap, const char *));) {
		char nl[256];
		size_t i;

		for (i = 0; needle[i] && i < sizeof(nl) - 1; i++)
			nl[i] = (char)tolower((unsigned char)needle[i]);
		nl[i] = 0;
		if (!strstr(lower, nl)) {
			va_end(ap);
			fail_msg("the error line does not mention \"%s\": %s", needle, first);
		}
	}
	va_end(ap);
	print_message("  error line: %s\n", first);
}

/* ---- JSON ------------------------------------------------------------------------ */

json_object *itest_json_load(const char *path)
{
	json_object *j = json_object_from_file(path);

	if (!j)
		fail_msg("cannot read the JSON profile %s: %s", path, json_util_get_last_err());
	if (!json_object_is_type(j, json_type_object))
		fail_msg("%s is not a JSON object", path);
	return j;
}

static json_object *member(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		fail_msg("JSON: field \"%s\" is missing", key);
	return v;
}

uint64_t itest_json_u64(json_object *o, const char *key)
{
	json_object *v = member(o, key);

	if (!json_object_is_type(v, json_type_int))
		fail_msg("JSON: field \"%s\" is not an integer", key);
	return json_object_get_uint64(v);
}

double itest_json_double(json_object *o, const char *key)
{
	json_object *v = member(o, key);

	if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
		fail_msg("JSON: field \"%s\" is not a number", key);
	return json_object_get_double(v);
}

uint64_t itest_total_samples(json_object *prof)
{
	return itest_json_u64(prof, "total_samples");
}

static json_object *find_named(json_object *arr, const char *name)
{
	size_t n = json_object_array_length(arr);

	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(arr, i), *nm;

		if (json_object_object_get_ex(e, "name", &nm) &&
		    !strcmp(json_object_get_string(nm), name))
			return e;
	}
	return NULL;
}

uint64_t itest_feature_samples(json_object *prof, const char *feature)
{
	json_object *f = find_named(member(prof, "features"), feature);

	return f ? itest_json_u64(f, "samples") : 0;
}

uint64_t itest_instance_samples(json_object *prof, const char *feature, const char *instance)
{
	json_object *f = find_named(member(prof, "features"), feature), *i;

	if (!f)
		return 0;
	i = find_named(member(f, "instances"), instance);
	return i ? itest_json_u64(i, "samples") : 0;
}

uint64_t itest_diag(json_object *prof, const char *name)
{
	return itest_json_u64(member(prof, "diagnostics"), name);
}

bool itest_has_pid(json_object *prof, pid_t pid)
{
	json_object *pids = member(prof, "pids");
	size_t n = json_object_array_length(pids);

	for (size_t i = 0; i < n; i++)
		if (json_object_get_int64(json_object_array_get_idx(pids, i)) == pid)
			return true;
	return false;
}

json_object *itest_thread(json_object *prof, pid_t tid)
{
	json_object *th = member(prof, "threads");
	size_t n = json_object_array_length(th);

	for (size_t i = 0; i < n; i++) {
		json_object *t = json_object_array_get_idx(th, i);

		if ((pid_t)itest_json_u64(t, "tid") == tid)
			return t;
	}
	return NULL;
}

/* Element i of JSON array a (frames and sample rows are arrays). */
static json_object *element(json_object *a, size_t i, const char *what)
{
	if (!json_object_is_type(a, json_type_array) || i >= json_object_array_length(a))
		fail_msg("JSON: %s has no element %zu", what, i);
	return json_object_array_get_idx(a, i);
}

/* The label that string index v (an element of a frame) names in "strings". */
static const char *label(json_object *strings, json_object *v)
{
	json_object *s;

	if (!json_object_is_type(v, json_type_int))
		fail_msg("JSON: a frame's feature is not a string index");
	s = element(strings, json_object_get_uint64(v), "strings");
	if (!json_object_is_type(s, json_type_string))
		fail_msg("JSON: a string table entry is not a string");
	return json_object_get_string(s);
}

void itest_attrib_pid(json_object *prof, pid_t pid, const char *feature, uint64_t *charged,
		      uint64_t *total)
{
	itest_attrib_thread(prof, pid, 0, feature, charged, total);
}

void itest_attrib_thread(json_object *prof, pid_t pid, pid_t tid, const char *feature,
			 uint64_t *charged, uint64_t *total)
{
	json_object *stacks = member(prof, "stacks"), *samples = member(prof, "samples");
	json_object *strings = member(prof, "strings");
	size_t ns = json_object_array_length(samples), nst = json_object_array_length(stacks);

	*charged = *total = 0;
	for (size_t i = 0; i < ns; i++) {
		/* a row: [source, pid, tid, stack, count(, offcpu_ns)] */
		json_object *s = element(samples, i, "samples"), *sid, *frames;
		uint64_t count, id;
		const char *kind = NULL;

		if (json_object_array_length(s) < 5)
			fail_msg("JSON: samples[%zu] has fewer than 5 columns", i);
		if ((pid_t)json_object_get_int64(element(s, 1, "a sample")) != pid ||
		    (tid && (pid_t)json_object_get_int64(element(s, 2, "a sample")) != tid))
			continue;
		count = json_object_get_uint64(element(s, 4, "a sample"));
		*total += count;
		/* null: the empty stack; a key string: a stack not stored */
		sid = element(s, 3, "a sample");
		if (!json_object_is_type(sid, json_type_int))
			continue;
		id = json_object_get_uint64(sid);
		if (id >= nst)
			fail_msg("JSON: sample refers to stack %llu of %zu", (unsigned long long)id,
				 nst);
		frames = member(json_object_array_get_idx(stacks, id), "frames");
		/* The top-most frame of the feature decides (docs/attribution.md, "The rule").
		 * A frame is ["m" or "a", feature index, instance index, payload]. */
		for (size_t f = 0, nf = json_object_array_length(frames); f < nf; f++) {
			json_object *fr = element(frames, f, "frames");

			if (!strcmp(label(strings, element(fr, 1, "a frame")), feature))
				kind = json_object_get_string(element(fr, 0, "a frame"));
		}
		if (kind && !strcmp(kind, "m"))
			*charged += count;
	}
}

static void assert_label_ok(const char *what, const char *s)
{
	if (!s || !*s || strstr(s, "<label") || strstr(s, "0x"))
		fail_msg("unresolved %s label \"%s\"", what, s ? s : "(null)");
}

void itest_assert_labels_resolved(json_object *prof)
{
	json_object *feats = member(prof, "features"), *strings = member(prof, "strings");

	for (size_t i = 0, n = json_object_array_length(feats); i < n; i++) {
		json_object *f = json_object_array_get_idx(feats, i), *insts;

		assert_label_ok("feature", json_object_get_string(member(f, "name")));
		insts = member(f, "instances");
		for (size_t k = 0, m = json_object_array_length(insts); k < m; k++)
			assert_label_ok("instance",
					json_object_get_string(member(
						json_object_array_get_idx(insts, k), "name")));
	}
	/* and every label of the stacks and events, charged or not */
	for (size_t i = 0, n = json_object_array_length(strings); i < n; i++)
		assert_label_ok("stack", json_object_get_string(element(strings, i, "strings")));
}

/* ---- ground truth ----------------------------------------------------------------- */

struct itest_truth {
	size_t n;
	char **keys;
	char **vals;
	char path[PATH_MAX];
};

struct itest_truth *itest_truth_load(const char *path)
{
	struct itest_truth *t = calloc(1, sizeof(*t));
	char *text = itest_slurp(path), *save = NULL;

	if (!t || !text)
		fail_msg("cannot read the workload's truth file %s", path);
	snprintf(t->path, sizeof(t->path), "%s", path);
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');

		if (!sp)
			continue;
		*sp = 0;
		t->keys = realloc(t->keys, (t->n + 1) * sizeof(*t->keys));
		t->vals = realloc(t->vals, (t->n + 1) * sizeof(*t->vals));
		if (!t->keys || !t->vals)
			fail_msg("out of memory");
		t->keys[t->n] = strdup(line);
		t->vals[t->n] = strdup(sp + 1);
		t->n++;
	}
	free(text);
	return t;
}

void itest_truth_free(struct itest_truth *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->keys[i]);
		free(t->vals[i]);
	}
	free(t->keys);
	free(t->vals);
	free(t);
}

static const char *truth_find(const struct itest_truth *t, const char *key)
{
	for (size_t i = t->n; i-- > 0;)
		if (!strcmp(t->keys[i], key))
			return t->vals[i];
	return NULL;
}

bool itest_truth_has(const struct itest_truth *t, const char *fmt, ...)
{
	char key[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	return truth_find(t, key) != NULL;
}

const char *itest_truth_str(const struct itest_truth *t, const char *fmt, ...)
{
	const char *v;
	char key[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	v = truth_find(t, key);
	if (!v)
		fail_msg("truth file %s has no \"%s\"", t->path, key);
	return v;
}

uint64_t itest_truth_u64(const struct itest_truth *t, const char *fmt, ...)
{
	const char *v;
	char key[256], *end;
	unsigned long long x;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	v = truth_find(t, key);
	if (!v)
		fail_msg("truth file %s has no \"%s\"", t->path, key);
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno || *end)
		fail_msg("truth file %s: \"%s\" is not a number: %s", t->path, key, v);
	return x;
}

/* ---- tolerances --------------------------------------------------------------------- */

double itest_tolerance(double p, uint64_t n, double delta)
{
	double sigma;

	if (!n)
		return INFINITY;
	if (p < 0)
		p = 0;
	if (p > 1)
		p = 1;
	sigma = sqrt(p * (1 - p) / (double)n);
	return 4 * sigma + delta + 1.0 / (double)n;
}

bool itest_share_ok(const char *what, uint64_t k, uint64_t n, double p, double delta)
{
	double ph = n ? (double)k / (double)n : 0, tol = itest_tolerance(p, n, delta);
	bool ok = n && fabs(ph - p) <= tol + ITEST_EPS;

	print_message("  %-28s fsp-bpf %6.2f%% (%llu/%llu)  truth %6.2f%%  |diff| %5.2f%%  "
		      "tol %5.2f%% (4sigma %.2f%% + delta %.2f%% + 1/n)  %s\n",
		      what, 100 * ph, (unsigned long long)k, (unsigned long long)n, 100 * p,
		      100 * fabs(ph - p), 100 * tol, n ? 400 * sqrt(p * (1 - p) / n) : 0,
		      100 * delta, ok ? "ok" : "FAIL");
	return ok;
}

bool itest_share_rejects(const char *what, uint64_t k, uint64_t n, double p_wrong, double delta)
{
	double ph = n ? (double)k / (double)n : 0, tol = itest_tolerance(p_wrong, n, delta);
	bool rejects = n && fabs(ph - p_wrong) > tol + ITEST_EPS;

	print_message("  %-28s fsp-bpf %6.2f%% vs broken-profiler share %6.2f%%: |diff| %5.2f%% "
		      "%s tol %5.2f%%  %s\n",
		      what, 100 * ph, 100 * p_wrong, 100 * fabs(ph - p_wrong),
		      rejects ? ">" : "<=", 100 * tol, rejects ? "distinguishable" : "FAIL");
	return rejects;
}

bool itest_truth_share_ok(const char *what, uint64_t k, uint64_t n, const struct itest_truth *t,
			  const char *key, double cpu_total_ns, double delta_window)
{
	double ns = (double)itest_truth_u64(t, "%s.ns", key);
	double ambig = (double)itest_truth_u64(t, "%s.ambig_ns", key);

	return itest_share_ok(what, k, n, ns / cpu_total_ns,
			      ambig / (2 * cpu_total_ns) + delta_window);
}

double itest_steal_bound_ns(void)
{
	return last_steal_ns + sysconf(_SC_NPROCESSORS_ONLN) * 1e9 / sysconf(_SC_CLK_TCK);
}

bool itest_count_ok(json_object *prof, const struct itest_truth *t, unsigned threads,
		    double ambig_ns)
{
	double n = (double)itest_total_samples(prof), T = (double)itest_json_u64(prof, "period_ns");
	double C = (double)itest_truth_u64(t, "cpu_total_ns");
	double ctx = (double)itest_truth_u64(t, "ctx_switches");
	/* Steal: while the hypervisor runs something else, the guest's timer
	 * ticks late (one sample for several periods) but the thread CPU clock
	 * goes on. Bounded by the machine's steal time during the run, counted
	 * in USER_HZ ticks: plus one tick per CPU of resolution. */
	double steal = itest_steal_bound_ns();
	double bound = (ctx + threads) * T + ambig_ns + ITEST_EXIT_NS + steal;
	bool ok = fabs(n * T - C) <= bound;

	print_message("  %-28s fsp-bpf %.1f ms (%.0f samples x %.0f ns)  truth %.1f ms  |diff| "
		      "%.1f ms  bound %.1f ms (steal %.1f ms)  %s\n",
		      "on-CPU time", n * T / 1e6, n, T, C / 1e6, fabs(n * T - C) / 1e6, bound / 1e6,
		      last_steal_ns / 1e6, ok ? "ok" : "FAIL");
	return ok;
}

/* ---- the profile through the analysis library ------------------------------ */

struct profile *itest_profile_load(const char *path)
{
	char msg[512];
	struct profile *p = profile__load(path, msg, sizeof(msg));

	if (!p)
		fail_msg("%s", msg);
	return p;
}

struct profile *itest_profile_charged(const char *path)
{
	struct profile *p = itest_profile_load(path);
	struct funcfeat *ff = funcfeat__new();
	const char *text = profile__meta(p)->function_features;
	char err[256];

	assert_non_null(ff);
	assert_non_null(text);
	assert_int_equal(funcfeat__parse(ff, text, err, sizeof(err)), 0);
	assert_int_equal(funcfeat__apply(ff, p), 0);
	funcfeat__free(ff);
	return p;
}

const struct attrib_feature *itest_find_feature(const struct attrib *a, const char *name)
{
	for (size_t i = 0; i < attrib__nr_features(a); i++)
		if (!strcmp(attrib__feature(a, i)->name, name))
			return attrib__feature(a, i);
	return NULL;
}

const struct attrib_feature *itest_feature(const struct attrib *a, const char *name)
{
	const struct attrib_feature *f = itest_find_feature(a, name);

	if (!f)
		fail_msg("feature %s is not in the profile", name);
	return f;
}

const struct attrib_instance *itest_instance(const struct attrib *a, const char *f,
					     const char *name)
{
	const struct attrib_feature *af = itest_feature(a, f);

	for (size_t i = 0; i < af->nr_instances; i++)
		if (!strcmp(af->instances[i].name, name))
			return &af->instances[i];
	fail_msg("instance \"%s\" of %s is not in the profile", name, f);
	return NULL;
}
