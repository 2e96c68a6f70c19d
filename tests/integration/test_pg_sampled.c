// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * PostgreSQL 15 through maps/postgresql-sampled.map (function features read
 * off native stacks: no probe attached) against pg_stat_statements, on the
 * cluster of pg_cluster.c, as test_postgres.c does with the probes' map.
 *
 *   pg_sampled_split   -a --map postgresql-sampled: pgbench -M simple runs
 *                      a planning-heavy and an execution-heavy SELECT. In the
 *                      pgbench backends, the samples of plan / (plan +
 *                      execute) against pgss's total_plan_time /
 *                      (total_plan_time + total_exec_time) of both
 *                      statements; and per statement (the instance, the
 *                      text of debug_query_string read at each sample), its
 *                      plan and its execute samples' shares of plan +
 *                      execute against its own total_plan_time and
 *                      total_exec_time over W; every phase's functions were
 *                      found on the stacks (parse and commit have samples
 *                      too); no probe hit.
 *   pg_sampled_tpcb   -a --map postgresql-sampled, pgbench's TPC-B script
 *                      with -M extended: every feature of the map has
 *                      samples in the client backends (each function name
 *                      is one the stripped executable's stacks are
 *                      symbolized with), commits synchronous so that
 *                      the backends flush the WAL themselves.
 *   pg_sampled_auto    --map auto -p POSTMASTER prefers postgresql-sampled
 *                      to postgresql; with --events, postgresql.
 *
 * Tolerance of the split. pgss gives wall time W = W_plan + W_exec; the
 * samples measure on-CPU time. Besides the binomial 4 sigma + 1/n
 * (itest.c):
 *   a) time off CPU inside the phases: the statements read cached pages (no
 *      I/O), so it is time waiting for a CPU, at most the backend's run
 *      delay over the run (/proc/PID/schedstat, field 2), O; in the worst
 *      case all of it in one phase: delta_a = O / (W - O). The backend runs
 *      SCHED_FIFO, so that the machine's other work does not preempt it;
 *   b) the boundaries: pgss's clock reads sit inside the hooks around
 *      standard_planner and standard_ExecutorRun/Finish, a few us from the
 *      functions' frames (the hooks' bookkeeping): E = 10 us per span,
 *      delta_b = spans E / (W - O).
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "itest.h"
#include "pg_cluster.h"
#include "profile_io.h"
#include "unwind_check.h"

#define E_NS 10e3

/* ns the process has waited for a CPU (/proc/PID/schedstat's second
 * field); -1 once it has exited. */
static double run_delay_ns(pid_t pid)
{
	char path[64];
	unsigned long long run, wait;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fscanf(f, "%llu %llu", &run, &wait);
	fclose(f);
	return n == 2 ? (double)wait : -1;
}

/* Samples of feature in the processes pids[0..n) whose instance (the
 * statement) contains marker (NULL: any), and how many instances. */
static uint64_t count_samples(const struct profile *p, const pid_t *pids, size_t n,
			      const char *feature, const char *marker, size_t *instances)
{
	uint64_t k = 0;

	*instances = 0;
	for (size_t i = 0; i < n; i++) {
		struct attrib_opts o = {.pid = (uint32_t)pids[i]};
		struct attrib *a = attrib__compute(p, &o);

		assert_non_null(a);
		for (size_t f = 0; f < attrib__nr_features(a); f++) {
			const struct attrib_feature *af = attrib__feature(a, f);

			if (strcmp(af->name, feature))
				continue;
			for (size_t j = 0; j < af->nr_instances; j++)
				if (!marker || (af->instances[j].name &&
						strstr(af->instances[j].name, marker)))
					k += af->instances[j].samples;
			*instances += af->nr_instances;
		}
		attrib__free(a);
	}
	return k;
}

static uint64_t statement_samples(const struct profile *p, const pid_t *pids, size_t n,
				  const char *feature, const char *marker)
{
	size_t inst;

	return count_samples(p, pids, n, feature, marker, &inst);
}

/* Samples of feature in the processes pids[0..n), and its instances. */
static uint64_t samples_of(const struct profile *p, const pid_t *pids, size_t n,
			   const char *feature, size_t *instances)
{
	uint64_t k = count_samples(p, pids, n, feature, NULL, instances);

	printf("  %-32s %8" PRIu64 " samples  %zu instance(s)\n", feature, k, *instances);
	return k;
}

/* Per statement: its plan and execute samples' shares of n (plan + execute
 * of both) against its own pgss times over W, within the split's bound. */
static bool check_statements(struct pgc *c, const struct profile *p, const pid_t *pids, size_t np,
			     uint64_t n, double W, double delta)
{
	static const char *const markers[] = {"pgs_plan_heavy", "pgs_exec_heavy"};
	uint64_t named = 0;
	bool ok = true;

	for (size_t i = 0; i < 2; i++) {
		const char *mk = markers[i];
		uint64_t kp = statement_samples(p, pids, np, "postgresql-sampled:plan", mk),
			 ke = statement_samples(p, pids, np, "postgresql-sampled:execute", mk);
		double wp = 1e6 * pgc_sql_double(c,
						 "SELECT coalesce(sum(total_plan_time), 0) FROM "
						 "pg_stat_statements WHERE strpos(query, '%s') > 0",
						 mk),
		       we = 1e6 * pgc_sql_double(c,
						 "SELECT coalesce(sum(total_exec_time), 0) FROM "
						 "pg_stat_statements WHERE strpos(query, '%s') > 0",
						 mk);
		char what[96];

		printf("  %s: plan %" PRIu64 " samples (pgss %.1f ms), execute %" PRIu64
		       " samples (pgss %.1f ms)\n",
		       mk, kp, wp / 1e6, ke, we / 1e6);
		snprintf(what, sizeof(what), "plan of %s", mk);
		ok &= itest_share_ok(what, kp, n, wp / W, delta);
		snprintf(what, sizeof(what), "execute of %s", mk);
		ok &= itest_share_ok(what, ke, n, we / W, delta);
		named += kp + ke;
	}
	/* the statement is read at every sample of the two phases: none is
	 * "?" or "(not read)" */
	printf("  plan + execute under another instance: %" PRIu64 " of %" PRIu64 "\n", n - named,
	       n);
	ok &= named == n;
	return ok;
}

static void test_pg_sampled_split(void **state)
{
	const char *json = itest_tmp("prof.json"), *script;
	char text[1024], where[256];
	struct itest_proc fsp, bench;
	struct pgc c;
	struct profile *p;
	pid_t pids[8];
	double delay[8], off = 0, w_plan, w_exec, W;
	uint64_t plans, calls, k, n, parse;
	size_t np = 0, inst;
	bool ok;

	(void)state;
	snprintf(text, sizeof(text), PLAN_HEAVY "\n" EXEC_HEAVY "\n", "pgs_plan_heavy",
		 "pgs_exec_heavy");
	snprintf(where, sizeof(where),
		 "strpos(query, 'pgs_plan_heavy') > 0 OR strpos(query, 'pgs_exec_heavy') > 0");
	pgc_start(&c);
	pgc_pgbench_init(&c, 1);
	script = pgc_write_file(&c, "plan_exec.sql", text);
	free(pgc_sql(&c, "SELECT pg_stat_statements_reset()"));
	pgc_fsp_start(&fsp, "-a", "--map", "postgresql-sampled", "-F", ITEST_HZ, "-o", json, NULL);
	pgc_pgbench(&c, &bench, "pgbench", "-n", "-M", "simple", "-c", "1", "-j", "1", "-T", "10",
		    "-f", script, NULL);
	for (int i = 0; i < 50 && np < 1; i++) {
		itest_sleep(0.1);
		np = pgc_pgbench_backends(&c, pids, 8);
	}
	assert_int_equal(np, 1);
	/* Real-time priority for the backend: not preempted by the machine's
	 * other work, so that little of its time is spent waiting for a CPU
	 * (the bound a) below; the kernel's RT throttling leaves 5% to others). */
	{
		struct sched_param sp = {.sched_priority = 1};

		if (sched_setscheduler(pids[0], SCHED_FIFO, &sp))
			printf("  SCHED_FIFO for the backend: %s (the tolerance is looser)\n",
			       strerror(errno));
	}
	for (size_t i = 0; i < np; i++)
		delay[i] = run_delay_ns(pids[i]);
	/* the backends' run delay until they exit (read while they live) */
	while (!itest_poll(&bench)) {
		for (size_t i = 0; i < np; i++) {
			double d = run_delay_ns(pids[i]);

			if (d > delay[i]) {
				off += d - delay[i];
				delay[i] = d;
			}
		}
		itest_sleep(0.2);
	}
	itest_wait(&bench, 60);
	itest_assert_exit(&bench, 0);
	printf("  pgbench: %.1f tps; backend %d; run delay %.1f ms\n", pgc_pgbench_tps(&bench),
	       (int)pids[0], off / 1e6);
	pgc_fsp_stop(&fsp);

	plans = pgc_sql_u64(&c, "SELECT coalesce(sum(plans), 0) FROM pg_stat_statements WHERE %s",
			    where);
	calls = pgc_sql_u64(&c, "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE %s",
			    where);
	w_plan = 1e6 * pgc_sql_double(&c,
				      "SELECT coalesce(sum(total_plan_time), 0) FROM "
				      "pg_stat_statements WHERE %s",
				      where);
	w_exec = 1e6 * pgc_sql_double(&c,
				      "SELECT coalesce(sum(total_exec_time), 0) FROM "
				      "pg_stat_statements WHERE %s",
				      where);
	W = w_plan + w_exec;
	printf("  pgss: %" PRIu64 " plans %.1f ms, %" PRIu64 " calls %.1f ms\n", plans,
	       w_plan / 1e6, calls, w_exec / 1e6);
	assert_true(calls > 20);

	p = itest_profile_charged(json);
	k = samples_of(p, pids, np, "postgresql-sampled:plan", &inst);
	assert_true(inst >= 2); /* the two statements */
	n = k + samples_of(p, pids, np, "postgresql-sampled:execute", &inst);
	assert_true(inst >= 2);
	parse = samples_of(p, pids, np, "postgresql-sampled:parse", &inst);
	/* Enough samples to mean something; a machine so busy that the
	 * backends wait for a CPU half the time makes the bound loose. */
	assert_true(n > 1000);
	assert_true(off < W / 2);
	ok = itest_share_ok("plan / (plan + execute)", k, n, w_plan / W,
			    (off + (double)(plans + calls) * E_NS) / (W - off));
	ok &= check_statements(&c, p, pids, np, n, W,
			       (off + (double)(plans + calls) * E_NS) / (W - off));
	/* parsing is short but not absent: its function was found */
	assert_true(parse > 0);
	ITEST_ASSERT_OK(ok);
	profile__free(p);
	pgc_stop(&c);
}

static void test_pg_sampled_tpcb(void **state)
{
	static const char *const features[] = {"parse",	  "analyze", "rewrite",	 "plan",
					       "execute", "commit",  "wal_flush"};
	const char *json = itest_tmp("prof.json");
	struct itest_proc fsp, bench;
	struct pgc c;
	struct profile *p;
	pid_t pids[8];
	size_t np = 0, inst;

	(void)state;
	pgc_start(&c);
	pgc_pgbench_init(&c, 1);
	/* The cluster commits asynchronously (pg_cluster.c): its commits leave
	 * the WAL flush to the walwriter. Synchronous here, so that every commit
	 * calls XLogFlush in the backend (fsync off: its write, no fsync). */
	free(pgc_sql(&c, "ALTER SYSTEM SET synchronous_commit = on"));
	free(pgc_sql(&c, "SELECT pg_reload_conf()"));
	/* every record the cached CFI rules unwind, libdw unwinds too: the
	 * same frames (unwind_check.h) */
	setenv("FSP_UNWIND_CHECK", "1", 1);
	pgc_fsp_start(&fsp, "-a", "--map", "postgresql-sampled", "-F", ITEST_HZ, "-v", "-o", json,
		      NULL);
	unsetenv("FSP_UNWIND_CHECK");
	pgc_pgbench(&c, &bench, "pgbench", "-n", "-M", "extended", "-c", "2", "-j", "2", "-T", "6",
		    NULL);
	for (int i = 0; i < 50 && np < 2; i++) {
		itest_sleep(0.1);
		np = pgc_pgbench_backends(&c, pids, 8);
	}
	itest_wait(&bench, 60);
	itest_assert_exit(&bench, 0);
	printf("  pgbench: %.1f tps\n", pgc_pgbench_tps(&bench));
	pgc_fsp_stop(&fsp);
	unwind_check_assert(fsp.err_path, 2000);
	assert_int_equal(np, 2);
	p = itest_profile_charged(json);
	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "postgresql-sampled:%s", features[i]);
		if (!samples_of(p, pids, np, name, &inst))
			fail_msg("no sample of %s: its functions were not found on the stacks",
				 name);
	}
	profile__free(p);
	pgc_stop(&c);
}

/* --map auto with and without --events, on the postmaster: which map. */
static void auto_choice(struct pgc *c, bool events, const char *want)
{
	char pid[16], *err;
	struct itest_proc fsp;

	snprintf(pid, sizeof(pid), "%d", (int)pgc_postmaster(c));
	if (events)
		pgc_fsp_start(&fsp, "--map", "auto", "--events", "-p", pid, "-o",
			      itest_tmp("auto.json"), NULL);
	else
		pgc_fsp_start(&fsp, "--map", "auto", "-p", pid, "-o", itest_tmp("auto.json"), NULL);
	pgc_fsp_stop(&fsp);
	err = itest_slurp(fsp.err_path);
	assert_non_null(err);
	if (!strstr(err, want))
		fail_msg("expected \"%s\" in fsp-bpf's output:\n%s", want, err);
	free(err);
}

static void test_pg_sampled_auto(void **state)
{
	struct pgc c;

	(void)state;
	pgc_start(&c);
	auto_choice(&c, false, "--map auto: using postgresql-sampled, not postgresql ");
	auto_choice(&c, true, "--map auto: using postgresql, not postgresql-sampled ");
	pgc_stop(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		PGC_TEST(test_pg_sampled_split),
		PGC_TEST(test_pg_sampled_tpcb),
		PGC_TEST(test_pg_sampled_auto),
	};

	return ITEST_MAIN("pg_sampled", tests);
}
