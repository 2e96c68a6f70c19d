// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Parsing the command line (options.h). fsp-bpf SUBCOMMAND ... is parsed as
 * if "fsp-bpf SUBCOMMAND" were the program, so usage lines and errors name
 * it. argp does not exit here (ARGP_NO_EXIT, and --help, --usage and
 * --version are handled below, ARGP_NO_HELP): the caller decides.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "callsel.h"
#include "commands.h"
#include "funcfeat.h"
#include "options.h"
#include "plugin.h"
#include "profiler.h"
#include "report_html.h"

/* The end of the parse after --help, --usage or --version: exit 0. */
#define PARSE_DONE ECANCELED

static const struct fsp_options default_options = {
	.session =
		{
			.frequency_hz = FSP_DEFAULT_FREQUENCY_HZ,
			.max_depth = FSP_MAX_DEPTH,
			.max_stacks = FSP_DEFAULT_MAX_STACKS,
			.follow_forks = true,
			.events = true,
			.max_events = FSP_DEFAULT_MAX_EVENTS,
			.stack_size = FSP_NATIVE_DEFAULT_STACK,
		},
	.view = {.format = &fsp_formats[0], /* text */
		 .ropts = {.min_pct = FSP_DEFAULT_MIN_PCT,
			   .top_functions = FSP_DEFAULT_TOP_FUNCTIONS}},
	.scale = 1,
	.file_mode = -1,
};

int options__error(struct argp_state *state, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	argp_error(state, "%s", msg);
	return EINVAL;
}

static int out_of_memory(struct argp_state *state)
{
	argp_failure(state, 1, ENOMEM, "out of memory");
	return ENOMEM;
}

int options__u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
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

int options__double(const char *s, double min, double max, double *out)
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

/* The FORMAT_ flag of the subcommand being parsed: which formats it takes. */
static unsigned int takers(const struct fsp_options *o)
{
	return o && o->command ? o->command->formats : 0;
}

/* --format html needs the page built into fsp-bpf (html_assets.c); a build
 * without npm has none: a usage error that says how to get it. */
static int html_page_check(struct argp_state *state)
{
	size_t len = 0;

	if (report_html__page(&len) && len)
		return 0;
	return options__error(state, "--format html: this fsp-bpf was built without the HTML "
				     "page (npm or its registry was missing); install Node.js and "
				     "npm (sudo scripts/install-deps.sh html) and run make again, "
				     "or use another --format");
}

int options__format(struct argp_state *state, struct fsp_options *o, const char *arg)
{
	const struct fsp_format *f = format__find(arg);
	bool all = true;
	char names[256];

	if (f && format__takes(f, takers(o))) {
		o->view.format = f;
		return f == FSP_FMT_HTML ? html_page_check(state) : 0;
	}
	/* A subcommand that takes some formats only says so (a name may be
	 * another subcommand's format). */
	for (size_t i = 0; i < fsp_nr_formats; i++)
		all &= format__takes(&fsp_formats[i], takers(o));
	format__list(names, sizeof(names), format__takes, takers(o), FORMAT_NAME, " or ");
	return options__error(state, "invalid --format '%s'%s%s: expected %s", arg,
			      all ? "" : " for ", all ? "" : o->command->name, names);
}

char *options__format_help(int key, const char *text, void *input)
{
	unsigned int t = takers(input);
	char list[1024], *s;

	if (key != OPT_FORMAT || !t)
		return (char *)text;
	/* diff's options say "a, b or c" */
	if (t == FORMAT_DIFF)
		format__list(list, sizeof(list), format__takes, t, FORMAT_DIFF_DOC, " or ");
	else
		format__list(list, sizeof(list), format__takes, t, FORMAT_DOC, ", ");
	s = strdup(list);
	return s ? s : (char *)text;
}

/* Adds pid to o->pids unless it is there already (a PID named twice is one
 * target). */
static int add_pid(struct argp_state *state, struct fsp_options *o, pid_t pid)
{
	for (int i = 0; i < o->nr_pids; i++)
		if (o->pids[i] == pid)
			return 0;
	if (o->nr_pids == FSP_MAX_PIDS)
		return options__error(state, "too many PIDs: at most %d", FSP_MAX_PIDS);
	o->pids[o->nr_pids++] = pid;
	return 0;
}

int options__pids(struct argp_state *state, struct fsp_options *o, const char *arg)
{
	const char *tok = arg;
	int err = 0;

	if (!*arg)
		return options__error(state, "-p needs at least one PID");
	while (tok && !err) {
		const char *comma = strchr(tok, ',');
		size_t len = comma ? (size_t)(comma - tok) : strlen(tok);
		char num[16];
		uint64_t pid;

		/* "1,,2", ",1", "1,": an empty element is a mistake, not nothing */
		if (!len)
			return options__error(state,
					      "invalid PID list '%s': an empty element (PIDs are "
					      "separated by single commas)",
					      arg);
		snprintf(num, sizeof(num), "%.*s", (int)len, tok);
		if (len >= sizeof(num) || options__u64(num, 1, 4194304, &pid))
			return options__error(
				state,
				"invalid PID '%.*s': expected a process id (a positive integer)",
				(int)len, tok);
		err = add_pid(state, o, (pid_t)pid);
		tok = comma ? comma + 1 : NULL;
	}
	return err;
}

int options__add_list(struct argp_state *state, struct fsp_options *o, enum fsp_list list,
		      const char *arg)
{
	const char **lists[FSP_LIST__COUNT] = {
		[FSP_LIST_PROBEMAPS] = &o->probemaps,
		[FSP_LIST_FEATURES] = &o->view.ropts.feature,
		[FSP_LIST_COMMS] = &o->view.ropts.comm,
		[FSP_LIST_PIDS] = &o->view.ropts.pid,
		[FSP_LIST_PLUGINS] = &o->view.plugins,
	};
	const char **value = lists[list];
	char *joined;

	if (!*value) {
		*value = arg;
		return 0;
	}
	if (asprintf(&joined, "%s,%s", *value, arg) < 0)
		return out_of_memory(state);
	free(o->joined[list]); /* the list joined so far, if any */
	o->joined[list] = joined;
	*value = joined;
	return 0;
}

int options__probemaps(struct argp_state *state, struct fsp_options *o, const char *arg)
{
	if (!*arg)
		return options__error(state, "--map needs a map name, a file, or auto");
	return options__add_list(state, o, FSP_LIST_PROBEMAPS, arg);
}

int options__calls_selector(struct argp_state *state, struct fsp_options *o, const char *arg)
{
	struct callsel sel;
	char why[512];

	if (callsel__parse(arg, &sel, why, sizeof(why)))
		return options__error(state, "invalid --calls: %s", why);
	o->calls_selector = arg;
	return 0;
}

int options__function_feature(struct argp_state *state, struct fsp_options *o, const char *arg)
{
	char err[512];

	if (!o->funcfeat)
		o->funcfeat = funcfeat__new();
	if (!o->funcfeat)
		return options__error(state, "out of memory");
	if (funcfeat__parse_option(o->funcfeat, arg, err, sizeof(err)))
		return options__error(state, "%s", err);
	return 0;
}

int options__output(struct argp_state *state, struct fsp_options *o, const char *option,
		    const char *arg)
{
	if (!*arg)
		return options__error(state, "%s needs a file name (or - for stdout)", option);
	if (!strcmp(option, "--json"))
		o->profile_path = arg;
	else
		o->out_path = arg;
	return 0;
}

int options__file_mode(struct argp_state *state, struct fsp_options *o, const char *arg)
{
	size_t n = strspn(arg, "01234567");
	unsigned long mode;

	if (!n || arg[n] || n > 4 || (mode = strtoul(arg, NULL, 8)) > 0777)
		return options__error(state,
				      "invalid --file-mode '%s': expected octal permissions from 0 "
				      "to 777 (e.g. 600 or 644)",
				      arg);
	o->file_mode = (int)mode;
	return 0;
}

int options__min_pct(struct argp_state *state, struct fsp_options *o, const char *arg)
{
	if (options__double(arg, 0, 100, &o->view.ropts.min_pct))
		return options__error(
			state, "invalid --min-pct '%s': expected a percentage from 0 to 100", arg);
	return 0;
}

int options__source_dir(struct argp_state *state, struct fsp_options *o, const char *arg)
{
	if (!*arg)
		return options__error(state, "--source-dir needs a directory");
	if (o->view.nr_source_dirs == FSP_MAX_SOURCE_DIRS)
		return options__error(state, "too many --source-dir: at most %d",
				      FSP_MAX_SOURCE_DIRS);
	o->view.source_dirs[o->view.nr_source_dirs++] = arg;
	return 0;
}

int options__input(struct argp_state *state, struct fsp_options *o, const char *arg)
{
	/* Operands are files, options may follow them. */
	if (o->nr_inputs == FSP_MAX_INPUTS)
		return options__error(state, "too many files: at most %d", FSP_MAX_INPUTS);
	o->inputs[o->nr_inputs++] = arg;
	return 0;
}

/* ---- the report options, shared by record and report ---- */

static const struct argp_option view_options[] = {
	{"format", OPT_FORMAT, "FMT", 0, "The formats (formats.c)", 1},
	{"by", OPT_BY, "WHAT", 0, "feature (default), thread or process", 1},
	{"order", OPT_ORDER, "KEY", 0, "cost (default), samples or name", 1},
	{"min-pct", OPT_MIN_PCT, "PCT", 0,
	 "Fold features and instances under PCT% of running "
	 "time (default " FSP_STR(FSP_DEFAULT_MIN_PCT) "; 0 shows all)",
	 1},
	{"feature", OPT_FEATURE, "NAME[,...]", 0,
	 "Show only these features and their instances (a list; repeatable)", 1},
	{"comm", OPT_COMM, "NAME[,...]", 0,
	 "Show only the processes of these names (their main thread's comm; repeatable): "
	 "times and shares are then theirs alone",
	 1},
	{"function", OPT_FUNCTION, "NAME", 0,
	 "Text, with native stacks (record --stacks): the callers and callees of function NAME "
	 "in each feature (a call graph entry), instead of the hottest functions",
	 1},
	{"top-functions", OPT_TOP_FUNCTIONS, "N", 0,
	 "Text, with native stacks: list the N hottest functions of each feature and instance "
	 "(default " FSP_STR(FSP_DEFAULT_TOP_FUNCTIONS) ")",
	 1},
	{"value", OPT_VALUE, "WHAT", 0,
	 "What folded lines count: samples (default), offcpu (ns) or wall (ns, on + off CPU)", 1},
	{"source-dir", OPT_SOURCE_DIR, "DIR", 0,
	 "HTML: look for the source files of FILE:LINE instances in DIR first (repeatable)", 1},
	{"plugin", OPT_PLUGIN, "NAME[=FEATURE][,...]", 0,
	 "Analysis plug-ins whose sections the report adds (text, json) or whose graph it draws "
	 "(dot): built-in (fsp-bpf list --plugins) or a shared object's path (./libx.so, "
	 "refused if others could change it); =FEATURE: read that feature (repeatable)",
	 1},
	{},
};

/* At the end of the parse: the format has what it needs, the plug-ins are
 * loaded. */
static int view_end(struct argp_state *state, struct fsp_options *o)
{
	const struct fsp_format *f = o->view.format;
	char msg[1024], refused[256];

	if (f->plugins == FORMAT_PLUGINS_GRAPH && !o->view.plugins)
		return options__error(state,
				      "--format %s draws the graph of a plug-in: name it with "
				      "--plugin (boundary or tasks)",
				      f->name);
	if (o->view.ropts.function && !f->function) {
		format__list(msg, sizeof(msg), format__has_function, 0, FORMAT_NAME, " or ");
		return options__error(state,
				      "--function shows a call graph in the text report: use it "
				      "with --format %s",
				      msg);
	}
	if (o->view.plugins && f->plugins == FORMAT_PLUGINS_REFUSED) {
		format__list(msg, sizeof(msg), format__plugins_in,
			     1u << FORMAT_PLUGINS_OWN | 1u << FORMAT_PLUGINS_GRAPH, FORMAT_NAME,
			     " or ");
		format__list(refused, sizeof(refused), format__plugins_in,
			     1u << FORMAT_PLUGINS_REFUSED, FORMAT_NAME, " or ");
		return options__error(state, "--plugin output is in --format %s, not %s", msg,
				      refused);
	}
	if (!o->view.plugins)
		return 0;
	if (plugin_set__new(o->view.plugins, &o->view.pset, msg, sizeof(msg)))
		return options__error(state, "%s", msg);
	if (!o->view.pset)
		return options__error(state, "--plugin needs a plug-in name");
	if (f->plugins == FORMAT_PLUGINS_GRAPH && plugin_set__nr_dot(o->view.pset) != 1)
		return options__error(state,
				      "--format %s draws the graph of one plug-in: %zu of those "
				      "given draw one (fsp-bpf list --plugins)",
				      f->name, plugin_set__nr_dot(o->view.pset));
	return 0;
}

static error_t parse_view(int key, char *arg, struct argp_state *state)
{
	struct fsp_options *o = state->input;
	struct report_opts *r = &o->view.ropts;

	switch (key) {
	case OPT_FORMAT:
		return options__format(state, o, arg);
	case OPT_BY:
		if (report_by__parse(arg, &r->by))
			return options__error(
				state, "invalid --by '%s': expected feature, thread or process",
				arg);
		return 0;
	case OPT_ORDER:
		if (report_order__parse(arg, &r->order))
			return options__error(
				state, "invalid --order '%s': expected cost, samples or name", arg);
		return 0;
	case OPT_VALUE:
		if (report_value__parse(arg, &r->folded_value))
			return options__error(
				state, "invalid --value '%s': expected samples, offcpu or wall",
				arg);
		return 0;
	case OPT_MIN_PCT:
		return options__min_pct(state, o, arg);
	case OPT_SOURCE_DIR:
		return options__source_dir(state, o, arg);
	case OPT_FEATURE:
		if (!arg[strspn(arg, ",")])
			return options__error(state, "--feature needs a feature name");
		return options__add_list(state, o, FSP_LIST_FEATURES, arg);
	case OPT_FUNCTION:
		if (!*arg)
			return options__error(state, "--function needs a function name");
		r->function = arg;
		return 0;
	case OPT_TOP_FUNCTIONS: {
		uint64_t n;

		if (options__u64(arg, 1, FSP_MAX_TOP_FUNCTIONS, &n))
			return options__error(state,
					      "invalid --top-functions '%s': expected a number "
					      "from 1 to %d",
					      arg, FSP_MAX_TOP_FUNCTIONS);
		r->top_functions = (size_t)n;
		return 0;
	}
	case OPT_COMM:
		if (!arg[strspn(arg, ",")])
			return options__error(state, "--comm needs a process name");
		return options__add_list(state, o, FSP_LIST_COMMS, arg);
	case OPT_PLUGIN:
		if (!arg[strspn(arg, ",")])
			return options__error(state, "--plugin needs a plug-in name");
		return options__add_list(state, o, FSP_LIST_PLUGINS, arg);
	case ARGP_KEY_END:
		return view_end(state, o);
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp options_view_argp = {
	view_options, parse_view, NULL, NULL, NULL, options__format_help, NULL,
};

/* ---- --help, --usage and --version: argp's own, without its exit ---- */

/* -h as well as argp's -?, in every subcommand (no subcommand takes -h
 * for anything else). */
static const struct argp_option help_options[] = {
	{"help", 'h', NULL, 0, "Give this help list", -1},
	{NULL, '?', NULL, OPTION_ALIAS, NULL, 0},
	{"usage", OPT_USAGE, NULL, 0, "Give a short usage message", 0},
	{},
};

static const struct argp_option version_options[] = {
	{"version", 'V', NULL, 0, "Print program version", -1},
	{},
};

static error_t parse_help(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	switch (key) {
	case 'h':
	case '?':
		argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP);
		return PARSE_DONE;
	case OPT_USAGE:
		argp_state_help(state, state->out_stream, ARGP_HELP_USAGE);
		return PARSE_DONE;
	case 'V':
		fprintf(state->out_stream, "fsp-bpf %s\n", FSP_VERSION);
		return PARSE_DONE;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp help_argp = {help_options, parse_help, NULL, NULL, NULL, NULL, NULL};
static const struct argp version_argp = {version_options, parse_help, NULL, NULL, NULL, NULL, NULL};

/* The subcommand named by argv[1], else record (the first), which then
 * parses argv[1] on. */
static const struct fsp_command *find_command(int argc, char **argv)
{
	for (size_t i = 0; argc > 1 && i < fsp_nr_commands; i++)
		if (!strcmp(argv[1], fsp_commands[i]->name))
			return fsp_commands[i];
	return NULL;
}

bool options__parse(int argc, char **argv, struct fsp_options *o, int *status)
{
	const struct fsp_command *cmd = find_command(argc, argv);
	/* As argp does when it adds its own --help and --version: a parser-less
	 * top whose first child, the subcommand, gets the input (o). */
	struct argp_child children[] = {
		{(cmd ? cmd : fsp_commands[0])->argp, 0, NULL, 0},
		{&help_argp, 0, NULL, 0},
		{&version_argp, 0, NULL, 0},
		{},
	};
	struct argp top = {NULL, NULL, NULL, NULL, children, NULL, NULL};
	int skip = cmd ? 1 : 0, err;

	*o = default_options;
	o->command = cmd ? cmd : fsp_commands[0];
	/* A copy of argv without the subcommand, "fsp-bpf SUBCOMMAND" its
	 * program name: the caller's argv stays as it is. */
	o->argv = calloc(argc + 1, sizeof(*o->argv));
	if (!o->argv) {
		fprintf(stderr, "fsp-bpf: out of memory\n");
		*status = 1;
		return false;
	}
	o->argv[0] = argv[0];
	if (cmd) {
		snprintf(o->prog_name, sizeof(o->prog_name), "fsp-bpf %s", cmd->name);
		o->argv[0] = o->prog_name;
	}
	for (int i = 1 + skip; i < argc; i++)
		o->argv[i - skip] = argv[i];
	err = argp_parse(&top, argc - skip, o->argv, ARGP_IN_ORDER | ARGP_NO_EXIT | ARGP_NO_HELP,
			 NULL, o);
	if (!err)
		return true;
	*status = err == PARSE_DONE ? 0 : err == ENOMEM ? 1 : argp_err_exit_status;
	return false;
}

void options__free(struct fsp_options *o)
{
	plugin_set__free(o->view.pset);
	o->view.pset = NULL;
	free(o->argv);
	o->argv = NULL;
	funcfeat__free(o->funcfeat);
	o->funcfeat = NULL;
	for (int i = 0; i < FSP_LIST__COUNT; i++) {
		free(o->joined[i]);
		o->joined[i] = NULL;
	}
}
