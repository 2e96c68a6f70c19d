/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * pg_cluster - a throwaway PostgreSQL 15 cluster for one integration test.
 *
 * pgc_start() runs initdb as the unprivileged user "postgres" (the Debian
 * package creates it) into the test's scratch directory and starts the
 * postmaster directly (no pg_ctl, no daemon): it listens on 127.0.0.1 at a
 * free port and on a unix socket in the scratch directory, preloads
 * pg_stat_statements (the ground truth of test_postgres.c) and has the
 * extension created in database "postgres". Clients (psql, pgbench) run as
 * "postgres" too, over the unix socket.
 *
 * Every process pgc_* starts is in its own process group; the postmaster's
 * group holds all its children (backends, checkpointer, ...). pgc_cleanup()
 * stops the cluster the way `pg_ctl stop -m immediate` does (SIGQUIT to the
 * postmaster) and kills every group left over: a test's teardown must call
 * it before itest_teardown (PGC_TEST(fn) does), and it also runs at exit.
 *
 * Missing PostgreSQL (no user "postgres", no /usr/lib/postgresql/15 binaries,
 * no pg_stat_statements) makes pgc_start() skip the test with a notice on
 * stderr that says what is missing (scripts/install-deps.sh installs it).
 */
#ifndef PG_CLUSTER_H
#define PG_CLUSTER_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "itest.h"

#define PGC_BINDIR "/usr/lib/postgresql/15/bin"
#define PGC_LIBDIR "/usr/lib/postgresql/15/lib"
#define PGC_USER "postgres"
#define PGC_DB "postgres"

/* A test whose teardown also stops its cluster (before itest_teardown). */
#define PGC_TEST(fn) cmocka_unit_test_setup_teardown(fn, itest_setup, pgc_teardown)

struct pgc {
	char dir[PATH_MAX]; /* owned by postgres, 0700: data/, the socket, scripts */
	char data[PATH_MAX + 16];
	int port;
	uid_t uid;
	gid_t gid;
	struct itest_proc pm; /* the postmaster */
	bool running;
};

/* What is missing to run a cluster here, or NULL when nothing is. */
const char *pgc_missing(void);

/* Creates, configures and starts a cluster; fails the test on error, skips
 * it (loudly) when PostgreSQL is not installed. */
void pgc_start(struct pgc *c);
/* Immediate shutdown (SIGQUIT: no checkpoint), waits for the postmaster. */
void pgc_stop(struct pgc *c);
/* Stops every cluster and kills every process pgc_* started and that is
 * still there; idempotent. */
void pgc_cleanup(void);
/* pgc_cleanup(), then itest_teardown(). */
int pgc_teardown(void **state);

/* PID of the postmaster (the parent of every backend). */
pid_t pgc_postmaster(const struct pgc *c);

/*
 * Starts argv[0] (a path) as user postgres, in the cluster's directory, in
 * its own process group, stdout and stderr captured in the scratch directory
 * (files named after tag), stdin from /dev/null. p works with itest_wait,
 * itest_poll, itest_signal and itest_kill; pgc_cleanup kills it if left.
 */
void pgc_spawn(struct pgc *c, struct itest_proc *p, const char *tag, char *const argv[]);

/*
 * Runs one SQL string with psql (-X -A -t, ON_ERROR_STOP) and returns its
 * standard output without the final newline (caller frees). Fails the test
 * if psql fails, with its error output.
 */
char *pgc_sql(struct pgc *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same for a query returning one number. */
uint64_t pgc_sql_u64(struct pgc *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
double pgc_sql_double(struct pgc *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes text to NAME in the cluster's directory (readable by postgres);
 * returns its path (itest_tmp's ring of buffers). */
const char *pgc_write_file(struct pgc *c, const char *name, const char *text);

/* pgbench -i -q -s scale (tables pgbench_accounts: 100,000 x scale rows). */
void pgc_pgbench_init(struct pgc *c, int scale);
/* Starts pgbench with the connection options and ARGS (NULL-terminated);
 * itest_wait it. */
void pgc_pgbench(struct pgc *c, struct itest_proc *p, const char *tag, ...)
	__attribute__((sentinel));
/* pgbench's "tps = X (without initial connection time)", 0 if absent. */
double pgc_pgbench_tps(const struct itest_proc *p);

/*
 * A psql session held open: psql -f FIFO reads the SQL the test writes to
 * the FIFO, one statement after another, on one connection (one backend);
 * errors are printed and psql goes on. Its output is in proc.out_path.
 */
struct pgc_client {
	struct pgc *c;
	struct itest_proc proc;
	char fifo[PATH_MAX];
	int fd; /* the FIFO's write end */
	pid_t backend; /* pg_backend_pid() of its connection */
	unsigned int syncs;
};

/* Starts the client and reads its backend's PID. */
void pgc_client_open(struct pgc *c, struct pgc_client *cl, const char *tag);
/* Writes text to the session (psql runs it as it reads it). */
void pgc_client_send(struct pgc_client *cl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Waits until psql has run everything sent so far (an \echo marker comes
 * back); fails the test after timeout_s. Returns the seconds it waited. */
double pgc_client_sync(struct pgc_client *cl, double timeout_s);
/* Closes the FIFO: psql reads EOF, disconnects and exits. */
void pgc_client_close(struct pgc_client *cl);

/* Statements of known character (%s: a column alias naming the statement). */
/* An 8-way join of a one-row table: ~11 ms of planning, ~0.2 ms to run. */
#define PLAN_HEAVY                                                                                 \
	"SELECT count(*) AS %s FROM pgbench_branches b1"                                           \
	" JOIN pgbench_branches b2 USING (bid) JOIN pgbench_branches b3 USING (bid)"               \
	" JOIN pgbench_branches b4 USING (bid) JOIN pgbench_branches b5 USING (bid)"               \
	" JOIN pgbench_branches b6 USING (bid) JOIN pgbench_branches b7 USING (bid)"               \
	" JOIN pgbench_branches b8 USING (bid);"
/* A scan of 100,000 rows: ~15 ms to run, ~0.1 ms of planning. */
#define EXEC_HEAVY "SELECT sum(abalance) AS %s FROM pgbench_accounts;"

/* fsp-bpf ARGS... (NULL-terminated) in the background, until its
 * "profiling" line (fails the test after 30 s, with its stderr). */
void pgc_fsp_start(struct itest_proc *p, ...) __attribute__((sentinel));
/* SIGINT ends the session; the profile is written and the exit status is 0. */
void pgc_fsp_stop(struct itest_proc *p);
/* The client backends of a running pgbench (pg_stat_activity), in pids. */
size_t pgc_pgbench_backends(struct pgc *c, pid_t *pids, size_t max);

#endif /* PG_CLUSTER_H */
