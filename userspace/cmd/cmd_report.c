// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fsp-bpf report: renders a saved profile; its options. Needs no privileges
 * and no BPF. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "calls_view.h"
#include "commands.h"
#include "funcfeat.h"
#include "log.h"
#include "native.h"
#include "probemap.h"
#include "probemap_dir.h"
#include "profile_file.h"
#include "render.h"
#include "symbolize.h"

/* Modules named in the warning about modules not symbolized; the rest counted. */
#define REPORT_MISSING_NAMED 8

/* Says which modules kept their recorded symbols (or module+offset) and why. */
static void warn_missing(const struct symbolizer *s, const struct profile *p,
			 const struct fsp_options *o)
{
	size_t n = symbolizer__missing_modules(s);

	if (!n)
		return;
	log__info("warning: %zu module%s not symbolized again%s%s: their frames keep the "
		  "names they were recorded with, or show as module+offset:",
		  n, n == 1 ? "" : "s", o->binaries_dir ? " from --binaries " : "",
		  o->binaries_dir ? o->binaries_dir : "");
	for (size_t i = 0; i < n && i < REPORT_MISSING_NAMED; i++) {
		struct profile_module m;
		const char *why = "";
		size_t idx;

		if (symbolizer__missing_module(s, i, &idx, &why) || profile__module(p, idx, &m))
			continue;
		log__info("  %s%s%s: %s", m.path, m.build_id ? " build-id " : "",
			  m.build_id ? m.build_id : "", why);
	}
	if (n > REPORT_MISSING_NAMED)
		log__info("  ... and %zu more", n - REPORT_MISSING_NAMED);
}

/* report --binaries / --debug-dirs: every location symbolized again from the
 * files found here (names may differ from the recording host's). */
static int report_symbolize(struct profile *p, const struct fsp_options *o)
{
	struct symbolizer_opts so = {.debug_dirs = o->debug_dirs, .binaries_dir = o->binaries_dir};
	struct symbolizer *s;
	int n;

	if (!profile__nr_locations(p)) {
		log__info("%s: no native stacks to symbolize (recorded without --stacks)",
			  o->inputs[0]);
		return 0;
	}
	s = symbolizer__new(&so);
	if (!s) {
		log__err("cannot symbolize: %s", strerror(errno));
		return -errno;
	}
	n = symbolizer__profile(s, p, 1);
	if (n < 0)
		log__err("cannot symbolize %s: %s", o->inputs[0], strerror(-n));
	else
		log__verbose("%d of %zu locations symbolized again", n, profile__nr_locations(p));
	if (n >= 0)
		warn_missing(s, p, o);
	symbolizer__free(s);
	return n < 0 ? n : 0;
}

/* report --map NAME|FILE[,...]: the maps' function features (their features
 * of probes were recorded, or not, by record --map) and --function-feature's,
 * into *out. 0 or -errno, said. */
static int report_rules(const struct fsp_options *o, struct funcfeat **out)
{
	char *list = o->probemaps ? strdup(o->probemaps) : NULL, *tok, *save = NULL;
	char path[PATH_MAX], msg[512];
	struct probemap *m = NULL;
	int err = 0, n;

	*out = funcfeat__new();
	if (!*out || (o->probemaps && !list)) {
		free(list);
		return -ENOMEM;
	}
	for (tok = list ? strtok_r(list, ",", &save) : NULL; tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		err = probemap_dir__find(tok, path, sizeof(path));
		if (err) {
			log__err("--map %s: %s", tok, strerror(-err));
			break;
		}
		err = probemap__load(path, &m, msg, sizeof(msg));
		n = err ? 0 : probemap__function_rules(m, NULL, *out, msg, sizeof(msg));
		if (err || n < 0) {
			log__err("%s", msg);
			err = err ? err : -EINVAL;
		} else if (!n) {
			log__err("--map %s: the map has no function features to charge from the "
				 "native "
				 "stacks (its features of probes are charged when recorded: record "
				 "--map)",
				 tok);
			err = -EINVAL;
		}
		probemap__free(m);
		m = NULL;
	}
	free(list);
	if (!err)
		err = funcfeat__merge(*out, o->funcfeat);
	return err;
}

static int report_run(const struct fsp_options *o, const char *cmdline)
{
	struct profile *p = profile_file__load(o->inputs[0]);
	struct funcfeat *rules = NULL;
	int err = 0;

	(void)cmdline;
	if (!p)
		return -EINVAL;
	if (o->binaries_dir || o->debug_dirs)
		err = report_symbolize(p, o);
	if (!err)
		err = report_rules(o, &rules);
	if (!err)
		err = profile_file__apply_rules(p, rules);
	funcfeat__free(rules);
	if (!err && o->calls_selector) {
		struct callsel sel;

		err = callsel__parse(o->calls_selector, &sel, NULL, 0);
		if (!err)
			err = calls_view__render(p, &sel, &o->view, o->out_path);
	} else if (!err) {
		err = render__profile(p, &o->view, o->out_path);
	}
	profile__free(p);
	return err;
}

/* ---- the command line ---- */

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
	"  fsp-bpf report --format html -o prof.html prof.json   a page for a browser\n"
	"  go tool pprof -top prof.pb.gz\n"
	"  fsp-bpf report --plugin tasks prof.json       with a plug-in's section\n"
	"  fsp-bpf report --plugin boundary --format dot prof.json | dot -Tsvg > b.svg\n"
	"  fsp-bpf report --plugin ./libmine.so=feat prof.json\n"
	"                                                a plug-in shared object\n"
	"  fsp-bpf report --calls 'request>=50ms' prof.json\n"
	"                                                what the slow calls do more\n"
	"                                                (recorded with --calls)\n"
	"  fsp-bpf report --calls 'request p99' --format folded prof.json\n"
	"  fsp-bpf report --binaries ./bin prof.json     native stacks symbolized from\n"
	"                                                the binaries copied into ./bin\n"
	"  fsp-bpf report --function-feature out=libc.so.6:fputs prof.json\n"
	"                                                calls of fputs as a feature\n"
	"  fsp-bpf report --map my.map prof.json        a map's function features\n\n"
	"Needs no privileges. Output formats: docs/output-formats.md; the file format: "
	"docs/profile-format.md; plug-ins: docs/plugins.md (fsp-bpf list --plugins).";

/* Keys of report's own options (apart from options.h's: no other parser has them). */
enum {
	OPT_BINARIES = 0x300,
	OPT_DEBUG_DIRS,
	OPT_REPORT_CALLS,
};

static const struct argp_option report_options[] = {
	{"output", 'o', "FILE", 0, "Write to FILE instead of stdout (atomically)", 0},
	OPTIONS_FILE_MODE,
	{"binaries", OPT_BINARIES, "DIR", 0,
	 "Symbolize the native stacks (record --stacks) again from the binaries in DIR, found by "
	 "build-id (DIR/.build-id/xx/rest) or file name, used only when their build-id is the "
	 "recorded one; then the recorded paths. Separate debug files are also looked for in DIR "
	 "by build-id",
	 0},
	{"calls", OPT_REPORT_CALLS, "SELECTOR", 0,
	 "The slow-call view of a profile recorded with --calls: the report of the calls "
	 "SELECTOR selects (FEATURE[:INSTANCE] then >=DURATION, >, <=, <, two of them for a "
	 "range, or ' pNN', e.g. request>=50ms, request>=2ms<5ms, 'request:/api/search p99'), "
	 "of the feature's other calls, and what the selected do more, largest differences "
	 "first; other formats render the selected calls alone; the HTML page of a profile "
	 "with calls selects them on a histogram itself (docs/calls.md)",
	 0},
	{"debug-dirs", OPT_DEBUG_DIRS, "DIR[:DIR...]", 0,
	 "Symbolize the native stacks again, with separate debug files from these directories "
	 "(DIR/.build-id/xx/rest.debug, or by .gnu_debuglink; default /usr/lib/debug)",
	 0},
	OPTIONS_FUNCTION_FEATURE,
	{"map", OPT_MAP, "NAME|FILE[,...]", 0,
	 "Charge the function features of these probe maps (shipped: fsp-bpf list; or a file) "
	 "from the native stacks of a profile recorded with --stacks, beside those it was "
	 "recorded with",
	 0},
	{},
};

/* --binaries DIR, --debug-dirs DIR[:DIR]: each a directory. */
static int parse_dir(struct argp_state *state, const char *option, const char *arg,
		     const char **out)
{
	struct stat st;
	char dir[4096];
	size_t len;

	for (const char *p = arg; *p;) {
		len = strcspn(p, ":");
		if (len && len < sizeof(dir)) {
			memcpy(dir, p, len);
			dir[len] = '\0';
			if (stat(dir, &st) || !S_ISDIR(st.st_mode))
				return options__error(state, "%s: '%s' is not a directory", option,
						      dir);
		}
		p += len + (p[len] == ':');
	}
	if (!*arg)
		return options__error(state, "%s needs a directory", option);
	*out = arg;
	return 0;
}

/* View options of report only: record's -p/--pid names its targets. */
static const struct argp_option report_view_options[] = {
	{"pid", OPT_VIEW_PID, "PID[,...]", 0,
	 "Show only these processes, by host PID or PID in their own namespace (repeatable; "
	 "with --comm, those matching both)",
	 1},
	{},
};

/* report's --pid, with the report options: one group under one header. */
static error_t parse_report_view(int key, char *arg, struct argp_state *state)
{
	struct fsp_options *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = o;
		return 0;
	case OPT_VIEW_PID:
		if (report_pids__parse(arg, NULL, 0) < 0)
			return options__error(state,
					      "invalid --pid '%s': expected process ids (1 to %d) "
					      "separated by commas",
					      arg, REPORT_PID_MAX);
		return options__add_list(state, o, FSP_LIST_PIDS, arg);
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp_child report_view_children[] = {
	{&options_view_argp, 0, NULL, 0},
	{},
};

static const struct argp report_view_argp = {
	report_view_options, parse_report_view, NULL, NULL, report_view_children, NULL, NULL,
};

static error_t parse_report(int key, char *arg, struct argp_state *state)
{
	struct fsp_options *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = o;
		return 0;
	case 'o':
		return options__output(state, o, "-o", arg);
	case OPT_FILE_MODE:
		return options__file_mode(state, o, arg);
	case OPT_BINARIES:
		return parse_dir(state, "--binaries", arg, &o->binaries_dir);
	case OPT_MAP:
		return options__probemaps(state, o, arg);
	case OPT_FUNCTION_FEATURE:
		return options__function_feature(state, o, arg);
	case OPT_DEBUG_DIRS:
		return parse_dir(state, "--debug-dirs", arg, &o->debug_dirs);
	case OPT_REPORT_CALLS:
		return options__calls_selector(state, o, arg);
	case ARGP_KEY_ARG:
		return options__input(state, o, arg);
	case ARGP_KEY_END:
		if (o->nr_inputs != 1)
			return options__error(state,
					      "report needs exactly one profile file (got %d)",
					      o->nr_inputs);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp_child report_children[] = {
	{&report_view_argp, 0, "Report options:", 1},
	{},
};

static const struct argp report_argp = {
	report_options, parse_report, "FILE", report_doc, report_children, NULL, NULL,
};

const struct fsp_command cmd_report = {"report", &report_argp, report_run, FORMAT_REPORT};
