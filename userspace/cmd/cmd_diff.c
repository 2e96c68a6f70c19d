// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fsp-bpf diff: compares two saved profiles; its options. Needs no
 * privileges and no BPF. */
#include <errno.h>
#include <string.h>

#include "commands.h"
#include "diff.h"
#include "log.h"
#include "outfile.h"
#include "profile_file.h"
#include "render.h"

static int diff_run(const struct fsp_options *o, const char *cmdline)
{
	struct diff_opts dopts = {.scale = o->scale};
	struct profile *base = NULL, *new_p = NULL;
	struct outfile *f = NULL;
	struct diff *d = NULL;
	int err = -EINVAL;

	(void)cmdline;
	base = profile_file__load(o->inputs[0]);
	if (base)
		new_p = profile_file__load(o->inputs[1]);
	if (!new_p)
		goto cleanup;
	/* each with the function features it was recorded with */
	err = profile_file__apply_rules(base, NULL);
	if (!err)
		err = profile_file__apply_rules(new_p, NULL);
	if (err)
		goto cleanup;
	d = diff__compute(base, new_p, &dopts);
	if (!d) {
		err = errno ? -errno : -ENOMEM;
		log__err("cannot compare the profiles: %s", strerror(-err));
		goto cleanup;
	}
	err = render__to_terminal_check(o->view.format, o->out_path);
	if (err)
		goto cleanup;
	f = outfile__open(o->out_path, &err);
	if (!f) {
		log__err("cannot write %s: %s", o->out_path, outfile__strerror(err));
		goto cleanup;
	}
	err = o->view.format->render_diff(outfile__stream(f), d, &o->view);
	if (!err)
		err = outfile__commit(f);
	if (err)
		log__err("cannot write %s: %s", outfile__name(f), strerror(-err));
cleanup:
	outfile__free(f);
	diff__free(d);
	profile__free(new_p);
	profile__free(base);
	return err;
}

/* ---- the command line ---- */

static const char diff_doc[] =
	"Compares two profiles per feature and per instance: time and share in each, "
	"the change, sorted by the size of the change; new and vanished instances are "
	"marked. Profiles with native stacks (record --stacks) also compare, under each "
	"feature, the self time of its functions. "
	"With --scale K the NEW run had K times the input of BASE: each "
	"feature's time is predicted to grow linearly (K x its BASE time) and rows are "
	"sorted by how far NEW deviates from that prediction.\n\n"
	"USAGE: fsp-bpf diff [OPTIONS] BASE NEW"
	"\v"
	"EXAMPLES:\n"
	"  fsp-bpf diff before.json after.json\n"
	"  fsp-bpf diff --scale 4 n1000.json n4000.json   where growth is not linear\n"
	"  fsp-bpf diff --format json before.json after.json\n"
	"  fsp-bpf diff --format html -o diff.html before.json after.json\n\n"
	"The layout and the scale model: docs/diff-format.md.";

static const struct argp_option diff_options[] = {
	{"scale", OPT_SCALE, "K", 0,
	 "NEW ran on K times BASE's input: compare NEW with linear growth (K > 0)", 0},
	{"format", OPT_FORMAT, "FMT", 0, "The formats (formats.c)", 0},
	{"source-dir", OPT_SOURCE_DIR, "DIR", 0,
	 "HTML: look for the source files of FILE:LINE instances in DIR first (repeatable)", 0},
	{"min-pct", OPT_MIN_PCT, "PCT", 0,
	 "Fold rows whose shares and change are all under PCT% (default " FSP_STR(
		 FSP_DEFAULT_MIN_PCT) "; 0 shows all)",
	 0},
	{"output", 'o', "FILE", 0, "Write to FILE instead of stdout (atomically)", 0},
	OPTIONS_FILE_MODE,
	{},
};

static error_t parse_diff(int key, char *arg, struct argp_state *state)
{
	struct fsp_options *o = state->input;

	switch (key) {
	case OPT_SCALE:
		if (options__double(arg, 1e-9, 1e12, &o->scale))
			return options__error(
				state,
				"invalid --scale '%s': expected a positive number, the "
				"ratio of NEW's input size to BASE's",
				arg);
		return 0;
	case OPT_FORMAT:
		return options__format(state, o, arg);
	case OPT_MIN_PCT:
		return options__min_pct(state, o, arg);
	case OPT_SOURCE_DIR:
		return options__source_dir(state, o, arg);
	case 'o':
		return options__output(state, o, "-o", arg);
	case OPT_FILE_MODE:
		return options__file_mode(state, o, arg);
	case ARGP_KEY_ARG:
		return options__input(state, o, arg);
	case ARGP_KEY_END:
		if (o->nr_inputs != 2)
			return options__error(state,
					      "diff needs two profile files, BASE and NEW (got %d)",
					      o->nr_inputs);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp diff_argp = {
	diff_options, parse_diff, "BASE NEW", diff_doc, NULL, options__format_help, NULL,
};

const struct fsp_command cmd_diff = {"diff", &diff_argp, diff_run, FORMAT_DIFF};
