// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <argp.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "profiler.h"
#include "options.h"

const struct fsp_options fsp_default_options = {
	.command = FSP_CMD_RECORD,
	.session =
		{
			.frequency_hz = 999,
			.max_depth = FSP_MAX_DEPTH,
			.max_stacks = FSP_DEFAULT_MAX_STACKS,
			.follow_forks = true,
			.events = true,
			.max_events = FSP_DEFAULT_MAX_EVENTS,
		},
	.view = {.format = FSP_FMT_TEXT, .ropts = {.min_pct = 0.5}},
	.scale = 1,
};

const char *argp_program_version = "fsp-bpf " FSP_VERSION;
const char *argp_program_bug_address = "the fsp-bpf issue tracker";

static const char record_doc[] =
	"fsp-bpf -- a feature-specific profiler.\n\n"
	"Charges CPU time to the features that libraries mark with fsp USDT probes "
	"(usdt/fsp.h) and to their instances, by sampling every thread's mark stack.\n\n"
	"USAGE: fsp-bpf [record] [OPTIONS] -p PID[,PID...]\n"
	"       fsp-bpf [record] [OPTIONS] [--] CMD [ARGS...]\n"
	"       fsp-bpf [record] [OPTIONS] -a          every process with probes\n"
	"       fsp-bpf list [-p PID] [--map NAME]   probe maps, a process's probes\n"
	"       fsp-bpf report [OPTIONS] FILE        render a saved profile\n"
	"       fsp-bpf merge -o OUT FILE FILE...    sum profiles of several runs\n"
	"       fsp-bpf diff [OPTIONS] BASE NEW      compare two profiles\n"
	"(fsp-bpf SUBCOMMAND --help for each; run a program called record, report, "
	"merge, diff or list with fsp-bpf -- NAME ...)"
	"\v"
	"EXAMPLES:\n"
	"  sudo fsp-bpf -p 1234                  profile a running process until Ctrl-C\n"
	"  sudo fsp-bpf -p 1234,1240 -d 30       two processes for 30 seconds\n"
	"  sudo fsp-bpf -F 4999 -- ./app --flag  launch ./app, sample at 4999 Hz\n"
	"  sudo fsp-bpf record -o prof.json -p 1234\n"
	"                                        also save the profile to prof.json\n"
	"  sudo fsp-bpf --by thread -p 1234      one section per thread\n"
	"  sudo fsp-bpf --min-pct 0 -p 1234      show every feature and instance\n"
	"  sudo fsp-bpf --off-cpu -p 1234        also charge blocked time to features\n"
	"  sudo fsp-bpf --comm worker -p 1234    report only the processes named worker\n"
	"  sudo fsp-bpf --interval 2 -p 1234     a live view, re-rendered every 2 s\n"
	"  sudo fsp-bpf --map postgresql -p $(pgrep -f 'postgres: .* idle' | head -1)\n"
	"                                        PostgreSQL's query phases as features\n"
	"  sudo fsp-bpf --map python --feature gc,import -- python3 app.py\n"
	"                                        CPython's collections and imports\n"
	"  sudo fsp-bpf --map auto -p 1234       the shipped maps that fit the process\n"
	"  sudo fsp-bpf -a --map postgresql -d 30 --by process\n"
	"                                        every PostgreSQL process, new ones too\n"
	"  sudo fsp-bpf -a --comm worker         every process named worker with probes\n\n"
	"The session ends on Ctrl-C or SIGTERM, after -d seconds, or when every target "
	"has exited; the report is printed in every case. Needs root.";

static const char report_doc[] =
	"Renders a profile saved by fsp-bpf record -o (or merged by fsp-bpf merge).\n\n"
	"USAGE: fsp-bpf report [OPTIONS] FILE"
	"\v"
	"EXAMPLES:\n"
	"  fsp-bpf report prof.json                      the text report\n"
	"  fsp-bpf report --by thread --order name prof.json\n"
	"  fsp-bpf report --feature output --min-pct 0 prof.json\n"
	"                                                every instance of one feature\n"
	"  fsp-bpf report --feature output,parse prof.json   two features\n"
	"  fsp-bpf report --comm nginx --by process prof.json\n"
	"                                                only the processes named nginx\n"
	"  fsp-bpf report --pid 1234,7 prof.json         host or in-container PIDs\n"
	"  fsp-bpf report --format folded prof.json | flamegraph.pl > fg.svg\n"
	"  fsp-bpf report --format pprof -o prof.pb.gz prof.json\n"
	"  go tool pprof -top prof.pb.gz\n\n"
	"Needs no privileges. Output formats: docs/output-formats.md; the file format: "
	"docs/profile-format.md.";

static const char merge_doc[] =
	"Sums profiles of the same program (several runs, several hosts) into one, "
	"keeping each source's metadata and diagnostics. The profiles must have been "
	"sampled at the same frequency.\n\n"
	"USAGE: fsp-bpf merge -o OUT FILE FILE..."
	"\v"
	"EXAMPLES:\n"
	"  fsp-bpf merge -o all.json host1.json host2.json host3.json\n"
	"  fsp-bpf report --by process all.json";

static const char diff_doc[] =
	"Compares two profiles per feature and per instance: time and share in each, "
	"the change, sorted by the size of the change; new and vanished instances are "
	"marked. With --scale K the NEW run had K times the input of BASE: each "
	"feature's time is predicted to grow linearly (K x its BASE time) and rows are "
	"sorted by how far NEW deviates from that prediction.\n\n"
	"USAGE: fsp-bpf diff [OPTIONS] BASE NEW"
	"\v"
	"EXAMPLES:\n"
	"  fsp-bpf diff before.json after.json\n"
	"  fsp-bpf diff --scale 4 n1000.json n4000.json   where growth is not linear\n"
	"  fsp-bpf diff --format json before.json after.json\n\n"
	"The layout and the scale model: docs/diff-format.md.";

enum {
	OPT_JSON = 0x100,
	OPT_MIN_PCT,
	OPT_MAX_DEPTH,
	OPT_MAX_STACKS,
	OPT_NO_FOLLOW,
	OPT_FORMAT,
	OPT_BY,
	OPT_ORDER,
	OPT_FEATURE,
	OPT_SCALE,
	OPT_OFFCPU,
	OPT_NO_EVENTS,
	OPT_MAX_EVENTS,
	OPT_INTERVAL,
	OPT_VALUE,
	OPT_COMM,
	OPT_VIEW_PID,
	OPT_MAP,
};

static const struct argp_option record_options[] = {
	{"pid", 'p', "PID[,PID...]", 0, "Profile these running processes", 0},
	{"all-processes", 'a', NULL, 0,
	 "System-wide: every process whose executable or libraries carry fsp probes (or "
	 "the --map providers), also those started during the session; --comm restricts it",
	 0},
	{"map", OPT_MAP, "NAME|FILE[,...]", 0,
	 "Also profile an existing USDT provider's probes as features, by a probe map "
	 "(shipped: fsp-bpf list; or a file, docs/probe-maps.md); auto: the shipped maps "
	 "whose provider the target carries. --feature selects the map's features",
	 0},
	{"frequency", 'F', "HZ", 0, "Samples per second on each CPU (default 999, 1-100000)", 0},
	{"duration", 'd', "SECONDS", 0,
	 "Stop after this many seconds (default: until Ctrl-C or "
	 "the targets exit)",
	 0},
	{"output", 'o', "FILE", 0,
	 "Save the profile to FILE (docs/profile-format.md; - for stdout, which then "
	 "replaces the report)",
	 0},
	{"json", OPT_JSON, "FILE", 0, "Same as -o FILE", 0},
	{"max-depth", OPT_MAX_DEPTH, "N", 0,
	 "Deepest mark stack tracked per thread (default and "
	 "maximum 64); deeper enters are counted as overflows",
	 0},
	{"max-stacks", OPT_MAX_STACKS, "N", 0,
	 "Distinct mark stacks kept (default 8192); more "
	 "are reported as unknown stacks",
	 0},
	{"no-follow-forks", OPT_NO_FOLLOW, NULL, 0, "Do not profile processes the targets fork", 0},
	{"off-cpu", OPT_OFFCPU, NULL, 0,
	 "Also charge the time threads spend blocked or waiting for a CPU inside features "
	 "(sched_switch)",
	 0},
	{"no-events", OPT_NO_EVENTS, NULL, 0,
	 "Do not count enters and leaves (the event view: calls, ms/call, max, latency "
	 "histograms)",
	 0},
	{"max-events", OPT_MAX_EVENTS, "N", 0,
	 "Distinct (process, feature, instance) the event view counts (default 16384)", 0},
	{"interval", OPT_INTERVAL, "SECONDS", 0,
	 "Re-render the report every SECONDS while profiling (a live view on a terminal)", 0},
	{"verbose", 'v', NULL, 0, "Print libbpf's messages and what was attached", 0},
	{},
};

static const struct argp_option view_options[] = {
	{"format", OPT_FORMAT, "FMT", 0,
	 "text (default), json (the profile file), folded (flame graph stacks), "
	 "pprof (gzipped profile.proto; binary: redirect it or use -o)",
	 1},
	{"by", OPT_BY, "WHAT", 0, "feature (default), thread or process", 1},
	{"order", OPT_ORDER, "KEY", 0, "cost (default), samples or name", 1},
	{"min-pct", OPT_MIN_PCT, "PCT", 0,
	 "Fold features and instances under PCT% of running "
	 "time (default 0.5; 0 shows all)",
	 1},
	{"feature", OPT_FEATURE, "NAME[,...]", 0,
	 "Show only these features and their instances (a list; repeatable)", 1},
	{"comm", OPT_COMM, "NAME[,...]", 0,
	 "Show only the processes of these names (their main thread's comm; repeatable): "
	 "times and shares are then theirs alone",
	 1},
	{"value", OPT_VALUE, "WHAT", 0,
	 "What folded lines count: samples (default), offcpu (ns) or wall (ns, on + off CPU)", 1},
	{},
};

/* View options of report only: record's -p/--pid names its targets. */
static const struct argp_option report_view_options[] = {
	{"pid", OPT_VIEW_PID, "PID[,...]", 0,
	 "Show only these processes, by host PID or PID in their own namespace (repeatable; "
	 "with --comm, those matching both)",
	 1},
	{},
};

static const struct argp_option report_options[] = {
	{"output", 'o', "FILE", 0, "Write to FILE instead of stdout (atomically)", 0},
	{},
};

static const struct argp_option merge_options[] = {
	{"output", 'o', "FILE", 0, "The merged profile (required; - for stdout)", 0},
	{},
};

static const struct argp_option diff_options[] = {
	{"scale", OPT_SCALE, "K", 0,
	 "NEW ran on K times BASE's input: compare NEW with linear growth (K > 0)", 0},
	{"format", OPT_FORMAT, "FMT", 0, "text (default) or json", 0},
	{"min-pct", OPT_MIN_PCT, "PCT", 0,
	 "Fold rows whose shares and change are all under PCT% (default 0.5; 0 shows all)", 0},
	{"output", 'o', "FILE", 0, "Write to FILE instead of stdout (atomically)", 0},
	{},
};

static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static void parse_pids(struct argp_state *state, struct fsp_options *o, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;

	if (!copy)
		argp_failure(state, 1, ENOMEM, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t pid;

		if (parse_u64(tok, 1, 4194304, &pid))
			argp_error(state,
				   "invalid PID '%s': expected a process id (a positive integer)",
				   tok);
		if (o->nr_pids == FSP_MAX_PIDS)
			argp_error(state, "too many PIDs: at most %d", FSP_MAX_PIDS);
		o->pids[o->nr_pids++] = pid;
	}
	free(copy);
	if (!o->nr_pids)
		argp_error(state, "-p needs at least one PID");
}

/* A list option (--feature, --comm, --pid): a repeated option adds to it. */
static void add_list(struct argp_state *state, const char **list, const char *arg)
{
	char *joined;

	if (!*list) {
		*list = arg;
		return;
	}
	if (asprintf(&joined, "%s,%s", *list, arg) < 0)
		argp_failure(state, 1, ENOMEM, "out of memory");
	*list = joined; /* lives as long as the options */
}

static void parse_format(struct argp_state *state, struct fsp_options *o, const char *arg)
{
	static const char *const names[] = {
		[FSP_FMT_TEXT] = "text",
		[FSP_FMT_JSON] = "json",
		[FSP_FMT_FOLDED] = "folded",
		[FSP_FMT_PPROF] = "pprof",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(arg, names[i]))
			continue;
		if (o->command == FSP_CMD_DIFF && i != FSP_FMT_TEXT && i != FSP_FMT_JSON)
			break;
		o->view.format = i;
		return;
	}
	if (o->command == FSP_CMD_DIFF)
		argp_error(state, "invalid --format '%s' for diff: expected text or json", arg);
	argp_error(state, "invalid --format '%s': expected text, json, folded or pprof", arg);
}

static void check_end(struct argp_state *state, const struct fsp_options *o)
{
	switch (o->command) {
	case FSP_CMD_RECORD:
		if (!o->cmd && !o->nr_pids && !o->session.system_wide)
			argp_error(state,
				   "nothing to profile: give -p PID, a command to run, or -a");
		if (!!o->cmd + !!o->nr_pids + o->session.system_wide > 1)
			argp_error(state, "give one of -p PID, a command or -a, not several");
		if (o->session.interval_s > 0 && o->out_path && !strcmp(o->out_path, "-"))
			argp_error(state, "--interval prints reports to stdout: save the profile "
					  "with -o FILE, not -o -");
		break;
	case FSP_CMD_REPORT:
		if (o->nr_inputs != 1)
			argp_error(state, "report needs exactly one profile file (got %d)",
				   o->nr_inputs);
		break;
	case FSP_CMD_MERGE:
		if (!o->out_path)
			argp_error(state, "merge needs -o OUT, the file to write");
		if (o->nr_inputs < 1)
			argp_error(state, "merge needs the profile files to merge");
		break;
	case FSP_CMD_DIFF:
		if (o->nr_inputs != 2)
			argp_error(state, "diff needs two profile files, BASE and NEW (got %d)",
				   o->nr_inputs);
		break;
	case FSP_CMD_LIST:
		if (o->nr_inputs)
			argp_error(state, "list takes no operands (got '%s'): -p PID or --map NAME",
				   o->inputs[0]);
		if (o->nr_pids && o->probemaps)
			argp_error(state, "give -p PID or --map NAME, not both");
		break;
	}
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct fsp_options *o = state->input;
	uint64_t u;

	switch (key) {
	case ARGP_KEY_INIT:
		/* record and report have the report options as a child parser */
		if (o->command == FSP_CMD_RECORD || o->command == FSP_CMD_REPORT)
			state->child_inputs[0] = o;
		break;
	case 'p':
		parse_pids(state, o, arg);
		break;
	case 'a':
		o->session.system_wide = true;
		break;
	case OPT_MAP:
		if (!*arg)
			argp_error(state, "--map needs a map name, a file, or auto");
		add_list(state, &o->probemaps, arg);
		break;
	case 'F':
		if (parse_u64(arg, 1, 100000, &o->session.frequency_hz))
			argp_error(state,
				   "invalid frequency '%s': expected an integer from 1 to 100000 "
				   "(Hz)",
				   arg);
		break;
	case 'd':
		if (parse_double(arg, 0.001, 31536000, &o->session.duration_s))
			argp_error(state,
				   "invalid duration '%s': expected seconds, a number greater "
				   "than 0 (e.g. 10 or 0.5)",
				   arg);
		break;
	case 'o':
	case OPT_JSON:
		if (!*arg)
			argp_error(state, "%s needs a file name (or - for stdout)",
				   key == 'o' ? "-o" : "--json");
		o->out_path = arg;
		break;
	case OPT_FORMAT:
		parse_format(state, o, arg);
		break;
	case OPT_BY:
		if (report_by__parse(arg, &o->view.ropts.by))
			argp_error(state, "invalid --by '%s': expected feature, thread or process",
				   arg);
		break;
	case OPT_ORDER:
		if (report_order__parse(arg, &o->view.ropts.order))
			argp_error(state, "invalid --order '%s': expected cost, samples or name",
				   arg);
		break;
	case OPT_VALUE:
		if (report_value__parse(arg, &o->view.ropts.folded_value))
			argp_error(state, "invalid --value '%s': expected samples, offcpu or wall",
				   arg);
		break;
	case OPT_FEATURE:
		if (!arg[strspn(arg, ",")])
			argp_error(state, "--feature needs a feature name");
		add_list(state, &o->view.ropts.feature, arg);
		break;
	case OPT_COMM:
		if (!arg[strspn(arg, ",")])
			argp_error(state, "--comm needs a process name");
		add_list(state, &o->view.ropts.comm, arg);
		break;
	case OPT_VIEW_PID:
		if (report_pids__parse(arg, NULL, 0) < 0)
			argp_error(state,
				   "invalid --pid '%s': expected process ids (1 to %d) separated "
				   "by commas",
				   arg, REPORT_PID_MAX);
		add_list(state, &o->view.ropts.pid, arg);
		break;
	case OPT_SCALE:
		if (parse_double(arg, 1e-9, 1e12, &o->scale))
			argp_error(state,
				   "invalid --scale '%s': expected a positive number, the ratio "
				   "of NEW's input size to BASE's",
				   arg);
		break;
	case OPT_MIN_PCT:
		if (parse_double(arg, 0, 100, &o->view.ropts.min_pct))
			argp_error(state,
				   "invalid --min-pct '%s': expected a percentage from 0 to 100",
				   arg);
		break;
	case OPT_MAX_DEPTH:
		if (parse_u64(arg, 1, FSP_MAX_DEPTH, &u))
			argp_error(state, "invalid --max-depth '%s': expected 1 to %d", arg,
				   FSP_MAX_DEPTH);
		o->session.max_depth = u;
		break;
	case OPT_MAX_STACKS:
		if (parse_u64(arg, 16, 1 << 20, &u))
			argp_error(state, "invalid --max-stacks '%s': expected 16 to %d", arg,
				   1 << 20);
		o->session.max_stacks = u;
		break;
	case OPT_NO_FOLLOW:
		o->session.follow_forks = false;
		break;
	case OPT_OFFCPU:
		o->session.offcpu = true;
		break;
	case OPT_NO_EVENTS:
		o->session.events = false;
		break;
	case OPT_MAX_EVENTS:
		if (parse_u64(arg, 16, 1 << 20, &u))
			argp_error(state, "invalid --max-events '%s': expected 16 to %d", arg,
				   1 << 20);
		o->session.max_events = u;
		break;
	case OPT_INTERVAL:
		if (parse_double(arg, 0.1, 86400, &o->session.interval_s))
			argp_error(state,
				   "invalid --interval '%s': expected seconds, at least 0.1 "
				   "(e.g. 1 or 2.5)",
				   arg);
		break;
	case 'v':
		o->verbose = true;
		break;
	case ARGP_KEY_ARG:
		if (o->command != FSP_CMD_RECORD) {
			/* Operands are files, options may follow them. */
			if (o->nr_inputs == FSP_MAX_INPUTS)
				argp_error(state, "too many files: at most %d", FSP_MAX_INPUTS);
			o->inputs[o->nr_inputs++] = arg;
			break;
		}
		/* The first operand starts the command; the rest are its arguments. */
		o->cmd = &state->argv[state->next - 1];
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		check_end(state, o);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The report options, a child parser of record and report: only its own keys
 * (ARGP_KEY_END and the others are the parent's). */
static error_t parse_view_opt(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case OPT_FORMAT:
	case OPT_BY:
	case OPT_ORDER:
	case OPT_MIN_PCT:
	case OPT_FEATURE:
	case OPT_COMM:
	case OPT_VALUE:
	case OPT_VIEW_PID:
		return parse_opt(key, arg, state);
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp view_argp = {view_options, parse_view_opt, NULL, NULL, NULL, NULL, NULL};

static const struct argp_child view_children[] = {
	{&view_argp, 0, "Report options:", 1},
	{},
};

/* report's view options: record's and its own (--pid), one group. */
static error_t parse_report_view_opt(int key, char *arg, struct argp_state *state)
{
	if (key == ARGP_KEY_INIT) {
		state->child_inputs[0] = state->input;
		return 0;
	}
	return parse_view_opt(key, arg, state);
}

static const struct argp_child report_view_grandchildren[] = {
	{&view_argp, 0, NULL, 0},
	{},
};

static const struct argp report_view_argp = {
	report_view_options,
	parse_report_view_opt,
	NULL,
	NULL,
	report_view_grandchildren,
	NULL,
	NULL,
};

static const struct argp_child report_view_children[] = {
	{&report_view_argp, 0, "Report options:", 1},
	{},
};

static const char list_doc[] =
	"Lists the shipped probe maps and their features; with -p, the USDT providers "
	"and probes a process's executable and libraries carry, and which maps apply; "
	"with --map, one map (a file's path checks it).\n\n"
	"USAGE: fsp-bpf list [-p PID | --map NAME|FILE]"
	"\v"
	"EXAMPLES:\n"
	"  fsp-bpf list                          the shipped maps\n"
	"  sudo fsp-bpf list -p 1234             what process 1234 carries\n"
	"  fsp-bpf list --map ./my.map           check a map file you wrote";

static const struct argp_option list_options[] = {
	{"pid", 'p', "PID[,PID...]", 0, "Show the probes these processes carry", 0},
	{"map", OPT_MAP, "NAME|FILE", 0, "Show one map (a file: check it)", 0},
	{},
};

static const struct {
	const char *name;
	enum fsp_command command;
	struct argp argp;
} commands[] = {
	{"record",
	 FSP_CMD_RECORD,
	 {record_options, parse_opt, "[--] CMD [ARGS...]", record_doc, view_children, NULL, NULL}},
	{"report",
	 FSP_CMD_REPORT,
	 {report_options, parse_opt, "FILE", report_doc, report_view_children, NULL, NULL}},
	{"merge",
	 FSP_CMD_MERGE,
	 {merge_options, parse_opt, "FILE FILE...", merge_doc, NULL, NULL, NULL}},
	{"diff", FSP_CMD_DIFF, {diff_options, parse_opt, "BASE NEW", diff_doc, NULL, NULL, NULL}},
	{"list", FSP_CMD_LIST, {list_options, parse_opt, NULL, list_doc, NULL, NULL, NULL}},
};

void options__parse(int argc, char **argv, struct fsp_options *opts)
{
	const struct argp *argp = &commands[0].argp;
	static char name[64];

	*opts = fsp_default_options;
	/* fsp-bpf SUBCOMMAND ...: parse the rest as if "fsp-bpf SUBCOMMAND" were
	 * the program, so usage lines and errors name it. */
	for (size_t i = 0; argc > 1 && i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		opts->command = commands[i].command;
		argp = &commands[i].argp;
		snprintf(name, sizeof(name), "fsp-bpf %s", commands[i].name);
		argv[1] = name;
		argc--;
		argv++;
		break;
	}
	argp_parse(argp, argc, argv, ARGP_IN_ORDER, NULL, opts);
}
