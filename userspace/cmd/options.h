/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Command-line options of fsp-bpf's subcommands, their defaults in one place,
 * argp parsing. */
#ifndef FSP_OPTIONS_H
#define FSP_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "report.h"
#include "session.h"

#define FSP_MAX_PIDS 256
#define FSP_MAX_INPUTS 1024

enum fsp_command {
	FSP_CMD_RECORD, /* the default: fsp-bpf [record] -p PID | CMD */
	FSP_CMD_REPORT,
	FSP_CMD_MERGE,
	FSP_CMD_DIFF,
	FSP_CMD_LIST,
};

enum fsp_format {
	FSP_FMT_TEXT,
	FSP_FMT_JSON, /* the profile file format */
	FSP_FMT_FOLDED,
	FSP_FMT_PPROF,
};

/* How a profile is rendered: shared by record (live) and report (saved). */
struct fsp_view {
	enum fsp_format format;
	struct report_opts ropts; /* min_pct, by, order, feature, comm, pid */
};

struct fsp_options {
	enum fsp_command command;
	/* record: -p PID (list: too), -- CMD or -a (session.system_wide) */
	pid_t pids[FSP_MAX_PIDS];
	int nr_pids;
	char **cmd; /* NULL-terminated argv of -- CMD, or NULL */
	/* record: -F, -d, --max-depth, --max-stacks, --no-follow-forks,
	 * --no-events, --off-cpu, --max-events, --interval, -a */
	struct session_opts session;
	bool verbose;
	/* record, list: probe maps (--map NAME|FILE[,...] or auto) */
	const char *probemaps;
	/* record: the profile file; report, diff: the rendering; merge: the merge */
	const char *out_path;
	struct fsp_view view;
	/* report FILE, merge FILE..., diff BASE NEW */
	const char *inputs[FSP_MAX_INPUTS];
	int nr_inputs;
	double scale; /* diff --scale */
};

extern const struct fsp_options fsp_default_options;

/* Parses argv into opts (initialised from the defaults), picking the
 * subcommand from argv[1]. Exits with a usage error on bad options, as argp
 * does. */
void options__parse(int argc, char **argv, struct fsp_options *opts);

#endif /* FSP_OPTIONS_H */
