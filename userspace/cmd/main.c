// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fsp-bpf: main() only orchestrates: the command line (options.c), then the
 * subcommand it names (commands.h). */
#include <stdio.h>

#include "commands.h"
#include "log.h"
#include "options.h"
#include "outfile.h"

static void join_argv(int argc, char **argv, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (int i = 0; i < argc && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", i ? " " : "", argv[i]);
}

int main(int argc, char **argv)
{
	static char cmdline[4096];
	struct fsp_options opts;
	int status, err;

	join_argv(argc, argv, cmdline, sizeof(cmdline));
	if (!options__parse(argc, argv, &opts, &status)) {
		options__free(&opts);
		return status;
	}
	log__set_level(opts.verbose ? LOG_VERBOSE : LOG_INFO);
	if (opts.file_mode >= 0)
		outfile__set_new_mode(opts.file_mode);
	err = opts.command->run(&opts, cmdline);
	options__free(&opts);
	return err ? 1 : 0;
}
