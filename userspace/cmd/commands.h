/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* fsp-bpf's subcommands. Each prints its own errors and returns 0 or -errno. */
#ifndef FSP_COMMANDS_H
#define FSP_COMMANDS_H

#include "options.h"

/* cmdline: fsp-bpf's own argv joined, recorded in the profile. */
int command__record(const struct fsp_options *o, const char *cmdline);
int command__report(const struct fsp_options *o);
int command__merge(const struct fsp_options *o, const char *cmdline);
int command__diff(const struct fsp_options *o);
int command__list(const struct fsp_options *o);

#endif /* FSP_COMMANDS_H */
