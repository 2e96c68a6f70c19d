/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* record --calls: the calls section after the report (record_calls.c). */
#ifndef FSP_RECORD_CALLS_H
#define FSP_RECORD_CALLS_H

#include <stdio.h>

#include "options.h"
#include "profile.h"
#include "session.h"

/* After the report of p (collected with --calls): per feature, how many
 * calls and the slowest ones to out; with selector (NULL: none), the calls
 * view (calls_view.h) of the calls it selects instead, in the text format of
 * v. 0 or -errno. */
int record_calls__report(const struct session *s, const struct profile *p, const char *selector,
			 const struct fsp_view *v, FILE *out);

#endif /* FSP_RECORD_CALLS_H */
