// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * PostgreSQL 15 through the shipped probe map (maps/postgresql.map) against
 * pg_stat_statements, on a real cluster (pg_cluster.c) with pgbench and psql
 * as clients. Profiles are read back through the analysis library
 * (profile__load, attrib__compute), as test_events.c does.
 *
 *   pg_plan_execute     -a --feature query,plan,execute --off-cpu: pgbench
 *                       -M simple -c 2 -j 2 -T 8 runs a planning-heavy and an
 *                       execution-heavy SELECT (constant texts: every run is
 *                       parsed and planned, and the instance is the same
 *                       text each time). Per statement: exact enters and
 *                       leaves of query, plan and execute against pgss's
 *                       calls and plans; the event view's plan and execute
 *                       durations against total_plan_time and
 *                       total_exec_time; query's span holds plan's and
 *                       execute's; the sampled on-CPU split plan / (plan +
 *                       execute) against pgss's wall-time split.
 *   pg_label_sample     pg_plan_execute with the map's rewrite, plan and
 *                       execute given "label sample" (their instance,
 *                       debug_query_string, read at each sample): the same
 *                       counts, durations and shares per statement, one
 *                       instance each, no sample_label_errors.
 *   pg_pgbench_extended -a, the map's default features: pgbench's TPC-B
 *                       script with -M extended (Parse/Bind/Execute per
 *                       statement, $n parameters, stable texts). In the two
 *                       client backends (their PIDs from pg_stat_activity):
 *                       plan enters = pgss plans; execute enters = pgss calls
 *                       of all seven statements plus those of the four
 *                       INSERT/UPDATEs (see PortalRunMulti below); parse
 *                       enters = calls; no query feature (no query__start in
 *                       the extended protocol); the statements' texts are
 *                       the instances of parse, rewrite, plan and execute,
 *                       with their exact counts; durations from below; no
 *                       unresolved label.
 *   pg_attach_backend   -p on one idle backend held open by a psql client
 *                       fed through a FIFO: 200 runs of a planning-heavy
 *                       query, exact query/plan/execute counts, only that
 *                       PID in the profile, planning time against pgss.
 *   pg_error_query      -p: 50 queries that fail with division by zero in the
 *                       executor, 50 good ones, then 100 \gdesc of a query
 *                       with a 20,000-element IN list (parse analysis only,
 *                       outside any query mark). Good counts exact; the
 *                       failing queries' query and execute marks are never
 *                       left (no query__done, no query__execute__done) and
 *                       are dropped as stale: exactly 2 per failure; no
 *                       sample after the failures is charged to them.
 *
 * Where the probes sit (PostgreSQL 15, checked against the Debian 15.18
 * binary: readelf -n for the sites, nm -D for the functions around them,
 * bpftrace for what fires):
 *
 *   query__start/done      exec_simple_query only: the simple protocol. The
 *                          extended protocol (exec_parse/bind/execute_message)
 *                          fires neither. A query that fails never reaches
 *                          query__done: ereport(ERROR) siglongjmps (glibc
 *                          __longjmp_chk) through the PG_TRY blocks of
 *                          pg_stat_statements' hooks and PortalRun to
 *                          PostgresMain's sigsetjmp (3 longjmps for an
 *                          executor error, seen with bpftrace).
 *   query__plan__start/done pg_plan_query, around planner(): planner() calls
 *                          planner_hook = pgss_planner, which reads the clock
 *                          (INSTR_TIME_SET_CURRENT, CLOCK_MONOTONIC) right
 *                          before and after standard_planner and adds that to
 *                          total_plan_time, then calls pgss_store (a shared
 *                          LWLock, a hash lookup, a spinlock). Utility
 *                          statements return before the probe. So the probes'
 *                          span holds pgss's planning interval, and the
 *                          difference per plan is the rest of the enter
 *                          probe's trap after its clock read, the leave
 *                          probe's trap before its clock read, and the hook's
 *                          bookkeeping outside its clock reads.
 *   query__execute__start/done PortalRun (every statement, BEGIN and END
 *                          included), and again in PortalRunMulti around each
 *                          plannable statement (ProcessQuery: ExecutorStart,
 *                          Run, Finish, End); the binary has these two sites
 *                          only (none in PortalRunFetch). pg_stat_statements
 *                          times ExecutorRun and ExecutorFinish
 *                          (queryDesc->totaltime, started and stopped inside
 *                          standard_ExecutorRun/Finish; stored by
 *                          pgss_ExecutorEnd) and, for utility statements,
 *                          standard_ProcessUtility. Consequences:
 *                          - a SELECT (PORTAL_ONE_SELECT: ExecutorStart in
 *                            PortalStart, ExecutorFinish/End in PortalDrop)
 *                            has one execute span, PortalRun, which holds
 *                            ExecutorRun; pgss also counts its
 *                            ExecutorFinish, outside PortalRun (nothing to do
 *                            for a plain SELECT: well under F_MAX);
 *                          - an INSERT/UPDATE/DELETE (PORTAL_MULTI_QUERY)
 *                            enters execute twice, nested, with the same
 *                            instance (debug_query_string), and both spans
 *                            include ExecutorStart and ExecutorEnd, which
 *                            pgss does not time: its event-view time is not
 *                            comparable with total_exec_time, only bounded
 *                            from below by it;
 *                          - BEGIN and END go through PortalRun as well.
 *
 * Tolerances.
 *
 * Counts are exact: the client backends are forked after fsp-bpf has armed
 * its per-file links (-a) or are idle when it attaches (-p), pgbench -T lets
 * each client finish its transaction (pgss's calls of BEGIN and END are
 * equal), and pgss counts a plan in the planner hook (inside the plan span)
 * and a call at ExecutorEnd or after ProcessUtility.
 *
 * Durations (pg_plan_execute, pg_attach_backend). Both clocks are
 * CLOCK_MONOTONIC (bpf_ktime_get_ns; INSTR_TIME in PostgreSQL 15). For n
 * spans of a statement: 0 - n R <= fsp - pgss <= n O_MAX for planning, and
 * -n F_MAX <= fsp - pgss <= n O_MAX for the execution of a SELECT, where
 *   R = 1 us: the two timekeeping accessors (mono-fast in BPF, the vDSO) may
 *     disagree by a fraction of that;
 *   F_MAX = 10 us: a plain SELECT's ExecutorFinish, timed by pgss outside
 *     PortalRun (with two uprobes around it, standard_ExecutorFinish measured
 *     4 to 16 us, most of it the uprobes themselves);
 *   O_MAX = 100 us: the boundary cost described above. A uprobe hit costs
 *     0.6 us in a hot loop (bench/probe_cost), but ~10 us right after a
 *     phase of milliseconds that evicted the caches: bpftrace on this
 *     workload measured 11.5 us from query__plan__start to planner()'s entry
 *     and 10 to 25 us of span beyond pgss's per call (plan of an 8-way join:
 *     25 us; plan of a one-table SELECT: 13 us; its execution: 11 us), and
 *     fsp-bpf 1.3 to 5.6 us per call (pg_plan_execute, pg_attach_backend).
 *     O_MAX is 4x the largest: 0.9% of an 8-way join's ~11 ms of planning.
 * Probes that fire inside a span (an LWLock wait, with the default features)
 * lengthen both sides equally.
 *
 * The sampled split (pg_plan_execute). pgss gives wall time: p = W_plan /
 * (W_plan + W_exec) over both statements; fsp-bpf's samples measure on-CPU
 * time: k plan samples of n plan + execute samples. Besides the binomial 4
 * sigma + 1/n (itest.c):
 *   a) CPU vs wall: if O of the W = W_plan + W_exec ns is spent off CPU
 *      (preempted, blocked), O_p of it in planning, the on-CPU share is
 *      (W_plan - O_p) / (W - O), which differs from p by (p O - O_p) /
 *      (W - O): at most O / (W - O), and about 0 when the time off CPU
 *      falls on both phases in proportion (preemption by other load). O and
 *      O_p are measured by --off-cpu inside the features (test_events checks
 *      it against the workload's own clocks, to E_OFF = 10 us per span):
 *      delta_a = |p O - O_p| / (W - O).
 *   b) the boundaries: the spans exceed pgss's intervals by at most O_MAX
 *      per span; samples in that margin (and ticks skipped while a probe's
 *      BPF program runs), and off-CPU time measured in it or mismeasured,
 *      shift the share by at most delta_b = spans (O_MAX + E_OFF) / (W - O).
 *   The test requires O < W / 2 (on a machine so loaded that the phases
 *   wait for a CPU longer than they run, every bound here is loose).
 *
 * No samples after errors (pg_error_query). Every sample legitimately
 * charged to a failing query lies in the wall-clock window W_f from sending
 * the failing queries to psql's echo after them: one single-threaded backend
 * takes at most W_f / T samples there (+ 4 sqrt + a few for CPU migrations).
 * The power: a profiler that kept the failing queries' query marks (no
 * longjmp pruning: the next query__start fires at the same stack depth, so
 * the stack pointer alone never finds them dead) would charge them every
 * sample taken outside a live query mark, which is what \gdesc's parse
 * analysis is (extended-protocol Parse: no query__start); the test checks
 * that there are at least 4 times the bound of such samples. Such a profiler
 * would also count 50 stale marks, not 100: only the execute marks, whose
 * PortalRun frame lies below the next query__start's stack pointer.
 */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attrib.h"
#include "itest.h"
#include "pg_cluster.h"
#include "profile_io.h"

#define R_NS 1e3
#define F_MAX_NS 10e3
#define O_MAX_NS 100e3
#define E_OFF_NS 10e3

/* A 6-way join: ~2 ms of planning. */
#define ATTACH_QUERY                                                                               \
	"SELECT count(*) AS %s FROM pgbench_branches b1"                                           \
	" JOIN pgbench_branches b2 USING (bid) JOIN pgbench_branches b3 USING (bid)"               \
	" JOIN pgbench_branches b4 USING (bid) JOIN pgbench_branches b5 USING (bid)"               \
	" JOIN pgbench_branches b6 USING (bid);\n"
/* Division by zero in the executor: (abalance - abalance) is not a constant
 * the planner could fold (1/0 would fail in planning). */
#define FAIL_QUERY                                                                                 \
	"SELECT 1 / (abalance - abalance) AS pgc_fail FROM pgbench_accounts WHERE aid = 1;\n"

/* ---- helpers -------------------------------------------------------------------- */

/* What the profile says of one feature's instances whose name contains
 * needle (all instances when NULL), summed. */
struct phase {
	uint64_t enters, leaves, total_ns, samples, offcpu_ns;
	size_t instances;
	const char *name; /* the last instance matched */
};

static void phase_add(struct phase *ph, const struct attrib *a, const char *feature,
		      const char *needle)
{
	for (size_t i = 0; i < attrib__nr_features(a); i++) {
		const struct attrib_feature *f = attrib__feature(a, i);

		if (strcmp(f->name, feature))
			continue;
		for (size_t k = 0; k < f->nr_instances; k++) {
			const struct attrib_instance *in = &f->instances[k];

			if (needle && !strstr(in->name, needle))
				continue;
			ph->instances++;
			ph->name = in->name;
			ph->samples += in->samples;
			ph->offcpu_ns += in->offcpu_ns;
			if (in->events) {
				ph->enters += in->events->enters;
				ph->leaves += in->events->leaves;
				ph->total_ns += in->events->total_ns;
			}
		}
	}
}

static struct phase phase_of(const struct attrib *a, const char *feature, const char *needle)
{
	struct phase ph = {0};

	phase_add(&ph, a, feature, needle);
	return ph;
}

/* The same over the processes pids[0..n). */
static struct phase phase_pids(const struct profile *p, const pid_t *pids, size_t n,
			       const char *feature, const char *needle)
{
	struct phase ph = {0};

	for (size_t i = 0; i < n; i++) {
		struct attrib_opts o = {.pid = (uint32_t)pids[i]};
		struct attrib *a = attrib__compute(p, &o);

		assert_non_null(a);
		phase_add(&ph, a, feature, needle);
		attrib__free(a);
	}
	return ph;
}

static void print_phase(const char *what, const struct phase *ph)
{
	printf("  %-34s enters %7" PRIu64 "  leaves %7" PRIu64 "  %10.3f ms  %6" PRIu64
	       " samples  %8.3f ms off-CPU  (%zu instance%s)\n",
	       what, ph->enters, ph->leaves, ph->total_ns / 1e6, ph->samples, ph->offcpu_ns / 1e6,
	       ph->instances, ph->instances == 1 ? "" : "s");
}

/* pg_stat_statements, summed over the statements WHERE selects. */
struct pgss {
	uint64_t calls, plans;
	double plan_ns, exec_ns;
};

static struct pgss pgss_sum(struct pgc *c, const char *what, const char *where)
{
	char *out = pgc_sql(c,
			    "SELECT coalesce(sum(calls), 0), coalesce(sum(plans), 0), "
			    "coalesce(sum(total_plan_time), 0), coalesce(sum(total_exec_time), 0) "
			    "FROM pg_stat_statements WHERE %s",
			    where);
	struct pgss s = {0};

	if (sscanf(out, "%" SCNu64 "|%" SCNu64 "|%lf|%lf", &s.calls, &s.plans, &s.plan_ns,
		   &s.exec_ns) != 4)
		fail_msg("pg_stat_statements: unexpected \"%s\"", out);
	free(out);
	s.plan_ns *= 1e6; /* ms */
	s.exec_ns *= 1e6;
	printf("  pgss %-29s calls %7" PRIu64 "  plans %7" PRIu64
	       "  plan %10.3f ms  exec %10.3f ms\n",
	       what, s.calls, s.plans, s.plan_ns / 1e6, s.exec_ns / 1e6);
	return s;
}

/* lo_per_call <= (fsp - pgss) / n <= hi_per_call, printed either way. */
static bool duration_ok(const char *what, double fsp, double pgss, uint64_t n, double lo_per_call,
			double hi_per_call)
{
	double lo = pgss - (double)n * lo_per_call, hi = pgss + (double)n * hi_per_call;
	bool ok = n && fsp >= lo && fsp <= hi;

	printf("  %-34s fsp-bpf %10.3f ms  pgss %10.3f ms  diff %+8.3f ms (%+.1f us/call)  "
	       "allowed [%+.3f, %+.3f] ms  %s\n",
	       what, fsp / 1e6, pgss / 1e6, (fsp - pgss) / 1e6,
	       n ? (fsp - pgss) / (double)n / 1e3 : 0, (lo - pgss) / 1e6, (hi - pgss) / 1e6,
	       ok ? "ok" : "FAIL");
	return ok;
}

/* The usual look of an unresolved label (itest.c's rule). */
static void assert_resolved(const char *what, const char *s)
{
	if (!s || !*s || strstr(s, "<label") || strstr(s, "0x"))
		fail_msg("unresolved %s label \"%s\"", what, s ? s : "(null)");
}

/* ---- pg_plan_execute -------------------------------------------------------------- */

/* The shipped map with "label sample" in each feature whose instance is
 * {global:debug_query_string} (rewrite, plan, execute), in the scratch
 * directory: the same features, their instance read at each sample. */
static const char *sampled_map(void)
{
	const char *path = itest_tmp("postgresql.map");
	char shipped[4096], *text, *line, *save = NULL;
	FILE *f;

	snprintf(shipped, sizeof(shipped), "%s", itest_fsp_bpf());
	snprintf(strrchr(shipped, '/') + 1, sizeof(shipped) - (strrchr(shipped, '/') + 1 - shipped),
		 "maps/postgresql.map");
	text = itest_slurp(shipped);
	if (!text)
		fail_msg("cannot read %s", shipped);
	f = fopen(path, "w");
	assert_non_null(f);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		fprintf(f, "%s\n", line);
		if (strstr(line, "instance {global:debug_query_string}"))
			fputs("\tlabel sample\n", f);
	}
	assert_int_equal(fclose(f), 0);
	free(text);
	return path;
}

static void plan_execute(const char *map)
{
	const char *json = itest_tmp("prof.json"), *script;
	/* Column aliases name the statements: pgc_plan_heavy_PID_ and
	 * pgc_exec_heavy_PID_, so that a system-wide session tells them from
	 * another test's cluster on the same machine. */
	char ids[2][64], where[2][128], text[1024];
	struct itest_proc fsp, bench;
	struct pgc c;
	struct profile *p;
	struct attrib *a;
	uint64_t k = 0, n = 0, spans = 0;
	double w_plan = 0, w_exec = 0, off_plan = 0, off = 0, W, pt, delta_a, delta_b;
	bool ok = true;

	snprintf(ids[0], sizeof(ids[0]), "pgc_plan_heavy_%d_", (int)getpid());
	snprintf(ids[1], sizeof(ids[1]), "pgc_exec_heavy_%d_", (int)getpid());
	for (size_t s = 0; s < 2; s++)
		snprintf(where[s], sizeof(where[s]), "strpos(query, '%s') > 0", ids[s]);
	snprintf(text, sizeof(text), PLAN_HEAVY "\n" EXEC_HEAVY "\n", ids[0], ids[1]);
	pgc_start(&c);
	pgc_pgbench_init(&c, 1);
	script = pgc_write_file(&c, "plan_exec.sql", text);
	free(pgc_sql(&c, "SELECT pg_stat_statements_reset()"));
	pgc_fsp_start(&fsp, "-a", "--map", map, "--feature", "query,plan,execute", "--off-cpu",
		      "-F", ITEST_HZ, "-o", json, NULL);
	pgc_pgbench(&c, &bench, "pgbench", "-n", "-M", "simple", "-c", "2", "-j", "2", "-T", "8",
		    "-f", script, NULL);
	itest_wait(&bench, 60);
	itest_assert_exit(&bench, 0);
	printf("  pgbench: %.1f tps\n", pgc_pgbench_tps(&bench));
	pgc_fsp_stop(&fsp);

	p = itest_profile_load(json);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	for (size_t s = 0; s < 2; s++) {
		const char *id = ids[s];
		struct pgss g = pgss_sum(&c, id, where[s]);
		struct phase q = phase_of(a, "postgresql:query", id);
		struct phase pl = phase_of(a, "postgresql:plan", id);
		struct phase ex = phase_of(a, "postgresql:execute", id);
		char what[64];

		print_phase("postgresql:query", &q);
		print_phase("postgresql:plan", &pl);
		print_phase("postgresql:execute", &ex);
		/* One instance each: the statement's text, the same every run. */
		assert_int_equal(q.instances, 1);
		assert_int_equal(pl.instances, 1);
		assert_int_equal(ex.instances, 1);
		assert_true(g.calls > 20);
		assert_int_equal(g.plans, g.calls);
		assert_int_equal(q.enters, g.calls);
		assert_int_equal(q.leaves, g.calls);
		assert_int_equal(pl.enters, g.plans);
		assert_int_equal(pl.leaves, g.plans);
		assert_int_equal(ex.enters, g.calls);
		assert_int_equal(ex.leaves, g.calls);
		/* Planning and execution are disjoint spans inside the query's. */
		assert_true(q.total_ns >= pl.total_ns + ex.total_ns);
		snprintf(what, sizeof(what), "plan %s", id);
		ok &= duration_ok(what, (double)pl.total_ns, g.plan_ns, g.plans, R_NS, O_MAX_NS);
		snprintf(what, sizeof(what), "execute %s", id);
		ok &= duration_ok(what, (double)ex.total_ns, g.exec_ns, g.calls, F_MAX_NS,
				  O_MAX_NS);
		k += pl.samples;
		n += pl.samples + ex.samples;
		off_plan += (double)pl.offcpu_ns;
		off += (double)(pl.offcpu_ns + ex.offcpu_ns);
		w_plan += g.plan_ns;
		w_exec += g.exec_ns;
		spans += g.plans + g.calls;
	}
	W = w_plan + w_exec;
	pt = w_plan / W;
	/* Enough samples for the comparison to mean something, and most of the
	 * time on CPU (a machine so busy that the phases wait for a CPU more
	 * than they run makes every bound here loose). */
	assert_true(n > 2000);
	assert_true(off < W / 2);
	delta_a = fabs(pt * off - off_plan) / (W - off);
	delta_b = (double)spans * (O_MAX_NS + E_OFF_NS) / (W - off);
	printf("  off-CPU in plan and execute %.1f ms of %.1f ms (in plan %.1f ms): shift %.2f%%; "
	       "boundaries %" PRIu64 " spans x %.0f us: %.2f%%\n",
	       off / 1e6, W / 1e6, off_plan / 1e6, 100 * delta_a, spans,
	       (O_MAX_NS + E_OFF_NS) / 1e3, 100 * delta_b);
	ok &= itest_share_ok("plan / (plan + execute)", k, n, pt, delta_a + delta_b);
	ITEST_ASSERT_OK(ok);
	/* Read at each sample, debug_query_string is the statement's text
	 * throughout (the same single instance above), never unreadable. */
	printf("  sample_label_errors %" PRIu64 "\n", profile__diag(p, DIAG_SAMPLE_LABEL_ERRORS));
	assert_int_equal(profile__diag(p, DIAG_SAMPLE_LABEL_ERRORS), 0);
	attrib__free(a);
	profile__free(p);
	pgc_stop(&c);
}

static void test_pg_plan_execute(void **state)
{
	(void)state;
	plan_execute("postgresql");
}

/* The same with plan and execute named by debug_query_string read at each
 * sample ("label sample"): what the postgresql-sampled map builds on. */
static void test_pg_label_sample(void **state)
{
	(void)state;
	plan_execute(sampled_map());
}

/* ---- pg_pgbench_extended ---------------------------------------------------------- */

#define TPCB_ALL                                                                                   \
	"(query IN ('BEGIN', 'END') OR query LIKE 'UPDATE pgbench_%' OR "                          \
	"query LIKE 'SELECT abalance FROM pgbench_accounts%' OR "                                  \
	"query LIKE 'INSERT INTO pgbench_history%')"
#define TPCB_DML "(query LIKE 'UPDATE pgbench_%' OR query LIKE 'INSERT INTO pgbench_history%')"
#define TPCB_SELECT "query LIKE 'SELECT abalance FROM pgbench_accounts%'"
#define TPCB_UPDATE_ACCOUNTS "query LIKE 'UPDATE pgbench_accounts SET abalance%'"
#define UPDATE_ACCOUNTS "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2"

static void test_pg_pgbench_extended(void **state)
{
	const char *json = itest_tmp("prof.json");
	static const char *const texted[] = {"postgresql:parse", "postgresql:rewrite",
					     "postgresql:plan", "postgresql:execute"};
	struct phase q, pa, pl, ex;
	struct pgss all, dml, sel, upd;
	struct itest_proc fsp, bench;
	struct profile *p;
	struct pgc c;
	pid_t pids[8];
	size_t np;
	bool ok = true;

	(void)state;
	pgc_start(&c);
	pgc_pgbench_init(&c, 1);
	free(pgc_sql(&c, "SELECT pg_stat_statements_reset()"));
	pgc_fsp_start(&fsp, "-a", "--map", "postgresql", "-F", ITEST_HZ, "-o", json, NULL);
	pgc_pgbench(&c, &bench, "pgbench", "-n", "-M", "extended", "-c", "2", "-j", "2", "-T", "6",
		    NULL);
	/* its two client backends, once both are connected (it runs 6 s) */
	np = 0;
	for (int i = 0; i < 50 && np < 2; i++) {
		itest_sleep(0.1);
		np = pgc_pgbench_backends(&c, pids, 8);
	}
	itest_wait(&bench, 60);
	itest_assert_exit(&bench, 0);
	printf("  pgbench: %.1f tps; client backends:", pgc_pgbench_tps(&bench));
	for (size_t i = 0; i < np; i++)
		printf(" %d", pids[i]);
	printf("\n");
	assert_int_equal(np, 2);
	pgc_fsp_stop(&fsp);

	all = pgss_sum(&c, "TPC-B, 7 statements", TPCB_ALL);
	dml = pgss_sum(&c, "TPC-B, INSERT and UPDATEs", TPCB_DML);
	sel = pgss_sum(&c, "TPC-B, SELECT", TPCB_SELECT);
	upd = pgss_sum(&c, "UPDATE pgbench_accounts", TPCB_UPDATE_ACCOUNTS);
	assert_true(upd.calls > 100);
	/* Every transaction ran to its END: seven statements each. */
	assert_int_equal(all.calls, 7 * upd.calls);
	assert_int_equal(all.plans, 5 * upd.calls);

	p = itest_profile_load(json);
	q = phase_pids(p, pids, np, "postgresql:query", NULL);
	pa = phase_pids(p, pids, np, "postgresql:parse", NULL);
	pl = phase_pids(p, pids, np, "postgresql:plan", NULL);
	ex = phase_pids(p, pids, np, "postgresql:execute", NULL);
	print_phase("postgresql:query", &q);
	print_phase("postgresql:parse", &pa);
	print_phase("postgresql:plan", &pl);
	print_phase("postgresql:execute", &ex);
	/* No query__start/done in the extended protocol. */
	assert_int_equal(q.enters, 0);
	/* One Parse message per statement run. */
	assert_int_equal(pa.enters, all.calls);
	assert_int_equal(pa.leaves, all.calls);
	/* pg_plan_query once per plannable statement run (Bind of an unnamed
	 * statement), pgss counts each in its planner hook. */
	assert_int_equal(pl.enters, all.plans);
	assert_int_equal(pl.leaves, all.plans);
	/* PortalRun for all seven, again PortalRunMulti for the four DML. */
	assert_int_equal(ex.enters, all.calls + dml.calls);
	assert_int_equal(ex.leaves, ex.enters);
	/* The spans hold pgss's intervals (see the top comment). */
	ok &= duration_ok("plan, all statements", (double)pl.total_ns, all.plan_ns, all.plans, R_NS,
			  INFINITY);
	ok &= duration_ok("execute, all statements", (double)ex.total_ns, all.exec_ns, all.calls,
			  (double)sel.calls * F_MAX_NS / (double)all.calls, INFINITY);
	/* The statements' texts name the instances (the Parse message's text,
	 * debug_query_string in Bind and Execute). */
	for (size_t i = 0; i < sizeof(texted) / sizeof(texted[0]); i++) {
		struct phase u = phase_pids(p, pids, np, texted[i], UPDATE_ACCOUNTS);
		/* parse and rewrite: once per run; plan: pgss's plans; execute:
		 * PortalRun and PortalRunMulti, nested. */
		uint64_t want = upd.calls;

		if (!strcmp(texted[i], "postgresql:plan"))
			want = upd.plans;
		else if (!strcmp(texted[i], "postgresql:execute"))
			want = 2 * upd.calls;
		print_phase(texted[i], &u);
		if (!u.instances)
			fail_msg("no instance of %s names \"%s\"", texted[i], UPDATE_ACCOUNTS);
		printf("    instance \"%s\"\n", u.name);
		assert_int_equal(u.enters, want);
	}
	/* No label of the client backends looks unresolved. */
	for (size_t i = 0; i < np; i++) {
		struct attrib_opts o = {.pid = (uint32_t)pids[i]};
		struct attrib *a = attrib__compute(p, &o);

		assert_non_null(a);
		for (size_t f = 0; f < attrib__nr_features(a); f++) {
			const struct attrib_feature *af = attrib__feature(a, f);

			assert_resolved("feature", af->name);
			for (size_t k = 0; k < af->nr_instances; k++)
				assert_resolved("instance", af->instances[k].name);
		}
		attrib__free(a);
	}
	assert_int_equal(profile__diag(p, DIAG_UNMATCHED_LEAVES), 0);
	ITEST_ASSERT_OK(ok);
	profile__free(p);
	pgc_stop(&c);
}

/* ---- pg_attach_backend ------------------------------------------------------------ */

static void test_pg_attach_backend(void **state)
{
	const char *json = itest_tmp("prof.json");
	struct phase q, pl, ex;
	struct itest_proc fsp;
	struct pgc_client cl;
	struct profile *p;
	struct attrib *a;
	struct pgss g;
	struct pgc c;
	bool ok;

	(void)state;
	pgc_start(&c);
	pgc_pgbench_init(&c, 1);
	pgc_client_open(&c, &cl, "psql-fifo");
	free(pgc_sql(&c, "SELECT pg_stat_statements_reset()"));
	printf("  idle backend %d (psql pid %d)\n", cl.backend, cl.proc.pid);
	printf("  attached in %.2f s\n", itest_attach_fsp(&fsp, cl.backend, "--map", "postgresql",
							  "-F", ITEST_HZ, "-o", json, NULL));
	for (int i = 0; i < 200; i++)
		pgc_client_send(&cl, ATTACH_QUERY, "pgc_attach");
	printf("  200 queries in %.2f s\n", pgc_client_sync(&cl, 120));
	pgc_fsp_stop(&fsp);

	g = pgss_sum(&c, "pgc_attach", "strpos(query, 'pgc_attach') > 0");
	assert_int_equal(g.calls, 200);
	assert_int_equal(g.plans, 200);
	p = itest_profile_load(json);
	/* Only the backend: not psql, not the postmaster or its other children. */
	assert_int_equal(profile__nr_pids(p), 1);
	assert_int_equal(profile__pid(p, 0), (uint32_t)cl.backend);
	for (size_t i = 0; i < profile__nr_threads(p); i++) {
		struct profile_thread t;

		assert_int_equal(profile__thread(p, i, &t), 0);
		assert_int_equal(t.pid, (uint32_t)cl.backend);
	}
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	q = phase_of(a, "postgresql:query", "pgc_attach");
	pl = phase_of(a, "postgresql:plan", "pgc_attach");
	ex = phase_of(a, "postgresql:execute", "pgc_attach");
	print_phase("postgresql:query", &q);
	print_phase("postgresql:plan", &pl);
	print_phase("postgresql:execute", &ex);
	assert_int_equal(q.instances, 1);
	assert_int_equal(q.enters, 200);
	assert_int_equal(q.leaves, 200);
	assert_int_equal(pl.enters, 200);
	assert_int_equal(pl.leaves, 200);
	assert_int_equal(ex.enters, 200);
	assert_int_equal(ex.leaves, 200);
	ok = duration_ok("plan pgc_attach", (double)pl.total_ns, g.plan_ns, g.plans, R_NS,
			 O_MAX_NS);
	assert_int_equal(profile__diag(p, DIAG_UNMATCHED_LEAVES), 0);
	assert_int_equal(profile__diag(p, DIAG_STALE_MARKS), 0);
	{
		json_object *j = itest_json_load(json);

		itest_assert_labels_resolved(j);
		json_object_put(j);
	}
	ITEST_ASSERT_OK(ok);
	attrib__free(a);
	profile__free(p);
	pgc_client_close(&cl);
	pgc_stop(&c);
}

/* ---- pg_error_query --------------------------------------------------------------- */

static void test_pg_error_query(void **state)
{
	const char *json = itest_tmp("prof.json");
	char *gdesc;
	size_t len = 0;
	struct phase fq, fp, fe, gq, gp, ge, any;
	struct itest_proc fsp;
	struct pgc_client cl;
	struct pgss gf, gg;
	struct profile *p;
	struct attrib *a;
	struct attrib_opts o = {0};
	struct pgc c;
	double t0, w_fail, T, bound;
	uint64_t fail_samples, outside, stale;

	(void)state;
	pgc_start(&c);
	pgc_pgbench_init(&c, 1);
	pgc_client_open(&c, &cl, "psql-fifo");
	free(pgc_sql(&c, "SELECT pg_stat_statements_reset()"));
	itest_attach_fsp(&fsp, cl.backend, "--map", "postgresql", "--feature", "query,plan,execute",
			 "-F", ITEST_HZ, "-o", json, NULL);

	t0 = itest_now();
	for (int i = 0; i < 50; i++)
		pgc_client_send(&cl, FAIL_QUERY);
	pgc_client_sync(&cl, 60);
	w_fail = itest_now() - t0;
	for (int i = 0; i < 50; i++)
		pgc_client_send(&cl, ATTACH_QUERY, "pgc_good");
	pgc_client_sync(&cl, 60);
	/* Parse analysis of a 20,000-element IN list, outside any query mark:
	 * \gdesc sends Parse and Describe (extended protocol) and does not run
	 * the query. */
	gdesc = malloc(200000);
	assert_non_null(gdesc);
	len = (size_t)sprintf(gdesc, "SELECT 1 AS pgc_gdesc WHERE 1 IN (0");
	for (int i = 1; i < 20000; i++)
		len += (size_t)sprintf(gdesc + len, ",%d", i);
	sprintf(gdesc + len, ") \\gdesc\n");
	for (int i = 0; i < 100; i++)
		pgc_client_send(&cl, "%s", gdesc);
	free(gdesc);
	pgc_client_sync(&cl, 120);
	pgc_fsp_stop(&fsp);

	{
		char *err = itest_slurp(cl.proc.err_path);
		int errors = 0;

		for (char *s = err; s && (s = strstr(s, "division by zero")); s++)
			errors++;
		free(err);
		printf("  psql reported %d \"division by zero\" errors in %.3f s\n", errors,
		       w_fail);
		assert_int_equal(errors, 50);
	}
	gf = pgss_sum(&c, "pgc_fail", "strpos(query, 'pgc_fail') > 0");
	gg = pgss_sum(&c, "pgc_good", "strpos(query, 'pgc_good') > 0");
	/* PostgreSQL itself: planned, never completed; the good ones both. */
	assert_int_equal(gf.plans, 50);
	assert_int_equal(gf.calls, 0);
	assert_int_equal(gg.plans, 50);
	assert_int_equal(gg.calls, 50);

	p = itest_profile_load(json);
	a = attrib__compute(p, NULL);
	assert_non_null(a);
	fq = phase_of(a, "postgresql:query", "pgc_fail");
	fp = phase_of(a, "postgresql:plan", "pgc_fail");
	fe = phase_of(a, "postgresql:execute", "pgc_fail");
	gq = phase_of(a, "postgresql:query", "pgc_good");
	gp = phase_of(a, "postgresql:plan", "pgc_good");
	ge = phase_of(a, "postgresql:execute", "pgc_good");
	print_phase("query (failing)", &fq);
	print_phase("plan (failing)", &fp);
	print_phase("execute (failing)", &fe);
	print_phase("query (good)", &gq);
	print_phase("plan (good)", &gp);
	print_phase("execute (good)", &ge);
	/* Failing: entered, planned, executed, never left. */
	assert_int_equal(fq.enters, 50);
	assert_int_equal(fq.leaves, 0);
	assert_int_equal(fp.enters, 50);
	assert_int_equal(fp.leaves, 50);
	assert_int_equal(fe.enters, 50);
	assert_int_equal(fe.leaves, 0);
	/* Good: exact. */
	assert_int_equal(gq.enters, 50);
	assert_int_equal(gq.leaves, 50);
	assert_int_equal(gp.enters, 50);
	assert_int_equal(gp.leaves, 50);
	assert_int_equal(ge.enters, 50);
	assert_int_equal(ge.leaves, 50);
	/* Each failure leaves two frames to unwind: its query and its execute
	 * marks (planning had ended); nothing else was left or unmatched. */
	stale = profile__diag(p, DIAG_STALE_MARKS);
	printf("  stale marks %" PRIu64 " (2 x 50 failures), unmatched leaves %" PRIu64 "\n", stale,
	       profile__diag(p, DIAG_UNMATCHED_LEAVES));
	assert_int_equal(stale, 100);
	assert_int_equal(profile__diag(p, DIAG_UNMATCHED_LEAVES), 0);

	/* Samples: all of the failing instance's in its window W_f. */
	T = (double)profile__meta(p)->period_ns;
	fail_samples = fq.samples + fp.samples + fe.samples;
	bound = w_fail * 1e9 / T;
	bound += 4 * sqrt(bound) + 5;
	any = phase_of(a, "postgresql:query", NULL);
	o.pid = (uint32_t)cl.backend;
	attrib__free(a);
	a = attrib__compute(p, &o);
	assert_non_null(a);
	outside = attrib__total_samples(a) - phase_of(a, "postgresql:query", NULL).samples;
	printf("  samples charged to the failing queries %" PRIu64 " (bound %.0f: %.1f ms window "
	       "at %.0f us); outside any query mark %" PRIu64 " of %" PRIu64 " (query: %" PRIu64
	       ")\n",
	       fail_samples, bound, w_fail * 1e3, T / 1e3, outside, attrib__total_samples(a),
	       any.samples);
	assert_true((double)fail_samples <= bound);
	/* The power: a profiler that kept the failing query marks would have
	 * charged them these samples. */
	if ((double)outside < 4 * bound)
		fail_msg("only %" PRIu64 " samples outside query marks: the test cannot tell a "
			 "profiler that keeps the failing queries' marks",
			 outside);
	attrib__free(a);
	profile__free(p);
	pgc_client_close(&cl);
	pgc_stop(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		PGC_TEST(test_pg_plan_execute),	    PGC_TEST(test_pg_label_sample),
		PGC_TEST(test_pg_pgbench_extended), PGC_TEST(test_pg_attach_backend),
		PGC_TEST(test_pg_error_query),
	};

	return ITEST_MAIN("postgres", tests);
}
