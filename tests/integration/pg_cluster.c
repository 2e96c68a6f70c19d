// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pg_cluster - a throwaway PostgreSQL 15 cluster for one integration test
 * (see pg_cluster.h). Linked into every integration test binary; only
 * test_postgres.c uses it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pg_cluster.h"

/* ---- processes ------------------------------------------------------------------ */

#define PGC_MAX_PROCS 64

/* Every process pgc_spawn started, for pgc_cleanup; postmasters get SIGQUIT. */
static struct {
	pid_t pid;
	bool postmaster;
} procs[PGC_MAX_PROCS];

/* Is pid a child of ours, not yet reaped? (Does not reap it.) */
static bool is_child(pid_t pid)
{
	siginfo_t info;

	return !waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT);
}

static void track(pid_t pid, bool postmaster)
{
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < PGC_MAX_PROCS; i++) {
			/* Second pass: reuse the slots of processes already reaped
			 * (itest_wait). */
			if (procs[i].pid && (pass == 0 || is_child(procs[i].pid)))
				continue;
			procs[i].pid = pid;
			procs[i].postmaster = postmaster;
			return;
		}
	}
	fail_msg("pg_cluster: more than %d processes at once", PGC_MAX_PROCS);
}

/* Waits up to timeout_s for pid to exit after a signal; if it does not, kills
 * its whole process group (a postmaster's backends) and reaps it. The group
 * is killed only while pid is unreaped, so that its number cannot have been
 * reused. */
static void reap_group(pid_t pid, double timeout_s)
{
	struct timespec ts = {0, 2000000};
	int n = (int)(timeout_s / 0.002);

	for (int i = 0; i < n; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		nanosleep(&ts, NULL);
	}
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

void pgc_cleanup(void)
{
	/* Clients first (their backends then end by themselves), postmasters
	 * last: SIGQUIT is `pg_ctl stop -m immediate`, the group kill catches
	 * anything that outlives it. */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < PGC_MAX_PROCS; i++) {
			pid_t pid = procs[i].pid;
			siginfo_t info;

			if (!pid || procs[i].postmaster != (pass == 1))
				continue;
			procs[i].pid = 0;
			/* Reaped already (itest_wait, which also killed its
			 * group): not ours any more. */
			memset(&info, 0, sizeof(info));
			if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT))
				continue;
			if (info.si_pid == pid) {
				/* Exited, not reaped: what is left of its group. */
				kill(-pid, SIGKILL);
				waitpid(pid, NULL, 0);
				continue;
			}
			kill(pid, procs[i].postmaster ? SIGQUIT : SIGKILL);
			reap_group(pid, procs[i].postmaster ? 10 : 0);
		}
	}
}

int pgc_teardown(void **state)
{
	pgc_cleanup();
	return itest_teardown(state);
}

static void at_exit(void)
{
	pgc_cleanup();
}

static void spawn(struct pgc *c, struct itest_proc *p, const char *tag, char *const argv[],
		  bool postmaster)
{
	pid_t parent = getpid();
	struct passwd *pw = getpwuid(c->uid);
	char home[PATH_MAX + 8], path[] = "PATH=/usr/bin:/bin";
	char *env[] = {path, home, "USER=" PGC_USER, "LOGNAME=" PGC_USER, "LC_ALL=C", NULL};
	int out, err;

	memset(p, 0, sizeof(*p));
	snprintf(home, sizeof(home), "HOME=%s", pw ? pw->pw_dir : "/");
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
		sigset_t none;

		setpgid(0, 0);
		dup2(null, 0);
		dup2(out, 1);
		dup2(err, 2);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		/* PostgreSQL refuses to run as root; clients run as the same
		 * user, so that trust authentication of "postgres" applies. */
		if (setgroups(0, NULL) || setgid(c->gid) || setuid(c->uid)) {
			fprintf(stderr, "pg_cluster: cannot become %s: %s\n", PGC_USER,
				strerror(errno));
			_exit(126);
		}
		/* Should the test itself be killed, its cluster goes too (set
		 * after setuid, which clears it): an immediate shutdown for the
		 * postmaster, SIGKILL for clients. */
		prctl(PR_SET_PDEATHSIG, postmaster ? SIGQUIT : SIGKILL);
		if (getppid() != parent)
			_exit(126);
		if (chdir(c->dir)) {
			fprintf(stderr, "pg_cluster: chdir %s: %s\n", c->dir, strerror(errno));
			_exit(126);
		}
		/* A clean environment: no PGHOST, PGOPTIONS, ... of the caller. */
		execve(argv[0], argv, env);
		fprintf(stderr, "pg_cluster: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(p->pid, p->pid);
	close(out);
	close(err);
	track(p->pid, postmaster);
}

void pgc_spawn(struct pgc *c, struct itest_proc *p, const char *tag, char *const argv[])
{
	spawn(c, p, tag, argv, false);
}

/* Runs argv to completion; fails the test unless it exits 0. */
static void run_ok(struct pgc *c, struct itest_proc *p, const char *tag, char *const argv[],
		   double timeout_s)
{
	pgc_spawn(c, p, tag, argv);
	itest_wait(p, timeout_s);
	if (!WIFEXITED(p->status) || WEXITSTATUS(p->status))
		fail_msg("%s failed (status 0x%x); stderr:\n%s\nstdout:\n%s", argv[0], p->status,
			 p->err, p->out);
}

/* ---- the cluster --------------------------------------------------------------- */

const char *pgc_missing(void)
{
	static const char *const files[] = {
		PGC_BINDIR "/initdb",
		PGC_BINDIR "/postgres",
		PGC_BINDIR "/psql",
		PGC_BINDIR "/pgbench",
		PGC_LIBDIR "/pg_stat_statements.so",
		"/usr/share/postgresql/15/extension/pg_stat_statements.control",
	};
	static char why[512];

	if (!getpwnam(PGC_USER)) {
		snprintf(why, sizeof(why), "there is no user \"%s\"", PGC_USER);
		return why;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (access(files[i], F_OK)) {
			snprintf(why, sizeof(why), "%s is missing", files[i]);
			return why;
		}
	}
	return NULL;
}

pid_t pgc_postmaster(const struct pgc *c)
{
	return c->pm.pid;
}

static int free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	if (port <= 0)
		fail_msg("no free TCP port on 127.0.0.1: %s", strerror(errno));
	return port;
}

/*
 * The configuration, appended to initdb's postgresql.conf.
 *
 * - pg_stat_statements is the ground truth: track = all, track_planning = on
 *   (planning time is measured only with it), track_utility = on: with the
 *   extended protocol, BEGIN and END go through PortalRun too (the span of
 *   query__execute__start/done), and pg_stat_statements times their
 *   ProcessUtility, so the counts of both include them.
 * - fsync, synchronous_commit and full_page_writes off: the tests compare
 *   CPU-bound phases (planning, execution) and the benchmark measures the
 *   profiler's CPU cost. With synchronous_commit on, every commit would wait
 *   for its WAL flush: off-CPU time that depends on the disk, in the sessions
 *   and in pgbench's throughput. A scratch cluster needs no durability.
 * - autovacuum off: no autovacuum workers in system-wide sessions, and the
 *   planner statistics pgbench -i's VACUUM ANALYZE made stay as they are.
 * - max_parallel_workers_per_gather = 0: a parallel scan would run part of a
 *   query's execution in worker processes, outside the backend whose marks
 *   the tests compare, while the backend waits off CPU.
 * - jit off: no LLVM compilation inside the phases (the queries are below
 *   jit_above_cost anyway).
 * - shared_buffers 32MB holds pgbench's tables at scale 1 (~16 MB): no reads
 *   from disk inside the phases.
 * - lc_messages C: the readiness line of the log is matched in English.
 */
static void configure(struct pgc *c)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/postgresql.conf", c->data);
	f = fopen(path, "ae");
	if (!f)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	fprintf(f,
		"\n# fsp-bpf integration tests (tests/integration/pg_cluster.c)\n"
		"listen_addresses = '127.0.0.1'\n"
		"unix_socket_directories = '%s'\n"
		"max_connections = 20\n"
		"shared_buffers = 32MB\n"
		"huge_pages = off\n"
		"shared_preload_libraries = 'pg_stat_statements'\n"
		"compute_query_id = on\n"
		"pg_stat_statements.track = all\n"
		"pg_stat_statements.track_planning = on\n"
		"pg_stat_statements.track_utility = on\n"
		"fsync = off\n"
		"synchronous_commit = off\n"
		"full_page_writes = off\n"
		"autovacuum = off\n"
		"max_parallel_workers_per_gather = 0\n"
		"jit = off\n"
		"lc_messages = 'C'\n",
		c->dir);
	if (fclose(f))
		fail_msg("cannot write %s: %s", path, strerror(errno));
}

/* Starts the postmaster on a free port: true once it accepts connections,
 * false if the port was taken meanwhile (try another). */
static bool start_postmaster(struct pgc *c)
{
	char port[16];
	char *argv[] = {PGC_BINDIR "/postgres", "-D", c->data, "-p", port, NULL};
	double deadline;

	c->port = free_port();
	snprintf(port, sizeof(port), "%d", c->port);
	spawn(c, &c->pm, "postgres", argv, true);
	deadline = itest_now() + 60;
	for (;;) {
		char *log = itest_slurp(c->pm.err_path);
		bool ready = log && strstr(log, "database system is ready to accept connections");

		free(log);
		if (ready)
			return true;
		if (itest_poll(&c->pm)) {
			if (strstr(c->pm.err, "could not bind") || strstr(c->pm.err, "in use"))
				return false;
			fail_msg("postgres exited (status 0x%x); its log:\n%s", c->pm.status,
				 c->pm.err);
		}
		if (itest_now() > deadline)
			fail_msg("postgres did not accept connections within 60 s; its log:\n%s",
				 (log = itest_slurp(c->pm.err_path)) ? log : "");
		itest_sleep(0.01);
	}
}

void pgc_start(struct pgc *c)
{
	static bool registered;
	const char *why = pgc_missing();
	struct itest_proc p;
	struct passwd *pw;

	if (why) {
		fprintf(stderr,
			"SKIP: PostgreSQL 15 is not installed here (%s): the PostgreSQL tests "
			"need the Debian package postgresql-15 (scripts/install-deps.sh)\n",
			why);
		skip();
	}
	if (!registered) {
		atexit(at_exit);
		registered = true;
	}
	memset(c, 0, sizeof(*c));
	pw = getpwnam(PGC_USER);
	c->uid = pw->pw_uid;
	c->gid = pw->pw_gid;
	snprintf(c->dir, sizeof(c->dir), "%s", itest_tmp("pg"));
	snprintf(c->data, sizeof(c->data), "%s/data", c->dir);
	if (mkdir(c->dir, 0700) || chown(c->dir, c->uid, c->gid))
		fail_msg("cannot create %s for %s: %s", c->dir, PGC_USER, strerror(errno));

	{
		char *argv[] = {PGC_BINDIR "/initdb",
				"-D",
				c->data,
				"-U",
				PGC_USER,
				"-A",
				"trust",
				"-E",
				"UTF8",
				"--locale=C",
				"--no-sync",
				"--no-instructions",
				NULL};

		run_ok(c, &p, "initdb", argv, 120);
		free(p.out);
		free(p.err);
	}
	configure(c);
	for (int attempt = 0;; attempt++) {
		if (start_postmaster(c))
			break;
		if (attempt == 2)
			fail_msg("postgres could not bind a free port three times:\n%s", c->pm.err);
	}
	c->running = true;
	free(pgc_sql(c, "CREATE EXTENSION pg_stat_statements"));
	printf("  PostgreSQL 15 cluster: pid %d, port %d, %s\n", c->pm.pid, c->port, c->dir);
}

void pgc_stop(struct pgc *c)
{
	if (!c->running)
		return;
	c->running = false;
	if (itest_poll(&c->pm))
		return;
	/* pg_ctl stop -m immediate: SIGQUIT, no shutdown checkpoint. */
	kill(c->pm.pid, SIGQUIT);
	itest_wait(&c->pm, 30);
}

/* ---- SQL ------------------------------------------------------------------------ */

static char *vsql(struct pgc *c, const char *fmt, va_list ap)
{
	static unsigned int seq;
	char port[16], tag[32], *sql, *out;
	struct itest_proc p;
	size_t n;

	if (vasprintf(&sql, fmt, ap) < 0)
		fail_msg("out of memory");
	snprintf(port, sizeof(port), "%d", c->port);
	snprintf(tag, sizeof(tag), "psql-%u", seq++);
	{
		char *argv[] = {PGC_BINDIR "/psql", "-X", "-q",	  "-A", "-t", "-v",
				"ON_ERROR_STOP=1",  "-h", c->dir, "-p", port, "-U",
				PGC_USER,	    "-d", PGC_DB, "-c", sql,  NULL};

		pgc_spawn(c, &p, tag, argv);
	}
	itest_wait(&p, 120);
	if (!WIFEXITED(p.status) || WEXITSTATUS(p.status))
		fail_msg("psql failed (status 0x%x) on:\n%s\n%s", p.status, sql, p.err);
	free(sql);
	free(p.err);
	out = p.out;
	n = strlen(out);
	while (n && (out[n - 1] == '\n' || out[n - 1] == '\r'))
		out[--n] = 0;
	return out;
}

char *pgc_sql(struct pgc *c, const char *fmt, ...)
{
	va_list ap;
	char *out;

	va_start(ap, fmt);
	out = vsql(c, fmt, ap);
	va_end(ap);
	return out;
}

uint64_t pgc_sql_u64(struct pgc *c, const char *fmt, ...)
{
	unsigned long long v;
	va_list ap;
	char *out, *end;

	va_start(ap, fmt);
	out = vsql(c, fmt, ap);
	va_end(ap);
	errno = 0;
	v = strtoull(out, &end, 10);
	if (errno || end == out || *end)
		fail_msg("expected a number from SQL, got \"%s\"", out);
	free(out);
	return v;
}

double pgc_sql_double(struct pgc *c, const char *fmt, ...)
{
	va_list ap;
	char *out, *end;
	double v;

	va_start(ap, fmt);
	out = vsql(c, fmt, ap);
	va_end(ap);
	v = strtod(out, &end);
	if (end == out || *end)
		fail_msg("expected a number from SQL, got \"%s\"", out);
	free(out);
	return v;
}

const char *pgc_write_file(struct pgc *c, const char *name, const char *text)
{
	const char *path = itest_tmp("pg/%s", name);
	FILE *f = fopen(path, "we");

	(void)c;
	if (!f || fputs(text, f) < 0 || fclose(f))
		fail_msg("cannot write %s: %s", path, strerror(errno));
	return path;
}

/* ---- pgbench -------------------------------------------------------------------- */

void pgc_pgbench(struct pgc *c, struct itest_proc *p, const char *tag, ...)
{
	char port[16],
		*argv[64] = {PGC_BINDIR "/pgbench", "-h", c->dir, "-p", port, "-U", PGC_USER};
	int n = 7;
	va_list ap;

	snprintf(port, sizeof(port), "%d", c->port);
	va_start(ap, tag);
	for (char *a; (a = va_arg(ap, char *)) && n < 62;)
		argv[n++] = a;
	va_end(ap);
	argv[n++] = PGC_DB;
	argv[n] = NULL;
	pgc_spawn(c, p, tag, argv);
}

void pgc_pgbench_init(struct pgc *c, int scale)
{
	struct itest_proc p;
	char s[16];

	snprintf(s, sizeof(s), "%d", scale);
	pgc_pgbench(c, &p, "pgbench-init", "-i", "-q", "-s", s, NULL);
	itest_wait(&p, 120);
	if (!WIFEXITED(p.status) || WEXITSTATUS(p.status))
		fail_msg("pgbench -i failed (status 0x%x):\n%s", p.status, p.err);
	free(p.out);
	free(p.err);
}

double pgc_pgbench_tps(const struct itest_proc *p)
{
	const char *s = p->out ? strstr(p->out, "tps = ") : NULL;

	return s ? strtod(s + 6, NULL) : 0;
}

/* ---- a psql session fed through a FIFO ------------------------------------------- */

/* Writes all of buf to the FIFO (non-blocking fd: waits for psql to read,
 * fails if psql exits or reads nothing for 60 s). SIGPIPE is blocked around
 * the write so that a dead psql fails the test instead of killing it. */
static void fifo_write(struct pgc_client *cl, const char *buf, size_t len)
{
	double deadline = itest_now() + 60;
	sigset_t pipe, old;

	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe, &old);
	while (len) {
		ssize_t n = write(cl->fd, buf, len);

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			deadline = itest_now() + 60;
			continue;
		}
		if (n < 0 && errno == EAGAIN && itest_now() < deadline && !itest_poll(&cl->proc)) {
			struct pollfd pfd = {.fd = cl->fd, .events = POLLOUT};

			poll(&pfd, 1, 100);
			continue;
		}
		if (n < 0 && errno == EPIPE) {
			struct timespec zero = {0, 0};

			sigtimedwait(&pipe, NULL, &zero);
		}
		sigprocmask(SIG_SETMASK, &old, NULL);
		fail_msg("cannot send SQL to psql (pid %d): %s; its stderr:\n%s", cl->proc.pid,
			 n < 0 ? strerror(errno) : "no progress", itest_slurp(cl->proc.err_path));
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

void pgc_client_send(struct pgc_client *cl, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		fail_msg("out of memory");
	fifo_write(cl, s, (size_t)n);
	free(s);
}

double pgc_client_sync(struct pgc_client *cl, double timeout_s)
{
	double t0 = itest_now(), deadline = t0 + timeout_s;
	char marker[64];

	snprintf(marker, sizeof(marker), "pgc-sync-%u-end", ++cl->syncs);
	pgc_client_send(cl, "\\echo %s\n", marker);
	for (;;) {
		char *out = itest_slurp(cl->proc.out_path);
		bool found = out && strstr(out, marker);

		free(out);
		if (found)
			return itest_now() - t0;
		if (itest_poll(&cl->proc))
			fail_msg("psql (pid %d) exited before %s; its stderr:\n%s", cl->proc.pid,
				 marker, cl->proc.err);
		if (itest_now() > deadline)
			fail_msg("psql (pid %d) did not reach %s within %.0f s; its stderr:\n%s",
				 cl->proc.pid, marker, timeout_s, itest_slurp(cl->proc.err_path));
		itest_sleep(0.002);
	}
}

void pgc_client_open(struct pgc *c, struct pgc_client *cl, const char *tag)
{
	char port[16];
	char *argv[] = {
		PGC_BINDIR "/psql", "-X", "-q",	  "-A", "-t",	  "-h", c->dir, "-p", port, "-U",
		PGC_USER,	    "-d", PGC_DB, "-f", cl->fifo, NULL};
	double deadline;
	char *out, *s;

	memset(cl, 0, sizeof(*cl));
	cl->c = c;
	cl->fd = -1;
	snprintf(port, sizeof(port), "%d", c->port);
	snprintf(cl->fifo, sizeof(cl->fifo), "%s", itest_tmp("pg/%s.fifo", tag));
	if (mkfifo(cl->fifo, 0600) || chown(cl->fifo, c->uid, c->gid))
		fail_msg("cannot make the FIFO %s: %s", cl->fifo, strerror(errno));
	pgc_spawn(c, &cl->proc, tag, argv);
	/* Opening for writing without a reader fails (ENXIO) with O_NONBLOCK:
	 * retry until psql has opened its end. Close-on-exec: nothing spawned
	 * later may hold the FIFO open (psql would never see its EOF). */
	deadline = itest_now() + 30;
	while ((cl->fd = open(cl->fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		if (errno != ENXIO)
			fail_msg("cannot open the FIFO %s: %s", cl->fifo, strerror(errno));
		if (itest_poll(&cl->proc))
			fail_msg("psql exited (status 0x%x); stderr:\n%s", cl->proc.status,
				 cl->proc.err);
		if (itest_now() > deadline)
			fail_msg("psql did not open %s within 30 s", cl->fifo);
		itest_sleep(0.002);
	}
	pgc_client_send(cl, "SELECT 'pgc-backend=' || pg_backend_pid();\n");
	pgc_client_sync(cl, 30);
	out = itest_slurp(cl->proc.out_path);
	s = out ? strstr(out, "pgc-backend=") : NULL;
	if (!s || (cl->backend = (pid_t)atoi(s + 12)) <= 0)
		fail_msg("psql did not print its backend's PID:\n%s", out ? out : "");
	free(out);
}

void pgc_client_close(struct pgc_client *cl)
{
	if (cl->fd >= 0) {
		close(cl->fd);
		cl->fd = -1;
	}
	itest_wait(&cl->proc, 30);
}

/* ---- fsp-bpf and pgbench ---------------------------------------------------------- */

/* fsp-bpf ARGS... (NULL-terminated) in the background, until its
 * "profiling" line. */
void pgc_fsp_start(struct itest_proc *p, ...)
{
	char *argv[64] = {(char *)itest_fsp_bpf()};
	int n = 1;
	va_list ap;

	va_start(ap, p);
	for (char *a; (a = va_arg(ap, char *)) && n < 63;)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	itest_spawn(p, "fsp", argv);
	if (!itest_wait_text(p->err_path, "fsp-bpf: profiling", 30)) {
		char *err = itest_slurp(p->err_path);

		fail_msg("fsp-bpf did not start profiling within 30 s; stderr:\n%s",
			 err ? err : "");
	}
}

/* SIGINT ends the session; the profile is written and the exit status is 0. */
void pgc_fsp_stop(struct itest_proc *p)
{
	itest_signal(p, SIGINT);
	itest_wait(p, 60);
	itest_assert_exit(p, 0);
}

/* The client backends of a running pgbench (-c clients). */
size_t pgc_pgbench_backends(struct pgc *c, pid_t *pids, size_t max)
{
	char *out = pgc_sql(c, "SELECT pid FROM pg_stat_activity WHERE application_name = "
			       "'pgbench' AND backend_type = 'client backend' ORDER BY pid");
	size_t n = 0;

	for (char *s = out, *end; *s && n < max; s = end) {
		long v = strtol(s, &end, 10);

		if (end == s)
			break;
		pids[n++] = (pid_t)v;
		while (*end == '\n')
			end++;
	}
	free(out);
	return n;
}
