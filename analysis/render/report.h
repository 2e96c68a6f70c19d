/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Renderers of an attributed profile: text report, folded stacks, pprof (the
 * JSON profile: profile_io.h; the HTML page: report_html.h), and of a diff
 * (diff.h): its text table and JSON document. */
#ifndef FSP_ANALYSIS_REPORT_H
#define FSP_ANALYSIS_REPORT_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
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
	 * sampling missed still show their exact counts; point events (hits,
	 * no time) are never folded. The wall-clock view:
	 * shares of wall-clock time. Folded stacks: instance frames of lines
	 * under this share of the total of folded_value become "(other
	 * instances)". pprof: not applied. */
	double min_pct;
	enum report_by by;
	enum report_order order;
	/* NULL: every feature; else only the features named in this
	 * comma-separated list (exact names; empty names are ignored) and
	 * their instances. A string that is itself the name of a feature of
	 * the profile names that one feature, commas and all. Renderers return
	 * -ENOENT when none of them was charged anything nor has events
	 * (folded stacks: nothing of folded_value); the text report says which
	 * names it did not find. */
	const char *feature;
	/* Folded stacks only: what a line counts. */
	enum report_value folded_value;
	/*
	 * Process filters, NULL for none. comm: a comma-separated list of
	 * process names, each matched exactly against a process's comm (its
	 * main thread's, tid == pid; a name longer than the kernel's 15 bytes
	 * also matches the comm it is truncated to). pid: a comma-separated
	 * list of PIDs (report_pids__parse), each matching a process's pid or
	 * its PID in its own namespace (profile_process.nspid; in a merged
	 * profile, of any source). A process is kept when it matches every
	 * filter given. Every renderer (not profile__write_json: the
	 * profile file is the whole profile) then shows the profile of the
	 * kept processes alone (report__filter): totals,
	 * shares, denominators, sections and events are theirs, as if only
	 * they had been profiled; the text header says that a filter is in
	 * effect and what part of the profile it keeps. A filter that keeps
	 * no process is not an error: the report says so. -EINVAL for a pid
	 * list that does not parse or a comm list without a name.
	 */
	const char *comm;
	const char *pid;
	/*
	 * Native stacks (record --stacks; report_native.h), text report only.
	 * function: NULL, or the name of a function ("planner", or a label as
	 * the report shows it: "libc.so.6+0x1a2b", "schedule_[k]") whose
	 * callers and callees in each feature the report shows instead of the
	 * hottest functions; report__text returns -ESRCH (the report, saying
	 * so, is still written) when no native stack of the features shown
	 * has it, or the profile has no native stacks.
	 * top_functions: how many of the hottest functions each feature and
	 * instance lists (0: REPORT_DEFAULT_TOP_FUNCTIONS).
	 */
	const char *function;
	size_t top_functions;
};

/* The hottest functions of a feature or instance the text report lists. */
#define REPORT_DEFAULT_TOP_FUNCTIONS 10

/* "feature", "thread", "process" / "cost", "samples", "name" / "samples",
 * "offcpu", "wall": 0, else -EINVAL. */
int report_by__parse(const char *s, enum report_by *out);
int report_order__parse(const char *s, enum report_order *out);
int report_value__parse(const char *s, enum report_value *out);

/* Largest PID a --pid list accepts (the kernel's PID_MAX_LIMIT). */
#define REPORT_PID_MAX 4194304

/* Parses a comma-separated list of PIDs (decimal, 1 to REPORT_PID_MAX, at
 * least one; empty elements are ignored) into out[0..max) (out may be NULL
 * with max 0, to check). Returns the number of PIDs in s (possibly more
 * than max) or -EINVAL. */
int report_pids__parse(const char *s, uint32_t *out, size_t max);

/*
 * The profile of the processes opts->comm and opts->pid keep (see
 * report_opts): a new profile with p's metadata, sources and diagnostics,
 * and of p's processes (their namespace PIDs), threads, stacks, samples,
 * off-CPU time and events only those of the kept processes, in p's order.
 * *out is NULL when opts (may be NULL) filter nothing: p is the answer.
 * The caller frees *out. 0, -EINVAL (a list that does not parse) or
 * -ENOMEM.
 */
int report__filter(const struct profile *p, const struct report_opts *opts, struct profile **out);

/* Whether the --feature list `feature` (report_opts.feature) names a
 * feature of a stack or an event record of p: false when every renderer
 * would find nothing of it (a typo); true on an allocation failure (the
 * renderers say what they find). */
bool report__feature_found(const struct profile *p, const char *feature);

/* The text report: header, features and instances (or one section per
 * thread or process, opts->by), the note, the wall-clock view (with
 * off-CPU time), diagnostics. Calls, time per call and max (the event
 * view) and off-CPU time are columns when the profile has them; with
 * opts->feature each instance's latency histogram too. opts may be NULL.
 * With a process filter (opts->comm, opts->pid) a is not used: the report
 * attributes the filtered profile itself. Returns 0, -ENOENT when
 * opts->feature names no charged feature (the report, saying so, is still
 * written), -ESRCH when opts->function names no function of the native
 * stacks (likewise), -EINVAL (an unknown by or order, a filter that does not
 * parse), -ENOMEM or -errno of the write. */
int report__text(FILE *out, const struct profile *p, const struct attrib *a,
		 const struct report_opts *opts);

/*
 * Folded stacks for flame graphs (docs/output-formats.md): one line
 * "[process;[thread;]]feature;instance COUNT" per charged (feature, instance),
 * sorted; a sample charged to several features counts on each of their
 * lines. COUNT is opts->folded_value (samples by default); lines of value 0
 * are left out. opts may be NULL; order does not apply (lines are sorted).
 * With a process filter, the lines of the kept processes (min_pct of their
 * total). Returns 0, -ENOENT (opts->feature charged nothing; nothing is
 * written), -EINVAL, -ENOMEM or -errno of the write.
 */
int report__folded(FILE *out, const struct profile *p, const struct report_opts *opts);

/*
 * A gzip-compressed pprof profile.proto (docs/output-formats.md): one sample
 * per charged (feature, instance) of each distinct (thread, mark stack),
 * located [instance, feature]; uncharged samples at "(no feature)". Sample
 * types samples, cpu, and when the profile has them offcpu (charged off-CPU
 * ns), calls and event_time (one more sample per event record). Labels pid,
 * nspid (when the process has one), tid, thread, process, source. Of opts
 * feature, comm and pid apply (a filter is said in a comment). Returns 0,
 * -ENOENT (as report__folded), -EINVAL (a filter that does not parse),
 * -ENOMEM, -EIO (compression) or -errno of the write.
 */
int report__pprof(FILE *out, const struct profile *p, const struct report_opts *opts);

/* ---- a diff of two profiles (diff.h; diff_report.c) ------------------------------ */

struct diff;

struct diff_report_opts {
	/* Rows whose |delta_pp|, base_pct and new_pct are all under this are
	 * folded into one "N more rows under X%" line. 0 shows everything. */
	double min_pct;
};

/* The text table of docs/diff-format.md. o may be NULL. Returns 0 or -errno. */
int diff__text(FILE *out, const struct diff *d, const struct diff_report_opts *o);

/* The JSON document of docs/diff-format.md (every row, none folded). */
int diff__json(FILE *out, const struct diff *d);

#endif /* FSP_ANALYSIS_REPORT_H */
