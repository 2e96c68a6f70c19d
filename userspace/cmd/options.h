/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The command line of fsp-bpf: struct fsp_options, which every subcommand's
 * argp parser fills, the defaults (in one place, options.c), and the parts
 * the subcommands share: number and list parsing, the report options (a
 * child parser of record and report), their errors. Each subcommand's own
 * options and parser live in its file (cmd_record.c, cmd_report.c, ...).
 */
#ifndef FSP_OPTIONS_H
#define FSP_OPTIONS_H

#include <argp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent.h"
#include "formats.h"
#include "report.h"
#include "session.h"

#define FSP_MAX_PIDS 256
#define FSP_MAX_INPUTS 1024
#define FSP_DEFAULT_FREQUENCY_HZ 999
/* Above it record says what sampling costs the target (cmd_record.c). */
#define FSP_HIGH_FREQUENCY_HZ 10000
#define FSP_DEFAULT_MIN_PCT 0.5
/* The hottest functions of each feature and instance (native stacks). */
#define FSP_DEFAULT_TOP_FUNCTIONS REPORT_DEFAULT_TOP_FUNCTIONS
#define FSP_MAX_TOP_FUNCTIONS 100000
#define FSP_MAX_SOURCE_DIRS 16

/* A macro's value as a string literal, for --help texts. */
#define FSP_STR(x) FSP_STR_(x)
#define FSP_STR_(x) #x

struct fsp_command;

struct plugin_set;
struct funcfeat;

/* How a profile is rendered: shared by record (live) and report (saved). */
struct fsp_view {
	const struct fsp_format *format; /* its row of fsp_formats (formats.h) */
	/* min_pct, by, order, feature, comm, pid, function, top_functions */
	struct report_opts ropts;
	/* --source-dir: where the HTML report's source view finds files */
	const char *source_dirs[FSP_MAX_SOURCE_DIRS];
	size_t nr_source_dirs;
	const char *plugins; /* --plugin NAME[=FEATURE][,...], NULL: none */
	struct plugin_set *pset; /* the plug-ins it names, loaded by the parser (owned) */
	/* the HTML page's first call selection (report --calls SEL --format
	 * html), NULL: none */
	const char *call_selection;
};

/* The lists a repeated option adds to (--map, --feature, --comm, --pid,
 * --plugin). */
enum fsp_list {
	FSP_LIST_PROBEMAPS,
	FSP_LIST_FEATURES,
	FSP_LIST_COMMS,
	FSP_LIST_PIDS,
	FSP_LIST_PLUGINS,
	FSP_LIST__COUNT,
};

struct fsp_options {
	const struct fsp_command *command; /* the subcommand to run */
	/* report --calls SELECTOR (callsel.h), NULL: none */
	const char *calls_selector;
	/* record: -p PID (list: too), -- CMD or -a (session.system_wide) */
	pid_t pids[FSP_MAX_PIDS];
	int nr_pids;
	char **cmd; /* NULL-terminated argv of -- CMD, or NULL */
	/* record: -F, -d, --max-depth, --max-stacks, --no-follow-forks,
	 * --no-events, --off-cpu, --max-events, --interval, -a, --stacks,
	 * --stack-size */
	struct session_opts session;
	/* record --listen and the agent's options (agent.h) */
	struct agent_opts agent;
	/* record -p --wait-probes[=S]: accept processes without probes yet
	 * (session.probe_timeout_s: S, 0 without) */
	bool wait_probes;
	bool stack_size_set; /* --stack-size was given */
	bool verbose;
	/* record, list, report: probe maps (--map NAME|FILE[,...] or auto) */
	const char *probemaps;
	/* record, report: --function-feature NAME=FILE:PATTERN,... (funcfeat.h);
	 * NULL: none given */
	struct funcfeat *funcfeat;
	bool list_plugins; /* list --plugins */
	/* -o: the output of --format (report, diff, record; record with text,
	 * the default, whose report is for the terminal: the profile file, as
	 * with json); merge: the merge */
	const char *out_path;
	/* record --json FILE: the profile file, whatever --format (a rendering
	 * to -o and the profile from one session) */
	const char *profile_path;
	/* --file-mode: permissions of new output files, -1: private (outfile.h) */
	int file_mode;
	struct fsp_view view;
	/* report FILE, merge FILE..., diff BASE NEW */
	const char *inputs[FSP_MAX_INPUTS];
	int nr_inputs;
	double scale; /* diff --scale */
	/* report --binaries DIR, --debug-dirs DIR[:DIR...]: symbolize the native
	 * stacks' locations again, here (symbolize.h); NULL: not */
	const char *binaries_dir;
	const char *debug_dirs;
	/* Owned: the argv the subcommand parsed (cmd points into it), its
	 * program name ("fsp-bpf report") and the joined lists. */
	char **argv;
	char prog_name[64];
	char *joined[FSP_LIST__COUNT];
};

/*
 * Parses argv into o (the defaults first): the subcommand argv[1] names
 * (one of fsp_commands; else record, whose options then start at argv[1])
 * and its options. Returns true when o->command should run; false when the
 * parse ended the program: exit with *status, 0 after --help, --usage or
 * --version, argp_err_exit_status (64) after a usage error and 1 out of
 * memory, with the message printed. Either way, free o with options__free.
 */
bool options__parse(int argc, char **argv, struct fsp_options *o, int *status);
void options__free(struct fsp_options *o);

/* ---- for the subcommands' parsers (their input is the fsp_options) ---- */

/* Option keys without a short option, unique across the subcommands. */
enum {
	OPT_JSON = 0x100,
	OPT_MIN_PCT,
	OPT_MAX_DEPTH,
	OPT_MAX_STACKS,
	OPT_NO_FOLLOW,
	OPT_INHERIT_MARKS,
	OPT_FORMAT,
	OPT_BY,
	OPT_ORDER,
	OPT_FEATURE,
	OPT_SCALE,
	OPT_OFFCPU,
	OPT_CALLS,
	OPT_CALLS_KEEP,
	OPT_NO_EVENTS,
	OPT_EVENTS,
	OPT_MAX_EVENTS,
	OPT_INTERVAL,
	OPT_VALUE,
	OPT_COMM,
	OPT_VIEW_PID,
	OPT_MAP,
	OPT_USAGE,
	OPT_SOURCE_DIR,
	OPT_FILE_MODE,
	OPT_WAIT_PROBES,
	OPT_PLUGIN,
	OPT_PLUGINS,
	OPT_STACKS,
	OPT_STACK_SIZE,
	OPT_FUNCTION,
	OPT_TOP_FUNCTIONS,
	OPT_FUNCTION_FEATURE,
};

/* The report options (--format, --by, --order, --min-pct, --feature, --comm,
 * --value, --source-dir, --plugin): a child of record's and report's parsers.
 * It loads the plug-ins at the end of the parse (view.pset). */
extern const struct argp options_view_argp;

/* Prints a usage error (argp_error: "PROG: message", then where to find
 * help) and returns the error that ends the parse. */
int options__error(struct argp_state *state, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Strict numbers: decimal digits only (no sign, no blank), within [min, max].
 * 0 or -EINVAL. */
int options__u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* A finite number within [min, max], nothing after it. 0 or -EINVAL. */
int options__double(const char *s, double min, double max, double *out);
/* --format NAME: one of the formats o->command takes (formats.h), into
 * o->view.format. */
int options__format(struct argp_state *state, struct fsp_options *o, const char *arg);
/* argp's help_filter of a parser with --format: the list of the formats its
 * subcommand takes, from the table (the option's doc is a placeholder). */
char *options__format_help(int key, const char *text, void *input);

/* -p PID[,PID...] into o->pids. */
int options__pids(struct argp_state *state, struct fsp_options *o, const char *arg);
/* --map NAME|FILE[,...] into o->probemaps. */
int options__probemaps(struct argp_state *state, struct fsp_options *o, const char *arg);
/* --function-feature NAME=FILE:PATTERN[,...][@{global:VAR}] into o->funcfeat. */
int options__function_feature(struct argp_state *state, struct fsp_options *o, const char *arg);
/* --calls SELECTOR (record's and report's): checked, kept in o->calls_selector. */
int options__calls_selector(struct argp_state *state, struct fsp_options *o, const char *arg);
/* The --function-feature entry of record's and report's option tables. */
#define OPTIONS_FUNCTION_FEATURE                                                                   \
	{                                                                                          \
		"function-feature", OPT_FUNCTION_FEATURE,                                          \
			"NAME=FILE:FUNC[,FUNC...][@{global:VAR}]", 0,                              \
			"A feature fn:NAME of every call of these functions of FILE (its base "    \
			"name in /proc/PID/maps, e.g. libc.so.6; FUNC a name or fnmatch glob), "   \
			"found on the native stacks at no cost per call; the instance is the "     \
			"call site, or with @{global:VAR} the string the char * variable VAR "     \
			"points to when each sample is taken (repeatable; record: implies "        \
			"--stacks; docs/function-features.md)",                                    \
			0                                                                          \
	}
/* -o FILE, or record's --json FILE (option: "--json": into o->profile_path). */
int options__output(struct argp_state *state, struct fsp_options *o, const char *option,
		    const char *arg);
/* --file-mode MODE (octal permissions) into o->file_mode. */
int options__file_mode(struct argp_state *state, struct fsp_options *o, const char *arg);
/* The --file-mode entry of an option table (each subcommand that writes -o). */
#define OPTIONS_FILE_MODE                                                                          \
	{                                                                                          \
		"file-mode", OPT_FILE_MODE, "MODE", 0,                                             \
			"Permissions of a new output file, in octal (default 600: only you can "   \
			"read it; "                                                                \
			"644 lets everyone); a replaced file keeps its own",                       \
			0                                                                          \
	}
/* --min-pct PCT into o->view.ropts.min_pct. */
int options__min_pct(struct argp_state *state, struct fsp_options *o, const char *arg);
/* --source-dir DIR (repeatable) into o->view.source_dirs. */
int options__source_dir(struct argp_state *state, struct fsp_options *o, const char *arg);
/* A file operand (report, merge, diff; list, to say it takes none). */
int options__input(struct argp_state *state, struct fsp_options *o, const char *arg);
/* A repeatable list option: a repetition adds to the list. */
int options__add_list(struct argp_state *state, struct fsp_options *o, enum fsp_list list,
		      const char *arg);

#endif /* FSP_OPTIONS_H */
