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
 * charged time (on-CPU samples x period plus charged off-CPU time), then
 * descending samples; samples: descending on-CPU sampled count; name:
 * ascending byte order. Ties are broken by name, then by (source, pid, tid).
 */
enum report_order {
	REPORT_ORDER_COST = 0,
	REPORT_ORDER_SAMPLES,
	REPORT_ORDER_NAME,
};

/* What each folded-stacks line counts (report_opts.folded_value). */
enum report_value {
	REPORT_VALUE_SAMPLES = 0, /* on-CPU samples (the default) */
	REPORT_VALUE_OFFCPU, /* off-CPU nanoseconds (fsp-bpf --off-cpu) */
	REPORT_VALUE_WALL, /* on-CPU (samples x period) + off-CPU nanoseconds */
};

struct report_opts {
	/* Features and instances under this share of running time are folded
	 * into one "N more below X%" line. 0 shows everything. In sections
	 * (by thread, process), features and instances under this share of
	 * the section's time, and sections under this share of running time.
	 * "Under" means that its sampled time, its event time (the sum of its
	 * calls' durations) and its off-CPU time all are: short features
	 * sampling missed still show their exact counts. The wall-clock view:
	 * shares of wall-clock time. Folded stacks: instance frames of lines
	 * under this share of the total of folded_value become "(other
	 * instances)". pprof: not applied. */
	double min_pct;
	enum report_by by;
	enum report_order order;
	/* NULL: every feature; else only the feature of this exact name (and
	 * its instances). Renderers return -ENOENT when nothing was charged to
	 * it and it has no events (folded stacks: nothing of folded_value). */
	const char *feature;
	/* Folded stacks only: what a line counts. */
	enum report_value folded_value;
};

/* "feature", "thread", "process" / "cost", "samples", "name" / "samples",
 * "offcpu", "wall": 0, else -EINVAL. */
int report_by__parse(const char *s, enum report_by *out);
int report_order__parse(const char *s, enum report_order *out);
int report_value__parse(const char *s, enum report_value *out);

/* The text report: header, features and instances (or one section per
 * thread or process, opts->by), the note, the wall-clock view (with
 * off-CPU time), diagnostics. Calls, time per call and max (the event
 * view) and off-CPU time are columns when the profile has them; with
 * opts->feature each instance's latency histogram too. opts may be NULL.
 * Returns 0, -ENOENT when opts->feature names no charged feature (the
 * report, saying so, is still written), -EINVAL (an unknown by or order),
 * -ENOMEM or -errno of the write. */
int report__text(FILE *out, const struct profile *p, const struct attrib *a,
		 const struct report_opts *opts);

/*
 * Folded stacks for flame graphs (docs/output-formats.md): one line
 * "[process;[thread;]]feature;instance COUNT" per charged (feature, instance),
 * sorted; a sample charged to several features counts on each of their
 * lines. COUNT is opts->folded_value (samples by default); lines of value 0
 * are left out. opts may be NULL; order does not apply (lines are sorted).
 * Returns 0, -ENOENT (opts->feature charged nothing; nothing is written),
 * -EINVAL, -ENOMEM or -errno of the write.
 */
int report__folded(FILE *out, const struct profile *p, const struct report_opts *opts);

/*
 * A gzip-compressed pprof profile.proto (docs/output-formats.md): one sample
 * per charged (feature, instance) of each distinct (thread, mark stack),
 * located [instance, feature]; uncharged samples at "(no feature)". Sample
 * types samples, cpu, and when the profile has them offcpu (charged off-CPU
 * ns), calls and event_time (one more sample per event record). Of opts
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
