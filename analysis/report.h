/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Renderers of an attributed profile: text report, folded stacks, pprof, JSON profile. */
#ifndef FSP_ANALYSIS_REPORT_H
#define FSP_ANALYSIS_REPORT_H

#include <stdio.h>

#include "attrib.h"
#include "profile.h"

/* What the report's sections are (--by). */
enum report_by {
	REPORT_BY_FEATURE = 0, /* one section per feature, over all threads */
	REPORT_BY_THREAD, /* one section per thread, its features inside */
	REPORT_BY_PROCESS, /* one section per process (source, pid) */
};

/*
 * The order of sections, features and instances (--order). cost: descending
 * charged time (today samples x period; later also off-CPU time), then
 * descending samples; samples: descending sampled count; name: ascending
 * byte order. Ties are broken by name, then by (source, pid, tid).
 */
enum report_order {
	REPORT_ORDER_COST = 0,
	REPORT_ORDER_SAMPLES,
	REPORT_ORDER_NAME,
};

struct report_opts {
	/* Features and instances under this share of running time are folded
	 * into one "N more below X%" line. 0 shows everything. In sections
	 * (by thread, process), features and instances under this share of
	 * the section's time, and sections under this share of running time.
	 * Folded stacks: instance frames of lines under this share of all
	 * samples become "(other instances)". pprof: not applied. */
	double min_pct;
	enum report_by by;
	enum report_order order;
	/* NULL: every feature; else only the feature of this exact name (and
	 * its instances). Renderers return -ENOENT when no sample was charged
	 * to it. */
	const char *feature;
};

/* "feature", "thread", "process" / "cost", "samples", "name": 0, else -EINVAL. */
int report_by__parse(const char *s, enum report_by *out);
int report_order__parse(const char *s, enum report_order *out);

/* The text report: header, features and instances (or one section per
 * thread or process, opts->by), the note, diagnostics. opts may be NULL.
 * Returns 0, -ENOENT when opts->feature names no charged feature (the
 * report, saying so, is still written), -EINVAL (an unknown by or order),
 * -ENOMEM or -errno of the write. */
int report__text(FILE *out, const struct profile *p, const struct attrib *a,
		 const struct report_opts *opts);

/*
 * Folded stacks for flame graphs (docs/output-formats.md): one line
 * "[process;[thread;]]feature;instance COUNT" per charged (feature, instance),
 * sorted; a sample charged to several features counts on each of their
 * lines. opts may be NULL; order does not apply (lines are sorted by stack).
 * Returns 0, -ENOENT (opts->feature charged nothing; nothing is written),
 * -EINVAL, -ENOMEM or -errno of the write.
 */
int report__folded(FILE *out, const struct profile *p, const struct report_opts *opts);

/*
 * A gzip-compressed pprof profile.proto (docs/output-formats.md): one sample
 * per charged (feature, instance) of each distinct (thread, mark stack),
 * located [instance, feature]; uncharged samples at "(no feature)". Of opts
 * only feature applies. Returns 0, -ENOENT (as report__folded), -ENOMEM,
 * -EIO (compression) or -errno of the write.
 */
int report__pprof(FILE *out, const struct profile *p, const struct report_opts *opts);

/* The JSON profile (docs/profile-format.md) to a stream. */
int report__json(FILE *out, const struct profile *p, const struct attrib *a);

/* The JSON profile written atomically: a temp file in the same directory,
 * fsync, rename. "-" writes to stdout. Returns 0 or -errno. */
int report__json_file(const char *path, const struct profile *p, const struct attrib *a);

#endif /* FSP_ANALYSIS_REPORT_H */
