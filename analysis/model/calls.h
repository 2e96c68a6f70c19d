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
 * counted as dropped (calls__dropped), never joined to another call. Within
 * that, calls__bound keeps per feature instance the slowest calls that have
 * ended and a uniform sample of its other ended calls, each of which then
 * stands for several (call_rec.weight), so that percentiles and the other
 * calls' view stay those of all the calls (docs/calls.md, "Bounds").
 */
#ifndef FSP_ANALYSIS_CALLS_H
#define FSP_ANALYSIS_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* Samples of a call with one mark stack (the profile's stack id). */
struct call_stack {
	size_t stack;
	uint64_t count;
	uint64_t offcpu_ns; /* off-CPU time with it (--off-cpu) */
};

/* Samples of a call with one mark stack and one native stack (--stacks). */
struct call_native {
	size_t stack; /* the profile's stack id */
	size_t native; /* profile__native_stack index */
	uint64_t count;
};

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
	uint64_t exact_ns; /* its duration as its leave measured it (--events), 0: not known */
	uint64_t offcpu_ns; /* its off-CPU time (--off-cpu) */
	struct call_stack *stacks; /* its samples by stack */
	size_t nr_stacks, cap_stacks;
	struct call_native *natives; /* its samples' native stacks (--stacks) */
	size_t nr_natives, cap_natives;
	/* How many calls of its instance it stands for: 1, or more for a call
	 * of the uniform sample calls__bound keeps of the calls not among the
	 * slowest (the calls of its kind it dropped, shared out). */
	double weight;
};

struct calls;

/* An empty table keeping at most max calls (0: a default, 1 << 20). */
struct calls *calls__new(size_t max);
void calls__free(struct calls *c); /* NULL-safe */

/*
 * Joins count samples of thread (pid, tid) taken at time_ns with the mark
 * stack `stack` (a profile's stack id), frames[0, depth) (bottom first), whose
 * frames' call numbers are ids[0, depth). Names are copied. 0, -EINVAL or
 * -ENOMEM.
 */
int calls__add(struct calls *c, uint32_t pid, uint32_t tid, size_t stack,
	       const struct profile_frame *frames, const uint64_t *ids, size_t depth,
	       uint64_t time_ns, uint64_t count);

/*
 * The native stack `native` of count samples joined by calls__add (same
 * thread, stack, frames and call numbers): added to the calls they charge
 * that calls__add made; a call not kept gets none. 0, -EINVAL or -ENOMEM.
 */
int calls__add_native(struct calls *c, uint32_t pid, uint32_t tid, size_t stack,
		      const struct profile_frame *frames, const uint64_t *ids, size_t depth,
		      size_t native, uint64_t count);

/*
 * An off-CPU interval of ns starting at start_ns (record --calls --off-cpu)
 * of thread (pid, tid) switched out with mark stack `stack` (frames, call
 * numbers ids): charged to the calls open at the switch-out, by the same
 * rule; made if new (a call that never ran while sampled). Each call's
 * extent reaches to the interval's end (its duration estimate sees the
 * wait). 0, -EINVAL or -ENOMEM.
 */
int calls__add_offcpu(struct calls *c, uint32_t pid, uint32_t tid, size_t stack,
		      const struct profile_frame *frames, const uint64_t *ids, size_t depth,
		      uint64_t start_ns, uint64_t ns);

/* A call as read back (a profile file): r's fields without its stacks, names
 * copied; then its stacks one by one. 0, -EEXIST (that call is known),
 * -ENOSPC (beyond the bound), -EINVAL or -ENOMEM. */
int calls__put(struct calls *c, const struct call_rec *r);
int calls__put_stack(struct calls *c, size_t i, size_t stack, uint64_t count);
int calls__put_offcpu(struct calls *c, size_t i, size_t stack, uint64_t ns);
int calls__put_native(struct calls *c, size_t i, size_t stack, size_t native, uint64_t count);
/* Call (pid, tid, id) of any feature lasted exactly ns (record --calls
 * --events): 0, or -ENOENT when no sample fell in it (nothing to show). */
int calls__set_exact(struct calls *c, uint32_t pid, uint32_t tid, uint64_t id, uint64_t ns);
/* Calls with an exact duration. */
size_t calls__nr_exact(const struct calls *c);
/* Sets the counters (a profile file's). */
void calls__set_lost(struct calls *c, uint64_t dropped, uint64_t unknown);

/*
 * The bound: per feature instance, the `slowest` slowest calls that have
 * ended, and `sample` of its other ended calls chosen uniformly at random (a
 * bottom-k sample on a hash of the call, so the same calls whenever it runs);
 * the others are dropped: their samples counted in calls__dropped, the calls
 * in calls__dropped_calls, and the sample's calls weighted to stand for them.
 * Calls still open (open(ctx, r) true) are all kept. Durations as
 * call_rec__duration_ns with period_ns. Repeatable as calls come: a call
 * once dropped would never have been kept later. 0 or -ENOMEM.
 */
#define CALLS_KEEP_DEFAULT 1000 /* record --calls-keep */

struct calls_bound {
	size_t slowest;
	size_t sample;
	uint64_t period_ns;
};
int calls__bound(struct calls *c, const struct calls_bound *b,
		 bool (*open)(void *ctx, const struct call_rec *r), void *ctx);
/* Call i stands for w calls (as read from a file; w >= 1). */
void calls__set_weight(struct calls *c, size_t i, double w);
/* Calls dropped by calls__bound (or as read from a file). */
uint64_t calls__dropped_calls(const struct calls *c);
void calls__set_dropped_calls(struct calls *c, uint64_t n);
/*
 * A copy of c whose stack ids are mapped by stack_of (0: mapped into *out;
 * else the stack is not in the copy's profile: its samples are counted in
 * the copy's calls__dropped). Native stacks are not copied (the caller
 * joins them to the copy). NULL: no memory.
 */
struct calls *calls__copy(const struct calls *c,
			  int (*stack_of)(void *ctx, size_t stack, size_t *out), void *ctx);

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
/* Its exact duration when known, else the estimate. */
uint64_t call_rec__duration_ns(const struct call_rec *r, uint64_t period_ns);

/* The calls of profile p (NULL: it has none: not recorded with --calls). */
const struct calls *profile__calls(const struct profile *p);
/* Gives p the table c (p frees it; NULL removes p's). */
void profile__set_calls(struct profile *p, struct calls *c);

#endif /* FSP_ANALYSIS_CALLS_H */
