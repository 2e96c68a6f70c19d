/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Merging profiles: the core samples of several recordings (runs, hosts) summed
 * into one profile that keeps each recording as a source (profile.h) with its
 * own metadata and diagnostics. Processes, threads and stacks stay identified
 * by (source, pid), so equal PIDs of different recordings are kept apart, and
 * the attribution of the merge is the sum of the recordings' attributions.
 *
 * Usage:
 *
 *	struct profile *all = profile__new();
 *
 *	for (each loaded profile p)
 *		if (profile__merge(all, p, err, sizeof(err)))
 *			fail(err);
 *	if (profile__merge_finish(all, command_line, err, sizeof(err)))
 *		fail(err);
 */
#ifndef FSP_ANALYSIS_MERGE_H
#define FSP_ANALYSIS_MERGE_H

#include <stddef.h>

#include "profile.h"

/* Longest target profile__merge_finish writes, terminating NUL included. */
#define MERGE_TARGET_MAX 1024

/*
 * Appends src to dst. A src without source records (one recording) becomes
 * one new source of dst, with src's profile__meta and profile__diag; the
 * sources of a src that is itself a merge are appended one by one (their
 * indexes shifted past dst's). Every process (with its namespace PID),
 * thread (with its name), stack (frames, same key) and sample count of src is
 * copied under its new source. Native stacks (native.h): modules are shared
 * by all sources and dedup by kind, path and build-id, locations by module
 * and address (src's lines replace dst's when src has some), native stacks
 * by content with their locations remapped; native samples are copied under
 * their new source and native stack.
 *
 * dst is usually a new, empty profile. A dst that already holds a recording
 * (records or metadata but no sources) first becomes source 0, described by
 * its own profile__meta and diagnostics.
 *
 * Every source must have the sampling period (period_ns, else derived from
 * frequency_hz as profile_meta__period_ns does) of those dst already has: otherwise
 * -EINVAL. If dst's total sample count would exceed UINT64_MAX: -EOVERFLOW.
 * These checks (and the arguments' validity) are made before dst is touched,
 * so on those errors dst is unchanged. On a later error (-ENOMEM) dst may hold
 * part of src and should be freed. Every error writes a one-line message to
 * err (errlen bytes, may be NULL/0).
 *
 * Returns 0 or -errno.
 */
int profile__merge(struct profile *dst, const struct profile *src, char *err, size_t errlen);

/*
 * Sets the merged profile's own metadata and diagnostics from its sources,
 * after the last profile__merge:
 *   target        "merge of N profiles: T1, T2, ..." (targets of the sources,
 *                 "an unnamed target" for a NULL one), cut with ", ..." to
 *                 fit MERGE_TARGET_MAX
 *   command_line  a copy of command_line (may be NULL)
 *   host, kernel  the sources' value if they all have the same one, else NULL
 *   tool_version  FSP_VERSION
 *   frequency_hz  the sources' common frequency, else 0
 *   period_ns     the sources' common sampling period (derived as above)
 *   start_time    the earliest of the sources' non-zero start times (0: none)
 *   end_time      the latest end time
 *   duration_s    the sum of the sources' durations (the recorded time, not
 *                 the span from start_time to end_time)
 *   diagnostics   each counter the sum of the sources', saturating at
 *                 UINT64_MAX
 * Returns 0, -EINVAL (no sources, or sources with different sampling
 * periods) or -ENOMEM, with a message in err.
 */
int profile__merge_finish(struct profile *dst, const char *command_line, char *err, size_t errlen);

#endif /* FSP_ANALYSIS_MERGE_H */
