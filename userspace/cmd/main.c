// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fsp-bpf: main() only orchestrates; see commands.h and the files it names. */
#include <stdio.h>

#include "commands.h"
#include "log.h"
#include "options.h"

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
	int err = 0;

	join_argv(argc, argv, cmdline, sizeof(cmdline));
	options__parse(argc, argv, &opts);
	log__set_level(opts.verbose ? LOG_VERBOSE : LOG_INFO);
	switch (opts.command) {
	case FSP_CMD_RECORD:
		err = command__record(&opts, cmdline);
		break;
	case FSP_CMD_REPORT:
		err = command__report(&opts);
		break;
	case FSP_CMD_MERGE:
		err = command__merge(&opts, cmdline);
		break;
	case FSP_CMD_DIFF:
		err = command__diff(&opts);
		break;
	case FSP_CMD_LIST:
		err = command__list(&opts);
		break;
	}
	return err ? 1 : 0;
}
