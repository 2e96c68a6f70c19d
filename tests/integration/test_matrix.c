// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * test_matrix - the consistency matrix: every path from a profiled program to
 * a number gives the same number.
 *
 * A case is one session: a workload (marks in the main thread with nesting
 * and an antimark, a thread pool, payloads, a probe map's provider; probe
 * ABI v2 and v1 builds; the demos; function features with and without
 * marks) x record options (none, --events,
 * --off-cpu, --stacks, their combinations, --interval, --events=FEATURE,...
 * naming the function features: events-ff) x a mode (launch,
 * -p PID, -a --comm NAME) x the live output (text, json, folded, pprof,
 * html). Each table below is one dimension: a new workload, option set,
 * mode or output is one row.
 *
 * Per case (matrix.h has the views and the checks):
 *   - fsp-bpf and the workload exit 0, and fsp-bpf prints no error line
 *     (with -a the test ends the session with SIGINT: when it lands while a
 *     live report (--interval) is being written, fsp-bpf says that the
 *     session ends after it, the answer to a Ctrl-C at that moment, which
 *     is not an error line);
 *   - the live output is byte for byte what `report` makes of the saved
 *     profile in that format (with --interval: the final report; each live
 *     snapshot only grows);
 *   - the saved profile reads back, its diagnostics are zero or explained
 *     (allowed_diags), every view of it (json, text, folded by feature and by
 *     thread, off-CPU folded, pprof, the HTML page's data) shows the same
 *     samples, native samples, off-CPU time and calls per feature and
 *     instance as its model, merge(a) = a, merge(a, a) = 2a, diff(a, a)
 *     shows no change, and a plug-in's samples are its feature's;
 *   - with function features, the saved profile without its rules, given
 *     them by report --map/--function-feature (after the fact), is
 *     reported as the saved profile is.
 *
 * Which cases (FSP_MATRIX):
 *   subset   (the default, `make test`) the cases of `subset`: every value of
 *            every dimension, and the pairs that found bugs;
 *   full     (`make check-matrix`) every session: each workload x option set
 *            x mode, its live output taking the formats in turn so that each
 *            live format meets every workload, option set and mode (every
 *            session is rendered in every format from its saved profile
 *            anyway);
 *   product  every session once per live format (five times as long).
 * ITEST_FILTER selects cases by name (a glob), e.g. ITEST_FILTER='payload/stacks/\*'.
 * A check that fails by a known bug another branch fixes (`known` below)
 * prints KNOWN and does not fail its case.
 */
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itest.h"
#include "matrix.h"

/* CPU time of each working thread of wl_matrix, and of the demos. */
#define WORK_MS "300"
#define SESSION_TIMEOUT_S 120.0
/* dd's 512-byte records (nomarks-ff): about 1.4 s here, long enough
 * for -p to attach to it running */
#define DD_COUNT "2000000"
/* ... and its 1 MiB records with --events naming its features (about 27 us
 * a record without the probes: 2.7 s, so that -p's probes, a second and
 * more to attach, are attached while it runs) */
#define DD_EVENTS_COUNT "100000"

/* ---- the dimensions ---------------------------------------------------------------- */

struct workload {
	const char *name;
	/* a workload, examples/NAME when example, or a system program's path */
	const char *program;
	const char *args[6]; /* after the program; "@ATTACH" is now|attached, "@LIB" the provider */
	bool v1; /* the -DFSP_ABI_V1 build */
	bool example; /* examples/: runs at once, launch mode only */
	bool map; /* --map wlprov */
	const char *plugin; /* the built-in plug-in its marks are for */
	const char *features[5]; /* must be charged samples */
	const char *offcpu_feature; /* with --off-cpu, must be charged off-CPU time */
	/* function features: record's options for them (and report's, after the
	 * fact); "@FFMAP" is the map of function features written here */
	const char *ff_args[5];
	/* events-ff: the --events=FEATURE,... that names its function features
	 * (their calls then trap twice) and, when set, the arguments it runs
	 * with instead of args (fewer, longer calls) */
	const char *ff_events;
	const char *ff_events_args[6];
};

static const struct workload workloads[] = {
	{"main",
	 "wl_matrix",
	 {"main", WORK_MS, "@ATTACH"},
	 false,
	 false,
	 false,
	 "boundary",
	 {"request", "parse", "contract", "output"},
	 "io"},
	{"pool",
	 "wl_matrix",
	 {"pool", WORK_MS, "@ATTACH"},
	 false,
	 false,
	 false,
	 NULL,
	 {"task", "alloc"},
	 "task"},
	{"payload",
	 "wl_matrix",
	 {"payload", WORK_MS, "@ATTACH"},
	 false,
	 false,
	 false,
	 "tasks",
	 {"task", "pay"},
	 NULL},
	{"prov",
	 "wl_matrix",
	 {"prov", WORK_MS, "@ATTACH", "@LIB"},
	 false,
	 false,
	 true,
	 NULL,
	 {"host", "wlprov:work"},
	 NULL},
	{"main-v1",
	 "wl_matrix",
	 {"main", WORK_MS, "@ATTACH"},
	 true,
	 false,
	 false,
	 "boundary",
	 {"request", "parse", "contract", "output"},
	 "io"},
	{"pool-v1",
	 "wl_matrix",
	 {"pool", WORK_MS, "@ATTACH"},
	 true,
	 false,
	 false,
	 NULL,
	 {"task", "alloc"},
	 "task"},
	{"payload-v1",
	 "wl_matrix",
	 {"payload", WORK_MS, "@ATTACH"},
	 true,
	 false,
	 false,
	 "tasks",
	 {"task", "pay"},
	 NULL},
	{"prov-v1",
	 "wl_matrix",
	 {"prov", WORK_MS, "@ATTACH", "@LIB"},
	 true,
	 false,
	 true,
	 NULL,
	 {"host", "wlprov:work"},
	 NULL},
	{"demo",
	 "demo",
	 {WORK_MS},
	 false,
	 true,
	 false,
	 NULL,
	 {"output", "parse", "contract"},
	 NULL},
	{"demo_mt",
	 "demo_mt",
	 {"2", WORK_MS},
	 false,
	 true,
	 false,
	 NULL,
	 {"hash", "compress", "format"},
	 NULL},
	/* function features: the shipped libc map (output nested in the demo's
	 * marked output; its sorting's antimark outside) */
	{"demo-libc",
	 "demo",
	 {WORK_MS},
	 false,
	 true,
	 false,
	 NULL,
	 {"output", "parse", "libc:output"},
	 NULL,
	 {"--map", "libc"},
	 "--events=libc:output,libc:input,libc:allocation,libc:sorting,libc:regex,libc:locking"},
	/* a map's function and antimark rules and --function-feature, nested in
	 * marks and around them, in every mode */
	{"main-ff",
	 "wl_matrix",
	 {"main", WORK_MS, "@ATTACH"},
	 false,
	 false,
	 false,
	 "boundary",
	 {"request", "parse", "mxff:burn", "fn:step"},
	 "io",
	 {"--map", "@FFMAP", "--function-feature", "step=*:main_parse,main_contract"},
	 "--events=mxff:burn,mxff:clock"},
	/* no marks, no probes: function features alone (dd's reads and writes;
	 * with their calls probed, 1 MiB records: the same time in fewer calls,
	 * each trapping twice) */
	{"nomarks-ff",
	 "/usr/bin/dd",
	 {"if=/dev/zero", "of=/dev/null", "bs=512", "count=" DD_COUNT, "status=none"},
	 false,
	 false,
	 false,
	 NULL,
	 {"libc:output", "libc:input", "fn:io"},
	 NULL,
	 {"--map", "libc", "--function-feature", "io=libc.so.6:*read,*write"},
	 "--events=libc:output,libc:input,libc:allocation,libc:sorting,libc:regex,libc:locking,"
	 "fn:io",
	 {"if=/dev/zero", "of=/dev/null", "bs=1M", "count=" DD_EVENTS_COUNT, "status=none"}},
};

enum { OPT_OFFCPU = 1, OPT_STACKS = 2, OPT_INTERVAL = 4, OPT_FFEVENTS = 8 };

struct options {
	const char *name;
	const char *args[5];
	unsigned int flags;
};

static const struct options option_sets[] = {
	{"default", {NULL}, 0},
	{"events", {"--events"}, 0},
	{"off-cpu", {"--off-cpu"}, OPT_OFFCPU},
	{"stacks", {"--stacks"}, OPT_STACKS},
	{"events+off-cpu", {"--events", "--off-cpu"}, OPT_OFFCPU},
	{"events+stacks", {"--events", "--stacks"}, OPT_STACKS},
	{"off-cpu+stacks", {"--off-cpu", "--stacks"}, OPT_OFFCPU | OPT_STACKS},
	{"all", {"--events", "--off-cpu", "--stacks"}, OPT_OFFCPU | OPT_STACKS},
	{"interval", {"--interval", "0.2"}, OPT_INTERVAL},
	{"interval+stacks", {"--interval", "0.2", "--stacks"}, OPT_INTERVAL | OPT_STACKS},
	/* --events=FEATURE,... naming the workload's function features (a bare
	 * --events probes none of them): a uprobe and a uretprobe on each of
	 * their functions; -a says it does not probe them, and samples them */
	{"events-ff", {"@FFEVENTS"}, OPT_FFEVENTS},
	{"events-ff+off-cpu", {"@FFEVENTS", "--off-cpu"}, OPT_FFEVENTS | OPT_OFFCPU},
};

enum mode { LAUNCH, PID, SYSWIDE };
static const char *const mode_names[] = {"launch", "pid", "syswide"};

enum live { LIVE_TEXT, LIVE_JSON, LIVE_FOLDED, LIVE_PPROF, LIVE_HTML };
static const char *const live_names[] = {"text", "json", "folded", "pprof", "html"};

#define NR(a) (sizeof(a) / sizeof((a)[0]))

struct mx_case {
	char name[128];
	const struct workload *w;
	const struct options *o;
	enum mode mode;
	enum live live;
};

/* The bounded subset of `make test`: every value of every dimension, and
 * the pairs that found bugs (payloads x --stacks in every view, the demos
 * of the README, HTML with --off-cpu, -a --comm of a thread pool, payloads
 * x --interval). */
static const struct {
	const char *workload, *options;
	enum mode mode;
	enum live live;
} subset[] = {
	{"payload", "stacks", LAUNCH, LIVE_TEXT},
	{"demo", "stacks", LAUNCH, LIVE_FOLDED},
	{"demo_mt", "off-cpu+stacks", LAUNCH, LIVE_PPROF},
	{"main", "events+off-cpu", LAUNCH, LIVE_HTML},
	{"main-v1", "all", LAUNCH, LIVE_TEXT},
	{"main", "interval", LAUNCH, LIVE_TEXT},
	{"payload", "interval", LAUNCH, LIVE_TEXT},
	{"pool", "default", PID, LIVE_JSON},
	{"prov", "events+stacks", PID, LIVE_FOLDED},
	{"payload-v1", "events", PID, LIVE_HTML},
	{"payload", "all", PID, LIVE_PPROF},
	{"pool-v1", "stacks", SYSWIDE, LIVE_TEXT},
	{"prov-v1", "off-cpu", SYSWIDE, LIVE_PPROF},
	{"main", "stacks", SYSWIDE, LIVE_JSON},
	{"payload", "interval+stacks", SYSWIDE, LIVE_TEXT},
	{"demo-libc", "events", LAUNCH, LIVE_HTML},
	{"main-ff", "off-cpu", PID, LIVE_PPROF},
	{"main-ff", "interval", SYSWIDE, LIVE_TEXT},
	{"nomarks-ff", "default", LAUNCH, LIVE_FOLDED},
	{"nomarks-ff", "events", PID, LIVE_JSON},
	/* --events naming function features: the text report dropped point
	 * events' calls (demo-libc); -p of a short dd lost its native stacks
	 * and counted its calls as stale (nomarks-ff) */
	{"demo-libc", "events-ff", LAUNCH, LIVE_HTML},
	{"nomarks-ff", "events-ff", PID, LIVE_JSON},
	{"main-ff", "events-ff+off-cpu", SYSWIDE, LIVE_FOLDED},
};

/* Bugs a branch not yet merged fixes: their checks say KNOWN, not FAIL,
 * until it lands (then remove the row: a known bug that no longer fails
 * prints nothing). Rows: {cases glob, message prefix, why}. None now. */
static const struct mx_known known[] = {
	{NULL, NULL, NULL},
};

/* ---- one session ---------------------------------------------------------------------- */

struct session {
	const struct mx_case *c;
	char program[PATH_MAX], lib[PATH_MAX], map[PATH_MAX], ffmap[PATH_MAX], comm[16];
	char saved[PATH_MAX], live[PATH_MAX]; /* the profile; the live page (html) */
	char *argv[64];
	int argc;
	struct itest_proc fsp, wl;
};

static void add(struct session *s, const char *arg)
{
	assert_true(s->argc < 62);
	s->argv[s->argc++] = (char *)arg;
	s->argv[s->argc] = NULL;
}

static const char *out_dir(const struct workload *w)
{
	const char *out = getenv("FSP_OUT");

	(void)w;
	return out ? out : ".output";
}

/* The program to run: the workload (a copy of a name of its own for -a
 * --comm, so no other process matches). */
static void pick_program(struct session *s)
{
	const struct workload *w = s->c->w;
	char src[PATH_MAX], cmd[3 * PATH_MAX];

	if (w->program[0] == '/')
		snprintf(src, sizeof(src), "%s", w->program);
	else
		snprintf(src, sizeof(src), "%s/%s/%s", out_dir(w),
			 w->example ? "examples"
			 : w->v1    ? "workloads-v1"
				    : "workloads",
			 w->program);
	snprintf(s->lib, sizeof(s->lib), "%s/%s/libwl_prov.so", out_dir(w),
		 w->v1 ? "workloads-v1" : "workloads");
	if (access(src, X_OK))
		fail_msg("%s is missing (make examples workloads)", src);
	if (s->c->mode != SYSWIDE) {
		snprintf(s->program, sizeof(s->program), "%s", src);
		return;
	}
	snprintf(s->comm, sizeof(s->comm), "mx%d", (int)getpid() % 100000);
	snprintf(s->program, sizeof(s->program), "%s", itest_tmp("%s", s->comm));
	snprintf(cmd, sizeof(cmd), "cp %s %s", src, s->program);
	assert_int_equal(system(cmd), 0);
}

static void add_workload(struct session *s, char **argv, int *argc)
{
	const struct workload *w = s->c->w;
	const char *const *args =
		s->c->o->flags & OPT_FFEVENTS && w->ff_events_args[0] ? w->ff_events_args : w->args;

	argv[(*argc)++] = s->program;
	for (int i = 0; i < 6 && args[i]; i++) {
		const char *a = args[i];

		if (!strcmp(a, "@ATTACH"))
			a = s->c->mode == LAUNCH ? "now" : "attached";
		else if (!strcmp(a, "@LIB"))
			a = s->lib;
		argv[(*argc)++] = (char *)a;
	}
	argv[*argc] = NULL;
}

/* The live formats whose -o is their rendering (folded, pprof, html): the
 * profile is saved with --json, the text report goes to stdout. */
static bool live_renders(enum live l)
{
	return l == LIVE_FOLDED || l == LIVE_PPROF || l == LIVE_HTML;
}

/* The workload's function features' options (record's and report's). */
static void add_ff_args(struct session *s, char **argv, int *argc)
{
	const char *const *ff = s->c->w->ff_args;

	for (int i = 0; i < 5 && ff[i]; i++)
		argv[(*argc)++] = !strcmp(ff[i], "@FFMAP") ? s->ffmap : (char *)ff[i];
	argv[*argc] = NULL;
}

/* fsp-bpf's arguments but the target: options, the live format, the saved
 * profile (-o, or --json beside a rendering's -o). */
static void fsp_args(struct session *s)
{
	const struct mx_case *c = s->c;

	add(s, NULL); /* argv[0]: fsp-bpf */
	for (int i = 0; i < 5 && c->o->args[i]; i++)
		add(s, strcmp(c->o->args[i], "@FFEVENTS") ? c->o->args[i] : c->w->ff_events);
	if (c->w->map) {
		add(s, "--map");
		add(s, s->map);
	}
	add_ff_args(s, s->argv, &s->argc);
	if (c->w->plugin && (c->live == LIVE_TEXT || c->live == LIVE_JSON)) {
		add(s, "--plugin");
		add(s, c->w->plugin);
	}
	if (c->live != LIVE_TEXT) {
		add(s, "--format");
		add(s, live_names[c->live]);
	}
	add(s, "-o");
	if (live_renders(c->live)) {
		add(s, s->live);
		add(s, "--json");
	}
	add(s, s->saved);
	if (c->mode == SYSWIDE) {
		add(s, "-a");
		add(s, "--comm");
		add(s, s->comm);
	}
}

static void wait_workload(struct itest_proc *p)
{
	itest_wait(p, SESSION_TIMEOUT_S);
	mx_check(WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0,
		 "the workload exited with status 0x%x: %s", p->status, p->err ? p->err : "");
}

static void run_session(struct session *s)
{
	char *wl[8], pid[16];
	int n = 0;

	if (s->c->mode == LAUNCH) {
		add(s, "--");
		add_workload(s, s->argv, &s->argc);
		itest_run_fspv(&s->fsp, "fsp", SESSION_TIMEOUT_S, s->argv);
		return;
	}
	add_workload(s, wl, &n);
	if (s->c->mode == PID) {
		itest_spawn(&s->wl, "workload", wl);
		snprintf(pid, sizeof(pid), "%d", s->wl.pid);
		add(s, "-p");
		add(s, pid);
		itest_run_fspv(&s->fsp, "fsp", SESSION_TIMEOUT_S, s->argv);
		wait_workload(&s->wl);
		return;
	}
	itest_start_fsp(&s->fsp, s->argv);
	itest_spawn(&s->wl, "workload", wl);
	wait_workload(&s->wl);
	itest_signal(&s->fsp, SIGINT);
	itest_wait(&s->fsp, SESSION_TIMEOUT_S);
}

/* ---- the checks ------------------------------------------------------------------------- */

/* `report` of the saved profile with the live session's report options, in
 * the live format: its output file. */
static const char *report_like_live(struct session *s, const char *out)
{
	char *argv[16] = {NULL, "report"};
	int argc = 2;

	if (s->c->mode == SYSWIDE) {
		argv[argc++] = "--comm";
		argv[argc++] = s->comm;
	}
	if (s->c->w->plugin && (s->c->live == LIVE_TEXT || s->c->live == LIVE_JSON)) {
		argv[argc++] = "--plugin";
		argv[argc++] = (char *)s->c->w->plugin;
	}
	if (s->c->live != LIVE_TEXT) {
		argv[argc++] = "--format";
		argv[argc++] = (char *)live_names[s->c->live];
	}
	if (out) {
		argv[argc++] = "-o";
		argv[argc++] = (char *)out;
	}
	argv[argc++] = s->saved;
	return mx_fspv("report-live", argv);
}

/* The total of a text report's header ("..., N samples = ..."). */
static uint64_t text_total(const char *report)
{
	const char *s = strstr(report, " samples = ");

	while (s && s > report && s[-1] != ' ')
		s--;
	return s ? strtoull(s, NULL, 10) : 0;
}

/* --interval: the snapshots, then the final report. Each snapshot's total
 * is at most the next one's; the final report is report's. */
static void check_interval(const char *live, const char *want)
{
	char *text = itest_slurp(live), *final, *snap, *header;
	uint64_t prev = 0, n, snaps = 0;

	assert_non_null(text);
	final = text;
	for (snap = strstr(text, "--- live report "); snap;
	     snap = strstr(snap + 1, "--- live report ")) {
		header = strstr(snap, "feature profile of ");
		n = header ? text_total(header) : 0;
		mx_check(n >= prev, "live snapshot %" PRIu64 ": %" PRIu64 " samples after %" PRIu64,
			 snaps + 1, n, prev);
		prev = n;
		snaps++;
		final = header ? header : snap;
	}
	mx_check(snaps > 0, "--interval printed no live report");
	/* the final report: the header after the last snapshot's own */
	final = strstr(final + 1, "\nfsp-bpf ");
	mx_check(final != NULL, "--interval: no final report after the snapshots");
	if (final) {
		char *w = itest_slurp(want);

		mx_check(w && !strcmp(final + 1, w),
			 "--interval: the final report differs from report of the saved profile");
		mx_check(text_total(final) >= prev,
			 "the final report has fewer samples than a snapshot");
		free(w);
	}
	free(text);
}

/* The live page's data against the text report the session printed. */
static void check_live_html(struct session *s)
{
	struct mx_tally page, text, nat;
	char *out = itest_slurp(s->fsp.out_path);

	mx_view_html(&page, s->live);
	mx_view_text(&text, &nat, out, 0);
	/* the live text folds rows under --min-pct */
	text.has = (text.has & ~MX_INSTANCES) | MX_MIN_PCT;
	page.has &= ~(MX_NATIVE | MX_OFFCPU | MX_CALLS);
	mx_compare(&text, &page);
	mx_tally_fini(&page);
	mx_tally_fini(&text);
	mx_tally_fini(&nat);
	free(out);
}

/* The live output (stdout) is report's; a demo prints its own output
 * before it. */
static void check_live_output(struct session *s, const char *what, const char *want)
{
	if (s->c->w->example)
		mx_check_ends_with(what, s->fsp.out_path, want);
	else
		mx_check_same_file(what, s->fsp.out_path, want);
}

static void check_live(struct session *s)
{
	const char *pb = itest_tmp("report-live.pb.gz");
	const char *folded = itest_tmp("report-live.folded");

	switch (s->c->live) {
	case LIVE_HTML:
		check_live_html(s);
		break;
	case LIVE_PPROF:
		report_like_live(s, pb);
		mx_check_same_file("live pprof (-o) vs report", s->live, pb);
		break;
	case LIVE_FOLDED:
		report_like_live(s, folded);
		mx_check_same_file("live folded (-o) vs report", s->live, folded);
		break;
	case LIVE_TEXT:
		if (s->c->o->flags & OPT_INTERVAL) {
			check_interval(s->fsp.out_path, report_like_live(s, NULL));
			break;
		}
		/* fall through */
	case LIVE_JSON:
		check_live_output(s, "live output vs report", report_like_live(s, NULL));
		break;
	}
}

/* The session records native stacks: --stacks, or function features. */
static bool native(const struct session *s)
{
	return s->c->o->flags & OPT_STACKS || s->c->w->ff_args[0];
}

/* What a clean run's diagnostics may count, and why. */
static void allowed_diags(const struct session *s, const char **allowed)
{
	int n = 0;

	/* intervals the kernel did not report, recovered: not an error */
	allowed[n++] = "offcpu_recovered";
	/* a launched command's first samples, taken inside execve(): no user
	 * stack to unwind (docs/profile-format.md) */
	if (s->c->mode == LAUNCH && native(s))
		allowed[n++] = "native_replaced";
	allowed[n] = NULL;
}

/* Its features are charged (and, with --off-cpu, off-CPU time). */
static void check_workload_features(struct session *s)
{
	const struct workload *w = s->c->w;
	struct mx_tally ref;

	mx_tally_profile(&ref, s->saved, NULL);
	for (int i = 0; i < 5 && w->features[i]; i++)
		mx_check(mx_row(&ref, w->features[i], NULL)->samples > 0,
			 "%s charged no sample to %s", w->name, w->features[i]);
	if (w->offcpu_feature && s->c->o->flags & OPT_OFFCPU)
		mx_check(mx_row(&ref, w->offcpu_feature, NULL)->offcpu_ns > 0,
			 "--off-cpu charged no off-CPU time to %s", w->offcpu_feature);
	mx_tally_fini(&ref);
}

/* -a: the test's SIGINT landed while a live report (--interval) was being
 * written, and fsp-bpf said what it does (record_signals.c): the notice is
 * the answer to that signal, removed from err before the quiet check. */
static void drop_signal_notice(const struct session *s, char *err)
{
	static const char notice[] = "\nfsp-bpf: the session ends after this live report; again "
				     "to quit at once, nothing saved\n";
	char *at;

	if (!err || s->c->mode != SYSWIDE || !(s->c->o->flags & OPT_INTERVAL))
		return;
	at = strstr(err, notice);
	if (at)
		memmove(at, at + strlen(notice), strlen(at + strlen(notice)) + 1);
}

/* Removes from err each line that contains needle. */
static void drop_lines(char *err, const char *needle)
{
	char *at;

	while (err && (at = strstr(err, needle))) {
		char *bol = at, *eol = strchr(at, '\n');

		while (bol > err && bol[-1] != '\n')
			bol--;
		eol = eol ? eol + 1 : at + strlen(at);
		memmove(bol, eol, strlen(eol) + 1);
	}
}

/* events-ff: what fsp-bpf says of the function features it does not probe
 * (libc's sorting callbacks, a function whose first instruction the kernel
 * refuses, every function with -a), each an answer to the options, not an
 * error: removed from err before the quiet check. */
static void drop_events_notices(const struct session *s, char *err)
{
	if (!(s->c->o->flags & OPT_FFEVENTS))
		return;
	drop_lines(err, ": --events does not probe \"antimark outside\"");
	drop_lines(err, "cannot be probed (the kernel refuses their first instruction)");
	if (s->c->mode == SYSWIDE)
		drop_lines(err, "fsp-bpf: -a: --events does not count function features' calls");
}

/* wlprov's map: a feature with an extent, and a point event. */
static const char prov_map[] = "map wlprov\nprovider wlprov\nfeature work\n\tenter work__start\n"
			       "\tleave work__done\n\tinstance {str:0}\nfeature started\n"
			       "\tevent work__start\n\tinstance {str:0}\n";

/* The map of function features of main-ff: a map's function and antimark
 * rules (wl_burn's integrity check, chunk(), charges nothing to it), and a
 * libc function called inside wl_burn, one instance for every call. */
static const char ff_map[] = "map mxff\ndescription function features of the consistency matrix\n"
			     "feature burn\n\tfunction *:wl_burn\n\tantimark *:chunk\n"
			     "feature clock\n\tfunction libc.so.6:*clock_gettime*\n"
			     "\tinstance none\n";

static void write_map(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* report [--comm C] --min-pct 0 [FMT] [the function features' options] FILE:
 * its output file. */
static const char *report_text(struct session *s, const char *tag, const char *path, bool rules,
			       bool folded)
{
	char *argv[24] = {NULL, "report", "--min-pct", "0"};
	int argc = 4;

	if (s->c->mode == SYSWIDE) {
		argv[argc++] = "--comm";
		argv[argc++] = s->comm;
	}
	if (folded) {
		argv[argc++] = "--format";
		argv[argc++] = "folded";
	}
	if (rules)
		add_ff_args(s, argv, &argc);
	argv[argc++] = (char *)path;
	argv[argc] = NULL;
	return mx_fspv(tag, argv);
}

/* Function features after the fact: the saved profile without its rules (as
 * recorded with --stacks alone), given them by report --map and
 * --function-feature, is reported as the saved profile is (which is the live
 * report: check_live), in text and in folded stacks. */
static void check_after_the_fact(struct session *s)
{
	const char *bare = itest_tmp("bare.json");

	mx_strip_rules(s->saved, bare);
	for (int folded = 0; folded < 2; folded++)
		mx_check_same_file(folded ? "report --format folded with the rules after the fact"
					  : "report with the rules after the fact",
				   report_text(s, "report-after", bare, true, folded),
				   report_text(s, "report-recorded", s->saved, false, folded));
}

static void run_case(void **state)
{
	const struct mx_case *c = *state;
	struct session s = {.c = c};
	const char *allowed[4];
	double t0 = itest_now();

	mx_stats = (struct mx_stats){0, 0, 0};
	mx_known = known;
	mx_case_name = c->name;
	snprintf(s.saved, sizeof(s.saved), "%s", itest_tmp("prof.json"));
	snprintf(s.live, sizeof(s.live), "%s", itest_tmp("live.out"));
	snprintf(s.map, sizeof(s.map), "%s", itest_tmp("wlprov.map"));
	write_map(s.map, prov_map);
	snprintf(s.ffmap, sizeof(s.ffmap), "%s", itest_tmp("mxff.map"));
	write_map(s.ffmap, ff_map);
	pick_program(&s);
	fsp_args(&s);
	run_session(&s);
	mx_check(WIFEXITED(s.fsp.status) && WEXITSTATUS(s.fsp.status) == 0,
		 "fsp-bpf exited with status 0x%x; stderr:\n%s", s.fsp.status,
		 s.fsp.err ? s.fsp.err : "");
	drop_signal_notice(&s, s.fsp.err);
	drop_events_notices(&s, s.fsp.err);
	mx_check_quiet("the session", s.fsp.err);
	if (mx_check(access(s.saved, R_OK) == 0, "no saved profile %s", s.saved)) {
		check_live(&s);
		check_workload_features(&s);
		allowed_diags(&s, allowed);
		mx_check_saved(&(struct mx_saved){
			.path = s.saved,
			.comm = c->mode == SYSWIDE ? s.comm : NULL,
			.plugin = c->w->plugin,
			.allowed_diags = allowed,
			.offcpu = c->o->flags & OPT_OFFCPU,
			.native = native(&s),
		});
		if (c->w->ff_args[0])
			check_after_the_fact(&s);
	}
	printf("  %s: %lu checks, %lu failed, %lu known, %.1f s\n", c->name, mx_stats.checks,
	       mx_stats.failed, mx_stats.known, itest_now() - t0);
	if (mx_stats.failed)
		fail_msg("%s: %lu of %lu checks failed (FAIL lines above)", c->name,
			 mx_stats.failed, mx_stats.checks);
}

/* ---- the cases ------------------------------------------------------------------------------ */

static bool applies(const struct workload *w, const struct options *o, enum mode m, enum live l)
{
	if (w->example && m != LAUNCH)
		return false; /* the demos start at once: launch them */
	if (o->flags & OPT_FFEVENTS && !w->ff_events)
		return false; /* no function features to name */
	/* --interval re-renders the report on a terminal: text */
	return !(o->flags & OPT_INTERVAL) || l == LIVE_TEXT;
}

static void add_case(struct mx_case *cases, size_t *n, const struct workload *w,
		     const struct options *o, enum mode m, enum live l)
{
	struct mx_case *c = &cases[(*n)++];

	*c = (struct mx_case){.w = w, .o = o, .mode = m, .live = l};
	snprintf(c->name, sizeof(c->name), "%s/%s/%s/%s", w->name, o->name, mode_names[m],
		 live_names[l]);
}

static const struct workload *find_workload(const char *name)
{
	for (size_t i = 0; i < NR(workloads); i++)
		if (!strcmp(workloads[i].name, name))
			return &workloads[i];
	return NULL;
}

static const struct options *find_options(const char *name)
{
	for (size_t i = 0; i < NR(option_sets); i++)
		if (!strcmp(option_sets[i].name, name))
			return &option_sets[i];
	return NULL;
}

/* full: the live format of session (w, o, m) of the tables, in turn: for any
 * two of w, o, m fixed, the third runs through every residue mod 5. */
static enum live rotation(size_t w, size_t o, int m)
{
	return (enum live)((w + o + (size_t)m) % NR(live_names));
}

static size_t make_cases(struct mx_case *cases, const char *which)
{
	bool product = !strcmp(which, "product");
	size_t n = 0;

	if (!strcmp(which, "subset")) {
		for (size_t i = 0; i < NR(subset); i++) {
			const struct workload *w = find_workload(subset[i].workload);
			const struct options *o = find_options(subset[i].options);

			if (!w || !o || !applies(w, o, subset[i].mode, subset[i].live)) {
				fprintf(stderr,
					"test_matrix: subset[%zu] is not a case of the matrix\n",
					i);
				exit(1);
			}
			add_case(cases, &n, w, o, subset[i].mode, subset[i].live);
		}
		return n;
	}
	for (size_t w = 0; w < NR(workloads); w++)
		for (size_t o = 0; o < NR(option_sets); o++)
			for (int m = LAUNCH; m <= SYSWIDE; m++)
				for (int l = LIVE_TEXT; l <= LIVE_HTML; l++) {
					enum live want = option_sets[o].flags & OPT_INTERVAL
								 ? LIVE_TEXT
								 : rotation(w, o, m);

					if ((product || (enum live)l == want) &&
					    applies(&workloads[w], &option_sets[o], m, l))
						add_case(cases, &n, &workloads[w], &option_sets[o],
							 m, l);
				}
	return n;
}

int main(void)
{
	static struct mx_case cases[NR(workloads) * NR(option_sets) * 3 * 5];
	static struct CMUnitTest tests[NR(cases)];
	const char *which = getenv("FSP_MATRIX") ? getenv("FSP_MATRIX") : "subset";
	size_t n;

	if (strcmp(which, "subset") && strcmp(which, "full") && strcmp(which, "product")) {
		fprintf(stderr, "test_matrix: FSP_MATRIX=%s: expected subset, full or product\n",
			which);
		return 1;
	}
	n = make_cases(cases, which);
	for (size_t i = 0; i < n; i++)
		tests[i] = (struct CMUnitTest){cases[i].name, run_case, itest_setup_locked,
					       itest_teardown_locked, &cases[i]};
	/* the lock per case: the whole matrix takes long */
	return itest_run_group_each("matrix", tests, n);
}
