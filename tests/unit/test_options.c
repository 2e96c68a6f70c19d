// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the command line (userspace/cmd/options.c and each
 * subcommand's parser): which subcommand runs, the defaults, every option's
 * value, strict numbers and ranges, conflicting options, the exit status and
 * the exact message of each error; the table of formats. --help, --usage and
 * --version: test_help.c. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <linux/types.h>

#include "options_helpers.h"
#include "plugin.h"
#include "profiler.h"

static void test_record_defaults(void **state)
{
	struct parse p;

	(void)state;
	PARSE(&p, "-p", "42");
	assert_runs(&p, &cmd_record);
	assert_int_equal(p.o.nr_pids, 1);
	assert_int_equal(p.o.pids[0], 42);
	assert_null(p.o.cmd);
	assert_int_equal(p.o.session.frequency_hz, FSP_DEFAULT_FREQUENCY_HZ);
	assert_int_equal(p.o.session.frequency_hz, 999);
	assert_true(p.o.session.duration_s == 0);
	assert_int_equal(p.o.session.max_depth, FSP_MAX_DEPTH);
	assert_int_equal(p.o.session.max_stacks, FSP_DEFAULT_MAX_STACKS);
	assert_int_equal(p.o.session.max_events, FSP_DEFAULT_MAX_EVENTS);
	assert_true(p.o.session.follow_forks);
	assert_true(p.o.session.events);
	assert_false(p.o.session.v2_events);
	assert_false(p.o.session.offcpu);
	assert_int_equal(p.o.session.stacks, 0);
	assert_int_equal(p.o.session.stack_size, FSP_NATIVE_DEFAULT_STACK);
	assert_false(p.o.session.system_wide);
	assert_false(p.o.verbose);
	assert_null(p.o.out_path);
	assert_null(p.o.probemaps);
	assert_int_equal(p.o.view.format, FSP_FMT_TEXT);
	assert_true(p.o.view.ropts.min_pct == FSP_DEFAULT_MIN_PCT);
	assert_null(p.o.view.ropts.function);
	assert_int_equal(p.o.view.ropts.top_functions, FSP_DEFAULT_TOP_FUNCTIONS);
	done(&p);
}

static void test_record_options(void **state)
{
	struct parse p;

	(void)state;
	PARSE(&p, "record", "-p", "1,2", "-p", "3", "-F", "4999", "-d", "0.5", "--max-depth", "3",
	      "--max-stacks", "16", "--max-events", "1048576", "--no-follow-forks", "--off-cpu",
	      "--no-events", "--interval", "2.5", "-v", "-o", "prof.json", "--map", "python",
	      "--map", "auto", "--format", "folded", "--by", "thread", "--order", "name",
	      "--min-pct", "0", "--feature", "gc", "--feature", "import,parse", "--comm", "worker",
	      "--value", "wall");
	assert_runs(&p, &cmd_record);
	assert_int_equal(p.o.nr_pids, 3);
	assert_int_equal(p.o.pids[2], 3);
	assert_int_equal(p.o.session.frequency_hz, 4999);
	assert_true(p.o.session.duration_s == 0.5);
	assert_int_equal(p.o.session.max_depth, 3);
	assert_int_equal(p.o.session.max_stacks, 16);
	assert_int_equal(p.o.session.max_events, 1 << 20);
	assert_false(p.o.session.follow_forks);
	assert_true(p.o.session.offcpu);
	assert_false(p.o.session.events);
	assert_true(p.o.session.interval_s == 2.5);
	assert_true(p.o.verbose);
	assert_string_equal(p.o.out_path, "prof.json");
	/* Repeated list options add to the list. */
	assert_string_equal(p.o.probemaps, "python,auto");
	assert_string_equal(p.o.view.ropts.feature, "gc,import,parse");
	assert_string_equal(p.o.view.ropts.comm, "worker");
	assert_int_equal(p.o.view.format, FSP_FMT_FOLDED);
	assert_int_equal(p.o.view.ropts.by, REPORT_BY_THREAD);
	assert_int_equal(p.o.view.ropts.order, REPORT_ORDER_NAME);
	assert_int_equal(p.o.view.ropts.folded_value, REPORT_VALUE_WALL);
	assert_true(p.o.view.ropts.min_pct == 0);
	done(&p);
	/* --function, --top-functions (record and report); --function is text's */
	PARSE(&p, "report", "--function", "planner", "--top-functions", "3", "x.json");
	assert_runs(&p, &cmd_report);
	assert_string_equal(p.o.view.ropts.function, "planner");
	assert_int_equal(p.o.view.ropts.top_functions, 3);
	done(&p);
	PARSE(&p, "--function", "planner", "--format", "folded", "-p", "1");
	assert_usage_error(&p, "fsp-bpf",
			   "--function shows a call graph in the text report: use it with --format "
			   "text");
	done(&p);
	PARSE(&p, "--json", "x.json", "-a", "--comm", "a", "--comm", "b", "--comm", "c");
	assert_runs(&p, &cmd_record);
	assert_string_equal(p.o.profile_path, "x.json"); /* the profile, whatever --format */
	assert_true(p.o.session.system_wide);
	assert_string_equal(p.o.view.ropts.comm, "a,b,c");
	done(&p);
	/* --events: exact counts for ABI v2 marks too; not with --no-events. */
	PARSE(&p, "--events", "-p", "7");
	assert_runs(&p, &cmd_record);
	assert_true(p.o.session.events);
	assert_true(p.o.session.v2_events);
	done(&p);
	PARSE(&p, "--events", "--no-events", "-p", "7");
	assert_usage_error(&p, "fsp-bpf",
			   "--events and --no-events contradict each other: give one of them");
	done(&p);
}

/* The first operand starts the command: options after it are its own. */
static void test_record_command(void **state)
{
	struct parse p;

	(void)state;
	PARSE(&p, "-F", "99", "--", "./app", "-p", "1", "--help");
	assert_runs(&p, &cmd_record);
	assert_string_equal(p.o.cmd[0], "./app");
	assert_string_equal(p.o.cmd[1], "-p");
	assert_string_equal(p.o.cmd[3], "--help");
	assert_null(p.o.cmd[4]);
	assert_int_equal(p.o.nr_pids, 0);
	done(&p);
	PARSE(&p, "record", "ls", "-l");
	assert_runs(&p, &cmd_record);
	assert_string_equal(p.o.cmd[0], "ls");
	assert_string_equal(p.o.cmd[1], "-l");
	done(&p);
	/* A name that is no subcommand is a command to run, and -- runs a
	 * program named like a subcommand. */
	PARSE(&p, "bogus", "x");
	assert_runs(&p, &cmd_record);
	assert_string_equal(p.o.cmd[0], "bogus");
	done(&p);
	PARSE(&p, "--", "report", "x");
	assert_runs(&p, &cmd_record);
	assert_string_equal(p.o.cmd[0], "report");
	done(&p);
}

static void test_argv_untouched(void **state)
{
	struct parse p;
	char *before[MAX_ARGS];

	(void)state;
	PARSE(&p, "report", "--by", "process", "prof.json");
	memcpy(before, p.argv, sizeof(before));
	assert_runs(&p, &cmd_report);
	assert_memory_equal(before, p.argv, sizeof(before));
	assert_string_equal(p.argv[1], "report");
	done(&p);
}

static void test_subcommands(void **state)
{
	struct parse p;

	(void)state;
	PARSE(&p, "report", "--pid", "7", "--pid", "1234,9", "-o", "out.txt", "prof.json");
	assert_runs(&p, &cmd_report);
	assert_int_equal(p.o.nr_inputs, 1);
	assert_string_equal(p.o.inputs[0], "prof.json");
	assert_string_equal(p.o.view.ropts.pid, "7,1234,9");
	assert_string_equal(p.o.out_path, "out.txt");
	done(&p);
	PARSE(&p, "merge", "a.json", "-o", "all.json", "b.json");
	assert_runs(&p, &cmd_merge);
	assert_int_equal(p.o.nr_inputs, 2);
	assert_string_equal(p.o.inputs[1], "b.json");
	assert_string_equal(p.o.out_path, "all.json");
	done(&p);
	PARSE(&p, "diff", "--scale", "4", "--format", "json", "--min-pct", "1", "a", "b");
	assert_runs(&p, &cmd_diff);
	assert_true(p.o.scale == 4);
	assert_int_equal(p.o.view.format, FSP_FMT_JSON);
	assert_true(p.o.view.ropts.min_pct == 1);
	assert_string_equal(p.o.inputs[1], "b");
	done(&p);
	PARSE(&p, "diff", "a", "b");
	assert_runs(&p, &cmd_diff);
	assert_true(p.o.scale == 1);
	done(&p);
	/* the HTML report: --format html, --source-dir repeated, in order */
	PARSE(&p, "diff", "--format", "html", "--source-dir", "src", "-o", "d.html", "a", "b");
	assert_runs(&p, &cmd_diff);
	assert_int_equal(p.o.view.format, FSP_FMT_HTML);
	assert_int_equal(p.o.view.nr_source_dirs, 1);
	assert_string_equal(p.o.view.source_dirs[0], "src");
	done(&p);
	PARSE(&p, "report", "--format", "html", "--source-dir", "a", "--source-dir", "b/c", "x");
	assert_runs(&p, &cmd_report);
	assert_int_equal(p.o.view.format, FSP_FMT_HTML);
	assert_int_equal(p.o.view.nr_source_dirs, 2);
	assert_string_equal(p.o.view.source_dirs[1], "b/c");
	done(&p);
	PARSE(&p, "list", "-p", "1");
	assert_runs(&p, &cmd_list);
	assert_int_equal(p.o.pids[0], 1);
	done(&p);
	PARSE(&p, "list", "--map", "python");
	assert_runs(&p, &cmd_list);
	assert_string_equal(p.o.probemaps, "python");
	done(&p);
	PARSE(&p, "list");
	assert_runs(&p, &cmd_list);
	done(&p);
}

/* Numbers are decimal digits only, within their range. */
static void test_strict_numbers(void **state)
{
	static const char *const bad_freq[] = {"0",  "100001", "12x", " 5",  "+5",
					       "-5", "",       "1e3", "0x10"};
	char msg[256];
	struct parse p;

	(void)state;
	for (size_t i = 0; i < sizeof(bad_freq) / sizeof(bad_freq[0]); i++) {
		PARSE(&p, "-F", bad_freq[i], "-p", "1");
		snprintf(msg, sizeof(msg),
			 "invalid frequency '%s': expected an integer from 1 to 100000 (Hz)",
			 bad_freq[i]);
		assert_usage_error(&p, "fsp-bpf", msg);
		done(&p);
	}
	PARSE(&p, "-F", "100000", "-p", "1");
	assert_runs(&p, &cmd_record);
	assert_int_equal(p.o.session.frequency_hz, 100000);
	done(&p);
	PARSE(&p, "-p", "0");
	assert_usage_error(&p, "fsp-bpf",
			   "invalid PID '0': expected a process id (a positive integer)");
	done(&p);
	PARSE(&p, "-p", "1,x");
	assert_usage_error(&p, "fsp-bpf",
			   "invalid PID 'x': expected a process id (a positive integer)");
	done(&p);
	PARSE(&p, "-p", "4194305");
	assert_usage_error(&p, "fsp-bpf",
			   "invalid PID '4194305': expected a process id (a positive integer)");
	done(&p);
	PARSE(&p, "-p", "");
	assert_usage_error(&p, "fsp-bpf", "-p needs at least one PID");
	done(&p);
	PARSE(&p, "-p", "123456789012345678901");
	assert_usage_error(
		&p, "fsp-bpf",
		"invalid PID '123456789012345678901': expected a process id (a positive integer)");
	done(&p);
	PARSE(&p, "-d", "nan", "-p", "1");
	assert_usage_error(&p, "fsp-bpf",
			   "invalid duration 'nan': expected seconds, a number greater than 0 "
			   "(e.g. 10 or 0.5)");
	done(&p);
}

/* --file-mode: octal permissions, for every subcommand that writes -o. */
static void test_file_mode(void **state)
{
	static const char *const bad[] = {"", "8", "1000", "0x1", "-1", "00644", "6 4"};
	char msg[256];
	struct parse p;

	(void)state;
	PARSE(&p, "-p", "1");
	assert_int_equal(p.o.file_mode, -1); /* the default: private (outfile.h) */
	done(&p);
	PARSE(&p, "-p", "1", "--file-mode", "644", "-o", "x");
	assert_runs(&p, &cmd_record);
	assert_int_equal(p.o.file_mode, 0644);
	done(&p);
	PARSE(&p, "report", "--file-mode=0640", "-o", "y", "x");
	assert_runs(&p, &cmd_report);
	assert_int_equal(p.o.file_mode, 0640);
	done(&p);
	PARSE(&p, "merge", "--file-mode", "600", "-o", "m", "a", "b");
	assert_runs(&p, &cmd_merge);
	assert_int_equal(p.o.file_mode, 0600);
	done(&p);
	PARSE(&p, "diff", "--file-mode", "0", "a", "b");
	assert_runs(&p, &cmd_diff);
	assert_int_equal(p.o.file_mode, 0);
	done(&p);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		PARSE(&p, "report", "--file-mode", bad[i], "x");
		snprintf(msg, sizeof(msg),
			 "invalid --file-mode '%s': expected octal permissions from 0 to 777 (e.g. "
			 "600 or 644)",
			 bad[i]);
		assert_usage_error(&p, "fsp-bpf report", msg);
		done(&p);
	}
}

/* --wait-probes[=SECONDS]: with -p only. */
static void test_wait_probes(void **state)
{
	struct parse p;

	(void)state;
	PARSE(&p, "-p", "1");
	assert_false(p.o.wait_probes);
	assert_true(p.o.session.probe_timeout_s == 0);
	done(&p);
	PARSE(&p, "--wait-probes", "-p", "1");
	assert_runs(&p, &cmd_record);
	assert_true(p.o.wait_probes);
	assert_true(p.o.session.probe_timeout_s == 0);
	done(&p);
	PARSE(&p, "-p", "1", "--wait-probes=2.5");
	assert_runs(&p, &cmd_record);
	assert_true(p.o.wait_probes);
	assert_true(p.o.session.probe_timeout_s == 2.5);
	done(&p);
	PARSE(&p, "-p", "1", "--wait-probes=0");
	assert_usage_error(&p, "fsp-bpf",
			   "invalid --wait-probes '0': expected seconds, a number greater than 0 "
			   "(e.g. 30)");
	done(&p);
	PARSE(&p, "--wait-probes", "--", "ls");
	assert_usage_error(&p, "fsp-bpf",
			   "--wait-probes goes with -p PID (a command's and -a's probes are "
			   "attached whenever they come)");
	done(&p);
	PARSE(&p, "--wait-probes=3", "-a");
	assert_usage_error(&p, "fsp-bpf",
			   "--wait-probes goes with -p PID (a command's and -a's probes are "
			   "attached whenever they come)");
	done(&p);
}

/* --stacks[=user|kernel|all], --stack-size BYTES (with user stacks only). */
static void test_stacks(void **state)
{
	static const struct {
		const char *arg;
		unsigned int want;
	} ok[] = {
		{"--stacks", SESSION_STACKS_USER},
		{"--stacks=user", SESSION_STACKS_USER},
		{"--stacks=kernel", SESSION_STACKS_KERNEL},
		{"--stacks=all", SESSION_STACKS_USER | SESSION_STACKS_KERNEL},
	};
	static const char *const sizes[] = {"511", "65536", "1004", "8k", "-8", "", "08x"};
	struct parse p;
	char msg[256];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		PARSE(&p, ok[i].arg, "-p", "1");
		assert_runs(&p, &cmd_record);
		assert_int_equal(p.o.session.stacks, ok[i].want);
		assert_int_equal(p.o.session.stack_size, FSP_NATIVE_DEFAULT_STACK);
		done(&p);
	}
	PARSE(&p, "--stacks", "--stack-size", "512", "-p", "1");
	assert_runs(&p, &cmd_record);
	assert_int_equal(p.o.session.stack_size, 512);
	done(&p);
	PARSE(&p, "--stack-size", "65528", "--stacks=all", "-p", "1");
	assert_runs(&p, &cmd_record);
	assert_int_equal(p.o.session.stack_size, 65528);
	done(&p);
	PARSE(&p, "--stacks=both", "-p", "1");
	assert_usage_error(&p, "fsp-bpf",
			   "invalid --stacks 'both': expected user, kernel or all (--stacks "
			   "alone: user)");
	done(&p);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		PARSE(&p, "--stacks", "--stack-size", sizes[i], "-p", "1");
		snprintf(msg, sizeof(msg),
			 "invalid --stack-size '%s': expected a multiple of 8 from 512 to 65528 "
			 "(bytes)",
			 sizes[i]);
		assert_usage_error(&p, "fsp-bpf", msg);
		done(&p);
	}
	/* The size of a copy that is not taken is a mistake, not a no-op. */
	PARSE(&p, "--stack-size", "4096", "-p", "1");
	assert_usage_error(&p, "fsp-bpf",
			   "--stack-size sizes the user stacks of --stacks (or --stacks=user, "
			   "--stacks=all): give one of them");
	done(&p);
	PARSE(&p, "--stacks=kernel", "--stack-size", "4096", "-p", "1");
	assert_usage_error(&p, "fsp-bpf",
			   "--stack-size sizes the user stacks of --stacks (or --stacks=user, "
			   "--stacks=all): give one of them");
	done(&p);
}

/* -p lists: every element a PID (no empty one), a PID named twice is one. */
static void test_pid_lists(void **state)
{
	static const char *const empty[] = {",", "1,,2", "1,", ",1", "1,2,,"};
	char msg[256];
	struct parse p;

	(void)state;
	for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++) {
		PARSE(&p, "-p", empty[i]);
		snprintf(msg, sizeof(msg),
			 "invalid PID list '%s': an empty element (PIDs are separated by single "
			 "commas)",
			 empty[i]);
		assert_usage_error(&p, "fsp-bpf", msg);
		done(&p);
	}
	PARSE(&p, "-p", "5,5,6,5", "-p", "6", "-p", "7");
	assert_runs(&p, &cmd_record);
	assert_int_equal(p.o.nr_pids, 3);
	assert_int_equal(p.o.pids[0], 5);
	assert_int_equal(p.o.pids[1], 6);
	assert_int_equal(p.o.pids[2], 7);
	done(&p);
	PARSE(&p, "list", "-p", "9,9");
	assert_runs(&p, &cmd_list);
	assert_int_equal(p.o.nr_pids, 1);
	done(&p);
}

static void test_ranges(void **state)
{
	static const struct {
		const char *opt, *value, *msg;
	} cases[] = {
		{"-d", "0",
		 "invalid duration '0': expected seconds, a number greater than 0 (e.g. 10 or "
		 "0.5)"},
		{"-d", "inf",
		 "invalid duration 'inf': expected seconds, a number greater than 0 (e.g. 10 or "
		 "0.5)"},
		{"--max-depth", "0", "invalid --max-depth '0': expected 1 to 64"},
		{"--max-depth", "65", "invalid --max-depth '65': expected 1 to 64"},
		{"--max-stacks", "15", "invalid --max-stacks '15': expected 16 to 1048576"},
		{"--max-stacks", "1048577",
		 "invalid --max-stacks '1048577': expected 16 to 1048576"},
		{"--max-events", "15", "invalid --max-events '15': expected 16 to 1048576"},
		{"--interval", "0.05",
		 "invalid --interval '0.05': expected seconds, at least 0.1 (e.g. 1 or 2.5)"},
		{"--min-pct", "101",
		 "invalid --min-pct '101': expected a percentage from 0 to 100"},
		{"--min-pct", "-1", "invalid --min-pct '-1': expected a percentage from 0 to 100"},
		{"--format", "xml",
		 "invalid --format 'xml': expected text, json, folded, pprof, html or dot"},
		{"--by", "cpu", "invalid --by 'cpu': expected feature, thread or process"},
		{"--order", "x", "invalid --order 'x': expected cost, samples or name"},
		{"--value", "x", "invalid --value 'x': expected samples, offcpu or wall"},
		{"--feature", ",", "--feature needs a feature name"},
		{"--comm", ",,", "--comm needs a process name"},
		{"--map", "", "--map needs a map name, a file, or auto"},
		{"-o", "", "-o needs a file name (or - for stdout)"},
		{"--json", "", "--json needs a file name (or - for stdout)"},
		{"--source-dir", "", "--source-dir needs a directory"},
		{"--function", "", "--function needs a function name"},
		{"--top-functions", "0",
		 "invalid --top-functions '0': expected a number from 1 to 100000"},
	};
	struct parse p;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		PARSE(&p, cases[i].opt, cases[i].value, "-p", "1");
		assert_usage_error(&p, "fsp-bpf", cases[i].msg);
		done(&p);
	}
	PARSE(&p, "diff", "--scale", "0", "a", "b");
	assert_usage_error(&p, "fsp-bpf diff",
			   "invalid --scale '0': expected a positive number, the ratio of NEW's "
			   "input size to BASE's");
	done(&p);
	PARSE(&p, "diff", "--format", "folded", "a", "b");
	assert_usage_error(&p, "fsp-bpf diff",
			   "invalid --format 'folded' for diff: expected text, json or html");
	done(&p);
	PARSE(&p, "--format", "html", "--interval", "1", "-o", "x.html", "-p", "1");
	assert_usage_error(
		&p, "fsp-bpf",
		"--interval re-renders a report on the terminal: not with --format html");
	done(&p);
	PARSE(&p, "report", "--pid", "0", "x");
	assert_usage_error(&p, "fsp-bpf report",
			   "invalid --pid '0': expected process ids (1 to 4194304) separated by "
			   "commas");
	done(&p);
}

static void test_conflicts(void **state)
{
	struct parse p;

	(void)state;
	PARSE(&p, "-v");
	assert_usage_error(&p, "fsp-bpf",
			   "nothing to profile: give -p PID, a command to run, or -a");
	done(&p);
	PARSE(&p, "-p", "1", "-a");
	assert_usage_error(&p, "fsp-bpf", "give one of -p PID, a command or -a, not several");
	done(&p);
	PARSE(&p, "-a", "--", "ls");
	assert_usage_error(&p, "fsp-bpf", "give one of -p PID, a command or -a, not several");
	done(&p);
	PARSE(&p, "record", "-p", "1", "ls");
	assert_usage_error(&p, "fsp-bpf record",
			   "give one of -p PID, a command or -a, not several");
	done(&p);
	PARSE(&p, "--interval", "1", "-o", "-", "-p", "1");
	assert_usage_error(&p, "fsp-bpf",
			   "--interval prints reports to stdout: save the profile with -o FILE, "
			   "not -o -");
	done(&p);
	PARSE(&p, "list", "-p", "1", "--map", "python");
	assert_usage_error(&p, "fsp-bpf list", "give -p PID or --map NAME, not both");
	done(&p);
	/* -o is --format's output; --json the profile whatever the format */
	PARSE(&p, "-o", "a.json", "--json", "b.json", "-p", "1");
	assert_usage_error(&p, "fsp-bpf",
			   "-o and --json both save the profile with --format text: give one of "
			   "them (-o is the rendering's file with --format folded, pprof, html or "
			   "dot)");
	done(&p);
	PARSE(&p, "--format", "pprof", "--json", "-", "-p", "1");
	assert_usage_error(&p, "fsp-bpf",
			   "--json - and the pprof output would both go to stdout: write one of "
			   "them to a file (-o FILE or --json FILE)");
	done(&p);
	PARSE(&p, "--format", "pprof", "-o", "p.pb.gz", "--json", "p.json", "-p", "1");
	assert_runs(&p, &cmd_record);
	assert_string_equal(p.o.out_path, "p.pb.gz");
	assert_string_equal(p.o.profile_path, "p.json");
	done(&p);
}

/* --plugin: loaded at the end of the parse; formats that fit it. */
static void test_plugins(void **state)
{
	struct parse p;

	(void)state;
	PARSE(&p, "report", "--plugin", "tasks", "--plugin", "boundary=check,tasks", "x.json");
	assert_runs(&p, &cmd_report);
	assert_string_equal(p.o.view.plugins, "tasks,boundary=check,tasks");
	assert_non_null(p.o.view.pset);
	assert_int_equal(plugin_set__nr(p.o.view.pset), 2);
	done(&p);
	PARSE(&p, "report", "--plugin", "backtrack", "--format", "json", "x.json");
	assert_runs(&p, &cmd_report);
	done(&p);
	PARSE(&p, "report", "--plugin", "nosuch", "x.json");
	assert_usage_error(&p, "fsp-bpf report",
			   "unknown plug-in 'nosuch': the built-in ones are backtrack, boundary or "
			   "tasks (fsp-bpf list --plugins); name a shared object by its path "
			   "(./libnosuch.so)");
	done(&p);
	PARSE(&p, "report", "--plugin", ",", "x.json");
	assert_usage_error(&p, "fsp-bpf report", "--plugin needs a plug-in name");
	done(&p);
	PARSE(&p, "report", "--format", "dot", "x.json");
	assert_usage_error(&p, "fsp-bpf report",
			   "--format dot draws the graph of a plug-in: name it with --plugin "
			   "(boundary or tasks)");
	done(&p);
	PARSE(&p, "report", "--format", "dot", "--plugin", "backtrack", "x.json");
	assert_usage_error(&p, "fsp-bpf report",
			   "--format dot draws the graph of one plug-in: 0 of those given draw one "
			   "(fsp-bpf list --plugins)");
	done(&p);
	PARSE(&p, "report", "--format", "dot", "--plugin", "tasks,boundary", "x.json");
	assert_usage_error(&p, "fsp-bpf report",
			   "--format dot draws the graph of one plug-in: 2 of those given draw one "
			   "(fsp-bpf list --plugins)");
	done(&p);
	PARSE(&p, "--format", "folded", "--plugin", "tasks", "-p", "1");
	assert_usage_error(&p, "fsp-bpf",
			   "--plugin output is in --format text, json or dot, not folded or pprof");
	done(&p);
	PARSE(&p, "list", "--plugins");
	assert_runs(&p, &cmd_list);
	assert_true(p.o.list_plugins);
	done(&p);
	PARSE(&p, "list", "--plugins", "-p", "1");
	assert_usage_error(&p, "fsp-bpf list",
			   "--plugins lists the plug-ins alone: give it without -p or --map");
	done(&p);
}

static void test_operands(void **state)
{
	struct parse p;

	(void)state;
	PARSE(&p, "report");
	assert_usage_error(&p, "fsp-bpf report", "report needs exactly one profile file (got 0)");
	done(&p);
	PARSE(&p, "report", "a", "b");
	assert_usage_error(&p, "fsp-bpf report", "report needs exactly one profile file (got 2)");
	done(&p);
	PARSE(&p, "merge", "a", "b");
	assert_usage_error(&p, "fsp-bpf merge", "merge needs -o OUT, the file to write");
	done(&p);
	PARSE(&p, "merge", "-o", "out");
	assert_usage_error(&p, "fsp-bpf merge", "merge needs the profile files to merge");
	done(&p);
	PARSE(&p, "diff", "a");
	assert_usage_error(&p, "fsp-bpf diff",
			   "diff needs two profile files, BASE and NEW (got 1)");
	done(&p);
	PARSE(&p, "list", "x");
	assert_usage_error(&p, "fsp-bpf list",
			   "list takes no operands (got 'x'): -p PID or --map NAME");
	done(&p);
}

/* Options a subcommand does not have, and argp's own errors. */
static void test_unknown_options(void **state)
{
	struct parse p;

	(void)state;
	PARSE(&p, "report", "--scale", "2", "x");
	assert_false(p.run);
	assert_int_equal(p.status, USAGE_ERROR);
	assert_non_null(strstr(p.err, "fsp-bpf report: unrecognized option '--scale'"));
	assert_non_null(strstr(p.err, "Try `fsp-bpf report --help'"));
	done(&p);
	PARSE(&p, "report", "-p", "1", "x");
	assert_false(p.run);
	assert_int_equal(p.status, USAGE_ERROR);
	assert_non_null(strstr(p.err, "invalid option -- 'p'"));
	done(&p);
	PARSE(&p, "--pid");
	assert_false(p.run);
	assert_int_equal(p.status, USAGE_ERROR);
	assert_non_null(strstr(p.err, "option '--pid' requires an argument"));
	done(&p);
	PARSE(&p, "list", "-a");
	assert_false(p.run);
	assert_int_equal(p.status, USAGE_ERROR);
	done(&p);
}

/* The table of formats (userspace/cmd/formats.c): each row whole, each
 * subcommand parses the formats it takes and refuses the others, the lists
 * of --help and of the messages come from it. */
static void test_formats(void **state)
{
	char list[1024];
	struct parse p;

	(void)state;
	assert_string_equal(fsp_formats[0].name, "text"); /* the default */
	assert_null(format__find("xml"));
	for (size_t i = 0; i < fsp_nr_formats; i++) {
		const struct fsp_format *f = &fsp_formats[i];
		bool diff = format__takes(f, FORMAT_DIFF);

		assert_ptr_equal(format__find(f->name), f);
		assert_non_null(f->title);
		assert_non_null(f->doc);
		assert_non_null(f->render);
		/* record and report render every format; diff those with a
		 * diff renderer, listed in its --help */
		assert_true(format__takes(f, FORMAT_RECORD) && format__takes(f, FORMAT_REPORT));
		assert_int_equal(diff, f->render_diff != NULL);
		assert_int_equal(diff, f->diff_doc != NULL);
		if (f->plugins == FORMAT_PLUGINS_GRAPH)
			PARSE(&p, "report", "--format", f->name, "--plugin", "tasks", "x.json");
		else
			PARSE(&p, "report", "--format", f->name, "x.json");
		assert_runs(&p, &cmd_report);
		assert_ptr_equal(p.o.view.format, f);
		done(&p);
		PARSE(&p, "diff", "--format", f->name, "a", "b");
		assert_int_equal(p.run, diff);
		if (diff)
			assert_ptr_equal(p.o.view.format, f);
		done(&p);
	}
	format__list(list, sizeof(list), format__takes, FORMAT_DIFF, FORMAT_NAME, " or ");
	assert_string_equal(list, "text, json or html");
	format__list(list, sizeof(list), format__takes, FORMAT_REPORT, FORMAT_NAME, " or ");
	assert_string_equal(list, "text, json, folded, pprof, html or dot");
	/* --help: each row's doc (argp wraps the lines) */
	PARSE(&p, "report", "--help");
	assert_non_null(strstr(p.out, "text (default), json (the profile file), folded"));
	done(&p);
	PARSE(&p, "diff", "--help");
	assert_non_null(strstr(p.out, "text (default), json or html (a page: use -o)"));
	done(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_defaults), cmocka_unit_test(test_record_options),
		cmocka_unit_test(test_record_command),	cmocka_unit_test(test_argv_untouched),
		cmocka_unit_test(test_subcommands),	cmocka_unit_test(test_strict_numbers),
		cmocka_unit_test(test_pid_lists),	cmocka_unit_test(test_file_mode),
		cmocka_unit_test(test_wait_probes),	cmocka_unit_test(test_stacks),
		cmocka_unit_test(test_ranges),		cmocka_unit_test(test_conflicts),
		cmocka_unit_test(test_plugins),		cmocka_unit_test(test_operands),
		cmocka_unit_test(test_unknown_options), cmocka_unit_test(test_formats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
