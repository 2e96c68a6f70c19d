/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * matrix - the consistency matrix (test_matrix.c): what each output of a
 * profile says per feature and instance, read back into one shape (a tally),
 * and the checks that every output of one profile agrees with its model.
 *
 *   matrix_tally.c   tallies: rows, comparison, the model's own (the
 *                    attribution through the analysis library; native
 *                    samples charged by the rule, independently), checks
 *   matrix_views.c   the tally each view shows: the JSON profile's derived
 *                    features, the text report, folded stacks, pprof, the
 *                    HTML page's embedded data
 *   matrix_saved.c   a saved profile in every view, merged with itself,
 *                    diffed with itself, through a plug-in
 *
 * A check that fails prints "FAIL ..." with both numbers and is counted; the
 * case fails at its end with the count, so one run shows every disagreement.
 */
#ifndef MATRIX_H
#define MATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- checks ---------------------------------------------------------------------- */

struct mx_stats {
	unsigned long checks, failed, known;
};

/* The current case's counters (test_matrix.c resets them per case). */
extern struct mx_stats mx_stats;

/* A known bug that another change fixes: a failed check of a case whose
 * name matches `cases` (a glob) with a message containing `check` is
 * "KNOWN (why)", not a failure. NULL-terminated, for the current case. */
struct mx_known {
	const char *cases, *check, *why;
};
extern const struct mx_known *mx_known;
extern const char *mx_case_name;

/* Counts a check; prints "FAIL what" when !ok (or "KNOWN (why) what" for a
 * known bug). Returns ok. */
bool mx_check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- tallies ----------------------------------------------------------------------- */

/* What a view shows (a tally compares only what both have). */
enum mx_has {
	MX_TOTAL = 1 << 0, /* samples taken: the denominator */
	MX_SUM = 1 << 1, /* the sum of its lines: every charge plus the uncharged samples */
	MX_UNCHARGED = 1 << 2,
	MX_INSTANCES = 1 << 3,
	MX_NATIVE = 1 << 4, /* samples with a native stack, per feature and instance */
	MX_OFFCPU = 1 << 5,
	MX_CALLS = 1 << 6, /* the event view: marks entered */
	MX_SAMPLES = 1 << 7, /* samples per feature and instance */
	/* off-CPU time shown in ms with one decimal (the text report) */
	MX_OFFCPU_MS = 1 << 8,
	/* the samples with a native stack in all, charged or not */
	MX_NATIVE_TOTAL = 1 << 9,
	/* the view lists some features and instances only: the others are not
	 * compared */
	MX_PARTIAL = 1 << 10,
	/* the view leaves out the features under the text report's default
	 * --min-pct (MX_MIN_PCT_DEFAULT % of its total): rows of another view
	 * under it are not looked for in it */
	MX_MIN_PCT = 1 << 11,
};

#define MX_MIN_PCT_DEFAULT 0.5

struct mx_row {
	char *feature;
	char *instance; /* NULL: the feature's row */
	uint64_t samples, native, offcpu_ns, calls;
	bool point; /* the model's: a point event (a probe map's `event`) */
};

struct mx_tally {
	char what[96]; /* the view, for messages */
	unsigned int has; /* enum mx_has */
	uint64_t total, sum, uncharged;
	uint64_t native_total; /* samples with a native stack, charged or not */
	uint64_t native_sum; /* of sum, the lines with a native stack (MX_SUM views) */
	struct mx_row *rows;
	size_t nr, cap;
};

void mx_tally_init(struct mx_tally *t, unsigned int has, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void mx_tally_fini(struct mx_tally *t);
/* The row of (feature, instance), created (zero) when new. */
struct mx_row *mx_row(struct mx_tally *t, const char *feature, const char *instance);
/* Adds to the instance's row and to its feature's. */
void mx_charge(struct mx_tally *t, const char *feature, const char *instance, uint64_t samples,
	       uint64_t native, uint64_t offcpu_ns, uint64_t calls);
/* Every number times k (merge(a, a) = 2a). */
void mx_tally_scale(struct mx_tally *t, uint64_t k);

/* Checks that view agrees with ref on everything view has: the same
 * features and instances, each with the same numbers. */
void mx_compare(const struct mx_tally *ref, const struct mx_tally *view);

/* The tally of the profile file at path through the analysis library (the
 * attribution, the event records; its function features charged as report
 * charges them), its native samples charged by the rule here. Fails the
 * test when the file does not read back. *period_ns: the
 * profile's period (period_ns may be NULL). */
void mx_tally_profile(struct mx_tally *t, const char *path, uint64_t *period_ns);
/* Saves the profile at path to out without its function features' rules
 * (its samples as recorded with --stacks alone). */
void mx_strip_rules(const char *path, const char *out);
/* Checks that every diagnostic counter of the profile at path is 0 except
 * those named in `allowed` (NULL-terminated; may be NULL). */
void mx_check_diagnostics(const char *path, const char *const *allowed);

/* ---- views ------------------------------------------------------------------------- */

/* The derived "features" of a JSON profile (record --format json, report
 * --format json). */
void mx_view_json(struct mx_tally *t, const char *path);
/* A text report (the whole of its text; --min-pct 0 to see every row) into
 * t, its native section (record --stacks: the rows it lists) into nat. */
void mx_view_text(struct mx_tally *t, struct mx_tally *nat, const char *text, uint64_t period_ns);
/* Folded stacks; skip: the frames before the feature (--by process: 1,
 * thread: 2); offcpu: the lines count off-CPU ns (--value offcpu). */
void mx_view_folded(struct mx_tally *t, const char *text, int skip, bool offcpu);
/* A gzipped pprof profile. */
void mx_view_pprof(struct mx_tally *t, const char *path);
/* The data embedded in an HTML page. */
void mx_view_html(struct mx_tally *t, const char *path);

/* ---- the saved profile --------------------------------------------------------------- */

struct mx_saved {
	const char *path; /* the profile file */
	const char *comm; /* --comm of every report (-a --comm), NULL: none */
	const char *plugin; /* --plugin of the workload, NULL: none */
	const char *const *allowed_diags; /* NULL-terminated, may be NULL */
	bool offcpu; /* the session measured off-CPU time */
	bool native; /* the session recorded native stacks */
	bool events; /* the event view counted calls */
};

/* Every check on a saved profile: it reads back; report in every format
 * agrees with its model; merge(a) = a, merge(a, a) = 2a, diff(a, a) shows
 * no change; the plug-in's result is the feature's samples. */
void mx_check_saved(const struct mx_saved *s);

/* Runs `fsp-bpf ARGS...` (NULL-terminated) to completion, checks that it
 * exits 0 with no error line, and returns its stdout's path (a slot of
 * itest_tmp). tag names its output files. */
const char *mx_fsp(const char *tag, ...) __attribute__((sentinel));
/* The same with an argument vector (argv[0] is ignored). */
const char *mx_fspv(const char *tag, char **argv);
/* Checks that err (fsp-bpf's stderr) has no line but the informational ones
 * of a clean run. */
void mx_check_quiet(const char *what, const char *err);
/* Byte-compares two files. */
void mx_check_same_file(const char *what, const char *a, const char *b);
/* File a ends with file b's bytes (a launched program's own output, then
 * fsp-bpf's). */
void mx_check_ends_with(const char *what, const char *a, const char *b);

#endif /* MATRIX_H */
