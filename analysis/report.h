/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Renderers of an attributed profile: the text report and the JSON profile. */
#ifndef FSP_ANALYSIS_REPORT_H
#define FSP_ANALYSIS_REPORT_H

#include <stdio.h>

#include "attrib.h"
#include "profile.h"

struct report_opts {
	/* Features and instances under this share of running time are folded
	 * into one "N more below X%" line. 0 shows everything. */
	double min_pct;
};

/* The text report: header, features and instances, the note, diagnostics. */
int report__text(FILE *out, const struct profile *p, const struct attrib *a,
		 const struct report_opts *opts);

/* The JSON profile (docs/profile-format.md) to a stream. */
int report__json(FILE *out, const struct profile *p, const struct attrib *a);

/* The JSON profile written atomically: a temp file in the same directory,
 * fsync, rename. "-" writes to stdout. Returns 0 or -errno. */
int report__json_file(const char *path, const struct profile *p, const struct attrib *a);

#endif /* FSP_ANALYSIS_REPORT_H */
