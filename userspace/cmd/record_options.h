/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* fsp-bpf record's command line (record_options.c). */
#ifndef FSP_RECORD_OPTIONS_H
#define FSP_RECORD_OPTIONS_H

#include <argp.h>

/* The options, their parsing and checks; record's --help. */
extern const struct argp record_argp;

struct fsp_options;

/* Where the profile file goes (NULL: it is not saved): -o with the formats
 * whose -o is the profile (formats.h), else --json. */
const char *record_profile_dest(const struct fsp_options *o);

#endif
