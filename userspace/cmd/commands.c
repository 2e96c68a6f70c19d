// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "commands.h"

const struct fsp_command *const fsp_commands[] = {
	&cmd_record, &cmd_report, &cmd_merge, &cmd_diff, &cmd_list,
};

const size_t fsp_nr_commands = sizeof(fsp_commands) / sizeof(fsp_commands[0]);
