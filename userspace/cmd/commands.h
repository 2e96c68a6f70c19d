/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fsp-bpf's subcommands, one table of {name, argp, run} (commands.c). A new
 * subcommand is a file cmd_NAME.c defining its options, parser, run function
 * and struct fsp_command, named here and in the table.
 */
#ifndef FSP_COMMANDS_H
#define FSP_COMMANDS_H

#include <argp.h>
#include <stddef.h>

#include "options.h"

struct fsp_command {
	const char *name; /* fsp-bpf NAME ... */
	const struct argp *argp; /* its options; their input is the fsp_options */
	/* Prints its own errors; returns 0 or -errno. cmdline: fsp-bpf's own
	 * argv joined, recorded in the profiles it writes. */
	int (*run)(const struct fsp_options *o, const char *cmdline);
	unsigned int formats; /* its FORMAT_ flag (formats.h): the formats it takes */
};

extern const struct fsp_command cmd_record, cmd_report, cmd_merge, cmd_diff, cmd_list;

/* Every subcommand; the first, record, is also the default (fsp-bpf -p PID). */
extern const struct fsp_command *const fsp_commands[];
extern const size_t fsp_nr_commands;

#endif /* FSP_COMMANDS_H */
