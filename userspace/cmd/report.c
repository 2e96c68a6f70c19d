// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fsp-bpf report: renders a saved profile; its options. Needs no privileges
 * and no BPF. */
#include <errno.h>

#include "commands.h"
#include "profile_file.h"
#include "render.h"

static int report_run(const struct fsp_options *o, const char *cmdline)
{
	struct profile *p = profile_file__load(o->inputs[0]);
	int err;

	(void)cmdline;
	if (!p)
		return -EINVAL;
	err = render__profile(p, &o->view, o->out_path);
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
	"                                                a plug-in shared object\n\n"
	"Needs no privileges. Output formats: docs/output-formats.md; the file format: "
	"docs/profile-format.md; plug-ins: docs/plugins.md (fsp-bpf list --plugins).";

static const struct argp_option report_options[] = {
	{"output", 'o', "FILE", 0, "Write to FILE instead of stdout (atomically)", 0},
	OPTIONS_FILE_MODE,
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

const struct fsp_command cmd_report = {"report", &report_argp, report_run};
