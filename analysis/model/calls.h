/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The calls of the slow-call view (issue 30): which call of each charged
 * feature a sample fell in, and each call's extent as its samples show it.
 *
 * A sample comes with its mark stack and, per frame, the thread's call number
 * of that frame's enter (record --calls; 0: not known, a binary built before
 * call numbers). For every feature the sample charges — the one attribution
 * rule, charges__stack — the call is (process, thread, feature, call number
 * of the charged frame): the top-most mark of the feature. A call's samples
 * are exactly those whose charged frame was pushed by that enter, so a short
 * call never lends its samples to a neighbour, nested calls of a feature and
 * recursion keep each level's own, and threads never mix.
 *
 * Bounded: at most `max` calls are kept; the samples of calls beyond are
 * counted as dropped (calls__dropped), never joined to another call.
 */
#ifndef FSP_ANALYSIS_CALLS_H
#define FSP_ANALYSIS_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* One call of a feature's instance. */
struct call_rec {
	uint32_t pid;
	uint32_t tid;
	uint64_t id; /* the thread's call number of the enter */
	const char *feature; /* as the frames name it */
	const char *instance; /* never NULL */
	uint64_t samples;
	uint64_t first_ns; /* time of its first and last sample */
	uint64_t last_ns;
};

struct calls;

/* An empty table keeping at most max calls (0: a default, 1 << 20). */
struct calls *calls__new(size_t max);
void calls__free(struct calls *c); /* NULL-safe */

/*
 * Joins count samples of thread (pid, tid) taken at time_ns with the mark
 * stack frames[0, depth) (bottom first) whose frames' call numbers are
 * ids[0, depth). Feature and instance strings must outlive the table (a
 * profile's interned names). 0, or -ENOMEM (nothing joined).
 */
int calls__add(struct calls *c, uint32_t pid, uint32_t tid, const struct profile_frame *frames,
	       const uint64_t *ids, size_t depth, uint64_t time_ns, uint64_t count);

size_t calls__nr(const struct calls *c);
/* Call i, in order of first sample; NULL beyond. */
const struct call_rec *calls__get(const struct calls *c, size_t i);
/* Charged samples whose call was not kept (the table was full). */
uint64_t calls__dropped(const struct calls *c);
/* Charged samples whose call is not known (call number 0). */
uint64_t calls__unknown(const struct calls *c);

/*
 * A call's duration as its samples show it: from its first to its last
 * sample, plus one sampling period (each sample stands for a period). An
 * estimate, good for calls longer than a few periods; a call with one
 * sample is "about one period or less".
 */
uint64_t call_rec__estimate_ns(const struct call_rec *r, uint64_t period_ns);

#endif /* FSP_ANALYSIS_CALLS_H */
