/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* report --calls SELECTOR, record --calls=SELECTOR: the slow-call view (calls_view.c). */
#ifndef FSP_CALLS_VIEW_H
#define FSP_CALLS_VIEW_H

#include "callsel.h"
#include "options.h"
#include "profile.h"

/*
 * The view of p's calls that sel selects, in v's format to path (NULL or
 * "-": stdout): text gives the selected calls' report, the other calls' report
 * and what the selected calls do more (a diff scaled to their samples,
 * largest differences first); html the page of p opened at that selection
 * (its Calls tab selects others); the other formats the selected calls'
 * samples as a profile of their own. 0 or -errno (said).
 */
int calls_view__render(const struct profile *p, const struct callsel *sel, const struct fsp_view *v,
		       const char *path);

#endif /* FSP_CALLS_VIEW_H */
