/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* record --calls: the calls section after the report (record_calls.c). */
#ifndef FSP_RECORD_CALLS_H
#define FSP_RECORD_CALLS_H

#include <stdio.h>

#include "profile.h"
#include "session.h"

/* Joins the session's samples to their calls against p (collected) and
 * prints, per feature, how many calls and the slowest ones to out. 0 or
 * -errno. */
int record_calls__report(const struct session *s, const struct profile *p, FILE *out);

#endif /* FSP_RECORD_CALLS_H */
