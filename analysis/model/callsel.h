/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The slow-call view's selection (report --calls SELECTOR, docs/calls.md):
 * which calls of a feature (or of one instance) are selected, and the two
 * profiles of their samples: the selected calls' and the other calls' of the
 * same feature, each a whole profile every view renders.
 *
 * Grammar (no spaces inside a condition; the feature name is everything
 * before the last ':' or the condition, the instance everything after ':'):
 *
 *   SELECTOR  := FEATURE [ ':' INSTANCE ] CONDITION
 *   CONDITION := CMP DURATION [ CMP DURATION ]            e.g. request>=50ms
 *              | ' '* 'p' PERCENT                        e.g. request:/api p99
 *   CMP       := '>=' | '>' | '<=' | '<'     (two: a range, request>=2ms<5ms)
 *   DURATION  := NUMBER ( 'ns' | 'us' | 'ms' | 's' )
 *   PERCENT   := NUMBER in (0, 100): the calls at or above that percentile
 *                of the calls' durations (of the instance, if given)
 *
 * A call's duration is exact when its leave measured it (record --calls
 * --events, calls of two sampling periods or more), else estimated from its
 * samples (first to last, plus one period: calls.h). A call kept by the
 * bound's uniform sample stands for several (call_rec.weight): percentiles,
 * counts and the two profiles' samples count it so many times.
 */
#ifndef FSP_ANALYSIS_CALLSEL_H
#define FSP_ANALYSIS_CALLSEL_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#define CALLSEL_NAME_LEN 256

enum callsel_op {
	CALLSEL_GE = 1,
	CALLSEL_GT,
	CALLSEL_LE,
	CALLSEL_LT,
	CALLSEL_PCT, /* at or above a percentile */
};

struct callsel {
	char feature[CALLSEL_NAME_LEN];
	char instance[CALLSEL_NAME_LEN]; /* "" with has_instance false: any */
	int has_instance;
	enum callsel_op op;
	uint64_t ns; /* the duration compared with */
	double pct; /* CALLSEL_PCT */
	enum callsel_op op2; /* a second condition (a range), 0: none */
	uint64_t ns2;
};

/* Parses s into out. 0, or -EINVAL with a one-line reason in err (size n). */
int callsel__parse(const char *s, struct callsel *out, char *err, size_t n);

/* What a selection found. */
struct callsel_info {
	uint64_t calls; /* of the feature (instance) */
	uint64_t selected; /* of them selected */
	uint64_t selected_samples;
	uint64_t other_samples;
	uint64_t threshold_ns; /* the duration selected from (CALLSEL_PCT: the percentile's) */
	uint64_t min_ns, max_ns; /* of the selected calls' durations */
	uint64_t sum_ns; /* the selected calls' durations added up */
	uint64_t exact; /* selected calls whose duration is exact (--events), not estimated */
	uint64_t selected_offcpu_ns, other_offcpu_ns; /* their off-CPU time (--off-cpu) */
	/* The bound (calls.h, calls__bound): calls, samples and durations above
	 * count each kept call as the calls it stands for; sampled: selected
	 * calls kept as a uniform sample of the others (standing for more than
	 * one); dropped_calls: the calls of the whole profile the bound dropped. */
	uint64_t sampled;
	uint64_t dropped_calls;
	uint64_t selected_kept; /* selected calls in the profile (each once) */
};

/*
 * The profiles of the samples of p's calls (profile__calls) that sel selects
 * (*selected) and of the feature's other calls (*others): p's metadata,
 * processes, threads, stacks and native stacks, and of its samples, native
 * samples (--stacks) and off-CPU time (--off-cpu) only those of the calls. 0, -ENODATA (p has no calls: not
 * recorded with --calls), -ENOENT (no call of that feature or instance), or
 * -ENOMEM. The caller frees both.
 */
int callsel__split(const struct profile *p, const struct callsel *sel, struct profile **selected,
		   struct profile **others, struct callsel_info *info);

#endif /* FSP_ANALYSIS_CALLSEL_H */
