/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Reading a saved profile for report, merge and diff; saving a recorded one
 * so that it is never lost. */
#ifndef FSP_PROFILE_FILE_H
#define FSP_PROFILE_FILE_H

#include <stddef.h>

#include "profile.h"

/* The profile in path, or NULL with what is wrong already printed. */
struct profile *profile_file__load(const char *path);

/* Before profiling: can the profile be saved to path? 0, or -errno with
 * the reason printed (nothing is created). */
int profile_file__check(const char *path);

/*
 * Saves a recorded profile to path (profile__save). When that fails (a full
 * disk, a directory removed meanwhile), the profile is kept as
 * fsp-bpf-NAME-DATE-PID.json in the first of $TMPDIR, /var/tmp and /tmp
 * that takes it, and the messages say where (kept: its path, may be NULL).
 * Returns 0, or the -errno of the save to path (also when kept elsewhere).
 */
int profile_file__save(const char *path, const struct profile *p, char *kept, size_t size);

/*
 * Charges p's function features (funcfeat.h): the rules it was recorded
 * with (its function_features) and extra's (may be NULL; a feature of both
 * takes extra's rule). record's report and report both come here: the same
 * rules give the same numbers. 0 or -errno, said.
 */
struct funcfeat;
int profile_file__apply_rules(struct profile *p, const struct funcfeat *extra);

#endif /* FSP_PROFILE_FILE_H */
