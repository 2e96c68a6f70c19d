/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Profile differencing: two profiles of the same program (BASE and NEW)
 * compared per feature and per instance, after the attribution rule has run
 * on each (attrib.h). Features are matched by name, instances by name within
 * their feature.
 *
 * Each row gives, for BASE and for NEW: the samples charged, their time
 * (samples x that profile's sampling period, so profiles taken at different
 * frequencies compare in milliseconds) and their share (% of that profile's
 * samples: its running time); then the change in time (NEW - BASE, ms) and in
 * share (percentage points). A row absent from BASE is NEW, one absent from
 * NEW is GONE.
 *
 * The scale model. Waddell and Ashley, "Visualizing the Performance of
 * Higher-Order Programs" (PASTE 1998),
 * compare a run on input size x with a run on size 2x by the difference
 * between each expression's count in the second run and the count predicted
 * by scaling the first run: code whose cost grows linearly with the input
 * differs by zero, code with non-linear time complexity (their doubly
 * recursive Fibonacci) stands out. fsp-bpf applies this to feature costs:
 * with scale K (NEW ran on K times BASE's input),
 *
 *	predicted = K x base time          (linear growth)
 *	deviation = new time - predicted   (0 where growth is linear)
 *	growth    = new time / base time   (K where growth is linear)
 *
 * and rows are sorted by |deviation|, so the features and instances that
 * scale worse (or better) than linearly come first. With K = 1 (or 0, the
 * default) this is the plain diff: predicted = base time, deviation = the
 * change in time, and rows are sorted by |change in time|. The totals (all
 * samples of each profile) get the same treatment. Its renderings
 * (render/report.h: diff__text, diff__json; render/html: diff__html) are
 * docs/diff-format.md.
 */
#ifndef FSP_ANALYSIS_DIFF_H
#define FSP_ANALYSIS_DIFF_H

#include <stdint.h>

#include "profile.h"

struct diff_opts {
	double scale; /* K: NEW ran on K times BASE's input; 0 or 1 = plain diff */
};

enum diff_flags {
	DIFF_NEW = 1, /* charged nothing in BASE, something in NEW */
	DIFF_GONE = 2, /* charged something in BASE, nothing in NEW */
};

/* One feature or instance compared. Times in ms, shares in %. */
struct diff_row {
	const char *name; /* owned by the diff */
	unsigned int flags; /* enum diff_flags */
	uint64_t base_samples;
	uint64_t new_samples;
	double base_ms;
	double new_ms;
	double base_pct; /* of BASE's total samples */
	double new_pct; /* of NEW's total samples */
	double delta_ms; /* new_ms - base_ms */
	double delta_pp; /* new_pct - base_pct, percentage points */
	double predicted_ms; /* scale x base_ms */
	double deviation_ms; /* new_ms - predicted_ms */
	double growth; /* new_ms / base_ms; NaN when base_samples is 0 */
};

struct diff_feature {
	struct diff_row row;
	size_t nr_instances;
	const struct diff_row *instances; /* sorted as the features are */
	/* The feature's functions (native stacks, record --stacks): each row's
	 * samples are the feature's samples whose native stack's leaf ran in
	 * that function (self time), matched across the profiles by name
	 * (see diff__function_name); sorted as the features are. None when
	 * neither profile has native stacks. */
	size_t nr_functions;
	const struct diff_row *functions;
};

/* One of the two profiles compared: copies of what the renderers name. */
struct diff_side {
	const struct profile_meta *meta; /* owned by the diff */
	uint64_t period_ns; /* profile_meta__period_ns of meta */
	uint64_t total_samples; /* the denominator of its shares */
	uint64_t uncharged_samples; /* charged to no feature */
	double total_ms;
};

/* The whole profiles compared: every sample, charged or not. */
struct diff_totals {
	double scale; /* K, 1 for a plain diff */
	double base_ms;
	double new_ms;
	double delta_ms; /* new_ms - base_ms */
	double predicted_ms; /* scale x base_ms */
	double deviation_ms; /* new_ms - predicted_ms */
	double growth; /* new_ms / base_ms; NaN when BASE has no samples */
};

struct diff;

/*
 * Compares base with new_p (opts may be NULL: plain diff). Features are
 * sorted by |deviation_ms| descending (which is |delta_ms| for a plain diff),
 * ties by name (byte order); so are the instances of each feature. Returns
 * NULL with errno set: EINVAL (NULL profile, scale negative or not finite)
 * or ENOMEM. The diff copies what it keeps: the profiles may be freed.
 */
struct diff *diff__compute(const struct profile *base, const struct profile *new_p,
			   const struct diff_opts *opts);
void diff__free(struct diff *d); /* NULL-safe */

/* True when scale != 1: rows are sorted by deviation from linear growth. */
int diff__scaled(const struct diff *d);
const struct diff_side *diff__base(const struct diff *d);
const struct diff_side *diff__new(const struct diff *d);
const struct diff_totals *diff__totals(const struct diff *d);
size_t diff__nr_features(const struct diff *d);
/* NULL when i is out of range. */
const struct diff_feature *diff__feature(const struct diff *d, size_t i);
/* Functions over all samples (native stacks): every function's self time in
 * each profile, samples charged to a feature or not, rows as the features'
 * functions (diff_feature.functions), sorted as the features. None when
 * neither profile has native stacks. */
size_t diff__nr_functions(const struct diff *d);
const struct diff_row *diff__function(const struct diff *d, size_t i); /* NULL: out of range */

/*
 * The name a function row goes by: the innermost function at the location
 * (the inlined one, where the code that ran was inlined), else
 * "MODULE+0xADDR" with the module's file name (not symbolized), else "[jit]"
 * (code in no file: JIT code, anonymous memory). Written to buf (len bytes)
 * or returned interned when there is a function name.
 */
const char *diff__function_name(const struct profile *p, size_t loc, char *buf, size_t len);

#endif /* FSP_ANALYSIS_DIFF_H */
