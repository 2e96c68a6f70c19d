// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fsp-bpf record's command line: its --help text, options, their parsing and
 * the checks of their combinations (argp). The command itself: cmd_record.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/types.h>

#include "agent.h"
#include "caps.h"
#include "commands.h"
#include "funcfeat.h"
#include "launch.h"
#include "log.h"
#include "probemap_resolve.h"
#include "record_targets.h"
#include "profile_file.h"
#include "profiler.h"
#include "profile.h"
#include "profile_io.h"
#include "calls.h"
#include "record_calls.h"
#include "record_signals.h"
#include "record_targets.h"
#include "render.h"
#include "report.h"
#include "session.h"
#include "record_options.h"

/* Where the profile file goes (NULL: it is not saved): -o with the formats
 * whose -o is the profile (formats.h), else --json. */
const char *record_profile_dest(const struct fsp_options *o)
{
	if (o->view.format->record_out == FORMAT_OUT_PROFILE && o->out_path)
		return o->out_path;
	return o->profile_path;
}

/* ---- the command line ---- */

static const char record_doc[] =
	"fsp-bpf -- a feature-specific profiler.\n\n"
	"Charges CPU time to the features that libraries mark with fsp USDT probes "
	"(<fsp/fsp.h>) and to their instances, by sampling every thread's mark stack.\n\n"
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
	"  sudo fsp-bpf --wait-probes=60 -p 1234\n"
	"                                        a process whose probes come with a\n"
	"                                        plug-in it loads later (within 60 s)\n"
	"  sudo fsp-bpf -o prof.json --file-mode 644 -p 1234\n"
	"                                        a profile all may read (default 600)\n"
	"  sudo fsp-bpf -F 4999 -- ./app --flag  launch ./app, sample at 4999 Hz\n"
	"  sudo fsp-bpf record -o prof.json -p 1234\n"
	"                                        also save the profile to prof.json\n"
	"  sudo fsp-bpf --format pprof -o prof.pb.gz --json prof.json -- ./app\n"
	"                                        pprof to prof.pb.gz, and the profile\n"
	"                                        to prof.json (report renders it later)\n"
	"  sudo fsp-bpf --by thread -p 1234      one section per thread\n"
	"  sudo fsp-bpf --min-pct 0 -p 1234      show every feature and instance\n"
	"  sudo fsp-bpf --off-cpu -p 1234        also charge blocked time to features\n"
	"  sudo fsp-bpf --events=plan -p 1234   exact call counts of one feature only\n"
	"  sudo fsp-bpf --stacks -o prof.json -p 1234\n"
	"                                        native call stacks inside each feature\n"
	"  sudo fsp-bpf --stacks=all --stack-size 16384 -- ./app\n"
	"                                        with kernel stacks, deeper user stacks\n"
	"  sudo fsp-bpf --function-feature out=libc.so.6:fputs,fwrite -- ./app\n"
	"                                        every call of fputs or fwrite, no trap\n"
	"  sudo fsp-bpf --comm worker -p 1234    report only the processes named worker\n"
	"  sudo fsp-bpf --interval 2 -p 1234     a live view, re-rendered every 2 s\n"
	"  sudo fsp-bpf --map postgresql -p $(pgrep -f 'postgres: .* idle' | head -1)\n"
	"                                        PostgreSQL's query phases as features\n"
	"  sudo fsp-bpf --map python --feature gc,import -- python3 app.py\n"
	"                                        CPython's collections and imports\n"
	"  sudo fsp-bpf --map auto -p 1234       the shipped maps that fit the process\n"
	"  sudo fsp-bpf -a --map postgresql -d 30 --by process\n"
	"                                        every PostgreSQL process, new ones too\n"
	"  sudo fsp-bpf -a --comm worker         every process named worker with probes\n"
	"  sudo fsp-bpf -a --listen 9464         an agent (docs/fleet.md): Prometheus\n"
	"                                        scrapes 127.0.0.1:9464/metrics, pprof\n"
	"                                        clients /debug/pprof/profile\n"
	"  sudo fsp-bpf --plugin tasks -- ./app  and the tasks plug-in's tree of tasks\n\n"
	"The session ends on Ctrl-C or SIGTERM, after -d seconds, or when every target "
	"has exited; the report is printed in every case. -o is checked before profiling "
	"starts; if the save still fails at the end (a full disk), the profile is kept in "
	"$TMPDIR, /var/tmp or /tmp and the message says where. Profile files are created "
	"0600 (they hold strings read from the target), under sudo owned by the invoking "
	"user; -o refuses a path another user could have redirected (their link, FIFO or "
	"file where others can write). Needs root, or CAP_BPF and CAP_PERFMON (and "
	"CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH for other users' processes: README, "
	"\"Capabilities\").\n\n"
	"Manuals: man fsp-bpf, man fsp-bpf-SUBCOMMAND, man fsp.h; guides: README.md and "
	"docs/ of the source tree.";

/* clang-format off */
#define FREQUENCY_DOC                                                                      \
	"Samples per second on each CPU (default " FSP_STR(FSP_DEFAULT_FREQUENCY_HZ)       \
	", 1-100000; above " FSP_STR(FSP_HIGH_FREQUENCY_HZ) " the samples slow the target " \
	"markedly, and it says so)"
/* clang-format on */

/* clang-format off */
#define STACK_SIZE_DOC                                                                      \
	"With --stacks: bytes of user stack copied with each sample (default "               \
	FSP_STR(FSP_NATIVE_DEFAULT_STACK) ", a multiple of 8 from "                          \
	FSP_STR(FSP_NATIVE_MIN_STACK) " to " FSP_STR(FSP_NATIVE_MAX_STACK) "); deeper "      \
	"stacks are cut (flagged truncated) where the copy ends"
/* clang-format on */

static const struct argp_option record_options[] = {
	{"pid", 'p', "PID[,PID...]", 0, "Profile these running processes", 0},
	{"wait-probes", OPT_WAIT_PROBES, "SECONDS", OPTION_ARG_OPTIONAL,
	 "With -p: accept a process that has no probes yet (a plug-in it loads later carries "
	 "them) and attach them when they come, sampling meanwhile; with =SECONDS, give up "
	 "with an error if none has come by then. Without it such a process is refused",
	 0},
	{"all-processes", 'a', NULL, 0,
	 "System-wide: every process whose executable or libraries carry fsp probes (or "
	 "the --map providers), or with function features map a file of theirs (at most 256 "
	 "of those without probes, the first found), also those started or dlopen()ing them "
	 "during the session; --comm restricts it. Exited processes leave the kernel maps; "
	 "after the first 1000, each is folded into an earlier one of the same name",
	 0},
	OPTIONS_FUNCTION_FEATURE,
	{"map", OPT_MAP, "NAME|FILE[,...]", 0,
	 "Also profile an existing USDT provider's probes as features, by a probe map "
	 "(shipped: fsp-bpf list; or a file, docs/probe-maps.md); auto: the shipped maps "
	 "whose provider the target carries (NAME-sampled rather than NAME, unless --events). "
	 "--feature selects the map's features",
	 0},
	{"frequency", 'F', "HZ", 0, FREQUENCY_DOC, 0},
	{"duration", 'd', "SECONDS", 0,
	 "Stop after this many seconds (default: until Ctrl-C or "
	 "the targets exit)",
	 0},
	{"output", 'o', "FILE", 0,
	 "Write --format's output to FILE, as report -o does: with --format folded, pprof, "
	 "html or dot their output (the text report then goes to stdout); with the text "
	 "report (the default, for the terminal) or json, the profile (docs/profile-format.md; "
	 "- for stdout, which then replaces the report)",
	 0},
	{"json", OPT_JSON, "FILE", 0,
	 "Save the profile to FILE whatever --format is: the profile and a rendering from "
	 "one session (--format pprof -o prof.pb.gz --json prof.json)",
	 0},
	OPTIONS_FILE_MODE,
	{"max-depth", OPT_MAX_DEPTH, "N", 0,
	 "Deepest mark stack tracked per thread (default and "
	 "maximum " FSP_STR(FSP_MAX_DEPTH) "); deeper enters are counted as overflows",
	 0},
	{"max-stacks", OPT_MAX_STACKS, "N", 0,
	 "Distinct mark stacks kept (default " FSP_STR(
		 FSP_DEFAULT_MAX_STACKS) "); more "
					 "are reported as unknown stacks",
	 0},
	{"no-follow-forks", OPT_NO_FOLLOW, NULL, 0, "Do not profile processes the targets fork", 0},
	{"inherit-marks", OPT_INHERIT_MARKS, NULL, 0,
	 "A forked child runs inside the marks its parent had open at the fork, charged to "
	 "them until it leaves them (default: a child starts outside its parent's features)",
	 0},
	{"off-cpu", OPT_OFFCPU, NULL, 0,
	 "Also charge the time threads spend blocked or waiting for a CPU inside features "
	 "(sched_switch)",
	 0},
	{"calls", OPT_CALLS, "SELECTOR", OPTION_ARG_OPTIONAL,
	 "Also join every sample to the call of each feature it charges (the slow-call view): "
	 "after the report, each feature's calls and the longest of them; with SELECTOR (as "
	 "report --calls, e.g. --calls='request>=50ms'), the view of the selected calls "
	 "instead (docs/calls.md)",
	 0},
	{"calls-keep", OPT_CALLS_KEEP, "N", 0,
	 "With --calls (implied): per feature instance, keep the N slowest calls and a "
	 "uniform sample of N of its other calls (default " FSP_STR(
		 CALLS_KEEP_DEFAULT) "); the others are dropped and counted, each sampled call "
				     "standing for several",
	 0},
	{"stacks", OPT_STACKS, "user|kernel|all", OPTION_ARG_OPTIONAL,
	 "Also record the native call stack of every on-CPU sample (default: user): unwound "
	 "from DWARF CFI over a copy of the top of the user stack, or by frame pointers, and "
	 "symbolized at the end (README: what it costs). Off by default",
	 0},
	{"stack-size", OPT_STACK_SIZE, "BYTES", 0, STACK_SIZE_DOC, 0},
	{"events", OPT_EVENTS, "FEATURE[,...]", OPTION_ARG_OPTIONAL,
	 "Exact enter and leave counts for probe ABI v2 marks too: each of them then traps "
	 "into the kernel (about 1 us) instead of costing a few ns, which inflates short "
	 "calls (the report says when). =FEATURE,... (up to " FSP_STR(
		 FSP_MAX_EVENT_FEATURES) "): only these features' marks trap and are "
					 "counted. ABI v1 marks are always counted, unless "
					 "--no-events. Function features named in =FEATURE,... "
					 "(only those): a uprobe at the entry and one at the "
					 "return of each of their functions count their calls "
					 "exactly, two traps per call",
	 0},
	{"no-events", OPT_NO_EVENTS, NULL, 0,
	 "Do not count enters and leaves (the event view: calls, ms/call, max, latency "
	 "histograms)",
	 0},
	{"max-events", OPT_MAX_EVENTS, "N", 0,
	 "Distinct (process, feature, instance) the event view counts (default " FSP_STR(
		 FSP_DEFAULT_MAX_EVENTS) ")",
	 0},
	{"interval", OPT_INTERVAL, "SECONDS", 0,
	 "Re-render the report every SECONDS while profiling (a live view on a terminal)", 0},
	{"verbose", 'v', NULL, 0,
	 "Say what it does while it starts and ends, with times (the BPF "
	 "programs' load, the sampler, each target's probes, the detach); libbpf's messages",
	 0},
	{},
};

/* --events=FEATURE,...: names, none empty, at most FSP_MAX_EVENT_FEATURES. */
static error_t parse_event_features(struct argp_state *state, struct fsp_options *o,
				    const char *arg)
{
	unsigned int n = 0;

	for (const char *p = arg;; p++) {
		size_t len = strcspn(p, ",");

		if (!len)
			return options__error(state,
					      "invalid --events '%s': an empty feature name; give "
					      "FEATURE[,FEATURE...]",
					      arg);
		if (++n > FSP_MAX_EVENT_FEATURES)
			return options__error(state,
					      "invalid --events '%s': at most %d features; leave "
					      "out =FEATURE,... to count them all",
					      arg, FSP_MAX_EVENT_FEATURES);
		p += len;
		if (!*p)
			break;
	}
	o->session.event_features = arg;
	return 0;
}

/* The options that take a number. */
static error_t parse_record_number(int key, char *arg, struct argp_state *state)
{
	struct session_opts *so = &((struct fsp_options *)state->input)->session;
	uint64_t u;

	switch (key) {
	case 'F':
		if (options__u64(arg, 1, 100000, &so->frequency_hz))
			return options__error(
				state,
				"invalid frequency '%s': expected an integer from 1 to "
				"100000 (Hz)",
				arg);
		return 0;
	case 'd':
		if (options__double(arg, 0.001, 31536000, &so->duration_s))
			return options__error(state,
					      "invalid duration '%s': expected seconds, a number "
					      "greater than 0 (e.g. 10 or 0.5)",
					      arg);
		return 0;
	case OPT_MAX_DEPTH:
		if (options__u64(arg, 1, FSP_MAX_DEPTH, &u))
			return options__error(state, "invalid --max-depth '%s': expected 1 to %d",
					      arg, FSP_MAX_DEPTH);
		so->max_depth = u;
		return 0;
	case OPT_MAX_STACKS:
		if (options__u64(arg, 16, 1 << 20, &u))
			return options__error(state, "invalid --max-stacks '%s': expected 16 to %d",
					      arg, 1 << 20);
		so->max_stacks = u;
		return 0;
	case OPT_MAX_EVENTS:
		if (options__u64(arg, 16, 1 << 20, &u))
			return options__error(state, "invalid --max-events '%s': expected 16 to %d",
					      arg, 1 << 20);
		so->max_events = u;
		return 0;
	case OPT_CALLS_KEEP:
		if (options__u64(arg, 1, 1 << 20, &u))
			return options__error(state, "invalid --calls-keep '%s': expected 1 to %d",
					      arg, 1 << 20);
		so->calls = true;
		so->calls_keep = (uint32_t)u;
		return 0;
	case OPT_STACK_SIZE:
		if (options__u64(arg, FSP_NATIVE_MIN_STACK, FSP_NATIVE_MAX_STACK, &u) || u % 8)
			return options__error(state,
					      "invalid --stack-size '%s': expected a multiple of 8 "
					      "from %d to %d (bytes)",
					      arg, FSP_NATIVE_MIN_STACK, FSP_NATIVE_MAX_STACK);
		so->stack_size = u;
		((struct fsp_options *)state->input)->stack_size_set = true;
		return 0;
	case OPT_WAIT_PROBES:
		((struct fsp_options *)state->input)->wait_probes = true;
		if (arg && options__double(arg, 0.001, 31536000, &so->probe_timeout_s))
			return options__error(state,
					      "invalid --wait-probes '%s': expected seconds, a "
					      "number greater than 0 (e.g. 30)",
					      arg);
		return 0;
	case OPT_INTERVAL:
		if (options__double(arg, 0.1, 86400, &so->interval_s))
			return options__error(
				state,
				"invalid --interval '%s': expected seconds, at least 0.1 "
				"(e.g. 1 or 2.5)",
				arg);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

/* --stacks[=user|kernel|all] */
static error_t parse_stacks(struct argp_state *state, struct fsp_options *o, const char *arg)
{
	if (!arg || !strcmp(arg, "user"))
		o->session.stacks = SESSION_STACKS_USER;
	else if (!strcmp(arg, "kernel"))
		o->session.stacks = SESSION_STACKS_KERNEL;
	else if (!strcmp(arg, "all"))
		o->session.stacks = SESSION_STACKS_USER | SESSION_STACKS_KERNEL;
	else
		return options__error(state,
				      "invalid --stacks '%s': expected user, kernel or all "
				      "(--stacks alone: user)",
				      arg);
	return 0;
}

/* -o and --json: one file each, at most one thing on stdout. */
static error_t check_record_outputs(struct argp_state *state, const struct fsp_options *o)
{
	const char *save = record_profile_dest(o);
	bool rendering = o->view.format->record_out == FORMAT_OUT_RENDERING;
	char names[256];

	format__list(names, sizeof(names), format__record_renders, 0, FORMAT_NAME, " or ");
	if (o->out_path && o->profile_path && !rendering)
		return options__error(state,
				      "-o and --json both save the profile with --format %s: give "
				      "one of them (-o is the rendering's file with --format %s)",
				      o->view.format->name, names);
	if (save && !strcmp(save, "-") && rendering && (!o->out_path || !strcmp(o->out_path, "-")))
		return options__error(state,
				      "--json - and the %s output would both go to stdout: write "
				      "one of them to a file (-o FILE or --json FILE)",
				      o->view.format->name);
	if (o->session.interval_s > 0 && save && !strcmp(save, "-"))
		return options__error(state, "--interval prints reports to stdout: save the "
					     "profile with -o FILE, not -o -");
	return 0;
}

static error_t check_record(struct argp_state *state, const struct fsp_options *o)
{
	if (!o->cmd && !o->nr_pids && !o->session.system_wide)
		return options__error(state,
				      "nothing to profile: give -p PID, a command to run, or -a");
	if (!!o->cmd + !!o->nr_pids + o->session.system_wide > 1)
		return options__error(state, "give one of -p PID, a command or -a, not several");
	if (o->session.v2_events && !o->session.events)
		return options__error(state, "--events and --no-events contradict each other: "
					     "give one of them");
	if (o->session.interval_s > 0 && !format__takes(o->view.format, FORMAT_INTERVAL))
		return options__error(state,
				      "--interval re-renders a report on the terminal: not with "
				      "--format %s",
				      o->view.format->name);
	if (o->stack_size_set && !(o->session.stacks & SESSION_STACKS_USER) && !o->funcfeat)
		return options__error(state, "--stack-size sizes the user stacks of --stacks "
					     "(or --stacks=user, --stacks=all): give one of them");
	if (o->wait_probes && !o->nr_pids)
		return options__error(state, "--wait-probes goes with -p PID (a command's and -a's "
					     "probes are attached whenever they come)");
	return check_record_outputs(state, o);
}

static error_t parse_record(int key, char *arg, struct argp_state *state)
{
	struct fsp_options *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = o; /* the report options */
		state->child_inputs[1] = &o->agent;
		return 0;
	case 'p':
		return options__pids(state, o, arg);
	case 'a':
		o->session.system_wide = true;
		return 0;
	case OPT_MAP:
		return options__probemaps(state, o, arg);
	case OPT_FUNCTION_FEATURE:
		return options__function_feature(state, o, arg);
	case 'o':
	case OPT_JSON:
		return options__output(state, o, key == 'o' ? "-o" : "--json", arg);
	case OPT_FILE_MODE:
		return options__file_mode(state, o, arg);
	case OPT_NO_FOLLOW:
		o->session.follow_forks = false;
		return 0;
	case OPT_INHERIT_MARKS:
		o->session.inherit_marks = true;
		return 0;
	case OPT_OFFCPU:
		o->session.offcpu = true;
		return 0;
	case OPT_CALLS:
		o->session.calls = true;
		return arg ? options__calls_selector(state, o, arg) : 0;
	case OPT_STACKS:
		return parse_stacks(state, o, arg);
	case OPT_NO_EVENTS:
		o->session.events = false;
		return 0;
	case OPT_EVENTS:
		o->session.v2_events = true;
		return arg ? parse_event_features(state, o, arg) : 0;
	case 'v':
		o->verbose = true;
		return 0;
	case ARGP_KEY_ARG:
		/* The first operand starts the command; the rest are its arguments. */
		o->cmd = &state->argv[state->next - 1];
		state->next = state->argc;
		return 0;
	case ARGP_KEY_END:
		return check_record(state, o);
	default:
		return parse_record_number(key, arg, state);
	}
}

static const struct argp_child record_children[] = {
	{&options_view_argp, 0, "Report options:", 1},
	{&agent_argp, 0, "Agent options (docs/fleet.md):", 2},
	{},
};

const struct argp record_argp = {
	record_options, parse_record, "[--] CMD [ARGS...]", record_doc, record_children, NULL, NULL,
};
