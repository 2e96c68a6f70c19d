/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Reading a saved profile for report, merge and diff. */
#ifndef FSP_PROFILE_FILE_H
#define FSP_PROFILE_FILE_H

#include "profile.h"

/* The profile in path, or NULL with what is wrong already printed. */
struct profile *profile_file__load(const char *path);

#endif /* FSP_PROFILE_FILE_H */
